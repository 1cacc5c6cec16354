/**
 * A labelled development benchmark for online anomaly detection on
 * monitoring-like streams, built only from data this project may use:
 * synthetic hourly metrics (daily and weekly cycles, trends, noise bursts,
 * 2,000–20,000 points each, seeded) and three long series of R packages
 * (forecast::taylor, datasets::sunspot.month, datasets::treering), each with
 * injected anomalies of the kinds monitoring sees, labelled as windows.
 *
 * Also the scoring rule (after the Numenta Anomaly Benchmark's, Lavin and
 * Ahmad 2015, "Evaluating Real-time Anomaly Detection Algorithms", standard
 * profile): early detection inside a window earns credit, a false alarm costs.
 */
import { readFileSync } from "node:fs";
import seedrandom from "seedrandom";

export const ANOMALY_KINDS = ["spike", "dip", "level shift", "variance change", "slow drift", "seasonality break", "flat-line"] as const;
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];

/** One labelled stream. */
export interface MonitoringStream {
  readonly name: string;
  /** False for the held-out synthetic streams (see {@link DEVELOPMENT_SYNTHETIC_STREAMS}). */
  readonly development: boolean;
  readonly values: Float64Array;
  /** Points before this index are never labelled (the history a detector starts from). */
  readonly warmup: number;
  /** Labelled windows [start, end) with the kind of anomaly injected at `start` ("labelled" on real data: marked by experts, kind unknown). */
  readonly windows: readonly { start: number; end: number; kind: AnomalyKind | "labelled" }[];
}

type Uniform = () => number;

/** A standard normal draw by Box–Muller from two calls of `u` (the first clamped to 1e-300, so never log 0). */
export function gaussian(u: Uniform): number {
  return Math.sqrt(-2 * Math.log(Math.max(u(), 1e-300))) * Math.cos(2 * Math.PI * u());
}

/** A synthetic hourly metric: level, daily and weekly cycles, trend, noise with bursts (normal behaviour). */
function syntheticStream(u: Uniform, n: number): { values: Float64Array; noise: number } {
  const level = 20 + 200 * u();
  const daily = (0.1 + 0.5 * u()) * level;
  const weekly = u() < 0.6 ? (0.05 + 0.2 * u()) * level : 0;
  const trend = (u() - 0.5) * (0.4 * level) / n;
  const noise = (0.02 + 0.08 * u()) * level;
  const heavy = u() < 0.5;
  const values = new Float64Array(n);
  let burst = 0;
  let ar = 0;
  for (let t = 0; t < n; t++) {
    if (burst === 0 && u() < 1 / 700) burst = 6 + Math.floor(u() * 30); // noise bursts are normal operation
    const scale = burst > 0 ? 2 : 1;
    if (burst > 0) burst--;
    let e = gaussian(u);
    if (heavy && u() < 0.02) e *= 3;
    ar = 0.5 * ar + e;
    const day = Math.sin((2 * Math.PI * t) / 24) + 0.3 * Math.sin((4 * Math.PI * t) / 24);
    const week = (t / 24) % 7 >= 5 ? -1 : 0.4;
    values[t] = level + daily * day + weekly * week + trend * t + noise * scale * ar * 0.87;
  }
  return { values, noise };
}

/** Robust noise scale of a stream: 1.4826 · MAD of its differences at lag m, over √2. */
function robustNoise(values: Float64Array, m: number, end: number): number {
  const d: number[] = [];
  for (let t = m; t < end; t++) d.push(values[t]! - values[t - m]!);
  d.sort((a, b) => a - b);
  const median = d[d.length >> 1]!;
  const dev = d.map((v) => Math.abs(v - median)).sort((a, b) => a - b);
  return Math.max((1.4826 * dev[dev.length >> 1]!) / Math.SQRT2, 1e-9);
}

