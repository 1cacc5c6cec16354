/**
 * Large work arrays kept between the synchronous calls of one thread: a
 * `Float64Array` of several megabytes made afresh each call costs its first
 * writes' page faults (about 0.8 ms per MB here), which a kept one does not.
 * @module
 */

/**
 * A few `Float64Array`s kept for reuse, by length. `take(n)` hands out a kept
 * array of exactly n values (its contents left from its last use) or a new
 * zeroed one; `give(a)` keeps `a` for a later `take` while the values kept
 * stay within `maxValues` (otherwise `a` is left to the garbage collector).
 * An array handed out is not kept until it is given back, so nested calls
 * never share one.
 *
 * @example
 * ```ts
 * const cache = new ArrayCache(1_000);
 * const a = cache.take(100);
 * cache.give(a);
 * cache.take(100) === a; // => true
 * cache.take(100) === a; // handed out already: a new one
 * // => false
 * ```
 * @category Statistics
 */
export class ArrayCache {
  private readonly kept = new Map<number, Float64Array[]>();
  private values = 0;

  /** @param maxValues - Most values kept at once (an integer >= 0). */
  constructor(private readonly maxValues: number) {
    if (!Number.isInteger(maxValues) || maxValues < 0) throw new RangeError(`ArrayCache: maxValues must be an integer >= 0, got ${String(maxValues)}`);
  }

  /** A kept array of `length` values (its old contents) or a new zeroed one. */
  take(length: number): Float64Array {
    const list = this.kept.get(length);
    const kept = list?.pop();
    if (kept === undefined) return new Float64Array(length);
    this.values -= length;
    return kept;
  }

  /** Keeps the arrays for later `take`s, as far as `maxValues` allows. */
  give(...arrays: Float64Array[]): void {
    for (const a of arrays) {
      if (this.values + a.length > this.maxValues || a.byteOffset !== 0 || a.length * 8 !== a.buffer.byteLength) continue;
      let list = this.kept.get(a.length);
      if (list === undefined) this.kept.set(a.length, (list = []));
      if (list.includes(a)) continue;
      list.push(a);
      this.values += a.length;
    }
  }
}

/**
 * This thread's kept work arrays of the pipelines (the spreads of their
 * cross-validation windows, the anomaly judges' opinions): at most 4 million
 * values (32 MB) kept between calls. Made afresh, the spreads of one anomaly
 * call of 300 series × 1,000 points (12.9 MB) cost about 10 ms of page
 * faults at their first writes.
 * @category Statistics
 */
export const PIPELINE_ARRAYS = new ArrayCache(4_000_000);

/** `PIPELINE_ARRAYS.take`, as `crossValidate`'s `allocateSpread`. */
export const pipelineSpread = (length: number): Float64Array => PIPELINE_ARRAYS.take(length);

