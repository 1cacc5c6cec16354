/**
 * The largest request the default work budget (DEFAULT_SERVICE_LIMITS) admits
 * on each endpoint, timed through the core functions (one thread):
 * 120,000 network windows for forecast (with levels), online anomaly detection
 * and the historic forecast, 50,000 fine-tuning windows at depth 5, and the
 * older form with 5,000,000 rows (limits.maxValues).
 *
 *   npm run build && node dist/bench/budget-bench.js
 */
import "../src/model/weights/default.js";
import os from "node:os";
import { DEFAULT_SERVICE_LIMITS } from "../src/api/index.js";
import { detectAnomaliesOnline, finetune, forecast, historicForecast } from "../src/api/entry-points.js";
import { createService } from "../src/api/service.js";

function series(count: number, length: number): { y: number[]; sizes: number[] } {
  const y: number[] = [];
  for (let i = 0; i < count; i++) for (let t = 0; t < length; t++) y.push(50 + 10 * Math.sin((2 * Math.PI * t) / 24) + ((t * 7919 + i * 104729) % 97) / 30);
  return { y, sizes: new Array<number>(count).fill(length) };
}

function time(label: string, run: () => unknown): string {
  const t0 = process.hrtime.bigint();
  run();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return `| ${label} | ${seconds.toFixed(1)} |`;
}

const W = DEFAULT_SERVICE_LIMITS.maxNetworkWindows;
const rows = [
  // 30,000 hourly series of 100 points, h 24, levels 80/95: 1 + 3 calibration windows each
  time(`forecast: ${(W / 4).toLocaleString("en-US")} series × 100 points, h 24, levels 80/95 (${W.toLocaleString("en-US")} windows)`, () =>
    forecast({ series: series(W / 4, 100), freq: "H", h: 24, level: [80, 95] })),
  // 8,571 series of 400 points, h 24, detection 48: 14 windows each
  time(`online anomaly detection: 8,571 series × 400 points, h 24, detection 48 (${(8571 * 14).toLocaleString("en-US")} windows)`, () =>
    detectAnomaliesOnline({ series: series(8571, 400), freq: "H", h: 24, detection_size: 48 })),
  // 6,000 series of 576 points: (576 − 96) / 24 = 20 windows each
  // (with levels the response size limit, 5,000,000 numbers, binds first: 1,736 series with levels 80/95)
  time(`historic forecast: 6,000 series × 576 points (${(6000 * 20).toLocaleString("en-US")} windows)`, () =>
    historicForecast({ series: series(6000, 576), freq: "H" })),
  // 390 steps × batch 128 = 49,920 windows, depth 5
  time(`fine-tune: 128 series × 500 points, 390 steps, depth 5 (49,920 windows)`, () =>
    finetune({ series: series(128, 500), freq: "H", finetune_steps: 390, finetune_depth: 5 })),
];
// The older form (POST /forecastmodel): 5,000,000 hourly rows (limits.maxValues), h 24, through the service.
const service = createService({ accounts: [{ id: "bench", apiKeys: ["k"], credits: 1e15, hasPaymentMethod: true }] });
const start = Date.UTC(2000, 0, 1);
const df = Array.from({ length: DEFAULT_SERVICE_LIMITS.maxValues }, (_, i) => ({ ds: new Date(start + i * 3600e3).toISOString().slice(0, 19).replace("T", " "), y: 10 + Math.sin(i / 4) }));
const t0 = process.hrtime.bigint();
const legacy = await service.handle({ method: "POST", path: "/forecastmodel", headers: { "x-api-key": "k" }, body: { df, h: 24 } });
if (legacy.status !== 200) throw new Error(`older form: ${legacy.status}`);
rows.push(`| older form (POST /forecastmodel): 5,000,000 hourly rows, h 24 | ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)} |`);
console.log("| largest admitted request | seconds |");
console.log("|---|---:|");
for (const r of rows) console.log(r);
console.log(`${os.cpus()[0]?.model ?? "?"}; node ${process.version}; load average ${os.loadavg()[0]!.toFixed(1)}`);
