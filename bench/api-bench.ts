/**
 * API overhead benchmark: a POST /v2/forecast request of 100 daily series
 * (200 points each, h = 14, levels 80 and 95) answered four ways:
 *
 * 1. `runForecast(typedRequest, modelSource(typedRequest))`: the typed pipeline alone (no JSON);
 * 2. `forecast(body)`: the core entry point (validation + pipeline) on a parsed body;
 * 3. `service.handle(...)` with the body as JSON text, plus `JSON.stringify` of
 *    the response: what a host does (parse, key, credits, validation,
 *    pipeline, tokens, serialisation);
 * 4. the same `handle` over a stand-in pipeline that returns a precomputed
 *    result: the API layer's own cost, in milliseconds.
 *
 *   npm run build && node dist/bench/api-bench.js [series=100] [length=200] [runs=21]
 *
 * Reports the median over `runs` rounds (after 3 warm-up runs; cases interleaved) and the ratios
 * handle / runForecast and handle / forecast.
 */
import "../src/model/weights/default.js";
import seedrandom from "seedrandom";
import { forecast } from "../src/api/entry-points.js";
import { createService } from "../src/api/service.js";
import { runForecast } from "../src/forecast/index.js";
import type { ForecastInput, ForecastOutput } from "../src/types.js";
import { modelSource } from "../src/finetune/index.js";

const seriesCount = Number(process.argv[2] ?? 100);
const length = Number(process.argv[3] ?? 200);
const runs = Number(process.argv[4] ?? 21);
const h = 14;
const levels = [80, 95];

const u = seedrandom("api-bench");
const y: number[] = [];
for (let s = 0; s < seriesCount; s++) {
  const level = 20 + 80 * u();
  const amplitude = 2 + 10 * u();
  for (let t = 0; t < length; t++) y.push(level + amplitude * Math.sin((2 * Math.PI * t) / 7) + 2 * (u() - 0.5));
}
const sizes = new Array<number>(seriesCount).fill(length);
const body = { series: { y, sizes }, freq: "D", h, level: levels } as const;
const bodyText = JSON.stringify(body);

const offsets = new Int32Array(seriesCount + 1);
for (let i = 0; i < seriesCount; i++) offsets[i + 1] = (offsets[i] as number) + length;
const typed: ForecastInput = {
  series: { y: Float64Array.from(y), sizes: Int32Array.from(sizes), offsets, X: [] },
  h,
  levels,
  freq: "D",
  model: "forecastmodel-1",
  finetune: { steps: 0, loss: "default", depth: 1 },
  finetuned: null,
  multivariate: false,
  modelParameters: null,
  Xfuture: [],
  cleanExFirst: true,
  histExog: [],
};

const accounts = [{ id: "bench", apiKeys: ["bench-key"], credits: 1e15, hasPaymentMethod: true }];
const headers = { authorization: "Bearer bench-key", "content-type": "application/json" };
const service = createService({ accounts });
const precomputed: ForecastOutput = runForecast(typed, modelSource(typed));
const apiOnly = createService({
  accounts,
  pipelines: {
    forecast: () => precomputed,
    anomaly: () => {
      throw new Error("unused");
    },
    historic: () => {
      throw new Error("unused");
    },
    finetune: () => {
      throw new Error("unused");
    },
  },
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Times every case once per round, in rotating order (so machine load drifts hit all alike); returns medians. */
async function timeInterleaved(cases: readonly [string, () => unknown | Promise<unknown>][]): Promise<number[]> {
  for (const [, f] of cases) for (let i = 0; i < 3; i++) await f();
  const samples: number[][] = cases.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (let j = 0; j < cases.length; j++) {
      const k = (r + j) % cases.length;
      const t0 = performance.now();
      await (cases[k] as [string, () => unknown])[1]();
      (samples[k] as number[]).push(performance.now() - t0);
    }
  }
  return samples.map(median);
}

const cases: [string, () => unknown | Promise<unknown>][] = [
  ["runForecast(typed request, modelSource(typed request))", () => runForecast(typed, modelSource(typed))],
  ["forecast(parsed body)", () => forecast(body)],
  [
    "handle(JSON text) + JSON.stringify(response)",
    async () => {
      const res = await service.handle({ method: "POST", path: "/v2/forecast", headers, body: bodyText });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      return JSON.stringify(res.body);
    },
  ],
  [
    "same, stand-in pipeline (API layer only)",
    async () => {
      const res = await apiOnly.handle({ method: "POST", path: "/v2/forecast", headers, body: bodyText });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      return JSON.stringify(res.body);
    },
  ],
];

console.log(`API overhead: ${seriesCount} series × ${length} points, h = ${h}, levels ${levels.join(", ")}; median of ${runs} interleaved runs (ms)\n`);
console.log(`| ${"what".padEnd(46)} | ${"ms".padStart(9)} |`);
console.log(`|${"-".repeat(48)}|${"-".repeat(11)}|`);
const medians = await timeInterleaved(cases);
cases.forEach(([label], i) => console.log(`| ${label.padEnd(46)} | ${(medians[i] as number).toFixed(2).padStart(9)} |`));
const [direct, core, handled, overhead] = medians as [number, number, number, number];
console.log();
console.log(`handle / runForecast = ${(handled / direct).toFixed(3)}`);
console.log(`handle / forecast    = ${(handled / core).toFixed(3)}`);
console.log(`API layer alone: ${overhead.toFixed(2)} ms = ${((100 * overhead) / direct).toFixed(1)} % of runForecast`);
