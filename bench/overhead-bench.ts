/**
 * The kernel's share of each entry point (issue 28, part 2): CPU time of the
 * whole call beside the CPU time spent inside the dense kernel (every
 * `DenseKernel` call of every `NetworkRunner`: the WebAssembly layers) and
 * inside the network passes (`forward`, `forwardSpread`, `backward`,
 * `backwardSpread`: the kernel plus layer norms, the projection mix and the
 * spread head's softplus), best of several runs, one thread:
 *
 * - forecast: the forecast-bench request (1,000 hourly series × 500 points,
 *   h 24, levels 80 and 95, forecastmodel-1);
 * - anomaly: the anomaly-bench request (hourly, 1,000 points per series, h 24,
 *   detection_size 48, level 99), per scored point;
 * - streaming: the streaming-bench call (264 points per stream, h 1,
 *   detection_size 24, step 1), per scored point;
 * - fine-tune: the finetune-bench run (10 daily series × 500 points, 100 Adam
 *   steps, depth 1), per step.
 *
 *   npm run build && node dist/bench/overhead-bench.js [forecastSeries] [anomalySeries] [streams] [runs]
 *
 * Defaults: 1000, 300, 200, 5. CPU times come from `process.cpuUsage()`
 * (the process: V8's helper threads count too), read around each kernel
 * call, so the kernel figure carries a small timing cost of its own (about
 * 1 µs per call, a few thousand calls per forecast). Beside the process's
 * CPU time, "this thread" is the run time of the calling thread alone
 * (Linux's /proc/thread-self/schedstat): the one-thread time issue 28 asks
 * to bring within 2× of the kernel's, without the CPU of V8's helper
 * threads (concurrent marking and sweeping, background compilation), which
 * run beside the call on another core. (The kernel calls' wall time, read
 * with `process.hrtime` in a trial run, matched their CPU time within 1 %,
 * so helper threads add next to nothing to the kernel figure.) Both ratios
 * are printed: "CPU / kernel" and "this thread / kernel".
 */
import "../src/model/weights/default.js";
import { readFileSync } from "node:fs";
import os from "node:os";
import seedrandom from "seedrandom";
import { detectAnomalies } from "../src/anomaly/index.js";
import { finetuneParameters, modelSource } from "../src/finetune/index.js";
import { runForecast } from "../src/forecast/index.js";
import { NetworkRunner } from "../src/model/network.js";
import { pretrainedParameters } from "../src/model/weights.js";
import type { DenseKernel } from "../src/model/kernel/dense.js";
import type { ModelSpec } from "../src/types.js";
import { hourlyBenchValues, univariateAnomalyRequest } from "../test/support/anomaly-request.js";
import { finetuneBenchSeries, forecastBenchRequest } from "./bench-data.js";

const forecastSeries = Number(process.argv[2] ?? 1000);
const anomalySeries = Number(process.argv[3] ?? 300);
const streams = Number(process.argv[4] ?? 200);
const runs = Number(process.argv[5] ?? 5);

/**
 * Nanoseconds this thread has run (Linux: the first field of /proc/thread-self/schedstat), or null elsewhere: the
 * call's own thread, without V8's helper threads (concurrent marking, background compilation) that the process's
 * CPU time counts.
 */
const threadNs = (): number | null => {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]);
  } catch {
    return null;
  }
};

/** Microseconds of CPU time of this process so far. */
const cpuNow = (): number => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

const spent = { kernel: 0, network: 0 };
let depth = 0; // network passes nest (forwardSpread after forward is not nested, but be safe)
const wrapped = new WeakSet<DenseKernel>();
type Method = (this: NetworkRunner, ...args: unknown[]) => void;
const runnerMethods = NetworkRunner.prototype as unknown as Record<string, Method>;
for (const name of ["forward", "forwardSpread", "backward", "backwardSpread"]) {
  const original = runnerMethods[name]!;
  runnerMethods[name] = function (this: NetworkRunner, ...args: unknown[]): void {
    const kernel = this.kernel;
    if (!wrapped.has(kernel)) {
      wrapped.add(kernel);
      const calls = kernel as unknown as Record<string, (...a: unknown[]) => void>;
      for (const f of ["forward", "backward", "relu", "addInto"]) {
        const call = calls[f]!.bind(kernel);
        calls[f] = (...a: unknown[]): void => {
          const t0 = cpuNow();
          call(...a);
          spent.kernel += cpuNow() - t0;
        };
      }
    }
    const t0 = depth === 0 ? cpuNow() : 0;
    depth++;
    try {
      original.apply(this, args);
    } finally {
      depth--;
      if (depth === 0) spent.network += cpuNow() - t0;
    }
  };
}

