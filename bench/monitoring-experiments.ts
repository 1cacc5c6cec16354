/**
 * What was tried for issue 13 on the monitoring benchmark, reproducibly:
 * variants of the calibration and of accumulated evidence, scored by the best
 * single threshold (tools/datasets/monitoring-data.ts), on the network's own spread
 * scores u. Writes docs/monitoring-experiments.md.
 *
 *   npm run build && node dist/bench/monitoring-experiments.js
 *
 * Forecasts: forecastmodel-1, one-step-ahead (h 1) for every point from 400
 * points before the warm-up's end, and h 6 windows (the batch pattern).
 * Variants work on u only, so they share one set of forecasts.
 */
import "../src/model/weights/default.js";
import { writeFileSync } from "node:fs";
import { crossValidate } from "../src/cv/index.js";
import { calibratedZ, spreadKnots, spreadScore, withSpread } from "../src/intervals/index.js";
import { accumulatedAnomalyScores, combineJudges, JUDGES_AGREE_Z, scoreCorrelation } from "../src/anomaly/index.js";

/** The weekly lag this study tried (hourly data), a fixed table as the detector had it when the study was made. */
const SECOND_SEASON_LENGTH: Readonly<Record<string, number>> = { H: 168 };
import { createNetworkForecaster, modelParams } from "../src/model/index.js";
import type { Freq } from "../src/types.js";
import { meanOf } from "../src/stats/index.js";
import { bestThresholdScore, monitoringStreams, SYNTHETIC_STREAMS, nabScore, normalisedScore, trailingGaussianZ, type MonitoringStream } from "../tools/datasets/monitoring-data.js";
import { tableCell } from "./markdown.js";

const LEAD = 400;

function freqOf(stream: MonitoringStream): Freq {
  return stream.name.includes("sunspot") ? "M" : stream.name.includes("treering") ? "Y" : "H";
}

/** Spread scores already computed, by stream and h (the weekly section's streams include the first table's). */
const spreadScoresDone = new Map<MonitoringStream, Map<number, Float64Array>>();

/** Spread scores u of every point from `warmup − LEAD` on, with windows of length h (each stream and h forecast once). */
function spreadScores(stream: MonitoringStream, h: number): Float64Array {
  const byH = spreadScoresDone.get(stream) ?? new Map<number, Float64Array>();
  spreadScoresDone.set(stream, byH);
  const done = byH.get(h);
  if (done !== undefined) return done;
  const u = forecastSpreadScores(stream, h);
  byH.set(h, u);
  return u;
}

function forecastSpreadScores(stream: MonitoringStream, h: number): Float64Array {
  const n = stream.values.length;
  const forecaster = withSpread(createNetworkForecaster("forecastmodel-1", freqOf(stream)));
  const windows = Math.floor((n - (stream.warmup - LEAD) - h) / h) + 1;
  const cv = crossValidate(forecaster, { y: stream.values, sizes: Int32Array.of(n), offsets: Int32Array.of(0, n) }, { h, windows, spread: true });
  const { levels, below, above } = cv.spread!;
  const knots = spreadKnots(levels);
  const u = new Float64Array(n).fill(Number.NaN);
  for (let r = 0; r < cv.cutoffs.length; r++) {
    for (let k = 0; k < h; k++) {
      const t = cv.cutoffs[r]! + k;
      u[t] = spreadScore(stream.values[t]!, cv.forecasts[r * h + k]!, below, above, (r * h + k) * levels.length, knots);
    }
  }
  return u;
}

