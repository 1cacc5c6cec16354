/**
 * POST /v2/cross_validation with n_windows 100 on ~2 MB JSON bodies, through
 * the service with the real model (one thread): the time to the answer and
 * the peak RSS of the process, each case in a fresh process, and a digest of
 * the answer (equal digests: the same answer).
 *
 *   A: 1 daily series of 260,000 points, h 1, levels 80 and 95: admitted (100 windows of one series)
 *   B: 2,400 series of 110 points, h 1: refused by the work budget (2,400 network
 *      windows per CV window, more than 120,000 / 100)
 *   C: 500 series of 520 points, h 1: admitted (50,000 network windows)
 *
 *   npm run build && node dist/bench/cv-bench.js
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";

const CASES: Record<string, { series: number; length: number; level: number[] | null }> = {
  A: { series: 1, length: 260_000, level: [80, 95] },
  B: { series: 2_400, length: 110, level: null },
  C: { series: 500, length: 520, level: null },
};

async function runCase(name: string): Promise<void> {
  await import("../src/model/weights/default.js");
  const { createService } = await import("../src/api/service.js");
  const { series, length, level } = CASES[name]!;
  const y: number[] = [];
  for (let i = 0; i < series; i++) for (let t = 0; t < length; t++) y.push(Math.round((50 + 10 * Math.sin((2 * Math.PI * t) / 7) + ((t * 7919 + i * 104729) % 97) / 30) * 1e4) / 1e4);
  const body = JSON.stringify({ series: { y, sizes: new Array<number>(series).fill(length), X: null }, freq: "D", h: 1, n_windows: 100, step_size: 1, level, model: "forecastmodel-1" });
  const service = createService({ accounts: [{ id: "a", apiKeys: ["key-bench-0123"], credits: 1e12, hasPaymentMethod: true }] });
  const t0 = process.hrtime.bigint();
  const answer = await service.handle({ method: "POST", path: "/v2/cross_validation", headers: { authorization: "Bearer key-bench-0123" }, body });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const peak = process.resourceUsage().maxRSS / 1024;
  const digest = createHash("sha256").update(JSON.stringify(answer.body)).digest("hex").slice(0, 12);
  const outcome = answer.status === 200 ? `200, body sha256 ${digest}` : `${answer.status} ${JSON.stringify(answer.body).slice(0, 80)}`;
  console.log(`| ${name}: ${series} × ${length} (${(body.length / 1e6).toFixed(1)} MB) | ${seconds.toFixed(2)} | ${peak.toFixed(0)} | ${outcome} |`);
}

const which = process.argv[2];
if (which !== undefined) await runCase(which);
else {
  console.log("| case | seconds | peak RSS MiB | answer |\n|---|---:|---:|---|");
  for (const name of Object.keys(CASES)) process.stdout.write(execFileSync(process.execPath, [fileURLToPath(import.meta.url), name], { encoding: "utf8" }));
}
