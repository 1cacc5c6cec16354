/**
 * Benchmarks forecastmodel's core workloads beside the same workloads on the
 * peer library @bsull/augurs (its MSTL with an AutoETS trend, and AutoETS),
 * in one run, and writes bench/RESULTS.md.
 *
 * Usage: npm run bench:compare [-- options], i.e. `npm run build` then
 * node dist/bench/compare.js [--repeat N] [--limit S] [--out FILE]
 *   --repeat N  time each workload N times and keep the fastest (default 1; after one small warm-up)
 *   --limit S   use only the first S series of each data set (a quick check; default: all)
 *   --out FILE  where to write the report (default bench/RESULTS.md; "-" prints it only)
 *
 * Each workload runs in a child Node process of this run (the same script with
 * `--workload <name>`), so that its peak memory (max RSS) is its own.
 *
 * Data: the 617 monthly series of the M1 competition (bench/data/m1.json,
 * from the Mcomp R package), with the competition's test values for accuracy.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { arch, cpus, loadavg, platform, release, totalmem, type as osType } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

interface M1Series {
  readonly id: string;
  readonly period: string;
  readonly m: number;
  readonly h: number;
  readonly x: readonly number[];
  readonly xx: readonly number[];
}

/** What a child process reports for one workload. */
interface WorkloadReport {
  readonly name: string;
  readonly series: number;
  readonly points: number;
  readonly seconds: number;
  readonly peakRssMb: number;
  readonly baselineRssMb: number;
  readonly smape: number | null;
  readonly flagged: number | null;
}

interface Workload {
  /** Key passed to the child. */
  readonly name: string;
  /** Task group: rows of one task are compared with each other. */
  readonly task: string;
  /** Library and model, as printed. */
  readonly library: string;
  /** The peer rows are compared with this forecastmodel workload. */
  readonly peerOf?: string;
  /** Runs the workload on the data once; returns accuracy / flag counts when it has them. */
  readonly run: (data: readonly M1Series[], ctx: Context) => Promise<{ smape?: number; flagged?: number }>;
  /** Which series the workload can use. */
  readonly select?: (s: M1Series) => boolean;
}

interface Context {
  readonly h: number;
}

const HERE = fileURLToPath(import.meta.url);
const REPO_URL = new URL("../../", import.meta.url);
const H_FORECAST = 18; // M1 monthly test horizon = forecastmodel-1's native horizon for M
const H_ANOMALY = 12;
const DETECTION_SIZE = 12;
const LEVEL = 99;
const HISTORIC_MIN = 96 + 18; // inputSize + horizon: one in-sample window

/** Symmetric MAPE in percent, averaged over steps then series (M-competition definition). */
function smape(actual: readonly number[], forecast: ArrayLike<number>, offset: number): number {
  let sum = 0;
  for (let k = 0; k < actual.length; k++) {
    const a = actual[k] as number;
    const f = forecast[offset + k] as number;
    const denom = Math.abs(a) + Math.abs(f);
    sum += denom === 0 ? 0 : (200 * Math.abs(a - f)) / denom;
  }
  return sum / actual.length;
}

function packed(data: readonly M1Series[]) {
  return { y: data.flatMap((s) => s.x), sizes: data.map((s) => s.x.length) };
}

async function loadAugurs() {
  const dir = new URL("node_modules/@bsull/augurs/", REPO_URL);
  const mstl = await import("@bsull/augurs/mstl");
  const ets = await import("@bsull/augurs/ets");
  // under Node the default initialiser would fetch() the .wasm: initialise synchronously from the file
  mstl.initSync({ module: readFileSync(new URL("mstl_bg.wasm", dir)) });
  ets.initSync({ module: readFileSync(new URL("ets_bg.wasm", dir)) });
  return { MSTL: mstl.MSTL, AutoETS: ets.AutoETS };
}

/**
 * For each series in order: a fresh augurs model from `make`, fitted on its
 * history, read by `read`, then freed (augurs models hold WebAssembly memory).
 */
