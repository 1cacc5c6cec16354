/**
 * Many series as one flat array: packing, offsets, views, and the feature-major
 * exogenous layout.
 * @module
 */
import type { SeriesData } from "../types.js";

const INT32_MAX = 2147483647;

/**
 * Start offsets of packed series: `offsets[i]` is where series i starts in `y` and
 * `offsets[sizes.length]` is the total length.
 *
 * Formula: offsets[0] = 0, offsets[i + 1] = offsets[i] + sizes[i] (a prefix sum).
 *
 * Cost: O(k) for k series.
 *
 * @param sizes - Length of each series (non-negative integers). Never mutated.
 * @returns An `Int32Array` of `sizes.length + 1` offsets.
 * @throws RangeError when a size is not a non-negative integer or the total exceeds 2³¹ − 1.
 *
 * @example
 * ```ts
 * Array.from(seriesOffsets([3, 1, 2]));
 * // => [0, 3, 4, 6]
 * ```
 * @category Series packing
 */
export function seriesOffsets(sizes: ArrayLike<number>): Int32Array {
  const offsets = new Int32Array(sizes.length + 1);
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    const size = sizes[i] as number;
    if (!Number.isInteger(size) || size < 0) throw new RangeError(`seriesOffsets: sizes[${i}] must be a non-negative integer, got ${size}`);
    total += size;
    if (total > INT32_MAX) throw new RangeError(`seriesOffsets: the total length exceeds ${INT32_MAX}`);
    offsets[i + 1] = total;
  }
  return offsets;
}

/**
 * Many series packed into one array.
 * @category Series packing
 */
export interface PackedSeries {
  /** Values of all series, concatenated. */
  y: Float64Array;
  /** Length of each series. */
  sizes: Int32Array;
}

/**
 * Packs a list of series into one `y` (the series concatenated in order) and their `sizes`.
 *
 * Cost: O(n) time for n values in total; one allocation of n doubles.
 *
 * @param list - The series (arrays or typed arrays of numbers). Never mutated.
 * @returns `{ y, sizes }` with `y.length === sum(sizes)`.
 * @throws RangeError when the total length exceeds 2³¹ − 1.
 *
 * @example
 * ```ts
 * const { y, sizes } = packSeries([[1, 2, 3], [10, 20]]);
 * Array.from(y);     // => [1, 2, 3, 10, 20]
 * Array.from(sizes); // => [3, 2]
 * ```
 * @category Series packing
 */
export function packSeries(list: readonly ArrayLike<number>[]): PackedSeries {
  const sizes = new Int32Array(list.length);
  let total = 0;
  for (let i = 0; i < list.length; i++) {
    const length = (list[i] as ArrayLike<number>).length;
    total += length;
    if (total > INT32_MAX) throw new RangeError(`packSeries: the total length exceeds ${INT32_MAX}`);
    sizes[i] = length;
  }
  const y = new Float64Array(total);
  let offset = 0;
  for (let i = 0; i < list.length; i++) {
    const series = list[i] as ArrayLike<number>;
    for (let t = 0; t < series.length; t++) y[offset + t] = series[t] as number;
    offset += series.length;
  }
  return { y, sizes };
}

/**
 * Splits a packed `y` back into one array per series (copies, independent of `y`).
 * For a view without copying use {@link seriesView}.
 *
 * Cost: O(n) time and memory.
 *
 * @param y - Packed values. Never mutated.
 * @param sizes - Length of each series; must sum to `y.length`.
 * @returns One `Float64Array` per series.
 * @throws RangeError when the sizes are invalid or do not sum to `y.length`.
 *
 * @example
 * ```ts
 * unpackSeries(new Float64Array([1, 2, 3, 10, 20]), [3, 2]).map((s) => Array.from(s));
 * // => [[1, 2, 3], [10, 20]]
 * ```
 * @category Series packing
 */
export function unpackSeries(y: ArrayLike<number>, sizes: ArrayLike<number>): Float64Array[] {
  const offsets = seriesOffsets(sizes);
  if (offsets[sizes.length] !== y.length) {
    throw new RangeError(`unpackSeries: sizes sum to ${offsets[sizes.length]} but y has ${y.length} values`);
  }
  const out: Float64Array[] = new Array<Float64Array>(sizes.length);
  for (let i = 0; i < sizes.length; i++) {
    const start = offsets[i] as number;
    const series = new Float64Array((offsets[i + 1] as number) - start);
    for (let t = 0; t < series.length; t++) series[t] = y[start + t] as number;
    out[i] = series;
  }
  return out;
}

