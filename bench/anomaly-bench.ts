/**
 * Benchmark of online anomaly detection: 1,000 hourly series × 1,000 points,
 * h = 24, detection_size 48, univariate, with the real network
 * (forecastmodel-1) and, for comparison, the seasonal naive forecaster (the
 * pipeline's own cost). One process, one thread.
 *
 * Run: npm run build && node dist/bench/anomaly-bench.js [series] [points] [level]
 * (level 99 by default; above 99 the seasonal judge's interval bounds are bisected)
 */
import "../src/model/weights/default.js";
import { anomalyWindowCount, detectAnomalies } from "../src/anomaly/index.js";
import { seasonalNaiveForecaster } from "../src/cv/index.js";
import type { AnomalyInput, Forecaster, SeriesData } from "../src/types.js";
import { hourlyBenchValues, univariateAnomalyRequest } from "../test/support/anomaly-request.js";
import { modelSource, fixedModelSource } from "../src/finetune/index.js";

const seriesCount = Number(process.argv[2] ?? 1000);
const points = Number(process.argv[3] ?? 1000);
const h = 24;
const detectionSize = 48;
const level = Number(process.argv[4] ?? 99);

function makeSeries(): SeriesData {
  const y = hourlyBenchValues("anomaly-bench", seriesCount, points, true);
  const sizes = new Int32Array(seriesCount).fill(points);
  const offsets = Int32Array.from({ length: seriesCount + 1 }, (_, i) => i * points);
  return { y, sizes, offsets, X: [] };
}

function request(series: SeriesData): AnomalyInput {
  return univariateAnomalyRequest(series, "H", h, detectionSize, level);
}

function time(label: string, forecaster: Forecaster | undefined, series: SeriesData): string[] {
  const before = process.memoryUsage();
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  const req = request(series);
  const result = detectAnomalies(req, forecaster === undefined ? modelSource(req) : fixedModelSource(forecaster));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const after = process.memoryUsage();
  const flagged = result.anomaly.filter((f) => f).length;
  return [
    label,
    seconds.toFixed(2),
    cpuSeconds.toFixed(2),
    Math.round((seriesCount * points) / cpuSeconds).toLocaleString("en-US"),
    ((after.heapUsed - before.heapUsed) / 2 ** 20).toFixed(0),
    String(flagged),
  ];
}

const series = makeSeries();
const windows = anomalyWindowCount(detectionSize, h, h);
console.log(`# online anomaly detection: ${seriesCount} series × ${points} points, h ${h}, detection_size ${detectionSize}, level ${level}, univariate`);
console.log(`# ${windows} windows per series → ${windows * seriesCount} forecast rows; node ${process.version}, one thread`);
console.log("");
const rows = [["forecaster", "wall s", "CPU s", "points/CPU s", "heap Δ MiB", "flagged rows"]];
rows.push(time("seasonal naive (pipeline only)", seasonalNaiveForecaster(24), series));
rows.push(time("forecastmodel-1 (network)", undefined, series));
rows.push(time("forecastmodel-1 (network, 2nd run)", undefined, series));
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const [k, row] of rows.entries()) {
  console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(" | ")} |`);
  if (k === 0) console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
}
console.log("");
console.log(`peak RSS of the process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
console.log("(wall time includes waiting for a shared CPU; CPU s is the time this single thread ran)");