/** Calibrated |z| of each point against the last C kept |u| before it (kept: |z| <= exclude), from `from` on. */
function slidingZ(u: Float64Array, from: number, C: number, exclude: number): Float64Array {
  const z = new Float64Array(u.length).fill(Number.NaN);
  const kept: number[] = [];
  const sorted: number[] = [];
  for (let t = 0; t < u.length; t++) {
    if (Number.isNaN(u[t]!)) continue;
    const value = calibratedZ(u[t]!, sorted, 0, sorted.length);
    if (t >= from) z[t] = value;
    if (sorted.length >= 20 && Math.abs(value) > exclude) continue;
    const v = Math.abs(u[t]!);
    kept.push(v);
    sorted.splice(sorted.findIndex((s) => s >= v) >>> 0, 0, v);
    if (kept.length > C) sorted.splice(sorted.indexOf(kept.shift()!), 1);
  }
  return z;
}

/** The old rule in the streaming pattern: blocks of 24 calibrated on the 144 scores before each block. */
function blockZ(u: Float64Array, from: number): Float64Array {
  const z = new Float64Array(u.length).fill(Number.NaN);
  for (let b = from; b + 24 <= u.length; b += 24) {
    const calibration = Array.from(u.subarray(b - 144, b), Math.abs).sort((a, c) => a - c);
    for (let t = b; t < b + 24; t++) z[t] = calibratedZ(u[t]!, calibration, 0, calibration.length);
  }
  return z;
}

/** Two-sided CUSUM of clipped z (drift allowance k), as a new score series. */
function cusum(z: Float64Array, k: number): Float64Array {
  const s = new Float64Array(z.length).fill(Number.NaN);
  let up = 0;
  let down = 0;
  for (let t = 0; t < z.length; t++) {
    if (Number.isNaN(z[t]!)) continue;
    const c = Math.max(-4, Math.min(4, z[t]!));
    up = Math.max(0, up + c - k);
    down = Math.max(0, down - c - k);
    s[t] = Math.max(up, down);
  }
  return s;
}

/** Moving sum of the last w clipped u over √w. */
function movingSum(u: Float64Array, w: number): Float64Array {
  const s = new Float64Array(u.length).fill(Number.NaN);
  const window: number[] = [];
  let sum = 0;
  for (let t = 0; t < u.length; t++) {
    if (Number.isNaN(u[t]!)) continue;
    const c = Math.max(-6, Math.min(6, u[t]!));
    window.push(c);
    sum += c;
    if (window.length > w) sum -= window.shift()!;
    if (window.length === w) s[t] = sum / Math.sqrt(w);
  }
  return s;
}

/** Seasonal differences y(t) − y(t − m) (m by default from the frequency's season; NaN before the first season). */
function seasonalDifferences(stream: MonitoringStream, m = modelParams("forecastmodel-1", freqOf(stream)).seasonLength): Float64Array {
  const y = stream.values;
  return Float64Array.from(y, (v, t) => (t >= m ? v - y[t - m]! : Number.NaN));
}

/** x(t) less the mean of the previous w values of x (NaN until there are w): takes a trend out of seasonal differences. */
function centred(x: Float64Array, w: number): Float64Array {
  return x.map((v, t) => (t >= w && !Number.isNaN(x[t - w]!) ? v - meanOf(x, t - w, t) : Number.NaN));
}

/** s(t) rescaled so that the 90 % quantile of the previous C values (NaN skipped) maps to Φ⁻¹(0.95) = 1.645: a scale, not a rank. */
function scaleCalibrated(x: Float64Array, C: number): Float64Array {
  const out = new Float64Array(x.length).fill(Number.NaN);
  const past: number[] = [];
  for (let t = 0; t < x.length; t++) {
    if (Number.isNaN(x[t]!)) continue;
    if (past.length >= 50) {
      const sorted = [...past].sort((a, b) => a - b);
      const q90 = sorted[Math.floor(0.9 * (sorted.length - 1))]!;
      out[t] = q90 > 0 ? (1.645 * x[t]!) / q90 : 0;
    }
    past.push(x[t]!);
    if (past.length > C) past.shift();
  }
  return out;
}

