/**
 * The largest request the default work budget (DEFAULT_SERVICE_LIMITS) admits
 * on every route, timed through the service's `handle` (one thread, the real
 * pipelines), each request first checked to be admitted (status 200):
 *
 * - POST /v2/forecast (and /v2/forecast/async, the records API's
 *   forecastRecords: the same work): maxNetworkWindows (60,000) network windows with levels;
 * - POST /v2/online_anomaly_detection: 30,000 windows counted twice (the
 *   cleaning pass), with a spike early in every series so that every window
 *   is forecast again (the worst case): many short series, and one long
 *   series with h 240 and step 1 (overlapping recursive windows);
 * - POST /v2/historic_forecast (and /v2/anomaly_detection, the same work
 *   plus flags): 60,000 historic windows;
 * - POST /v2/cross_validation (and its async route): 100 windows sharing
 *   the budget;
 * - POST /v2/finetune (and its async route): the most steps
 *   limits.maxFinetuneWindows admits at depth 1 with 128 series, at depth 5
 *   with one series and with 128, and for forecastmodel-1-long-horizon at
 *   depth 5 with one series;
 * - POST /forecastmodel (the older form): limits.maxValues (2,500,000) rows.
 *
 * Prints one line per request as it ends, then the table.
 *
 *   npm run build && node dist/bench/budget-bench.js
 */
import "../src/model/weights/default.js";
import os from "node:os";
import { DEFAULT_SERVICE_LIMITS, mostFinetuneSteps } from "../src/api/index.js";
import { createService } from "../src/api/service.js";

const service = createService({ accounts: [{ id: "bench", apiKeys: ["k"], credits: 1e15, hasPaymentMethod: true }] });

function series(count: number, length: number, spikeAt = -1): { y: number[]; sizes: number[] } {
  const y: number[] = [];
  for (let i = 0; i < count; i++) for (let t = 0; t < length; t++) y.push(50 + 10 * Math.sin((2 * Math.PI * t) / 24) + ((t * 7919 + i * 104729) % 97) / 30 + (t === spikeAt ? 500 : 0));
  return { y, sizes: new Array<number>(count).fill(length) };
}

const rows: string[] = [];
const LIMIT_SECONDS = 10;

async function time(label: string, path: string, body: unknown): Promise<void> {
  const t0 = process.hrtime.bigint();
  const res = await service.handle({ method: "POST", path, headers: path === "/forecastmodel" ? { "x-api-key": "k" } : { authorization: "Bearer k" }, body });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (res.status !== 200) throw new Error(`${label}: answered ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
  const row = `| ${path} | ${label} | ${seconds.toFixed(1)} | ${seconds <= LIMIT_SECONDS ? "yes" : "NO"} |`;
  console.log(row);
  rows.push(row);
}

console.log(`load average ${os.loadavg()[0]!.toFixed(1)} (1 min) at the start`);
const W = DEFAULT_SERVICE_LIMITS.maxNetworkWindows;
const F = DEFAULT_SERVICE_LIMITS.maxFinetuneWindows;
const fmt = (n: number): string => n.toLocaleString("en-US");

// W / 4 hourly series of 100 points, h 24, levels 80/95: 1 + 3 calibration windows each
await time(`${fmt(W / 4)} series × 100 points, h 24, levels 80/95 (${fmt(W)} windows)`, "/v2/forecast", { series: series(W / 4, 100), freq: "H", h: 24, level: [80, 95] });
// 2,142 series of 400 points, h 24, detection 48: 14 windows each, counted twice; a spike at t = 100 (before the calibration) in each
await time(`2,142 series × 400 points, h 24, detection 48, a spike in each (${fmt(2142 * 14 * 2)} windows)`, "/v2/online_anomaly_detection", {
  series: series(2142, 400, 100),
  freq: "H",
  h: 24,
  detection_size: 48,
});
// one series, h 240 (10 passes), step 1: 1 + (2,903 + 336 − 240) = 3,000 windows × 10 passes × 2
await time(`1 series × 12,000 points, h 240, step 1, detection 2,903, a spike (${fmt(3000 * 10 * 2)} windows)`, "/v2/online_anomaly_detection", {
  series: series(1, 12000, 6000),
  freq: "H",
  h: 240,
  step_size: 1,
  detection_size: 2903,
});
// 3,000 series of 576 points: (576 − 96) / 24 = 20 windows each
await time(`3,000 series × 576 points (${fmt(3000 * 20)} windows)`, "/v2/historic_forecast", { series: series(3000, 576), freq: "H" });
// 100 windows of step 1, h 24, levels 80/95: 150 series × 4 windows per cross-validation window
await time(`150 series × 223 points, h 24, n_windows 100, step 1, levels 80/95`, "/v2/cross_validation", {
  series: series(150, 223),
  freq: "H",
  h: 24,
  n_windows: 100,
  step_size: 1,
  level: [80, 95],
});
for (const [count, depth, model] of [
  [128, 1, "forecastmodel-1"],
  [1, 5, "forecastmodel-1"],
  [128, 5, "forecastmodel-1"],
  [1, 5, "forecastmodel-1-long-horizon"],
] as const) {
  const steps = mostFinetuneSteps(F, count, depth, model);
  await time(`${model}, ${count} series × 500 points, ${steps} steps, depth ${depth}`, "/v2/finetune", { series: series(count, 500), freq: "H", model, finetune_steps: steps, finetune_depth: depth });
}
// The older form: limits.maxValues hourly rows, h 24.
const start = Date.UTC(2000, 0, 1);
const df = Array.from({ length: DEFAULT_SERVICE_LIMITS.maxValues }, (_, i) => ({ ds: new Date(start + i * 3600e3).toISOString().slice(0, 19).replace("T", " "), y: 10 + Math.sin(i / 4) }));
await time(`${fmt(DEFAULT_SERVICE_LIMITS.maxValues)} hourly rows, h 24`, "/forecastmodel", { df, h: 24 });

console.log("");
console.log(`| route | largest admitted request | seconds | within ${LIMIT_SECONDS} s |`);
console.log("|---|---|---:|---|");
for (const r of rows) console.log(r);
console.log(`${os.cpus()[0]?.model ?? "?"}; node ${process.version}; load average ${os.loadavg()[0]!.toFixed(1)} (1 min) at the end`);