interface Measure {
  cpu: number;
  /** This thread's run time (ms), or NaN where it cannot be read. */
  thread: number;
  wall: number;
  kernel: number;
  network: number;
}

/** Best of `runs` calls (least CPU time) after one warm-up call. */
function measure(work: () => void): Measure {
  work();
  let best: Measure | null = null;
  for (let r = 0; r < runs; r++) {
    spent.kernel = 0;
    spent.network = 0;
    const w0 = process.hrtime.bigint();
    const t0 = threadNs();
    const c0 = cpuNow();
    work();
    const c1 = cpuNow();
    const t1 = threadNs();
    const m = { cpu: (c1 - c0) / 1e3, thread: t0 === null || t1 === null ? Number.NaN : (t1 - t0) / 1e6, wall: Number(process.hrtime.bigint() - w0) / 1e6, kernel: spent.kernel / 1e3, network: spent.network / 1e3 };
    if (best === null || m.cpu < best.cpu) best = m;
  }
  return best!;
}

function row(label: string, m: Measure, units: number, unit: string): string {
  const per = (ms: number): string => `${((1000 * ms) / units).toFixed(1)} µs`;
  const thread = Number.isNaN(m.thread) ? "—" : m.thread.toFixed(0);
  const threadRatio = Number.isNaN(m.thread) ? "—" : (m.thread / m.kernel).toFixed(2);
  return `| ${label} | ${m.wall.toFixed(0)} | ${m.cpu.toFixed(0)} | ${thread} | ${m.kernel.toFixed(0)} | ${m.network.toFixed(0)} | ${(m.cpu / m.kernel).toFixed(2)} | ${threadRatio} | ${((100 * m.kernel) / m.cpu).toFixed(1)} % | ${per(m.cpu)} / ${unit} |`;
}

const rows: string[] = [];

// forecast: the forecast-bench request
{
  const points = 500;
  const request = forecastBenchRequest(forecastSeries, points, "forecastmodel-1");
  pretrainedParameters("forecastmodel-1");
  rows.push(row(`forecast ${forecastSeries} × ${points}, h 24, levels 80+95`, measure(() => runForecast(request, modelSource(request))), forecastSeries, "series"));
}

// anomaly detection: the anomaly-bench request
{
  const points = 1000;
  const y = hourlyBenchValues("anomaly-bench", anomalySeries, points, true);
  const series = { y, sizes: new Int32Array(anomalySeries).fill(points), offsets: Int32Array.from({ length: anomalySeries + 1 }, (_, i) => i * points), X: [] };
  const request = univariateAnomalyRequest(series, "H", 24, 48, 99);
  rows.push(row(`anomaly ${anomalySeries} × ${points}, h 24, detection 48`, measure(() => detectAnomalies(request, modelSource(request))), anomalySeries * 48, "scored point"));
}

// streaming: one streaming-bench call
{
  const HISTORY = 264;
  const NEW = 24;
  const u = seedrandom("streaming-bench");
  const y = new Float64Array(streams * HISTORY);
  for (let i = 0; i < streams; i++) {
    const level = 50 + 100 * u();
    const amplitude = 5 + 20 * u();
    for (let t = 0; t < HISTORY; t++) y[i * HISTORY + t] = level + amplitude * Math.sin((2 * Math.PI * t) / 24) + 3 * (u() - 0.5);
  }
  const series = { y, sizes: new Int32Array(streams).fill(HISTORY), offsets: Int32Array.from({ length: streams + 1 }, (_, i) => i * HISTORY), X: [] };
  const request = { ...univariateAnomalyRequest(series, "H", 1, NEW, 99), stepSize: 1 };
  rows.push(row(`streaming ${streams} × ${HISTORY}, h 1, detection 24, step 1`, measure(() => detectAnomalies(request, modelSource(request))), streams * NEW, "scored point"));
}

// fine-tuning: the finetune-bench run at depth 1
{
  const SERIES = 10;
  const LENGTH = 500;
  const STEPS = 100;
  const series = finetuneBenchSeries(SERIES, LENGTH);
  const spec: ModelSpec = { model: "forecastmodel-1", freq: "D", finetune: { steps: STEPS, loss: "default", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null };
  rows.push(row(`fine-tune ${SERIES} × ${LENGTH}, ${STEPS} steps, depth 1`, measure(() => finetuneParameters(spec, series)), STEPS, "step"));
}

console.log(`# the kernel's share, best of ${runs} (least CPU) after a warm-up; node ${process.version}, one thread; ${os.cpus()[0]?.model ?? "?"}; load average ${os.loadavg()[0]!.toFixed(1)}`);
console.log("| call | wall ms | CPU ms | this thread ms | kernel CPU ms | network passes CPU ms | CPU / kernel | this thread / kernel | kernel share | CPU per unit |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
