/**
 * Fine-tune benchmark: 100 Adam steps at depth 1 and at depth 5 on 10 series
 * × 500 points (forecastmodel-1, daily), reporting seconds and peak memory.
 *
 *   npm run build && node dist/bench/finetune-bench.js
 *
 * Wall seconds depend on how busy the machine is; CPU seconds (user + system
 * of the process during fine-tuning) are the steadier figure. Each depth runs
 * in its own child process, so its peak resident set size
 * (`process.resourceUsage().maxRSS`) is its own. "baseline RSS" is the resident
 * set after loading the pretrained weights and before fine-tuning; the
 * difference is what fine-tuning itself adds (parameters, Adam moments,
 * gradient, activations).
 */
import "../src/model/weights/default.js";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { finetuneParameters } from "../src/finetune/index.js";
import { pretrainedParameters } from "../src/model/index.js";
import { finetuneBenchSeries } from "./bench-data.js";
import type { FinetuneDepth, ModelSpec, SeriesData } from "../src/types.js";

const SERIES = 10;
const LENGTH = 500;
const STEPS = 100;

/** 10 daily series: level + weekly season + trend + noise, seeded. */
function benchSeries(): SeriesData {
  return finetuneBenchSeries(SERIES, LENGTH);
}

interface RunResult {
  depth: number;
  seconds: number;
  cpuSeconds: number;
  baselineRssMiB: number;
  peakRssMiB: number;
  /** Mean training loss of steps 1–10 and 91–100 (each step sees other windows, so single steps are noisy). */
  firstLoss: number;
  lastLoss: number;
  changed: number;
}

function runOne(depth: FinetuneDepth): RunResult {
  const series = benchSeries();
  pretrainedParameters("forecastmodel-1");
  const baselineRssMiB = process.memoryUsage().rss / 2 ** 20;
  const spec: ModelSpec = {
    model: "forecastmodel-1",
    freq: "D",
    finetune: { steps: STEPS, loss: "default", depth },
    finetuned: null,
    multivariate: false,
    modelParameters: null,
  };
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const run = finetuneParameters(spec, series);
  const cpu = process.cpuUsage(c0);
  const seconds = (performance.now() - t0) / 1000;
  const meanLoss = (from: number, to: number): number => {
    let s = 0;
    for (let i = from; i < to; i++) s += run.stepLosses[i] as number;
    return s / (to - from);
  };
  const base = pretrainedParameters("forecastmodel-1");
  let changed = 0;
  for (let i = 0; i < base.length; i++) if (run.params[i] !== base[i]) changed++;
  return {
    depth,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    baselineRssMiB,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    firstLoss: meanLoss(0, 10),
    lastLoss: meanLoss(STEPS - 10, STEPS),
    changed,
  };
}

const depthArg = process.argv.indexOf("--depth");
if (depthArg >= 0) {
  const depth = Number(process.argv[depthArg + 1]) as FinetuneDepth;
  process.stdout.write(JSON.stringify(runOne(depth)) + "\n");
} else {
  const self = fileURLToPath(import.meta.url);
  const rows: RunResult[] = [];
  for (const depth of [1, 5]) {
    const out = execFileSync(process.execPath, [self, "--depth", String(depth)], { encoding: "utf8" });
    rows.push(JSON.parse(out.trim().split("\n").pop() as string) as RunResult);
  }
  console.log(`fine-tune benchmark: forecastmodel-1, freq D, ${SERIES} series x ${LENGTH} points, ${STEPS} steps, loss default (node ${process.version})`);
  console.log("| depth | wall s | CPU s | CPU s/step | baseline RSS MiB | peak RSS MiB | params changed | mean loss steps 1-10 | steps 91-100 |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.depth} | ${r.seconds.toFixed(2)} | ${r.cpuSeconds.toFixed(2)} | ${(r.cpuSeconds / STEPS).toFixed(3)} | ${r.baselineRssMiB.toFixed(0)} | ${r.peakRssMiB.toFixed(0)} | ${r.changed} | ${r.firstLoss.toFixed(4)} | ${r.lastLoss.toFixed(4)} |`,
    );
  }
}
