/**
 * The network's view of one window: instance normalisation, the context
 * itself, a mask, cheap classical projections and a few descriptors.
 *
 * Everything is computed on the standardised window z = (x − mean) / std, so
 * the network's input does not depend on the series' level or scale and the
 * forecast scales exactly with the data.
 * @module
 */
import { KNOWN_SEASON_LENGTHS, META_COUNT, PROJECTION_COUNT, type NetworkShape } from "./config.js";
import { olsSlope, sesGridFit } from "../stats/smoothing.js";
import { dampedTrendFit } from "./kernel/damped.js";
import { centredKernel } from "./kernel/centred.js";

/** Clip for projections in standardised units. */
const PROJECTION_CLIP = 20;

/**
 * Layout of the input vector of a network.
 * @category Network
 */
export interface InputLayout {
  readonly context: number;
  readonly mask: number;
  readonly projections: number;
  readonly meta: number;
  readonly peers: number;
  readonly size: number;
}

/**
 * Offsets of each part of the input vector.
 *
 * @example
 * ```ts
 * inputLayout(networkShape("forecastmodel-1")).size; // => 346
 * ```
 * @category Network
 */
export function inputLayout(shape: NetworkShape): InputLayout {
  const L = shape.contextLength;
  const context = 0;
  const mask = L;
  const projections = 2 * L;
  const meta = projections + shape.projections * shape.outputLength;
  const peers = meta + META_COUNT;
  const size = peers + (shape.crossSeries ? L + 1 : 0);
  return { context, mask, projections, meta, peers, size };
}

/**
 * What builds a network's input rows: `WindowFeaturizer` (the `"window"`
 * view) or `SeasonsFeaturizer` (the `"seasons"` view); `createFeaturizer`
 * picks it from the shape.
 * @category Network
 */
export interface Featurizer {
  readonly shape: NetworkShape;
  readonly layout: InputLayout;
  /**
   * Writes the input vector of the history `window` at `row[offset ..]` and
   * its normalisation in `scaleOut`; `longSeason` (a week of steps, 0: none)
   * is read by the seasons view only.
   */
  featurize(window: Float64Array, seasonLength: number, row: Float64Array, offset: number, scaleOut: WindowScale, longSeason?: number): void;
  /** Writes the peers part of cross-series rows (see `WindowFeaturizer.writePeers`). */
  writePeers(rows: Float64Array, from: number, count: number, sums: Float64Array): void;
}

/**
 * Normalisation of one window: forecast = location + scale · network output.
 * @category Network
 */
export interface WindowScale {
  location: number;
  scale: number;
  /** True when the window is constant: the forecast is `location` exactly. */
  constant: boolean;
}

/**
 * Builds network inputs for windows of one network shape. Holds its scratch
 * buffers, so featurising allocates nothing per window.
 * @category Network
 */
export class WindowFeaturizer implements Featurizer {
  readonly shape: NetworkShape;
  readonly layout: InputLayout;
  private readonly z: Float64Array;
  /** The window divided by its largest magnitude (z = (u − mean) / sd). */
  private readonly u: Float64Array;
  private readonly deseason: Float64Array;
  private readonly trend: Float64Array;
  private readonly seasonal: Float64Array;
  private readonly counts: Float64Array;
  /** Multiplicative seasonal factors of the current window (when used). */
  private readonly factors: Float64Array;
  /** [level, trend, phi] of the last damped-trend fit (dampedTrendFit). */
  private readonly damped = new Float64Array(3);
  /** [alpha, level] of the last SES fit (sesGridFit). */
  private readonly ses = new Float64Array(2);
  /** [mean, sd, largest magnitude] of the last window (standardiseWindow). */
  private readonly moments = new Float64Array(3);

