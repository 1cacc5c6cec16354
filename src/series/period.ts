/**
 * Periods found in the data: which seasons a series actually has, judged by
 * its autocorrelation after spikes are clipped and the level is removed.
 * @module
 */
import { medianInPlace } from "../stats/quantile.js";

/**
 * Default lowest strength at which a period counts (see {@link periodStrength}).
 * @category Series
 */
export const PERIOD_MIN_STRENGTH = 0.3;

/**
 * Default fewest full cycles of a period the history must hold for it to be tested.
 * @category Series
 */
export const PERIOD_MIN_CYCLES = 3;

/** Clip limit of the winsorizing step, in robust standard deviations (1.4826 · MAD) from the median. */
const CLIP_SDS = 4;

/**
 * A period found in a series, with its strength.
 * @category Series
 */
export interface DetectedPeriod {
  /** The period, in steps (an integer >= 2). */
  readonly period: number;
  /** Its strength in [-1, 1]: the autocorrelation at the period after clipping and detrending ({@link periodStrength}). */
  readonly strength: number;
}

/**
 * Options of {@link detectPeriods}.
 * @category Series
 */
export interface PeriodOptions {
  /** Lowest strength that counts; the effective bar is max(minStrength, 3/√(n − p)) (three standard errors of white noise's autocorrelation). Default {@link PERIOD_MIN_STRENGTH}. */
  readonly minStrength?: number;
  /** Fewest full cycles the history must hold. Default {@link PERIOD_MIN_CYCLES}. */
  readonly minCycles?: number;
}

/**
 * The strength of period p in a series: its lag-p autocorrelation after
 * spikes are clipped and the level is removed, so a few outliers, a level
 * shift or a trend neither make nor hide a season.
 *
 * Method: (1) winsorize: values further than 4 robust standard deviations
 * (1.4826 · MAD) from the median are clipped there (skipped when the MAD is
 * 0, e.g. a sparse counter); (2) detrend: subtract the centred moving average
 * over one period (for even p the 2×p average, weights 1/(2p) at both ends),
 * which removes a level shift or trend but leaves a season of period p
 * intact (it averages to a constant over one cycle); (3) the
 * autocorrelation r(p) = Σ d(t)·d(t + p) / Σ d(t)² over the detrended points
 * d. A noise-free periodic series scores 1, white noise about 0 (standard
 * error 1/√(n − p)).
 *
 * Degenerate input: fewer than 2p + 2 points, a non-integer or p < 2, or a
 * series with nothing left after detrending (constant, linear) gives 0.
 * Non-finite values give 0 (validate at the edge).
 *
 * Cost: O(n) time and memory.
 *
 * @param y - The series, in time order. Never mutated.
 * @param period - The period to test, in steps.
 * @returns r(p), in [-1, 1].
 *
 * @example
 * ```ts
 * const y = Array.from({ length: 96 }, (_, t) => [3, 1, 4, 1][t % 4]! + t / 10);
 * periodStrength(y, 4); // a noise-free season of 4 on a trend
 * // => 1
 * periodStrength(y, 3) < 0.3;
 * // => true
 * ```
 * @category Series
 */
export function periodStrength(y: ArrayLike<number>, period: number): number {
  const n = y.length;
  if (!Number.isInteger(period) || period < 2 || n < 2 * period + 2) return 0;
  const clipped = winsorized(y);
  if (clipped === null) return 0;
  return detrendedAutocorrelation(clipped, period);
}

/**
 * The periods among `candidates` that a series has, strongest first.
 *
 * A candidate p counts when the history holds at least `minCycles` cycles
 * of it (n >= minCycles · p) and its {@link periodStrength} reaches
 * max(`minStrength`, 3/√(n − p)). A candidate that is a multiple of a
 * stronger period found is kept only when it is stronger still (a week of
 * hours is kept beside the day when weekdays and weekends differ, i.e. when
 * r(168) exceeds r(24)).
 *
 * Cost: O(n) per candidate.
 *
 * @param y - The series, in time order. Never mutated.
 * @param candidates - Periods to test, in steps (integers >= 2; others are skipped).
 * @param options - See {@link PeriodOptions}.
 * @returns The periods found, strongest first (empty for a series without a season).
 *
 * @example
 * ```ts
 * const daily = Array.from({ length: 24 * 21 }, (_, t) => 10 + 5 * Math.sin((2 * Math.PI * t) / 24) + ((t * 7919) % 11) / 11);
 * detectPeriods(daily, [24, 168]).map((p) => p.period);
 * // => [24]
 * detectPeriods(daily.map((_, t) => ((t * 7919) % 11) / 11), [24, 168]).length; // no season
 * // => 0
 * ```
 * @category Series
 */