async function eachAugursFit<Model extends { fit(y: number[]): void; free(): void }, Out>(
  data: readonly M1Series[],
  make: (augurs: Awaited<ReturnType<typeof loadAugurs>>) => Model,
  read: (model: Model, s: M1Series) => Out,
): Promise<Out[]> {
  const augurs = await loadAugurs();
  return data.map((s) => {
    const model = make(augurs);
    model.fit(s.x as number[]);
    const out = read(model, s);
    model.free();
    return out;
  });
}

/** Mean of per-series values, summed in series order. */
const meanOf = (values: readonly number[]): number => values.reduce((acc, v) => acc + v, 0) / values.length;

const WORKLOADS: readonly Workload[] = [
  {
    name: "fm-forecast",
    task: `forecast h=${H_FORECAST} + 95% interval`,
    library: "forecastmodel-1 (network, calibrated intervals)",
    async run(data) {
      const { forecast } = await import("../src/index.js");
      const r = forecast({ series: packed(data), freq: "M", h: H_FORECAST, level: [95] });
      return { smape: data.reduce((acc, s, i) => acc + smape(s.xx, r.mean, i * H_FORECAST), 0) / data.length };
    },
  },
  {
    name: "augurs-mstl-forecast",
    task: `forecast h=${H_FORECAST} + 95% interval`,
    library: "@bsull/augurs MSTL([12]) + AutoETS trend",
    peerOf: "fm-forecast",
    async run(data) {
      return { smape: meanOf(await eachAugursFit(data, ({ MSTL }) => MSTL.ets([12]), (model, s) => smape(s.xx, model.predict(H_FORECAST, 0.95).point, 0))) };
    },
  },
  {
    name: "augurs-ets-forecast",
    task: `forecast h=${H_FORECAST} + 95% interval`,
    library: '@bsull/augurs AutoETS "ZZN" (no seasonal models)',
    peerOf: "fm-forecast",
    async run(data) {
      return { smape: meanOf(await eachAugursFit(data, ({ AutoETS }) => new AutoETS(12, "ZZN"), (model, s) => smape(s.xx, model.predict(H_FORECAST, 0.95).point, 0))) };
    },
  },
  {
    name: "fm-anomaly",
    task: `anomalies in last ${DETECTION_SIZE} points, ${LEVEL}% level`,
    library: `forecastmodel-1 online detection (h=${H_ANOMALY})`,
    async run(data) {
      const { detectAnomaliesOnline } = await import("../src/index.js");
      const r = detectAnomaliesOnline({ series: packed(data), freq: "M", h: H_ANOMALY, detection_size: DETECTION_SIZE, level: LEVEL });
      return { flagged: r.anomaly.filter(Boolean).length };
    },
  },
  {
    name: "augurs-mstl-anomaly",
    task: `anomalies in last ${DETECTION_SIZE} points, ${LEVEL}% level`,
    library: "@bsull/augurs MSTL([12]) in-sample interval",
    peerOf: "fm-anomaly",
    async run(data) {
      const fits = await eachAugursFit(data, ({ MSTL }) => MSTL.ets([12]), (model) => model.predictInSample(LEVEL / 100));
      let flagged = 0;
      data.forEach((s, i) => {
        const lo = fits[i]!.intervals?.lower ?? [];
        const hi = fits[i]!.intervals?.upper ?? [];
        for (let t = s.x.length - DETECTION_SIZE; t < s.x.length; t++) {
          const y = s.x[t] as number;
          if (y < (lo[t] as number) || y > (hi[t] as number)) flagged++;
        }
      });
      return { flagged };
    },
  },
  {
    name: "fm-historic",
    task: "in-sample fitted values + 95% interval",
    library: "forecastmodel-1 historic forecast",
    select: (s) => s.x.length >= HISTORIC_MIN,
    async run(data) {
      const { historicForecast } = await import("../src/index.js");
      historicForecast({ series: packed(data), freq: "M", level: [95] });
      return {};
    },
  },
  {
    name: "augurs-mstl-insample",
    task: "in-sample fitted values + 95% interval",
    library: "@bsull/augurs MSTL([12]) predictInSample",
    peerOf: "fm-historic",
    select: (s) => s.x.length >= HISTORIC_MIN,
    async run(data) {
      await eachAugursFit(data, ({ MSTL }) => MSTL.ets([12]), (model) => model.predictInSample(0.95));
      return {};
    },
  },
  {
    name: "fm-finetune",
    task: "fine-tune 10 steps (depth 1)",
    library: "forecastmodel-1 finetune",
    async run(data) {
      const { finetune } = await import("../src/index.js");
      finetune({ series: packed(data), freq: "M", finetune_steps: 10, output_model_id: "bench" });
      return {};
    },
  },
];

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function loadData(limit: number | undefined): M1Series[] {
  const m1 = JSON.parse(readFileSync(new URL("bench/data/m1.json", REPO_URL), "utf8")) as { series: M1Series[] };
  const monthly = m1.series.filter((s) => s.period === "MONTHLY");
  return limit === undefined ? monthly : monthly.slice(0, limit);
}