/** √A of the shipped accumulated score (a CUSUM reset after alarms at level 99) over z, with or without the correlation correction (ρ from the points before `from`). */
function cusumScore(z: Float64Array, from: number, corrected: boolean): Float64Array {
  const valid = z.map((v, t) => (t >= from - 336 ? v : Number.NaN));
  const out = new Float64Array(z.length);
  accumulatedAnomalyScores(valid, 99, out, corrected ? scoreCorrelation(valid, from) : 0);
  return out.map(Math.sqrt);
}

/** 1 inside each stream's labelled windows, 0 at its normal points. */
function labelMasks(list: readonly MonitoringStream[]): Uint8Array[] {
  return list.map((stream) => {
    const mask = new Uint8Array(stream.values.length);
    for (const w of stream.windows) mask.fill(1, w.start, w.end);
    return mask;
  });
}

/**
 * What a score does on some streams (scores before each warm-up left out): its best-threshold NAB score and
 * threshold, and the level-99 rule on a z-like score, flagging every point over 2.576: the share of normal points it
 * flags (its false alarms; 1 % when the score holds its level, as text with two decimals) and its NAB score.
 */
function measure(list: readonly MonitoringStream[], masks: readonly Uint8Array[], scores: readonly Float64Array[]): { best: number; threshold: number; overShare: string; atLevel: number } {
  const masked = scores.map((x, i) => x.map((v, t) => (t >= list[i]!.warmup ? v : Number.NaN)));
  const { best, threshold } = bestThresholdScore(list, masked);
  const parts = masked.map((m, i) => nabScore(list[i]!, (t) => m[t]! > 2.5758, list[i]!.warmup));
  const over = parts.reduce((sum, part) => sum + part.falseAlarms, 0);
  let normal = 0;
  masked.forEach((m, i) => m.forEach((v, t) => (Number.isNaN(v) || masks[i]![t] === 1 ? undefined : normal++)));
  return { best, threshold, overShare: ((100 * over) / normal).toFixed(2), atLevel: normalisedScore(parts) };
}

const abs = (z: Float64Array) => z.map(Math.abs);
/** f(a, b) pointwise, a where b is NaN. */
const pairOf = (a: Float64Array, b: Float64Array, f: (x: number, y: number) => number) => a.map((v, t) => (Number.isNaN(b[t]!) ? v : f(v, b[t]!)));
const maxOf = (a: Float64Array, b: Float64Array) => pairOf(a, b, Math.max);
const minOf = (a: Float64Array, b: Float64Array) => pairOf(a, b, Math.min);
const halfSum = (a: Float64Array, b: Float64Array) => pairOf(a, b, (x, y) => 0.5 * (x + y));