export function detectPeriods(y: ArrayLike<number>, candidates: readonly number[], options: PeriodOptions = {}): DetectedPeriod[] {
  return foundPeriods(y, candidates, options, "detectPeriods", Infinity).sort((a, b) => b.strength - a.strength || a.period - b.period);
}

/**
 * The periods kept, in the order tested (ascending), stopping once `limit`
 * are kept: each candidate whose strength reaches its bar, unless a divisor
 * kept before it is at least as strong.
 */
function foundPeriods(y: ArrayLike<number>, candidates: readonly number[], options: PeriodOptions, caller: string, limit: number): DetectedPeriod[] {
  const minStrength = options.minStrength ?? PERIOD_MIN_STRENGTH;
  const minCycles = options.minCycles ?? PERIOD_MIN_CYCLES;
  const n = y.length;
  const tested = testedPeriods(n, candidates, minCycles, caller);
  if (tested.length === 0) return [];
  const clipped = winsorized(y);
  if (clipped === null) return [];
  const found: DetectedPeriod[] = [];
  for (const period of tested) {
    const strength = detrendedAutocorrelation(clipped, period);
    if (strength < periodBar(minStrength, n, period)) continue;
    const divisor = found.find((f) => period % f.period === 0);
    if (divisor !== undefined && strength <= divisor.strength) continue;
    found.push({ period, strength });
    if (found.length >= limit) break;
  }
  return found;
}

/**
 * Whether {@link detectPeriods} finds any period among `candidates`
 * (`detectPeriods(y, candidates, options).length > 0`), stopping at the first
 * candidate that counts: the first one whose strength reaches the bar is
 * always kept (no stronger divisor is found before it), so the later ones
 * cannot change the answer. The same strengths, from the same clipped series.
 *
 * Cost: O(n) per candidate tested, up to the first one found.
 *
 * @param y - The series, in time order. Never mutated.
 * @param candidates - Periods to test, in steps.
 * @param options - See {@link PeriodOptions}.
 *
 * @example
 * ```ts
 * const daily = Array.from({ length: 24 * 21 }, (_, t) => 10 + 5 * Math.sin((2 * Math.PI * t) / 24) + ((t * 7919) % 11) / 11);
 * hasPeriod(daily, [24, 168]); // the day counts: the week is not tested
 * // => true
 * hasPeriod(daily.map((_, t) => ((t * 7919) % 11) / 11), [24, 168]);
 * // => false
 * ```
 * @category Series
 */
export function hasPeriod(y: ArrayLike<number>, candidates: readonly number[], options: PeriodOptions = {}): boolean {
  // the first candidate that reaches its bar is always kept (no divisor was kept before it)
  return foundPeriods(y, candidates, options, "hasPeriod", 1).length > 0;
}

/** The candidates {@link detectPeriods} tests in a series of n points: distinct integers >= 2 with minCycles cycles (and 2p + 2 points), ascending. */
function testedPeriods(n: number, candidates: readonly number[], minCycles: number, caller: string): number[] {
  if (!(minCycles >= 2)) throw new RangeError(`${caller}: minCycles must be >= 2, got ${String(minCycles)}`);
  return [...new Set(candidates)].filter((p) => Number.isInteger(p) && p >= 2 && n >= minCycles * p && n >= 2 * p + 2).sort((a, b) => a - b);
}

/** The strength a period p of a series of n points must reach: max(minStrength, 3/√(n − p)). */
function periodBar(minStrength: number, n: number, period: number): number {
  return Math.max(minStrength, 3 / Math.sqrt(n - period));
}

/** Work buffers of detectPeriods and periodStrength (one call at a time), grown as needed. */
let periodScratch = { clipped: new Float64Array(0), work: new Float64Array(0), d: new Float64Array(0), ranks: new Float64Array(0) };

