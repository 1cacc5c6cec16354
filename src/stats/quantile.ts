/**
 * The linear-interpolation quantile (R type 7, numpy "linear").
 * @module
 */
import { checkProbability, checkRange } from "./range.js";

/**
 * Quantile of already sorted data by linear interpolation (R `quantile(type = 7)`,
 * numpy `quantile(method="linear")`, Excel `PERCENTILE.INC`).
 *
 * Formula: with n sorted values x₀ ≤ … ≤ xₙ₋₁, let h = (n − 1)·p, j = ⌊h⌋ and
 * g = h − j; the quantile is (1 − g)·xⱼ + g·xⱼ₊₁ (as R computes it), clamped to
 * [xⱼ, xⱼ₊₁] so the result is non-decreasing in p even after rounding.
 *
 * Degenerate input: an empty range gives `NaN`; one value gives that value.
 * The data is not checked for order (that would cost O(n)); unsorted input gives
 * an unspecified value. A `NaN` in the two values used gives `NaN`.
 *
 * Reference: R. J. Hyndman and Y. Fan (1996), "Sample quantiles in statistical
 * packages", The American Statistician 50(4), 361–365 (definition 7).
 *
 * Cost: O(1).
 *
 * @param sorted - Values in non-decreasing order. Never mutated.
 * @param p - Probability in [0, 1].
 * @param start - First index of the sorted range (default 0).
 * @param end - One past the last index (default `sorted.length`).
 * @returns The p-quantile, or `NaN` for an empty range.
 * @throws RangeError when p is not in [0, 1] or the range is invalid.
 *
 * @example
 * ```ts
 * quantileSorted([1, 2, 3, 4], 0.5);
 * // => 2.5
 * quantileSorted(new Float64Array([10, 20, 30]), 0.25);
 * // => 15
 * ```
 * @category Statistics
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number, start = 0, end: number = sorted.length): number {
  checkProbability(p, "quantileSorted");
  checkRange(sorted.length, start, end, "quantileSorted");
  const n = end - start;
  if (n === 0) return NaN;
  const h = (n - 1) * p;
  const j = Math.floor(h);
  const lo = sorted[start + j] as number;
  if (j >= n - 1) return lo;
  const g = h - j;
  if (g === 0) return lo;
  const hi = sorted[start + j + 1] as number;
  if (Number.isNaN(lo) || Number.isNaN(hi)) return NaN;
  if (lo === hi) return lo;
  const value = (1 - g) * lo + g * hi;
  return value < lo ? lo : value > hi ? hi : value;
}

/**
 * Quantile of unsorted data by linear interpolation (R type 7, numpy "linear"),
 * without mutating the input.
 *
 * Method: copies `values[start .. end-1]` into a `Float64Array`, finds the ⌊h⌋-th
 * order statistic of the copy by quickselect and the next one as the minimum of the
 * values above it, then interpolates as {@link quantileSorted} does (same result as
 * sorting). For several probabilities of the same data use {@link quantilesType7},
 * which sorts once.
 *
 * Degenerate input: an empty range gives `NaN`; any `NaN` value gives `NaN`.
 *
 * Reference: Hyndman and Fan (1996), definition 7.
 *
 * Cost: O(n) expected time (O(n log n) worst case), O(n) extra memory.
 *
 * @param values - The numbers, in any order. Never mutated.
 * @param p - Probability in [0, 1].
 * @param start - First index included (default 0).
 * @param end - One past the last index included (default `values.length`).
 * @returns The p-quantile.
 * @throws RangeError when p is not in [0, 1] or the range is invalid.
 *
 * @example
 * ```ts
 * quantileType7([3, 1, 4, 1, 5, 9, 2, 6], 0.9);
 * // => 6.8999999999999995
 * quantileType7([7, 1, 3], 0.5);
 * // => 3
 * ```
 * @category Statistics
 */
