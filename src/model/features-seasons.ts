/**
 * The `"seasons"` view of a series (forecastmodel-1-high-frequency): the
 * recent context plus projections computed on the whole history at a day's
 * and a week's season, so a network with a short context still sees the
 * week it forecasts.
 *
 * Everything is in the standardised units of the last points
 * (z = (x − mean) / std over the last max(context, 2 days) points), so the
 * forecast scales exactly with the data, as in `WindowFeaturizer`.
 * @module
 */
import { META_COUNT, type NetworkShape } from "./config.js";
import { inputLayout, standardiseWindow, type InputLayout, type WindowScale } from "./features.js";
import { olsSlope, sesGridFit } from "../stats/smoothing.js";

/** Clip for projections in standardised units (as the window view). */
const PROJECTION_CLIP = 20;
/** Cycles of a day whose per-phase median makes the day profile. */
const DAY_CYCLES = 8;
/** Cycles of a week whose per-phase median makes the week profile. */
const WEEK_CYCLES = 4;
/** Slots of an adjusted fit (adjustedLevel): SES level, least-squares slope, Theta's shift, share of variance the profile explains. */
const FIT_LEVEL = 0;
const FIT_SLOPE = 1;
const FIT_SHIFT = 2;
const FIT_STRENGTH = 3;

/**
 * Builds the network inputs of the `"seasons"` view. Holds its scratch
 * buffers (grown to the longest history seen), so featurising allocates
 * nothing per window once warm.
 *
 * Input vector: asinh(z) of the last `contextLength` points and their mask;
 * eight projections over the output steps, in standardised units and clipped
 * at ±20: naive, seasonal naive at a day, seasonal naive at a week, the day
 * profile (each phase's median over the last 8 days), the week profile (each
 * phase's median over the last 4 weeks), simple exponential smoothing of the
 * series less its day profile with the profile put back, the same with the
 * week profile, and Theta (that smoothing plus half the least-squares slope)
 * on the series less its longest profile; a projection whose season the
 * history does not hold falls back to the one before it. Then ten
 * descriptors: log of the day's length, whether a week is held, the day and
 * week cycles held, the share of variance each profile explains, log of the
 * history length, mean absolute step and slope of the context, log of the
 * week's length.
 * @category Network
 */
export class SeasonsFeaturizer {
  readonly shape: NetworkShape;
  readonly layout: InputLayout;
  private z = new Float64Array(0);
  private x = new Float64Array(0);
  private dayProfile = new Float64Array(0);
  private weekProfile = new Float64Array(0);
  private readonly cycleValues = new Float64Array(Math.max(DAY_CYCLES, WEEK_CYCLES));
  private readonly ses = new Float64Array(2);
  private readonly moments = new Float64Array(3);
  /** The day's and the week's adjusted fits (see adjustedLevel), reused for every window. */
  private readonly dayFit = new Float64Array(4);
  private readonly weekFit = new Float64Array(4);

  constructor(shape: NetworkShape) {
    if (shape.view !== "seasons") throw new RangeError("SeasonsFeaturizer needs a network of the seasons view");
    this.shape = shape;
    this.layout = inputLayout(shape);
  }