/** y clipped to median ± 4 robust sds (a view of a work buffer, valid until the next call), or null when a value is not finite or the series is constant. */
function winsorized(y: ArrayLike<number>): Float64Array | null {
  const n = y.length;
  if (periodScratch.clipped.length < n) periodScratch = { clipped: new Float64Array(n), work: new Float64Array(n), d: new Float64Array(n), ranks: new Float64Array(n) };
  const out = periodScratch.clipped.subarray(0, n);
  out.set(y);
  let lo = Infinity;
  let hi = -Infinity;
  for (let t = 0; t < n; t++) {
    const v = out[t]!;
    if (!Number.isFinite(v)) return null;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!(hi > lo)) return null;
  // Work at unit scale: huge or tiny magnitudes neither overflow nor underflow the sums below.
  const scale = Math.max(Math.abs(lo), Math.abs(hi));
  for (let t = 0; t < n; t++) out[t] = out[t]! / scale;
  const scratch = periodScratch.work.subarray(0, n);
  scratch.set(out);
  const median = medianInPlace(scratch);
  for (let t = 0; t < n; t++) scratch[t] = Math.abs(out[t]! - median);
  const mad = medianInPlace(scratch);
  if (mad > 0) {
    const limit = CLIP_SDS * 1.4826 * mad;
    for (let t = 0; t < n; t++) out[t] = Math.min(median + limit, Math.max(median - limit, out[t]!));
  }
  return out;
}

/**
 * Rank correlation of the pairs (d(t), d(t + p)), d = x minus its centred moving average over
 * one period (2×p for even p). Ranks (ties averaged): the few points a level shift leaves
 * after the moving average, or a spike, move a rank, not the sum.
 */
function detrendedAutocorrelation(x: Float64Array, period: number): number {
  const n = x.length;
  const half = Math.floor(period / 2);
  const even = period % 2 === 0;
  // Centred average at t covers t − half .. t + half (even p: the two ends weigh one half).
  const first = half;
  const last = n - 1 - half;
  const count = last - first + 1;
  if (count <= period + 1) return 0;
  const d = periodScratch.d.subarray(0, count);
  let window = 0;
  for (let k = 0; k <= 2 * half; k++) window += x[k]!;
  for (let t = first; t <= last; t++) {
    if (t > first) window += x[t + half]! - x[t - half - 1]!;
    const sum = even ? window - 0.5 * (x[t - half]! + x[t + half]!) : window;
    d[t - first] = x[t]! - sum / period;
  }
  const r = ranksInto(d, periodScratch.ranks.subarray(0, count));
  return pairCorrelation(r, period);
}

/**
 * Ranks 1..n of the values, ties (values within a relative 1e-12: the moving average leaves rounding noise on equal
 * values) getting their average rank: value v's rank is (a + b + 1) / 2 with a the count of values below
 * v − 1e-12·max(1, |v|) and b the count of values up to v + 1e-12·max(1, |v|). Computed from the values sorted with
 * the place of each (`sortWithPlaces`), each value's run of ties found by galloping from its place (the indices a
 * binary search over the whole sorted array would give).
 *
 * @example
 * ```ts
 * Array.from(averageRanks(Float64Array.of(3, 1, 2, 1)));
 * // => [4, 1.5, 3, 1.5]
 * ```
 */
export function averageRanks(values: Float64Array): Float64Array {
  return ranksInto(values, new Float64Array(values.length));
}

/** {@link averageRanks} written to `ranks` (as many values as `values`). */
function ranksInto(values: Float64Array, ranks: Float64Array): Float64Array {
  const n = values.length;
  if (placeScratch.place.length < n) placeScratch = { sorted: new Float64Array(n), place: new Int32Array(n), bucket: new Int32Array(n), start: new Int32Array(n + 1), member: new Int32Array(n) };
  const sorted = placeScratch.sorted.subarray(0, n);
  const place = placeScratch.place;
  if (!sortWithPlaces(values, sorted, place)) {
    // NaN: a native sort (NaN last) and a binary search per value
    sorted.set(values);
    sorted.sort();
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      const tolerance = 1e-12 * Math.max(1, Math.abs(v));
      const first = lowerBound(sorted, v - tolerance);
      ranks[i] = (first + firstAbove(sorted, v + tolerance, first) + 1) / 2;
    }
    return ranks;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const tolerance = 1e-12 * Math.max(1, Math.abs(v));
    // sorted[p] is v itself, so v − tolerance <= sorted[p] <= v + tolerance: the run of ties is found around p
    const p = place[i]!;
    ranks[i] = (firstAtLeast(sorted, v - tolerance, p) + firstAbove(sorted, v + tolerance, p) + 1) / 2;
  }
  return ranks;
}

/** Scratch of averageRanks and sortWithPlaces, grown as needed. */
let placeScratch = { sorted: new Float64Array(0), place: new Int32Array(0), bucket: new Int32Array(0), start: new Int32Array(1), member: new Int32Array(0) };
/** Longest run of one bucket sorted by insertion (a longer one by a native sort). */
const INSERTION_RUN = 32;