// the streams the choices up to the two-judge rule were made on: synthetic 0–15 and the three R series
const all = monitoringStreams();
const streams = all.filter((_, i) => i < 16 || i >= SYNTHETIC_STREAMS);
const rows: string[] = [];
const from = (i: number) => streams[i]!.warmup - LEAD + 40;
// the series below depend on the streams only, not on h: computed once for both
// evidence the network's adaptation hides: the point against the same point one season earlier
const differences = streams.map((s) => seasonalDifferences(s));
const seasonal = differences.map((d, i) => abs(slidingZ(d, from(i), 336, 4)));
const signedBaseline = differences.map((d) => trailingGaussianZ(d, 168, true));
const baseline = signedBaseline.map(abs);
const seasonalOver = [72, 336].map((W) => ({ W, other: differences.map((d) => trailingGaussianZ(d, W)) }));
const centredOver = [168, 336].map((w) => ({ w, sc: differences.map((d, i) => abs(slidingZ(centred(d, w), from(i), 336, 4))) }));
// the normal (unlabelled) points of each stream, for the share a level-99 rule flags
const labelled = labelMasks(streams);
for (const h of [1, 6]) {
  const u = streams.map((s) => spreadScores(s, h));
  const score = (name: string, scores: Float64Array[]) => {
    const { best, threshold, overShare, atLevel } = measure(streams, labelled, scores);
    rows.push(`| ${h} | ${tableCell(name)} | ${best.toFixed(1)} | ${threshold.toFixed(2)} | ${overShare} % | ${atLevel.toFixed(1)} |`);
    console.log(h, name, best.toFixed(1), overShare, atLevel.toFixed(1));
  };
  score("|u|, uncalibrated", u.map(abs));
  score("blocks of 24 calibrated on the 144 before (the rule before this issue, streaming)", u.map((x, i) => abs(blockZ(x, streams[i]!.warmup))));
  for (const C of [144, 336, 1000]) {
    score(`sliding, C = ${C}, nothing excluded`, u.map((x, i) => abs(slidingZ(x, from(i), C, Infinity))));
    score(`sliding, C = ${C}, |z| > 4 excluded`, u.map((x, i) => abs(slidingZ(x, from(i), C, 4))));
  }
  const z = u.map((x, i) => slidingZ(x, from(i), 336, 4));
  for (const k of [0.5, 1]) {
    score(`max(|z|, calibrated CUSUM of z, k = ${k})`, z.map((zi, i) => maxOf(abs(zi), abs(slidingZ(cusum(zi, k), from(i) + 40, 336, 4)))));
  }
  const moving = z.map((zi, i) => maxOf(abs(zi), abs(slidingZ(movingSum(u[i]!, 8), from(i) + 40, 336, 4))));
  score("max(|z|, calibrated moving sum of u over 8 points)", moving);
  score("calibrated seasonal difference alone (y − y₋ₘ, C = 336, |z| > 4 excluded)", seasonal);
  score("max(|z|, calibrated seasonal difference)", z.map((zi, i) => maxOf(abs(zi), seasonal[i]!)));
  score("max(|z|, moving sum of u over 8, seasonal difference)", moving.map((mi, i) => maxOf(mi, seasonal[i]!)));
  score("seasonal-naive baseline z (mean and sd of 168)", baseline);
  const combined = z.map((zi, i) => halfSum(abs(zi), baseline[i]!));
  score("mean of |z| and the baseline z", combined);
  score("max(|z|, baseline z)", z.map((zi, i) => maxOf(abs(zi), baseline[i]!)));
  score("min(|z|, baseline z): both judges must agree", z.map((zi, i) => minOf(abs(zi), baseline[i]!)));
  for (const { W, other } of seasonalOver) {
    score(`min(|z|, seasonal z over ${W} differences)`, z.map((zi, i) => minOf(abs(zi), other[i]!)));
  }
  score("geometric mean of |z| and the baseline z", z.map((zi, i) => pairOf(abs(zi), baseline[i]!, (x, y) => Math.sqrt(x * y))));
  score("min(|z|, baseline z) up to 2.576, their mean once both exceed it (combineJudges of two judges, shipped then)", z.map((zi, i) => pairOf(abs(zi), baseline[i]!, (x, y) => (Number.isNaN(x) ? x : combineJudges(x, y)))));
  for (const p of [-1, -2, -4]) {
    score(`power mean (p = ${p}) of |z| and the baseline z`, z.map((zi, i) => pairOf(abs(zi), baseline[i]!, (x, y) => (x <= 0 || y <= 0 ? 0 : (0.5 * (x ** p + y ** p)) ** (1 / p)))));
  }
  for (const w of [0.6, 0.7, 0.8]) {
    score(`${w} · min + ${(1 - w).toFixed(1)} · max of |z| and the baseline z`, z.map((zi, i) => pairOf(abs(zi), baseline[i]!, (x, y) => w * Math.min(x, y) + (1 - w) * Math.max(x, y))));
  }
  // the shipped accumulated score: a CUSUM of the combined z, reset after every alarm
  const judged = z.map((zi, i) => pairOf(zi, signedBaseline[i]!, (v, b) => (Number.isNaN(v) ? v : combineJudges(v, b))));
  score("combined z with signs (combineJudges of two judges: same side required), the anomaly_score shipped then", judged.map(abs));
  score("accumulated: CUSUM of the combined z, k = 1, reset after alarms, no correlation correction", judged.map((j, i) => cusumScore(j, streams[i]!.warmup, false)));
  score("accumulated: the same with the correlation correction (shipped then)", judged.map((j, i) => cusumScore(j, streams[i]!.warmup, true)));
  score("mean of |z| and the baseline z, scale-calibrated (90 % of the last 336 → 1.645)", combined.map((c) => scaleCalibrated(c, 336)));
  score("mean of |z| and the baseline z rank-calibrated (C = 336, nothing excluded)", z.map((zi, i) => halfSum(abs(zi), abs(slidingZ(baseline[i]!, from(i) + 200, 336, Infinity)))));
  // the same combination calibrated on its own past values, so that a level keeps its meaning
  score("mean of |z| and the baseline z, calibrated (C = 336, > 4 excluded)", z.map((zi, i) => abs(slidingZ(halfSum(abs(zi), baseline[i]!), from(i) + 200, 336, 4))));
  for (const { w, sc } of centredOver) {
    score(`seasonal difference less its mean over ${w}, calibrated`, sc);
    score(`mean of |z| and that (${w})`, z.map((zi, i) => halfSum(abs(zi), sc[i]!)));
    score(`max(|z|, that) (${w})`, z.map((zi, i) => maxOf(abs(zi), sc[i]!)));
  }
  score("mean of |z| and the seasonal difference's |z|", z.map((zi, i) => halfSum(abs(zi), seasonal[i]!)));
}

