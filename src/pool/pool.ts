/**
 * `createPool`: the main export's entry points on worker threads, so the
 * calling thread (a server's event loop) never runs model work, and every
 * core computes. A request is split by series ({@link splitRequest}) across
 * the workers and the parts' results merged ({@link merge}): the answer is
 * the one-thread call's, byte for byte.
 * @module
 */
import { availableParallelism, getPriority } from "node:os";
import { Worker, type ResourceLimits, type TransferListItem } from "node:worker_threads";
import type { AnomalyRequest, FinetuneRequest, ForecastRequest, HistoricRequest, JsonBody } from "../api/bodies.js";
import type { CoreCallOptions, FinetuneCallResult } from "../api/entry-points.js";
import { bodyBytes } from "../api/json.js";
import { mergeSteps, type PartCut, type RequestPart } from "../api/partition.js";
import type { AnomalyRecord, ForecastRecord, ForecastRecordOptions, HistoricRecord, RecordOptions, RecordRowFields, RecordsResult, ResultDs } from "../api/records.js";
import { DEFAULT_SERVICE_LIMITS, resolveLimits, type ServiceLimits } from "../api/requests.js";
import type { AnomalyResult, FinetuneResult, ForecastResult, HistoricResult } from "../api/results.js";
import { isMissingValuesWarning } from "../series/missing.js";
import { FORECAST_MEMO_ENTRIES } from "../model/memo.js";
import { sharedPretrainedParameters } from "../model/weights.js";
import type { AnomalyInput, AnomalyIntervals, FinetuneInput, FinetunedWeights, ForecastInput, HistoricInput, LevelIntervals } from "../types.js";
import type { ProgressCallback } from "../progress.js";
import { CARRIER_SHELF_COUNT, carriedText, carrierShelf, deserializeError, unpackResult, type TextCarrier, type PoolFunction, type PoolReply, type PoolTask } from "./protocol.js";
import { lazyMovableParts, typedPart, typedSplitBounds, type SplitEndpoint, type SplitTypedRequest } from "./split.js";
import type { PoolWorkerData } from "./worker.js";

/**
 * Options of {@link createPool}.
 * @category Scaling
 */
export interface PoolOptions {
  /** Worker threads (default: `os.availableParallelism()`, every core). */
  readonly threads?: number;
  /**
   * The most `y` values one part of a split request holds, unless one series
   * holds more (default 32,768). Parts shrink toward the end of a request
   * (`guidedCutPoints`: about R / (2 · threads) of the R values left, down to
   * an eighth of this), so that the workers finish together. With memos, a
   * request is cut into equal parts instead: a multiple of `threads` of them,
   * about this size. Smaller parts keep each message short; each part costs
   * a little validation and merging.
   */
  readonly partValues?: number;
  /** Heap limits of each worker (Node's `Worker` `resourceLimits`); a worker that exceeds them stops, and its call gets an error. */
  readonly resourceLimits?: ResourceLimits;
  /**
   * How much lower than the calling thread's the workers' scheduling
   * priority is, in nice steps (an integer 0-19, default 10; a worker's nice
   * value is the calling thread's plus this, at most 19). On Linux, where
   * nice is per thread, a waking event loop then takes a core from a busy
   * worker at once instead of waiting its turn: with two workers on two
   * cores, 60 calls of 5,000 series each way, the longest stall reached
   * 20 ms or more in 6 calls at 0 (74.9 ms at worst) and in none at 10
   * (18.2 ms at worst) (docs/scaling.md). The workers then also yield to the host's
   * other processes. 0 keeps the calling thread's priority. Elsewhere
   * (macOS, Windows: priority is per process) it has no effect.
   */
  readonly workerNice?: number;
  /**
   * A forecast memo in every worker (`createForecastMemo`, at most `entries`
   * forecasts each, default {@link FORECAST_MEMO_ENTRIES}), used by every
   * call and by `runEndpoint`: contexts a worker forecast before are answered
   * from its memo (answers unchanged, byte for byte). With it, part k of a
   * split request always goes to worker k mod `threads` (instead of the first
   * free one), so the same streams sent again in the same order, as a monitor
   * does every few points, reach the worker that remembers them. `entries`
   * is per worker, and a worker keeps only its parts' streams: the
   * one-thread size (docs/anomaly-detection.md) divided by `threads` is enough.
   */
  readonly memo?: {
    /** Most forecasts each worker's memo keeps (an integer >= 1; default {@link FORECAST_MEMO_ENTRIES}). */
    readonly entries?: number;
  };
}

/**
 * One worker's forecast memo, as {@link ForecastPool.memoStats} reports it
 * (the fields of `ForecastMemo`).
 * @category Scaling
 */
