/**
 * The messages between the pool (main thread) and its workers, and errors
 * carried across as data (a thread boundary keeps neither classes nor
 * custom fields).
 * @module
 */
import { ValidationError, type ErrorItem } from "../api/errors.js";
import { plainNumbers } from "../api/schema-validator.js";
import type { ServiceLimits } from "../api/requests.js";
import type { FinetunedWeights } from "../types.js";
import type { SplitEndpoint } from "./split.js";
import type { PartCut } from "../api/partition.js";

/** The pool's functions a worker runs by name (the main export's functions of the same names). */
export type PoolFunction =
  | "forecast"
  | "detectAnomaliesOnline"
  | "historicForecast"
  | "finetune"
  | "forecastRecords"
  | "detectAnomaliesRecords"
  | "historicForecastRecords"
  | "finetuneRecords";

/** What a worker is asked to do. */
export type PoolTask =
  /** Run a function of the main export on its arguments (the call options travel apart: they hold functions). */
  | {
      readonly kind: "call";
      readonly fn: PoolFunction;
      readonly args: readonly unknown[];
      readonly limits: Partial<ServiceLimits> | undefined;
      /** The fine-tuned model the body names, looked up on the main thread (`null`: none or unknown). */
      readonly finetuned: { readonly id: string; readonly weights: FinetunedWeights } | null;
      readonly progress: boolean;
      /** `args[0]` is a JSON text carried as its ASCII bytes ({@link TextCarrier}): the function is given the string. */
      readonly asciiText?: boolean;
    }
  /** Parse a JSON text or bytes body and split it (see `splitRequest`); the parts come back with their `y` moved. */
  | {
      readonly kind: "split";
      readonly endpoint: SplitEndpoint;
      readonly body: unknown;
      readonly parts: PartCut;
      readonly limits: ServiceLimits;
      /** `body` is a JSON text carried as its ASCII bytes ({@link TextCarrier}): it is read as the string. */
      readonly asciiText?: boolean;
      /** Where the parts' values go when they fit (`movableParts`' `into`): views of it, nothing moved through the calling thread. */
      readonly values?: SharedArrayBuffer;
    }
  /** Run a typed request through the library's pipeline of an endpoint (`runEndpoint`), as the service's paid work. */
  | { readonly kind: "endpoint"; readonly endpoint: "forecast" | "anomaly" | "historic" | "finetune"; readonly request: unknown; readonly progress?: boolean }
  /** Report the worker's forecast memo (`null` when the pool keeps none). */
  | { readonly kind: "memoStats" };

/**
 * A JSON text or bytes body on its way to a worker: the caller's own value
 * (postMessage copies it in one turn), or, for a large one, a copy in a
 * `SharedArrayBuffer` made a slice per event-loop turn ({@link carriedText}),
 * which postMessage then shares without copying. `asciiText`: the copy holds
 * the bytes of a string of ASCII characters only, and the worker reads it
 * back as that same string ({@link textFromCarrier}).
 */
export interface TextCarrier {
  readonly body: unknown;
  readonly asciiText: boolean;
}

/** A text at least this long (characters or bytes) is copied to a worker in slices, one per turn of the calling thread's event loop. */
export const CARRIED_TEXT_FROM = 1 << 22;
/** The slice of a large text copied per turn: about a millisecond. */
const CARRIED_TEXT_SLICE = 1 << 20;

/**
 * Where {@link carriedText} gets the shared buffer of a large text: `take`
 * returns one of at least `length` bytes, `give` takes back one that is no
 * longer read (by this thread or any worker).
 */
export interface CarrierBuffers {
  take(length: number): SharedArrayBuffer;
  give(buffer: SharedArrayBuffer): void;
}

/**
 * {@link CarrierBuffers} that keeps the buffers given back (only those it
 * lent): at most `keep` of them and `maxBytes` in all, the largest first (one
 * larger than `maxBytes` is left to the collector), and lends the smallest
 * that fits, if it is at most twice the length asked for and 64 KiB (a small
 * call does not hold a large buffer a large call could use); a new buffer is rounded up to a multiple of an eighth of the
 * power of two below its length, so that texts of about the same size share
 * one. Freeing a buffer of tens of megabytes is work for the garbage
 * collector's array-buffer sweep, which the calling thread's next collection
 * waits for: 10-20 ms of its event loop where each 46 MB body had a buffer
 * of its own. `clear()` drops them all.
 *
 * @example
 * const shelf = carrierShelf(1);
 * const a = shelf.take(5_000_000);
 * a.byteLength; // => 5242880
 * shelf.give(a);
 * shelf.take(4_500_000) === a; // => true
 */
