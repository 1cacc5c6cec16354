/**
 * Prediction intervals: Gaussian (ŷ ± q·σ) and conformal (from rolling-origin
 * absolute errors per horizon step), keyed `lo-<L>` / `hi-<L>`.
 * @module
 */
import type { CrossValidationResult } from "../cv/index.js";
import { normalQuantile, quantileSorted } from "../stats/index.js";
import type { Intervals } from "../types.js";

/**
 * The key of one interval bound: `lo-<L>` or `hi-<L>` with L = `String(level)`,
 * i.e. the level written as given (99 → `"99"`, 97.5 → `"97.5"`).
 *
 * @param level - Level in percent, finite, 0 <= level < 100.
 * @param side - `"lo"` for the lower bound, `"hi"` for the upper bound.
 * @returns The key.
 * @throws RangeError when the level is not finite or outside [0, 100).
 *
 * @example
 * ```ts
 * intervalKey(99, "lo");
 * // => "lo-99"
 * intervalKey(97.5, "hi");
 * // => "hi-97.5"
 * ```
 * @category Intervals
 */
export function intervalKey(level: number, side: "lo" | "hi"): string {
  checkLevel(level, "intervalKey");
  return `${side}-${String(level)}`;
}

/**
 * The two-sided normal quantile of a level: q = Φ⁻¹(0.5 + level/200), so that
 * ŷ ± q·σ holds `level` percent of a normal distribution with standard deviation σ.
 *
 * Cost: O(1) (AS241, see `normalQuantile`).
 *
 * @param level - Level in percent, finite, 0 <= level < 100.
 * @returns q >= 0 (0 for level 0).
 * @throws RangeError when the level is not finite or outside [0, 100).
 *
 * @example
 * ```ts
 * gaussianMultiplier(95);
 * // => 1.9599639845400536
 * gaussianMultiplier(99);
 * // => 2.5758293035489
 * ```
 * @category Intervals
 */
export function gaussianMultiplier(level: number): number {
  checkLevel(level, "gaussianMultiplier");
  return normalQuantile(0.5 + level / 200);
}

/**
 * Gaussian prediction intervals ŷ ± q·σ for every row, for each level.
 *
 * Formula: `lo-<L>[r] = mean[r] − q(L)·sigma[r]`, `hi-<L>[r] = mean[r] + q(L)·sigma[r]`
 * with q(L) = Φ⁻¹(0.5 + L/200) ({@link gaussianMultiplier}). Bounds beyond the
 * double range are clamped to ±`Number.MAX_VALUE`, so every bound is finite.
 * Keys are inserted for each level in the given order, `lo` then `hi`; a
 * repeated level keeps one pair of keys.
 *
 * Cost: O(rows · levels).
 *
 * @param mean - Point forecasts ŷ, one per row.
 * @param sigma - Standard deviation per row (finite, >= 0), same length as `mean`.
 * @param levels - Levels in percent, each finite and in [0, 100).
 * @returns The intervals, arrays of `mean.length` numbers.
 * @throws RangeError when lengths differ, a sigma is negative or not finite, or a level is out of range.
 *
 * @example
 * ```ts
 * gaussianIntervals([10, 20], [1, 2], [95]);
 * // => { "lo-95": [8.040036015459947, 16.080072030919894], "hi-95": [11.959963984540053, 23.919927969080106] }
 * ```
 * @category Intervals
 */
export function gaussianIntervals(mean: ArrayLike<number>, sigma: ArrayLike<number>, levels: readonly number[]): Intervals {
  if (sigma.length !== mean.length) {
    throw new RangeError(`gaussianIntervals: sigma has ${sigma.length} values, mean has ${mean.length}`);
  }
  for (let r = 0; r < sigma.length; r++) {
    const s = sigma[r] as number;
    if (!(s >= 0 && s <= Number.MAX_VALUE)) throw new RangeError(`gaussianIntervals: sigma[${r}] must be finite and >= 0, got ${s}`);
  }
  return intervalsFromHalfWidths(mean, levels, (level) => {
    const q = gaussianMultiplier(level);
    const widths = new Float64Array(mean.length);
    for (let r = 0; r < mean.length; r++) widths[r] = q * (sigma[r] as number);
    return widths;
  });
}