  constructor(shape: NetworkShape) {
    this.shape = shape;
    this.layout = inputLayout(shape);
    const L = shape.contextLength;
    this.z = new Float64Array(L);
    this.u = new Float64Array(L);
    this.deseason = new Float64Array(L);
    this.trend = new Float64Array(L);
    this.seasonal = new Float64Array(Math.max(...KNOWN_SEASON_LENGTHS));
    this.counts = new Float64Array(this.seasonal.length);
    this.factors = new Float64Array(this.seasonal.length);
  }

  /**
   * Writes the input vector of `window` (its last `contextLength` points are
   * used) at `row[offset ..]` and returns its normalisation in `scaleOut`.
   * The peers part (cross-series models) is left zero; see `writePeers`.
   */
  featurize(window: Float64Array, seasonLength: number, row: Float64Array, offset: number, scaleOut: WindowScale): void {
    const { shape, layout } = this;
    const L = shape.contextLength;
    const H = shape.outputLength;
    row.fill(0, offset, offset + layout.size);
    const n = Math.min(window.length, L);
    const start = window.length - n;
    standardiseWindow(window, start, n, scaleOut, this.moments);
    const maxAbs = this.moments[2]!;
    const mean = this.moments[0]!;
    const sd = this.moments[1]!;
    if (scaleOut.constant) return;
    const z = this.z;
    const u = this.u;
    let positive = true;
    for (let i = 0; i < n; i++) {
      const ui = window[start + i]! / maxAbs;
      if (!(ui > 0)) positive = false;
      u[i] = ui;
      z[i] = (ui - mean) / sd;
    }
    const ctx = offset + layout.context + (L - n);
    const mask = offset + layout.mask + (L - n);
    for (let i = 0; i < n; i++) {
      row[ctx + i] = Math.asinh(z[i]!);
      row[mask + i] = 1;
    }
    this.writeProjections(n, seasonLength, row, offset + layout.projections, H, mean, sd, positive);
    // Descriptors: season one-hot, history length, volatility, slope, seasonal strength.
    const meta = offset + layout.meta;
    const seasonIndex = KNOWN_SEASON_LENGTHS.indexOf(seasonLength);
    if (seasonIndex >= 0) row[meta + seasonIndex] = 1;
    let k = meta + KNOWN_SEASON_LENGTHS.length;
    row[k++] = Math.log(n) / Math.log(L);
    let diffAbs = 0;
    for (let i = 1; i < n; i++) diffAbs += Math.abs(z[i]! - z[i - 1]!);
    row[k++] = n > 1 ? diffAbs / (n - 1) : 0;
    row[k++] = clip(olsSlope(z, n) * n, 10) / 5;
    row[k++] = this.seasonalStrength;
  }

  /**
   * Writes the peers part of the cross-series input rows `from .. from+count−1`
   * of `rows` (already featurised): each row gets the mean of the other rows'
   * standardised contexts and a flag. A group of one gets zeros.
   */
  writePeers(rows: Float64Array, from: number, count: number, sums: Float64Array): void {
    const { layout, shape } = this;
    if (!shape.crossSeries || count < 2) return;
    const L = shape.contextLength;
    const D = layout.size;
    sums.fill(0, 0, L);
    for (let r = from; r < from + count; r++) for (let i = 0; i < L; i++) sums[i]! += rows[r * D + layout.context + i]!;
    for (let r = from; r < from + count; r++) {
      const base = r * D;
      for (let i = 0; i < L; i++) rows[base + layout.peers + i] = (sums[i]! - rows[base + layout.context + i]!) / (count - 1);
      rows[base + layout.peers + L] = 1;
    }
  }

  private seasonalStrength = 0;