/**
 * Series i of a packed `y` as a view (`subarray`): no copy, so writes to the view
 * write to `y`. This is how contexts are handed to a forecaster.
 *
 * Cost: O(1).
 *
 * @param y - Packed values.
 * @param offsets - From {@link seriesOffsets} (length k + 1).
 * @param i - Series index, 0 <= i < k.
 * @returns `y.subarray(offsets[i], offsets[i + 1])`.
 * @throws RangeError when i is not a valid series index or the offsets fall outside `y`.
 *
 * @example
 * ```ts
 * const y = new Float64Array([1, 2, 3, 10, 20]);
 * Array.from(seriesView(y, seriesOffsets([3, 2]), 1));
 * // => [10, 20]
 * ```
 * @category Series packing
 */
export function seriesView(y: Float64Array, offsets: Int32Array, i: number): Float64Array {
  if (!Number.isInteger(i) || i < 0 || i >= offsets.length - 1) {
    throw new RangeError(`seriesView: series index ${i} is outside 0..${offsets.length - 2}`);
  }
  const start = offsets[i] as number;
  const end = offsets[i + 1] as number;
  if (start < 0 || end > y.length || start > end) throw new RangeError(`seriesView: offsets [${start}, ${end}) fall outside y (length ${y.length})`);
  return y.subarray(start, end);
}

/**
 * The series that row `row` of a packed `y` belongs to (binary search in the offsets).
 * Empty series are skipped: the result is the i with offsets[i] <= row < offsets[i + 1].
 *
 * Cost: O(log k).
 *
 * @param offsets - From {@link seriesOffsets}.
 * @param row - Row of `y`, 0 <= row < offsets[k].
 * @returns The series index.
 * @throws RangeError when the row is outside the packed data.
 *
 * @example
 * ```ts
 * seriesOfRow(seriesOffsets([3, 2]), 3);
 * // => 1
 * ```
 * @category Series packing
 */
