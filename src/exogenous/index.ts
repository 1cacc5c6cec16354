/**
 * Exogenous features: a per-series ridge regression of the target on the
 * features, used around any forecaster in two phases.
 *
 * ```
 * const plan = exogenousBeforeModel(series, { cleanExFirst, histExog });   // phase 1
 * // ... run the model on plan.modelSeries, at in-sample rows and/or future rows ...
 * const out = exogenousAfterModel(plan, { inSample, future, contributions }); // phase 2
 * // out.inSample.mean / out.future.mean, out.weightsX, out.*.contributions
 * ```
 *
 * - `cleanExFirst: true`: phase 1 regresses y on X per series (all rows) and
 *   the model sees y − Σ β_k·(x_k − m_k) (the centred X part removed, the level
 *   kept); phase 2 adds the X part back at the rows the model forecast.
 * - `cleanExFirst: false`: the model sees y unchanged; phase 2 regresses the
 *   model's residuals y − ŷ on X at the in-sample rows where the model produced
 *   forecasts and adds the fitted regression (intercept included) to ŷ.
 *
 * Design decisions are written in docs/exogenous.md.
 * @module
 */
import type { SeriesData } from "../types.js";
import { seriesOfRow } from "../series/index.js";
import { EXOGENOUS_DEFAULT_PENALTY, createRidgeWorkspace, ridgeFitInto } from "./ridge.js";

export { EXOGENOUS_DEFAULT_PENALTY, fitRidgeRegression, type RidgeRegressionFit } from "./ridge.js";

/**
 * Options of {@link exogenousBeforeModel}.
 * @category Exogenous features
 */
export interface ExogenousOptions {
  /**
   * true: regress y on X before the model, which then works on what X does
   * not explain; false: the model runs on y and X explains its residuals.
   */
  readonly cleanExFirst: boolean;
  /**
   * Zero-based indices of historical features: known only up to the forecast
   * origin. Such a feature enters the regression lagged by one row (x at t − 1;
   * the first row of a series uses its own value), and when a row is forecast
   * from origin o its value is the latest one known, x at min(t − 1, o): for
   * future rows that is the series' last observed value (carried forward).
   */
  readonly histExog?: readonly number[];
  /** Ridge penalty per row on the standardised scale (≥ 0); default {@link EXOGENOUS_DEFAULT_PENALTY}. */
  readonly penalty?: number;
}

/**
 * Per-series regression results, series-major: entry `i * features + k` is
 * feature k of series i.
 * @category Exogenous features
 */
export interface ExogenousSeriesFits {
  /** Number of features p. */
  readonly features: number;
  /** Coefficient β of each feature on its original scale (0 when not identified). */
  readonly coefficients: Float64Array;
  /** Mean m of each regressor over the series' fitted rows; contributions are β·(x − m). */
  readonly centers: Float64Array;
  /** Intercept of each series on the original scale: response mean − Σ β_k·m_k. */
  readonly intercepts: Float64Array;
  /** Mean response of each series over its fitted rows (y for cleanExFirst, the model residual otherwise). */
  readonly responseMeans: Float64Array;
  /** 1 where the feature entered the series' fit (not constant, not aliased). */
  readonly identified: Uint8Array;
  /** Number of rows each series' regression used. */
  readonly rowCounts: Int32Array;
}

/**
 * Result of phase 1: what the model should see, and what phase 2 needs.
 * @category Exogenous features
 */
export interface ExogenousPlan {
  /** The series as given (with X). */
  readonly series: SeriesData;
  /** The series the model must be run on (y cleaned when cleanExFirst; X is always empty). */
  readonly modelSeries: SeriesData;
  /** The order chosen in phase 1 (see {@link ExogenousOptions.cleanExFirst}). */
  readonly cleanExFirst: boolean;
  /** 1 for each historical feature. */
  readonly historical: Uint8Array;
  /** The ridge penalty used by both phases. */
  readonly penalty: number;
  /** The regressions of phase 1 (cleanExFirst with features), else null. */
  readonly fits: ExogenousSeriesFits | null;
}

