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
import type { ModelName } from "../src/types.js";
import { forecastBenchRequest } from "./bench-data.js";
import { modelSource } from "../src/finetune/index.js";

const nSeries = Number(process.argv[2] ?? 1000);
const points = Number(process.argv[3] ?? 500);
const model = (process.argv[4] ?? "forecastmodel-1") as ModelName;
const h = 24;
const request = forecastBenchRequest(nSeries, points, model);
const { y, sizes, offsets } = request.series;
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
