/**
 * Isolated spikes in a history, found and replaced before the history is used
 * as a forecasting context, so that a one-off spike is not echoed one season
 * later in the forecast.
 * @module
 */
import { medianInPlace } from "../stats/quantile.js";
import type { SeriesData } from "../types.js";

/**
 * A point counts as a spike when its deviation from the line through its two
 * neighbours is more than this many robust standard deviations of those
 * deviations over the series (and, with a season, its seasonal difference
 * likewise).
 * @category Series
 */
export const SPIKE_THRESHOLD = 6;

/**
 * At most this share of a series' points may be spikes; a series with more
 * candidates is heavy-tailed or intermittent (its large values are its
 * signal) and is left unchanged.
 * @category Series
 */
export const SPIKE_MAX_SHARE = 0.02;

/**
 * When a series has more candidate spikes than {@link SPIKE_MAX_SHARE} allows,
 * only those more than this many times as strong as the strongest candidate
 * beyond the allowance are replaced.
 * @category Series
 */
export const SPIKE_GAP = 3;

/**
 * Histories with isolated spikes replaced: what {@link cleanSpikes} returns.
 * @category Series
 */
export interface CleanedSpikes {
  /** The values with every spike replaced (the input itself when there is none). */
  readonly y: Float64Array;
  /** Global positions (into y) of the replaced points, ascending. */
  readonly positions: Int32Array;
}

/** Fewest deviations the seasonal scale is estimated from (else the plain curvature is used). */
const MIN_SCALE_POINTS = 16;

/** Share of points at the series' minimum that makes it intermittent (left unchanged). */
const INTERMITTENT_SHARE = 0.25;

/**
 * Finds isolated spikes in every series of a packed history and replaces them
 * for use as forecasting context.
 *
 * Every interior point t of a series (not its first or last point, whose
 * spike cannot be told from the start of a level shift) is compared with a
 * partner p at the same place one season earlier (one season later near the
 * start; both when both exist; none without a season or when the series has
 * fewer than 16 seasonal comparisons). Its jumps from its two neighbours,
 * less the partner's jumps, are L = (y(t) − y(t−1)) − (y(p) − y(p−1)) and
 * R = (y(t) − y(t+1)) − (y(p) − y(p+1)) (without a partner, the plain jumps).
 * t is a spike when, for every partner,
 * - |L| and |R| both exceed {@link SPIKE_THRESHOLD} × the series' robust
 *   scale of the deviations (L + R)/2 (of the point against its partner one
 *   season earlier, or of the plain curvature y(t) − (y(t−1) + y(t+1))/2),
 *   with one sign: the point stands away from both neighbours (a level shift
 *   moves away from one only), and a peak that recurs every season does not;
 * - t bends more than its partner, and more than either neighbour does (the
 *   centre of the bump, not its echo one season away).
 *
 * The robust scale is 1.4826 × the median absolute deviation (when that is 0,
 * 1.2533 × the mean absolute deviation; when both are 0 nothing is a spike).
 * At most k = max(1, ⌊{@link SPIKE_MAX_SHARE} × n⌋) points of a series are
 * spikes; with more candidates (a heavy-tailed series), only those more than
 * {@link SPIKE_GAP} times as strong (min(|L|, |R|)) as the (k + 1)-th
 * strongest are. A series with a quarter or more of its points at its
 * minimum (intermittent demand, a censored sensor) is left unchanged: its
 * bursts are its signal. Series shorter than 5 points are left unchanged.
 *
 * A spike is replaced by the line through its neighbours plus the partner's
 * curvature: y(t−1)/2 + y(t+1)/2 + y(p) − (y(p−1) + y(p+1))/2 (the line alone
 * without a partner), computed from the original values. Only the replaced
 * points change; the input is never modified.
 *
 * Cost: O(n) per series (median by selection), one copy of y when something
 * is replaced.
 *
 * @param y - the packed values (finite).
 * @param offsets - series boundaries (`sizes.length + 1` entries).
 * @param seasonLength - the season m (1 = none).
 *
 * @example
 * ```ts
 * const y = Float64Array.from([3, 5, 4, 6, 5, 7, 60, 8, 7, 9, 8, 10]);
 * const cleaned = cleanSpikes(y, Int32Array.of(0, 12), 1);
 * Array.from(cleaned.positions); // => [6]
 * cleaned.y[6]; // => 7.5
 * ```
 * @category Series
 */