/**
 * Model outputs at in-sample rows (rows of the given series' `y`).
 * @category Exogenous features
 */
export interface ExogenousInSample {
  /** Global row index (into `series.y`) of each forecast value. Rows may repeat (overlapping windows). */
  readonly rows: Int32Array;
  /** The model's output at each row, on the scale of `plan.modelSeries`. */
  readonly model: Float64Array;
  /**
   * Global row index of the last observation the forecast of each row used (its
   * origin; same series, before the row). Only historical features use it.
   * Default: `rows[j] − 1` (one-step-ahead).
   */
  readonly origins?: Int32Array;
  /**
   * cleanExFirst false: 1 for the rows the residual regression is fitted on
   * (default: all rows). Results are returned for every row either way.
   */
  readonly fitMask?: Uint8Array;
}

/**
 * Model outputs at future rows: `h` steps after the end of every series.
 * @category Exogenous features
 */
export interface ExogenousFuture {
  /** Number of future steps per series. */
  readonly h: number;
  /** `sizes.length * h` values, series after series. */
  readonly model: Float64Array;
  /**
   * Future feature values, feature-major, each `sizes.length * h` long, series
   * after series: either one array per feature (historical ones are ignored
   * and may be empty) or one per non-historical feature, in X order.
   */
  readonly Xfuture: readonly Float64Array[];
}

/**
 * Input of phase 2.
 * @category Exogenous features
 */
export interface ExogenousModelOutputs {
  /** Model outputs at rows of the series' own past (fitted rows for cleanExFirst false). */
  readonly inSample?: ExogenousInSample;
  /** Model outputs after the end of every series. */
  readonly future?: ExogenousFuture;
  /** Also return the (features + 1) contribution arrays of each block. */
  readonly contributions?: boolean;
}

/**
 * Final values of one block of rows.
 * @category Exogenous features
 */
export interface ExogenousBlock {
  /** Model output plus the X part. */
  readonly mean: Float64Array;
  /**
   * (features + 1) arrays of the block's length when requested, else null.
   * Array k < p: β_k·(x_k − m_k) (the feature's centred value times its
   * series' coefficient); the last array: the base value (model output, plus
   * for cleanExFirst false the series' mean residual). They sum to `mean`.
   */
  readonly contributions: Float64Array[] | null;
}

/**
 * Result of phase 2.
 * @category Exogenous features
 */
export interface ExogenousOutcome {
  /** Final values at the given in-sample rows (same order), or null when none were given. */
  readonly inSample: ExogenousBlock | null;
  /** Final values at the future rows (series after series), or null when none were given. */
  readonly future: ExogenousBlock | null;
  /**
   * The fitted weights (`weightsX` of the pipelines' results): per feature, the mean over series of the series' coefficient
   * (original scale), taken over the series where the feature was identified;
   * 0 when it was identified in none. null when there are no features.
   */
  readonly weightsX: Float64Array | null;
  /** The per-series regressions actually used (phase 1's or phase 2's). */
  readonly fits: ExogenousSeriesFits | null;
  /** Human-readable notes (e.g. series without in-sample forecasts to fit on). */
  readonly warnings: string[];
}

function createFits(seriesCount: number, p: number): ExogenousSeriesFits {
  return {
    features: p,
    coefficients: new Float64Array(seriesCount * p),
    centers: new Float64Array(seriesCount * p),
    intercepts: new Float64Array(seriesCount),
    responseMeans: new Float64Array(seriesCount),
    identified: new Uint8Array(seriesCount * p),
    rowCounts: new Int32Array(seriesCount),
  };
}

