/**
 * Compensated (Neumaier) summation.
 * @module
 */
import { checkRange } from "./range.js";

/**
 * Sum of `values[start .. end-1]` with Neumaier's compensated summation.
 *
 * Method: a running sum plus a running compensation term that collects the
 * low-order bits each addition loses (the improved Kahan–Babuška algorithm, which
 * also handles a new term larger than the running sum). The result is as accurate
 * as if the sum were computed in twice the working precision and then rounded,
 * independent of the number of terms (for sums that do not cancel catastrophically).
 *
 * Non-finite values propagate as in plain summation (any NaN gives NaN,
 * `Infinity + -Infinity` gives NaN). An empty range sums to 0.
 *
 * Reference: A. Neumaier (1974), "Rundungsfehleranalyse einiger Verfahren zur
 * Summation endlicher Summen", ZAMM 54, 39–51.
 *
 * Cost: O(n) time, O(1) extra memory.
 *
 * @param values - The numbers (any array-like: `number[]`, `Float64Array`, ...). Never mutated.
 * @param start - First index included (default 0).
 * @param end - One past the last index included (default `values.length`).
 * @returns The compensated sum.
 * @throws RangeError when `start`/`end` are not integers with `0 <= start <= end <= values.length`.
 *
 * @example
 * ```ts
 * compensatedSum([1, 1e100, 1, -1e100]);
 * // => 2   (plain left-to-right summation gives 0)
 * compensatedSum(new Float64Array([1, 2, 3, 4]), 1, 3);
 * // => 5
 * ```
 * @category Statistics
 */
export function compensatedSum(values: ArrayLike<number>, start = 0, end: number = values.length): number {
  checkRange(values.length, start, end, "compensatedSum");
  return scaledCompensatedSum(values, start, end, 1);
}

/**
 * Neumaier sum of `values[i] / divisor` over `[start, end)` (range already
 * checked): `meanOf` divides each term by n when the plain sum overflows.
 * `x / 1` is exact, so divisor 1 is {@link compensatedSum}.
 * @category Statistics
 */
export function scaledCompensatedSum(values: ArrayLike<number>, start: number, end: number, divisor: number): number {
  let sum = 0;
  let compensation = 0;
  for (let i = start; i < end; i++) {
    const x = (values[i] as number) / divisor;
    const t = sum + x;
    // The smaller-magnitude operand loses its low-order bits: recover them exactly.
    if (Math.abs(sum) >= Math.abs(x)) compensation += sum - t + x;
    else compensation += x - t + sum;
    sum = t;
  }
  const total = sum + compensation;
  // With infinities the compensation is NaN; plain summation is the right answer there.
  return Number.isFinite(total) ? total : sum;
}
