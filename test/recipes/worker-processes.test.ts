/**
 * Fault test of the parts flow with real worker processes
 * (docs/recipes/parts-worker-process.ts, run through a TypeScript loader):
 * a worker process killed (SIGKILL) in the middle of a part; BullMQ's
 * stalled-job check gives the part to another process, and the merged answer
 * is still the single call's, byte for byte. Skipped (or, with
 * REQUIRE_REDIS=1, failed) without redis-server.
 */
import { Redis } from "ioredis";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { FlowProducer, QueueEvents } from "bullmq";
import { MERGE_QUEUE, submitInParts, unpackNumbers } from "../../docs/recipes/bullmq-parts.js";
import { detectAnomaliesOnline } from "../../src/index.js";
import { processesForSuite, redisForSuite, redisSuite } from "./redis-gate.js";

const { binary, suite } = redisSuite("the worker-process fault test");

const entry = fileURLToPath(new URL("../../docs/recipes/parts-worker-process.ts", import.meta.url));

suite("worker processes", () => {
  const redis = redisForSuite(binary);
  /** Starts a worker process; resolves once it printed "ready". `lines` receives its later output lines. */
  const startWorker = processesForSuite(redis, entry);

  it("a worker process killed mid-part: the part is computed again elsewhere, the answer is byte-identical", async () => {
    const y: number[] = [];
    const sizes: number[] = [];
    for (let i = 0; i < 12; i++) {
      sizes.push(90);
      for (let t = 0; t < 90; t++) y.push(30 + 8 * Math.sin((2 * Math.PI * t) / 7 + i) + ((t * 37 + i * 11) % 9) / 3 + (t === 86 && i % 4 === 0 ? 25 : 0));
    }
    const body = { series: { y, sizes }, freq: "D" as const, h: 7, detection_size: 7 };

    // the first worker stalls in every part it takes; it is killed in the middle of one
    const slowLines: string[] = [];
    const slow = await startWorker({ SLOW_PART_MS: "60000", LOCK_MS: "1000" }, slowLines);
    const flow = new FlowProducer({ connection: redis.connection() });
    const events = new QueueEvents(MERGE_QUEUE, { connection: redis.connection() });
    await events.waitUntilReady();
    const values = new Redis(redis.connection());
    const node = await submitInParts(flow, values, body, 3);
    for (let waited = 0; slowLines.length === 0 && waited < 20_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(slowLines[0]).toMatch(/^part \d started$/);
    slow.kill("SIGKILL");

    // a healthy worker process finishes the flow, the killed part included, once its lock has expired
    const healthy = await startWorker({ LOCK_MS: "1000" }, []);
    const merged = unpackNumbers(await node.job.waitUntilFinished(events, 60_000));
    expect(JSON.stringify(merged)).toBe(JSON.stringify(detectAnomaliesOnline(body)));
    healthy.kill("SIGTERM");
    await events.close();
    await values.quit();
    await flow.close();
  }, 90_000);
});
