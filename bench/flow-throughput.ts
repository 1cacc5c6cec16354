/**
 * Throughput of a large anomaly request through the BullMQ parts flow
 * (docs/recipes/bullmq-parts.ts) with 1 and with 2 worker processes
 * (docs/recipes/parts-worker-process.ts), beside the single in-process call.
 * Starts its own redis-server (Debian package redis-server).
 *
 *   npm run build && node dist/bench/flow-throughput.js [series] [points] [parts] [concurrent]
 *
 * Defaults: 2,000 series × 1,000 hourly points, h 24, detection_size 48, 8
 * parts. Each round submits the request, waits for the merged answer and
 * checks it equals the single call's JSON (wall time from submit to answer:
 * the latency of one request); then `concurrent` (default 4) requests are
 * submitted at once and their total time gives the throughput.
 */
import "../src/model/weights/default.js";
import type { ChildProcess } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { FlowProducer, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { MERGE_QUEUE, submitInParts, unpackNumbers } from "../docs/recipes/bullmq-parts.js";
import { detectAnomaliesOnline } from "../src/index.js";
import { flowBenchmarkRequest } from "../test/support/anomaly-request.js";
import { startRedis, type RedisUnderTest } from "../test/support/redis-server.js";
import { startProcess } from "../test/support/start-process.js";

const seriesCount = Number(process.argv[2] ?? 2000);
const points = Number(process.argv[3] ?? 1000);
const partsWanted = Number(process.argv[4] ?? 8);
const concurrent = Number(process.argv[5] ?? 4);

// a fresh server for each row; the first is started before the single call, so that a missing redis-server fails at once
let server: RedisUnderTest | null = await startRedis();
const request = flowBenchmarkRequest(seriesCount, points);
let started = process.hrtime.bigint();
const single = JSON.stringify(detectAnomaliesOnline(request));
const singleSeconds = Number(process.hrtime.bigint() - started) / 1e9;

const worker = fileURLToPath(new URL("../docs/recipes/parts-worker-process.js", import.meta.url));
const rows: string[] = [];
for (const processes of [1, 2]) {
  server ??= await startRedis();
  const connection = server.connection();
  const children: ChildProcess[] = [];
  for (let w = 0; w < processes; w++) children.push(await startProcess([worker], { REDIS_PORT: String(server.port) }, { marker: /ready/ }));
  const flow = new FlowProducer({ connection });
  const values = new Redis(connection);
  const events = new QueueEvents(MERGE_QUEUE, { connection });
  await events.waitUntilReady();
  const times: number[] = [];
  for (let round = 0; round < 2; round++) {
    started = process.hrtime.bigint();
    const node = await submitInParts(flow, values, request, partsWanted);
    const merged = unpackNumbers(await node.job.waitUntilFinished(events, 600_000));
    times.push(Number(process.hrtime.bigint() - started) / 1e9);
    if (JSON.stringify(merged) !== single) throw new Error("the merged answer differs from the single call");
  }
  const best = Math.min(...times);
  // throughput: `concurrent` requests submitted at once, so the producer's work overlaps the workers'
  started = process.hrtime.bigint();
  const nodes = [];
  for (let r = 0; r < concurrent; r++) nodes.push(await submitInParts(flow, values, request, partsWanted));
  const answers = await Promise.all(nodes.map(async (node) => unpackNumbers(await node.job.waitUntilFinished(events, 600_000))));
  const batchSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  for (const a of answers) if (JSON.stringify(a) !== single) throw new Error("the merged answer differs from the single call");
  rows.push(`| ${processes} | ${times.map((t) => t.toFixed(2)).join(", ")} | ${best.toFixed(2)} | ${batchSeconds.toFixed(2)} | ${(concurrent / batchSeconds).toFixed(3)} |`);
  console.log(`${processes} worker process(es): ${times.map((t) => t.toFixed(2)).join(", ")} s; ${concurrent} at once ${batchSeconds.toFixed(2)} s`);
  for (const c of children) c.kill("SIGTERM");
  await events.close();
  await flow.close();
  await values.quit();
  await server.stop();
  server = null;
}
console.log(`\n${seriesCount} series × ${points} points, ${partsWanted} parts; single in-process call ${singleSeconds.toFixed(2)} s`);
console.log(`| worker processes | one request, rounds (s) | best (s) | ${concurrent} requests at once (s) | requests/s |`);
console.log("|---:|---|---:|---:|---:|");
for (const r of rows) console.log(r);
console.log(`${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}; merged answers byte-identical to the single call`);
process.exit(0);
