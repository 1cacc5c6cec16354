/**
 * A short load test of the HTTP host as several processes over Redis
 * (docs/recipes/cluster-host.ts) with autocannon: requests per second,
 * latency percentiles, and the count of 5xx answers (must be 0). Starts its
 * own redis-server (Debian package redis-server) and host.
 *
 *   npm run build && node dist/bench/load-test.js [workers] [seconds] [connections]
 *
 * Requests: POST /v2/forecast of 4 daily series of 60 points, h 7, levels
 * 80 and 95, with the real model, from an account with a payment method.
 */
import { createRequire } from "node:module";
import os from "node:os";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { freePort, startRedis } from "../test/support/redis-server.js";
import { startProcess } from "../test/support/start-process.js";

const workers = Number(process.argv[2] ?? 2);
const seconds = Number(process.argv[3] ?? 10);
const connections = Number(process.argv[4] ?? 16);

const redis = await startRedis();
const port = await freePort();
const accounts = [{ id: "load", apiKeys: ["load-key"], credits: 1e12, hasPaymentMethod: true }];
const entry = fileURLToPath(new URL("../docs/recipes/cluster-host.js", import.meta.url));
// each worker process prints "listening <port>"
const host = await startProcess(
  [entry],
  { PORT: String(port), WORKERS: String(workers), REDIS_PORT: String(redis.port), ACCOUNTS: JSON.stringify(accounts) },
  { marker: /listening/, count: workers },
);

const series = { y: Array.from({ length: 240 }, (_, t) => 100 + 10 * Math.sin((2 * Math.PI * t) / 7) + ((t * 37) % 11)), sizes: [60, 60, 60, 60] };
const result = await autocannon({
  url: `http://127.0.0.1:${port}/v2/forecast`,
  method: "POST",
  headers: { authorization: "Bearer load-key", "content-type": "application/json" },
  body: JSON.stringify({ series, freq: "D", h: 7, level: [80, 95] }),
  connections,
  duration: seconds,
});
const fiveHundreds = result["5xx"];
console.log(`| host processes | connections | seconds | requests | requests/s (mean) | latency p50 (ms) | p99 (ms) | non-2xx | 5xx |`);
console.log(`|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
console.log(
  `| ${workers} | ${connections} | ${seconds} | ${result.requests.total} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${result.non2xx} | ${fiveHundreds} |`,
);
console.log(`${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}, autocannon ${(createRequire(import.meta.url)("autocannon/package.json") as { version: string }).version}`);
host.kill("SIGTERM");
await new Promise((r) => host.once("exit", r));
await redis.stop();
if (fiveHundreds > 0) process.exitCode = 1;