export interface PoolMemoStats {
  /** Most forecasts kept. */
  readonly entries: number;
  /** Forecasts kept now. */
  readonly size: number;
  /** Contexts answered from the memo. */
  readonly hits: number;
  /** Contexts forecast (and then kept). */
  readonly misses: number;
}

/**
 * A typed request of an endpoint, as the service passes it to its pipelines (see {@link ForecastPool.runEndpoint}).
 * @category Scaling
 */
export interface EndpointRequests {
  /** A typed forecast request. */
  readonly forecast: ForecastInput;
  /** A typed anomaly-detection request. */
  readonly anomaly: AnomalyInput;
  /** A typed historic-forecast request. */
  readonly historic: HistoricInput;
  /** A typed fine-tune request. */
  readonly finetune: FinetuneInput;
}

/**
 * The JSON result of each endpoint's typed request (see {@link ForecastPool.runEndpoint}).
 * @category Scaling
 */
export interface EndpointResults {
  /** A forecast's JSON result. */
  readonly forecast: ForecastResult;
  /** An anomaly detection's JSON result. */
  readonly anomaly: AnomalyResult;
  /** A historic forecast's JSON result. */
  readonly historic: ForecastResult;
  /** A fine-tune's JSON result (with its weights). */
  readonly finetune: FinetuneResult;
}

/**
 * Runs the service's paid work on other threads: what `createService`'s
 * `pool` option takes ({@link ForecastPool} is one).
 * @category Scaling
 */
export interface EndpointRunner {
  /**
   * The JSON result of a typed request of `endpoint`, computed by the
   * library's pipeline as the service's own `runEndpoint` computes it;
   * `options.onProgress` is called on the calling thread with the work's
   * progress (the service gives it for an async job's progress). A pool
   * splits a forecast, anomaly or historic request of several series over
   * its workers when the parts merge to exactly the whole answer
   * (`typedSplitBounds`; not with `onProgress`), as its entry points split
   * their bodies.
   */
  runEndpoint<E extends keyof EndpointRequests>(endpoint: E, request: EndpointRequests[E], options?: { readonly onProgress?: ProgressCallback }): Promise<EndpointResults[E]>;
}

/**
 * The main export's entry points on worker threads: the same arguments, the
 * same answers (byte-identical JSON), as Promises. Call options work as in
 * the one-thread call (`finetunedModels` is looked up on the calling
 * thread; `onProgress` is called on it, with the stages' counts summed over
 * the parts of a split request).
 * @category Scaling
 */
export interface ForecastPool extends EndpointRunner {
  /** Number of worker threads. */
  readonly threads: number;
  /** `forecast` on the pool, split by series. */
  forecast<L extends number = number>(body: JsonBody<ForecastRequest<L>> | string | Uint8Array, options?: CoreCallOptions): Promise<ForecastResult<LevelIntervals<L>>>;
  /** `detectAnomaliesOnline` on the pool, split by series. */
  detectAnomaliesOnline<L extends number = number, M extends "univariate" | "multivariate" = "univariate" | "multivariate">(
    body: JsonBody<AnomalyRequest<L, M>> | string | Uint8Array,
    options?: CoreCallOptions,
  ): Promise<AnomalyResult<AnomalyIntervals<L, M>>>;
  /** `historicForecast` on the pool, split by series. */
  historicForecast<L extends number = number>(body: JsonBody<HistoricRequest<L>> | string | Uint8Array, options?: CoreCallOptions): Promise<HistoricResult<LevelIntervals<L>>>;
  /** `finetune` on one worker (fine-tuning learns one model from all series: it is not split). */
  finetune(body: JsonBody<FinetuneRequest> | string | Uint8Array, options?: CoreCallOptions): Promise<FinetuneCallResult>;
  /** `forecastRecords` on one worker (the rows are copied to it). */
  forecastRecords<Row extends RecordRowFields, L extends number = never>(
    rows: readonly Row[],
    options: ForecastRecordOptions<L>,
    call?: CoreCallOptions,
  ): Promise<RecordsResult<ForecastRecord<Row["unique_id"], ResultDs<Row["ds"]>, L>>>;
  /** `detectAnomaliesRecords` on one worker. */
  detectAnomaliesRecords<Row extends RecordRowFields, L extends number = 99, M extends "univariate" | "multivariate" = "univariate">(
    rows: readonly Row[],
    options: RecordOptions<AnomalyRequest<L, M>>,
    call?: CoreCallOptions,
  ): Promise<RecordsResult<AnomalyRecord<Row["unique_id"], ResultDs<Row["ds"]>, L, M>>>;
  /** `historicForecastRecords` on one worker. */
  historicForecastRecords<Row extends RecordRowFields, L extends number = never>(
    rows: readonly Row[],
    options?: RecordOptions<HistoricRequest<L>>,
    call?: CoreCallOptions,
  ): Promise<RecordsResult<HistoricRecord<Row["unique_id"], ResultDs<Row["ds"]>, L>>>;
  /** `finetuneRecords` on one worker. */
  finetuneRecords(rows: readonly RecordRowFields[], options?: RecordOptions<FinetuneRequest>, call?: CoreCallOptions): Promise<FinetuneCallResult>;
  /**
   * Each worker's forecast memo, in worker order (`null` for every worker
   * when the pool was made without `memo`). A worker answers after the task
   * it is running; a replaced worker starts with an empty memo.
   */
  memoStats(): Promise<(PoolMemoStats | null)[]>;
  /**
   * Stops taking calls, lets every call already made finish, then stops the
   * workers. Calls made after `close()` reject.
   */
  close(): Promise<void>;
}

