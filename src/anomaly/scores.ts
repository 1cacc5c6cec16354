/**
 * Anomaly scores and thresholds: the residual standard deviation of a series,
 * signed z-scores of its detection window, univariate flags (|z| > q) and the
 * multivariate accumulated score (Σ z² against a chi-square quantile).
 * @module
 */
import { gaussianMultiplier } from "../intervals/index.js";
import { chiSquareQuantile, compensatedSum, sampleStd } from "../stats/index.js";

/**
 * A residual standard deviation at or below this fraction of the series'
 * largest magnitude (of y and ŷ) is floating-point noise and is taken as 0.
 */
export const ANOMALY_SIGMA_TOLERANCE = 1e-12;

/**
 * Residual standard deviation of one series and the signed z-scores of its
 * detection window (its last `detectionSize` points), as online anomaly
 * detection defines them.
 *
 * Method: the residuals are r = y − ŷ at the points that have a forecast
 * (finite `forecast`; `NaN` marks a point without one). σ is the sample
 * standard deviation (n − 1) of the residuals at the forecast points before the
 * detection window, or of all forecast points when fewer than
 * 6 · `detectionSize` lie before it. The z-score of detection point t is
 * z = (y_t − ŷ_t) / σ, written to `zOut[0 … detectionSize − 1]`.
 *
 * Degenerate cases, so that nothing is `NaN` or infinite for finite input:
 * the residuals are computed on y/s and ŷ/s with s the largest |y| or |ŷ| of the
 * forecast points (no overflow for values near 1e308); σ ≤
 * {@link ANOMALY_SIGMA_TOLERANCE} · s (a perfectly predicted series, up to
 * rounding) and fewer than two forecast points both give σ = 0 and every z = 0.
 * The returned σ is clamped to `Number.MAX_VALUE`.
 *
 * Cost: O(n) time; no allocation when `scratch` has at least n values.
 *
 * @param y - Observations of the series (a view is fine); never mutated.
 * @param forecast - One forecast per point of `y`, `NaN` where there is none; the detection window must have forecasts.
 * @param detectionSize - Number of points at the end of the series to score (integer, 1 <= detectionSize <= y.length).
 * @param zOut - Receives the `detectionSize` z-scores, oldest first.
 * @param scratch - Optional work buffer of at least `y.length` values.
 * @returns σ, the residual standard deviation on the scale of `y` (>= 0, finite).
 * @throws RangeError when lengths or `detectionSize` are invalid, or a detection point has no finite forecast.
 *
 * @example
 * ```ts
 * const y = new Float64Array([1, 2, 1, 2, 1, 2, 1, 2, 1, 9]);
 * const forecast = new Float64Array([NaN, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5]);
 * const z = new Float64Array(1);
 * // 8 forecast points lie before the window (at least 6 · 1), so σ uses only those 8
 * seriesAnomalyScores(y, forecast, 1, z);
 * // => 0.5345224838248487
 * z[0]; // (9 − 1.5) / σ
 * // => 14.031215200402283
 * ```
 */
export function seriesAnomalyScores(
  y: ArrayLike<number>,
  forecast: ArrayLike<number>,
  detectionSize: number,
  zOut: Float64Array,
  scratch?: Float64Array,
): number {
  const n = y.length;
  if (forecast.length !== n) throw new RangeError(`seriesAnomalyScores: forecast has ${forecast.length} values, y has ${n}`);
  if (!Number.isInteger(detectionSize) || detectionSize < 1 || detectionSize > n) {
    throw new RangeError(`seriesAnomalyScores: detectionSize must be an integer in 1..${n}, got ${String(detectionSize)}`);
  }
  if (zOut.length < detectionSize) throw new RangeError(`seriesAnomalyScores: zOut needs ${detectionSize} values, has ${zOut.length}`);
  const work = scratch !== undefined && scratch.length >= n ? scratch : new Float64Array(n);
  const detectionStart = n - detectionSize;

  let scale = 0;
  let outside = 0;
  for (let t = 0; t < n; t++) {
    const f = forecast[t] as number;
    if (Number.isNaN(f)) {
      if (t >= detectionStart) throw new RangeError(`seriesAnomalyScores: point ${t} of the detection window has no forecast`);
      continue;
    }
    const v = y[t] as number;
    if (!Number.isFinite(f) || !Number.isFinite(v)) throw new RangeError(`seriesAnomalyScores: y and forecast must be finite at point ${t}`);
    if (t < detectionStart) outside++;
    const magnitude = Math.max(Math.abs(v), Math.abs(f));
    if (magnitude > scale) scale = magnitude;
  }

  const end = sigmaFitEnd(outside, detectionSize, n);
  let count = 0;
  for (let t = 0; t < end; t++) {
    const f = forecast[t] as number;
    if (Number.isNaN(f)) continue;
    work[count++] = (y[t] as number) / scale - f / scale;
  }
  let scaledSigma = count >= 2 && scale > 0 ? sampleStd(work, 0, count) : 0;
  if (!(scaledSigma > ANOMALY_SIGMA_TOLERANCE)) scaledSigma = 0;
  for (let j = 0; j < detectionSize; j++) {
    const t = detectionStart + j;
    zOut[j] = scaledSigma === 0 ? 0 : ((y[t] as number) / scale - (forecast[t] as number) / scale) / scaledSigma;
  }
  return Math.min(scaledSigma * scale, Number.MAX_VALUE);
}

