/**
 * Errors as data: one item per problem, in the shape of a FastAPI/pydantic v2
 * 422 response.
 * @module
 */

/**
 * One validation problem: where (`loc`, starting with `"body"`), what rule (`type`), and a message.
 * @category Types
 */
export interface ErrorItem {
  /** The rule broken, e.g. `missing`, `int_type`, `value_error`. */
  type: string;
  /** Where: `["body", field, index, …]`. */
  loc: (string | number)[];
  /** A readable message. */
  msg: string;
  /** The offending value, where pydantic reports it. */
  input?: unknown;
  /** The rule's parameters, e.g. `{ gt: 0 }`. */
  ctx?: Record<string, unknown>;
}

/**
 * Thrown by the core entry points on bad input; `.detail` is the 422 item list.
 *
 * @example
 * ```ts
 * const err = new ValidationError([{ type: "value_error", loc: ["body", "h"], msg: "Value error, h must be > 0" }]);
 * err.detail.length; // => 1
 * ```
 * @category Types
 */
export class ValidationError extends Error {
  /** The 422 items, every problem of the request at once, the first {@link MAX_ERROR_ITEMS} of them. */
  readonly detail: ErrorItem[];
  constructor(detail: ErrorItem[]) {
    const kept = detail.length > MAX_ERROR_ITEMS ? detail.slice(0, MAX_ERROR_ITEMS) : detail;
    super(kept.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ") || "validation error");
    this.name = "ValidationError";
    this.detail = kept;
  }
}

/**
 * Most items a 422 carries (every `ValidationError` keeps the first this many).
 * @category Types
 */
export const MAX_ERROR_ITEMS = 1000;

/**
 * A `value_error` item for a rule across fields, worded like pydantic's
 * (`"Value error, <message>"`).
 *
 * @example
 * ```ts
 * valueError(["body", "series", "sizes"], "sizes must sum to len(y) = 10").msg;
 * // => "Value error, sizes must sum to len(y) = 10"
 * ```
 * @category Types
 */
export function valueError(loc: (string | number)[], message: string, input?: unknown): ErrorItem {
  const item: ErrorItem = { type: "value_error", loc, msg: `Value error, ${message}` };
  if (input !== undefined) item.input = input;
  return item;
}

/**
 * The item for a value that should be an object with fields (the request
 * body, `series`) but is not, worded like pydantic v2's `model_attributes_type`.
 * The API, the series validator and `partition` all use it, so they agree.
 *
 * @example
 * ```ts
 * notAnObjectError(["body", "series"], 5).type; // => "model_attributes_type"
 * ```
 * @category Types
 */
export function notAnObjectError(loc: (string | number)[], input: unknown): ErrorItem {
  return { type: NOT_AN_OBJECT.type, loc, msg: NOT_AN_OBJECT.msg, input };
}

/**
 * Type and message of {@link notAnObjectError}.
 *
 * @example
 * ```ts
 * NOT_AN_OBJECT.msg; // => "Input should be a valid dictionary or object to extract fields from"
 * ```
 * @category Types
 */
export const NOT_AN_OBJECT: Readonly<{
  /** The item's `type`. */
  type: string;
  /** The item's `msg`. */
  msg: string;
}> = Object.freeze({
  type: "model_attributes_type",
  msg: "Input should be a valid dictionary or object to extract fields from",
});
