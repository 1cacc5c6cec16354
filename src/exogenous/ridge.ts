/**
 * Ridge regression with an unpenalised intercept on standardised features,
 * solved through the (p × p) normal equations of the centred problem.
 * @module
 */
import { choleskyInPlace, choleskySolve, meanOf } from "../stats/index.js";

/** Features whose spread (root mean square about their mean) is at most this are treated as constant. */
const MIN_FEATURE_SPREAD = 2.2250738585072014e-308; // the smallest normal double: subnormal spreads have too few significant bits

/**
 * Default ridge penalty per row on the standardised scale.
 *
 * The fit minimises Σ(u − Zγ)² + penalty · n · Σγ², with `Z` the features
 * centred and divided by their population standard deviation and `u` the
 * response standardised the same way. For uncorrelated features this shrinks
 * every coefficient by the factor 1 / (1 + penalty) — 0.01 % at the default —
 * and keeps the solve well posed when features are collinear or rows are fewer
 * than features.
 *
 * @example
 * ```ts
 * EXOGENOUS_DEFAULT_PENALTY; // => 0.0001
 * ```
 * @category Exogenous features
 */
export const EXOGENOUS_DEFAULT_PENALTY = 1e-4;

/** A pivot of the Cholesky factor below this fraction of its diagonal marks the feature as aliased. */
const ALIAS_TOLERANCE = 1e-10;


/**
 * Result of {@link fitRidgeRegression}: a linear model `y ≈ intercept + Σ coefficients[k] · X[k]`.
 * @category Exogenous features
 */
export interface RidgeRegressionFit {
  /** Intercept on the original scale. */
  readonly intercept: number;
  /** One coefficient per feature, on the original scale of that feature; 0 for a feature that is not identified. */
  readonly coefficients: Float64Array;
  /** Mean of each feature over the fitted rows. */
  readonly centers: Float64Array;
  /** Mean of the response over the fitted rows (the prediction at the feature means). */
  readonly responseMean: number;
  /** 1 where the feature entered the fit; 0 where it is constant over the rows or a linear combination of earlier features (penalty 0). */
  readonly identified: Uint8Array;
}

/**
 * Scratch buffers and per-fit outputs for {@link ridgeFitInto}; allocated once
 * per call of a pipeline, reused for every series.
 * @internal
 * @category Exogenous features
 */
export interface RidgeWorkspace {
  readonly features: number;
  readonly capacity: number;
  /** Feature-major design, `design[k * capacity + r]`; overwritten with standardised values. */
  readonly design: Float64Array;
  /** Response, overwritten with standardised values. */
  readonly response: Float64Array;
  readonly gram: Float64Array;
  /** Zᵀu, then (solved in place) the standardised coefficients. */
  readonly rhs: Float64Array;
  /** The columns the Cholesky factorisation dropped (1) as combinations of earlier ones. */
  readonly aliased: Uint8Array;
  readonly scale: Float64Array;
  readonly active: Int32Array;
  /** Outputs of the last fit. */
  readonly coefficients: Float64Array;
  readonly centers: Float64Array;
  readonly identified: Uint8Array;
  responseMean: number;
  intercept: number;
}

/**
 * @internal
 * @category Exogenous features
 */
export function createRidgeWorkspace(features: number, capacity: number): RidgeWorkspace {
  return {
    features,
    capacity,
    design: new Float64Array(features * capacity),
    response: new Float64Array(capacity),
    gram: new Float64Array(features * features),
    rhs: new Float64Array(features),
    aliased: new Uint8Array(features),
    scale: new Float64Array(features),
    active: new Int32Array(features),
    coefficients: new Float64Array(features),
    centers: new Float64Array(features),
    identified: new Uint8Array(features),
    responseMean: 0,
    intercept: 0,
  };
}

/**
 * Centres `values[start .. start + n)` in place on `center` and returns the
 * population standard deviation of the result (computed on values divided by
 * their largest magnitude, so squares of huge values do not overflow).
 */
function centreAndScale(values: Float64Array, start: number, n: number, center: number): number {
  let largest = 0;
  for (let r = 0; r < n; r++) {
    const c = (values[start + r] as number) - center;
    values[start + r] = c;
    const a = Math.abs(c);
    if (a > largest) largest = a;
  }
  if (largest === 0 || !Number.isFinite(largest)) return 0;
  let sum = 0;
  let compensation = 0;
  for (let r = 0; r < n; r++) {
    const q = (values[start + r] as number) / largest;
    const v = q * q;
    const t = sum + v;
    compensation += sum >= v ? sum - t + v : v - t + sum;
    sum = t;
  }
  return largest * Math.sqrt((sum + compensation) / n);
}

/**
 * Fits the ridge regression of `ws.response[0..n)` on the columns of
 * `ws.design` (rows 0..n) and writes the original-scale result into
 * `ws.coefficients`, `ws.centers`, `ws.identified`, `ws.intercept` and
 * `ws.responseMean`. Destroys the design and response buffers. Allocates nothing.
 * @internal
 * @category Exogenous features
 */
