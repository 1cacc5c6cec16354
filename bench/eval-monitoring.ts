/**
 * Online anomaly detection on the labelled monitoring benchmark of
 * bench/monitoring-data.ts, in two call patterns, beside two baselines, scored
 * with the NAB-style rule there; writes docs/monitoring-eval.md.
 *
 *   npm run build && node dist/bench/eval-monitoring.js
 *
 * Call patterns:
 * - batch: one request over each whole stream (h 6, step 6, detection_size =
 *   every point after the warm-up);
 * - streaming: a call every 24 new points with detection_size 24, h 1, and only
 *   the last 264 points sent (the calls of one stream go as the series of one
 *   request: in univariate mode series are independent, so this is the same
 *   as one call after another).
 * Baselines (the same in both patterns: they only look back 168 points):
 * rolling-window Gaussian z = (y − mean) / sd of the previous 168 points;
 * seasonal-naive residual z = (y − y₋ₘ) / sd of the previous 168 such residuals.
 */
import "../src/model/weights/default.js";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { detectAnomalies } from "../src/anomaly/index.js";
import { gaussianMultiplier } from "../src/intervals/index.js";
import type { Freq } from "../src/types.js";
import { univariateAnomalyRequest } from "./anomaly-request.js";
import { ANOMALY_KINDS, bestThresholdScore, bootstrapMargin, DEVELOPMENT_SYNTHETIC_STREAMS, monitoringStreams, nabScore, normalisedScore, trailingGaussianZ, type MonitoringStream } from "./monitoring-data.js";
import { modelSource } from "../src/finetune/index.js";

const LEVEL = 99;
const LOOKBACK = 168;
const STREAM_EVERY = 24;
const STREAM_HISTORY = 264;

/** Per-point |score| (NaN where not scored) and level-99 flags of one detector on one stream. */
interface Scored {
  score: Float64Array;
  flag: Uint8Array;
}

function freqOf(stream: MonitoringStream): { freq: Freq; season: number } {
  if (stream.name.includes("sunspot")) return { freq: "M", season: 12 };
  if (stream.name.includes("treering")) return { freq: "Y", season: 1 };
  return { freq: "H", season: 24 };
}

/** Our detector, scored by |anomaly_score| (flags: `anomaly`) and by √accumulated_anomaly_score (alarms: A > q²). */
function ours(stream: MonitoringStream, pattern: "batch" | "streaming"): { z: Scored; accumulated: Scored } {
  const n = stream.values.length;
  const score = new Float64Array(n).fill(Number.NaN);
  const flag = new Uint8Array(n);
  const evidence = new Float64Array(n).fill(Number.NaN);
  const alarm = new Uint8Array(n);
  const q2 = gaussianMultiplier(LEVEL) ** 2;
  const both = () => ({ z: { score, flag }, accumulated: { score: evidence, flag: alarm } });
  const { freq } = freqOf(stream);
  if (pattern === "batch") {
    const d = n - stream.warmup;
    const series = { y: stream.values, sizes: Int32Array.of(n), offsets: Int32Array.of(0, n), X: [] };
    const request = univariateAnomalyRequest(series, freq, 6, d, LEVEL);
    const result = detectAnomalies(request, modelSource(request));
    result.idxs.forEach((t, r) => {
      score[t] = Math.abs(result.anomalyScore[r]!);
      flag[t] = result.anomaly[r] === 1 ? 1 : 0;
      evidence[t] = Math.sqrt(result.accumulatedAnomalyScore[r]!);
      alarm[t] = result.accumulatedAnomalyScore[r]! > q2 ? 1 : 0;
    });
    return both();
  }
  const ends: number[] = [];
  for (let end = stream.warmup + STREAM_EVERY; end <= n; end += STREAM_EVERY) ends.push(end);
  const y = new Float64Array(ends.length * STREAM_HISTORY);
  ends.forEach((end, i) => y.set(stream.values.subarray(end - STREAM_HISTORY, end), i * STREAM_HISTORY));
  const sizes = new Int32Array(ends.length).fill(STREAM_HISTORY);
  const offsets = Int32Array.from({ length: ends.length + 1 }, (_, i) => i * STREAM_HISTORY);
  const request = { ...univariateAnomalyRequest({ y, sizes, offsets, X: [] }, freq, 1, STREAM_EVERY, LEVEL), stepSize: 1 };
  const result = detectAnomalies(request, modelSource(request));
  ends.forEach((end, i) => {
    for (let j = 0; j < STREAM_EVERY; j++) {
      const r = i * STREAM_EVERY + j;
      const t = end - STREAM_EVERY + j;
      score[t] = Math.abs(result.anomalyScore[r]!);
      flag[t] = result.anomaly[r] === 1 ? 1 : 0;
      evidence[t] = Math.sqrt(result.accumulatedAnomalyScore[r]!);
      alarm[t] = result.accumulatedAnomalyScore[r]! > q2 ? 1 : 0;
    }
  });
  return both();
}

