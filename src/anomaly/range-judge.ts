/**
 * The range judge of online anomaly detection: how far a value lies from
 * the series' own usual range (the median and interquartile range of its
 * values before the point), and the rule by which that raises a point's
 * score: never lowers it, and only when the value lies further out of the
 * range than the forecast judges put it.
 * @module
 */
import { selectOrderStatistics } from "../stats/index.js";

/**
 * Fewest values before a point for the range judge to speak (fewer do not
 * place a quartile).
 *
 * @example
 * ```ts
 * RANGE_JUDGE_MIN_POINTS; // => 20
 * ```
 * @category Anomaly detection
 */
export const RANGE_JUDGE_MIN_POINTS = 20;

/** The interquartile range of a normal distribution in standard deviations: 2 · Φ⁻¹(0.75). */
const NORMAL_IQR = 1.3489795003921634;

/**
 * The score of a point whose forecast judges give it z and whose range
 * judge gives it r = (y − median) / (IQR / 1.349): where r lies on z's side
 * and further out (|r| > |z|), the geometric mean sign(z) · √(|z| · |r|);
 * else z itself. The score is never below |z| in size, and it is
 * nondecreasing in each of z and r on each side, so "outside the interval"
 * stays one threshold on |score|.
 *
 * Why: on the development half of the real monitoring data, values far
 * outside a metric's usual range (an outage, a burst of errors) were the
 * labelled anomalies the forecast judges ranked lowest: a forecaster that
 * has seen spikes before expects them. The geometric mean lets the range
 * raise a score without outweighing the forecast judges; a value the
 * forecast judges find ordinary (z near 0) stays near 0 however far out of
 * range it is (a trend or a level shift moves the range).
 *
 * @param z - The forecast judges' z.
 * @param r - The range judge's z (NaN: it does not speak).
 * @returns The score.
 *
 * @example
 * ```ts
 * [rangeBoost(2, 8), rangeBoost(2, 1), rangeBoost(2, -8), rangeBoost(-1, -9), rangeBoost(3, Number.NaN)];
 * // => [4, 2, 2, -3, 3]
 * ```
 * @category Anomaly detection
 */
export function rangeBoost(z: number, r: number): number {
  const sameSide = (z > 0 && r > 0) || (z < 0 && r < 0);
  if (!sameSide) return z;
  const a = Math.abs(z);
  const b = Math.abs(r);
  if (!(b > a)) return z;
  const product = a * b;
  // √(a · b), or √a · √b where the product overflows or underflows (huge or subnormal values); never below |z| by rounding
  const mean = product < Number.POSITIVE_INFINITY && product >= Number.MIN_VALUE * 2 ** 60 ? Math.sqrt(product) : Math.sqrt(a) * Math.sqrt(b);
  return Math.sign(z) * Math.max(a, mean);
}

/**
 * The range judge's opinion of the last `detectionSize` points of a series:
 * for each, the median of the series' finite values before it and the
 * robust scale IQR / 1.349 (the quartiles interpolated linearly, as R's
 * type 7). "Before it" is every value before the detection window when
 * `windowLeftOut` (the window's values then touch none of its own
 * judgements), else every value before the point itself. Where fewer than
 * {@link RANGE_JUDGE_MIN_POINTS} values precede it, or the IQR is 0 (a
 * stream that is mostly one value), the scale is NaN: the judge does not
 * speak.
 *
 * Cost: O(n) expected for n values with the window left out (the quartiles
 * and the median found by selection), O(n log n) with a growing history (one
 * sort, and a Fenwick tree of the values' ranks).
 *
 * @param values - The series, oldest first (NaN: missing, skipped).
 * @param detectionSize - Points at its end to judge (1 ≤ detectionSize ≤ values.length).
 * @param windowLeftOut - Whether the history of every point ends at the window's start.
 * @param centre - Receives each point's median (detectionSize values).
 * @param scale - Receives each point's IQR / 1.349, NaN where the judge does not speak.
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 40 }, (_, t) => t % 4);
 * const centre = new Float64Array(2);
 * const scale = new Float64Array(2);
 * rangeOpinion(y, 2, true, centre, scale);
 * [Array.from(centre), scale[0]!.toFixed(3)]; // the 38 values before the window: ten 0s, ten 1s, nine 2s, nine 3s
 * // => [[1, 1], "1.297"]
 * ```
 * @category Anomaly detection
 */