  /**
   * Writes the input vector of the history `window` at `row[offset ..]` and
   * its normalisation in `scaleOut`. `seasonLength` is a day of steps,
   * `longSeason` a week of steps (0: none).
   */
  featurize(window: Float64Array, seasonLength: number, row: Float64Array, offset: number, scaleOut: WindowScale, longSeason = 0): void {
    const { shape, layout } = this;
    const L = shape.contextLength;
    const O = shape.outputLength;
    row.fill(0, offset, offset + layout.size);
    const n = window.length;
    const m1 = Math.max(1, seasonLength);
    const m2 = longSeason > m1 ? longSeason : 0;
    const normSpan = Math.min(n, Math.max(L, 2 * m1));
    const r = Math.min(n, Math.max(normSpan, DAY_CYCLES * m1, WEEK_CYCLES * m2, 2 * m2));
    const start = n - r;
    standardiseWindow(window, start, normSpan, scaleOut, this.moments);
    if (scaleOut.constant) return;
    const mean = this.moments[0]!;
    const sd = this.moments[1]!;
    const maxAbs = this.moments[2]!;
    if (this.z.length < r) {
      this.z = new Float64Array(r);
      this.x = new Float64Array(r);
    }
    const z = this.z;
    for (let i = 0; i < r; i++) z[i] = clip((window[start + i]! / maxAbs - mean) / sd, 1e6);
    const c = Math.min(r, L);
    const ctx = offset + layout.context + (L - c);
    const mask = offset + layout.mask + (L - c);
    for (let i = 0; i < c; i++) {
      row[ctx + i] = Math.asinh(z[r - c + i]!);
      row[mask + i] = 1;
    }
    // Profiles: each phase's median over the last cycles held.
    const dayCycles = Math.min(DAY_CYCLES, Math.floor(r / m1));
    const weekCycles = m2 > 0 ? Math.min(WEEK_CYCLES, Math.floor(r / m2)) : 0;
    if (this.dayProfile.length < m1) this.dayProfile = new Float64Array(m1);
    if (m2 > 0 && this.weekProfile.length < m2) this.weekProfile = new Float64Array(m2);
    if (dayCycles >= 1) this.profile(r, m1, dayCycles, this.dayProfile);
    if (weekCycles >= 1) this.profile(r, m2, weekCycles, this.weekProfile);
    const at = offset + layout.projections;
    const last = z[r - 1]!;
    // Seasonal smoothing: level of the series less its profile, profile put back.
    const day = this.dayFit;
    if (dayCycles >= 1) this.adjustedLevel(r, m1, this.dayProfile, Math.min(r, Math.max(L, 2 * m1)), day);
    else this.adjustedLevel(r, 1, null, Math.min(r, L), day);
    const dayLevel = day[FIT_LEVEL]!;
    const dayStrength = day[FIT_STRENGTH]!;
    const weekFit = weekCycles >= 1 ? this.weekFit : null;
    if (weekFit !== null) this.adjustedLevel(r, m2, this.weekProfile, Math.min(r, 2 * m2), weekFit);
    const theta = weekFit ?? day;
    const thetaLevel = theta[FIT_LEVEL]!;
    const thetaSlope = theta[FIT_SLOPE]!;
    const thetaShift = theta[FIT_SHIFT]!;
    for (let k = 1; k <= O; k++) {
      const j1 = (k - 1) % m1;
      const snDay = r >= m1 ? z[r - m1 + j1]! : last;
      const j2 = m2 > 0 ? (k - 1) % m2 : 0;
      const snWeek = m2 > 0 && r >= m2 ? z[r - m2 + j2]! : snDay;
      const pDay = dayCycles >= 1 ? this.dayProfile[j1]! : last;
      const pWeek = weekCycles >= 1 ? this.weekProfile[j2]! : pDay;
      const sesDay = dayLevel + (dayCycles >= 1 ? pDay : 0);
      const sesWeek = weekFit !== null ? weekFit[FIT_LEVEL]! + pWeek : sesDay;
      const thetaProfile = weekFit !== null ? pWeek : dayCycles >= 1 ? pDay : 0;
      const thetaValue = thetaLevel + 0.5 * thetaSlope * (k - 1 + thetaShift) + thetaProfile;
      const to = at + k - 1;
      row[to] = clip(last, PROJECTION_CLIP);
      row[to + O] = clip(snDay, PROJECTION_CLIP);
      row[to + 2 * O] = clip(snWeek, PROJECTION_CLIP);
      row[to + 3 * O] = clip(pDay, PROJECTION_CLIP);
      row[to + 4 * O] = clip(pWeek, PROJECTION_CLIP);
      row[to + 5 * O] = clip(sesDay, PROJECTION_CLIP);
      row[to + 6 * O] = clip(sesWeek, PROJECTION_CLIP);
      row[to + 7 * O] = clip(thetaValue, PROJECTION_CLIP);
    }
    const meta = offset + layout.meta;
    let diffAbs = 0;
    for (let i = r - c + 1; i < r; i++) diffAbs += Math.abs(z[i]! - z[i - 1]!);
    let k = meta;
    row[k++] = Math.log(m1) / Math.log(1440);
    row[k++] = weekCycles >= 1 ? 1 : 0;
    row[k++] = dayCycles / DAY_CYCLES;
    row[k++] = weekCycles / WEEK_CYCLES;
    row[k++] = dayStrength;
    row[k++] = weekFit !== null ? weekFit[FIT_STRENGTH]! : 0;
    row[k++] = Math.min(1.5, Math.log(n) / Math.log(4 * Math.max(m2, L)));
    row[k++] = c > 1 ? diffAbs / (c - 1) : 0;
    row[k++] = clip(olsSlope(z.subarray(r - c, r), c) * c, 10) / 5;
    row[k++] = m2 > 0 ? Math.log(m2) / Math.log(10080) : 0;
    if (k - meta !== META_COUNT) throw new Error("descriptor count mismatch");
  }

  /** No peers in this view (kept for the featurizer interface). */
  writePeers(): void {}