  /**
   * Six projections in standardised units: naive, seasonal naive, SES, Theta,
   * damped trend, drift. `mean` and `sd` are the window's (in units of its
   * largest magnitude), so `mean + sd·z` is the window on a positive scale;
   * `positive` says whether every value of the window (u, in those units) is > 0.
   */
  private writeProjections(n: number, m: number, row: Float64Array, at: number, H: number, mean: number, sd: number, positive: boolean): void {
    const z = this.z;
    const x = this.deseason;
    const seasonal = this.seasonal;
    const factors = this.factors;
    const useSeason = m > 1 && n >= 2 * m;
    this.seasonalStrength = 0;
    if (useSeason) this.seasonalIndices(n, m);
    // Strictly positive windows are adjusted multiplicatively (classical ratio-to-moving-average).
    const multiplicative = useSeason && positive && this.multiplicativeFactors(n, m);
    // (p is i mod m, counted rather than divided for)
    if (!useSeason) for (let i = 0; i < n; i++) x[i] = z[i]!;
    else if (multiplicative) {
      const u = this.u;
      for (let i = 0, p = 0; i < n; i++, p = p + 1 === m ? 0 : p + 1) x[i] = (u[i]! / factors[p]! - mean) / sd;
    } else for (let i = 0, p = 0; i < n; i++, p = p + 1 === m ? 0 : p + 1) x[i] = z[i]! - seasonal[p]!;
    const last = z[n - 1]!;
    // Simple exponential smoothing with the grid alpha of least one-step squared error.
    sesGridFit(x, n, 1e-12, this.ses);
    const bestAlpha = this.ses[0]!;
    const bestLevel = this.ses[1]!;
    const slope = olsSlope(x, n);
    const thetaShift = (1 - Math.pow(1 - bestAlpha, n)) / bestAlpha;
    // Damped trend (Holt): the grid (alpha, beta, phi) of least one-step squared error, started from the first two points.
    dampedTrendFit(x, n, this.damped);
    const dLevel = this.damped[0]!;
    const dTrend = this.damped[1]!;
    const dPhi = this.damped[2]!;
    const driftSlope = n > 1 ? (x[n - 1]! - x[0]!) / (n - 1) : 0;
    let dampSum = 0;
    let dampPow = 1;
    for (let k = 1; k <= H; k++) {
      dampPow *= dPhi;
      dampSum += dampPow;
      const p = (n - 1 + k) % m;
      const snaive = m > 1 && n >= m ? z[n - m + ((k - 1) % m)]! : last;
      row[at + k - 1] = clip(last, PROJECTION_CLIP);
      row[at + H + k - 1] = clip(snaive, PROJECTION_CLIP);
      // SES, Theta, damped trend and drift on the adjusted scale, then the seasonality put back.
      row[at + 2 * H + k - 1] = bestLevel;
      row[at + 3 * H + k - 1] = bestLevel + 0.5 * slope * (k - 1 + thetaShift);
      row[at + 4 * H + k - 1] = dLevel + dampSum * dTrend;
      row[at + 5 * H + k - 1] = x[n - 1]! + k * driftSlope;
      const f = multiplicative ? factors[p]! : 1;
      const shift = multiplicative ? (mean * (f - 1)) / sd : useSeason ? seasonal[p]! : 0;
      for (let j = 2; j < PROJECTION_COUNT; j++) {
        const i = at + j * H + k - 1;
        const v = row[i]!;
        row[i] = clip(!useSeason ? v : multiplicative ? v * f + shift : v + shift, PROJECTION_CLIP);
      }
    }
  }

  /**
   * Multiplicative seasonal factors (mean 1) of the window u (its values
   * over their largest magnitude) by ratio to u's centred moving average;
   * false when a centred mean is not > 0. The caller checks first that every
   * value of u is > 0. Both work on u itself, not on u rebuilt as mean + sd·z:
   * a zero rebuilt so can come out ±1 ulp (and the choice flip with the
   * series' scale), and a value 10⁻¹⁷ of the largest rebuilt so is noise.
   */
  private multiplicativeFactors(n: number, m: number): boolean {
    const factors = this.factors;
    // the centred moving average of u overwrites that of z: seasonalIndices, which ran first, no longer needs it
    if (!phaseMeans(this.u, n, m, this.trend, this.counts, factors, true)) return false;
    let total = 0;
    for (let p = 0; p < m; p++) total += factors[p]!;
    const norm = total / m;
    for (let p = 0; p < m; p++) factors[p]! /= norm;
    return true;
  }