export function cleanSpikes(y: Float64Array, offsets: Int32Array, seasonLength: number): CleanedSpikes {
  if (!Number.isInteger(seasonLength) || seasonLength < 1) throw new RangeError(`cleanSpikes: seasonLength must be an integer >= 1, got ${String(seasonLength)}`);
  let longest = 0;
  for (let i = 0; i + 1 < offsets.length; i++) longest = Math.max(longest, (offsets[i + 1] as number) - (offsets[i] as number));
  const scratch = new Float64Array(longest);
  const positions: number[] = [];
  let out: Float64Array | null = null;
  for (let i = 0; i + 1 < offsets.length; i++) {
    const start = offsets[i] as number;
    const n = (offsets[i + 1] as number) - start;
    if (n < 5) continue;
    const v = y.subarray(start, start + n);
    const from = positions.length;
    seriesSpikes(v, seasonLength, scratch, positions);
    for (let k = from; k < positions.length; k++) {
      const t = positions[k] as number;
      out ??= Float64Array.from(y);
      out[start + t] = replacement(v, t, seasonLength); // from the original values
      positions[k] = start + t;
    }
  }
  return out === null ? { y, positions: new Int32Array(0) } : { y: out, positions: Int32Array.from(positions) };
}

/** Curvature of v at t (1 ≤ t ≤ n − 2). */
function curvature(v: Float64Array, t: number): number {
  return (v[t] as number) - 0.5 * ((v[t - 1] as number) + (v[t + 1] as number));
}

/** The value a spike at t is replaced by (see cleanSpikes). */
function replacement(v: Float64Array, t: number, m: number): number {
  return (v[t] as number) - deviation(v, t, partner(t, m, v.length));
}

/** Robust scale of a[0..n): 1.4826 × MAD, else 1.2533 × mean absolute deviation from the median, else 0. Reorders a. */
function robustScale(a: Float64Array, n: number): number {
  if (n === 0) return 0;
  const values = a.subarray(0, n);
  const median = medianInPlace(values);
  let meanAbs = 0;
  for (let k = 0; k < n; k++) {
    const d = Math.abs((values[k] as number) - median);
    values[k] = d;
    meanAbs += d;
  }
  const mad = medianInPlace(values);
  if (mad > 0) return 1.4826 * mad;
  return 1.2533 * (meanAbs / n);
}

/**
 * Deviation of v(t) from its replacement using the season partner p (t − m or
 * t + m; the line through the neighbours when p is none): d(t) − d(p).
 */
function deviation(v: Float64Array, t: number, p: number): number {
  return p < 0 ? curvature(v, t) : curvature(v, t) - curvature(v, p);
}

/** Appends to `found` the spikes of one series (positions in v, ascending; see cleanSpikes); `a` is scratch. */
function seriesSpikes(v: Float64Array, m: number, a: Float64Array, found: number[]): void {
  const n = v.length;
  // a series with a quarter of its points at its minimum is intermittent (or censored): its bursts are its signal
  let minimum = Infinity;
  for (let t = 0; t < n; t++) if ((v[t] as number) < minimum) minimum = v[t] as number;
  let atMinimum = 0;
  for (let t = 0; t < n; t++) if (v[t] === minimum) atMinimum++;
  if (atMinimum >= INTERMITTENT_SHARE * n) return;
  // the seasonal statistic needs enough seasonal deviations to estimate its scale
  const seasonal = m > 1 && n - 2 - m >= MIN_SCALE_POINTS;
  // scale of the deviations: seasonal (against the same position one season earlier) or plain
  let count = 0;
  if (seasonal) for (let t = m + 1; t < n - 1; t++) a[count++] = deviation(v, t, t - m);
  else for (let t = 1; t < n - 1; t++) a[count++] = curvature(v, t);
  const scale = robustScale(a, count);
  if (!(scale > 0) || !Number.isFinite(scale)) return;
  const limit = SPIKE_THRESHOLD * scale;
  const allowed = Math.max(1, Math.floor(SPIKE_MAX_SHARE * n));
  const candidates: { t: number; strength: number }[] = [];
  for (let t = 1; t < n - 1; t++) {
    const strength = spikeStrength(v, t, seasonal ? m : 0, limit);
    if (strength === 0) continue;
    // the centre of the bump: its neighbours deviate less
    if (t >= 2 && Math.abs(deviation(v, t - 1, partner(t - 1, seasonal ? m : 0, n))) > strength) continue;
    if (t <= n - 3 && Math.abs(deviation(v, t + 1, partner(t + 1, seasonal ? m : 0, n))) > strength) continue;
    candidates.push({ t, strength });
  }
  if (candidates.length > allowed) {
    // too many: only those standing clearly above the rest (SPIKE_GAP × the strongest one left out) are spikes
    const byStrength = candidates.map((c) => c.strength).sort((x, y) => y - x);
    const bar = SPIKE_GAP * (byStrength[allowed] as number);
    for (const c of candidates) if (c.strength > bar) found.push(c.t);
    return;
  }
  for (const c of candidates) found.push(c.t);
}

