/**
 * Deterministic synthetic hourly and sub-hourly series for pretraining
 * forecastmodel-1-high-frequency: a day's shape (harmonics, business hours,
 * morning and evening peaks, batch-job bumps) repeated with a week's
 * pattern (weekends lower or flatter, per-day factors), holidays (a weekday
 * that behaves like a weekend day), level shifts, slow drifts and trends,
 * AR(1) noise, additive or multiplicative composition, counters (Poisson
 * counts of a seasonal rate, intermittent when the rate is low), spikes, and
 * some series with no season at all. No real data is used here; real
 * development windows are mixed in by `hfTrainingWindow` (tools/pretrain/pretrain.ts).
 * @module
 */
import type { NetworkShape } from "../../src/model/config.js";
import { gauss, pickWeighted, uniformIn, type SyntheticWindow, type Uniform } from "./synthetic.js";

/** One training window of the seasons view: its season length is a day of steps. */
export interface HfWindow extends SyntheticWindow {
  /** A week of steps. */
  longSeason: number;
}

const DAY_STEPS: readonly { m: number; weight: number }[] = [
  { m: 24, weight: 0.6 },
  { m: 48, weight: 0.15 },
  { m: 96, weight: 0.1 },
  { m: 12, weight: 0.05 },
  { m: 288, weight: 0.1 },
];

function logBetween(u: Uniform, lo: number, hi: number): number {
  return Math.exp(uniformIn(u, Math.log(lo), Math.log(hi)));
}

function poisson(u: Uniform, lambda: number): number {
  if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gauss(u)));
  const limit = Math.exp(-lambda);
  let k = 0;
  let p = u();
  while (p > limit && k < 200) {
    k++;
    p *= u();
  }
  return k;
}

/** A day's shape on [0, 1) of the day, roughly in [0, 1]. */
function dayShape(u: Uniform): (phi: number) => number {
  const kind = u();
  if (kind < 0.3) {
    const harmonics = 1 + Math.floor(u() * 4);
    const amps = Array.from({ length: harmonics }, (_, k) => gauss(u) / Math.pow(k + 1, uniformIn(u, 0.5, 1.5)));
    const phases = Array.from({ length: harmonics }, () => u() * 2 * Math.PI);
    return (phi) => {
      let s = 0;
      for (let k = 0; k < harmonics; k++) s += amps[k]! * Math.cos(2 * Math.PI * (k + 1) * phi + phases[k]!);
      return 0.5 + 0.35 * s;
    };
  }
  if (kind < 0.6) {
    const rise = uniformIn(u, 6, 10) / 24;
    const fall = uniformIn(u, 16, 21) / 24;
    const sharp = logBetween(u, 20, 200);
    const lunch = u() < 0.3 ? uniformIn(u, 0.1, 0.4) : 0;
    const night = uniformIn(u, 0, 0.4);
    return (phi) => {
      const on = 1 / (1 + Math.exp(-sharp * (phi - rise))) - 1 / (1 + Math.exp(-sharp * (phi - fall)));
      const dip = lunch * Math.exp(-(((phi - 12.5 / 24) * 24) ** 2) / 0.5);
      return night + (1 - night) * on - dip;
    };
  }
  if (kind < 0.85) {
    const morning = uniformIn(u, 6, 10) / 24;
    const evening = uniformIn(u, 17, 22) / 24;
    const wM = uniformIn(u, 1, 3) / 24;
    const wE = uniformIn(u, 1, 4) / 24;
    const aM = uniformIn(u, 0.3, 1);
    const aE = uniformIn(u, 0.3, 1);
    const base = uniformIn(u, 0.1, 0.5);
    return (phi) => base + aM * Math.exp(-(((phi - morning) / wM) ** 2)) + aE * Math.exp(-(((phi - evening) / wE) ** 2));
  }
  const bumps = 1 + Math.floor(u() * 3);
  const at = Array.from({ length: bumps }, () => u());
  const width = Array.from({ length: bumps }, () => uniformIn(u, 0.3, 2) / 24);
  const height = Array.from({ length: bumps }, () => uniformIn(u, 0.5, 1));
  return (phi) => {
    let s = 0.1;
    for (let b = 0; b < bumps; b++) {
      let d = Math.abs(phi - at[b]!);
      d = Math.min(d, 1 - d);
      s += height[b]! * Math.exp(-((d / width[b]!) ** 2));
    }
    return s;
  };
}

/**
 * A synthetic window of the seasons view: a history of up to six weeks (a
 * share shorter than a week) and the next `outputLength` steps.
 */