/**
 * Conformal half-widths per series and horizon step: the type-7 quantile, at
 * p = level/100, of the absolute cross-validation errors at that step.
 *
 * Method: for series i and step k (0-based), the errors are
 * |y[cutoff + k] − ŷ| over the windows of series i in `cv` (one per window); the
 * half-width is their linear-interpolation quantile (R type 7, numpy "linear")
 * at p = level/100.
 *
 * Finite-sample choice: no (n + 1)/n correction is applied, so with few windows
 * the interval is slightly narrower than split-conformal's guaranteed
 * ⌈(n + 1)·p⌉-th order statistic; with one window the half-width is that
 * window's error. Errors beyond the double range count as `Number.MAX_VALUE`.
 *
 * Cost: O(rows · h · log windows) time; O(nSeries · h) result.
 *
 * @param cv - Cross-validation result of these series (every series needs at least one window).
 * @param y - The packed observations the cross-validation ran on.
 * @param offsets - Series offsets into `y` (`sizes.length + 1` entries).
 * @param level - Level in percent, finite, 0 <= level < 100.
 * @param minWindows - When given, a series with fewer windows gets `NaN`
 *   half-widths instead of an error (the caller supplies a fallback).
 * @returns `halfWidth[i · h + k]` for series i, step k.
 * @throws RangeError when a series has no window (and `minWindows` is not given), `cv` does not match the series, or the level is out of range.
 *
 * @example
 * ```ts
 * const y = new Float64Array([1, 2, 4, 7, 11]);
 * const series = { y, sizes: new Int32Array([5]), offsets: new Int32Array([0, 5]), X: [] };
 * const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 1 }); // errors 1, 2, 3, 4
 * Array.from(conformalHalfWidths(cv, y, series.offsets, 50));
 * // => [2.5]
 * ```
 * @category Intervals
 */
export function conformalHalfWidths(
  cv: CrossValidationResult, y: Float64Array, offsets: Int32Array, level: number, minWindows?: number,
): Float64Array {
  return conformalHalfWidthsByLevel(cv, y, offsets, [level], minWindows)[0] as Float64Array;
}

/**
 * {@link conformalHalfWidths} for several levels at once: the absolute errors
 * of each (series, step) are collected and sorted once, then each level reads
 * its type-7 quantile from them.
 *
 * Cost: O(rows · h · log windows + levels · nSeries · h).
 *
 * @param cv - Cross-validation result of these series.
 * @param y - The packed observations the cross-validation ran on.
 * @param offsets - Series offsets into `y` (`sizes.length + 1` entries).
 * @param levels - Levels in percent, each finite, 0 <= level < 100.
 * @param minWindows - As in {@link conformalHalfWidths}.
 * @returns One array of half-widths per level, in the given order.
 * @throws RangeError as {@link conformalHalfWidths}.
 *
 * @example
 * ```ts
 * const y = new Float64Array([1, 2, 4, 7, 11]);
 * const series = { y, sizes: new Int32Array([5]), offsets: new Int32Array([0, 5]), X: [] };
 * const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 1 }); // errors 1, 2, 3, 4
 * conformalHalfWidthsByLevel(cv, y, series.offsets, [50, 0]).map((w) => Array.from(w));
 * // => [[2.5], [1]]
 * ```
 * @category Intervals
 */
export function conformalHalfWidthsByLevel(
  cv: CrossValidationResult, y: Float64Array, offsets: Int32Array, levels: readonly number[], minWindows?: number,
): Float64Array[] {
  for (const level of levels) checkLevel(level, "conformalHalfWidths");
  const nSeries = offsets.length - 1;
  if (nSeries < 0 || cv.windowOffsets.length !== nSeries + 1) {
    throw new RangeError("conformalHalfWidths: cv.windowOffsets and offsets describe different numbers of series");
  }
  const { h } = cv;
  for (let i = 0; i < nSeries; i++) {
    const windows = (cv.windowOffsets[i + 1] as number) - (cv.windowOffsets[i] as number);
    if (windows === 0 && minWindows === undefined) throw new RangeError(`conformalHalfWidths: series ${i} has no cross-validation window`);
  }
  // errors[(firstRow(i)) · h + k · windows(i) + w]: the errors of series i at step k, sorted.
  const errors = new Float64Array(cv.cutoffs.length * h);
  for (let i = 0; i < nSeries; i++) {
    const start = offsets[i] as number;
    const length = (offsets[i + 1] as number) - start;
    const firstRow = cv.windowOffsets[i] as number;
    const windows = (cv.windowOffsets[i + 1] as number) - firstRow;
    for (let k = 0; k < h; k++) {
      const from = firstRow * h + k * windows;
      for (let w = 0; w < windows; w++) {
        const row = firstRow + w;
        const t = (cv.cutoffs[row] as number) + k;
        if (t >= length) throw new RangeError(`conformalHalfWidths: window ${row} does not fit series ${i}`);
        const error = Math.abs((y[start + t] as number) - (cv.forecasts[row * h + k] as number));
        errors[from + w] = error > Number.MAX_VALUE ? Number.MAX_VALUE : error;
      }
      errors.subarray(from, from + windows).sort();
    }
  }
  return levels.map((level) => {
    const p = level / 100;
    const result = new Float64Array(nSeries * h);
    for (let i = 0; i < nSeries; i++) {
      const firstRow = cv.windowOffsets[i] as number;
      const windows = (cv.windowOffsets[i + 1] as number) - firstRow;
      if (windows === 0 || (minWindows !== undefined && windows < minWindows)) {
        result.fill(NaN, i * h, (i + 1) * h);
        continue;
      }
      for (let k = 0; k < h; k++) {
        const from = firstRow * h + k * windows;
        result[i * h + k] = quantileSorted(errors, p, from, from + windows);
      }
    }
    return result;
  });
}