/** The season partner of t used for its replacement: t − m when it is interior, else t + m, else none (−1). */
function partner(t: number, m: number, n: number): number {
  if (m <= 1) return -1;
  if (t - m >= 1) return t - m;
  if (t + m <= n - 2) return t + m;
  return -1;
}

/**
 * How far t is a spike: the smallest strength over its available season
 * partners (see sidedStrength; all must count, with one sign), or 0 when it is
 * not one.
 */
function spikeStrength(v: Float64Array, t: number, m: number, limit: number): number {
  const n = v.length;
  if (m <= 1 || (t - m < 1 && t + m > n - 2)) return Math.abs(sidedStrength(v, t, -1, limit));
  const back = t - m >= 1 ? sidedStrength(v, t, t - m, limit) : NaN;
  if (back === 0) return 0;
  const forward = t + m <= n - 2 ? sidedStrength(v, t, t + m, limit) : NaN;
  if (forward === 0) return 0;
  if (Number.isNaN(back)) return Math.abs(forward);
  if (Number.isNaN(forward)) return Math.abs(back);
  return Math.sign(back) === Math.sign(forward) ? Math.min(Math.abs(back), Math.abs(forward)) : 0;
}

/**
 * The jumps of v(t) from its left and right neighbours, less those of the
 * partner p at the same place in another season (none for p = −1): a spike
 * when both exceed the limit with one sign and, with a partner, t bends more
 * than p. Returns the smaller jump, signed, or 0.
 */
function sidedStrength(v: Float64Array, t: number, p: number, limit: number): number {
  let left = (v[t] as number) - (v[t - 1] as number);
  let right = (v[t] as number) - (v[t + 1] as number);
  if (p >= 0) {
    left -= (v[p] as number) - (v[p - 1] as number);
    right -= (v[p] as number) - (v[p + 1] as number);
    if (!(Math.abs(curvature(v, t)) > Math.abs(curvature(v, p)))) return 0;
  }
  if (!(Math.abs(left) > limit) || !(Math.abs(right) > limit) || Math.sign(left) !== Math.sign(right)) return 0;
  return Math.abs(left) < Math.abs(right) ? left : right;
}

/**
 * The series with isolated spikes replaced in `y` ({@link cleanSpikes}), or
 * the same object when there is none: what the forecast and historic
 * pipelines hand to the network.
 *
 * @example
 * ```ts
 * const series = { y: Float64Array.from([3, 5, 4, 6, 5, 7, 60, 8, 7, 9, 8, 10]), sizes: Int32Array.of(12), offsets: Int32Array.of(0, 12), X: [] };
 * withoutSpikes(series, 1).y[6]; // => 7.5
 * const calm = { y: Float64Array.of(1, 2, 3, 4, 5), sizes: Int32Array.of(5), offsets: Int32Array.of(0, 5), X: [] };
 * withoutSpikes(calm, 1) === calm; // => true
 * ```
 * @category Series
 */
export function withoutSpikes<S extends SeriesData>(series: S, seasonLength: number): S {
  const cleaned = cleanSpikes(series.y, series.offsets, seasonLength);
  return cleaned.positions.length === 0 ? series : { ...series, y: cleaned.y };
}