  /** Additive seasonal indices of z by classical decomposition (centred moving average). */
  private seasonalIndices(n: number, m: number): void {
    const z = this.z;
    const trend = this.trend;
    const seasonal = this.seasonal;
    phaseMeans(z, n, m, trend, this.counts, seasonal, false);
    const half = Math.floor(m / 2);
    let detrendedVar = 0;
    let used = 0;
    let mean = 0;
    for (let p = 0; p < m; p++) mean += seasonal[p]!;
    mean /= m;
    for (let p = 0; p < m; p++) seasonal[p]! -= mean;
    // Seasonal strength: share of the detrended variance the indices explain.
    let explained = 0;
    for (let t = half, p = half % m; t < n - half; t++, p = p + 1 === m ? 0 : p + 1) {
      const d = z[t]! - trend[t]!;
      detrendedVar += d * d;
      const r = d - seasonal[p]!;
      explained += r * r;
      used++;
    }
    this.seasonalStrength = used > 0 && detrendedVar > 0 ? Math.max(0, 1 - explained / detrendedVar) : 0;
  }
}

/**
 * The normalisation of a window (both featurizers): the largest magnitude
 * M of window[from ..], then the mean and standard deviation (Welford) of
 * the last `count` values divided by M, so huge or tiny series neither
 * overflow nor underflow. Writes location = mean · M, scale = sd · M and
 * whether the window is constant (scale 0 then, and an all-zero window
 * keeps its own last value, so −0 stays −0) to `scaleOut`, and
 * [mean, sd, M] to `moments`.
 *
 * @example
 * ```ts
 * const scale = { location: 0, scale: 0, constant: true };
 * const moments = new Float64Array(3);
 * standardiseWindow(Float64Array.of(100, 2, 4), 1, 2, scale, moments);
 * [scale.location, scale.scale, scale.constant]; // => [3, 1, false]
 * Array.from(moments); // => [0.75, 0.25, 4]
 * ```
 * @category Network
 */
export function standardiseWindow(window: Float64Array, from: number, count: number, scaleOut: WindowScale, moments: Float64Array): void {
  const n = window.length;
  let maxAbs = 0;
  for (let i = from; i < n; i++) {
    const a = Math.abs(window[i]!);
    if (a > maxAbs) maxAbs = a;
  }
  let mean = 0;
  let m2 = 0;
  if (maxAbs > 0) {
    for (let i = 0; i < count; i++) {
      const u = window[n - count + i]! / maxAbs;
      const delta = u - mean;
      mean += delta / (i + 1);
      m2 += delta * (u - mean);
    }
  }
  const sd = Math.sqrt(Math.max(m2, 0) / count);
  scaleOut.location = maxAbs === 0 ? window[n - 1]! : mean * maxAbs;
  scaleOut.scale = sd * maxAbs;
  scaleOut.constant = maxAbs === 0 || !(sd > 1e-13 * Math.max(Math.abs(mean), 1e-300)) || !Number.isFinite(scaleOut.scale) || scaleOut.scale === 0;
  if (scaleOut.constant) scaleOut.scale = 0;
  moments[0] = mean;
  moments[1] = sd;
  moments[2] = maxAbs;
}

/**
 * Classical decomposition's per-phase means: with `trend` the centred moving
 * average of `values` (written for t in [⌊m/2⌋, n − ⌊m/2⌋)), out[p] is the
 * mean over those t with t mod m = p of values[t] / trend[t] (multiplicative)
 * or values[t] − trend[t] (additive); a phase with no such t gets 1 or 0.
 * Multiplicative: false (out left partial) as soon as a centred mean is not > 0.
 * `counts` is scratch of m slots.
 */
