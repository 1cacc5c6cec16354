/**
 * Historical anomaly flags: the fitted points of a historic (in-sample)
 * forecast whose actual value lies outside their interval. The API's
 * POST /v2/anomaly_detection composes the historic forecast at one level
 * with these flags.
 * @module
 */

/**
 * Positions in the request's `y` of the rows of a result that covers the
 * last `outputSizes[i]` points of each series `i` (laid out by
 * `inputSizes`), series after series.
 *
 * @example
 * ```ts
 * tailRowIndices([3, 4], [2, 1]); // => [1, 2, 6]
 * ```
 * @category Historic forecasts
 */
export function tailRowIndices(inputSizes: readonly number[], outputSizes: readonly number[]): number[] {
  const rows: number[] = [];
  let end = 0;
  inputSizes.forEach((n, i) => {
    end += n;
    const m = outputSizes[i] ?? 0;
    for (let k = 0; k < m; k++) rows.push(end - m + k);
  });
  return rows;
}

/**
 * Flags the fitted points of a historic forecast whose actual value lies
 * outside their interval: `anomaly[r]` is `y < lo[r] || y > hi[r]` for row
 * `r`, where the rows of series `i` are the last `outputSizes[i]` points of
 * that series in `y` (laid out by `inputSizes`; see {@link tailRowIndices}).
 * A point marked in `missing` (1: filled, it has no actual value) is never
 * flagged; without bounds (no interval at that level) nothing is.
 *
 * @param y - the request's values, series after series.
 * @param inputSizes - the length of each series in `y`.
 * @param outputSizes - the fitted rows of each series (the result's `sizes`).
 * @param lo - lower bound of each row, or undefined.
 * @param hi - upper bound of each row, or undefined.
 * @param missing - 1 where `y` was filled, per position of `y` (or null).
 *
 * @example
 * ```ts
 * historicAnomalyFlags(Float64Array.of(1, 2, 9), [3], [2], [1, 1], [3, 3], null); // => [false, true]
 * historicAnomalyFlags(Float64Array.of(1, 2, 9), [3], [2], [1, 1], [3, 3], Uint8Array.of(0, 0, 1)); // => [false, false]
 * ```
 * @category Historic forecasts
 */
export function historicAnomalyFlags(
  y: ArrayLike<number>,
  inputSizes: readonly number[],
  outputSizes: readonly number[],
  lo: ArrayLike<number> | undefined,
  hi: ArrayLike<number> | undefined,
  missing: Uint8Array | null,
): boolean[] {
  const rows = tailRowIndices(inputSizes, outputSizes);
  if (lo === undefined || hi === undefined) return rows.map(() => false);
  return rows.map((t, r) => (missing === null || missing[t] !== 1) && ((y[t] as number) < (lo[r] as number) || (y[t] as number) > (hi[r] as number)));
}