/** Rolling z of `values` (lag 0) or of their differences at `lag` against the previous LOOKBACK of them. */
function rollingZ(stream: MonitoringStream, lag: number): Scored {
  const v = stream.values;
  const residual = Float64Array.from(v, (x, t) => (lag === 0 ? x : t >= lag ? x - v[t - lag]! : 0));
  const all = trailingGaussianZ(residual, LOOKBACK);
  const score = new Float64Array(v.length).fill(Number.NaN);
  score.set(all.subarray(stream.warmup), stream.warmup);
  const q = gaussianMultiplier(LEVEL);
  const flag = Uint8Array.from(score, (z) => (z > q ? 1 : 0));
  return { score, flag };
}

/** Labelled windows of some streams. */
function windowsIn(some: readonly MonitoringStream[]): number {
  return some.reduce((a, s) => a + s.windows.length, 0);
}

/** NAB score of flags, and the best NAB score over thresholds of |score| (one threshold for all streams). */
function evaluate(streams: readonly MonitoringStream[], scored: readonly Scored[]): { atLevel: number; at999: number; best: number; bestThreshold: number; hits: number; windows: number; falseAlarms: number } {
  const at = streams.map((s, i) => nabScore(s, (t) => scored[i]!.flag[t] === 1, s.warmup));
  const q999 = gaussianMultiplier(99.9);
  const at999 = streams.map((s, i) => nabScore(s, (t) => scored[i]!.score[t]! > q999, s.warmup));
  const { best, threshold: bestThreshold } = bestThresholdScore(streams, scored.map((s) => s.score));
  return {
    atLevel: normalisedScore(at),
    at999: normalisedScore(at999),
    best,
    bestThreshold,
    hits: at.reduce((a, p) => a + p.hits, 0),
    windows: windowsIn(streams),
    falseAlarms: at.reduce((a, p) => a + p.falseAlarms, 0),
  };
}