  /** Median of each phase j (index r − m + j of the last cycle) over `cycles` cycles, into `out[0 .. m)`. */
  private profile(r: number, m: number, cycles: number, out: Float64Array): void {
    const z = this.z;
    const v = this.cycleValues;
    for (let j = 0; j < m; j++) {
      for (let i = 0; i < cycles; i++) {
        // insertion sort as the values arrive
        const value = z[r - m + j - i * m]!;
        let p = i;
        while (p > 0 && v[p - 1]! > value) {
          v[p] = v[p - 1]!;
          p--;
        }
        v[p] = value;
      }
      out[j] = cycles % 2 === 1 ? v[(cycles - 1) / 2]! : 0.5 * (v[cycles / 2 - 1]! + v[cycles / 2]!);
    }
  }

  /**
   * Simple exponential smoothing (grid α) of the last `span` points less
   * their profile phase, the least-squares slope of those, Theta's shift,
   * and the share of variance the profile explains there, into `out` (the FIT_* slots).
   */
  private adjustedLevel(r: number, m: number, profile: Float64Array | null, span: number, out: Float64Array): void {
    const z = this.z;
    const x = this.x;
    const from = r - span;
    let zMean = 0;
    let xMean = 0;
    for (let i = 0; i < span; i++) {
      const t = from + i;
      // phase of t relative to the last cycle's start r − m (a non-negative remainder)
      const phase = profile === null ? 0 : (((t - (r - m)) % m) + m) % m;
      x[i] = z[t]! - (profile === null ? 0 : profile[phase]!);
      zMean += z[t]!;
      xMean += x[i]!;
    }
    zMean /= span;
    xMean /= span;
    let zVar = 0;
    let xVar = 0;
    for (let i = 0; i < span; i++) {
      zVar += (z[from + i]! - zMean) ** 2;
      xVar += (x[i]! - xMean) ** 2;
    }
    sesGridFit(x, span, 1e-12, this.ses);
    const alpha = this.ses[0]!;
    const strength = profile !== null && zVar > 0 ? Math.max(0, Math.min(1, 1 - xVar / zVar)) : 0;
    out[FIT_LEVEL] = this.ses[1]!;
    out[FIT_SLOPE] = olsSlope(x, span);
    out[FIT_SHIFT] = (1 - Math.pow(1 - alpha, span)) / alpha;
    out[FIT_STRENGTH] = strength;
  }
}

/**
 * The forecast rule of the seasons view for non-negative series, applied to
 * the network's forecasts of `history` in place: a series whose last
 * 8 days of steps (all it holds, if less) hold no negative value gets no
 * negative forecast, and a step whose phase of the day was exactly zero on
 * more than half of the last days (at least two held, up to 8) is forecast
 * as exactly zero: the median of such a phase, which the mean-absolute-error
 * trained network approaches but, in standardised units, never reaches.
 * Intermittent counters (crashes, purchases, errors) are the case.
 *
 * Cost: O(min(n, 8 · day) + h · 8), no allocation.
 *
 * @param history - The series before the forecast (finite values).
 * @param day - A day of steps (the seasons view's season length), ≥ 1.
 * @param forecast - The forecasts to adjust, `forecast[from + k]` for step k + 1.
 * @param from - Where the first step is in `forecast`.
 * @param steps - How many steps.
 *
 * @example
 * ```ts
 * // 3 days of 4 steps: the second phase is zero on every day, the rest 1–3
 * const history = Float64Array.of(1, 0, 2, 3, 1, 0, 2, 3, 2, 0, 2, 3);
 * const f = Float64Array.of(1.2, 0.1, -0.3, 2.9);
 * zeroMedianRule(history, 4, f, 0, 4);
 * Array.from(f); // => [1.2, 0, 0, 2.9]
 * ```
 * @category Network
 */
export function zeroMedianRule(history: Float64Array, day: number, forecast: Float64Array, from: number, steps: number): void {
  const n = history.length;
  const m = Math.max(1, Math.floor(day));
  const span = Math.min(n, DAY_CYCLES * m);
  for (let i = n - span; i < n; i++) if (!(history[i]! >= 0)) return;
  const cycles = Math.min(DAY_CYCLES, Math.floor(n / m));
  for (let k = 0; k < steps; k++) {
    if (forecast[from + k]! <= 0) forecast[from + k] = 0; // −0 too
    if (cycles < 2) continue;
    const j = k % m;
    let zeros = 0;
    for (let c = 0; c < cycles; c++) if (history[n - m + j - c * m] === 0) zeros++;
    if (2 * zeros > cycles) forecast[from + k] = 0;
  }
}

function clip(v: number, limit: number): number {
  return v > limit ? limit : v < -limit ? -limit : v;
}
