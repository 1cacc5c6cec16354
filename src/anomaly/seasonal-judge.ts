/**
 * The seasonal judge of online anomaly detection: a second opinion on each
 * detection point, from the point's difference with the same point one
 * season earlier, and the rule that combines it with the network's calibrated
 * z (a point is an anomaly when both judges find it outside their interval,
 * on the same side).
 * @module
 */

/**
 * Seasonal differences the seasonal judge compares a point's with: the 168
 * before it (a week of hourly data, as the monitoring baseline uses).
 * @category Anomaly detection
 */
export const SEASONAL_JUDGE_WINDOW = 168;

/**
 * The seasonal judge of point t of one series: r(t) = y(t) − y(t − m) against
 * the mean μ and standard deviation σ of the {@link SEASONAL_JUDGE_WINDOW}
 * seasonal differences before it, z_s = (r(t) − μ) / σ, and its interval at
 * multiplier q: y(t − m) + μ ± q·σ.
 *
 * The mean takes a trend out (a trend makes every seasonal difference about
 * m × slope); σ is the plain standard deviation, not a robust one, on
 * purpose: an anomaly one season earlier widens it, so the echo of that
 * anomaly in r(t) is not judged an anomaly (on the monitoring benchmark a
 * robust scale ranked anomalies far worse: docs/monitoring-experiments.md).
 *
 * Writes [z_s, lo, hi] to `out` and returns true when the judge can speak:
 * t ≥ m + window and σ > 0; otherwise returns false and leaves `out`.
 *
 * Cost: O(window), no allocation.
 *
 * @param y - One series' values (finite).
 * @param t - The point judged.
 * @param m - Season length (≥ 1; 1 compares with the point before).
 * @param q - The level's multiplier Φ⁻¹(0.5 + level/200).
 * @param out - Receives z_s, lo, hi.
 * @param window - How many differences before t (default {@link SEASONAL_JUDGE_WINDOW}).
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 200 }, (_, t) => 10 + (t % 2)); // season 2, differences all 0 ...
 * y[199] = 20; // ... but the last
 * const out = new Float64Array(3);
 * seasonalJudge(y, 199, 2, 2.576, out, 20); // σ = 0: the judge cannot speak
 * // => false
 * y[150] = 12; // one earlier difference of 2 (and −2 two points later): σ = 0.37
 * seasonalJudge(y, 199, 2, 2.576, out, 60);
 * // => true
 * out[0] > 20; // the jump of 9 is far outside what the last 60 differences show
 * // => true
 * ```
 * @category Anomaly detection
 */
export function seasonalJudge(y: Float64Array, t: number, m: number, q: number, out: Float64Array, window: number = SEASONAL_JUDGE_WINDOW): boolean {
  if (t - window < m || t >= y.length) return false;
  let mean = 0;
  for (let k = t - window; k < t; k++) mean += (y[k] as number) - (y[k - m] as number);
  mean /= window;
  let squares = 0;
  for (let k = t - window; k < t; k++) {
    const d = (y[k] as number) - (y[k - m] as number) - mean;
    squares += d * d;
  }
  const sd = Math.sqrt(squares / (window - 1));
  if (!(sd > 0) || !Number.isFinite(sd)) return false;
  const centre = (y[t - m] as number) + mean;
  out[0] = ((y[t] as number) - centre) / sd;
  out[1] = centre - q * sd;
  out[2] = centre + q * sd;
  return true;
}

/**
 * Both judges must agree: the combined z of a point whose network z is
 * `zNetwork` (interval [loNetwork, hiNetwork]) and whose seasonal z is
 * `zSeasonal` (interval [loSeasonal, hiSeasonal]).
 *
 * z = sign · min(|z_network|, |z_seasonal|) when both have the same sign,
 * else 0; the interval is the hull [min(lo), max(hi)]. Since each judge's z
 * exceeds q exactly outside its own interval, |z| > q exactly when y lies
 * outside the hull (above both intervals or below both): the flag and the
 * interval keep the contract's equivalence, and the mean stays the
 * network's. A point is flagged only when both judges flag it on the same
 * side, so the combined rule flags fewer normal points than either alone.
 *
 * Writes [z, lo, hi] to `out`.
 *
 * @example
 * ```ts
 * const out = new Float64Array(3);
 * combineJudges(4, 8, 12, 3, 7, 13, out); Array.from(out); // both above: the smaller z, the hull
 * // => [3, 7, 13]
 * combineJudges(4, 8, 12, -1, 15, 25, out); out[0]; // opposite sides: no evidence
 * // => 0
 * ```
 * @category Anomaly detection
 */
export function combineJudges(zNetwork: number, loNetwork: number, hiNetwork: number, zSeasonal: number, loSeasonal: number, hiSeasonal: number, out: Float64Array): void {
  const sameSide = (zNetwork > 0 && zSeasonal > 0) || (zNetwork < 0 && zSeasonal < 0);
  out[0] = sameSide ? Math.sign(zNetwork) * Math.min(Math.abs(zNetwork), Math.abs(zSeasonal)) : 0;
  out[1] = Math.min(loNetwork, loSeasonal);
  out[2] = Math.max(hiNetwork, hiSeasonal);
}
