/**
 * Historic forecast benchmark: 1,000 series × 500 points with 5 exogenous
 * features, feature contributions and two interval levels (forecastmodel-1,
 * daily: 28 windows of 14 per series), reporting seconds and peak memory.
 *
 *   npm run build && node dist/bench/historic-bench.js [series=1000] [length=500]
 *
 * Each case runs in its own child process, so its peak resident set size
 * (`process.resourceUsage().maxRSS`) is its own. "baseline RSS" is the
 * resident set after building the request and loading the weights, before
 * the forecast. The "seasonal-naive" case replaces the network by a trivial
 * forecaster: it is the cost of everything except the network (windows,
 * regression, contributions, intervals, JSON-ready arrays).
 *
 * A last table times the per-series ridge solve alone: the closed-form
 * normal-equations solver of src/exogenous against ml-matrix's `solve` on the
 * same (p + 1) × (p + 1) systems.
 */
import "../src/model/weights/default.js";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Matrix, solve } from "ml-matrix";
import seedrandom from "seedrandom";
import { runHistoricForecast } from "../src/historic/index.js";
import { fitRidgeRegression } from "../src/exogenous/index.js";
import { pretrainedParameters } from "../src/model/index.js";
import type { Forecaster, HistoricInput, SeriesData } from "../src/types.js";
import { modelSource, fixedModelSource } from "../src/finetune/index.js";

const FEATURES = 5;

/** Daily series: level + weekly season + trend + Σ β_k·x_k + noise, seeded. */
function benchSeries(count: number, length: number): SeriesData {
  const u = seedrandom("historic-bench");
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const y = new Float64Array(count * length);
  const X = Array.from({ length: FEATURES }, () => new Float64Array(count * length));
  const betas = [3, -2, 0.5, 1, 0];
  for (let s = 0; s < count; s++) {
    const level = 50 + 100 * u();
    const amplitude = 5 + 20 * u();
    const trend = 0.05 * (u() - 0.5);
    for (let t = 0; t < length; t++) {
      const r = s * length + t;
      let v = level + amplitude * Math.sin((2 * Math.PI * t) / 7) + trend * t + 2 * normal();
      for (let k = 0; k < FEATURES; k++) {
        const x = k === 3 ? Math.sin((2 * Math.PI * t) / 30) : normal();
        (X[k] as Float64Array)[r] = x;
        v += (betas[k] as number) * x;
      }
      y[r] = v;
    }
  }
  const sizes = new Int32Array(count).fill(length);
  const offsets = Int32Array.from({ length: count + 1 }, (_, i) => i * length);
  return { y, sizes, offsets, X };
}

function benchRequest(series: SeriesData, cleanExFirst: boolean): HistoricInput {
  return {
    series,
    freq: "D",
    model: "forecastmodel-1",
    levels: [80, 95],
    cleanExFirst,
    featureContributions: true,
    finetune: { steps: 0, loss: "default", depth: 1 },
    finetuned: null,
    multivariate: false,
    modelParameters: null,
  };
}

const naive: Forecaster = {
  name: "seasonal-naive",
  seasonLength: 7,
  forecast(contexts, h) {
    const out = new Float64Array(contexts.length * h);
    contexts.forEach((c, i) => {
      for (let k = 0; k < h; k++) out[i * h + k] = c[c.length - 7 + (k % 7)] as number;
    });
    return out;
  },
};

interface CaseResult {
  seconds: number;
  baselineMB: number;
  peakMB: number;
  rows: number;
  weights: number[];
}

function runCase(kind: string, count: number, length: number): CaseResult {
  const series = benchSeries(count, length);
  const cleanExFirst = !kind.endsWith("false");
  const useNetwork = kind.startsWith("network");
  if (useNetwork) pretrainedParameters("forecastmodel-1");
  const baselineMB = process.memoryUsage().rss / 2 ** 20;
  const t0 = performance.now();
  const request = benchRequest(series, cleanExFirst);
  const result = runHistoricForecast(request, useNetwork ? modelSource(request) : fixedModelSource(naive));
  const seconds = (performance.now() - t0) / 1000;
  const peakMB = process.resourceUsage().maxRSS / 1024;
  return { seconds, baselineMB, peakMB, rows: result.mean.length, weights: Array.from(result.weightsX ?? [], (w) => Number(w.toFixed(4))) };
}