function phaseMeans(values: Float64Array, n: number, m: number, trend: Float64Array, counts: Float64Array, out: Float64Array, multiplicative: boolean): boolean {
  out.fill(0, 0, m);
  counts.fill(0, 0, m);
  const half = Math.floor(m / 2);
  centredMeans(values, half, n - half, m, trend);
  // (p is t mod m, counted rather than divided for)
  for (let t = half, p = half % m; t < n - half; t++, p = p + 1 === m ? 0 : p + 1) {
    const level = trend[t]!;
    if (multiplicative) {
      if (!(level > 0)) return false;
      out[p]! += values[t]! / level;
    } else {
      out[p]! += values[t]! - level;
    }
    counts[p]! += 1;
  }
  const empty = multiplicative ? 1 : 0;
  for (let p = 0; p < m; p++) out[p] = counts[p]! > 0 ? out[p]! / counts[p]! : empty;
  return true;
}

/**
 * `out[t] = centredMean(z, t, m)` for t in [from, to): in WebAssembly SIMD where the runtime has it
 * (`centredKernel`), else eight points at a time, the last few one by one (independent sums side by side, each in
 * centredMean's order: the same bits either way).
 */
function centredMeans(z: Float64Array, from: number, to: number, m: number, out: Float64Array): void {
  if (centredKernel()?.means(z, from, to, m, out) === true) return;
  centredMeansJs(z, from, to, m, out);
}

/** {@link centredMeans} in TypeScript. */
export function centredMeansJs(z: Float64Array, from: number, to: number, m: number, out: Float64Array): void {
  const half = Math.floor(m / 2);
  const even = m % 2 === 0;
  // even m: 0.5·(both ends) then the m − 1 inner values; odd m: the m values from 0
  const first = even ? 1 - half : -half;
  const terms = even ? m - 1 : m;
  let t = from;
  for (; t + 8 <= to; t += 8) {
    let s0 = even ? 0.5 * (z[t - half]! + z[t + half]!) : 0;
    let s1 = even ? 0.5 * (z[t + 1 - half]! + z[t + 1 + half]!) : 0;
    let s2 = even ? 0.5 * (z[t + 2 - half]! + z[t + 2 + half]!) : 0;
    let s3 = even ? 0.5 * (z[t + 3 - half]! + z[t + 3 + half]!) : 0;
    let s4 = even ? 0.5 * (z[t + 4 - half]! + z[t + 4 + half]!) : 0;
    let s5 = even ? 0.5 * (z[t + 5 - half]! + z[t + 5 + half]!) : 0;
    let s6 = even ? 0.5 * (z[t + 6 - half]! + z[t + 6 + half]!) : 0;
    let s7 = even ? 0.5 * (z[t + 7 - half]! + z[t + 7 + half]!) : 0;
    const base = t + first;
    for (let i = 0; i < terms; i++) {
      s0 += z[base + i]!;
      s1 += z[base + i + 1]!;
      s2 += z[base + i + 2]!;
      s3 += z[base + i + 3]!;
      s4 += z[base + i + 4]!;
      s5 += z[base + i + 5]!;
      s6 += z[base + i + 6]!;
      s7 += z[base + i + 7]!;
    }
    out[t] = s0 / m;
    out[t + 1] = s1 / m;
    out[t + 2] = s2 / m;
    out[t + 3] = s3 / m;
    out[t + 4] = s4 / m;
    out[t + 5] = s5 / m;
    out[t + 6] = s6 / m;
    out[t + 7] = s7 / m;
  }
  for (; t < to; t++) out[t] = centredMean(z, t, m);
}

/** Centred moving average of period m at t (2×m for even m, so every season position weighs the same). */
function centredMean(z: Float64Array, t: number, m: number): number {
  const half = Math.floor(m / 2);
  let s = 0;
  if (m % 2 === 0) {
    s = 0.5 * (z[t - half]! + z[t + half]!);
    for (let j = t - half + 1; j < t + half; j++) s += z[j]!;
  } else {
    for (let j = t - half; j <= t + half; j++) s += z[j]!;
  }
  return s / m;
}

function clip(v: number, limit: number): number {
  return v > limit ? limit : v < -limit ? -limit : v;
}