/**
 * Univariate anomaly flags: a point is anomalous when |z| exceeds the two-sided
 * normal quantile of the level, q = Φ⁻¹(0.5 + level/200).
 *
 * This is the same as "y lies outside ŷ ± q·σ" (up to rounding), the interval
 * the result reports; z = 0 (σ = 0) is never flagged.
 *
 * Cost: O(n).
 *
 * @param zScores - Signed z-scores.
 * @param level - Level in percent, finite, 0 <= level < 100.
 * @returns 1 where |z| > q, else 0.
 * @throws RangeError when the level is out of range.
 *
 * @example
 * ```ts
 * Array.from(univariateAnomalyFlags([0.5, -3, 2.6, 2.5], 99)); // q(99) = 2.5758…
 * // => [0, 1, 1, 0]
 * ```
 */
export function univariateAnomalyFlags(zScores: ArrayLike<number>, level: number): Uint8Array {
  const q = gaussianMultiplier(level);
  const flags = new Uint8Array(zScores.length);
  for (let r = 0; r < zScores.length; r++) flags[r] = Math.abs(zScores[r] as number) > q ? 1 : 0;
  return flags;
}

/**
 * Multivariate accumulated anomaly score: at each time step, the sum over
 * series of the squared z-scores, A_t = Σᵢ zᵢ,ₜ².
 *
 * Method: per step the squares are sorted ascending and added with a
 * compensated sum, so A does not depend on the order of the series (a
 * permutation of the series gives the same bits).
 *
 * Cost: O(steps · n log n) for n series; one work buffer of n values.
 *
 * @param zScores - Series-major z-scores: `zScores[i · steps + t]` is series i at step t.
 * @param seriesCount - Number of series n (>= 1).
 * @param steps - Number of time steps per series (>= 0).
 * @returns A, one value per step.
 * @throws RangeError when `zScores.length !== seriesCount · steps`.
 *
 * @example
 * ```ts
 * Array.from(multivariateAccumulatedScores([1, 2, 3, 4], 2, 2)); // [1² + 3², 2² + 4²]
 * // => [10, 20]
 * ```
 */
export function multivariateAccumulatedScores(zScores: ArrayLike<number>, seriesCount: number, steps: number): Float64Array {
  if (!Number.isInteger(seriesCount) || seriesCount < 1 || !Number.isInteger(steps) || steps < 0) {
    throw new RangeError(`multivariateAccumulatedScores: seriesCount must be an integer >= 1 and steps >= 0`);
  }
  if (zScores.length !== seriesCount * steps) {
    throw new RangeError(`multivariateAccumulatedScores: expected ${seriesCount} × ${steps} z-scores, got ${zScores.length}`);
  }
  const squares = new Float64Array(seriesCount);
  const result = new Float64Array(steps);
  for (let t = 0; t < steps; t++) {
    for (let i = 0; i < seriesCount; i++) {
      const z = zScores[i * steps + t] as number;
      squares[i] = z * z;
    }
    squares.sort();
    result[t] = compensatedSum(squares);
  }
  return result;
}

/**
 * The multivariate threshold: the chi-square quantile at level/100 with as many
 * degrees of freedom as series. A step is anomalous when its accumulated score
 * exceeds it.
 *
 * Reasoning: for independent standard normal z-scores, Σ z² over n series is
 * χ²(n)-distributed, so the quantile bounds it with probability level/100.
 *
 * Method: closed forms where they exist, for full precision: one series gives
 * q² with q the two-sided normal quantile ({@link gaussianMultiplier}), two
 * series give −2·ln(1 − level/100); more series use `chiSquareQuantile`.
 *
 * Cost: O(1) for one or two series, else O(√n) (see `chiSquareQuantile`).
 *
 * @param level - Level in percent, finite, 0 <= level < 100.
 * @param seriesCount - Number of series (integer >= 1), the degrees of freedom.
 * @returns The threshold (0 for level 0).
 * @throws RangeError when the level or series count is out of range.
 *
 * @example
 * ```ts
 * multivariateThreshold(99, 2); // R: qchisq(0.99, 2)
 * // => 9.21034037197618
 * ```
 */
export function multivariateThreshold(level: number, seriesCount: number): number {
  const q = gaussianMultiplier(level); // also validates the level
  if (!Number.isInteger(seriesCount) || seriesCount < 1) {
    throw new RangeError(`multivariateThreshold: seriesCount must be an integer >= 1, got ${String(seriesCount)}`);
  }
  if (seriesCount === 1) return q * q;
  if (seriesCount === 2) return -2 * Math.log1p(-level / 100);
  return chiSquareQuantile(level / 100, seriesCount);
}

/**
 * Where the points σ is computed from end (CONTRACT §4): σ uses the forecast
 * points before the detection window when at least 6 · detection_size of them
 * exist (`n − detectionSize`), else every forecast point (`n`).
 *
 * @param outside - Forecast points before the detection window.
 * @param detectionSize - Points of the detection window.
 * @param n - Points of the series.
 * @returns The end (exclusive) of the points σ uses.
 *
 * @example
 * ```ts
 * sigmaFitEnd(30, 5, 100); // => 95
 * sigmaFitEnd(29, 5, 100); // => 100
 * ```
 */
export function sigmaFitEnd(outside: number, detectionSize: number, n: number): number {
  return outside >= 6 * detectionSize ? n - detectionSize : n;
}