/**
 * The error a call gets when the worker computing it stopped (it crashed, ran
 * out of its heap limits or was terminated). The pool starts a new worker in
 * its place; other calls are not affected.
 * @category Scaling
 */
export class WorkerStoppedError extends Error {
  /** The worker's exit code. */
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.name = "WorkerStoppedError";
    this.exitCode = exitCode;
  }
}

/** One queued or running task. */
interface Job {
  readonly task: PoolTask;
  readonly transfer: TransferListItem[];
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly onProgress: ((p: { stage: string; done: number; total: number }) => void) | undefined;
  /** The worker (its index) that must run it; null: the first free one. */
  readonly worker: number | null;
  /**
   * The split call this job is a part of (a token per call), or null. A part
   * may wait in a busy worker's message queue behind a part of the same call
   * ({@link PREFETCHED_PARTS}), so that the worker starts it without waiting
   * for this thread to answer the last one. Only behind the same call's: if
   * the worker stops, the parts it held (their values moved to it) fail with
   * the call that was failing anyway.
   */
  readonly call: object | null;
}

/**
 * Parts of split calls a busy worker holds besides the one it computes. When a
 * worker finished a part and waited for the next, the wait was this thread's
 * wake-up, the reply's handling and the post: 1-9 ms each on two busy cores,
 * 13-18 ms of the workers' time per call of 1,000 x 500 (23 parts). A part
 * already in the worker's message queue starts at once. One is enough, and
 * more would let parts wait behind a slow one while the other worker idles.
 */
const PREFETCHED_PARTS = 1;

interface Slot {
  worker: Worker;
  /** The jobs posted to the worker, in order: the first is computing, the others (parts only) wait in its message queue. */
  jobs: Job[];
  /** The last uncaught error of the worker, for the message of its stop. */
  lastError: Error | null;
}

const WORKER_URL = new URL("./worker.js", import.meta.url);

/** The entry points by the endpoint of their bodies. */
const ENDPOINT_OF: Partial<Record<PoolFunction, SplitEndpoint>> = { forecast: "forecast", detectAnomaliesOnline: "anomaly", historicForecast: "historic" };

/** Whether a body travels as JSON text or bytes (parsed on a worker, never on the calling thread). */
function isTextBody(body: unknown): boolean {
  return typeof body === "string" || bodyBytes(body) !== null;
}

/** The parts of a split call, cut one at a time (`part` is null where the body must run whole). */
interface PartSource {
  readonly count: number;
  part(p: number): (RequestPart & { readonly transfer?: ArrayBuffer[] }) | null;
}

/**
 * The shelf's buffers a call borrowed (the shared copy of its text, the
 * shared buffer of its parts' values) and the tasks that may read them: the
 * buffers go back when every task has settled.
 */
interface Loans {
  readonly buffers: SharedArrayBuffer[];
  readonly tasks: Promise<unknown>[];
}

/** A {@link PartSource} over parts already cut. */
function partList(parts: readonly RequestPart[]): PartSource {
  return { count: parts.length, part: (p) => parts[p] ?? null };
}

/** Callers waiting for their turn on this thread ({@link nextTurn}), first come first served. */
const waitingTurns: (() => void)[] = [];
let turnScheduled = false;

/** Lets the first waiting caller go on, and schedules the next one's turn for the event loop's next round. */
function releaseTurn(): void {
  const go = waitingTurns.shift();
  if (waitingTurns.length > 0) setImmediate(releaseTurn);
  else turnScheduled = false;
  go?.();
}