export function ridgeFitInto(ws: RidgeWorkspace, n: number, penalty: number): void {
  const p = ws.features;
  const cap = ws.capacity;
  const { design, response, gram, rhs, aliased, scale, active, coefficients, centers, identified } = ws;
  coefficients.fill(0);
  centers.fill(0);
  identified.fill(0);
  ws.intercept = 0;
  ws.responseMean = 0;
  if (n === 0) return;

  const responseMean = meanOf(response, 0, n);
  ws.responseMean = responseMean;
  ws.intercept = responseMean;
  let activeCount = 0;
  for (let k = 0; k < p; k++) {
    const start = k * cap;
    let lo = Infinity;
    let hi = -Infinity;
    for (let r = 0; r < n; r++) {
      const v = design[start + r] as number;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    // A constant feature is indistinguishable from the intercept: its coefficient is 0.
    const center = lo === hi ? lo : meanOf(design, start, start + n);
    centers[k] = center;
    if (lo === hi) continue;
    const s = centreAndScale(design, start, n, center);
    // A spread this small is numerically constant: its coefficient could not be represented.
    if (!(s > MIN_FEATURE_SPREAD) || !Number.isFinite(s)) continue;
    scale[k] = s;
    for (let r = 0; r < n; r++) design[start + r] = (design[start + r] as number) / s;
    active[activeCount++] = k;
  }
  const responseScale = centreAndScale(response, 0, n, responseMean);
  if (activeCount === 0) return;
  for (let a = 0; a < activeCount; a++) identified[active[a] as number] = 1;
  if (!(responseScale > 0) || !Number.isFinite(responseScale)) return;
  for (let r = 0; r < n; r++) response[r] = (response[r] as number) / responseScale;

  // Normal equations of the standardised problem: (ZᵀZ + penalty·n·I) γ = Zᵀu.
  const m = activeCount;
  const ridge = penalty * n;
  for (let a = 0; a < m; a++) {
    const ka = (active[a] as number) * cap;
    for (let b = 0; b <= a; b++) {
      const kb = (active[b] as number) * cap;
      let sum = 0;
      let compensation = 0;
      for (let r = 0; r < n; r++) {
        const v = (design[ka + r] as number) * (design[kb + r] as number);
        const t = sum + v;
        compensation += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
        sum = t;
      }
      gram[a * m + b] = sum + compensation;
    }
    gram[a * m + a] = (gram[a * m + a] as number) + ridge;
    let sum = 0;
    let compensation = 0;
    for (let r = 0; r < n; r++) {
      const v = (design[ka + r] as number) * (response[r] as number);
      const t = sum + v;
      compensation += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
      sum = t;
    }
    rhs[a] = sum + compensation;
  }

  // In-order Cholesky (lower triangle in place); a column whose pivot vanishes
  // is a combination of earlier ones and is dropped, as R's lm does.
  choleskyInPlace(gram, m, aliased, ALIAS_TOLERANCE);
  for (let j = 0; j < m; j++) if (aliased[j] === 1) identified[active[j] as number] = 0;
  // Forward then backward substitution in place, skipping dropped columns.
  choleskySolve(gram, m, rhs, aliased);
  let intercept = responseMean;
  for (let a = 0; a < m; a++) {
    const k = active[a] as number;
    if (identified[k] === 0) continue;
    const beta = ((rhs[a] as number) * responseScale) / (scale[k] as number);
    if (!Number.isFinite(beta)) {
      identified[k] = 0;
      continue;
    }
    coefficients[k] = beta;
    intercept -= beta * (centers[k] as number);
  }
  ws.intercept = intercept;
}

/**
 * Ridge regression of `y` on the features `X` (feature-major: `X[k][r]` is
 * feature k at row r) with an unpenalised intercept.
 *
 * Method: features and response are centred on their means and divided by
 * their population standard deviations; the normal equations
 * (ZᵀZ + penalty·n·I) γ = Zᵀu are solved by Cholesky; coefficients are mapped
 * back to the original scale, β_k = γ_k · sd(y) / sd(x_k), and
 * intercept = mean(y) − Σ β_k · mean(x_k). With `penalty: 0` this is ordinary
 * least squares (R's `lm(y ~ X)`). A constant feature, or (penalty 0) a feature
 * that is a linear combination of earlier ones, gets coefficient 0 and
 * `identified[k] = 0`. Cost: O(n·p² + p³).
 *
 * @param X - features, each of length `y.length`
 * @param y - response
 * @param options - `penalty` (≥ 0, default {@link EXOGENOUS_DEFAULT_PENALTY})
 * @throws RangeError when a feature's length differs from `y.length` or the penalty is negative or not finite
 *
 * @example
 * ```ts
 * const x = new Float64Array([1, 2, 3, 4]);
 * const fit = fitRidgeRegression([x], new Float64Array([3, 5, 7, 9]), { penalty: 0 });
 * [fit.intercept, fit.coefficients[0]]; // => [1, 2]
 * ```
 * @category Exogenous features
 */
export function fitRidgeRegression(
  X: readonly Float64Array[],
  y: Float64Array,
  options: { penalty?: number } = {},
): RidgeRegressionFit {
  const penalty = options.penalty ?? EXOGENOUS_DEFAULT_PENALTY;
  if (!(penalty >= 0) || !Number.isFinite(penalty)) throw new RangeError("penalty must be a finite number >= 0");
  const n = y.length;
  const ws = createRidgeWorkspace(X.length, n);
  X.forEach((feature, k) => {
    if (feature.length !== n) throw new RangeError(`X[${k}] must have length ${n} (the length of y), got ${feature.length}`);
    ws.design.set(feature, k * n);
  });
  ws.response.set(y);
  ridgeFitInto(ws, n, penalty);
  return {
    intercept: ws.intercept,
    coefficients: ws.coefficients,
    centers: ws.centers,
    responseMean: ws.responseMean,
    identified: ws.identified,
  };
}
