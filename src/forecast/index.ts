/**
 * The plain future forecast (POST /v2/forecast): the model's mean for `h`
 * steps after each series, intervals from the model's predictive spread
 * calibrated on rolling-origin errors of the same model on the series' own
 * history (nested conformal), and exogenous features.
 * @module
 */
import { PIPELINE_ARRAYS, pipelineSpread } from "../stats/array-cache.js";
import { crossValidate, type CrossValidationResult, type WindowPlan } from "../cv/index.js";
import { exogenousAfterModel, exogenousBeforeModel, type ExogenousPlan } from "../exogenous/index.js";
import { calibratedIntervals, collectCalibrationScores, withSpread } from "../intervals/index.js";
import { horizonWarning, requestModelParams } from "../model/config.js";
import { missingCount, missingValuesWarning } from "../series/missing.js";
import { withoutSpikes } from "../series/spikes.js";
import type { ForecastDistribution, ForecastInput, ForecastOutput, IntervalBounds, ModelSource, SeriesData } from "../types.js";
import { windowProgress } from "../progress.js";

/**
 * Calibration windows aim at this many scores per series (windows × h).
 * @category Forecasting
 */
export const CALIBRATION_TARGET_SCORES = 72;

/**
 * Fewest calibration windows asked for (when the series is long enough).
 * @category Forecasting
 */
export const CALIBRATION_MIN_WINDOWS = 3;

/**
 * Most calibration windows asked for (h = 1 asks for this many).
 * @category Forecasting
 */
export const CALIBRATION_MAX_WINDOWS = 20;

/**
 * Fewest context points a calibration window must have.
 * @category Forecasting
 */
export const CONFORMAL_MIN_CONTEXT = 3;

/**
 * Rolling-origin calibration windows (of length h, one every h points, tiling
 * back from the end) a forecast asks for, at most:
 * min(20, max(3, ⌈72 / h⌉)), so that a long enough series gives at least 60
 * calibration errors (h = 1: 20).
 *
 * @example
 * ```ts
 * calibrationWindowCount(24); // => 3
 * calibrationWindowCount(18); // => 4
 * calibrationWindowCount(6); // => 12
 * calibrationWindowCount(1); // => 20
 * ```
 * @category Forecasting
 */
export function calibrationWindowCount(h: number): number {
  if (!Number.isInteger(h) || h < 1) throw new RangeError(`calibrationWindowCount: h must be an integer >= 1, got ${String(h)}`);
  return Math.min(CALIBRATION_MAX_WINDOWS, Math.max(CALIBRATION_MIN_WINDOWS, Math.ceil(CALIBRATION_TARGET_SCORES / h)));
}

/**
 * The forecast's calibration windows, as `runForecast` runs them and the
 * API's work budget counts them: length h, one every h points,
 * {@link calibrationWindowCount}(h) at most, each after at least
 * {@link CONFORMAL_MIN_CONTEXT} points (a series gets `plannedWindowCount`
 * of them).
 *
 * @example
 * ```ts
 * calibrationPlan(24); // => { h: 24, stepSize: 24, windows: 3, minContext: 3 }
 * ```
 * @category Forecasting
 */
export function calibrationPlan(h: number): WindowPlan {
  return { h, stepSize: h, windows: calibrationWindowCount(h), minContext: CONFORMAL_MIN_CONTEXT };
}