/** The “two of three” rule (not chosen): the median of three signed z up to 2.576, then the average of the two furthest out on its side. */
function twoOfThree(a: number, b: number, c: number): number {
  const [low, middle, high] = [a, b, c].sort((x, y) => x - y) as [number, number, number];
  if (middle > JUDGES_AGREE_Z) return 0.5 * (middle + high);
  if (middle < -JUDGES_AGREE_Z) return 0.5 * (low + middle);
  return middle === 0 ? 0 : middle;
}

// The weekly seasonal judge, on every development stream (synthetic 0–63 and the R series): hourly data also repeat
// weekly, which the same hour a day earlier cannot show.
const development = all.filter((s) => s.development);
const weeklyRows: string[] = [];
{
  const daily = development.map((s) => trailingGaussianZ(seasonalDifferences(s), 168, true));
  const weekly = development.map((s) => {
    const lag = SECOND_SEASON_LENGTH[freqOf(s)];
    if (lag === undefined) return new Float64Array(s.values.length).fill(Number.NaN);
    return trailingGaussianZ(seasonalDifferences(s, lag), 168, true);
  });
  const masks = labelMasks(development);
  // a judge that cannot speak (NaN) is left out: the network alone, the network and the daily judge, then (weekly judge
  // speaking) the three, or the two seasonal judges with the network abstaining
  const judges = (zi: Float64Array, i: number, networkVotes: boolean): Float64Array =>
    zi.map((v, t) => {
      const d = daily[i]![t]!;
      const w = weekly[i]![t]!;
      if (Number.isNaN(v) || Number.isNaN(d)) return v;
      if (Number.isNaN(w)) return combineJudges(v, d);
      return networkVotes ? twoOfThree(v, d, w) : combineJudges(d, w);
    });
  for (const h of [1, 6]) {
    const z = development.map((s, i) => slidingZ(spreadScores(s, h), s.warmup - LEAD + 40, 336, 4));
    const score = (name: string, scores: Float64Array[]) => {
      const { best, overShare, atLevel } = measure(development, masks, scores.map(abs));
      weeklyRows.push(`| ${h} | ${tableCell(name)} | ${best.toFixed(1)} | ${overShare} % | ${atLevel.toFixed(1)} |`);
      console.log("weekly", h, name, best.toFixed(1), atLevel.toFixed(1));
    };
    score("network and the daily judge (y − y₋ₘ): two judges, the rule before", z.map((zi, i) => zi.map((v, t) => (Number.isNaN(v) || Number.isNaN(daily[i]![t]!) ? v : combineJudges(v, daily[i]![t]!)))));
    score("daily seasonal z alone (the seasonal-naive baseline)", daily);
    score("weekly seasonal z alone (y − y₋₁₆₈, mean and sd of the 168 before)", development.map((s, i) => (SECOND_SEASON_LENGTH[freqOf(s)] === undefined ? daily[i]! : weekly[i]!)));
    score("daily and weekly judges, both must agree, the network abstaining where the weekly judge speaks (shipped)", z.map((zi, i) => judges(zi, i, false)));
    score("network, daily and weekly judges: two of three must agree (not chosen)", z.map((zi, i) => judges(zi, i, true)));
  }
}

