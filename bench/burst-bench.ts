/**
 * A burst of 2,000 mixed bad requests (test/support/bad-requests.ts: 20 kinds in
 * turn) against a service with the default limits and the real pipelines:
 * each answer's status against the one it must have, the latency per
 * request (p50 / p95 / p99 / max), sent back to back and in waves of 20 at
 * once (latency from the wave's start), and the heap before and after
 * (after a full GC; run with --expose-gc). Then the same with a 64 MiB gzip
 * bomb every 200th request, under the default 256 MiB body limit (the bomb
 * is decoded in full, then refused: its wave waits for it) and under a
 * 1 MiB limit.
 *
 *   npm run build && node --expose-gc dist/bench/burst-bench.js
 */
import "../src/model/weights/default.js";
import os from "node:os";
import type { ForecastService } from "../src/api/service.js";
import { badRequestBurst, burstService, type BadRequest } from "../test/support/bad-requests.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");
const heapMb = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function run(label: string, service: ForecastService, burst: BadRequest[], wave: number): Promise<void> {
  const before = heapMb();
  let peak = process.memoryUsage().heapUsed;
  const latencies: number[] = [];
  const wrong = new Map<string, number>();
  for (let i = 0; i < burst.length; i += wave) {
    const t0 = process.hrtime.bigint();
    await Promise.all(
      burst.slice(i, i + wave).map(async (bad: BadRequest) => {
        const res = await service.handle(bad.request);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (res.status !== bad.expected) wrong.set(`${bad.kind}: ${res.status}`, (wrong.get(`${bad.kind}: ${res.status}`) ?? 0) + 1);
      }),
    );
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const after = heapMb();
  latencies.sort((a, b) => a - b);
  const f = (ms: number) => ms.toFixed(2);
  console.log(
    `| ${label} | ${burst.length - [...wrong.values()].reduce((a, b) => a + b, 0)} / ${burst.length} | ${f(quantile(latencies, 0.5))} | ${f(quantile(latencies, 0.95))} | ${f(quantile(latencies, 0.99))} | ${f(latencies.at(-1)!)} | ${before.toFixed(1)} | ${(peak / 1024 / 1024).toFixed(1)} | ${after.toFixed(1)} | ${(after - before).toFixed(1)} |`,
  );
  for (const [what, count] of wrong) console.log(`  wrong status: ${what} (${count}×)`);
}

const plain = await burstService();
const small = await burstService(undefined, { maxBodyBytes: 1024 * 1024 });
console.log(`load average ${os.loadavg()[0]!.toFixed(1)} at the start`);
console.log("| burst | right status | p50 ms | p95 ms | p99 ms | max ms | heap before MB | heap peak MB | heap after MB | after − before MB |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
await run("2,000 mixed, back to back", plain.service, badRequestBurst(plain.finishedJob, 2000), 1);
await run("2,000 mixed, in waves of 20", plain.service, badRequestBurst(plain.finishedJob, 2000), 20);
await run("2,000 mixed + a gzip bomb every 200th, waves of 20, limit 256 MiB (default)", plain.service, badRequestBurst(plain.finishedJob, 2000, 200), 20);
await run("2,000 mixed + a gzip bomb every 200th, waves of 20, limit 1 MiB", small.service, badRequestBurst(small.finishedJob, 2000, 200), 20);
console.log(`${os.cpus()[0]?.model ?? "?"}; node ${process.version}; load average ${os.loadavg()[0]!.toFixed(1)} at the end`);