export function seriesOfRow(offsets: Int32Array, row: number): number {
  const k = offsets.length - 1;
  if (!Number.isInteger(row) || row < 0 || k < 0 || row >= (offsets[k] as number)) {
    throw new RangeError(`seriesOfRow: row ${row} is outside the packed data`);
  }
  let lo = 0;
  let hi = k - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((offsets[mid] as number) <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Builds a `SeriesData` from already packed typed arrays, checking that they agree
 * (for code and tests; raw JSON-ish series objects go through {@link validateSeriesInput}, and API request bodies through the schemas of src/api).
 * `y` and the `X` arrays are used as given, not copied.
 *
 * Cost: O(k) for k series (X lengths are compared, their values not scanned).
 *
 * @param y - Packed values.
 * @param sizes - Length of each series (each >= 1), summing to `y.length`.
 * @param X - Feature-major exogenous values, each of length `y.length` (default none).
 * @returns The `SeriesData`.
 * @throws RangeError when a size is < 1, the sizes do not sum to `y.length`, or an `X[k]` has the wrong length.
 *
 * @example
 * ```ts
 * const s = makeSeriesData(new Float64Array([1, 2, 3, 4, 5]), [2, 3]);
 * Array.from(s.offsets);
 * // => [0, 2, 5]
 * ```
 * @category Series packing
 */
export function makeSeriesData(y: Float64Array, sizes: ArrayLike<number>, X: readonly Float64Array[] = []): SeriesData {
  const offsets = seriesOffsets(sizes);
  for (let i = 0; i < sizes.length; i++) {
    if ((sizes[i] as number) < 1) throw new RangeError(`makeSeriesData: sizes[${i}] must be >= 1, got ${sizes[i]}`);
  }
  if (offsets[sizes.length] !== y.length) {
    throw new RangeError(`makeSeriesData: sizes sum to ${offsets[sizes.length]} but y has ${y.length} values`);
  }
  X.forEach((feature, k) => {
    if (feature.length !== y.length) throw new RangeError(`makeSeriesData: X[${k}] has ${feature.length} values, y has ${y.length}`);
  });
  return { y, sizes: Int32Array.from(sizes), offsets, X: [...X] };
}

/**
 * Builds a `SeriesData` from a list of series and, optionally, their exogenous features
 * (`features[i][k]` = feature k of series i, with the length of series i).
 *
 * Cost: O(n·(1 + features)).
 *
 * @param list - The series (each with at least one value). Never mutated.
 * @param features - Per-series features, or omitted for none. Never mutated.
 * @returns The packed `SeriesData` (X feature-major, see {@link packFeatures}).
 * @throws RangeError when a series is empty or the features do not match the series.
 *
 * @example
 * ```ts
 * const s = seriesDataFromList([[1, 2], [3, 4, 5]], [[[0, 1]], [[1, 0, 1]]]);
 * Array.from(s.X[0]!);
 * // => [0, 1, 1, 0, 1]
 * ```
 * @category Series packing
 */
export function seriesDataFromList(
  list: readonly ArrayLike<number>[],
  features?: readonly (readonly ArrayLike<number>[])[],
): SeriesData {
  const { y, sizes } = packSeries(list);
  const X = features === undefined ? [] : packFeatures(features, sizes);
  return makeSeriesData(y, sizes, X);
}

/**
 * Packs per-series features into the feature-major layout: `X[k]` is feature k of every
 * series, series after series (so `X[k][row]` belongs to row `row` of `y`). The same
 * layout serves `X_future`, with h values per series instead of `sizes[i]`.
 *
 * Cost: O(n · features).
 *
 * @param perSeries - `perSeries[i][k]` = feature k of series i. Every series must have the same number of features. Never mutated.
 * @param lengths - Expected length of each series' feature arrays (`sizes`, or h for each series); default: taken from the first feature of each series.
 * @returns One `Float64Array` per feature.
 * @throws RangeError when the series disagree on the number of features or a length does not match.
 *
 * @example
 * ```ts
 * packFeatures([[[1, 2], [5, 6]], [[3], [7]]]).map((f) => Array.from(f));
 * // => [[1, 2, 3], [5, 6, 7]]
 * ```
 * @category Series packing
 */
export function packFeatures(perSeries: readonly (readonly ArrayLike<number>[])[], lengths?: ArrayLike<number>): Float64Array[] {
  const k = perSeries.length;
  if (k === 0) return [];
  const featureCount = (perSeries[0] as readonly ArrayLike<number>[]).length;
  const seriesLengths = new Int32Array(k);
  let total = 0;
  for (let i = 0; i < k; i++) {
    const features = perSeries[i] as readonly ArrayLike<number>[];
    if (features.length !== featureCount) throw new RangeError(`packFeatures: series ${i} has ${features.length} features, series 0 has ${featureCount}`);
    const length = lengths !== undefined ? (lengths[i] as number) : featureCount > 0 ? (features[0] as ArrayLike<number>).length : 0;
    for (let f = 0; f < featureCount; f++) {
      const got = (features[f] as ArrayLike<number>).length;
      if (got !== length) throw new RangeError(`packFeatures: feature ${f} of series ${i} has ${got} values, expected ${length}`);
    }
    seriesLengths[i] = length;
    total += length;
  }
  const X: Float64Array[] = [];
  for (let f = 0; f < featureCount; f++) {
    const column = new Float64Array(total);
    let offset = 0;
    for (let i = 0; i < k; i++) {
      const values = (perSeries[i] as readonly ArrayLike<number>[])[f] as ArrayLike<number>;
      for (let t = 0; t < values.length; t++) column[offset + t] = values[t] as number;
      offset += seriesLengths[i] as number;
    }
    X.push(column);
  }
  return X;
}

/**
 * Feature k of series i of a `SeriesData`, as a view into `X[k]` (no copy).
 *
 * Cost: O(1).
 *
 * @param series - The packed series.
 * @param k - Feature index.
 * @param i - Series index.
 * @returns `series.X[k].subarray(offsets[i], offsets[i + 1])`.
 * @throws RangeError when k or i is out of range.
 *
 * @example
 * ```ts
 * const s = seriesDataFromList([[1, 2], [3, 4, 5]], [[[0, 1]], [[1, 0, 1]]]);
 * Array.from(featureView(s, 0, 1));
 * // => [1, 0, 1]
 * ```
 * @category Series packing
 */
export function featureView(series: SeriesData, k: number, i: number): Float64Array {
  const feature = series.X[k];
  if (feature === undefined || !Number.isInteger(k)) throw new RangeError(`featureView: feature index ${k} is outside 0..${series.X.length - 1}`);
  return seriesView(feature, series.offsets, i);
}

/**
 * The h future values of feature k for series i in the `X_future` layout
 * (`Xfuture[k]` holds h values per series, series after series), as a view.
 *
 * Cost: O(1).
 *
 * @param Xfuture - Feature-major future values, each of length (number of series)·h.
 * @param k - Feature index.
 * @param i - Series index.
 * @param h - Forecast horizon (values per series).
 * @returns `Xfuture[k].subarray(i·h, (i + 1)·h)`.
 * @throws RangeError when k, i or h is out of range.
 *
 * @example
 * ```ts
 * const Xf = [new Float64Array([1, 2, 3, 4, 5, 6])];   // 2 series, h = 3
 * Array.from(futureFeatureView(Xf, 0, 1, 3));
 * // => [4, 5, 6]
 * ```
 * @category Series packing
 */
export function futureFeatureView(Xfuture: readonly Float64Array[], k: number, i: number, h: number): Float64Array {
  const feature = Xfuture[k];
  if (feature === undefined || !Number.isInteger(k)) throw new RangeError(`futureFeatureView: feature index ${k} is outside 0..${Xfuture.length - 1}`);
  if (!Number.isInteger(h) || h < 1) throw new RangeError(`futureFeatureView: h must be an integer >= 1, got ${h}`);
  if (!Number.isInteger(i) || i < 0 || (i + 1) * h > feature.length) {
    throw new RangeError(`futureFeatureView: series ${i} with h = ${h} is outside X_future[${k}] (length ${feature.length})`);
  }
  return feature.subarray(i * h, (i + 1) * h);
}
