/**
 * Internal helpers shared by the stats functions (not exported from the library).
 * @module
 */

/**
 * Checks a `[start, end)` range over an array of `length` values and returns it.
 * Throws `RangeError` for non-integer or out-of-bounds indices (programmer misuse).
 * @category Statistics
 */
export function checkRange(length: number, start: number, end: number, where: string): void {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > length || start > end) {
    throw new RangeError(`${where}: range [${start}, ${end}) must satisfy 0 <= start <= end <= ${length}`);
  }
}

/**
 * Throws `RangeError` unless `p` is a probability in [0, 1].
 * @category Statistics
 */
export function checkProbability(p: number, where: string): void {
  if (!(p >= 0 && p <= 1)) {
    throw new RangeError(`${where}: p must be a probability in [0, 1], got ${p}`);
  }
}