export function rangeOpinion(values: ArrayLike<number>, detectionSize: number, windowLeftOut: boolean, centre: Float64Array, scale: Float64Array): void {
  const n = values.length;
  const start = n - detectionSize;
  if (windowLeftOut) {
    const sorted = finiteWithQuartiles(values, start);
    const m = sorted.length;
    const at = (k: number): number => sorted[k] as number;
    const med = m > 0 ? quantile7(at, m, 0.5) : Number.NaN;
    const s = robustScale(at, m);
    centre.fill(med, 0, detectionSize);
    scale.fill(s, 0, detectionSize);
    return;
  }
  // a growing history: ranks of every finite value, and counts of the ranks inserted so far
  const order = new Int32Array(n);
  let finite = 0;
  for (let t = 0; t < n; t++) if (Number.isFinite(values[t] as number)) order[finite++] = t;
  const byValue = order.subarray(0, finite).sort((a, b) => (values[a] as number) - (values[b] as number) || a - b);
  const rankOf = new Int32Array(n).fill(-1);
  const sortedValues = new Float64Array(finite);
  for (let r = 0; r < finite; r++) {
    const t = byValue[r] as number;
    rankOf[t] = r;
    sortedValues[r] = values[t] as number;
  }
  const tree = new RankCounts(finite);
  const kth = (k: number): number => sortedValues[tree.kth(k)] as number;
  let inserted = 0;
  for (let t = 0; t < n; t++) {
    if (t >= start) {
      const j = t - start;
      centre[j] = inserted > 0 ? quantile7(kth, inserted, 0.5) : Number.NaN;
      scale[j] = robustScale(kth, inserted);
    }
    const r = rankOf[t] as number;
    if (r >= 0) {
      tree.add(r);
      inserted++;
    }
  }
}

/**
 * The finite values of values[0, end), with the order statistics {@link quantile7} reads for the quartiles
 * and the median (places ⌊(m − 1)p⌋ and the next) where sorting would put them, found by selection: values
 * equal to a sort's (a 0 may stand where a sort puts −0).
 */
function finiteWithQuartiles(values: ArrayLike<number>, end: number): Float64Array {
  const out = new Float64Array(end);
  let m = 0;
  for (let t = 0; t < end; t++) {
    const v = values[t] as number;
    if (Number.isFinite(v)) out[m++] = v;
  }
  const finite = out.subarray(0, m);
  if (m === 0) return finite;
  const places: number[] = [];
  for (const p of [0.25, 0.5, 0.75]) {
    const k = Math.floor((m - 1) * p);
    places.push(k);
    if (k + 1 < m) places.push(k + 1);
  }
  places.sort((a, b) => a - b);
  selectOrderStatistics(finite, places);
  return finite;
}

/** The type-7 quantile p of m sorted values read by `kth` (0-based). */
function quantile7(kth: (k: number) => number, m: number, p: number): number {
  const h = (m - 1) * p;
  const k = Math.floor(h);
  const lo = kth(k);
  return k + 1 < m ? lo + (h - k) * (kth(k + 1) - lo) : lo;
}

/** IQR / 1.349 of m sorted values read by `kth`; NaN below RANGE_JUDGE_MIN_POINTS values or when the IQR is not > 0. */
function robustScale(kth: (k: number) => number, m: number): number {
  if (m < RANGE_JUDGE_MIN_POINTS) return Number.NaN;
  const iqr = quantile7(kth, m, 0.75) - quantile7(kth, m, 0.25);
  return iqr > 0 && Number.isFinite(iqr) ? iqr / NORMAL_IQR : Number.NaN;
}

/** Counts of inserted ranks 0..size−1 (a Fenwick tree), with the k-th smallest inserted rank. */
class RankCounts {
  private readonly tree: Int32Array;
  private readonly top: number;

  constructor(readonly size: number) {
    this.tree = new Int32Array(size + 1);
    let top = 1;
    while (top * 2 <= size) top *= 2;
    this.top = top;
  }

  add(rank: number): void {
    for (let i = rank + 1; i <= this.size; i += i & -i) this.tree[i] = (this.tree[i] as number) + 1;
  }

  /** The rank of the k-th smallest (0-based) inserted value. */
  kth(k: number): number {
    let at = 0;
    let left = k + 1;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = at + step;
      if (next <= this.size && (this.tree[next] as number) < left) {
        at = next;
        left -= this.tree[next] as number;
      }
    }
    return at;
  }
}