/** Injects `count` anomalies after the warm-up, at least a window apart; returns the labelled windows. */
function inject(u: Uniform, values: Float64Array, warmup: number, count: number, season: number, s: number): { start: number; end: number; kind: AnomalyKind }[] {
  const n = values.length;
  const window = Math.min(500, Math.max(48, Math.round((0.1 * n) / (2 * count))));
  const windows: { start: number; end: number; kind: AnomalyKind }[] = [];
  const span = (n - warmup - window) / count;
  for (let a = 0; a < count; a++) {
    const start = Math.floor(warmup + a * span + u() * (span - window - 200));
    const kind = ANOMALY_KINDS[Math.floor(u() * ANOMALY_KINDS.length)]!;
    const size = s * (kind === "spike" || kind === "dip" ? 6 + 4 * u() : 3 + 2 * u());
    const sign = kind === "dip" ? -1 : kind === "spike" ? 1 : u() < 0.5 ? -1 : 1;
    if (kind === "spike" || kind === "dip") values[start]! += sign * size;
    else if (kind === "level shift") for (let t = start; t < n; t++) values[t]! += sign * size;
    else if (kind === "variance change") for (let t = start; t < Math.min(n, start + 200); t++) values[t]! += 2 * size * gaussian(u);
    else if (kind === "slow drift") for (let t = start; t < n; t++) values[t]! += sign * 2 * size * Math.min(1, (t - start) / 150);
    else if (kind === "seasonality break") {
      const copy = values.slice(start - season, start + 120 - season);
      for (let t = start; t < Math.min(n, start + 120); t++) values[t] = copy[(t - start + Math.floor(season / 2)) % copy.length]!;
    } else {
      const flat = values[start - 1]!;
      for (let t = start; t < Math.min(n, start + 60); t++) values[t] = flat;
    }
    windows.push({ start, end: Math.min(n, start + window), kind });
  }
  return windows;
}

/**
 * Synthetic streams the scores' choices were made on, with the three R
 * series: streams 0–15 for every choice up to the two-judge rule, and 16–63,
 * added as held-out streams, then used to choose the weekly seasonal judge.
 * The streams after them were added after that choice and never used to
 * choose anything: the held-out part.
 */
export const DEVELOPMENT_SYNTHETIC_STREAMS = 64;

/** Synthetic streams in the benchmark: the development ones, then the held-out ones. */
export const SYNTHETIC_STREAMS = 128;

/** The benchmark's streams (deterministic): the synthetic ones in order, then forecast::taylor, datasets::sunspot.month and datasets::treering. */
export function monitoringStreams(): MonitoringStream[] {
  const streams: MonitoringStream[] = [];
  for (let i = 0; i < SYNTHETIC_STREAMS; i++) {
    const u = seedrandom(`monitoring:${i}`);
    const n = Math.round(2000 * Math.pow(10, u()));
    const { values } = syntheticStream(u, n);
    const warmup = 600;
    const s = robustNoise(values, 24, warmup);
    const windows = inject(u, values, warmup, 1 + Math.floor(u() * 3), 24, s);
    streams.push({ name: `synthetic-${String(i).padStart(2, "0")} (hourly, ${n} points)`, development: i < DEVELOPMENT_SYNTHETIC_STREAMS, values, warmup, windows });
  }
  const r = JSON.parse(readFileSync("bench/data/r-datasets.json", "utf8")) as Record<string, { y: number[]; frequency: number; package: string }>;
  for (const [name, season] of [["taylor", 48], ["sunspot.month", 12], ["treering", 1]] as const) {
    const u = seedrandom(`monitoring:${name}`);
    const values = Float64Array.from(r[name]!.y);
    const warmup = 600;
    const s = robustNoise(values, Math.max(season, 1), warmup);
    const windows = inject(u, values, warmup, 2, Math.max(season, 2), s);
    streams.push({ name: `${r[name]!.package}::${name} (${values.length} points)`, development: true, values, warmup, windows });
  }
  return streams;
}

/** The NAB sigmoid: 2/(1 + e^{5y}) − 1, y the relative position of a detection. */
function nabSigmoid(y: number): number {
  return 2 / (1 + Math.exp(5 * y)) - 1;
}