export function carrierShelf(keep: number, maxBytes = CARRIER_SHELF_BYTES): CarrierBuffers & { clear(): void } {
  let idle: SharedArrayBuffer[] = [];
  // only a buffer it lent comes back to the shelf (never a caller's own shared bytes)
  const lent = new Set<SharedArrayBuffer>();
  const lend = (buffer: SharedArrayBuffer): SharedArrayBuffer => {
    lent.add(buffer);
    return buffer;
  };
  return {
    take(length) {
      let best = -1;
      for (let i = 0; i < idle.length; i++) {
        const size = (idle[i] as SharedArrayBuffer).byteLength;
        if (size >= length && size <= 2 * length + CARRIER_SLACK && (best < 0 || size < (idle[best] as SharedArrayBuffer).byteLength)) best = i;
      }
      if (best >= 0) return lend(idle.splice(best, 1)[0] as SharedArrayBuffer);
      const step = length < 16 ? 1 : 2 ** (Math.floor(Math.log2(length)) - 3);
      return lend(new SharedArrayBuffer(Math.ceil(length / step) * step));
    },
    give(buffer) {
      if (!lent.delete(buffer)) return;
      idle.push(buffer);
      idle.sort((a, b) => b.byteLength - a.byteLength);
      let bytes = 0;
      idle = idle.filter((b) => {
        if (bytes + b.byteLength > maxBytes) return false;
        bytes += b.byteLength;
        return true;
      });
      if (idle.length > keep) idle.length = keep;
    },
    clear() {
      idle = [];
      lent.clear();
    },
  };
}

/** The most bytes a pool's {@link carrierShelf} keeps between calls: 256 MiB (five buffers for 46 MB bodies). */
export const CARRIER_SHELF_BYTES = 2 ** 28;

/** The most buffers a pool's {@link carrierShelf} keeps between calls (50 calls at once find theirs again). */
export const CARRIER_SHELF_COUNT = 64;

/** How much larger than twice the length asked for a kept buffer may be and still be lent. */
const CARRIER_SLACK = 1 << 16;

/** A new buffer per text, left to the garbage collector. */
const NEW_CARRIER_BUFFERS: CarrierBuffers = { take: (length) => new SharedArrayBuffer(length), give: () => undefined };

/**
 * A JSON text or bytes body ready to post to a worker ({@link TextCarrier}).
 * Below {@link CARRIED_TEXT_FROM} it is the caller's own value. Above it is
 * copied into a `SharedArrayBuffer`, a slice of {@link CARRIED_TEXT_SLICE}
 * per turn (`turn` awaited before each): the calling thread never spends one
 * long turn copying 46 MB (about 25 ms here) as postMessage's own copy did. A
 * string that holds anything but ASCII characters is posted as it is (its
 * UTF-8 bytes would not read back as the same string), as are bytes already
 * shared. `sizes` (the two constants by default) is there for tests.
 * `buffers` lends the shared buffer (a new one of the text's length by
 * default); a buffer taken and then not used is given back to it.
 *
 * @example
 * const carried = await carriedText("x".repeat(10), async () => {}, { from: 8, slice: 4 });
 * carried.asciiText; // => true
 * textFromCarrier(carried.body, carried.asciiText) === "x".repeat(10); // => true
 */
export async function carriedText(
  body: string | Uint8Array,
  turn: () => Promise<void>,
  sizes: { readonly from: number; readonly slice: number } = { from: CARRIED_TEXT_FROM, slice: CARRIED_TEXT_SLICE },
  buffers: CarrierBuffers = NEW_CARRIER_BUFFERS,
): Promise<TextCarrier> {
  const length = typeof body === "string" ? body.length : body.byteLength;
  if (length < sizes.from || (typeof body !== "string" && body.buffer instanceof SharedArrayBuffer)) return { body, asciiText: false };
  const shared = buffers.take(length);
  const copy = new Uint8Array(shared, 0, length);
  const encoder = new TextEncoder();
  for (let at = 0; at < length; at += sizes.slice) {
    await turn();
    const end = Math.min(length, at + sizes.slice);
    if (typeof body !== "string") {
      copy.set(body.subarray(at, end), at);
      continue;
    }
    const slice = body.slice(at, end);
    const { read, written } = encoder.encodeInto(slice, copy.subarray(at, end));
    // a character outside ASCII takes more than one byte (or does not fit): the string goes as it is
    if (read !== slice.length || written !== read) {
      buffers.give(shared);
      return { body, asciiText: false };
    }
  }
  return { body: copy, asciiText: typeof body === "string" };
}

/**
 * The body a worker computes on: a text carried as ASCII bytes
 * ({@link carriedText}) read back as its string (each byte one character),
 * anything else as it came.
 *
 * @example
 * textFromCarrier(new TextEncoder().encode('{"h":2}'), true); // => '{"h":2}'
 * textFromCarrier("as it came", false); // => "as it came"
 */