/**
 * Phase 1, before the model: checks the features and, when `cleanExFirst`,
 * fits per series the ridge regression y ≈ a + Σ β_k·x_k on all its rows and
 * removes the centred X part, so the model sees
 * y′ = y − Σ β_k·(x_k − m_k) (m_k = the feature's mean over the series).
 * With `cleanExFirst: false` or without features the model sees y unchanged.
 * `modelSeries.X` is always empty: the model never sees the features.
 *
 * Cost: O(n·p² + S·p³) for n rows, p features, S series.
 *
 * @throws RangeError when a `histExog` index is not a feature index, an X
 *   value is not finite, a feature's length differs from `y.length` or the
 *   penalty is negative (the API reports the first two as 422 items first)
 *
 * @example
 * ```ts
 * const x = new Float64Array([0, 1, 0, 1]);
 * const series = { y: new Float64Array([10, 13, 10, 13]), sizes: Int32Array.of(4), offsets: Int32Array.of(0, 4), X: [x] };
 * const plan = exogenousBeforeModel(series, { cleanExFirst: true, penalty: 0 });
 * Array.from(plan.modelSeries.y); // => [11.5, 11.5, 11.5, 11.5]
 * ```
 * @category Exogenous features
 */
export function exogenousBeforeModel(series: SeriesData, options: ExogenousOptions): ExogenousPlan {
  const { y, offsets, X } = series;
  const p = X.length;
  const penalty = options.penalty ?? EXOGENOUS_DEFAULT_PENALTY;
  if (!(penalty >= 0) || !Number.isFinite(penalty)) throw new RangeError("penalty must be a finite number >= 0");
  if (offsets.length !== series.sizes.length + 1 || offsets[series.sizes.length] !== y.length) {
    throw new RangeError("offsets must have sizes.length + 1 entries ending at y.length");
  }
  const historical = new Uint8Array(p);
  (options.histExog ?? []).forEach((k, j) => {
    if (!Number.isInteger(k) || k < 0 || k >= p) {
      throw new RangeError(`exogenousBeforeModel: histExog[${j}] = ${k} is not a feature index: X has ${p} feature(s)`);
    }
    historical[k] = 1;
  });
  for (let k = 0; k < p; k++) {
    const feature = X[k] as Float64Array;
    if (feature.length !== y.length) throw new RangeError(`X[${k}] must have length ${y.length} (the length of y), got ${feature.length}`);
    for (let r = 0; r < feature.length; r++) {
      if (!Number.isFinite(feature[r] as number)) throw new RangeError(`exogenousBeforeModel: X[${k}][${r}] must be a finite number, got ${String(feature[r])}`);
    }
  }

  if (!options.cleanExFirst || p === 0) {
    const modelSeries: SeriesData = p === 0 ? series : { y, sizes: series.sizes, offsets, X: [] };
    return { series, modelSeries, cleanExFirst: options.cleanExFirst, historical, penalty, fits: null };
  }

  const seriesCount = series.sizes.length;
  let longest = 0;
  for (let i = 0; i < seriesCount; i++) longest = Math.max(longest, series.sizes[i] as number);
  const ws = createRidgeWorkspace(p, longest);
  const fits = createFits(seriesCount, p);
  const cleaned = new Float64Array(y.length);
  for (let i = 0; i < seriesCount; i++) {
    const start = offsets[i] as number;
    const n = (offsets[i + 1] as number) - start;
    for (let k = 0; k < p; k++) {
      const feature = X[k] as Float64Array;
      const base = k * ws.capacity;
      const lag = historical[k] === 1 ? 1 : 0;
      for (let r = 0; r < n; r++) ws.design[base + r] = feature[start + Math.max(r - lag, 0)] as number;
    }
    ws.response.set(y.subarray(start, start + n));
    ridgeFitInto(ws, n, penalty);
    storeFit(fits, i, ws, n);
    for (let r = 0; r < n; r++) {
      let xPart = 0;
      for (let k = 0; k < p; k++) {
        const beta = fits.coefficients[i * p + k] as number;
        if (beta === 0) continue;
        const lag = historical[k] === 1 ? 1 : 0;
        xPart += beta * (((X[k] as Float64Array)[start + Math.max(r - lag, 0)] as number) - (fits.centers[i * p + k] as number));
      }
      cleaned[start + r] = (y[start + r] as number) - xPart;
    }
  }
  return {
    series,
    modelSeries: { y: cleaned, sizes: series.sizes, offsets, X: [] },
    cleanExFirst: true,
    historical,
    penalty,
    fits,
  };
}

