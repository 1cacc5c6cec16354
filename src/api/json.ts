/**
 * Request bodies as JSON: decoding (string, bytes or an already parsed value),
 * locating a syntax error the way Python's `json` module reports it, and
 * echoing a value back into a 422 item safely (bounded, always serialisable).
 * @module
 */
import { valueError, type ErrorItem } from "./errors.js";

/**
 * Result of reading a request body.
 * @category API rules
 */
export type BodyReadResult =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly item: ErrorItem };

/**
 * Position and Python-style message of the first JSON syntax error in `text`.
 * @category API rules
 */
export interface JsonSyntaxError {
  readonly position: number;
  readonly message: string;
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Scans a JSON string whose quote is at `start`: the index after its closing quote, or its syntax error. */
function scanString(text: string, start: number): number | JsonSyntaxError {
  const n = text.length;
  let i = start + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = text.charCodeAt(i + 1);
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) {
          if (!isHex(text.charCodeAt(i + k))) return { position: i, message: "Invalid \\uXXXX escape" };
        }
        i += 6;
        continue;
      }
      if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
        continue;
      }
      if (i + 1 >= n) return { position: start, message: "Unterminated string starting at" };
      return { position: i, message: "Invalid \\escape" };
    }
    if (c < 0x20) return { position: i, message: "Invalid control character at" };
    i++;
  }
  return { position: start, message: "Unterminated string starting at" };
}

/** Scans a JSON number at `i`: the index after it, or -1 when no number starts there. */
function scanNumber(text: string, i: number): number {
  let j = i;
  if (text.charCodeAt(j) === 0x2d) j++;
  if (text.charCodeAt(j) === 0x30) j++;
  else if (isDigit(text.charCodeAt(j))) while (isDigit(text.charCodeAt(j))) j++;
  else return -1;
  if (text.charCodeAt(j) === 0x2e && isDigit(text.charCodeAt(j + 1))) {
    j++;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    let k = j + 1;
    const s = text.charCodeAt(k);
    if (s === 0x2b || s === 0x2d) k++;
    if (isDigit(text.charCodeAt(k))) {
      while (isDigit(text.charCodeAt(k))) k++;
      j = k;
    }
  }
  return j;
}

/**
 * Finds the first syntax error of a JSON text (RFC 8259) with the message
 * Python's `json.loads` would give ("Expecting value", "Expecting ',' delimiter",
 * "Extra data", ...). Iterative: any nesting depth. Returns null for valid JSON.
 * Positions count UTF-16 code units.
 * @category API rules
 */
export function locateJsonError(text: string): JsonSyntaxError | null {
  const n = text.length;
  const stack: number[] = []; // 0 = array, 1 = object
  let i = 0;
  const skip = (): void => {
    while (i < n && isWs(text.charCodeAt(i))) i++;
  };
  // state: 0 = expect a value, 1 = after a value, 2 = expect an object key
  let state = 0;
  skip();
  for (;;) {
    if (state === 0) {
      const c = text.charCodeAt(i);
      if (c === 0x7b || c === 0x5b) {
        // `{` or `[`: its closing bracket is two code points on (`}` 0x7d, `]` 0x5d)
        const isObject = c === 0x7b;
        i++;
        skip();
        if (text.charCodeAt(i) === c + 2) {
          i++;
          state = 1;
        } else {
          stack.push(isObject ? 1 : 0);
          state = isObject ? 2 : 0;
        }
        continue;
      }
      if (c === 0x22) {
        const end = scanString(text, i);
        if (typeof end !== "number") return end;
        i = end;
        state = 1;
        continue;
      }
      if (text.startsWith("true", i)) i += 4;
      else if (text.startsWith("false", i)) i += 5;
      else if (text.startsWith("null", i)) i += 4;
      else {
        const end = scanNumber(text, i);
        if (end < 0) return { position: i, message: "Expecting value" };
        i = end;
      }
      state = 1;
      continue;
    }
    if (state === 2) {
      if (text.charCodeAt(i) !== 0x22) return { position: i, message: "Expecting property name enclosed in double quotes" };
      const end = scanString(text, i);
      if (typeof end !== "number") return end;
      i = end;
      skip();
      if (text.charCodeAt(i) !== 0x3a) return { position: i, message: "Expecting ':' delimiter" };
      i++;
      skip();
      state = 0;
      continue;
    }
    // state 1: after a value
    skip();
    const top = stack.length === 0 ? -1 : stack[stack.length - 1];
    if (top === -1) return i < n ? { position: i, message: "Extra data" } : null;
    const c = text.charCodeAt(i);
    if (c === 0x2c) {
      i++;
      skip();
      state = top === 1 ? 2 : 0;
      continue;
    }
    if ((top === 0 && c === 0x5d) || (top === 1 && c === 0x7d)) {
      i++;
      stack.pop();
      continue;
    }
    return { position: i, message: "Expecting ',' delimiter" };
  }
}

