/**
 * Validation of the series object of a request body (docs/contract.md §3) into `SeriesData`.
 * @module
 */
import { notAnObjectError, ValidationError, valueError, type ErrorItem } from "../errors.js";
import type { SeriesData } from "../types.js";
import { seriesOffsets } from "./pack.js";

const INT32_MAX = 2147483647;

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
}

/**
 * Result of {@link checkSeriesInput}: the typed data when there is no error, and every error found.
 * @category Series packing
 */
export interface SeriesInputCheck {
  /** The typed series, or `null` when `errors` is not empty. */
  readonly series: SeriesData | null;
  /** Typed `X_future` (empty when not given or when there are errors). */
  readonly Xfuture: Float64Array[];
  /** All problems found, as 422 items (empty when valid). */
  readonly errors: ErrorItem[];
}

function item(type: string, loc: (string | number)[], msg: string, input?: unknown, ctx?: Record<string, unknown>): ErrorItem {
  const out: ErrorItem = { type, loc, msg };
  if (input !== undefined) out.input = input;
  if (ctx !== undefined) out.ctx = ctx;
  return out;
}

/** A list-like value: a plain array or a numeric typed array (not a DataView). */
function asList(value: unknown): ArrayLike<unknown> | null {
  if (Array.isArray(value)) return value;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return value as unknown as ArrayLike<unknown>;
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

function own(record: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/**
 * Converts a list of finite numbers, adding a `float_type` (not a number, e.g. null or
 * "3") or `finite_number` (NaN, ±Infinity) item per bad element. Returns null when
 * the value is not a list (after adding `list_type`).
 */
function finiteList(value: unknown, loc: (string | number)[], errors: ErrorItem[]): Float64Array | null {
  const list = asList(value);
  if (list === null) {
    errors.push(item("list_type", loc, "Input should be a valid list", value));
    return null;
  }
  const out = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (typeof v !== "number") errors.push(item("float_type", [...loc, i], "Input should be a valid number", v === undefined ? null : v));
    else if (!Number.isFinite(v)) errors.push(item("finite_number", [...loc, i], "Input should be a finite number", v));
    else out[i] = v;
  }
  return out;
}

/** Converts `sizes`: integers >= 1 (strict: 1.5, "3", true are not integers). */
function sizesList(value: unknown, loc: (string | number)[], errors: ErrorItem[]): Int32Array | null {
  const list = asList(value);
  if (list === null) {
    errors.push(item("list_type", loc, "Input should be a valid list", value));
    return null;
  }
  if (list.length === 0) {
    errors.push(item("too_short", loc, "List should have at least 1 item after validation, not 0", [], { field_type: "List", min_length: 1, actual_length: 0 }));
    return null;
  }
  const out = new Int32Array(list.length);
  let ok = true;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    // Like the API: an integer beyond 2^53 cannot be read exactly, so it is not a valid integer.
    if (typeof v !== "number" || !Number.isSafeInteger(v)) {
      errors.push(item("int_type", [...loc, i], "Input should be a valid integer", v === undefined ? null : v));
      ok = false;
    } else if (v < 1) {
      errors.push(item("greater_than_equal", [...loc, i], "Input should be greater than or equal to 1", v, { ge: 1 }));
      ok = false;
    } else if (v > INT32_MAX) {
      errors.push(item("less_than_equal", [...loc, i], `Input should be less than or equal to ${INT32_MAX}`, v, { le: INT32_MAX }));
      ok = false;
    } else out[i] = v;
  }
  return ok ? out : null;
}

/**
 * A list of finite-number lists (X or X_future): null when the value is not a list;
 * otherwise one entry per feature, null where that feature is not a list.
 */
function featureLists(value: unknown, loc: (string | number)[], errors: ErrorItem[]): (Float64Array | null)[] | null {
  const list = asList(value);
  if (list === null) {
    errors.push(item("list_type", loc, "Input should be a valid list", value));
    return null;
  }
  const out: (Float64Array | null)[] = [];
  for (let k = 0; k < list.length; k++) out.push(finiteList(list[k], [...loc, k], errors));
  return out;
}