/**
 * Forecasts `h` steps after every series, with conformal intervals.
 *
 * Method: the model that `model` gives for the series it will see (zero-shot,
 * fine-tuned or a stored fine-tuned model: `modelSource(request)`; or any
 * forecaster: `fixedModelSource`) forecasts each series with its predictive spread (the
 * network's quantiles; `withSpread` gives other forecasters a random-walk
 * spread). With levels, the same model also forecasts up to
 * {@link calibrationWindowCount}(h) rolling-origin windows of length h on the
 * series' own history (each with at least {@link CONFORMAL_MIN_CONTEXT}
 * context points); every forecast point of those windows gives a calibration
 * score |u| (where the actual fell in the model's spread, on a normal scale;
 * see `spreadScore`). The interval at level L is the model's spread at the
 * calibrated multiplier `conformalMultiplier`: the ⌊(n + 1)·L/100⌋ + 1-th
 * smallest of the series' n scores when there are enough (split conformal
 * with its finite-sample correction), else the model's own quantile, never
 * narrower than the widest calibration error. So intervals nest and widen
 * with the level, lo ≤ mean ≤ hi, and only a constant history (the network is
 * then certain) gives a zero width.
 *
 * Exogenous features (`series.X`, with `Xfuture`): see `exogenousBeforeModel`;
 * with `cleanExFirst` false the residual regression is fitted on the
 * calibration windows' forecasts. `weightsX` is returned when there are features.
 *
 * Missing points (`missing`: y filled by `fillMissing` where a request had
 * null or NaN) are read as filled, are not scored by the calibration nor
 * fitted by the residual regression, and are counted in a warning.
 *
 * The result is typed ({@link ForecastOutput}): `mean` and each interval bound
 * are `Float64Array`s of `sizes.length × h` values, `finetuneWork` is the
 * fine-tune steps × series the model source ran; the API turns it into the
 * JSON body and counts the tokens (`forecastResultJson`).
 *
 * @throws RangeError for h < 1, unequal lengths in multivariate mode, or a
 *   missing or mis-sized `Xfuture` (the API reports these as 422 items first).
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 48 }, (_, t) => 100 + 10 * Math.sin((2 * Math.PI * t) / 12));
 * const series = { y, sizes: Int32Array.of(48), offsets: Int32Array.of(0, 48), X: [] };
 * const request = { series, h: 12, freq: "M", levels: [80], model: "forecastmodel-1",
 *   finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null, multivariate: false,
 *   modelParameters: null, Xfuture: [], cleanExFirst: true, histExog: [] } as const;
 * const res = runForecast(request, modelSource(request));
 * res.mean.length; // => 12
 * Array.from(res.sizes); // => [12]
 * Object.keys(res.intervals ?? {}); // => ["lo-80", "hi-80"]
 * res.intervals!["lo-80"]!.every((lo, r) => lo <= res.mean[r]!); // => true
 * ```
 * @category Forecasting
 */
export function runForecast(request: ForecastInput, model: ModelSource): ForecastOutput {
  const { series, h, levels } = request;
  checkForecastRequest(request);
  const nSeries = series.sizes.length;
  const hasX = series.X.length > 0;
  const plan: ExogenousPlan | null = hasX
    ? exogenousBeforeModel(series, { cleanExFirst: request.cleanExFirst, histExog: request.histExog })
    : null;
  // isolated spikes are replaced in the model's history so that they are not echoed a season later
  const modelSeries = withoutSpikes(plan?.modelSeries ?? series, requestModelParams(request).seasonLength);
  const prepared = model(modelSeries);
  const wantSpread = levels.length > 0;
  const forecaster = wantSpread ? withSpread(prepared.forecaster) : prepared.forecaster;
  const contexts: Float64Array[] = [];
  for (let i = 0; i < nSeries; i++) contexts.push(modelSeries.y.subarray(series.offsets[i]!, series.offsets[i + 1]!));
  const dist = wantSpread ? forecaster.forecastDistribution!(contexts, h) : null;
  let mean = dist !== null ? dist.mean : forecaster.forecast(contexts, h);

  const needCv = wantSpread || (hasX && !request.cleanExFirst);
  let cv: CrossValidationResult | null = needCv
    ? crossValidate(forecaster, modelSeries, { ...calibrationPlan(h), spread: wantSpread, allocateSpread: pipelineSpread, ...windowProgress(request.onProgress) })
    : null;

  let weightsX: Float64Array | null = null;
  let contributions: Float64Array[] | null = null;
  const warnings: string[] = [...prepared.warnings];
  if (plan !== null) {
    const inSample = cv !== null ? calibrationRows(cv, series.offsets) : undefined;
    const outcome = exogenousAfterModel(plan, {
      future: { h, model: mean, Xfuture: request.Xfuture },
      ...(inSample !== undefined ? { inSample: { rows: inSample.rows, model: cv!.forecasts, origins: inSample.origins, ...observedRows(inSample.rows, request.missing) } } : {}),
      contributions: request.featureContributions === true,
    });
    mean = outcome.future!.mean;
    contributions = outcome.future!.contributions;
    if (cv !== null && outcome.inSample !== null) cv = { ...cv, forecasts: outcome.inSample.mean };
    weightsX = outcome.weightsX ?? new Float64Array(0);
    warnings.push(...outcome.warnings);
  }

  const intervals = dist !== null ? forecastIntervals(mean, dist, cv!, series, h, levels, request.missing) : null;
  const filled = missingCount(request.missing);
  if (filled > 0) warnings.push(missingValuesWarning(filled, series.y.length));
  const warning = horizonWarning(request.model, request.freq, h);
  if (warning !== null) warnings.push(warning);
  const sizes = new Int32Array(nSeries).fill(h); // h rows per series
  // the calibration spreads for the next call (nothing returned refers to them)
  if (cv?.spread !== undefined) PIPELINE_ARRAYS.give(cv.spread.below, cv.spread.above);
  return {
    mean,
    sizes,
    intervals,
    weightsX,
    contributions,
    finetuneWork: prepared.finetuneWork,
    warnings,
  };
}