export function quantileType7(values: ArrayLike<number>, p: number, start = 0, end: number = values.length): number {
  checkProbability(p, "quantileType7");
  const copy = finiteCopy(values, start, end, "quantileType7");
  if (copy === null) return NaN;
  const n = copy.length;
  const h = (n - 1) * p;
  const j = Math.floor(h);
  selectInPlace(copy, j);
  const lo = copy[j] as number;
  if (j >= n - 1 || h === j) return lo;
  // After selection every value right of j is >= copy[j]; the next order statistic is their minimum.
  let hi = Infinity;
  for (let i = j + 1; i < n; i++) if ((copy[i] as number) < hi) hi = copy[i] as number;
  if (lo === hi) return lo;
  const g = h - j;
  const value = (1 - g) * lo + g * hi;
  return value < lo ? lo : value > hi ? hi : value;
}

/**
 * Median of `a`, reordering it (no copy): the middle order statistic found by
 * quickselect, or the mean of the two middle ones for an even length; NaN when
 * `a` is empty. For scratch buffers in loops; `a` must hold no NaN.
 *
 * @example
 * ```ts
 * medianInPlace(Float64Array.of(5, 1, 4, 2)); // => 3
 * ```
 * @category Statistics
 */
export function medianInPlace(a: Float64Array): number {
  const n = a.length;
  if (n === 0) return NaN;
  const k = n >> 1;
  selectInPlace(a, k);
  const upper = a[k] as number;
  if (n % 2 === 1) return upper;
  // every value left of k is <= a[k]; the lower middle one is their maximum
  let lower = -Infinity;
  for (let i = 0; i < k; i++) if ((a[i] as number) > lower) lower = a[i] as number;
  return 0.5 * (lower + upper);
}

/**
 * Rearranges `a` so that `a[k]` is its k-th smallest value, with no larger value before
 * and no smaller value after it (Hoare's quickselect with a median-of-three pivot; after
 * 2·log₂ n + 8 rounds the remaining range is sorted instead, which bounds the worst case
 * by O(n log n)). No NaN allowed.
 */
function selectInPlace(a: Float64Array, k: number): void {
  selectInRange(a, k, 0, a.length - 1);
}

