/**
 * Block means: how a network that reads half-hours sees finer data.
 * @module
 */

/**
 * The means of consecutive blocks of `blocks` values, the last block ending
 * at the last value (the oldest values that fill no block are left out); a
 * series shorter than a block is one block of its own (its mean), an empty
 * one has none.
 *
 * @example
 * ```ts
 * Array.from(blockMeansToEnd(Float64Array.of(9, 1, 3, 5, 7), 2)); // => [2, 6]
 * Array.from(blockMeansToEnd(Float64Array.of(1, 2), 30)); // => [1.5]
 * ```
 * @category Series
 */
export function blockMeansToEnd(values: ArrayLike<number>, blocks: number): Float64Array {
  const n = values.length;
  if (n === 0) return new Float64Array(0);
  const size = n < blocks ? n : blocks;
  const count = Math.floor(n / size);
  const from = n - count * size;
  const out = new Float64Array(count);
  for (let j = 0; j < count; j++) {
    let sum = 0;
    for (let t = from + j * size; t < from + (j + 1) * size; t++) sum += values[t] as number;
    out[j] = sum / size;
  }
  return out;
}