/** Child: runs one workload (warm-up on a few series, then timed runs) and prints its report as JSON. */
async function child(name: string): Promise<void> {
  const workload = WORKLOADS.find((w) => w.name === name);
  if (workload === undefined) throw new Error(`unknown workload ${name}`);
  const limitArg = argValue("--limit");
  const all = loadData(limitArg === undefined ? undefined : Number(limitArg));
  const data = workload.select ? all.filter(workload.select) : all;
  const repeat = Math.max(1, Number(argValue("--repeat") ?? 1));
  const ctx: Context = { h: H_FORECAST };
  await workload.run(data.slice(0, 8), ctx); // warm-up: JIT, lazy weight decoding, wasm instantiation
  const baseline = process.memoryUsage().rss;
  let best = Infinity;
  let extra: { smape?: number; flagged?: number } = {};
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    extra = await workload.run(data, ctx);
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  const report: WorkloadReport = {
    name,
    series: data.length,
    points: data.reduce((acc, s) => acc + s.x.length, 0),
    seconds: best,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    baselineRssMb: baseline / 2 ** 20,
    smape: extra.smape ?? null,
    flagged: extra.flagged ?? null,
  };
  process.stdout.write(JSON.stringify(report) + "\n");
}

function fixed(v: number, digits: number): string {
  return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function packageVersion(path: string): string {
  try {
    return (JSON.parse(readFileSync(new URL(path, REPO_URL), "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

/** The "Made by" / "Model" header lines of the embedded weights module. */
function weightsProvenance(): string {
  try {
    const head = readFileSync(new URL("src/model/weights/forecastmodel-1.ts", REPO_URL), "utf8").slice(0, 2000);
    const lines = head.split("\n").filter((l) => /^\/\/ (Made by|Model|Final)/.test(l)).map((l) => l.slice(3).trim());
    return lines.length > 0 ? lines.join(" ") : "unknown";
  } catch {
    return "unknown";
  }
}

/** Parent: runs every workload in a child process, prints progress, writes the report. */
function parent(): void {
  const loadAtStart = loadavg();
  const passThrough = ["--repeat", "--limit"].flatMap((f) => {
    const v = argValue(f);
    return v === undefined ? [] : [f, v];
  });
  const reports = new Map<string, WorkloadReport>();
  const failures: string[] = [];
  for (const w of WORKLOADS) {
    process.stderr.write(`running ${w.name} … `);
    const out = spawnSync(process.execPath, ["--max-old-space-size=4096", HERE, "--workload", w.name, ...passThrough], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const line = out.stdout.trim().split("\n").pop() ?? "";
    if (out.status !== 0 || !line.startsWith("{")) {
      const why = (out.stderr || out.error?.message || `exit ${out.status}`).trim().split("\n").slice(0, 3).join(" ");
      failures.push(`${w.name}: ${why}`);
      process.stderr.write(`failed\n`);
      continue;
    }
    const report = JSON.parse(line) as WorkloadReport;
    reports.set(w.name, report);
    process.stderr.write(`${fixed(report.seconds, 2)} s\n`);
  }

  const rows: string[] = [];
  rows.push("| task | library / model | series | points | time (s) | series/s | points/s | peak RSS (MB) | RSS above start (MB) | sMAPE % | flagged | forecastmodel speed ÷ this |");
  rows.push("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const w of WORKLOADS) {
    const r = reports.get(w.name);
    if (r === undefined) continue;
    const own = w.peerOf === undefined ? undefined : reports.get(w.peerOf);
    const ratio = own === undefined ? "" : `${fixed(r.seconds / own.seconds, 2)}×`;
    rows.push(
      `| ${w.task} | ${w.library} | ${r.series} | ${fixed(r.points, 0)} | ${fixed(r.seconds, 2)} | ${fixed(r.series / r.seconds, 1)} | ${fixed(r.points / r.seconds, 0)} | ${fixed(r.peakRssMb, 0)} | ${fixed(Math.max(0, r.peakRssMb - r.baselineRssMb), 0)} | ${r.smape === null ? "" : fixed(r.smape, 2)} | ${r.flagged === null ? "" : r.flagged} | ${ratio} |`,
    );
  }
  const cpu = cpus();
  const limitArg = argValue("--limit");
  const data = loadData(limitArg === undefined ? undefined : Number(limitArg));
  const lengths = data.map((s) => s.x.length);
  const lines = [
    "# Benchmarks beside @bsull/augurs",
    "",
    "Generated by `npm run bench:compare` (bench/compare.ts: `npm run build && node dist/bench/compare.js`); do not edit by hand.",
    "",
    `Run: ${new Date().toISOString()}`,
    "",
    "## Machine",
    "",
    `- CPU: ${cpu[0]?.model ?? "unknown"} × ${cpu.length} logical cores (${arch()})`,
    `- memory: ${fixed(totalmem() / 2 ** 30, 1)} GiB`,
    `- OS: ${osType()} ${release()} (${platform()})`,
    `- Node ${process.version}; forecastmodel ${packageVersion("package.json")}; @bsull/augurs ${packageVersion("node_modules/@bsull/augurs/package.json")}`,
    `- load average at start (1, 5, 15 min): ${loadAtStart.map((l) => l.toFixed(2)).join(", ")} — the machine may be shared; compare rows of one run, not across runs`,
    `- forecastmodel-1 weights: ${weightsProvenance()}`,
    "",
    "## Workloads",
    "",
    `Data: the monthly series of the M1 competition (bench/data/m1.json, Mcomp R package)${limitArg === undefined ? "" : `, first ${limitArg} only`}: ${data.length} series of ${Math.min(...lengths)} to ${Math.max(...lengths)} observations.`,
    "Each workload runs in its own child process of one run (so peak memory is its own), after a warm-up on 8 series;",
    `the time is the fastest of ${argValue("--repeat") ?? 1} run(s) over all series. "points" counts the input observations.`,
    "",
    "- forecastmodel runs each task as ONE request over all series (the network forecasts the series in a batch);",
    "  augurs fits one model per series (its API is per series).",
    `- forecast: h = ${H_FORECAST} (the M1 monthly test horizon) with a 95% interval; sMAPE against the M1 test values.`,
    `  forecastmodel's calibrated intervals need rolling-origin forecasts of the history (calibration windows), included in its time.`,
    `- anomalies: forecastmodel online detection (rolling windows of h = ${H_ANOMALY}, calibrated on their errors) on the last ${DETECTION_SIZE} points;`,
    `  augurs: MSTL in-sample ${LEVEL}% interval, a point outside it is flagged. "flagged" = points flagged in total.`,
    `- in-sample: forecastmodel historic forecast (series with at least ${HISTORIC_MIN} points) vs MSTL predictInSample on the same series.`,
    "- fine-tune: no augurs counterpart.",
    "- \"forecastmodel speed ÷ this\" > 1 means forecastmodel is faster than this peer row on the same task.",
    "",
    "## Results",
    "",
    ...rows,
    "",
    ...(failures.length > 0 ? ["## Failed workloads", "", ...failures.map((f) => `- ${f}`), ""] : []),
  ];
  const text = lines.join("\n");
  const outArg = argValue("--out");
  if (outArg === "-") {
    process.stdout.write(text);
  } else {
    const target = outArg === undefined ? new URL("bench/RESULTS.md", REPO_URL) : outArg;
    writeFileSync(target, text);
    process.stdout.write(text);
    process.stderr.write(`\nwrote ${typeof target === "string" ? target : fileURLToPath(target)}\n`);
  }
  if (failures.length > 0) process.exitCode = 1;
}

const workloadName = argValue("--workload");
if (workloadName !== undefined) {
  await child(workloadName);
} else {
  parent();
}