/** NAB standard-profile weights: a true positive earns up to 1, a false positive costs 0.11, a missed window 1. */
export const NAB_WEIGHTS = { truePositive: 1, falsePositive: 0.11, falseNegative: 1 } as const;

/** Raw score of one stream's flags (points from `from` on) and its best (perfect) and null (no flags) scores. */
export function nabScore(stream: MonitoringStream, flagged: (t: number) => boolean, from: number): { raw: number; perfect: number; none: number; hits: number; falseAlarms: number } {
  let raw = 0;
  let perfect = 0;
  let hits = 0;
  let falseAlarms = 0;
  const inWindow = new Int32Array(stream.values.length).fill(-1);
  stream.windows.forEach((w, i) => inWindow.fill(i, w.start, w.end));
  const credited = new Uint8Array(stream.windows.length);
  for (let t = from; t < stream.values.length; t++) {
    if (!flagged(t)) continue;
    const w = inWindow[t]!;
    if (w < 0) {
      raw -= NAB_WEIGHTS.falsePositive;
      falseAlarms++;
    } else if (credited[w] === 0) {
      const win = stream.windows[w]!;
      credited[w] = 1;
      raw += NAB_WEIGHTS.truePositive * nabSigmoid((t - (win.end - 1)) / (win.end - win.start));
      hits++;
    }
  }
  for (let w = 0; w < stream.windows.length; w++) {
    const win = stream.windows[w]!;
    perfect += NAB_WEIGHTS.truePositive * nabSigmoid((win.start - (win.end - 1)) / (win.end - win.start));
    if (credited[w] === 0) raw -= NAB_WEIGHTS.falseNegative;
  }
  return { raw, perfect, none: -NAB_WEIGHTS.falseNegative * stream.windows.length, hits, falseAlarms };
}

/** 100 · (S − S_none) / (S_perfect − S_none) over streams: 0 = flagging nothing, 100 = every window at its start. */
export function normalisedScore(parts: readonly { raw: number; perfect: number; none: number }[]): number {
  let raw = 0;
  let perfect = 0;
  let none = 0;
  for (const p of parts) {
    raw += p.raw;
    perfect += p.perfect;
    none += p.none;
  }
  return (100 * (raw - none)) / (perfect - none);
}

/** The 61 thresholds tried on a detector's scores: its quantiles from 0.9 to 0.99997 (NaN scores left out). */
function thresholdGrid(scores: readonly Float64Array[]): number[] {
  const all: number[] = [];
  scores.forEach((s) => s.forEach((v) => (Number.isNaN(v) ? null : all.push(v))));
  all.sort((a, b) => a - b);
  return Array.from({ length: 61 }, (_, k) => {
    const p = 1 - Math.pow(10, -1 - (k / 60) * 3.5);
    return all[Math.min(all.length - 1, Math.floor(p * all.length))]!;
  });
}

/** NAB parts of every stream at every threshold of the grid: parts[k][i] for threshold k and stream i. */
function partsByThreshold(streams: readonly MonitoringStream[], scores: readonly Float64Array[], grid: readonly number[]) {
  return grid.map((threshold) => streams.map((s, i) => nabScore(s, (t) => scores[i]![t]! > threshold, s.warmup)));
}

/**
 * The best normalised NAB score of one threshold on |score| for all streams
 * (a ranking measure): thresholds at 61 quantiles of the scores, from 0.9 to
 * 0.99997. NaN scores are never flagged.
 */
export function bestThresholdScore(streams: readonly MonitoringStream[], scores: readonly Float64Array[]): { best: number; threshold: number } {
  const grid = thresholdGrid(scores);
  const parts = partsByThreshold(streams, scores, grid);
  let best = -Infinity;
  let bestThreshold = Infinity;
  parts.forEach((atThreshold, k) => {
    const v = normalisedScore(atThreshold);
    if (v > best) {
      best = v;
      bestThreshold = grid[k]!;
    }
  });
  return { best, threshold: bestThreshold };
}