/**
 * Yields to the event loop, and comes back in a turn of its own: one waiting caller per round of the loop (between
 * the parts of a big request, and before a body's split). With `setImmediate` alone, the calls made at once (50 bodies
 * sent together) all came back in the same round, and their splits ran back to back: one stall of their sum.
 *
 * @example
 * ```ts
 * let rounds = 0;
 * const tick = () => { rounds++; if (rounds < 10) setImmediate(tick); };
 * setImmediate(tick);
 * const seen: number[] = [];
 * await Promise.all([1, 2, 3].map(() => nextTurn().then(() => seen.push(rounds))));
 * new Set(seen).size; // three callers, three rounds of the loop
 * // => 3
 * ```
 */
export const nextTurn = (): Promise<void> =>
  new Promise((resolve) => {
    waitingTurns.push(resolve);
    if (!turnScheduled) {
      turnScheduled = true;
      setImmediate(releaseTurn);
    }
  });

/** {@link PoolOptions.workerNice} by default. */
const DEFAULT_WORKER_NICE = 10;

/** The calling thread's nice value (0 where it cannot be read). */
function callingThreadNice(): number {
  try {
    return getPriority(0);
  } catch {
    return 0;
  }
}

/**
 * Starts a pool of worker threads running the library's entry points.
 *
 * The pretrained parameters of every registered model are decoded once, into
 * `SharedArrayBuffer`s that every worker reads (no copy per thread). A
 * forecast, anomaly-detection or historic-forecast body is split by series
 * into parts of at most `partValues` values, shrinking toward the end, each
 * part's `y` moved to its worker as a `Float64Array` (transferred, not
 * copied), the parts computed in parallel and merged; a JSON text or bytes
 * body is parsed and split on a worker, so the calling thread never walks
 * its values. A body whose parts would not merge to exactly the single call's
 * answer (exogenous features, missing values, fine-tuning, multivariate
 * rules, an invalid or over-limit body) runs whole on one worker, as does a
 * request whose part failed (so its error is the single call's). Fine-tuning
 * and the records API run whole on one worker. `runEndpoint` (the service's
 * model calls) splits its typed requests by the same rules.
 *
 * A split request of `partValues` values or more has its parts' values in
 * one `SharedArrayBuffer` (each part's `y` a view of it), and a large JSON
 * body is copied into one; the
 * pool keeps these buffers (at most 64 and 256 MiB in all, the largest) and
 * lends them to later calls once no task reads them, so that the calling
 * thread's collector neither counts nor frees them per call.
 *
 * Workers do not keep the process alive while idle; `close()` stops them
 * and drops the kept buffers.
 *
 * @param options - threads, part size and worker heap limits.
 * @returns the pool.
 * @throws RangeError when `threads` is not an integer >= 1 or `partValues` not a number >= 1.
 *
 * @example
 * ```ts
 * const pool = createPool({ threads: 2 });
 * const y = Array.from({ length: 96 }, (_, t) => 100 + 10 * Math.sin((2 * Math.PI * t) / 24));
 * const body = { series: { y: [...y, ...y], sizes: [96, 96] }, freq: "H", h: 24, level: [80] };
 * const fromPool = await pool.forecast(body);
 * JSON.stringify(fromPool) === JSON.stringify(forecast(body)); // => true
 * await pool.close();
 * ```
 * @category Scaling
 */