const streams = monitoringStreams();
const points = streams.reduce((a, s) => a + s.values.length - s.warmup, 0);
const windows = windowsIn(streams);
// the baselines only look back, so both call patterns get the same scores: computed once
const baselines: [string, Scored[]][] = [
  ["rolling Gaussian z (168 points)", streams.map((s) => rollingZ(s, 0))],
  ["seasonal-naive residual z (168 points)", streams.map((s) => rollingZ(s, freqOf(s).season))],
];
const lines: string[] = [];
lines.push("<!-- Generated by `npm run build && node dist/bench/eval-monitoring.js` (bench/eval-monitoring.ts); do not edit by hand. -->");
lines.push("# Online anomaly detection on monitoring-like streams");
lines.push("");
lines.push(`The labelled development benchmark of \`bench/monitoring-data.ts\`: ${streams.length} streams (${streams.length - 3} synthetic hourly metrics with daily and weekly cycles, trends, AR(1) noise with bursts and occasional heavy tails, 2,000–20,000 points; forecast::taylor, datasets::sunspot.month and datasets::treering), ${points.toLocaleString("en-US")} scored points, ${windows} labelled anomaly windows (${ANOMALY_KINDS.join(", ")}), injected after a 600-point warm-up.`);
lines.push("");
lines.push("Score: the NAB rule (Lavin and Ahmad 2015, standard profile): the first detection inside a labelled window earns 2/(1 + e^{5y}) − 1 (y from −1 at the window's start to 0 at its end), each detection outside every window costs 0.11, each missed window costs 1; normalised so that 0 = flagging nothing and 100 = every window caught at its first point. \"best threshold\" = the best score of one threshold on |score| for all streams (a ranking measure); \"level 99\" = the detector's own flags.");
lines.push("");
const rows: string[] = [];
const RESAMPLES = 1000;
const margins: string[] = [];
const partRows: string[] = [];
for (const pattern of ["batch", "streaming"] as const) {
  const started = process.hrtime.bigint();
  const scoredOurs = streams.map((s) => ours(s, pattern));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const detectors: [string, Scored[]][] = [
    [`forecastmodel-1 (${pattern === "batch" ? "h 6, one request per stream" : "h 1, detection_size 24, every 24 points"}), anomaly_score`, scoredOurs.map((o) => o.z)],
    [`forecastmodel-1, the same calls, accumulated_anomaly_score (alarm: A > q²)`, scoredOurs.map((o) => o.accumulated)],
    ...baselines,
  ];
  for (const [name, scored] of detectors) {
    const e = evaluate(streams, scored);
    rows.push(`| ${pattern} | ${name} | ${e.atLevel.toFixed(1)} | ${e.hits} / ${e.windows} | ${e.falseAlarms} | ${e.at999.toFixed(1)} | ${e.best.toFixed(1)} |`);
    console.log(pattern, name, e.atLevel.toFixed(1), e.best.toFixed(1), `hits ${e.hits}/${e.windows}`, `FP ${e.falseAlarms}`);
    const parts = [true, false].map((development) => {
      const keep = streams.map((s) => s.development === development);
      const part = evaluate(streams.filter((_, i) => keep[i]), scored.filter((_, i) => keep[i]));
      return `${part.atLevel.toFixed(1)} | ${part.best.toFixed(1)}`;
    });
    partRows.push(`| ${pattern} | ${name} | ${parts.join(" | ")} |`);
  }
  for (const [name, scored] of baselines) {
    const m = bootstrapMargin(streams, detectors[0]![1].map((s) => s.score), scored.map((s) => s.score), RESAMPLES, `eval-monitoring:${pattern}:${name}`);
    margins.push(`| ${pattern} | ${name} | ${(100 * m.aAbove).toFixed(1)} % | ${m.low.toFixed(1)} to ${m.high.toFixed(1)} |`);
  }
  console.log(`${pattern}: forecastmodel ${seconds.toFixed(1)} s`);
}
lines.push("| call pattern | detector | NAB score, level 99 | windows caught | false alarms | NAB score, level 99.9 | NAB score, best threshold |");
lines.push("|---|---|---:|---:|---:|---:|---:|");
lines.push(...rows);
lines.push("");
lines.push(`What a level-99 flag rule costs here: this rule charges 0.11 per flagged normal point. Over ${points.toLocaleString("en-US")} points, 1 % is about ${Math.round(points / 100).toLocaleString("en-US")} false alarms, a cost of about ${Math.round((0.11 * points) / 100)} against at most ${windows} for catching every window: a flag rule beats flagging nothing only below about ${((100 * windows) / (0.11 * points)).toFixed(2)} % of normal points. The network's calibrated z alone flags about 1 % (on the 19 streams the benchmark had then, it scored −95.6 batch and −91.1 streaming at level 99 before the seasonal judges); with the seasonal judges (docs/anomaly-detection.md, step 6) a point is flagged only when two judges put it outside their level-99 intervals on the same side, which normal points rarely do: the network and the same hour a day earlier, or, from 216 points of history on, the same hour a day and a week earlier (the network abstains there: its 96-point context cannot see a week). The accumulated score's alarm A > q² is a CUSUM of the judged z with a reset after every alarm and a correction for correlated scores (docs/anomaly-detection.md, step 7); on those 19 streams its 8-point moving-sum predecessor scored −151.0 (batch) and −157.5 (streaming).`);
lines.push("");
const windowsOf = (development: boolean) => windowsIn(streams.filter((s) => s.development === development));
lines.push(`Development and held-out streams: the scores' choices (docs/monitoring-experiments.md) were made on synthetic streams 0–${DEVELOPMENT_SYNTHETIC_STREAMS - 1} and the three R series (${windowsOf(true)} windows; streams 0–15 for the choices up to the two-judge rule, then 16–63, first added as held-out streams, for the weekly seasonal judge); synthetic streams ${DEVELOPMENT_SYNTHETIC_STREAMS}–${streams.filter((s) => !s.development).length + DEVELOPMENT_SYNTHETIC_STREAMS - 1} (${windowsOf(false)} windows) were added after the weekly judge was chosen and never used to choose anything (the later choice to let the network abstain where the weekly judge speaks was made on the development streams too, though after the held-out scores of the network voting had been seen). NAB score of each part alone:`);
lines.push("");
lines.push("| call pattern | detector | development: level 99 | development: best threshold | held out: level 99 | held out: best threshold |");
lines.push("|---|---|---:|---:|---:|---:|");
lines.push(...partRows);
lines.push("");
lines.push(`How sure the ranking margin is: the ${streams.length} streams drawn with replacement ${RESAMPLES.toLocaleString("en-US")} times (seeded), each draw scoring anomaly_score and the baseline by their best threshold (on the thresholds of the full benchmark). With ${windows} windows, one window is worth about ${(100 / windows).toFixed(1)} points.`);
lines.push("");
lines.push("| call pattern | baseline | draws where anomaly_score ranks above it | margin, 5th to 95th percentile |");
lines.push("|---|---|---:|---:|");
lines.push(...margins);
lines.push("");
lines.push(`Machine: ${os.cpus()[0]?.model ?? "?"}, node ${process.version}.`);
writeFileSync("docs/monitoring-eval.md", lines.join("\n") + "\n");
console.log("wrote docs/monitoring-eval.md");
