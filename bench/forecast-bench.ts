/**
 * Zero-shot forecast benchmark: 1,000 hourly series × 500 points, h = 24,
 * conformal intervals at levels 80 and 95, one thread.
 *
 *   npm run build && node dist/bench/forecast-bench.js [series] [points] [model]
 *
 * The model defaults to forecastmodel-1 (the figures in bench/RESULTS.md);
 * `forecastmodel-1-high-frequency` (the default of H forecasts since issue 30)
 * may be given to compare the two on the same data.
 */
import "../src/model/weights/default.js";
import os from "node:os";
import { runForecast } from "../src/forecast/index.js";
import { pretrainedParameters } from "../src/model/weights.js";
import type { ForecastInput, ModelName } from "../src/types.js";
import { modelSource } from "../src/finetune/index.js";

const nSeries = Number(process.argv[2] ?? 1000);
const points = Number(process.argv[3] ?? 500);
const model = (process.argv[4] ?? "forecastmodel-1") as ModelName;
const h = 24;
const y = new Float64Array(nSeries * points);
let state = 12345;
const rand = (): number => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
for (let i = 0; i < nSeries; i++) {
  const level = 50 + 100 * rand();
  const amp = 5 + 20 * rand();
  for (let t = 0; t < points; t++) y[i * points + t] = level + amp * Math.sin((2 * Math.PI * t) / 24) + 3 * (rand() - 0.5) + 0.01 * t;
}
const sizes = new Int32Array(nSeries).fill(points);
const offsets = Int32Array.from({ length: nSeries + 1 }, (_, i) => i * points);
const request: ForecastInput = {
  series: { y, sizes, offsets, X: [] }, h, levels: [80, 95], freq: "H", model,
  finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null,
  Xfuture: [], cleanExFirst: true, histExog: [],
};
pretrainedParameters(model); // decode the weights outside the timed part
runForecast({ ...request, series: { y: y.subarray(0, points * 4), sizes: sizes.subarray(0, 4), offsets: offsets.subarray(0, 5), X: [] } }, modelSource(request)); // warm-up
const runs: number[] = [];
for (let r = 0; r < 3; r++) {
  const t0 = process.hrtime.bigint();
  const res = runForecast(request, modelSource(request));
  runs.push(Number(process.hrtime.bigint() - t0) / 1e9);
  if (res.mean.length !== nSeries * h) throw new Error("wrong output length");
}
const best = Math.min(...runs);
const peakMiB = process.resourceUsage().maxRSS / 1024;
console.log("| workload | best of 3 (s) | series/s | peak RSS (MiB) |");
console.log("|---|---|---|---|");
console.log(`| forecast ${nSeries} × ${points} hourly, h=${h}, levels 80+95, ${model} | ${best.toFixed(3)} | ${(nSeries / best).toFixed(0)} | ${peakMiB.toFixed(0)} |`);
console.log(`runs: ${runs.map((r) => r.toFixed(3)).join(", ")} s; ${os.cpus()[0]?.model ?? "?"}; load average ${os.loadavg()[0]!.toFixed(1)}`);