export function createPool(options: PoolOptions = {}): ForecastPool {
  const threads = options.threads ?? Math.max(1, availableParallelism());
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`createPool: threads must be an integer >= 1, got ${String(threads)}`);
  const partValues = options.partValues ?? 32_768;
  if (typeof partValues !== "number" || !(partValues >= 1)) throw new RangeError(`createPool: partValues must be a number >= 1, got ${String(partValues)}`);
  const memoEntries = options.memo === undefined ? null : (options.memo.entries ?? FORECAST_MEMO_ENTRIES);
  if (memoEntries !== null && !(Number.isInteger(memoEntries) && memoEntries >= 1)) throw new RangeError(`createPool: memo.entries must be a positive integer, got ${String(memoEntries)}`);
  const workerNice = options.workerNice ?? DEFAULT_WORKER_NICE;
  if (!(Number.isInteger(workerNice) && workerNice >= 0 && workerNice <= 19)) throw new RangeError(`createPool: workerNice must be an integer from 0 to 19, got ${String(workerNice)}`);
  const workerData: PoolWorkerData = {
    forecastmodelPool: true,
    weights: sharedPretrainedParameters(),
    memo: memoEntries === null ? null : { entries: memoEntries },
    nice: workerNice === 0 ? null : Math.min(19, callingThreadNice() + workerNice),
  };

  const queue: Job[] = [];
  const slots: Slot[] = [];
  let nextId = 0;
  let closing = false;
  let activeCalls = 0;
  let idleWaiters: (() => void)[] = [];
  const running = new Map<number, Job>();
  /** The shared copies of large JSON bodies and the shared buffers of split bodies' values, kept for the next calls (64 and 256 MiB at most; `close()` drops them). */
  const carriers = carrierShelf(CARRIER_SHELF_COUNT);

  const startWorker = (): Slot => {
    const worker = new Worker(WORKER_URL, { workerData, ...(options.resourceLimits !== undefined ? { resourceLimits: options.resourceLimits } : {}) });
    const slot: Slot = { worker, jobs: [], lastError: null };
    worker.on("message", (reply: PoolReply) => {
      const job = running.get(reply.id);
      if (job === undefined) return;
      if ("progress" in reply) {
        job.onProgress?.(reply.progress);
        return;
      }
      running.delete(reply.id);
      const at = slot.jobs.indexOf(job);
      if (at >= 0) slot.jobs.splice(at, 1);
      if (reply.ok) job.resolve(reply.value);
      else job.reject(deserializeError(reply.error));
      dispatch();
    });
    worker.on("error", (error) => {
      slot.lastError = error;
    });
    worker.on("exit", (code) => {
      // the job it was computing, and parts of the same call waiting behind it
      const lost = slot.jobs;
      slot.jobs = [];
      for (const [id, j] of running) if (lost.includes(j)) running.delete(id);
      const index = slots.indexOf(slot);
      if (!closing || queue.length > 0 || lost.length > 0) {
        if (index >= 0) slots[index] = startWorker();
      } else if (index >= 0) slots.splice(index, 1);
      const why = slot.lastError !== null ? `: ${slot.lastError.message}` : "";
      for (const job of lost) job.reject(new WorkerStoppedError(`forecastmodel pool: the worker computing this call stopped (exit code ${code})${why}; a new worker took its place`, code));
      dispatch();
    });
    worker.unref();
    return slot;
  };

  /** Posts the queued job at `at` to worker `w`. */
  const post = (w: number, at: number): void => {
    const slot = slots[w] as Slot;
    const job = queue.splice(at, 1)[0] as Job;
    const id = nextId++;
    slot.jobs.push(job);
    running.set(id, job);
    slot.worker.postMessage({ id, task: job.task }, job.transfer);
  };

  const dispatch = (): void => {
    // each idle worker: the first job it may run (one for any worker, or one for it)
    for (let w = 0; w < slots.length && queue.length > 0; w++) {
      if ((slots[w] as Slot).jobs.length > 0) continue;
      const at = queue.findIndex((j) => j.worker === null || j.worker === w);
      if (at >= 0) post(w, at);
    }
    // each worker computing a part: the next part of the same call, to start without waiting for this thread
    for (let w = 0; w < slots.length && queue.length > 0; w++) {
      const jobs = (slots[w] as Slot).jobs;
      const head = jobs[0];
      if (head === undefined || head.call === null || jobs.length > PREFETCHED_PARTS) continue;
      const at = queue.findIndex((j) => j.call === head.call && (j.worker === null || j.worker === w));
      if (at >= 0) post(w, at);
    }
    // a busy worker keeps the process alive (its caller awaits it); an idle one does not
    for (const slot of slots) {
      if (slot.jobs.length > 0) slot.worker.ref();
      else slot.worker.unref();
    }
  };

  const submit = (task: PoolTask, transfer: TransferListItem[] = [], onProgress?: Job["onProgress"], worker: number | null = null, call: object | null = null): Promise<unknown> =>
    new Promise((resolve, reject) => {
      queue.push({ task, transfer, resolve, reject, onProgress, worker, call });
      dispatch();
    });

  for (let i = 0; i < threads; i++) slots.push(startWorker());

  /** Runs `work` as one call: refused after close(), counted so close() waits for it. */
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    if (closing) throw new Error("forecastmodel pool: the pool is closed");
    activeCalls++;
    try {
      return await work();
    } finally {
      activeCalls--;
      if (activeCalls === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  };

  /** The fine-tuned model a body names, looked up on this thread. */
  const finetunedFor = (id: unknown, lookup: CoreCallOptions["finetunedModels"]): { id: string; weights: FinetunedWeights } | null => {
    if (typeof id !== "string" || lookup === undefined) return null;
    const weights = lookup(id);
    return weights === undefined || weights === null ? null : { id, weights };
  };

  /** Progress of parts summed per stage (each part's latest report counts). */
  const progressOf = (options: CoreCallOptions, parts: number): ((part: number) => Job["onProgress"]) => {
    const report = options.onProgress;
    if (report === undefined) return () => undefined;
    const latest = new Map<string, { done: number[]; total: number[] }>();
    return (part) => (p) => {
      let stage = latest.get(p.stage);
      if (stage === undefined) {
        stage = { done: new Array<number>(parts).fill(0), total: new Array<number>(parts).fill(0) };
        latest.set(p.stage, stage);
      }
      stage.done[part] = p.done;
      stage.total[part] = p.total;
      report({ stage: p.stage as never, done: stage.done.reduce((a, b) => a + b, 0), total: stage.total.reduce((a, b) => a + b, 0) });
    };
  };

  /**
   * How a request is cut: with memos, a multiple of the thread count of equal parts of about `partValues` values,
   * at most one per series (part k always runs on worker k mod threads, and equal parts end together: 9 parts on 2
   * workers would leave one working alone); else a guided cut (`guidedCutPoints`): parts of at most `partValues`
   * values, shrinking toward the end, each taken by the first free worker, so that the workers finish together.
   */
  const wanted = (values: number, series: number): PartCut =>
    memoEntries === null ? { threads, partValues } : Math.min(series, threads * Math.ceil(Math.max(threads, Math.ceil(values / partValues)) / threads));
  /** The worker a part must run on: with memos, part k always on worker k mod threads (the same split of the same streams finds its forecasts); else the first free one. */
  const partWorker = (index: number): number | null => (memoEntries === null ? null : index % threads);
  /** Part `index` of a split call (`call`: a token of the call) submitted: on its worker, its failure judged later with the other parts' (mergedParts), not here. */
  const submitPart = (task: PoolTask, transfer: TransferListItem[], onProgress: Job["onProgress"], index: number, call: object): Promise<unknown> => {
    const result = submit(task, transfer, onProgress, partWorker(index), call);
    result.catch(() => undefined);
    return result;
  };

  /** A function of the main export run whole on one worker. */
  const wholeOn = (fn: PoolFunction, args: unknown[], options: CoreCallOptions, finetuned: { id: string; weights: FinetunedWeights } | null, asciiText = false): Promise<unknown> => {
    const task: PoolTask = { kind: "call", fn, args, limits: options.limits, finetuned, progress: options.onProgress !== undefined, asciiText };
    return submit(task, [], progressOf(options, 1)(0));
  };

  /** A JSON entry point: split by series when exact, else whole. */
  const entry = (fn: PoolFunction, body: unknown, options: CoreCallOptions = {}): Promise<unknown> =>
    call(() =>
      lending(async (loans) => {
        refuseMemo(options);
        const endpoint = ENDPOINT_OF[fn];
        const limits = resolveLimits(options.limits, DEFAULT_SERVICE_LIMITS);
        const text = isTextBody(body);
        // a large text goes to the workers as a shared copy made a slice per turn; the caller's value is never walked here
        const carried: TextCarrier = text ? await carriedText(typeof body === "string" ? body : (bodyBytes(body) as Uint8Array), nextTurn, undefined, carriers) : { body, asciiText: false };
        if (carried.body instanceof Uint8Array && carried.body.buffer instanceof SharedArrayBuffer) loans.buffers.push(carried.body.buffer);
        const wholeCall = (finetunedId: unknown) => wholeOn(fn, [carried.body], options, finetunedFor(finetunedId, options.finetunedModels), carried.asciiText);
        const objectId = (b: unknown) => (typeof b === "object" && b !== null ? (b as Record<string, unknown>).finetuned_model_id : undefined);
        const whole = async (finetunedId: unknown) => unpackResult(await wholeCall(finetunedId), nextTurn);
        if (endpoint === undefined || threads < 2) {
          if (!text || options.finetunedModels === undefined) return whole(objectId(body));
          // the fine-tuned model's id is inside the text: a worker reads it
          const peek = (await submit({ kind: "split", endpoint: "forecast", ...carried, parts: 1, limits })) as { finetunedId: string | null };
          return whole(peek.finetunedId);
        }
        // the parts, cut one at a time: a JSON body's by a worker (all at once), an object body's on this thread
        let source: PartSource | null;
        let finetunedId: unknown;
        if (text) {
          const size = typeof body === "string" ? body.length : (bodyBytes(body) as Uint8Array).byteLength;
          // about 9 bytes of JSON per value: the part count from the text's length; the values go into a shared buffer of
          // the shelf (room for a value per 8 bytes of text), so none pass through this thread's heap
          const shared = sharedValues(loans, Math.ceil(size / 9), Math.ceil(size / 8));
          const split = (await submit({ kind: "split", endpoint, ...carried, parts: wanted(Math.ceil(size / 9), Number.MAX_SAFE_INTEGER), limits, ...(shared !== undefined ? { values: shared.buffer as SharedArrayBuffer } : {}) })) as {
            parts: RequestPart[] | null;
            finetunedId: string | null;
          };
          source = split.parts === null ? null : partList(split.parts);
          finetunedId = split.finetunedId;
        } else {
          // the split reads the body: in a turn of its own, not in the caller's (many calls made at once)
          await nextTurn();
          const series = (body as { series?: { y?: unknown; sizes?: unknown } } | null)?.series;
          const values = Array.isArray(series?.y) || ArrayBuffer.isView(series?.y) ? (series?.y as ArrayLike<unknown>).length : 0;
          const count = Array.isArray(series?.sizes) ? series.sizes.length : 0;
          // the structure is checked now, each part's values as it is cut: the first part is on a worker before the
          // last value is read; the parts are views of one shared buffer of the shelf: no new buffer per part for this
          // thread's collector to count (each counted buffer brings the next collection nearer) and free
          source = lazyMovableParts(endpoint, body, wanted(values, count), limits, sharedValues(loans, values));
          finetunedId = objectId(body);
        }
        if (source === null) return whole(finetunedId);
        if (options.onProgress !== undefined && !text) {
          // with a progress callback every part is cut before any is sent: a part sent and then left (a value that is not
          // a finite number further on) would report progress beside the whole call's
          const cut = Array.from({ length: source.count }, (_, p) => source!.part(p));
          if (cut.some((part) => part === null)) return whole(finetunedId);
          source = partList(cut as RequestPart[]);
        }
        const finetuned = finetunedFor(finetunedId, options.finetunedModels);
        const progress = progressOf(options, source.count);
        const parts: RequestPart[] = [];
        const pending = loans.tasks;
        for (let p = 0; p < source.count; p++) {
          const part = source.part(p);
          // a value that is not a finite number (a missing value, or one the API refuses): the body runs whole, and the
          // parts already sent are left to finish unread
          if (part === null) return whole(finetunedId);
          parts.push(part);
          // each part's y is its own Float64Array (the split worker's, or the lazy split's copy): it moves, uncopied; or a
          // view of a shared buffer, shared
          const y = ((part.body as Record<string, unknown>).series as Record<string, unknown>).y;
          const transfer = part.transfer ?? (y instanceof Float64Array && y.buffer instanceof ArrayBuffer ? [y.buffer] : []);
          const task: PoolTask = { kind: "call", fn, args: [part.body], limits: options.limits, finetuned, progress: options.onProgress !== undefined };
          pending.push(submitPart(task, transfer, progress(part.index), part.index, parts));
          // cutting and posting a part is work on this thread: let the event loop in between parts
          if (!text) await nextTurn();
        }
        // the parts' row arrays came as Float64Arrays: joined straight into the answer's lists
        const merged = await mergedParts(parts, pending, true);
        return merged === null ? whole(finetunedId) : merged;
      }),
    );

  /**
   * Runs `work` with the shelf's buffers it borrows (`loans`), and puts them back once no task may read them: when
   * every task in `loans.tasks` has settled (a part left unread when a body ran whole may still be running after the
   * call has answered).
   */
  const lending = async <T>(work: (loans: Loans) => Promise<T>): Promise<T> => {
    const loans: Loans = { buffers: [], tasks: [] };
    try {
      return await work(loans);
    } finally {
      void Promise.allSettled(loans.tasks).then(() => {
        for (const buffer of loans.buffers) carriers.give(buffer);
      });
    }
  };

  /**
   * Room for `room` numbers (`values` by default) in a shared buffer of the shelf, lent to the call, when the request
   * has at least `partValues` values (`values`); else undefined (each part then moves a buffer of its own: 20 calls
   * of 10,000 values one after another, paired, took 1.04 and 1.06 of the time with a shared buffer, where two pools
   * of one build differ by 0.96-1.01: no gain shown).
   */
  const sharedValues = (loans: Loans, values: number, room = values): Float64Array | undefined => {
    if (values < partValues) return undefined;
    const buffer = carriers.take(8 * room);
    loans.buffers.push(buffer);
    return new Float64Array(buffer, 0, room);
  };

  const records = (fn: PoolFunction, rows: unknown, recordOptions: unknown, options: CoreCallOptions = {}): Promise<unknown> =>
    call(async () => {
      refuseMemo(options);
      return unpackResult(await wholeOn(fn, [rows, recordOptions], options, finetunedFor((recordOptions as { finetuned_model_id?: unknown } | undefined)?.finetuned_model_id, options.finetunedModels)), nextTurn);
    });

  return {
    threads,
    forecast: (body, options) => entry("forecast", body, options) as never,
    detectAnomaliesOnline: (body, options) => entry("detectAnomaliesOnline", body, options) as never,
    historicForecast: (body, options) => entry("historicForecast", body, options) as never,
    finetune: (body, options) => entry("finetune", body, options) as never,
    forecastRecords: (rows, options, callOptions) => records("forecastRecords", rows, options, callOptions) as never,
    detectAnomaliesRecords: (rows, options, callOptions) => records("detectAnomaliesRecords", rows, options, callOptions) as never,
    historicForecastRecords: (rows, options, callOptions) => records("historicForecastRecords", rows, options ?? {}, callOptions) as never,
    finetuneRecords: (rows, options, callOptions) => records("finetuneRecords", rows, options ?? {}, callOptions) as never,
    runEndpoint: (endpoint, request, endpointOptions) => {
      // a progress callback cannot cross threads: the worker posts reports, given here to `options.onProgress`
      const { onProgress: _dropped, ...plain } = request as { onProgress?: unknown };
      const onProgress = endpointOptions?.onProgress;
      const whole = (): Promise<unknown> => submit({ kind: "endpoint", endpoint, request: plain, progress: onProgress !== undefined }, [], onProgress as Job["onProgress"]);
      return call(async () => {
        if (threads < 2 || onProgress !== undefined || endpoint === "finetune") return whole();
        // split by series as the entry points' bodies are, when the parts merge to exactly the whole answer
        const typed = plain as unknown as SplitTypedRequest;
        const bounds = typedSplitBounds(typed, wanted(typed.series.y.length, typed.series.sizes.length));
        if (bounds === null) return whole();
        return lending(async (loans) => {
          const parts: RequestPart<SplitTypedRequest>[] = [];
          // the parts' values in one shared buffer of the shelf, as the entry points' parts
          const into = sharedValues(loans, typed.series.y.length);
          for (let p = 0; p + 1 < bounds.length; p++) {
            // each part's values are copied out in a turn of their own: the caller's event loop runs in between
            await nextTurn();
            const part = typedPart(endpoint, typed, bounds, p, into);
            parts.push(part);
            const transfer = into === undefined ? [part.body.series.y.buffer as ArrayBuffer] : [];
            loans.tasks.push(submitPart({ kind: "endpoint", endpoint, request: part.body, progress: false }, transfer, undefined, part.index, parts));
          }
          return (await mergedParts(parts, loans.tasks, false)) ?? whole();
        });
      }) as never;
    },
    memoStats: () => call(() => Promise.all(slots.map((_, w) => submit({ kind: "memoStats" }, [], undefined, w) as Promise<PoolMemoStats | null>))),
    close: async () => {
      closing = true;
      if (activeCalls > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
      carriers.clear();
      const stopping = slots.splice(0).map((slot) => slot.worker.terminate());
      await Promise.all(stopping);
    },
  };
}

/**
 * The results of a split request's parts (`pending`, in part order) merged into the whole request's, or `null` when
 * the whole request must be computed instead: a part refused (the whole body's error is the answer), warnings that
 * differ between parts or count the request's values (missing values), or a field `merge` does not join. A stopped
 * worker's error is thrown: it is the call's. `lists`: `Float64Array` fields join into plain lists (see `mergeSteps`).
 */
async function mergedParts(parts: readonly RequestPart<object>[], pending: readonly Promise<unknown>[], lists: boolean): Promise<Record<string, unknown> | null> {
  const settled = await Promise.allSettled(pending);
  const stopped = settled.find((r): r is PromiseRejectedResult => r.status === "rejected" && r.reason instanceof WorkerStoppedError);
  if (stopped !== undefined) throw stopped.reason;
  if (settled.some((r) => r.status === "rejected")) return null;
  const results = settled.map((r) => (r as PromiseFulfilledResult<{ warnings?: string[] }>).value);
  const first = JSON.stringify(results[0]?.warnings);
  if (results.some((r) => JSON.stringify(r.warnings) !== first || (r.warnings ?? []).some(isMissingValuesWarning))) return null;
  try {
    return await mergeInTurns(parts, results as Record<string, unknown>[], lists);
  } catch {
    return null;
  }
}

/**
 * {@link merge} of a split call's results with the calling thread's event
 * loop let in between fields (`mergeSteps`: a pause after each field and
 * between interval bounds): a large answer's block copies, and the garbage
 * collections its new arrays bring, never make one long turn.
 */
async function mergeInTurns(parts: readonly RequestPart<object>[], results: readonly Record<string, unknown>[], lists: boolean): Promise<Record<string, unknown>> {
  const steps = mergeSteps(parts, results, lists);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done === true) return step.value;
    await nextTurn();
  }
}

/** A forecast memo lives in one thread: the pool's calls refuse one rather than drop it. */
function refuseMemo(options: CoreCallOptions): void {
  if (options.memo !== undefined) throw new TypeError("memo: a forecast memo lives in one thread; the pool's calls do not take one (use it with the one-thread entry points or memoPipelines)");
}
