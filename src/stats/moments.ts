/**
 * Mean, sample variance and sample standard deviation.
 * @module
 */
import { checkRange } from "./range.js";
import { compensatedSum, scaledCompensatedSum } from "./sum.js";

/**
 * Arithmetic mean of `values[start .. end-1]`.
 *
 * Formula: the compensated (Neumaier) sum of the values divided by their count.
 * If that sum overflows although every value is finite (e.g. many values near
 * 1e308), the mean is computed as the compensated sum of `value / n` instead,
 * so huge inputs still give a finite mean.
 *
 * Degenerate input: an empty range gives `NaN`; any `NaN` value gives `NaN`.
 *
 * Reference: the arithmetic mean; summation as in {@link compensatedSum}.
 *
 * Cost: O(n) time, O(1) extra memory.
 *
 * @param values - The numbers. Never mutated.
 * @param start - First index included (default 0).
 * @param end - One past the last index included (default `values.length`).
 * @returns The mean, or `NaN` for an empty range.
 * @throws RangeError when the range is invalid.
 *
 * @example
 * ```ts
 * meanOf([1, 2, 3, 4]);
 * // => 2.5
 * meanOf(new Float64Array([10, 20, 30, 40]), 1, 3);
 * // => 25
 * meanOf([]);
 * // => NaN
 * ```
 * @category Statistics
 */
export function meanOf(values: ArrayLike<number>, start = 0, end: number = values.length): number {
  checkRange(values.length, start, end, "meanOf");
  const n = end - start;
  if (n === 0) return NaN;
  const sum = compensatedSum(values, start, end);
  if (Number.isFinite(sum) || Number.isNaN(sum)) return sum / n;
  // Either a true infinity in the data, or an overflow of finite values: sum value/n instead.
  return scaledCompensatedSum(values, start, end, n);
}

/**
 * Sample variance (divisor n − 1) of `values[start .. end-1]`, by Welford's algorithm.
 *
 * Method: one pass keeping the running mean and the running sum of squared
 * deviations M2 (`delta = x − mean; mean += delta / k; M2 += delta · (x − mean)`);
 * the variance is M2 / (n − 1). The values are shifted by the first value of the
 * range first (exact deviations even when the mean is large relative to the spread,
 * e.g. 1e9 + small noise), and values whose largest magnitude is above 1e150 or below
 * 1e-150 are also divided by that magnitude, so squares neither overflow nor underflow.
 *
 * Degenerate input: fewer than 2 values give `NaN` (the sample variance is
 * undefined, as R's `var` gives `NA`); a constant range gives exactly 0; any
 * non-finite value gives `NaN`.
 *
 * Reference: B. P. Welford (1962), "Note on a method for calculating corrected
 * sums of squares and products", Technometrics 4(3), 419–420.
 *
 * Cost: O(n) time, O(1) extra memory.
 *
 * @param values - The numbers. Never mutated.
 * @param start - First index included (default 0).
 * @param end - One past the last index included (default `values.length`).
 * @returns The sample variance, or `NaN` when n < 2.
 * @throws RangeError when the range is invalid.
 *
 * @example
 * ```ts
 * sampleVariance([2, 4, 4, 4, 5, 5, 7, 9]);
 * // => 4.571428571428571
 * sampleVariance([3]);
 * // => NaN
 * ```
 * @category Statistics
 */
export function sampleVariance(values: ArrayLike<number>, start = 0, end: number = values.length): number {
  checkRange(values.length, start, end, "sampleVariance");
  const scaled = scaledVariance(values, start, end);
  return scaled.variance * scaled.scale * scaled.scale;
}

/** Shared result buffer of {@link scaledVariance} (no allocation per call). */
const varianceResult = { variance: 0, scale: 1 };

/**
 * Welford on (x − x₀)/scale: returns the variance of the scaled values and the scale,
 * so that the true variance is variance·scale² (which may overflow where the std does not).
 */
function scaledVariance(values: ArrayLike<number>, start: number, end: number): { variance: number; scale: number } {
  const n = end - start;
  varianceResult.scale = 1;
  if (n < 2) {
    varianceResult.variance = NaN;
    return varianceResult;
  }
  let maxAbs = 0;
  for (let i = start; i < end; i++) {
    const a = Math.abs(values[i] as number);
    if (!(a <= Number.MAX_VALUE)) {
      varianceResult.variance = NaN; // NaN or ±Infinity
      return varianceResult;
    }
    if (a > maxAbs) maxAbs = a;
  }
  const scale = maxAbs > 1e150 || (maxAbs < 1e-150 && maxAbs > 0) ? maxAbs : 1;
  // Shifting by a data value keeps the deviations exact when the mean is large relative to the spread.
  const shift = (values[start] as number) / scale;
  let mean = 0;
  let m2 = 0;
  if (scale === 1) {
    for (let i = start; i < end; i++) {
      const x = (values[i] as number) - shift;
      const delta = x - mean;
      mean += delta / (i - start + 1);
      m2 += delta * (x - mean);
    }
  } else {
    for (let i = start; i < end; i++) {
      const x = (values[i] as number) / scale - shift;
      const delta = x - mean;
      mean += delta / (i - start + 1);
      m2 += delta * (x - mean);
    }
  }
  varianceResult.variance = m2 / (n - 1);
  varianceResult.scale = scale;
  return varianceResult;
}

/**
 * Sample standard deviation (divisor n − 1) of `values[start .. end-1]`, as R's `sd`.
 *
 * Formula: the square root of {@link sampleVariance} (Welford's one-pass algorithm
 * on shifted and, for extreme magnitudes, scaled values; the scale is applied after
 * the square root, so e.g. the std of [1e300, −1e300] is finite).
 *
 * Degenerate input: fewer than 2 values give `NaN` (R gives `NA`); a constant
 * range gives exactly 0; any non-finite value gives `NaN`. Callers that need a
 * value for n < 2 must decide it themselves.
 *
 * Reference: B. P. Welford (1962), Technometrics 4(3), 419–420.
 *
 * Cost: O(n) time, O(1) extra memory.
 *
 * @param values - The numbers. Never mutated.
 * @param start - First index included (default 0).
 * @param end - One past the last index included (default `values.length`).
 * @returns The sample standard deviation, or `NaN` when n < 2.
 * @throws RangeError when the range is invalid.
 *
 * @example
 * ```ts
 * sampleStd([2, 4, 4, 4, 5, 5, 7, 9]);
 * // => 2.138089935299395
 * sampleStd([5, 5, 5]);
 * // => 0
 * ```
 * @category Statistics
 */
export function sampleStd(values: ArrayLike<number>, start = 0, end: number = values.length): number {
  checkRange(values.length, start, end, "sampleStd");
  const scaled = scaledVariance(values, start, end);
  return Math.sqrt(scaled.variance) * scaled.scale;
}
