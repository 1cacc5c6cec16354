/**
 * Recipe: a large request computed in parts on BullMQ workers. The request
 * is split with `partition` into a BullMQ flow: one child job per part on the
 * parts queue, and a parent job on the merge queue that BullMQ starts only
 * when every child is done; the parent `merge`s the children's results,
 * giving exactly the bytes of the single call. The request's values travel
 * once, as raw float64 bytes in one Redis key that each part reads its slice
 * of. Workers may run in any number
 * of processes or machines. Every part is deterministic, so a retried part
 * (a worker that crashed or was killed mid-part, a transient error) gives the
 * same result again. Type-checked and run against a real redis-server by
 * test/recipes/bullmq-parts.test.ts.
 *
 *   const flow = new FlowProducer({ connection });
 *   const redis = new Redis(connection);                         // holds the request's values
 *   const node = await submitInParts(flow, redis, body, 8);      // producer
 *   partsWorker(connection); mergeWorker(connection);            // in each worker process
 *   const result = unpackNumbers(await node.job.waitUntilFinished(mergeEvents));  // the merged answer
 */
import { randomUUID } from "node:crypto";
import { FlowProducer, Worker, type Job, type JobNode, type WorkerOptions } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { detectAnomaliesOnline, forecast, historicForecast, merge, partition, type RequestPart } from "../../src/index.js";

/** Queue of the parts (children). */
export const PARTS_QUEUE = "forecastmodel-parts";
/** Queue of the merges (parents). */
export const MERGE_QUEUE = "forecastmodel-merge";

/** Prefix of the Redis keys that hold a request's `series.y` as float64 bytes while its parts run. */
export const VALUES_KEY_PREFIX = "forecastmodel:values:";

/** Seconds a request's values stay in Redis at most (the merge deletes them as soon as it is done). */
export const VALUES_TTL_SECONDS = 24 * 3600;

/** Where a part's `series.y` is: the request's values key; the part's values are its `rowStart`/`rowCount` slice. */
export interface ValuesRef {
  readonly valuesKey: string;
}

/** What a part job carries: the part, with `series.y` replaced by a {@link ValuesRef}. */
export interface PartJobData {
  readonly part: RequestPart;
}

/** What the parent (merge) job carries. */
export interface MergeJobData {
  readonly parts: number;
  readonly valuesKey: string;
}

/**
 * Enqueues `body` as a flow of at most `k` parts and a merging parent.
 *
 * The request's `series.y` is written once to Redis as raw float64 bytes
 * (one key, {@link VALUES_KEY_PREFIX}, expiring after
 * {@link VALUES_TTL_SECONDS}); each part job carries the rest of its body and
 * reads its own slice with GETRANGE. Exact, and far cheaper than numbers in
 * the jobs' JSON: no decimal or base64 text for the producer to write, for
 * BullMQ to copy or for the workers to parse. A part is retried up to
 * `attempts` times (exponential backoff from 100 ms).
 *
 * @returns The flow's root node; `node.job` is the parent job to wait for.
 */
export async function submitInParts(flow: FlowProducer, redis: Redis, body: unknown, k: number, attempts = 3): Promise<JobNode> {
  const parts = partition(body, k);
  let total = 0;
  for (const part of parts) total += part.rowCount;
  const values = new Float64Array(total);
  for (const part of parts) values.set(partValues(part), part.rowStart);
  const valuesKey = `${VALUES_KEY_PREFIX}${randomUUID()}`;
  await redis.set(valuesKey, Buffer.from(values.buffer, values.byteOffset, values.byteLength), "EX", VALUES_TTL_SECONDS);
  return flow.add({
    name: "merge",
    queueName: MERGE_QUEUE,
    data: { parts: parts.length, valuesKey } satisfies MergeJobData,
    children: parts.map((part) => ({
      name: `part-${part.index}`,
      queueName: PARTS_QUEUE,
      data: { part: withValues(part, { valuesKey }) } satisfies PartJobData,
      opts: { attempts, backoff: { type: "exponential", delay: 100 } },
    })),
  });
}

/** The part's `series.y` (as the partition made it: a list of numbers). */
export function partValues(part: RequestPart): ArrayLike<number> {
  const y = (part.body as { series?: { y?: unknown } }).series?.y;
  if (!Array.isArray(y) && !(y instanceof Float64Array)) throw new TypeError(`part ${part.index}: series.y is not a list of numbers`);
  return y as ArrayLike<number>;
}

