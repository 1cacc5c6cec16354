/**
 * The series object of a request body (docs/contract.md §3) read into
 * `SeriesData` with the API's own schema and rules: one reader for the
 * service, the core entry points and `partition`.
 * @module
 */
import { ValidationError, valueError, type ErrorItem } from "./errors.js";
import type { SeriesData } from "../types.js";
import { ErrorCollector, INVALID, isArrayLike, isJsonObject, ownProperty, validateAgainst } from "./schema-validator.js";
import { FEATURE_MATRIX_SCHEMA, SERIES_SCHEMA } from "./schemas.js";
import { seriesLengthRules, toSeriesData, xFutureRules, type ValidatedSeries } from "./requests.js";

/**
 * Options of {@link checkSeriesInput} and {@link validateSeriesInput}.
 * @category Series packing
 */
export interface SeriesInputOptions {
  /** Where the series object sits in the request (default `["body", "series"]`). */
  readonly loc?: readonly (string | number)[];
  /** The raw `X_future` value of the body, if the endpoint takes one (absent, `undefined` or `null`: none). */
  readonly XFuture?: unknown;
  /** Where `X_future` sits (default `["body", "X_future"]`). */
  readonly XFutureLoc?: readonly (string | number)[];
  /** Forecast horizon, needed to check the length of each `X_future[k]` (sizes.length · h). */
  readonly h?: number;
  /** The raw `hist_exog` of the body: features listed there need no `X_future` array (or an empty one). */
  readonly histExog?: unknown;
  /**
   * Reads everything but the items of `y` (which must still be a list or typed array, whose length the rules use):
   * the caller checks them itself, a part at a time. No typed series is built (`series` is null). Cost: O(sizes + X).
   */
  readonly structureOnly?: boolean;
}

/**
 * Result of {@link checkSeriesInput}: the typed data when there is no error, and every error found.
 * @category Series packing
 */
export interface SeriesInputCheck {
  /** The typed series, or `null` when `errors` is not empty (or the check read the structure only). */
  readonly series: SeriesData | null;
  /** Typed `X_future` (empty when not given or when there are errors). */
  readonly Xfuture: Float64Array[];
  /** All problems found, as 422 items (empty when valid). */
  readonly errors: ErrorItem[];
}

/** A value validated alone (its items discarded), or null when invalid. */
function quietly(schema: Parameters<typeof validateAgainst>[0], value: unknown): unknown {
  const r = validateAgainst(schema, value, [], new ErrorCollector());
  return r === INVALID ? null : r;
}

/**
 * Checks the series object of a request body (and `X_future`, when given) and converts it
 * to typed arrays, collecting every problem instead of stopping at the first. Never throws.
 * It is the API's own reader: the fields are checked by the request schema's
 * `SERIES_SCHEMA` (the items the API answers), then the rules across fields
 * that can be judged (the API checks these only once every field is valid).
 *
 * Rules (docs/contract.md §3), each reported as a 422 item whose `loc` names the field and index:
 * - `series` must be an object (`missing` / `model_attributes_type`, as the API says); `y` and `sizes` are required (`missing`);
 * - `y` is a list (`list_type`) of finite numbers: a null, a string, NaN or ±Infinity is
 *   `float_type` / `finite_number` at `[..., "y", i]` (the strict form; a forecast or
 *   cross-validation body also takes null and NaN as missing values, see `missingObservations`);
 * - `sizes` is a non-empty list (`too_short`) of integers (`int_type`) >= 1
 *   (`greater_than_equal` at `[..., "sizes", i]`) that sum to `len(y)` (`value_error` at `[..., "sizes"]`);
 * - `X` (optional, null = absent) is a list of lists, each of `len(y)` finite numbers
 *   (`value_error` at `[..., "X", k]`, element errors at `[..., "X", k, j]`);
 * - `X_future` (optional) is a list of lists, one per feature of `X` or per
 *   feature not in `hist_exog`, each of `len(sizes) · h` finite numbers
 *   (`value_error` at `["body", "X_future", k]`), as the API's `xFutureRules` say.
 *
 * Cost: O(n · (1 + features)) for n rows.
 *
 * @param input - The raw `series` value of the body (parsed JSON, or typed arrays). Never mutated.
 * @param options - Locations, the raw `X_future` and the horizon h.
 * @returns The typed series (or null) and every error found.
 *
 * @example
 * ```ts
 * const check = checkSeriesInput({ y: [1, null, 3], sizes: [2] });
 * check.errors.map((e) => `${e.type} ${e.loc.join(".")}`);
 * // => ["float_type body.series.y.1", "value_error body.series.sizes"]
 * checkSeriesInput({ y: [1, 2, 3], sizes: [1, 2] }).series?.offsets;
 * // => Int32Array(3) [0, 1, 3]
 * ```
 * @category Series packing
 */