/**
 * Checks the series object of a request body (and `X_future`, when given) and converts it
 * to typed arrays, collecting every problem instead of stopping at the first. Never throws.
 *
 * Rules (docs/contract.md §3), each reported as a 422 item whose `loc` names the field and index:
 * - `series` must be an object (`missing` / `model_attributes_type`, as the API says); `y` and `sizes` are required (`missing`);
 * - `y` is a list (`list_type`) of finite numbers: a null, a string, NaN or ±Infinity is
 *   `float_type` / `finite_number` at `[..., "y", i]`;
 * - `sizes` is a non-empty list (`too_short`) of integers (`int_type`) >= 1
 *   (`greater_than_equal` at `[..., "sizes", i]`) that sum to `len(y)` (`value_error` at `[..., "sizes"]`);
 * - `X` (optional, null = absent) is a list of lists, each of `len(y)` finite numbers
 *   (`value_error` at `[..., "X", k]`, element errors at `[..., "X", k, j]`);
 * - `X_future` (optional) is a list of lists, one per feature of `X`, each of
 *   `len(sizes) · h` finite numbers (`value_error` at `["body", "X_future", k]`).
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
  const errors: ErrorItem[] = [];
  const fail = (): SeriesInputCheck => ({ series: null, Xfuture: [], errors });
  if (input === undefined) {
    errors.push(item("missing", loc, "Field required"));
    return fail();
  }
  if (!isRecord(input)) {
    errors.push(notAnObjectError(loc, input));
    return fail();
  }

  const rawY = own(input, "y");
  const rawSizes = own(input, "sizes");
  const rawX = own(input, "X");
  let y: Float64Array | null = null;
  let yLength: number | null = null;
  if (rawY === undefined) errors.push(item("missing", [...loc, "y"], "Field required"));
  else {
    const before = errors.length;
    y = finiteList(rawY, [...loc, "y"], errors);
    if (y !== null) yLength = y.length;
    if (errors.length > before) y = null;
  }

  let sizes: Int32Array | null = null;
  if (rawSizes === undefined) errors.push(item("missing", [...loc, "sizes"], "Field required"));
  else sizes = sizesList(rawSizes, [...loc, "sizes"], errors);

  if (sizes !== null) {
    let total = 0;
    for (let i = 0; i < sizes.length; i++) total += sizes[i] as number;
    if (yLength !== null && total !== yLength) {
      errors.push(valueError([...loc, "sizes"], `sizes must sum to len(y) = ${yLength}, got ${total}`));
    }
  }

  let X: (Float64Array | null)[] | null = [];
  if (rawX !== undefined && rawX !== null) {
    X = featureLists(rawX, [...loc, "X"], errors);
    if (X !== null && yLength !== null) {
      X.forEach((feature, k) => {
        if (feature !== null && feature.length !== yLength) {
          errors.push(valueError([...loc, "X", k], `X[${k}] must have len(y) = ${yLength} values, got ${feature.length}`));
        }
      });
    }
  }

  let Xfuture: Float64Array[] = [];
  if (options.XFuture !== undefined && options.XFuture !== null) {
    const futureLoc = [...(options.XFutureLoc ?? ["body", "X_future"])];
    const future = featureLists(options.XFuture, futureLoc, errors);
    if (future !== null) {
      Xfuture = future.filter((feature): feature is Float64Array => feature !== null);
      if (X !== null && future.length !== X.length) {
        errors.push(valueError(futureLoc, `X_future must have one array per feature of series.X (${X.length}), got ${future.length}`));
      }
      const h = options.h;
      if (sizes !== null && h !== undefined && Number.isInteger(h) && h > 0) {
        const need = sizes.length * h;
        future.forEach((feature, k) => {
          if (feature !== null && feature.length !== need) {
            errors.push(valueError([...futureLoc, k], `X_future[${k}] must have len(sizes) * h = ${need} values, got ${feature.length}`));
          }
        });
      }
    }
  }

  if (errors.length > 0 || y === null || sizes === null || X === null) return fail();
  const features = X.filter((feature): feature is Float64Array => feature !== null);
  // Sizes are now integers >= 1 summing to len(y), so the offsets fit.
  return { series: { y, sizes, offsets: seriesOffsets(sizes), X: features }, Xfuture, errors };
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
