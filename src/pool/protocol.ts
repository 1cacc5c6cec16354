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
    }
  /** Parse a JSON text or bytes body and split it (see `splitRequest`); the parts come back with their `y` moved. */
  | { readonly kind: "split"; readonly endpoint: SplitEndpoint; readonly body: unknown; readonly parts: PartCut; readonly limits: ServiceLimits }
  /** Run a typed request through the library's pipeline of an endpoint (`runEndpoint`), as the service's paid work. */
  | { readonly kind: "endpoint"; readonly endpoint: "forecast" | "anomaly" | "historic" | "finetune"; readonly request: unknown; readonly progress?: boolean }
  /** Report the worker's forecast memo (`null` when the pool keeps none). */
  | { readonly kind: "memoStats" };

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

/** Replaces each of `keys` of `record` that holds a `Float64Array` by a list. */
function unpackFields(record: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) if (record[key] instanceof Float64Array) record[key] = plainNumbers(record[key] as Float64Array);
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

/** A result of {@link packResult} (or a merge of such results) with its `Float64Array`s back as lists, in place. */
export function unpackResult<T>(value: T): T {
  if (!isRecord(value)) return value;
  unpackFields(value, ROW_FIELDS);
  if (isRecord(value.intervals)) unpackFields(value.intervals, Object.keys(value.intervals));
  return value;
}