export function checkSeriesInput(input: unknown, options: SeriesInputOptions = {}): SeriesInputCheck {
  const loc = [...(options.loc ?? ["body", "series"])];
  const collector = new ErrorCollector();
  const fail = (): SeriesInputCheck => ({ series: null, Xfuture: [], errors: collector.items });
  if (input === undefined) {
    collector.add({ type: "missing", loc, msg: "Field required" });
    return fail();
  }
  const rawY = isJsonObject(input) ? ownProperty(input, "y") : undefined;
  const yLength = isArrayLike(rawY) ? rawY.length : null;
  // the structure alone: y's items are not read (an empty list in its place), its length is
  const structureOnly = options.structureOnly === true && yLength !== null;
  const value = validateAgainst(SERIES_SCHEMA, structureOnly ? { ...(input as object), y: [] } : input, loc, collector);
  const errors: ErrorItem[] = [];
  // Rules across fields, wherever their fields can be read.
  // the sizes as validated, or (when something else in the series is invalid) validated alone
  const sizes = value !== INVALID ? (value as ValidatedSeries).sizes : isJsonObject(input) ? (quietly(SERIES_SCHEMA.properties.sizes, ownProperty(input, "sizes")) as number[] | null) : null;
  const rawX = isJsonObject(input) ? ownProperty(input, "X") : undefined;
  const features = isArrayLike(rawX) ? rawX.length : rawX === undefined || rawX === null ? 0 : null;
  if (yLength !== null) {
    const featureLengths = isArrayLike(rawX) ? Array.from(rawX, (f) => (isArrayLike(f) ? f.length : null)) : [];
    seriesLengthRules(yLength, sizes, featureLengths, loc, errors);
  }
  let Xfuture: Float64Array[] = [];
  if (options.XFuture !== undefined && options.XFuture !== null) {
    const futureLoc = [...(options.XFutureLoc ?? ["body", "X_future"])];
    const future = validateAgainst(FEATURE_MATRIX_SCHEMA, options.XFuture, futureLoc, collector);
    if (isArrayLike(options.XFuture)) {
      const rawFuture = options.XFuture;
      if (future !== INVALID) Xfuture = future as Float64Array[];
      if (features !== null) {
        // the API's own rules (xFutureRules), at this reader's location of X_future
        const h = options.h;
        const need = sizes !== null && h !== undefined && Number.isInteger(h) && h > 0 ? sizes.length * h : null;
        const lengths = Array.from(rawFuture, (f) => (isArrayLike(f) ? f.length : null));
        xFutureRules(features, histExogIndices(options.histExog), lengths, need, futureLoc, errors);
      }
    }
  }
  for (const e of errors) collector.add(e);
  if (collector.items.length > 0 || value === INVALID) return fail();
  if (structureOnly) return { series: null, Xfuture, errors: [] };
  return { series: toSeriesData(value as ValidatedSeries), Xfuture, errors: collector.items };
}

/** The raw `hist_exog` as indices when it is a list of integers (the schema judges it otherwise), else null. */
function histExogIndices(raw: unknown): number[] | null {
  return Array.isArray(raw) && raw.every((k) => Number.isInteger(k)) ? (raw as number[]) : null;
}

/**
 * Validates the series object of a request body into the typed `SeriesData`, or throws a
 * `ValidationError` whose `.detail` lists every problem (see {@link checkSeriesInput} for
 * the rules and locations). When `options.XFuture` is given it is checked too; use
 * {@link checkSeriesInput} to also get its typed arrays.
 *
 * Cost: O(n · (1 + features)).
 *
 * @param input - The raw `series` value (parsed JSON). Never mutated.
 * @param options - Locations, the raw `X_future` and the horizon h.
 * @returns The typed series.
 * @throws ValidationError listing all problems of the input.
 *
 * @example
 * ```ts
 * const s = validateSeriesInput({ y: [1, 2, 3, 4, 5], sizes: [2, 3], X: [[0, 1, 0, 1, 0]] });
 * Array.from(s.offsets);
 * // => [0, 2, 5]
 * const bad = checkSeriesInput({ y: [1, 2], sizes: [0, 2] }); // what validateSeriesInput throws as ValidationError.detail
 * bad.errors[0]!.loc;
 * // => ["body", "series", "sizes", 0]
 * ```
 * @category Series packing
 */
export function validateSeriesInput(input: unknown, options: SeriesInputOptions = {}): SeriesData {
  const check = checkSeriesInput(input, options);
  if (check.series === null) throw new ValidationError(check.errors);
  return check.series;
}