/** {@link selectInPlace} within a[lo ..= hi] (lo ≤ k ≤ hi); the rest of `a` is not touched. */
function selectInRange(a: Float64Array, k: number, lo: number, hi: number): void {
  let budget = 2 * Math.ceil(Math.log2(hi - lo + 2)) + 8;
  while (hi > lo) {
    if (budget-- === 0) {
      a.subarray(lo, hi + 1).sort();
      return;
    }
    const mid = (lo + hi) >>> 1;
    // Order a[lo] <= a[mid] <= a[hi]; the median becomes the pivot.
    if ((a[mid] as number) < (a[lo] as number)) swap(a, mid, lo);
    if ((a[hi] as number) < (a[lo] as number)) swap(a, hi, lo);
    if ((a[hi] as number) < (a[mid] as number)) swap(a, hi, mid);
    const pivot = a[mid] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] as number) < pivot) i++;
      while ((a[j] as number) > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/**
 * Rearranges `a` so that `a[k]` is its k-th smallest value (0-based) for every
 * k of `ks`, as sorting `a` would place it: the values at those places equal
 * the sorted array's (no value left of a chosen k is larger, none right of it
 * smaller; −0 and 0 compare equal, so either may stand where a sort puts
 * −0). For a few order statistics of a scratch buffer (quartiles, a median)
 * without sorting it all.
 *
 * Method: quickselect the middle requested k over the whole range, then the
 * requested k's left of it in the part left of it and those right of it in the
 * part right of it, recursively (each part selected as {@link quantileType7}'s
 * quickselect does, sorted outright after 2·log₂ n + 8 rounds).
 *
 * Cost: O(n log m) expected for m requested k's, O(n log n) worst case; no
 * allocation beyond a stack of O(m) entries.
 *
 * @param a - The values (no NaN); reordered in place.
 * @param ks - The places wanted, ascending, each in [0, a.length).
 * @throws RangeError when ks is not ascending or a k is out of range.
 *
 * @example
 * ```ts
 * const a = Float64Array.of(9, 1, 8, 2, 7, 3, 6, 4, 5);
 * selectOrderStatistics(a, [2, 4, 6]);
 * [a[2], a[4], a[6]]; // => [3, 5, 7]
 * ```
 * @category Statistics
 */
export function selectOrderStatistics(a: Float64Array, ks: ArrayLike<number>): void {
  const m = ks.length;
  for (let i = 0; i < m; i++) {
    const k = ks[i] as number;
    if (!Number.isInteger(k) || k < 0 || k >= a.length || (i > 0 && k < (ks[i - 1] as number))) {
      throw new RangeError(`selectOrderStatistics: ks must be ascending integers in [0, ${a.length}), got ks[${i}] = ${String(k)}`);
    }
  }
  if (m === 0) return;
  // pending ranges: [first k index, last k index] of ks with the part [lo, hi] of a they lie in
  const stack: number[] = [0, m - 1, 0, a.length - 1];
  while (stack.length > 0) {
    const hi = stack.pop() as number;
    const lo = stack.pop() as number;
    const last = stack.pop() as number;
    const first = stack.pop() as number;
    const middle = (first + last) >>> 1;
    const k = ks[middle] as number;
    selectInRange(a, k, lo, hi);
    // a k repeated beside the middle one is placed already
    let left = middle - 1;
    while (left >= first && (ks[left] as number) === k) left--;
    let right = middle + 1;
    while (right <= last && (ks[right] as number) === k) right++;
    if (left >= first) stack.push(first, left, lo, k - 1);
    if (right <= last) stack.push(right, last, k + 1, hi);
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i] as number;
  a[i] = a[j] as number;
  a[j] = t;
}

/**
 * Several type-7 quantiles of the same unsorted data, sorting it once.
 *
 * Method: one sorted copy, then {@link quantileSorted} for each probability.
 *
 * Degenerate input: an empty range or any `NaN` value gives `NaN` for every p.
 *
 * Reference: Hyndman and Fan (1996), definition 7.
 *
 * Cost: O(n log n + m) time for m probabilities, O(n + m) extra memory.
 *
 * @param values - The numbers, in any order. Never mutated.
 * @param ps - Probabilities in [0, 1].
 * @param start - First index included (default 0).
 * @param end - One past the last index included (default `values.length`).
 * @returns One quantile per probability, in the order of `ps`.
 * @throws RangeError when a p is not in [0, 1] or the range is invalid.
 *
 * @example
 * ```ts
 * Array.from(quantilesType7([4, 1, 3, 2], [0, 0.5, 1]));
 * // => [1, 2.5, 4]
 * ```
 * @category Statistics
 */
export function quantilesType7(
  values: ArrayLike<number>,
  ps: ArrayLike<number>,
  start = 0,
  end: number = values.length,
): Float64Array {
  for (let k = 0; k < ps.length; k++) checkProbability(ps[k] as number, "quantilesType7");
  const out = new Float64Array(ps.length);
  const sorted = finiteCopy(values, start, end, "quantilesType7");
  sorted?.sort();
  for (let k = 0; k < ps.length; k++) out[k] = sorted === null ? NaN : quantileSorted(sorted, ps[k] as number);
  return out;
}

/** A Float64Array copy of the range, or null when it is empty or holds a NaN. */
function finiteCopy(values: ArrayLike<number>, start: number, end: number, where: string): Float64Array | null {
  checkRange(values.length, start, end, where);
  const n = end - start;
  if (n === 0) return null;
  const copy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = values[start + i] as number;
    if (Number.isNaN(x)) return null;
    copy[i] = x;
  }
  return copy;
}
