/**
 * Deterministic synthetic series for pretraining: a mix of ETS-like
 * state-space paths (additive and multiplicative, damped and undamped),
 * seasonal ARIMA-like processes, trend × seasonality products, smooth
 * Gaussian-process-like paths (random Fourier features), random walks and
 * intermittent counts, with occasional level shifts and spikes, and a good
 * share of short histories. No real data is used.
 * @module
 */
import type { NetworkShape } from "../../src/model/config.js";

/**
 * A uniform generator on [0, 1) (e.g. a seeded `seedrandom`).
 */
export type Uniform = () => number;

/**
 * One training window.
 */
export interface SyntheticWindow {
  context: Float64Array;
  target: Float64Array;
  seasonLength: number;
}

const SEASONS: readonly { m: number; weight: number }[] = [
  { m: 1, weight: 0.28 },
  { m: 4, weight: 0.2 },
  { m: 12, weight: 0.3 },
  { m: 7, weight: 0.08 },
  { m: 24, weight: 0.08 },
  { m: 52, weight: 0.06 },
];

/** Shortest context drawn per season length. */
const MIN_CONTEXT: Record<number, number> = { 1: 5, 4: 8, 7: 14, 12: 18, 24: 36, 52: 52 };

/**
 * Steps of the target that the loss sees, per season length: at least the
 * native horizon of that frequency (Y 6, Q 8, D 14, M 18, H 24, W 13; twice
 * as many seasons for the long-horizon network).
 */
function trainingHorizon(shape: NetworkShape, seasonLength: number): number {
  const long = shape.outputLength > 24;
  const table: Record<number, number> = long
    ? { 1: 8, 4: 12, 7: 28, 12: 24, 24: 48, 52: 104 }
    : { 1: 8, 4: 12, 7: 14, 12: 18, 24: 24, 52: 13 };
  return Math.min(table[seasonLength] ?? shape.outputLength, shape.outputLength);
}

/** A standard normal draw from two uniforms (Box–Muller). */
export function gauss(u: Uniform): number {
  const u1 = Math.max(u(), 1e-300);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u());
}

/** A uniform draw in [lo, hi). */
export function uniformIn(u: Uniform, lo: number, hi: number): number {
  return lo + (hi - lo) * u();
}

/** A season length drawn from a weighted table (`fallback` when rounding leaves the draw past the last weight). */
export function pickWeighted(u: Uniform, table: readonly { m: number; weight: number }[], fallback: number): number {
  let r = u();
  for (const s of table) {
    if (r < s.weight) return s.m;
    r -= s.weight;
  }
  return fallback;
}

function pickSeason(u: Uniform): number {
  return pickWeighted(u, SEASONS, 1);
}

/** A random zero-mean seasonal profile of period m built from a few harmonics (or free values). */
function seasonalProfile(u: Uniform, m: number): Float64Array {
  const s = new Float64Array(m);
  if (m <= 1) return s;
  if (u() < 0.3) {
    for (let p = 0; p < m; p++) s[p] = gauss(u);
  } else {
    const harmonics = 1 + Math.floor(u() * Math.min(3, Math.floor(m / 2)));
    for (let j = 1; j <= harmonics; j++) {
      const a = gauss(u) / j;
      const phase = u() * 2 * Math.PI;
      for (let p = 0; p < m; p++) s[p]! += a * Math.cos((2 * Math.PI * j * p) / m + phase);
    }
  }
  let mean = 0;
  for (let p = 0; p < m; p++) mean += s[p]!;
  mean /= m;
  let sd = 0;
  for (let p = 0; p < m; p++) {
    s[p]! -= mean;
    sd += s[p]! * s[p]!;
  }
  sd = Math.sqrt(sd / m) || 1;
  for (let p = 0; p < m; p++) s[p]! /= sd;
  return s;
}

/** ETS-like path: level, (damped) trend, seasonal state, additive errors; optionally in log space. */
function etsPath(u: Uniform, T: number, m: number, seasonal: boolean): Float64Array {
  const y = new Float64Array(T);
  const multiplicative = u() < 0.45;
  const sigma = multiplicative ? uniformIn(u, 0.01, 0.12) : 1;
  const alpha = uniformIn(u, 0.05, 0.9);
  const hasTrend = u() < 0.6;
  const beta = hasTrend ? alpha * uniformIn(u, 0, 0.25) : 0;
  const phi = u() < 0.5 ? uniformIn(u, 0.8, 0.98) : 1;
  const gamma = seasonal ? (1 - alpha) * uniformIn(u, 0, 0.25) : 0;
  let level = 0;
  let trend = hasTrend ? (multiplicative ? gauss(u) * 0.03 + 0.005 : gauss(u) * 0.6) : 0;
  const amp = seasonal ? (multiplicative ? uniformIn(u, 0.02, 0.35) : uniformIn(u, 0.3, 6)) : 0;
  const profile = seasonalProfile(u, m);
  const state = new Float64Array(Math.max(m, 1));
  for (let p = 0; p < m; p++) state[p] = amp * profile[p]!;
  for (let t = 0; t < T; t++) {
    const p = m > 1 ? t % m : 0;
    const e = sigma * gauss(u);
    const season = seasonal ? state[p]! : 0;
    y[t] = level + phi * trend + season + e;
    const newLevel = level + phi * trend + alpha * e;
    trend = phi * trend + beta * e;
    level = newLevel;
    if (seasonal) state[p]! += gamma * e;
  }
  if (multiplicative) for (let t = 0; t < T; t++) y[t] = Math.exp(y[t]!);
  return y;
}