function jsonInvalid(position: number, message: string): ErrorItem {
  return { type: "json_invalid", loc: ["body", position], msg: "JSON decode error", input: {}, ctx: { error: message } };
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The bytes of a body given as bytes (an `ArrayBuffer` or
 * `SharedArrayBuffer`, or a `Uint8Array`, `Buffer`, `Int8Array`,
 * `Uint8ClampedArray` or `DataView` over one), else null.
 *
 * @example
 * ```ts
 * bodyBytes(new TextEncoder().encode("{}"))?.length; // => 2
 * bodyBytes("{}"); // => null
 * ```
 * @category API rules
 */
export function bodyBytes(body: unknown): Uint8Array | null {
  if (body instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && body instanceof SharedArrayBuffer)) return new Uint8Array(body);
  if (ArrayBuffer.isView(body) && (body instanceof Uint8Array || body instanceof DataView || body instanceof Int8Array || body instanceof Uint8ClampedArray)) {
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  }
  return null;
}

/**
 * Reads a request body: a JSON string, bytes (`Uint8Array`, `ArrayBuffer`,
 * any `ArrayBufferView`) holding UTF-8 JSON, or an already parsed value.
 * An absent, empty or `null` body is "missing" (as FastAPI reports it);
 * malformed JSON or UTF-8 is a `json_invalid` item at `["body", position]`.
 * @category API rules
 */
export function readJsonBody(body: unknown): BodyReadResult {
  let text: string;
  if (body === undefined || body === null) return { kind: "missing" };
  const bytes = bodyBytes(body);
  if (typeof body === "string") text = body;
  else if (bytes !== null) text = decodeBytes(bytes);
  else return { kind: "value", value: body };
  if (text === INVALID_UTF8) return { kind: "invalid", item: jsonInvalid(0, "Invalid UTF-8 byte sequence") };
  if (text.length === 0) return { kind: "missing" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const err = locateJsonError(text) ?? { position: 0, message: "Expecting value" };
    return { kind: "invalid", item: jsonInvalid(err.position, err.message) };
  }
  if (value === null) return { kind: "missing" };
  return { kind: "value", value };
}

const INVALID_UTF8 = "\u0000invalid-utf8\u0000";

function decodeBytes(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return INVALID_UTF8;
  }
}

/**
 * Bounds of an echoed `input`: larger or deeper values are left out of the 422 item.
 * @category API rules
 */
export const ECHO_MAX_NODES = 10_000;
/**
 * Deepest nesting echoed back.
 * @category API rules
 */
export const ECHO_MAX_DEPTH = 32;

/**
 * A JSON-serialisable copy of `value` for the `input` of a 422 item, or
 * `{ok: false}` when it cannot or should not be echoed (more than
 * `ECHO_MAX_NODES` nodes, deeper than `ECHO_MAX_DEPTH`, a cycle, a function,
 * a symbol, a bigint, `undefined`). Non-finite numbers are echoed as the strings
 * "NaN", "Infinity", "-Infinity". Own enumerable properties only; a
 * `__proto__` key is copied as a plain property.
 * @category API rules
 */
export function echoInput(value: unknown): { ok: true; value: unknown } | { ok: false } {
  let budget = ECHO_MAX_NODES;
  const seen = new Set<object>();
  const FAIL = Symbol("fail");
  const copy = (v: unknown, depth: number): unknown => {
    if (--budget < 0) return FAIL;
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? v : Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
      case "object": {
        if (v === null) return null;
        if (depth >= ECHO_MAX_DEPTH || seen.has(v)) return FAIL;
        seen.add(v);
        let out: unknown;
        if (Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView))) {
          const src = v as ArrayLike<unknown>;
          if (src.length > budget) return FAIL;
          const arr: unknown[] = [];
          for (let i = 0; i < src.length; i++) {
            const c = copy(src[i], depth + 1);
            if (c === FAIL) return FAIL;
            arr.push(c);
          }
          out = arr;
        } else {
          const obj: Record<string, unknown> = {};
          for (const key of Object.keys(v)) {
            const c = copy((v as Record<string, unknown>)[key], depth + 1);
            if (c === FAIL) return FAIL;
            Object.defineProperty(obj, key, { value: c, enumerable: true, writable: true, configurable: true });
          }
          out = obj;
        }
        seen.delete(v);
        return out;
      }
      default:
        return FAIL;
    }
  };
  try {
    const r = copy(value, 0);
    return r === FAIL ? { ok: false } : { ok: true, value: r };
  } catch {
    return { ok: false }; // a throwing getter or proxy trap: leave the input out
  }
}

/**
 * A `value_error` item whose `input` is the raw value echoed as the API echoes
 * it (left out when it cannot be echoed: see {@link echoInput}).
 */
export function echoedValueError(loc: (string | number)[], message: string, raw: unknown): ErrorItem {
  const echoed = echoInput(raw);
  return valueError(loc, message, echoed.ok ? echoed.value : undefined);
}