/**
 * How sure the best-threshold margin of detector A over detector B is: the
 * streams are drawn with replacement `resamples` times (seeded), and each
 * draw scores both detectors by their best threshold on the grid of the full
 * benchmark. Returns the share of draws where A scores above B and the 5th
 * and 95th percentiles of the margin A − B.
 */
export function bootstrapMargin(
  streams: readonly MonitoringStream[],
  a: readonly Float64Array[],
  b: readonly Float64Array[],
  resamples: number,
  seed: string,
): { aAbove: number; low: number; high: number } {
  const partsA = partsByThreshold(streams, a, thresholdGrid(a));
  const partsB = partsByThreshold(streams, b, thresholdGrid(b));
  const random = seedrandom(seed);
  const margins: number[] = [];
  const draw = new Int32Array(streams.length);
  const bestOf = (parts: ReturnType<typeof partsByThreshold>) => Math.max(...parts.map((atThreshold) => normalisedScore(Array.from(draw, (i) => atThreshold[i]!))));
  for (let r = 0; r < resamples; r++) {
    for (let j = 0; j < draw.length; j++) draw[j] = Math.floor(random() * streams.length);
    margins.push(bestOf(partsA) - bestOf(partsB));
  }
  margins.sort((x, y) => x - y);
  return {
    aAbove: margins.filter((m) => m > 0).length / resamples,
    low: margins[Math.floor(0.05 * resamples)]!,
    high: margins[Math.min(resamples - 1, Math.floor(0.95 * resamples))]!,
  };
}

/**
 * |x(t) − mean| / sd over the previous w values of x (NaN for the first w
 * points and where one of them is NaN; 0 when they are all equal): the
 * rolling Gaussian z of the baselines; with `signed`, (x(t) − mean) / sd.
 */
export function trailingGaussianZ(x: Float64Array, w: number, signed = false): Float64Array {
  const out = new Float64Array(x.length).fill(Number.NaN);
  for (let t = w; t < x.length; t++) {
    if (Number.isNaN(x[t - w]!)) continue;
    let mean = 0;
    for (let i = t - w; i < t; i++) mean += x[i]!;
    mean /= w;
    let ss = 0;
    for (let i = t - w; i < t; i++) ss += (x[i]! - mean) ** 2;
    const sd = Math.sqrt(ss / (w - 1));
    out[t] = sd > 0 ? (signed ? x[t]! - mean : Math.abs(x[t]! - mean)) / sd : 0;
  }
  return out;
}

/**
 * |x(t) − median| / (1.4826 · MAD) over the previous w values of x, the
 * robust counterpart of {@link trailingGaussianZ} (NaN for the first w points
 * and where one of the w is NaN). Where the MAD is 0 the scale falls back to
 * 1.2533 · the mean absolute deviation from the median, and where that is 0
 * too (w equal values) to 1e-9 · (1 + |median|): a point equal to the window
 * scores 0, any other an enormous but finite z.
 */
export function trailingMedianMadZ(x: Float64Array, w: number): Float64Array {
  const out = new Float64Array(x.length).fill(Number.NaN);
  const sorted = new Float64Array(w);
  const deviations = new Float64Array(w);
  const middle = (a: Float64Array) => (w % 2 === 1 ? a[(w - 1) / 2]! : (a[w / 2 - 1]! + a[w / 2]!) / 2);
  for (let t = w; t < x.length; t++) {
    sorted.set(x.subarray(t - w, t));
    if (sorted.some(Number.isNaN)) continue;
    sorted.sort();
    const median = middle(sorted);
    let absolute = 0;
    for (let i = 0; i < w; i++) {
      deviations[i] = Math.abs(sorted[i]! - median);
      absolute += deviations[i]!;
    }
    deviations.sort();
    const mad = middle(deviations);
    const scale = mad > 0 ? 1.4826 * mad : absolute > 0 ? (1.2533 * absolute) / w : 1e-9 * (1 + Math.abs(median));
    out[t] = Math.abs(x[t]! - median) / scale;
  }
  return out;
}