/** Seasonal ARIMA-like: AR(1..2) × seasonal AR(1), optionally integrated once. */
function sarimaPath(u: Uniform, T: number, m: number, seasonal: boolean): Float64Array {
  const burn = 3 * Math.max(m, 10);
  const total = T + burn;
  const x = new Float64Array(total);
  const phi1 = uniformIn(u, -0.4, 0.95);
  const phi2 = u() < 0.4 ? uniformIn(u, -0.3, Math.max(-0.3, 0.95 - Math.abs(phi1))) * 0.5 : 0;
  const seasonalPhi = seasonal && m > 1 ? uniformIn(u, 0.3, 0.95) : 0;
  const integrated = u() < 0.5;
  const drift = integrated && u() < 0.5 ? gauss(u) * 0.3 : 0;
  for (let t = 0; t < total; t++) {
    let v = gauss(u);
    if (t >= 1) v += phi1 * x[t - 1]!;
    if (t >= 2) v += phi2 * x[t - 2]!;
    if (seasonalPhi > 0 && t >= m) v += seasonalPhi * (x[t - m]! - (t >= m + 1 ? phi1 * x[t - m - 1]! : 0));
    x[t] = v;
  }
  const y = new Float64Array(T);
  let acc = 0;
  for (let t = 0; t < T; t++) {
    const v = x[burn + t]!;
    acc += v + drift;
    y[t] = integrated ? acc : v;
  }
  return y;
}

/** Deterministic trend (linear, quadratic, logistic or broken line) × or + a seasonal profile, plus noise. */
function trendSeasonPath(u: Uniform, T: number, m: number, seasonal: boolean): Float64Array {
  const y = new Float64Array(T);
  const kind = Math.floor(u() * 4);
  const slope = gauss(u);
  const curve = gauss(u) * 0.5;
  const mid = uniformIn(u, 0.2, 0.8);
  const steep = uniformIn(u, 4, 15);
  const brk = uniformIn(u, 0.3, 0.9);
  const slope2 = gauss(u);
  const profile = seasonalProfile(u, m);
  const amp = seasonal ? uniformIn(u, 0.05, 0.5) : 0;
  const noise = uniformIn(u, 0.01, 0.15);
  const multiplicative = u() < 0.6;
  for (let t = 0; t < T; t++) {
    const s = t / Math.max(T - 1, 1);
    let tr: number;
    if (kind === 0) tr = 1 + slope * s;
    else if (kind === 1) tr = 1 + slope * s + curve * s * s;
    else if (kind === 2) tr = 1 + slope / (1 + Math.exp(-steep * (s - mid)));
    else tr = 1 + slope * Math.min(s, brk) + slope2 * Math.max(0, s - brk);
    const season = m > 1 ? amp * profile[t % m]! : 0;
    y[t] = (multiplicative ? (5 + tr) * (1 + season) : 5 + tr + season) + noise * gauss(u);
  }
  return y;
}

/** Smooth paths: random Fourier features of an RBF kernel, plus periodic and linear parts. */
function gpPath(u: Uniform, T: number, m: number, seasonal: boolean): Float64Array {
  const y = new Float64Array(T);
  const K = 16;
  const lengthScale = Math.exp(uniformIn(u, Math.log(2), Math.log(Math.max(T, 4))));
  const freqs = new Float64Array(K);
  const phases = new Float64Array(K);
  const amps = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    freqs[k] = gauss(u) / lengthScale;
    phases[k] = u() * 2 * Math.PI;
    amps[k] = gauss(u) / Math.sqrt(K);
  }
  const periodicAmp = seasonal && m > 1 ? uniformIn(u, 0.2, 1.5) : 0;
  const periodicPhase = u() * 2 * Math.PI;
  const linear = gauss(u) * (u() < 0.5 ? 0 : 1.5);
  const noise = uniformIn(u, 0.02, 0.3);
  for (let t = 0; t < T; t++) {
    let v = 0;
    for (let k = 0; k < K; k++) v += amps[k]! * Math.cos(freqs[k]! * t + phases[k]!);
    if (periodicAmp > 0) v += periodicAmp * Math.sin((2 * Math.PI * t) / m + periodicPhase) + 0.3 * periodicAmp * Math.sin((4 * Math.PI * t) / m);
    y[t] = v + (linear * t) / T + noise * gauss(u);
  }
  return y;
}

/** Random walk with drift. */
function walkPath(u: Uniform, T: number): Float64Array {
  const y = new Float64Array(T);
  const drift = gauss(u) * 0.4;
  let v = 0;
  for (let t = 0; t < T; t++) {
    v += drift + gauss(u);
    y[t] = v;
  }
  return y;
}