function solverComparison(count: number, length: number): { closedForm: number; mlMatrix: number; maxRelDiff: number } {
  const series = benchSeries(count, length);
  const columns = Array.from({ length: FEATURES }, () => new Float64Array(length));
  const closed: number[][] = [];
  let t0 = performance.now();
  for (let s = 0; s < count; s++) {
    const from = s * length;
    columns.forEach((c, k) => c.set((series.X[k] as Float64Array).subarray(from, from + length)));
    const fit = fitRidgeRegression(columns, series.y.subarray(from, from + length), { penalty: 0 });
    closed.push([fit.intercept, ...fit.coefficients]);
  }
  const closedForm = (performance.now() - t0) / 1000;
  let maxRelDiff = 0;
  t0 = performance.now();
  for (let s = 0; s < count; s++) {
    const from = s * length;
    const design = new Matrix(length, FEATURES + 1);
    for (let r = 0; r < length; r++) {
      design.set(r, 0, 1);
      for (let k = 0; k < FEATURES; k++) design.set(r, k + 1, (series.X[k] as Float64Array)[from + r] as number);
    }
    const target = Matrix.columnVector(Array.from(series.y.subarray(from, from + length)));
    const gram = design.transpose().mmul(design);
    const beta = solve(gram, design.transpose().mmul(target)).getColumn(0);
    beta.forEach((b, k) => {
      const c = (closed[s] as number[])[k] as number;
      maxRelDiff = Math.max(maxRelDiff, Math.abs(b - c) / Math.max(Math.abs(c), 1e-12));
    });
  }
  const mlMatrix = (performance.now() - t0) / 1000;
  return { closedForm, mlMatrix, maxRelDiff };
}

const args = process.argv.slice(2);
if (args[0] === "--case") {
  const [, kind, count, length] = args;
  process.stdout.write(JSON.stringify(runCase(kind as string, Number(count), Number(length))));
} else {
  const count = Number(args[0] ?? 1000);
  const length = Number(args[1] ?? 500);
  const self = fileURLToPath(import.meta.url);
  console.log(`historic forecast, ${count} series × ${length} points, ${FEATURES} features, contributions, levels [80, 95], forecastmodel-1 D`);
  console.log("| case | output rows | seconds | baseline RSS MB | peak RSS MB | weights_x |");
  console.log("|---|---|---|---|---|---|");
  for (const kind of ["network clean_ex_first=true", "network clean_ex_first=false", "seasonal-naive clean_ex_first=true", "seasonal-naive clean_ex_first=false"]) {
    let out: string;
    try {
      out = execFileSync(process.execPath, [self, "--case", kind, String(count), String(length)], { encoding: "utf8", maxBuffer: 1 << 24, stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? error);
      console.log(`| ${kind} | failed: ${stderr.split("\n").find((l) => /Error/.test(l)) ?? "see stderr"} | | | | |`);
      continue;
    }
    const r = JSON.parse(out) as CaseResult;
    console.log(`| ${kind} | ${r.rows} | ${r.seconds.toFixed(2)} | ${r.baselineMB.toFixed(0)} | ${r.peakMB.toFixed(0)} | ${r.weights.join(", ")} |`);
  }
  const solver = solverComparison(count, length);
  console.log("");
  console.log(`ridge solve alone (penalty 0), ${count} systems of ${length} rows × ${FEATURES} features + intercept`);
  console.log("| solver | seconds |");
  console.log("|---|---|");
  console.log(`| closed form (src/exogenous) | ${solver.closedForm.toFixed(3)} |`);
  console.log(`| ml-matrix normal equations + solve | ${solver.mlMatrix.toFixed(3)} |`);
  console.log(`max relative difference of the coefficients: ${solver.maxRelDiff.toExponential(2)}`);
}