function storeFit(fits: ExogenousSeriesFits, i: number, ws: ReturnType<typeof createRidgeWorkspace>, n: number): void {
  const p = fits.features;
  fits.coefficients.set(ws.coefficients, i * p);
  fits.centers.set(ws.centers, i * p);
  fits.identified.set(ws.identified, i * p);
  fits.intercepts[i] = ws.intercept;
  fits.responseMeans[i] = ws.responseMean;
  fits.rowCounts[i] = n;
}

/** The pooled weights: mean of the identified coefficients of each feature over series. */
function pooledWeights(fits: ExogenousSeriesFits, seriesCount: number): Float64Array {
  const p = fits.features;
  const weights = new Float64Array(p);
  for (let k = 0; k < p; k++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < seriesCount; i++) {
      if (fits.identified[i * p + k] === 1) {
        sum += fits.coefficients[i * p + k] as number;
        count++;
      }
    }
    weights[k] = count > 0 ? sum / count : 0;
  }
  return weights;
}

/**
 * Phase 2, after the model: turns the model's outputs into final values.
 *
 * For each row (in-sample rows in the given order, then future rows series
 * after series) of series i: mean = base + Σ_k β_ik·(x̃_k − m_ik), where x̃_k
 * is the regressor value of feature k at that row (a historical feature uses
 * its latest value known at the row's origin) and base is the model output
 * (cleanExFirst true) or the model output plus the series' mean in-sample
 * residual (cleanExFirst false; together with Σ β·(x̃ − m) this is exactly the
 * residual regression's prediction a + Σ β·x̃). With `cleanExFirst: false` the
 * coefficients come from regressing y − ŷ on the regressors at the in-sample
 * rows (those with `fitMask` 1), per series; a series with no such row gets
 * coefficients 0 and base = model output.
 *
 * `contributions` (when asked): p + 1 arrays per block, k < p holding
 * β_ik·(x̃_k − m_ik) and the last holding the base; `mean` is computed as
 * their sum, so they add up to it exactly up to rounding.
 *
 * @throws RangeError when rows, origins or model outputs are inconsistent with the plan's series
 * @throws RangeError when `Xfuture` is missing, has the wrong shape or a non-finite value (the API reports these as 422 items first)
 *
 * @example
 * ```ts
 * const x = new Float64Array([0, 1, 0, 1]);
 * const series = { y: new Float64Array([10, 13, 10, 13]), sizes: Int32Array.of(4), offsets: Int32Array.of(0, 4), X: [x] };
 * const plan = exogenousBeforeModel(series, { cleanExFirst: true, penalty: 0 });
 * // a model that forecasts the cleaned level 11.5 for two future steps
 * const out = exogenousAfterModel(plan, {
 *   future: { h: 2, model: Float64Array.of(11.5, 11.5), Xfuture: [Float64Array.of(1, 0)] },
 *   contributions: true,
 * });
 * Array.from(out.future!.mean); // => [13, 10]
 * Array.from(out.weightsX!); // => [3]
 * out.future!.contributions!.map((c) => Array.from(c)); // => [[1.5, -1.5], [11.5, 11.5]]
 * ```
 * @category Exogenous features
 */
