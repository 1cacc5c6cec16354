/**
 * Scaling past one call: split a large request body by series into smaller
 * request bodies ({@link partition}), compute them anywhere (worker threads,
 * other machines, a job queue), and join their results ({@link merge}) into
 * exactly the result of the single call.
 *
 * Exactness holds because, without fine-tuning and without multivariate
 * thresholds or models, every number of a series' result depends only on that
 * series (and its rows of `X`/`X_future`). Requests that couple the series are
 * refused by {@link partition} with the reason ({@link partitionBlocker}).
 * @module
 */

import { notAnObjectError, ValidationError, type ErrorItem } from "./errors.js";
import { parseRequestBody } from "./entry-points.js";
import { checkSeriesInput } from "./series-input.js";
import { ErrorCollector, validateAgainst } from "./schema-validator.js";
import { HORIZON_SCHEMA } from "./schemas.js";

/**
 * Which endpoint a request body is for.
 * @category Scaling
 */
export type PartitionKind = "forecast" | "anomaly" | "historic";

/**
 * Options of {@link partition}.
 * @category Scaling
 */
export interface PartitionOptions {
  /**
   * The endpoint of the body. Default: inferred — `"anomaly"` when the body has
   * `detection_size`, else `"forecast"` when it has `h`, else `"historic"`.
   */
  readonly kind?: PartitionKind;
  /**
   * Each part's `series.y` as a `Float64Array` of its own (a copy of the
   * validated values), whatever form the body's `y` has: ready to move to a
   * worker thread by transfer. Default `false`: the body's own form (a list
   * gives lists). The API reads both the same.
   */
  readonly typedY?: boolean;
  /**
   * With `typedY`, where the parts' values go: each part's `y` a view of
   * `into` at the part's rows (the values written there), when `into` holds
   * at least all of `y`'s values; else each part has an array of its own.
   * For a pool that shares one buffer (a `SharedArrayBuffer`) with its
   * workers instead of moving a buffer per part.
   */
  readonly into?: Float64Array;
}

/**
 * One part of a partitioned request: a request body of its own plus where its
 * series sit in the original. `B` is the type of the original body (a part's
 * body has the same shape).
 * @category Scaling
 */