export function textFromCarrier(body: unknown, asciiText: boolean | undefined): unknown {
  if (asciiText !== true || !(body instanceof Uint8Array)) return body;
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1");
}

/** A worker's message: a progress report of the running task, or its outcome. */
export type PoolReply =
  | { readonly id: number; readonly progress: { readonly stage: string; readonly done: number; readonly total: number } }
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: SerializedError };

/** An error as data. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  /** The 422 items of a `ValidationError`. */
  readonly detail?: readonly ErrorItem[];
}

/** An error as data, for the main thread. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof ValidationError) return { name: error.name, message: error.message, detail: error.detail, ...(error.stack !== undefined ? { stack: error.stack } : {}) };
  if (error instanceof Error) return { name: error.name, message: error.message, ...(error.stack !== undefined ? { stack: error.stack } : {}) };
  return { name: "Error", message: String(error) };
}

/** The error again, of the class the call would have thrown on this thread (`ValidationError`, `RangeError`, `TypeError`, else `Error`). */
export function deserializeError(data: SerializedError): Error {
  let error: Error;
  if (data.name === "ValidationError" && data.detail !== undefined) error = new ValidationError([...data.detail]);
  else if (data.name === "RangeError") error = new RangeError(data.message);
  else if (data.name === "TypeError") error = new TypeError(data.message);
  else {
    error = new Error(data.message);
    if (data.name !== "Error") error.name = data.name;
  }
  if (data.stack !== undefined) error.stack = data.stack;
  return error;
}

/** The per-row number arrays of a result (top level, and inside `intervals`) that travel as `Float64Array`s. */
const ROW_FIELDS = ["mean", "anomaly_score", "accumulated_anomaly_score"];

/** A list of numbers as a `Float64Array`, or `null` when it holds anything else. */
function packedNumbers(v: unknown): Float64Array | null {
  if (!Array.isArray(v)) return null;
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== "number") return null;
    out[i] = x;
  }
  return out;
}

/** Whether `v` is a plain object (not null, not a list). */
function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Replaces each of `keys` of `record` that holds a list of numbers by a `Float64Array`, whose buffer joins `transfer`. */
function packFields(record: Record<string, unknown>, keys: readonly string[], transfer: ArrayBuffer[]): void {
  for (const key of keys) {
    const packed = packedNumbers(record[key]);
    if (packed === null) continue;
    record[key] = packed;
    transfer.push(packed.buffer as ArrayBuffer);
  }
}

/** A list at least this long is made in an event-loop turn of its own when a result is unpacked (about a millisecond). */
const UNPACK_TURN_FROM = 1 << 16;

/**
 * Replaces each of `keys` of `record` that holds a `Float64Array` by a list;
 * `turn` is awaited before each long one, so that a large result (5,000
 * series: five lists of 120,000 values) never takes one long turn.
 */
async function unpackFields(record: Record<string, unknown>, keys: readonly string[], turn: () => Promise<void>): Promise<void> {
  for (const key of keys) {
    const packed = record[key];
    if (!(packed instanceof Float64Array)) continue;
    if (packed.length >= UNPACK_TURN_FROM) await turn();
    record[key] = plainNumbers(packed);
  }
}

/**
 * A JSON result with its per-row number lists (`mean`, scores, interval
 * bounds) as `Float64Array`s whose buffers are listed in `transfer`: they
 * move to the main thread instead of being copied value by value. Lists
 * holding anything but numbers stay lists. {@link unpackResult} undoes it.
 */
export function packResult(value: unknown): { value: unknown; transfer: ArrayBuffer[] } {
  if (!isRecord(value)) return { value, transfer: [] };
  const transfer: ArrayBuffer[] = [];
  const out: Record<string, unknown> = { ...value };
  packFields(out, ROW_FIELDS, transfer);
  if (isRecord(out.intervals)) {
    const bounds: Record<string, unknown> = { ...out.intervals };
    packFields(bounds, Object.keys(bounds), transfer);
    out.intervals = bounds;
  }
  return { value: out, transfer };
}

/**
 * A result of {@link packResult} (or a merge of such results) with its
 * `Float64Array`s back as lists, in place; `turn` (the pool's `nextTurn`) is
 * awaited before each list of 65,536 values or more is made.
 */
export async function unpackResult<T>(value: T, turn: () => Promise<void>): Promise<T> {
  if (!isRecord(value)) return value;
  await unpackFields(value, ROW_FIELDS, turn);
  if (isRecord(value.intervals)) await unpackFields(value.intervals, Object.keys(value.intervals), turn);
  return value;
}
