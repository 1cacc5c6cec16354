/**
 * Accumulated evidence of univariate online anomaly detection: a two-sided
 * CUSUM of the calibrated z-scores, reset after every alarm, reported on the
 * same z² scale as a single point so that one threshold q² serves both.
 * @module
 */
import { normalQuantile } from "../stats/index.js";
import { gaussianMultiplier } from "../intervals/index.js";

/**
 * Allowance k of the accumulated anomaly score's CUSUM, in calibrated z
 * units: each point adds z − k to the upward sum (and −z − k to the downward
 * one), so normal points (|z| mostly below k) drain the sums back to 0 and a
 * run of points shifted by more than k builds them up. k = 1 is tuned to
 * shifts of about 2 (a CUSUM with allowance k is quickest for shifts of 2k).
 * Measured on the monitoring benchmark in docs/monitoring-experiments.md.
 * @category Anomaly detection
 */
export const ANOMALY_CUSUM_ALLOWANCE = 1;

/** Each z is clipped to ±this before it enters the sums, so one spike cannot hold an alarm up for many points. */
const CUSUM_CLIP = 4;

/** z clipped to ±{@link CUSUM_CLIP}. */
function clipped(z: number): number {
  return z > CUSUM_CLIP ? CUSUM_CLIP : z < -CUSUM_CLIP ? -CUSUM_CLIP : z;
}

/** Largest lag-1 correlation the accumulated score corrects for (see {@link scoreCorrelation}). */
const CUSUM_MAX_RHO = 0.5;

/** Fewest pairs of consecutive scores {@link scoreCorrelation} estimates from (fewer: 0). */
const CORRELATION_MIN_PAIRS = 20;

/**
 * Lag-1 correlation of a run of calibrated z-scores, for the accumulated
 * score: ρ = Σ c_t c_{t−1} / Σ c_t² over consecutive pairs of the first
 * `end` values (c = z clipped to ±4, NaN values break the pairs), clamped
 * to [0, 0.5]; 0 with fewer than 20 pairs. Scores of one window of h > 1
 * forecasts share their origin and are correlated (so are one-step scores
 * of a series whose daily pattern the model misses), and a sum of
 * correlated scores drifts further than the CUSUM's rates assume; the
 * accumulated score divides each term by √((1 + ρ)/(1 − ρ)), the ratio of
 * the long-run to the one-point standard deviation of an AR(1) sequence.
 *
 * Cost: O(end).
 *
 * @param z - Calibrated z-scores in time order (NaN where there is none).
 * @param end - Only z[0, end) are used (the points before the detection window).
 * @returns ρ in [0, 0.5].
 *
 * @example
 * ```ts
 * const alternating = Array.from({ length: 40 }, (_, t) => (t % 2 === 0 ? 1 : -1));
 * scoreCorrelation(alternating, 40); // negative correlation counts as none
 * // => 0
 * const runs = Array.from({ length: 40 }, (_, t) => (Math.floor(t / 3) % 2 === 0 ? 1 : -1)); // runs of 3
 * scoreCorrelation(runs, 40).toFixed(2);
 * // => '0.33'
 * ```
 * @category Anomaly detection
 */
export function scoreCorrelation(z: ArrayLike<number>, end: number): number {
  let cross = 0;
  let squares = 0;
  let pairs = 0;
  let previous = Number.NaN;
  for (let t = 0; t < Math.min(end, z.length); t++) {
    const v = z[t] as number;
    if (Number.isNaN(v)) {
      previous = Number.NaN;
      continue;
    }
    const c = clipped(v);
    if (!Number.isNaN(previous)) {
      cross += c * previous;
      squares += c * c;
      pairs++;
    }
    previous = c;
  }
  if (pairs < CORRELATION_MIN_PAIRS || !(squares > 0)) return 0;
  return Math.min(CUSUM_MAX_RHO, Math.max(0, cross / squares));
}

/** Siegmund's correction of a CUSUM threshold for the overshoot of a Gaussian step: b' = b + 1.166. */
const SIEGMUND_OVERSHOOT = 1.166;

/**
 * In-control average run length of a one-sided CUSUM S_t = max(0, S_{t−1} +
 * z_t − k) of independent standard normal z until S exceeds b, by
 * Siegmund's approximation: ARL(b) = (e^{2kb'} − 2kb' − 1) / (2k²) with
 * b' = b + 1.166 (Siegmund 1985, Sequential Analysis; Montgomery, Introduction to
 * Statistical Quality Control, the CUSUM chapter).
 *
 * Cost: O(1).
 *
 * @param b - Threshold (>= 0).
 * @param k - Allowance (> 0).
 * @returns The run length in points (>= 1 for b >= 0).
 *
 * @example
 * ```ts
 * cusumRunLength(4, 0.5).toFixed(0); // the textbook h = 4, k = 0.5 scheme: one-sided (Montgomery: about 336; two-sided 168)
 * // => '338'
 * ```
 * @category Anomaly detection
 */