export interface RequestPart<B extends object = Record<string, unknown>> {
  /** The endpoint of the original body (and of this part's body). */
  readonly kind: PartitionKind;
  /** 0-based number of this part. */
  readonly index: number;
  /** How many parts the request was split into. */
  readonly count: number;
  /** Index (in the original `sizes`) of this part's first series. */
  readonly seriesStart: number;
  /** Number of series in this part. */
  readonly seriesCount: number;
  /** Position (in the original `y`) of this part's first value; `idxs` of its result are shifted by it. */
  readonly rowStart: number;
  /** Number of `y` values in this part. */
  readonly rowCount: number;
  /** The request body to send: a copy of the original with `series` (and `X_future`) sliced. */
  readonly body: B;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function inferKind(body: Json): PartitionKind {
  if ("detection_size" in body) return "anomaly";
  if ("h" in body) return "forecast";
  return "historic";
}

/**
 * Why a request body cannot be split by series, or `null` when it can.
 *
 * A request couples its series, so that one series' result depends on the
 * others, when it fine-tunes (`finetune_steps` > 0: one set of tuned weights
 * is learned from all series), uses the multivariate threshold
 * (`threshold_method: "multivariate"`: the score sums z² across series), or a
 * multivariate model (`multivariate: true`). Such a request must be sent whole;
 * a `finetuned_model_id` is fine (the weights are fixed).
 *
 * @param body - a request body of the anomaly-detection, forecast or historic-forecast endpoint.
 * @returns the reason as a sentence naming the field, or `null`.
 *
 * @example
 * ```ts
 * partitionBlocker({ series: { y: [1, 2], sizes: [1, 1] }, freq: "D", h: 1 }); // => null
 * partitionBlocker({ series: { y: [1, 2], sizes: [1, 1] }, freq: "D", h: 1, finetune_steps: 5 });
 * // => "finetune_steps = 5 fine-tunes one model on all series together, so each series' result depends on the others; send the request whole (or fine-tune once with /v2/finetune and partition requests that use finetuned_model_id)"
 * ```
 * @category Scaling
 */
export function partitionBlocker(body: unknown): string | null {
  if (!isObject(body)) return null;
  if ("output_model_id" in body) {
    return "a fine-tune request (output_model_id) learns one model from all its series; send it whole";
  }
  if (body.threshold_method === "multivariate") {
    return 'threshold_method = "multivariate" sums z² across all series at each time step, so no series can be computed alone; send the request whole';
  }
  if (body.multivariate === true) {
    return "multivariate = true makes the model read all series of the batch together; send the request whole";
  }
  const steps = body.finetune_steps;
  if (typeof steps === "number" && steps > 0) {
    return `finetune_steps = ${steps} fine-tunes one model on all series together, so each series' result depends on the others; send the request whole (or fine-tune once with /v2/finetune and partition requests that use finetuned_model_id)`;
  }
  return null;
}

/**
 * How {@link partition} cuts a request: a number k asks for k parts of about
 * equal values ({@link cutPoints}); a {@link GuidedCut} asks for parts that
 * shrink toward the end ({@link guidedCutPoints}).
 *
 * @example
 * ```ts
 * const cuts: PartCut[] = [4, { threads: 2, partValues: 32768 }];
 * cuts.length; // => 2
 * ```
 * @category Scaling
 */
export type PartCut = number | GuidedCut;

/**
 * Parts for `threads` workers that each take the next part when they finish
 * one (a pool's queue): see {@link guidedCutPoints}.
 * @category Scaling
 */
export interface GuidedCut {
  /** How many workers take the parts (an integer >= 1). */
  readonly threads: number;
  /** The most values a part holds, unless one series alone holds more (a number >= 1). */
  readonly partValues: number;
}

/**
 * Series boundaries by guided self-scheduling (Polychronopoulos and Kuck,
 * 1987) for `threads` workers that each take the next part when they finish
 * one: each part holds about R / (2 · threads) of the R values not yet in a
 * part, at most `partValues`, and at least the smaller of `partValues / 8`
 * and total / (2 · threads); whole series only (a part ends before the
 * series that passes its size when that is closer). Few
 * large parts first cost few messages; the small ones at the end let the
 * workers finish together, where equal parts leave one idle for up to a
 * part's time.
 *
 * @example
 * ```ts
 * guidedCutPoints(new Array(12).fill(10), 2, 40); // => [0, 3, 5, 7, 8, 9, 10, 11, 12]
 * ```
 * @category Scaling
 */
export function guidedCutPoints(sizes: ArrayLike<number>, threads: number, partValues: number): number[] {
  const n = sizes.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += sizes[i] as number;
  const least = Math.max(1, Math.min(partValues / 8, total / (2 * threads)));
  const bounds = [0];
  let placed = 0;
  let i = 0;
  while (i < n) {
    const want = Math.max(least, Math.min(partValues, (total - placed) / (2 * threads)));
    const start = i;
    let got = sizes[i++] as number;
    while (i < n && got < want) got += sizes[i++] as number;
    // end before the last series taken when that is closer to the size wanted
    if (i > start + 1 && got - want > want - (got - (sizes[i - 1] as number))) got -= sizes[--i] as number;
    placed += got;
    bounds.push(i);
  }
  if (n === 0) bounds.push(0);
  return bounds;
}

/**
 * The series boundaries of `cut` for series `sizes` ({@link cutPoints} of
 * min(k, series) parts, or {@link guidedCutPoints}).
 *
 * @example
 * ```ts
 * [cutBounds([10, 10, 10], 2), cutBounds([10, 10, 10], { threads: 2, partValues: 10 })];
 * // => [[0, 2, 3], [0, 1, 2, 3]]
 * ```
 * @category Scaling
 */
export function cutBounds(sizes: ArrayLike<number>, cut: PartCut): number[] {
  if (sizes.length === 0) return [0, 0];
  if (typeof cut === "number") return cutPoints(sizes, Math.max(1, Math.min(cut, sizes.length)));
  return guidedCutPoints(sizes, cut.threads, cut.partValues);
}

/**
 * How many parts `cut` makes at most, before the sizes are known: k, or
 * (guided: it depends on the sizes) `Infinity`.
 *
 * @example
 * ```ts
 * [cutCount(3), cutCount({ threads: 2, partValues: 10 })]; // => [3, Infinity]
 * ```
 * @category Scaling
 */
export function cutCount(cut: PartCut): number {
  return typeof cut === "number" ? cut : Number.POSITIVE_INFINITY;
}

/** RangeError unless `cut` is an integer k >= 1 or a {@link GuidedCut} with an integer `threads` >= 1 and `partValues` >= 1. */
function checkCut(cut: PartCut): void {
  if (typeof cut === "number") {
    if (!Number.isInteger(cut) || cut < 1) throw new RangeError(`partition: k must be an integer >= 1, got ${String(cut)}`);
    return;
  }
  const threads = (cut as Partial<GuidedCut> | null)?.threads;
  const partValues = (cut as Partial<GuidedCut> | null)?.partValues;
  if (!Number.isInteger(threads) || (threads as number) < 1) throw new RangeError(`partition: k.threads must be an integer >= 1, got ${String(threads)}`);
  if (typeof partValues !== "number" || !(partValues >= 1)) throw new RangeError(`partition: k.partValues must be a number >= 1, got ${String(partValues)}`);
}

/**
 * Series boundaries b[0] = 0 < b[1] < … < b[parts] = n of `parts` groups of
 * consecutive series (1 ≤ parts ≤ n), balancing the number of values per
 * group: boundary j is the first series whose running total of values
 * reaches j/parts of all values, or the one before it when that one is
 * closer; every group holds at least one series.
 *
 * @example
 * ```ts
 * cutPoints([10, 10, 10, 10], 2); // => [0, 2, 4]
 * cutPoints([30, 5, 5, 5, 5], 2); // => [0, 1, 5]
 * ```
 * @category Scaling
 */
export function cutPoints(sizes: ArrayLike<number>, parts: number): number[] {
  const n = sizes.length;
  const cum = new Array<number>(n + 1);
  cum[0] = 0;
  for (let i = 0; i < n; i++) cum[i + 1] = (cum[i] as number) + (sizes[i] as number);
  const total = cum[n] as number;
  const bounds = [0];
  for (let j = 1; j < parts; j++) {
    const target = (total * j) / parts;
    const minEnd = (bounds[j - 1] as number) + 1;
    const maxEnd = n - (parts - j);
    let end = minEnd;
    while (end < maxEnd && (cum[end] as number) < target) end++;
    // step back when the previous boundary is closer to the target
    if (end > minEnd && target - (cum[end - 1] as number) < (cum[end] as number) - target) end--;
    bounds.push(end);
  }
  bounds.push(n);
  return bounds;
}

/**
 * What the body needs to be sliced, read by the API's own reader
 * (`checkSeriesInput`, the request schema's `h`), so a body the API refuses
 * is refused here with the same items, at the original positions.
 */
function checkBody(body: unknown, kind: PartitionKind): { issues: ErrorItem[]; y: Float64Array | null } {
  if (!isObject(body)) return { issues: [notAnObjectError(["body"], body)], y: null };
  const collector = new ErrorCollector();
  const forecast = kind === "forecast" && body.X_future !== undefined && body.X_future !== null;
  if (forecast) validateAgainst(HORIZON_SCHEMA, body.h, ["body", "h"], collector);
  const h = typeof body.h === "number" && Number.isInteger(body.h) && body.h > 0 ? body.h : undefined;
  const check = checkSeriesInput(body.series, forecast ? { XFuture: body.X_future, h, histExog: body.hist_exog } : {});
  return { issues: [...collector.items, ...check.errors], y: check.series?.y ?? null };
}

/**
 * Splits a request body into at most `k` request bodies of contiguous groups
 * of series, balanced by number of values.
 *
 * Series i..j-1 go to one part: its `series.y` is their values, `series.sizes`
 * their sizes, every `series.X[f]` their rows and, for a forecast,
 * every `X_future[f]` their `h` future rows; all other fields are copied as
 * they are (key order kept, so the bodies serialise like the original). Cut
 * points are chosen greedily so each part holds about total/k values; every
 * part has at least one series, so there are min(k, number of series) parts
 * Computing every part and passing the results to {@link merge} gives
 * exactly the single-call result.
 *
 * @param body - JSON body of POST /v2/online_anomaly_detection, /v2/forecast or /v2/historic_forecast
 *   (a parsed value, or JSON text / UTF-8 bytes, which are parsed first).
 * @param k - the wanted number of parts, an integer >= 1; or a {@link GuidedCut} (parts that shrink toward the end, for a pool's workers).
 * @param options - see {@link PartitionOptions}.
 * @returns the parts in series order.
 * @throws RangeError when `k` is not an integer >= 1 (or a valid {@link GuidedCut}), or when the request couples its
 *   series (the message is {@link partitionBlocker}'s reason).
 * @throws ValidationError with the API's items when the series object (or, for a
 *   forecast, `h` and `X_future`) is not what the API accepts, `loc` pointing into the original body.
 *
 * @example
 * ```ts
 * const parts = partition(
 *   { series: { y: [1, 2, 3, 4, 5, 6], sizes: [2, 3, 1] }, freq: "D", h: 2 },
 *   2,
 * );
 * parts.map((p) => [p.rowStart, p.body.series]);
 * // => [[0, { y: [1, 2], sizes: [2] }], [2, { y: [3, 4, 5, 6], sizes: [3, 1] }]]
 * ```
 * @category Scaling
 */
export function partition<B extends object>(body: B, k: PartCut, options?: PartitionOptions): RequestPart<B>[];
/**
 * Splits a request body of unknown type (see the typed overload above for the full description).
 *
 * @param body - JSON body of POST /v2/online_anomaly_detection, /v2/forecast or /v2/historic_forecast.
 * @param k - the wanted number of parts, an integer >= 1, or a {@link GuidedCut}.
 * @param options - see {@link PartitionOptions}.
 * @returns the parts in series order.
 *
 * @example
 * ```ts
 * const parsed: unknown = JSON.parse('{"series":{"y":[1,2],"sizes":[1,1]},"freq":"D","h":1}');
 * partition(parsed, 2).length; // => 2
 * ```
 * @category Scaling
 */
export function partition(body: unknown, k: PartCut, options?: PartitionOptions): RequestPart[];
export function partition(input: unknown, k: PartCut, options: PartitionOptions = {}): RequestPart[] {
  checkCut(k);
  const body = typeof input === "string" || input instanceof Uint8Array ? parseRequestBody(input) : input;
  const kind = options.kind ?? (isObject(body) ? inferKind(body) : "forecast");
  const { issues, y: validY } = checkBody(body, kind);
  if (issues.length > 0) throw new ValidationError(issues);
  const request = body as Json;
  const blocker = partitionBlocker(request);
  if (blocker !== null) throw new RangeError(`partition: ${blocker}`);

  const series = request.series as Json;
  const y = series.y as readonly number[];
  const plan = partPlan(series.sizes as readonly number[], k);
  const typed = options.typedY === true ? validY : null;
  const into = typed !== null && options.into !== undefined && options.into.length >= typed.length ? options.into : undefined;
  const parts: RequestPart[] = [];
  for (let p = 0; p < plan.count; p++) {
    const { rowStart, rowCount } = planRows(plan, p);
    const partY = typed === null ? y.slice(rowStart, rowStart + rowCount) : partRows(typed, rowStart, rowCount, into);
    parts.push(partOf(request, kind, plan, p, partY));
  }
  return parts;
}

/**
 * How {@link partition} cuts a request of series `sizes` into at most `k` parts: the part count, the series
 * boundaries ({@link cutPoints}) and each part's first row.
 */
export interface PartPlan {
  /** How many parts: min(k, number of series) for a number k, at least 1. */
  readonly count: number;
  /** Series boundaries, `count` + 1 of them. */
  readonly bounds: readonly number[];
  /** Each part's first row, and the total number of rows last (`count` + 1 values). */
  readonly rows: readonly number[];
  /** The request's sizes (what the plan was made from). */
  readonly sizes: readonly number[];
}

/**
 * The {@link PartPlan} of `sizes` (validated: integers >= 1) cut by `k` ({@link cutBounds}).
 *
 * @example
 * ```ts
 * partPlan([2, 3, 1], 2).rows; // => [0, 2, 6]
 * ```
 * @category Scaling
 */
export function partPlan(sizes: readonly number[], k: PartCut): PartPlan {
  const bounds = cutBounds(sizes, k);
  const count = bounds.length - 1;
  const rows = [0];
  for (let p = 0; p < count; p++) {
    let rowCount = 0;
    for (let i = bounds[p] as number; i < (bounds[p + 1] as number); i++) rowCount += sizes[i] as number;
    rows.push((rows[p] as number) + rowCount);
  }
  return { count, bounds, rows, sizes };
}

/** Part p's rows in the original `y`. */
function planRows(plan: PartPlan, p: number): { rowStart: number; rowCount: number } {
  const rowStart = plan.rows[p] as number;
  return { rowStart, rowCount: (plan.rows[p + 1] as number) - rowStart };
}

/**
 * A part's rows of `values` (`values[rowStart, rowStart + rowCount)`): a
 * copy of its own, or, with `into`, written at the same rows of `into` and
 * viewed there (a pool's shared buffer of all parts' values).
 *
 * @example
 * ```ts
 * const values = Float64Array.of(1, 2, 3, 4);
 * partRows(values, 1, 2); // => Float64Array(2) [2, 3]
 * const into = new Float64Array(4);
 * partRows(values, 1, 2, into).buffer === into.buffer; // => true
 * into; // => Float64Array(4) [0, 2, 3, 0]
 * ```
 * @category Scaling
 */
export function partRows(values: Float64Array, rowStart: number, rowCount: number, into?: Float64Array): Float64Array {
  if (into === undefined) return values.slice(rowStart, rowStart + rowCount);
  const rows = into.subarray(rowStart, rowStart + rowCount);
  rows.set(values.subarray(rowStart, rowStart + rowCount));
  return rows;
}

/**
 * Part p of {@link partition}'s cut of a valid `request` (`plan` from its sizes), with `partY` as its `series.y`
 * (the part's rows, in whatever form): every other field copied in the body's key order, `sizes`, `series.X` and (for
 * a forecast) `X_future` sliced to the part's series.
 *
 * @param request - the whole body (valid, splittable).
 * @param kind - its endpoint.
 * @param plan - the {@link partPlan} of its sizes.
 * @param p - the part's number.
 * @param partY - the part's `y` values.
 * @returns the part.
 *
 * @example
 * ```ts
 * const body = { series: { y: [1, 2, 3, 4, 5, 6], sizes: [2, 3, 1] }, freq: "D", h: 2 };
 * partOf(body, "forecast", partPlan([2, 3, 1], 2), 1, [3, 4, 5, 6]).body;
 * // => { series: { y: [3, 4, 5, 6], sizes: [3, 1] }, freq: "D", h: 2 }
 * ```
 * @category Scaling
 */
export function partOf(
  request: Record<string, unknown>,
  kind: PartitionKind,
  plan: PartPlan,
  p: number,
  partY: unknown,
): RequestPart {
  const series = request.series as Json;
  const X = Array.isArray(series.X) ? (series.X as readonly (readonly number[])[]) : null;
  const Xf = kind === "forecast" && Array.isArray(request.X_future) ? (request.X_future as readonly (readonly number[])[]) : null;
  const h = typeof request.h === "number" ? request.h : 0;
  const s0 = plan.bounds[p] as number;
  const s1 = plan.bounds[p + 1] as number;
  const { rowStart, rowCount } = planRows(plan, p);
  const partSeries: Json = {};
  for (const key of Object.keys(series)) {
    if (key === "y") partSeries.y = partY;
    else if (key === "sizes") partSeries.sizes = plan.sizes.slice(s0, s1);
    else if (key === "X" && X !== null) partSeries.X = X.map((f) => f.slice(rowStart, rowStart + rowCount));
    else partSeries[key] = series[key];
  }
  const partBody: Json = {};
  for (const key of Object.keys(request)) {
    if (key === "series") partBody.series = partSeries;
    else if (key === "X_future" && Xf !== null) partBody.X_future = Xf.map((f) => f.slice(s0 * h, s1 * h));
    else partBody[key] = request[key];
  }
  return { kind, index: p, count: plan.count, seriesStart: s0, seriesCount: s1 - s0, rowStart, rowCount, body: partBody };
}

const CONCAT_FIELDS = new Set(["mean", "sizes", "anomaly", "anomaly_score", "accumulated_anomaly_score"]);
const SUM_FIELDS = new Set(["input_tokens", "output_tokens", "finetune_tokens"]);

function asArray(v: unknown, field: string, part: number): unknown[] {
  if (!Array.isArray(v)) throw new RangeError(`merge: results[${part}].${field} must be an array`);
  return v;
}

/** A per-row array of a part's result: a JSON list, or a `Float64Array` (see {@link merge}). */
function rowArray(v: unknown, field: string, part: number): unknown[] | Float64Array {
  if (v instanceof Float64Array) return v;
  return asArray(v, field, part);
}

/**
 * The arrays of one field of every part, end to end, each value plus
 * `shift[p]` when given (idxs): one preallocated array and a plain loop
 * (`flatMap` over 100,000 rows cost several times as much). When every part
 * gives a `Float64Array`, so does the join (a block copy per part), unless
 * `lists`.
 */
function joinParts(values: readonly unknown[], field: string, shift?: readonly number[], lists = false): unknown[] | Float64Array {
  const arrays = values.map((v, p) => rowArray(v, field, p));
  let total = 0;
  for (const a of arrays) total += a.length;
  const typed = !lists && arrays.every((a) => a instanceof Float64Array);
  const out: unknown[] | Float64Array = typed ? new Float64Array(total) : new Array<unknown>(total);
  let at = 0;
  arrays.forEach((a, p) => {
    if (shift === undefined) {
      if (out instanceof Float64Array) out.set(a as Float64Array, at);
      else for (let k = 0; k < a.length; k++) out[at + k] = a[k];
      at += a.length;
      return;
    }
    const by = shift[p] as number;
    for (let k = 0; k < a.length; k++) {
      const i = a[k];
      if (typeof i !== "number") throw new RangeError(`merge: results[${p}].${field} must hold numbers`);
      out[at++] = i + by;
    }
  });
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Joins the `intervals` of all part results, one bound per step (a `yield` between bounds; see {@link mergeSteps}). */
function* intervalSteps(values: readonly unknown[], lists: boolean): Generator<void, unknown, undefined> {
  if (values.every((v) => v === null || v === undefined)) return values[0];
  const first = values[0];
  if (!isObject(first)) throw new RangeError("merge: results[0].intervals must be an object");
  const keys = Object.keys(first);
  const out: Json = {};
  values.forEach((v, p) => {
    if (!isObject(v) || !sameJson(Object.keys(v), keys)) {
      throw new RangeError(`merge: results[${p}].intervals must have the keys ${keys.join(", ")}`);
    }
  });
  for (const [b, key] of keys.entries()) {
    if (b > 0) yield;
    out[key] = joinParts(values.map((v) => (v as Json)[key]), `intervals.${key}`, undefined, lists);
  }
  return out;
}

/** Joins one field of all part results but `intervals` ({@link intervalSteps}); `rowStarts[p]` shifts the `idxs` of part p. */
function mergeField(
  field: string,
  values: readonly unknown[],
  rowStarts: readonly number[],
  seriesCounts: readonly number[],
  lists: boolean,
): unknown {
  if (SUM_FIELDS.has(field)) {
    let sum = 0;
    values.forEach((v, p) => {
      if (typeof v !== "number" || !Number.isInteger(v)) throw new RangeError(`merge: results[${p}].${field} must be an integer`);
      sum += v;
    });
    return sum;
  }
  if (CONCAT_FIELDS.has(field)) {
    if (values.every((v) => v === null)) return null;
    return joinParts(values, field, undefined, lists);
  }
  if (field === "idxs") return joinParts(values, field, rowStarts, lists);
  if (field === "warnings") {
    const seen = new Set<string>();
    const out: unknown[] = [];
    values.forEach((v, p) => {
      for (const w of asArray(v, field, p)) {
        const key = JSON.stringify(w);
        if (!seen.has(key)) {
          seen.add(key);
          out.push(w);
        }
      }
    });
    return out;
  }
  if (field === "feature_contributions") {
    if (values.every((v) => v === null || v === undefined)) return values[0];
    const first = asArray(values[0], field, 0);
    const perPart = values.map((v, p) => {
      const arrays = asArray(v, field, p);
      if (arrays.length !== first.length) throw new RangeError(`merge: results[${p}].feature_contributions must have ${first.length} arrays`);
      return arrays;
    });
    return first.map((_, c) => joinParts(perPart.map((arrays) => arrays[c]), `feature_contributions[${c}]`, undefined, lists));
  }
  if (field === "weights_x") {
    // the single call reports, per feature, the mean coefficient over series: weight each part by its series
    if (values.every((v) => v === null || v === undefined)) return values[0];
    if (values.length === 1) return values[0];
    const first = rowArray(values[0], field, 0);
    const sums = new Array<number>(first.length).fill(0);
    let total = 0;
    values.forEach((v, p) => {
      const w = rowArray(v, field, p);
      if (w.length !== first.length) throw new RangeError(`merge: results[${p}].weights_x must have ${first.length} values`);
      const n = seriesCounts[p] as number;
      total += n;
      w.forEach((x, k) => {
        if (typeof x !== "number") throw new RangeError(`merge: results[${p}].weights_x must hold numbers`);
        sums[k] = (sums[k] as number) + n * x;
      });
    });
    return sums.map((s) => (total > 0 ? s / total : 0));
  }
  // anything else must be the same in every part
  values.forEach((v, p) => {
    if (!sameJson(v, values[0])) throw new RangeError(`merge: results[${p}].${field} differs from results[0].${field}`);
  });
  return values[0];
}

/**
 * Joins the results of the parts made by {@link partition} into the result of
 * the whole request.
 *
 * Per-row arrays (`mean`, `anomaly`, `anomaly_score`,
 * `accumulated_anomaly_score`, each `intervals` array, each
 * `feature_contributions` array) and `sizes` are concatenated in part order;
 * `idxs` are shifted by each part's `rowStart` (their position in the
 * original `y`); `input_tokens`, `output_tokens` and `finetune_tokens` are
 * summed; `warnings` keep the first occurrence of each distinct text. The
 * merged object has the key order of the first result, so `JSON.stringify` of
 * the merge equals `JSON.stringify` of the single-call result. Cost: O(total
 * output size).
 *
 * One exception: `weights_x` (exogenous features) is, in the single call, the
 * mean coefficient of each feature over the series, and the merge can only
 * form the mean of the parts' means weighted by their number of series. That
 * equals the single call's value up to floating-point rounding (last bits)
 * when every feature is identified in every series, and is only an
 * approximation otherwise. Every per-row number (mean, intervals,
 * contributions) is exact.
 *
 * @param parts - the parts, as returned by {@link partition} (all of them, in order).
 * @param results - `results[i]` is the result (JSON value) of `parts[i].body`.
 *   A per-row array (mean, sizes, idxs, anomaly scores, interval bounds,
 *   contribution arrays) may also be a `Float64Array` in every part (results
 *   that travelled as binary, as in docs/recipes/bullmq-parts.ts); that field
 *   of the merged result is then a `Float64Array` too, built by block copies.
 * @returns the merged result.
 * @throws RangeError when parts and results do not match (count, order, shape).
 *
 * @example
 * ```ts
 * const parts = partition({ series: { y: [1, 2, 3, 4], sizes: [2, 2] }, freq: "D", detection_size: 1, h: 1 }, 2);
 * const results = [
 *   { mean: [2.5], sizes: [1], idxs: [1], input_tokens: 2, output_tokens: 1, finetune_tokens: 0 },
 *   { mean: [4.5], sizes: [1], idxs: [1], input_tokens: 2, output_tokens: 1, finetune_tokens: 0 },
 * ];
 * merge(parts, results);
 * // => { mean: [2.5, 4.5], sizes: [1, 1], idxs: [1, 3], input_tokens: 4, output_tokens: 2, finetune_tokens: 0 }
 * ```
 * @category Scaling
 */
export function merge<R = Record<string, unknown>>(parts: readonly RequestPart<object>[], results: readonly R[]): R {
  const steps = mergeSteps(parts, results);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * {@link merge}, a field at a time: a generator that pauses (`yield`) after
 * each field it joins, and between the bounds of `intervals`, and returns
 * the merged result. For a caller that must not spend one long stretch on a
 * large answer: the pool's calling thread lets its event loop run between
 * steps. The checks and the result are `merge`'s (it runs these steps
 * without pausing), except that with `lists` a field the parts give as
 * `Float64Array`s is joined into a plain list rather than a `Float64Array`
 * (the pool's answers are lists: one copy instead of two, and no new
 * `ArrayBuffer` for the calling thread's collector to account and free).
 *
 * @param parts - the parts, as returned by {@link partition} (all of them, in order).
 * @param results - `results[i]` is the result of `parts[i].body` (see {@link merge}).
 * @param lists - join `Float64Array` fields into plain lists (default false).
 * @returns a generator whose return value is the merged result.
 * @throws RangeError (from `next()`) when parts and results do not match.
 *
 * @example
 * ```ts
 * const parts = partition({ series: { y: [1, 2, 3, 4], sizes: [2, 2] }, freq: "D", h: 1 }, 2);
 * const steps = mergeSteps(parts, [{ mean: [2], input_tokens: 2 }, { mean: [4], input_tokens: 2 }]);
 * let step = steps.next();
 * let pauses = 0;
 * for (; step.done !== true; step = steps.next()) pauses++;
 * [pauses, step.value];
 * // => [2, { mean: [2, 4], input_tokens: 4 }]
 * ```
 * @category Scaling
 */
export function* mergeSteps<R = Record<string, unknown>>(parts: readonly RequestPart<object>[], results: readonly R[], lists = false): Generator<void, R, undefined> {
  if (parts.length === 0) throw new RangeError("merge: parts must not be empty");
  if (results.length !== parts.length) {
    throw new RangeError(`merge: got ${results.length} results for ${parts.length} parts`);
  }
  let row = 0;
  let seriesIndex = 0;
  parts.forEach((part, p) => {
    if (part.index !== p || part.count !== parts.length || part.rowStart !== row || part.seriesStart !== seriesIndex) {
      throw new RangeError(`merge: parts[${p}] is not part ${p} of ${parts.length} in order (pass every part of one partition)`);
    }
    if (part.kind !== (parts[0] as RequestPart<object>).kind) throw new RangeError(`merge: parts[${p}] is of another request kind`);
    row += part.rowCount;
    seriesIndex += part.seriesCount;
  });
  const objects = results.map((r, p) => {
    if (!isObject(r)) throw new RangeError(`merge: results[${p}] must be an object`);
    return r;
  });
  const keys = Object.keys(objects[0] as Json);
  objects.forEach((o, p) => {
    if (!sameJson(Object.keys(o), keys)) throw new RangeError(`merge: results[${p}] has other fields than results[0]`);
  });
  const rowStarts = parts.map((part) => part.rowStart);
  const seriesCounts = parts.map((part) => part.seriesCount);
  const merged: Json = {};
  for (const key of keys) {
    const values = objects.map((o) => o[key]);
    merged[key] = key === "intervals" ? yield* intervalSteps(values, lists) : mergeField(key, values, rowStarts, seriesCounts, lists);
    yield;
  }
  return merged as R;
}