export function syntheticHfWindow(u: Uniform, shape: NetworkShape): HfWindow {
  const m = pickWeighted(u, DAY_STEPS, 24);
  const week = 7 * m;
  const O = shape.outputLength;
  const maxWeeks = m >= 288 ? 2.5 : 6;
  const n = u() < 0.15 ? Math.max(4, Math.floor(uniformIn(u, 0.3, 7) * m)) : Math.floor(logBetween(u, 1, maxWeeks) * week);
  const T = n + O;
  const t0 = Math.floor(u() * week);
  const shapeOf = dayShape(u);
  const day = new Float64Array(m);
  let dayMean = 0;
  for (let j = 0; j < m; j++) {
    day[j] = shapeOf(j / m);
    dayMean += day[j]! / m;
  }
  // The week: per-day factors and a weekend that is lower and/or flatter.
  const weekend = u() < 0.75;
  const weekendStart = Math.floor(u() * 7);
  const weekendFactor = uniformIn(u, 0.1, 0.9);
  const weekendFlatten = uniformIn(u, 0, 1);
  const dayFactor = Array.from({ length: 7 }, () => 1 + (u() < 0.5 ? 0.08 * gauss(u) : 0));
  const isWeekend = (dow: number): boolean => weekend && (dow === weekendStart || dow === (weekendStart + 1) % 7);
  const holidays = new Set<number>();
  if (u() < 0.3) for (let i = 0, count = 1 + Math.floor(u() * 2); i < count; i++) holidays.add(Math.floor(u() * Math.ceil(T / m)));
  const seasonal = new Float64Array(T);
  const noSeason = u() < 0.1;
  for (let t = 0; t < T; t++) {
    const abs = t + t0;
    const dayIndex = Math.floor(abs / m);
    const dow = dayIndex % 7;
    const phase = abs % m;
    let v = day[phase]!;
    if (isWeekend(dow) || holidays.has(Math.floor(t / m))) v = weekendFactor * ((1 - weekendFlatten) * v + weekendFlatten * dayMean);
    else v *= dayFactor[dow]!;
    seasonal[t] = noSeason ? 0 : v - dayMean;
  }
  // Level: a constant, optional trend, slow drift and level shifts.
  const level = new Float64Array(T);
  const trend = u() < 0.4 ? gauss(u) * 0.3 / T : 0;
  const drift = u() < 0.3 ? logBetween(u, 0.002, 0.03) : 0;
  const shifts = u() < 0.3 ? 1 + Math.floor(u() * 2) : 0;
  const shiftAt = Array.from({ length: shifts }, () => Math.floor(u() * T));
  const shiftBy = Array.from({ length: shifts }, () => gauss(u) * 0.4);
  let walk = 0;
  for (let t = 0; t < T; t++) {
    if (drift > 0) walk += drift * gauss(u);
    let l = trend * t + walk;
    for (let s = 0; s < shifts; s++) if (t >= shiftAt[s]!) l += shiftBy[s]!;
    level[t] = l;
  }
  // Noise: AR(1), heavier or lighter.
  const phi = u() < 0.5 ? uniformIn(u, 0, 0.9) : 0;
  const sigma = noSeason ? logBetween(u, 0.05, 0.3) : logBetween(u, 0.01, 0.35);
  const y = new Float64Array(T);
  const amplitude = logBetween(u, 0.1, 2);
  const base = u() < 0.7 ? logBetween(u, 0.5, 5) : gauss(u) * 2;
  const kind = u();
  let e = 0;
  for (let t = 0; t < T; t++) {
    e = phi * e + Math.sqrt(1 - phi * phi) * gauss(u);
    const s = seasonal[t]! * 2;
    if (kind < 0.5) y[t] = base + amplitude * (s + level[t]! + sigma * e);
    else if (kind < 0.8) y[t] = Math.abs(base) * Math.exp(0.7 * amplitude * (s + level[t]!)) * (1 + sigma * e);
    else y[t] = 0; // counters below
  }
  if (kind >= 0.8) {
    const scale = logBetween(u, 0.2, 200);
    for (let t = 0; t < T; t++) y[t] = poisson(u, scale * Math.exp(1.2 * (seasonal[t]! * 2 + level[t]!)));
  }
  if (u() < 0.2) {
    const rate = logBetween(u, 1 / 2000, 1 / 200);
    let sd = 0;
    for (let t = 1; t < T; t++) sd += Math.abs(y[t]! - y[t - 1]!);
    sd /= T;
    for (let t = 0; t < T; t++) if (u() < rate) y[t]! += (u() < 0.7 ? 1 : -1) * uniformIn(u, 3, 10) * (sd + 1e-9);
  }
  return { context: y.slice(0, n), target: y.slice(n), seasonLength: m, longSeason: week };
}