/**
 * Conformal prediction intervals for future forecasts: ŷ ± the conformal
 * half-width of the series and step ({@link conformalHalfWidths}), for each level.
 *
 * Formula: `lo-<L>[i·h + k] = mean[i·h + k] − w_L(i, k)` and
 * `hi-<L>[i·h + k] = mean[i·h + k] + w_L(i, k)`, with w_L(i, k) the type-7
 * quantile at L/100 of the absolute rolling-origin errors of series i at step k.
 * Bounds are clamped to ±`Number.MAX_VALUE`. Keys: for each level in the
 * given order, `lo` then `hi`.
 *
 * Cost: O(levels · rows · h · log windows).
 *
 * @param mean - Future forecasts, `h` per series, series after series (`nSeries · cv.h` values).
 * @param cv - Cross-validation result on the series' history (same `h`).
 * @param series - The packed history (`y`, `offsets`) the cross-validation ran on.
 * @param levels - Levels in percent, each finite and in [0, 100).
 * @returns The intervals, arrays of `mean.length` numbers.
 * @throws RangeError when `mean` has the wrong length, a series has no window, or a level is out of range.
 *
 * @example
 * ```ts
 * const y = new Float64Array([1, 2, 4, 7, 11]);
 * const series = { y, sizes: new Int32Array([5]), offsets: new Int32Array([0, 5]), X: [] };
 * const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 1 }); // errors 1, 2, 3, 4
 * conformalIntervals([11], cv, series, [50]);
 * // => { "lo-50": [8.5], "hi-50": [13.5] }
 * ```
 * @category Intervals
 */
export function conformalIntervals(
  mean: ArrayLike<number>,
  cv: CrossValidationResult,
  series: { readonly y: Float64Array; readonly offsets: Int32Array },
  levels: readonly number[],
): Intervals {
  const nSeries = series.offsets.length - 1;
  if (mean.length !== nSeries * cv.h) {
    throw new RangeError(`conformalIntervals: mean has ${mean.length} values, expected ${nSeries} series × h ${cv.h}`);
  }
  const widths = conformalHalfWidthsByLevel(cv, series.y, series.offsets, levels);
  return intervalsFromHalfWidths(mean, levels, (_level, index) => widths[index] as Float64Array);
}

/**
 * Intervals ŷ ± w from half-widths: for each level (in the given order)
 * `lo-<L>[r] = mean[r] − w_L[r]` and `hi-<L>[r] = mean[r] + w_L[r]`, bounds
 * clamped to ±`Number.MAX_VALUE`. The one place every interval kind builds
 * its keyed arrays.
 *
 * Cost: O(levels · rows) plus the half-width function.
 *
 * @param mean - Point forecasts, one per row.
 * @param levels - Levels in percent, in output order.
 * @param halfWidths - The half-widths of one level (given the level and its index), one per row.
 * @returns The intervals, arrays of `mean.length` numbers.
 *
 * @example
 * ```ts
 * intervalsFromHalfWidths([10, 20], [80], () => [1, 2]);
 * // => { "lo-80": [9, 18], "hi-80": [11, 22] }
 * ```
 * @category Intervals
 */
export function intervalsFromHalfWidths(
  mean: ArrayLike<number>,
  levels: readonly number[],
  halfWidths: (level: number, index: number) => ArrayLike<number>,
): Intervals {
  const result: Intervals = {};
  for (let index = 0; index < levels.length; index++) {
    const level = levels[index] as number;
    const widths = halfWidths(level, index);
    const lo = new Array<number>(mean.length);
    const hi = new Array<number>(mean.length);
    for (let r = 0; r < mean.length; r++) {
      const m = mean[r] as number;
      lo[r] = clampFinite(m - (widths[r] as number));
      hi[r] = clampFinite(m + (widths[r] as number));
    }
    result[intervalKey(level, "lo")] = lo;
    result[intervalKey(level, "hi")] = hi;
  }
  return result;
}

function clampFinite(x: number): number {
  return x > Number.MAX_VALUE ? Number.MAX_VALUE : x < -Number.MAX_VALUE ? -Number.MAX_VALUE : x;
}

function checkLevel(level: number, where: string): void {
  if (!(Number.isFinite(level) && level >= 0 && level < 100)) {
    throw new RangeError(`${where}: level must be a finite number with 0 <= level < 100, got ${String(level)}`);
  }
}
