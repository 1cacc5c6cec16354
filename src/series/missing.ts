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

/**
 * The warning of a forecast whose y had missing values: how many of how many
 * were filled, and how.
 *
 * @example
 * ```ts
 * missingValuesWarning(3, 16).startsWith("3 of 16 values of y were missing (null or NaN) and were filled linearly"); // => true
 * ```
 * @category Series
 */
export function missingValuesWarning(filled: number, total: number): string {
  return `${filled} of ${total} ${MISSING_VALUES_WORDING}`;
}

/** The fixed part of {@link missingValuesWarning}'s text, after its counts. */
const MISSING_VALUES_WORDING = "values of y were missing (null or NaN) and were filled linearly between their observed neighbours (the nearest observed value at a series' ends); the intervals are calibrated on observed values only";

/**
 * Whether a warning is one {@link missingValuesWarning} wrote (whatever its
 * counts): a request made of several forecasts replaces theirs by one.
 *
 * @example
 * ```ts
 * isMissingValuesWarning(missingValuesWarning(3, 16)); // => true
 * isMissingValuesWarning("h exceeds the model horizon"); // => false
 * ```
 * @category Series
 */
export function isMissingValuesWarning(warning: string): boolean {
  return warning.endsWith(MISSING_VALUES_WORDING) && /^\d+ of \d+ $/.test(warning.slice(0, warning.length - MISSING_VALUES_WORDING.length));
}

/**
 * How many points a missing-value mask marks (1 = filled); 0 without a mask.
 *
 * @example
 * ```ts
 * missingCount(Uint8Array.of(0, 1, 1, 0)); // => 2
 * missingCount(undefined); // => 0
 * ```
 * @category Series
 */
export function missingCount(missing: Uint8Array | undefined): number {
  let count = 0;
  if (missing !== undefined) for (let t = 0; t < missing.length; t++) count += missing[t]!;
  return count;
}