/** Intermittent counts: Bernoulli occurrences with geometric sizes, optionally seasonal. */
function intermittentPath(u: Uniform, T: number, m: number, seasonal: boolean): Float64Array {
  const y = new Float64Array(T);
  const p = uniformIn(u, 0.1, 0.8);
  const meanSize = uniformIn(u, 1, 10);
  const profile = seasonalProfile(u, m);
  for (let t = 0; t < T; t++) {
    const pt = seasonal && m > 1 ? Math.min(0.98, Math.max(0.02, p * (1 + 0.5 * profile[t % m]!))) : p;
    if (u() < pt) y[t] = 1 + Math.floor(-Math.log(Math.max(u(), 1e-12)) * meanSize);
  }
  return y;
}

function stdOf(y: Float64Array): number {
  let mean = 0;
  for (let i = 0; i < y.length; i++) mean += y[i]!;
  mean /= Math.max(y.length, 1);
  let v = 0;
  for (let i = 0; i < y.length; i++) v += (y[i]! - mean) ** 2;
  return Math.sqrt(v / Math.max(y.length, 1)) || 1;
}

/**
 * One synthetic series of length T with season length m (deterministic in `u`).
 *
 * @example
 * ```ts
 * syntheticSeries(seedrandom("x"), 50, 12).length; // => 50
 * ```
 */
function syntheticSeries(u: Uniform, T: number, m: number): Float64Array {
  const seasonal = m > 1 && u() < 0.75;
  const r = u();
  let y: Float64Array;
  if (r < 0.3) y = etsPath(u, T, m, seasonal);
  else if (r < 0.45) y = sarimaPath(u, T, m, seasonal);
  else if (r < 0.62) y = trendSeasonPath(u, T, m, seasonal);
  else if (r < 0.77) y = gpPath(u, T, m, seasonal);
  else if (r < 0.85) y = walkPath(u, T);
  else if (r < 0.9) y = intermittentPath(u, T, m, seasonal);
  else {
    const a = etsPath(u, T, m, seasonal);
    const b = gpPath(u, T, m, false);
    const w = uniformIn(u, 0.2, 1) * stdOf(a) / stdOf(b);
    y = a.map((v, i) => v + w * b[i]!);
  }
  if (u() < 0.1) {
    const at = Math.floor(u() * T);
    const shift = (u() < 0.5 ? -1 : 1) * uniformIn(u, 1, 4) * stdOf(y);
    for (let t = at; t < T; t++) y[t]! += shift;
  }
  if (u() < 0.1) {
    const sd = stdOf(y);
    const count = 1 + Math.floor(u() * 3);
    for (let c = 0; c < count; c++) y[Math.floor(u() * T)]! += (u() < 0.5 ? -1 : 1) * uniformIn(u, 3, 8) * sd;
  }
  return y;
}

/**
 * One pretraining window: a synthetic series cut into a context (log-uniform
 * length, many short ones) and the target that follows it.
 *
 * @example
 * ```ts
 * const w = syntheticWindow(seedrandom("x"), networkShape("forecastmodel-1"));
 * w.target.length > 0; // => true
 * ```
 */
export function syntheticWindow(u: Uniform, shape: NetworkShape, seasonLength?: number): SyntheticWindow {
  const m = seasonLength ?? pickSeason(u);
  const minN = Math.min(MIN_CONTEXT[m] ?? 8, shape.contextLength);
  const n = Math.round(Math.exp(uniformIn(u, Math.log(minN), Math.log(shape.contextLength))));
  const H = trainingHorizon(shape, m);
  const series = syntheticSeries(u, n + H, m);
  return { context: series.subarray(0, n), target: series.subarray(n), seasonLength: m };
}

/**
 * A group of time-aligned related series (common factor plus own parts), for
 * the cross-series network: each member's window ends at the same time.
 */
export function syntheticGroup(u: Uniform, shape: NetworkShape, size: number): SyntheticWindow[] {
  const m = pickSeason(u);
  const minN = Math.min(MIN_CONTEXT[m] ?? 8, shape.contextLength);
  const n = Math.round(Math.exp(uniformIn(u, Math.log(minN), Math.log(shape.contextLength))));
  const H = trainingHorizon(shape, m);
  const T = n + H;
  const common = syntheticSeries(u, T, m);
  const commonSd = stdOf(common);
  const out: SyntheticWindow[] = [];
  for (let i = 0; i < size; i++) {
    const own = syntheticSeries(u, T, m);
    const loading = uniformIn(u, 0.3, 1.5) * (u() < 0.2 ? -1 : 1);
    const ownWeight = uniformIn(u, 0.1, 1) * commonSd / stdOf(own);
    const y = new Float64Array(T);
    for (let t = 0; t < T; t++) y[t] = loading * common[t]! + ownWeight * own[t]!;
    out.push({ context: y.subarray(0, n), target: y.subarray(n), seasonLength: m });
  }
  return out;
}