/** The part with `series.y` replaced (by a {@link ValuesRef} to send, by the values to compute). */
export function withValues(part: RequestPart, y: ValuesRef | Float64Array): RequestPart {
  const body = part.body as { series: Record<string, unknown> };
  return { ...part, body: { ...body, series: { ...body.series, y } } };
}

/** Reads a part's values from Redis: bytes 8·rowStart to 8·(rowStart + rowCount) − 1 of its values key. */
export async function loadPartValues(client: Pick<Redis, "getrangeBuffer">, part: RequestPart): Promise<RequestPart> {
  const ref = (part.body as { series: { y: ValuesRef } }).series.y;
  const bytes = await client.getrangeBuffer(ref.valuesKey, 8 * part.rowStart, 8 * (part.rowStart + part.rowCount) - 1);
  if (bytes.byteLength !== 8 * part.rowCount) throw new Error(`part ${part.index}: ${ref.valuesKey} holds ${bytes.byteLength} of the ${8 * part.rowCount} bytes expected (expired?)`);
  const values = new Float64Array(part.rowCount);
  new Uint8Array(values.buffer).set(bytes);
  return withValues(part, values);
}

/**
 * A JSON value with every list of 64 or more numbers replaced by
 * `{ float64: base64 }` of its bytes: exact, and far cheaper for Redis,
 * `JSON.stringify` and `JSON.parse` than decimals. `unpackNumbers` undoes it
 * (the lists come back as plain arrays, so the value is the same JSON).
 */
export function packNumbers(value: unknown): unknown {
  if (value instanceof Float64Array) return { float64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  if (Array.isArray(value)) {
    if (value.length >= 64 && value.every((v) => typeof v === "number")) {
      return { float64: Buffer.from(Float64Array.from(value as number[]).buffer).toString("base64") };
    }
    return value.map(packNumbers);
  }
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, packNumbers(v)]));
  return value;
}

/**
 * The inverse of {@link packNumbers}: packed lists come back as plain arrays
 * (the same JSON as before packing), or with `typed` as `Float64Array`s (what
 * `merge` joins by block copies, and `packNumbers` packs without a copy).
 */
export function unpackNumbers(value: unknown, typed = false): unknown {
  if (Array.isArray(value)) return value.map((v) => unpackNumbers(v, typed));
  if (typeof value === "object" && value !== null) {
    const packed = (value as { float64?: unknown }).float64;
    if (typeof packed === "string" && Object.keys(value).length === 1) {
      const bytes = Buffer.from(packed, "base64");
      const values = new Float64Array(bytes.byteLength / 8);
      new Uint8Array(values.buffer).set(bytes);
      return typed ? values : Array.from(values);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unpackNumbers(v, typed)]));
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
  connection: RedisOptions,
  options: { concurrency?: number; beforePart?: (job: Job<PartJobData>) => Promise<void>; worker?: Partial<WorkerOptions> } = {},
): Worker<PartJobData> {
  // the values are read on a connection of their own (binary replies, which BullMQ's client interface does not offer)
  const values = new Redis(connection);
  const worker = new Worker<PartJobData>(
    PARTS_QUEUE,
    async (job) => {
      if (options.beforePart !== undefined) await options.beforePart(job);
      return computePart(await loadPartValues(values, job.data.part));
    },
    { ...options.worker, connection, concurrency: options.concurrency ?? 1 },
  );
  worker.on("closed", () => values.disconnect());
  return worker;
}

/** A worker of the merge queue: the children's results, put in part order, merged. */
export function mergeWorker(connection: RedisOptions): Worker<MergeJobData> {
  const worker: Worker<MergeJobData> = new Worker<MergeJobData>(
    MERGE_QUEUE,
    async (job) => {
      const done = Object.values(await job.getChildrenValues<PartOutcome>()).sort((a, b) => a.part.index - b.part.index);
      // the parts' lists stay Float64Arrays from unpacking through merge to packing: block copies, no decimals
      const merged = packNumbers(merge(done.map((d) => ({ ...d.part, body: {} })), done.map((d) => unpackNumbers(d.result, true))));
      // every part is done: its values are no longer needed (a retried merge reads only the children's results)
      await (await worker.client).del(job.data.valuesKey);
      return merged;
    },
    { connection },
  );
  return worker;
}
