/**
 * Missing observations: the fill rule that turns a series with gaps (null or
 * NaN in a request's `y`) into one the model can read.
 * @module
 */

/**
 * Fills the missing points of every series in place, series by series: a
 * point between two observed points is the straight line between them
 * (linear interpolation in the row index, the series being evenly spaced); a
 * point before the first observed point takes the first observed value,
 * a point after the last observed point the last one. Observed points are
 * never changed. Cost O(len(y)), no allocation.
 *
 * @param y - the values (the missing ones may hold anything); filled in place.
 * @param offsets - series i is y[offsets[i] .. offsets[i + 1]).
 * @param missing - 1 where y is missing, 0 where observed (same length as y).
 * @returns the index of each series with no observed point (left unfilled), empty when every series has one.
 * @throws RangeError when `missing` and `y` differ in length.
 *
 * @example
 * ```ts
 * const y = Float64Array.of(0, 2, 0, 0, 8, 0, 5, 0, 0);
 * const missing = Uint8Array.of(1, 0, 1, 1, 0, 1, 0, 1, 1);
 * fillMissing(y, Int32Array.of(0, 6, 9), missing); // => []
 * Array.from(y); // => [2, 2, 4, 6, 8, 8, 5, 5, 5]
 * fillMissing(Float64Array.of(0, 0), Int32Array.of(0, 2), Uint8Array.of(1, 1)); // => [0]
 * ```
 * @category Series
 */
export function fillMissing(y: Float64Array, offsets: Int32Array, missing: Uint8Array): number[] {
  if (missing.length !== y.length) throw new RangeError(`fillMissing: missing has ${missing.length} flags for ${y.length} values`);
  const empty: number[] = [];
  for (let i = 0; i + 1 < offsets.length; i++) {
    const start = offsets[i]!;
    const end = offsets[i + 1]!;
    let previous = -1; // last observed row so far
    for (let t = start; t < end; t++) {
      if (missing[t] === 1) continue;
      if (previous < 0) {
        for (let s = start; s < t; s++) y[s] = y[t]!; // before the first observation
      } else if (t - previous > 1) {
        // a weighted mean of the two neighbours, which cannot overflow for finite values
        const from = y[previous]!;
        const to = y[t]!;
        const gap = t - previous;
        for (let s = previous + 1; s < t; s++) {
          const w = (s - previous) / gap;
          y[s] = from * (1 - w) + to * w;
        }
      }
      previous = t;
    }
    if (previous < 0) {
      empty.push(i);
      continue;
    }
    for (let s = previous + 1; s < end; s++) y[s] = y[previous]!; // after the last observation
  }
  return empty;
}
