/**
 * The BullMQ recipe (docs/recipes/bullmq-parts.ts) against a real
 * redis-server: a request split into a flow of parts and a merging parent
 * gives the single call's bytes, also when a part fails mid-way and is
 * retried. Skipped (or, with REQUIRE_REDIS=1, failed) without redis-server.
 */
import { beforeAll, expect, it } from "vitest";
import { FlowProducer, QueueEvents, type Worker } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { MERGE_QUEUE, mergeWorker, partsWorker, submitInParts, unpackNumbers, VALUES_KEY_PREFIX } from "../../docs/recipes/bullmq-parts.js";
import { detectAnomaliesOnline, forecast } from "../../src/index.js";
import { redisForSuite, redisSuite } from "./redis-gate.js";

const { binary, suite } = redisSuite("the BullMQ recipe tests");

/** `count` series of a daily-like pattern with noise and a spike near the end of some. */
function anomalyBody(count: number, length: number) {
  const y: number[] = [];
  for (let i = 0; i < count; i++) {
    for (let t = 0; t < length; t++) y.push(50 + 10 * Math.sin((2 * Math.PI * t) / 7 + i) + ((t * 7919 + i * 104729) % 13) / 4 + (t === length - 3 && i % 3 === 0 ? 40 : 0));
  }
  return { series: { y, sizes: Array.from({ length: count }, () => length) }, freq: "D" as const, h: 7, detection_size: 14, level: 99 };
}

suite("BullMQ flow of parts", () => {
  const redis = redisForSuite(binary);
  let connection: RedisOptions;
  let values: Redis;
  const workers: Worker[] = [];
  let flow: FlowProducer;
  let events: QueueEvents;

  beforeAll(async () => {
    connection = redis.connection();
    flow = new FlowProducer({ connection });
    values = new Redis(connection);
    redis.onStop(() => values.quit());
    events = new QueueEvents(MERGE_QUEUE, { connection });
    await events.waitUntilReady();
    redis.onStop(() => flow.close());
    redis.onStop(() => events.close());
    redis.onStop(() => Promise.all(workers.map((w) => w.close())));
  });

  it("an anomaly request in 5 parts on 2 workers: the merged answer is the single call's, byte for byte", async () => {
    workers.push(partsWorker(connection), partsWorker(connection), mergeWorker(connection));
    const body = anomalyBody(23, 120);
    const node = await submitInParts(flow, values, body, 5);
    const merged = unpackNumbers(await node.job.waitUntilFinished(events, 60_000));
    expect(JSON.stringify(merged)).toBe(JSON.stringify(detectAnomaliesOnline(body)));
    // the request's values were read from one key, deleted by the merge
    expect(await values.keys(`${VALUES_KEY_PREFIX}*`)).toEqual([]);
  }, 90_000);

  it("a part that fails on its first attempt is retried, and the answer is still the single call's", async () => {
    for (const w of workers.splice(0)) await w.close();
    const failed = new Set<string>();
    workers.push(
      partsWorker(connection, {
        beforePart: async (job) => {
          // the first attempt of every second part dies mid-way
          if (job.data.part.index % 2 === 0 && !failed.has(job.id!)) {
            failed.add(job.id!);
            throw new Error("worker died mid-part");
          }
        },
      }),
      mergeWorker(connection),
    );
    const body = { series: { y: Array.from({ length: 600 }, (_, t) => 100 + (t % 12) * 3 + ((t * 31) % 7)), sizes: [100, 150, 50, 200, 100] }, freq: "M" as const, h: 6, level: [80, 95] };
    const node = await submitInParts(flow, values, body, 4);
    const merged = unpackNumbers(await node.job.waitUntilFinished(events, 60_000));
    expect(failed.size).toBeGreaterThan(0);
    expect(JSON.stringify(merged)).toBe(JSON.stringify(forecast(body)));
  }, 90_000);
});
