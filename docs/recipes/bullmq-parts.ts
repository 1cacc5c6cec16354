/**
 * Recipe: a large request computed in parts on BullMQ workers. The request
 * is split with `partition` into a BullMQ flow: one child job per part on the
 * parts queue, and a parent job on the merge queue that BullMQ starts only
 * when every child is done; the parent `merge`s the children's results,
 * giving exactly the bytes of the single call. Workers may run in any number
 * of processes or machines. Every part is deterministic, so a retried part
 * (a worker that crashed or was killed mid-part, a transient error) gives the
 * same result again. Type-checked and run against a real redis-server by
 * test/recipes/bullmq-parts.test.ts.
 *
 *   const flow = new FlowProducer({ connection });
 *   const parent = await submitInParts(flow, body, 8);           // producer
 *   partsWorker(connection); mergeWorker(connection);            // in each worker process
 *   const result = unpackNumbers(await parent.waitUntilFinished(mergeEvents));  // the merged answer
 */
import { FlowProducer, Worker, type ConnectionOptions, type Job, type JobNode, type WorkerOptions } from "bullmq";
import { detectAnomaliesOnline, forecast, historicForecast, merge, partition, type RequestPart } from "../../src/index.js";

/** Queue of the parts (children). */
export const PARTS_QUEUE = "forecastmodel-parts";
/** Queue of the merges (parents). */
export const MERGE_QUEUE = "forecastmodel-merge";

/** What a part job carries: the part (its body and where its series sit in the request), with `series.y` packed. */
export interface PartJobData {
  readonly part: RequestPart;
}

/**
 * A part as it travels through Redis: `series.y` as base64 of its float64
 * bytes instead of JSON numbers (exact, about 3× smaller and far faster to
 * write and read than 17-digit decimals). `unpackPart` gives the part back,
 * with `y` a `Float64Array` (the entry points take typed arrays as lists).
 */
export function packPart(part: RequestPart): RequestPart {
  const body = part.body as { series?: { y?: unknown } };
  const y = body.series?.y;
  if (!Array.isArray(y)) return part;
  const bytes = Buffer.from(Float64Array.from(y as number[]).buffer);
  return { ...part, body: { ...body, series: { ...body.series, y: { float64: bytes.toString("base64") } } } };
}

/** The inverse of {@link packPart}. */
export function unpackPart(part: RequestPart): RequestPart {
  const body = part.body as { series?: { y?: unknown } };
  const y = body.series?.y as { float64?: string } | undefined;
  if (y === undefined || typeof y.float64 !== "string") return part;
  const bytes = Buffer.from(y.float64, "base64");
  const values = new Float64Array(bytes.byteLength / 8);
  new Uint8Array(values.buffer).set(bytes);
  return { ...part, body: { ...body, series: { ...body.series, y: values } } };
}

/**
 * Enqueues `body` as a flow of at most `k` parts and a merging parent.
 * A part is retried up to `attempts` times (exponential backoff from 100 ms).
 *
 * @returns The flow's root node; `node.job` is the parent job to wait for.
 */
export async function submitInParts(flow: FlowProducer, body: unknown, k: number, attempts = 3): Promise<JobNode> {
  const parts = partition(body, k);
  return flow.add({
    name: "merge",
    queueName: MERGE_QUEUE,
    data: { parts: parts.length },
    children: parts.map((part) => ({
      name: `part-${part.index}`,
      queueName: PARTS_QUEUE,
      data: { part: packPart(part) } satisfies PartJobData,
      opts: { attempts, backoff: { type: "exponential", delay: 100 } },
    })),
  });
}

/**
 * A JSON value with every list of 64 or more numbers replaced by
 * `{ float64: base64 }` of its bytes: exact, and far cheaper for Redis,
 * `JSON.stringify` and `JSON.parse` than decimals. `unpackNumbers` undoes it
 * (the lists come back as plain arrays, so the value is the same JSON).
 */
export function packNumbers(value: unknown): unknown {
  if (Array.isArray(value)) {
    if (value.length >= 64 && value.every((v) => typeof v === "number")) {
      return { float64: Buffer.from(Float64Array.from(value as number[]).buffer).toString("base64") };
    }
    return value.map(packNumbers);
  }
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, packNumbers(v)]));
  return value;
}

/** The inverse of {@link packNumbers}. */
export function unpackNumbers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unpackNumbers);
  if (typeof value === "object" && value !== null) {
    const packed = (value as { float64?: unknown }).float64;
    if (typeof packed === "string" && Object.keys(value).length === 1) {
      const bytes = Buffer.from(packed, "base64");
      const values = new Float64Array(bytes.byteLength / 8);
      new Uint8Array(values.buffer).set(bytes);
      return Array.from(values);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unpackNumbers(v)]));
  }
  return value;
}

/** What a part job returns: where the part sits (its descriptor, without the body) and its result (numbers packed). */
export interface PartOutcome {
  readonly part: Omit<RequestPart, "body">;
  readonly result: unknown;
}

/** Computes one part with the endpoint of its kind (the same function the single call uses). */
export function computePart(part: RequestPart): PartOutcome {
  const body = part.body as never;
  const result = part.kind === "anomaly" ? detectAnomaliesOnline(body) : part.kind === "historic" ? historicForecast(body) : forecast(body);
  const { body: _body, ...where } = part;
  return { part: where, result: packNumbers(result) };
}

/**
 * A worker of the parts queue. `beforePart` is a hook for tests (e.g. to fail
 * or stall a given attempt).
 */
export function partsWorker(
  connection: ConnectionOptions,
  options: { concurrency?: number; beforePart?: (job: Job<PartJobData>) => Promise<void>; worker?: Partial<WorkerOptions> } = {},
): Worker<PartJobData> {
  return new Worker<PartJobData>(
    PARTS_QUEUE,
    async (job) => {
      if (options.beforePart !== undefined) await options.beforePart(job);
      return computePart(unpackPart(job.data.part));
    },
    { ...options.worker, connection, concurrency: options.concurrency ?? 1 },
  );
}

/** A worker of the merge queue: the children's results, put in part order, merged. */
export function mergeWorker(connection: ConnectionOptions): Worker {
  return new Worker(
    MERGE_QUEUE,
    async (job) => {
      const done = Object.values(await job.getChildrenValues<PartOutcome>()).sort((a, b) => a.part.index - b.part.index);
      return packNumbers(merge(done.map((d) => ({ ...d.part, body: {} })), done.map((d) => unpackNumbers(d.result))));
    },
    { connection },
  );
}