const lines = [
  "<!-- Generated by `npm run build && node dist/bench/monitoring-experiments.js` (bench/monitoring-experiments.ts); do not edit by hand. -->",
  "# Monitoring benchmark: what was tried for the anomaly scores",
  "",
  "Variants of the calibration and of accumulated evidence on the network's own spread scores u (forecastmodel-1; h 1: one-step-ahead forecasts of every point, h 6: windows of 6, the batch pattern), on the labelled streams of `tools/datasets/monitoring-data.ts`, scored by the best single threshold on the score (NAB rule, see [monitoring-eval](./monitoring-eval.md)). For reference, the seasonal-naive residual z scores 49.4 and the rolling Gaussian z 24.7 there.",
  "",
  "| h | score | NAB score, best threshold | threshold | normal points over 2.576 (level 99) | NAB score of flags over 2.576 |",
  "|---:|---|---:|---:|---:|---:|",
  ...rows,
  "",
  "Reading: a local scale (C = 336) with anomalies left out ranks better than the rule it replaced; accumulated evidence in the form of a CUSUM of z, even calibrated on its own past values, ranks worse, because the one-step errors of real and synthetic monitoring series are autocorrelated (daily and weekly boundaries the 96-point context cannot see, noise bursts), so sums of normal errors drift as far as a level shift's. None of the network-only variants reaches the seasonal-naive baseline's 49.4: on these streams the network adapts to a level shift, a drift or a flat-line within a point or two, while y − y₋₂₄ keeps showing it for a day.",
  "",
  "Seasonal evidence (2026-11-24): the seasonal difference r = y − y₋ₘ judged the way the baseline judges it, |r − mean| / sd over the previous 168 differences (not robust: the sd grows after an anomaly, which keeps its echo one season later quiet), averaged with the network's calibrated |z|, ranks best of everything tried: 55.9 (h 1) and 57.1 (h 6) against the baseline's 49.4 and the network alone's 46.3 / 37.2. The same seasonal difference calibrated robustly (rank against the last 336, anomalies left out, with or without its trend taken out) ranks far lower (35.7–38.1 alone), and calibrating the averaged score on its own past values gives back most of the gain (50.7 / 44.4). So the gain comes from two judges that fail differently (the network on what it adapts to, the seasonal difference on what a season hides), not from a better scale; how to keep a level's meaning for such a combined score (a calibration that does not flatten its ranking across streams) is the open step. The rule shipped then (docs/anomaly-detection.md, step 6) was “both judges must agree”, min(|z|, baseline z) here, on the same sign: it flags 0.15 % of normal points and its flags score +35.5 / +30.0 at 2.576, the only variant above flagging nothing; with 336 differences instead of 168 it ranks 52.0 at h 1 (45.7 at h 6) but needs 360 points of history, more than the benchmark's streaming calls send. The last columns show where each score stands: the network's calibrated z flags 0.85–1.03 % of normal points at 2.576 (it holds level 99); the uncalibrated average flags only 0.49–0.51 % (conservative, so its level-99 flags would cost less, not more), and rescaling it by the 90 % quantile of its own recent values brings that to 1.19–1.22 % while keeping 52.7 / 53.9.",
  "",
  "Between the average and “both judges” (2026-11-24, second session): power means of the two |z| (p = −1, −2, −4) and mixtures w · min + (1 − w) · max (w = 0.6, 0.7, 0.8) trace one trade-off between ranking and what the level-99 flags cost; none ranks clearly above the baseline's 49.4 in both patterns while its flags stay clearly above flagging nothing (best of them: 0.8 · min + 0.2 · max, 51.0 / 51.2 ranking, +22.1 / +21.2 flags). A score cannot rank like the average and flag like the minimum: every level set of one score is nested in the next, and the average's best level set (about 3.3) includes points the minimum's level-99 set excludes.",
  "",
  "The score shipped next (same session, later): “both judges must agree” up to 2.576 and the average of the two once both exceed it (`combineJudges`). Its level-99 flags are those of the minimum (+35.5 / +30.0) while it ranks 54.9 / 53.9 here (53.7 batch and 52.2 streaming in [monitoring-eval](./monitoring-eval.md)), against the baseline's 49.4: the ranking that matters above 2.576 is the average's, and normal points rarely get there because both judges must reject them first.",
  "",
  "Accumulated score (same session): the accumulated_anomaly_score is a CUSUM of the combined z with k = 1, reset after every alarm (docs/anomaly-detection.md, step 7). Without a correction for correlated scores its level-99 alarms score +21.8 with one-step forecasts but −84.3 with windows of 6, whose scores share their origin; dividing each term by √((1 + ρ)/(1 − ρ)), ρ the lag-1 correlation of the scores before the window, brings them to +35.4 and +30.0 (the flags' own +35.8 / +30.0), so the alarms never cost more than the flags here. The last rows show it.",
  "",
  "Everything above ran on the 19 streams the benchmark had then (synthetic 0–15 and the R series), where those choices were made; the rows below are the choice after them.",
  "",
  `## The weekly seasonal judge (the development streams: synthetic 0–${development.length - 4} and the R series)`,
  "",
  "Run on the larger development part of the benchmark (48 synthetic streams added first as held-out streams, then used for this choice; synthetic streams 64-127 were held out from it; since issue 26 the detector is chosen on the development half of real monitoring data, [monitoring-eval](./monitoring-eval.md)). The daily judge compares y with y₋₂₄ (mean and sd of the 168 differences before), the weekly judge with y₋₁₆₈ (hourly streams only; elsewhere the daily judge alone speaks); z is the network's calibrated z (C = 336, |z| > 4 left out). The one-step (h 1) rows forecast every point from the whole history, not from the 264 points the benchmark's streaming calls send.",
  "",
  "| h | score | NAB score, best threshold | normal points over 2.576 (level 99) | NAB score of flags over 2.576 |",
  "|---:|---|---:|---:|---:|",
  ...weeklyRows,
  "",
  "Reading: on these streams the network's judgement ranks below either seasonal difference, and the weekly one (weekdays and weekends differ, which y₋₂₄ cannot show) ranks best alone, but flags far too many normal points. Two judges that must agree rank well above the two-judge rule before and the baseline, with level-99 flags well above flagging nothing. Of the two ways to add the weekly judge, “two of three” (the network votes) and “daily and weekly both” (the network abstains where the weekly judge speaks), the second ranks as well or better and its flags cost far less, here and in the benchmark's own call patterns on these streams (a scratch run of detectAnomalies with the network's vote removed where the weekly judge speaks: best threshold 67.4 batch and 65.3 streaming against 65.0 and 65.4 for two of three; level-99 flags +51.4 and +47.1 against +30.9 and +30.2). The reason is systematic, not luck: the network's 96-point context cannot see a week either, so at the first hours of a weekday after a weekend (and of a weekend after the week) it and the daily judge both reject a normal point that only the weekly judge knows is normal. That is the rule shipped; where the weekly judge cannot speak (less than 216 points of history, other frequencies), the network and the daily judge must agree, as before.",
  "",
];
writeFileSync("docs/monitoring-experiments.md", lines.join("\n"));
console.log("wrote docs/monitoring-experiments.md");