/** The residual regression's fit mask when points were filled: 0 at a filled row (no actual), 1 elsewhere; nothing otherwise. */
function observedRows(rows: Int32Array, missing: Uint8Array | undefined): { fitMask?: Uint8Array } {
  if (missing === undefined) return {};
  return { fitMask: Uint8Array.from(rows, (row) => 1 - missing[row]!) };
}

/** Rows (global indices into y) and origins of every calibration forecast, in the cv's (row, step) order. */
function calibrationRows(cv: CrossValidationResult, offsets: Int32Array): { rows: Int32Array; origins: Int32Array } {
  const { h } = cv;
  const count = cv.cutoffs.length;
  const rows = new Int32Array(count * h);
  const origins = new Int32Array(count * h);
  for (let i = 0; i + 1 < offsets.length; i++) {
    for (let r = cv.windowOffsets[i]!; r < cv.windowOffsets[i + 1]!; r++) {
      const start = offsets[i]! + cv.cutoffs[r]!;
      for (let k = 0; k < h; k++) {
        rows[r * h + k] = start + k;
        origins[r * h + k] = start - 1;
      }
    }
  }
  return { rows, origins };
}

/** Calibrated intervals: the model's spread at each series' conformal multiplier (see runForecast). */
function forecastIntervals(mean: Float64Array, dist: ForecastDistribution, cv: CrossValidationResult, series: SeriesData, h: number, levels: readonly number[], missing: Uint8Array | undefined): IntervalBounds {
  const nSeries = series.sizes.length;
  const G = dist.levels.length;
  const spread = cv.spread;
  const calibration = collectCalibrationScores(nSeries, dist.levels, (i, add) => {
    if (spread === undefined) return;
    const start = series.offsets[i]!;
    for (let row = cv.windowOffsets[i]!; row < cv.windowOffsets[i + 1]!; row++) {
      const first = start + cv.cutoffs[row]!;
      for (let k = 0; k < h; k++) {
        if (missing !== undefined && missing[first + k] === 1) continue; // a filled point is no actual to score against
        add(series.y[first + k]!, cv.forecasts[row * h + k]!, spread.below, spread.above, (row * h + k) * G);
      }
    }
  });
  const seriesOfRow = new Int32Array(nSeries * h);
  for (let i = 0; i < nSeries; i++) seriesOfRow.fill(i, i * h, (i + 1) * h);
  return calibratedIntervals(dist, seriesOfRow, calibration, levels, mean);
}

/**
 * Guards of the typed input (the API reports these as 422 items before the
 * pipeline runs: `validateEndpointBody`, `toForecastRequest`).
 */
function checkForecastRequest(request: ForecastInput): void {
  const { series, h } = request;
  if (!Number.isInteger(h) || h < 1) throw new RangeError(`runForecast: h must be an integer >= 1, got ${String(h)}`);
  const nSeries = series.sizes.length;
  if (request.multivariate) {
    for (let i = 1; i < nSeries; i++) {
      if (series.sizes[i] !== series.sizes[0]) {
        throw new RangeError(`runForecast: multivariate forecasting needs series of equal length: series 0 has ${series.sizes[0]} points, series ${i} has ${series.sizes[i]}`);
      }
    }
  }
  const features = series.X.length;
  const historical = new Set(request.histExog);
  const futureNeeded = Array.from({ length: features }, (_, k) => k).filter((k) => !historical.has(k)).length;
  const expected = nSeries * h;
  if (features === 0 && request.Xfuture.length > 0) throw new RangeError("runForecast: Xfuture given but series.X has no features");
  if (request.Xfuture.length === 0 && futureNeeded > 0) throw new RangeError(`runForecast: Xfuture is required: ${futureNeeded} feature(s) of series.X are not in histExog`);
  if (request.Xfuture.length > 0 && request.Xfuture.length !== features && request.Xfuture.length !== futureNeeded) {
    throw new RangeError(`runForecast: Xfuture needs one array per feature of series.X (${features}) or per feature not in histExog (${futureNeeded}), got ${request.Xfuture.length}`);
  }
  request.Xfuture.forEach((x, k) => {
    if (x.length !== expected && !(x.length === 0 && historical.has(k))) throw new RangeError(`runForecast: Xfuture[${k}] must have sizes.length × h = ${expected} values, got ${x.length}`);
  });
}
