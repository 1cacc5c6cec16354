/**
 * The pool's worker thread: adopts the parameters the main thread shared,
 * then runs the tasks it is sent, one at a time (see protocol.ts). Imported
 * anywhere but in a pool's worker, it does nothing.
 * @module
 */
import { setPriority } from "node:os";
import { parentPort, workerData, type TransferListItem } from "node:worker_threads";
import { detectAnomaliesOnline, finetune, forecast, historicForecast, parseRequestBody, runEndpoint } from "../api/entry-points.js";
import { detectAnomaliesRecords, finetuneRecords, forecastRecords, historicForecastRecords } from "../api/records.js";
import type { CoreCallOptions } from "../api/entry-points.js";
import { DEFAULT_PIPELINES, memoPipelines } from "../api/pipelines.js";
import { createForecastMemo, type ForecastMemo } from "../model/memo.js";
import { adoptSharedParameters } from "../model/weights.js";
import type { ModelName } from "../types.js";
import { packResult, serializeError, textFromCarrier, type PoolFunction, type PoolReply, type PoolTask } from "./protocol.js";
import { movableParts } from "./split.js";

/** What `createPool` passes to each worker. */
export interface PoolWorkerData {
  readonly forecastmodelPool: true;
  readonly weights: readonly { readonly model: ModelName; readonly params: Float64Array }[];
  /** Each worker's forecast memo (`PoolOptions.memo`): its size, or `null` for none. */
  readonly memo: { readonly entries: number } | null;
  /** The nice value each worker thread sets for itself on Linux (`PoolOptions.workerNice`), or `null` to keep the calling thread's. */
  readonly nice: number | null;
}

/** This worker's forecast memo (made when the worker starts, if the pool keeps memos), and the pipelines that use it. */
let memo: ForecastMemo | undefined;
let pipelines = DEFAULT_PIPELINES;

type AnyFunction = (...args: never[]) => unknown;

const FUNCTIONS: Record<PoolFunction, AnyFunction> = {
  forecast,
  detectAnomaliesOnline,
  historicForecast,
  finetune,
  forecastRecords,
  detectAnomaliesRecords,
  historicForecastRecords,
  finetuneRecords,
};

/** The index of the call options among a function's arguments (the records functions take rows, options, then them). */
function callOptionsIndex(fn: PoolFunction): number {
  return fn.endsWith("Records") ? 2 : 1;
}

function run(id: number, task: PoolTask, post: (reply: PoolReply, transfer?: TransferListItem[]) => void): void {
  if (task.kind === "call") {
    const finetuned = task.finetuned;
    const options: CoreCallOptions = {
      ...(task.limits !== undefined ? { limits: task.limits } : {}),
      ...(finetuned !== null ? { finetunedModels: (name: string) => (name === finetuned.id ? finetuned.weights : undefined) } : {}),
      ...(task.progress ? { onProgress: (p: { stage: string; done: number; total: number }) => post({ id, progress: { stage: p.stage, done: p.done, total: p.total } }) } : {}),
      ...(memo !== undefined ? { memo } : {}),
    };
    const args = [...task.args];
    args[0] = textFromCarrier(args[0], task.asciiText);
    const at = callOptionsIndex(task.fn);
    while (args.length < at) args.push(undefined);
    args[at] = options;
    const packed = packResult((FUNCTIONS[task.fn] as (...a: unknown[]) => unknown)(...args));
    post({ id, ok: true, value: packed.value }, packed.transfer);
    return;
  }
  if (task.kind === "split") {
    const raw = readBody(textFromCarrier(task.body, task.asciiText));
    const parts = movableParts(task.endpoint, raw, task.parts, task.limits, task.values);
    const finetunedId = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>).finetuned_model_id : undefined;
    if (parts === null) {
      post({ id, ok: true, value: { parts: null, finetunedId: typeof finetunedId === "string" ? finetunedId : null } });
      return;
    }
    const transfer = parts.flatMap((p) => p.transfer);
    const moved = parts.map(({ transfer: _, ...p }) => p);
    post({ id, ok: true, value: { parts: moved, finetunedId: typeof finetunedId === "string" ? finetunedId : null } }, transfer);
    return;
  }
  if (task.kind === "memoStats") {
    post({ id, ok: true, value: memo === undefined ? null : { entries: memo.entries, size: memo.size, hits: memo.hits, misses: memo.misses } });
    return;
  }
  const request = task.progress === true ? { ...(task.request as object), onProgress: (p: { stage: string; done: number; total: number }) => post({ id, progress: { stage: p.stage, done: p.done, total: p.total } }) } : task.request;
  post({ id, ok: true, value: runEndpoint(task.endpoint, request as never, pipelines) });
}

/** A body parsed as the entry points parse it; an unreadable one is `undefined` (sent whole, for the call to refuse). */
function readBody(body: unknown): unknown {
  try {
    return parseRequestBody(body);
  } catch {
    return undefined;
  }
}

const data = workerData as PoolWorkerData | null | undefined;
if (parentPort !== null && data !== null && typeof data === "object" && data.forecastmodelPool === true) {
  const port = parentPort;
  // on Linux nice is per thread: this worker yields to a waking event loop (elsewhere it would set the whole process's)
  if (data.nice !== null && process.platform === "linux") {
    try {
      setPriority(0, data.nice);
    } catch {
      // a priority the system refuses: the worker keeps the one it has
    }
  }
  for (const w of data.weights) adoptSharedParameters(w.model, w.params);
  if (data.memo !== null) {
    memo = createForecastMemo({ entries: data.memo.entries });
    pipelines = memoPipelines(memo);
  }
  port.on("message", (message: { id: number; task: PoolTask }) => {
    const post = (reply: PoolReply, transfer?: TransferListItem[]) => port.postMessage(reply, transfer);
    try {
      run(message.id, message.task, post);
    } catch (error) {
      post({ id: message.id, ok: false, error: serializeError(error) });
    }
  });
}