export function exogenousAfterModel(plan: ExogenousPlan, outputs: ExogenousModelOutputs): ExogenousOutcome {
  const { series, historical } = plan;
  const { y, offsets, X } = series;
  const p = X.length;
  const seriesCount = series.sizes.length;
  const wantContributions = outputs.contributions === true;
  const warnings: string[] = [];
  const inSample = outputs.inSample;
  const future = outputs.future;

  // Row bookkeeping for in-sample rows: series index and origin, checked.
  let rowSeries: Int32Array | null = null;
  let rowOrigins: Int32Array | null = null;
  if (inSample) {
    const m = inSample.rows.length;
    if (inSample.model.length !== m) throw new RangeError(`inSample.model must have ${m} values (one per row), got ${inSample.model.length}`);
    if (inSample.origins && inSample.origins.length !== m) throw new RangeError(`inSample.origins must have ${m} values, got ${inSample.origins.length}`);
    if (inSample.fitMask && inSample.fitMask.length !== m) throw new RangeError(`inSample.fitMask must have ${m} values, got ${inSample.fitMask.length}`);
    rowSeries = new Int32Array(m);
    rowOrigins = new Int32Array(m);
    for (let j = 0; j < m; j++) {
      const row = inSample.rows[j] as number;
      if (!(row >= 0 && row < y.length)) throw new RangeError(`inSample.rows[${j}] = ${row} is outside 0..${y.length - 1}`);
      const i = seriesOfRow(offsets, row);
      rowSeries[j] = i;
      const origin = inSample.origins ? (inSample.origins[j] as number) : row - 1;
      const start = offsets[i] as number;
      if (inSample.origins && !(origin >= start && origin < row)) {
        throw new RangeError(`inSample.origins[${j}] = ${origin} must be in ${start}..${row - 1} (the same series, before the row)`);
      }
      rowOrigins[j] = Math.max(origin, start);
    }
  }

  // Map future feature arrays.
  let futureIndex: Int32Array | null = null;
  if (future) {
    if (!(Number.isInteger(future.h) && future.h >= 1)) throw new RangeError(`future.h must be an integer >= 1, got ${future.h}`);
    const expected = seriesCount * future.h;
    if (future.model.length !== expected) throw new RangeError(`future.model must have sizes.length * h = ${expected} values, got ${future.model.length}`);
    futureIndex = new Int32Array(p).fill(-1);
    let nonHistorical = 0;
    for (let k = 0; k < p; k++) if (historical[k] === 0) nonHistorical++;
    const given = future.Xfuture.length;
    if (given === p) {
      for (let k = 0; k < p; k++) if (historical[k] === 0) futureIndex[k] = k;
    } else if (given === nonHistorical) {
      let j = 0;
      for (let k = 0; k < p; k++) if (historical[k] === 0) futureIndex[k] = j++;
    } else {
      throw new RangeError(`exogenousAfterModel: Xfuture needs one array per feature of X (${p}) or per non-historical feature (${nonHistorical}), got ${given}`);
    }
    for (let k = 0; k < p; k++) {
      const j = futureIndex[k] as number;
      if (j < 0) continue;
      const values = future.Xfuture[j] as Float64Array;
      if (values.length !== expected) throw new RangeError(`exogenousAfterModel: Xfuture[${j}] must have sizes.length * h = ${expected} values, got ${values.length}`);
      for (let r = 0; r < values.length; r++) {
        if (!Number.isFinite(values[r] as number)) throw new RangeError(`exogenousAfterModel: Xfuture[${j}][${r}] must be a finite number, got ${String(values[r])}`);
      }
    }
  }

  // Regressor value of feature k at in-sample row j.
  const inSampleRegressor = (k: number, j: number): number => {
    const feature = X[k] as Float64Array;
    const row = (inSample as ExogenousInSample).rows[j] as number;
    if (historical[k] === 0) return feature[row] as number;
    const start = offsets[(rowSeries as Int32Array)[j] as number] as number;
    return feature[Math.max(Math.min(row - 1, (rowOrigins as Int32Array)[j] as number), start)] as number;
  };

  // The regressions: phase 1's, or the residual regressions fitted now.
  let fits: ExogenousSeriesFits | null = plan.fits;
  if (p > 0 && !plan.cleanExFirst) {
    fits = createFits(seriesCount, p);
    if (inSample && inSample.rows.length > 0) {
      const m = inSample.rows.length;
      const mask = inSample.fitMask;
      // Group fitted rows by series (counting sort, stable).
      const counts = new Int32Array(seriesCount + 1);
      for (let j = 0; j < m; j++) {
        if (mask && mask[j] !== 1) continue;
        const slot = ((rowSeries as Int32Array)[j] as number) + 1;
        counts[slot] = (counts[slot] as number) + 1;
      }
      for (let i = 0; i < seriesCount; i++) counts[i + 1] = (counts[i + 1] as number) + (counts[i] as number);
      const order = new Int32Array(counts[seriesCount] as number);
      const fill = counts.slice(0, seriesCount);
      let longest = 0;
      for (let i = 0; i < seriesCount; i++) longest = Math.max(longest, (counts[i + 1] as number) - (counts[i] as number));
      for (let j = 0; j < m; j++) {
        if (mask && mask[j] !== 1) continue;
        const i = (rowSeries as Int32Array)[j] as number;
        order[fill[i] as number] = j;
        fill[i] = (fill[i] as number) + 1;
      }
      const ws = createRidgeWorkspace(p, longest);
      for (let i = 0; i < seriesCount; i++) {
        const from = counts[i] as number;
        const n = (counts[i + 1] as number) - from;
        for (let r = 0; r < n; r++) {
          const j = order[from + r] as number;
          ws.response[r] = (y[inSample.rows[j] as number] as number) - (inSample.model[j] as number);
          for (let k = 0; k < p; k++) ws.design[k * ws.capacity + r] = inSampleRegressor(k, j);
        }
        ridgeFitInto(ws, n, plan.penalty);
        storeFit(fits, i, ws, n);
      }
    }
    let unfitted = 0;
    for (let i = 0; i < seriesCount; i++) if (fits.rowCounts[i] === 0) unfitted++;
    if (unfitted > 0) {
      warnings.push(`clean_ex_first=false: ${unfitted} of ${seriesCount} series had no in-sample forecasts to fit the exogenous features on; their feature coefficients are 0`);
    }
  }

  const finish = (
    length: number,
    seriesAt: (j: number) => number,
    modelAt: (j: number) => number,
    regressor: (k: number, j: number) => number,
  ): ExogenousBlock => {
    const mean = new Float64Array(length);
    const contributions = wantContributions ? Array.from({ length: p + 1 }, () => new Float64Array(length)) : null;
    for (let j = 0; j < length; j++) {
      const i = seriesAt(j);
      let base = modelAt(j);
      if (fits && !plan.cleanExFirst) base += fits.responseMeans[i] as number;
      let total = 0;
      for (let k = 0; k < p; k++) {
        const beta = fits ? (fits.coefficients[i * p + k] as number) : 0;
        const c = beta === 0 ? 0 : beta * (regressor(k, j) - ((fits as ExogenousSeriesFits).centers[i * p + k] as number));
        if (contributions) (contributions[k] as Float64Array)[j] = c;
        total += c;
      }
      if (contributions) (contributions[p] as Float64Array)[j] = base;
      mean[j] = total + base;
    }
    return { mean, contributions };
  };

  const inSampleBlock = inSample
    ? finish(
        inSample.rows.length,
        (j) => (rowSeries as Int32Array)[j] as number,
        (j) => inSample.model[j] as number,
        inSampleRegressor,
      )
    : null;

  let futureBlock: ExogenousBlock | null = null;
  if (future) {
    const h = future.h;
    const index = futureIndex as Int32Array;
    futureBlock = finish(
      seriesCount * h,
      (j) => Math.floor(j / h),
      (j) => future.model[j] as number,
      (k, j) => {
        const slot = index[k] as number;
        if (slot >= 0) return (future.Xfuture[slot] as Float64Array)[j] as number;
        // Historical feature: carried forward from the series' last observation.
        const i = Math.floor(j / h);
        return (X[k] as Float64Array)[(offsets[i + 1] as number) - 1] as number;
      },
    );
  }

  return {
    inSample: inSampleBlock,
    future: futureBlock,
    weightsX: p > 0 && fits ? pooledWeights(fits, seriesCount) : null,
    fits,
    warnings,
  };
}
