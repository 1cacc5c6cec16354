/**
 * Recipe: the HTTP host of docs/http-server.md as several processes with
 * `node:cluster`, over the Redis store (docs/recipes/redis-store.ts), so that
 * every process sees the same credits, jobs and fine-tuned models. The
 * primary forks `WORKERS` processes that share one listening port; a process
 * that dies is forked again. Async jobs are run by one `runJobs` timer per
 * process: the store's compare-and-set claim makes sure each runs once (or
 * hand them to BullMQ workers, docs/recipes/bullmq-jobs.ts).
 *
 *   PORT=8080 WORKERS=2 REDIS_PORT=6379 ACCOUNTS='[{"id":"acme","apiKeys":["key-1"],"credits":1e9,"hasPaymentMethod":true}]' \
 *     node cluster-host.js
 *
 * Each process prints `listening <port>` once it accepts requests.
 */
import cluster from "node:cluster";
import { createServer } from "node:http";
import { Redis } from "ioredis";
import { createService, type ServiceAccount } from "../../src/index.js";
import { createRedisStore } from "./redis-store.js";

const port = Number(process.env.PORT ?? 8080);
const workers = Number(process.env.WORKERS ?? 2);

if (cluster.isPrimary) {
  let stopping = false;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on("exit", () => {
    if (!stopping) cluster.fork(); // a crashed process is replaced
    else if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0); // the last one has finished its requests
  });
  process.on("SIGTERM", () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
  });
} else {
  const redis = new Redis(Number(process.env.REDIS_PORT ?? 6379), process.env.REDIS_HOST ?? "127.0.0.1");
  const accounts = JSON.parse(process.env.ACCOUNTS ?? "[]") as ServiceAccount[];
  const service = createService({ accounts, store: createRedisStore(redis, process.env.REDIS_PREFIX ?? "forecastmodel:"), clock: () => new Date() });
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const out = await service.handle({ method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    res.writeHead(out.status, { ...out.headers, "x-worker": String(process.pid) });
    res.end(out.status === 204 ? undefined : JSON.stringify(out.body));
  });
  const jobs = setInterval(() => void service.runJobs(), 1000);
  server.listen(port, () => process.stdout.write(`listening ${port}\n`));
  process.on("SIGTERM", () => {
    clearInterval(jobs);
    server.close(() => {
      redis.disconnect();
      process.exit(0);
    });
  });
}