export function cusumRunLength(b: number, k: number): number {
  const x = 2 * k * (b + SIEGMUND_OVERSHOOT);
  return (Math.expm1(x) - x) / (2 * k * k);
}

/**
 * The z a single point would need to be as rare as a two-sided CUSUM value
 * s: with p(s) = 2 / ARL(s) ({@link cusumRunLength}, the upward and downward
 * sums each raising alarms at that rate), z = Φ⁻¹(1 − p/2); 0 when p >= 1.
 * So z > q = Φ⁻¹(0.5 + L/200) exactly when s exceeds the threshold whose
 * in-control alarm rate is (100 − L) % per point.
 *
 * Cost: O(1).
 *
 * @param s - max(S⁺, S⁻) (>= 0).
 * @param k - Allowance (> 0).
 * @returns z >= 0, increasing in s.
 *
 * @example
 * ```ts
 * // the threshold of level 99 with k = 1: ARL = 200 for each sum, one alarm in 100 points
 * cusumEquivalentZ(1.86, 1) > gaussianMultiplier(99) && cusumEquivalentZ(1.82, 1) < gaussianMultiplier(99);
 * // => true
 * ```
 * @category Anomaly detection
 */
export function cusumEquivalentZ(s: number, k: number): number {
  const p = 2 / cusumRunLength(s, k);
  return p >= 1 ? 0 : normalQuantile(1 - p / 2);
}

/**
 * The accumulated anomaly score of one series' points, in time order, from
 * their calibrated z-scores (univariate online anomaly detection).
 *
 * Formula: with c_t = z_t clipped to ±4 and k = {@link ANOMALY_CUSUM_ALLOWANCE},
 * S⁺_t = max(0, S⁺_{t−1} + c_t − k) and S⁻_t = max(0, S⁻_{t−1} − c_t − k)
 * (a two-sided CUSUM, both 0 at the start); A_t = max(z_t², z_c(S_t)²) with
 * S_t = max(S⁺_t, S⁻_t) and z_c = {@link cusumEquivalentZ}. After an alarm
 * (A_t > q², q = Φ⁻¹(0.5 + level/200)) both sums restart from 0, so the next
 * alarm needs new evidence; when the evidence fades (points back within ±k)
 * the sums drain to 0 by themselves. So A > q² says "this point, or the run
 * of points since the last alarm, is beyond level L": a single point as
 * rare as the level, or a shift kept up over a few points (a shift of 2 is
 * caught in about 2 points, of 1.5 in about 4) at an in-control alarm
 * rate of about (100 − L) % per point for independent z (Siegmund).
 *
 * NaN z-scores (points without a score) are skipped: they leave the sums
 * as they are and get NaN.
 *
 * Cost: O(n), no allocation.
 *
 * @param z - Calibrated z-scores in time order.
 * @param level - The request's level (percent, 0 <= level < 100): where the sums restart.
 * @param out - Receives A, one value per z (at least z.length values; may be `z` itself).
 * @param rho - Lag-1 correlation of the scores ({@link scoreCorrelation}, 0 to 0.5; default 0): each
 *   clipped z enters the sums multiplied by √((1 − ρ)/(1 + ρ)).
 * @throws RangeError when `out` is shorter than `z` or the level is out of range.
 *
 * @example
 * ```ts
 * const out = new Float64Array(6);
 * accumulatedAnomalyScores([0.2, -0.4, 2, 2, 2, 0], 99, out);
 * Array.from(out, (a) => a > gaussianMultiplier(99) ** 2); // two points of 2 raise an alarm; the sums restart
 * // => [false, false, false, true, false, false]
 * ```
 * @category Anomaly detection
 */
export function accumulatedAnomalyScores(z: ArrayLike<number>, level: number, out: Float64Array, rho = 0): void {
  const q = gaussianMultiplier(level);
  const n = z.length;
  if (out.length < n) throw new RangeError(`accumulatedAnomalyScores: out needs ${n} values, has ${out.length}`);
  if (!(rho >= 0 && rho <= CUSUM_MAX_RHO)) throw new RangeError(`accumulatedAnomalyScores: rho must be in [0, ${CUSUM_MAX_RHO}], got ${String(rho)}`);
  const weight = Math.sqrt((1 - rho) / (1 + rho));
  const k = ANOMALY_CUSUM_ALLOWANCE;
  const atZero = cusumEquivalentZ(0, k); // most points of normal data leave both sums at 0
  const q2 = q * q;
  let up = 0;
  let down = 0;
  for (let t = 0; t < n; t++) {
    const v = z[t] as number;
    if (Number.isNaN(v)) {
      out[t] = Number.NaN;
      continue;
    }
    const c = weight * clipped(v);
    up = Math.max(0, up + c - k);
    down = Math.max(0, down - c - k);
    const s = Math.max(up, down);
    const zc = s > 0 ? cusumEquivalentZ(s, k) : atZero;
    const a = Math.max(v * v, zc * zc);
    out[t] = a;
    if (a > q2) {
      up = 0;
      down = 0;
    }
  }
}