/**
 * Writes `values` in ascending order to `sorted` (as numbers: −0 and +0, equal, may come in either order) and a place
 * of each value to `place` (sorted[place[i]] is values[i]). A bucket sort: the range [min, max] is cut into n equal
 * buckets, bucket b(v) = ⌊(v − min) · n / (max − min)⌋ being monotone in v (each rounded step is), so the buckets
 * laid out in order are sorted once each is; a bucket is sorted by insertion, or natively when longer than
 * {@link INSERTION_RUN} (its values' places then found by a binary search within it). A range too wide or too narrow
 * to cut is sorted natively. Returns false, writing nothing, when a value is NaN.
 */
function sortWithPlaces(values: Float64Array, sorted: Float64Array, place: Int32Array): boolean {
  const n = values.length;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) return false;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const perUnit = n / (max - min);
  if (!(Number.isFinite(perUnit) && perUnit > 0)) {
    sorted.set(values);
    sorted.sort();
    for (let i = 0; i < n; i++) place[i] = lowerBound(sorted, values[i]!);
    return true;
  }
  const { bucket, start, member } = placeScratch;
  const last = n - 1;
  start.fill(0, 0, n + 1);
  for (let i = 0; i < n; i++) {
    const b = Math.min(last, Math.floor((values[i]! - min) * perUnit));
    bucket[i] = b;
    start[b + 1]!++;
  }
  for (let b = 0; b < n; b++) start[b + 1]! += start[b]!;
  // scatter: start[b] runs to the end of bucket b, then every start is moved back one bucket
  for (let i = 0; i < n; i++) {
    const j = start[bucket[i]!]!++;
    sorted[j] = values[i]!;
    member[j] = i;
  }
  for (let b = n; b > 0; b--) start[b] = start[b - 1]!;
  start[0] = 0;
  for (let b = 0; b < n; b++) {
    const from = start[b]!;
    const to = start[b + 1]!;
    if (to - from > INSERTION_RUN) {
      sorted.subarray(from, to).sort();
      for (let j = from; j < to; j++) {
        const i = member[j]!;
        place[i] = lowerBound(sorted, values[i]!, from, false, to);
      }
      continue;
    }
    for (let j = from + 1; j < to; j++) {
      const v = sorted[j]!;
      const i = member[j]!;
      let k = j - 1;
      while (k >= from && sorted[k]! > v) {
        sorted[k + 1] = sorted[k]!;
        member[k + 1] = member[k]!;
        k--;
      }
      sorted[k + 1] = v;
      member[k + 1] = i;
    }
    for (let j = from; j < to; j++) place[member[j]!] = j;
  }
  return true;
}

/**
 * First index in `sorted` whose value is >= x, given that sorted[from] is:
 * the same index as `lowerBound(sorted, x)`, found by galloping down from `from`.
 */
function firstAtLeast(sorted: Float64Array, x: number, from: number): number {
  let hi = from; // sorted[hi] >= x
  let step = 1;
  while (hi > 0) {
    const next = Math.max(0, hi - step);
    if (!(sorted[next]! >= x)) return lowerBound(sorted, x, next + 1, false, hi);
    hi = next;
    step *= 2;
  }
  return 0;
}

/**
 * First index in `sorted` (from `from`) whose value is > x: the same index as
 * `lowerBound(sorted, x, from, true)`, found by galloping from `from` (a run
 * of ties is short, so this reads a few values instead of log₂ n).
 */
function firstAbove(sorted: Float64Array, x: number, from: number): number {
  const n = sorted.length;
  let lo = from; // every index in [from, lo) holds a value <= x
  let step = 1;
  while (lo < n && sorted[lo]! <= x) {
    const next = Math.min(n, lo + step);
    if (!(sorted[next - 1]! <= x)) return lowerBound(sorted, x, lo + 1, true, next - 1);
    lo = next;
    step *= 2;
  }
  return lo;
}

/** First index in `sorted` (from `from`, below `to`) whose value is >= x, or > x when `strict` (`to` when none). */
function lowerBound(sorted: Float64Array, x: number, from = 0, strict = false, to = sorted.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (strict ? v <= x : v < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Pearson correlation of (r(t), r(t + lag)) over t = 0 .. n − lag − 1; 0 when either side is constant. */
function pairCorrelation(r: Float64Array, lag: number): number {
  const pairs = r.length - lag;
  let meanA = 0;
  let meanB = 0;
  for (let i = 0; i < pairs; i++) {
    meanA += r[i]!;
    meanB += r[i + lag]!;
  }
  meanA /= pairs;
  meanB /= pairs;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < pairs; i++) {
    const a = r[i]! - meanA;
    const b = r[i + lag]! - meanB;
    sab += a * b;
    saa += a * a;
    sbb += b * b;
  }
  if (!(saa > 0 && sbb > 0)) return 0;
  return Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
}
