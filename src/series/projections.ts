/**
 * Classical projections computed on the whole history of a series, not only
 * on the network's window: seasonal naive at a season, the seasonal profile
 * (each phase's median over the last cycles) and a Theta forecast of the
 * seasonally adjusted series; and a rule that picks one of them per series by
 * its own recent rolling-origin error. Deterministic, O(n) per projection.
 * @module
 */
import { medianInPlace } from "../stats/quantile.js";
import { olsSlope, sesGridFit } from "../stats/smoothing.js";

/**
 * Default number of past cycles whose phase values the seasonal profile and
 * the Theta projection's seasonal indices take the median of. Chosen among 3,
 * 5 and 8 on the development part of the hourly series of
 * docs/hourly-accuracy.md, by the mean MASE of {@link bestProjection}.
 * @category Series
 */
export const PROFILE_CYCLES = 8;

/**
 * Default number of rolling origins {@link bestProjection} scores each
 * candidate on.
 * @category Series
 */
export const BEST_PROJECTION_ORIGINS = 3;

/**
 * Options of {@link seasonalProfileProjection} and {@link seasonalThetaProjection}.
 * @category Series
 */
export interface ProjectionOptions {
  /** How many of the last cycles (at most) a phase's median is taken over; an integer >= 1. Default {@link PROFILE_CYCLES}. */
  readonly cycles?: number;
}

/**
 * A projection method of {@link bestProjection}.
 * @category Series
 */
export type ProjectionMethod = "seasonal-naive" | "seasonal-profile" | "seasonal-theta";

/**
 * What {@link bestProjection} chose and its forecast.
 * @category Series
 */
export interface ChosenProjection {
  /** The chosen projection. */
  readonly method: ProjectionMethod;
  /** The season the chosen method used, in steps (1: none). */
  readonly season: number;
  /** Its mean absolute error over the rolling origins it was scored on (NaN when no origin fitted in the history). */
  readonly rollingMae: number;
  /** How many rolling origins the candidates were scored on (n − h, n − 2h, …; 0: none fitted, the choice is unscored). */
  readonly rollingOrigins: number;
  /** Its h forecasts from the whole history. */
  readonly forecast: Float64Array;
}

/**
 * Options of {@link bestProjection}.
 * @category Series
 */
export interface BestProjectionOptions extends ProjectionOptions {
  /** Rolling origins each candidate is scored on: the last h points, the h before them, …; an integer >= 1. Default {@link BEST_PROJECTION_ORIGINS}. */
  readonly origins?: number;
}

function checkArgs(y: ArrayLike<number>, season: number, h: number, name: string): void {
  if (y.length === 0) throw new RangeError(`${name}: y must hold at least one point`);
  for (let t = 0; t < y.length; t++) {
    if (!Number.isFinite(y[t])) throw new RangeError(`${name}: y must hold finite numbers; y[${t}] is ${String(y[t])}`);
  }
  if (!Number.isInteger(season) || season < 1) throw new RangeError(`${name}: season must be an integer >= 1, got ${String(season)}`);
  if (!Number.isInteger(h) || h < 1) throw new RangeError(`${name}: h must be an integer >= 1, got ${String(h)}`);
}

/** Checks the arguments of a projection with cycles and returns its cycles (`options.cycles`, default PROFILE_CYCLES). */
function checkedCycles(y: ArrayLike<number>, season: number, h: number, options: ProjectionOptions, name: string): number {
  checkArgs(y, season, h, name);
  const cycles = options.cycles ?? PROFILE_CYCLES;
  checkCycles(cycles, name);
  return cycles;
}

function checkCycles(cycles: number, name: string): void {
  if (!Number.isInteger(cycles) || cycles < 1) throw new RangeError(`${name}: cycles must be an integer >= 1, got ${String(cycles)}`);
}

/**
 * Seasonal naive on the whole history: step k (1-based) repeats the value one
 * season before it, y[n − m + ((k − 1) mod m)]. A history shorter than one
 * season gives the naive forecast (every step is the last value); season 1 is
 * the naive forecast.
 *
 * Cost: O(h).
 *
 * @param y - The history, in time order (finite numbers). Never mutated.
 * @param season - Season length m in steps, an integer >= 1.
 * @param h - Steps to forecast, an integer >= 1.
 * @returns The h forecasts.
 * @throws RangeError naming the argument when y is empty or holds a non-finite value, or m or h is not a positive integer.
 *
 * @example
 * ```ts
 * Array.from(seasonalNaiveProjection([1, 2, 3, 4, 5, 6, 7], 3, 4));
 * // => [5, 6, 7, 5]
 * ```
 * @category Series
 */
export function seasonalNaiveProjection(y: ArrayLike<number>, season: number, h: number): Float64Array {
  checkArgs(y, season, h, "seasonalNaiveProjection");
  return seasonalNaiveUnchecked(y, y.length, season, h);
}

function seasonalNaiveUnchecked(y: ArrayLike<number>, n: number, season: number, h: number): Float64Array {
  const out = new Float64Array(h);
  if (n < season) return out.fill(y[n - 1]!);
  for (let k = 0; k < h; k++) out[k] = y[n - season + (k % season)]!;
  return out;
}

/**
 * The seasonal profile: step k repeats the median of its phase over the last
 * c cycles, c = min(`cycles`, ⌊n / m⌋). Phase j of the last cycle is
 * y[n − m + j]; its values are y[n − m + j − i·m] for i = 0 … c − 1, and
 * step k (1-based) takes phase (k − 1) mod m. A spike in fewer than half of
 * the cycles does not move the median. A history shorter than one season
 * gives the naive forecast; with c = 1 this is seasonal naive.
 *
 * Cost: O(m · c + h).
 *
 * @param y - The history, in time order (finite numbers). Never mutated.
 * @param season - Season length m in steps, an integer >= 1.
 * @param h - Steps to forecast, an integer >= 1.
 * @param options - See {@link ProjectionOptions}.
 * @returns The h forecasts.
 * @throws RangeError naming the argument when y is empty or holds a non-finite value, or m, h or cycles is not a positive integer.
 *
 * @example
 * ```ts
 * // three cycles of 4 with a spike (90) in the last one
 * Array.from(seasonalProfileProjection([1, 2, 3, 4, 1, 2, 3, 4, 1, 90, 3, 4], 4, 6));
 * // => [1, 2, 3, 4, 1, 2]
 * ```
 * @category Series
 */
export function seasonalProfileProjection(y: ArrayLike<number>, season: number, h: number, options: ProjectionOptions = {}): Float64Array {
  return seasonalProfileUnchecked(y, y.length, season, h, checkedCycles(y, season, h, options, "seasonalProfileProjection"));
}

function seasonalProfileUnchecked(y: ArrayLike<number>, n: number, season: number, h: number, cycles: number): Float64Array {
  const out = new Float64Array(h);
  if (n < season) return out.fill(y[n - 1]!);
  const c = Math.min(cycles, Math.floor(n / season));
  const phase = new Float64Array(season);
  const values = new Float64Array(c);
  for (let j = 0; j < season; j++) {
    for (let i = 0; i < c; i++) values[i] = y[n - season + j - i * season]!;
    phase[j] = medianInPlace(values);
  }
  for (let k = 0; k < h; k++) out[k] = phase[k % season]!;
  return out;
}

/**
 * Theta on the seasonally adjusted history, the seasonality put back.
 *
 * Method, on y divided by its largest magnitude (so huge and tiny series
 * neither overflow nor underflow): (1) when the history holds two seasons
 * (n ≥ 2m, m ≥ 2), seasonal indices: y minus (or, when every value is
 * positive, divided by) its centred moving average over one season (2×m for
 * even m), the median of each phase over the last c cycles that have the
 * average (c = `cycles`), centred to mean 0 (or 1); the history is adjusted
 * by them; otherwise it is used as it is. (2) Simple exponential smoothing
 * of the adjusted history with α from {0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9,
 * 1} by least one-step squared error, started at the first value. (3) The
 * Theta method's forecast (Hyndman and Billah's form, as R's `thetaf`): the
 * SES level plus half the OLS slope b of the adjusted history times
 * (k − 1 + (1 − (1 − α)^n) / α) at step k. (4) The seasonal index of each
 * step's phase put back.
 *
 * A constant history forecasts that constant.
 *
 * Reference: R. J. Hyndman and B. Billah (2003), "Unmasking the Theta
 * method", International Journal of Forecasting 19(2), 287–290.
 *
 * Cost: O(n · 8 + m · c + h).
 *
 * @param y - The history in time order, finite numbers, never mutated.
 * @param season - The season m, in steps (an integer >= 1).
 * @param h - How many steps ahead (an integer >= 1).
 * @param options - Cycles of the seasonal indices ({@link ProjectionOptions}).
 * @returns h forecasts.
 * @throws RangeError naming the argument: an empty y or a non-finite value in it, or m, h or cycles not a positive integer.
 *
 * @example
 * ```ts
 * // a season of 4 on a level of 10, no noise: the season continues
 * const y = Array.from({ length: 40 }, (_, t) => 10 + [3, -1, -3, 1][t % 4]!);
 * Array.from(seasonalThetaProjection(y, 4, 4), (v) => Math.round(v * 1e9) / 1e9);
 * // => [13, 9, 7, 11]
 * ```
 * @category Series
 */
export function seasonalThetaProjection(y: ArrayLike<number>, season: number, h: number, options: ProjectionOptions = {}): Float64Array {
  return seasonalThetaUnchecked(y, y.length, season, h, checkedCycles(y, season, h, options, "seasonalThetaProjection"));
}

function seasonalThetaUnchecked(y: ArrayLike<number>, n: number, season: number, h: number, cycles: number): Float64Array {
  const out = new Float64Array(h);
  let maxAbs = 0;
  let allPositive = true;
  for (let t = 0; t < n; t++) {
    const v = y[t]!;
    if (Math.abs(v) > maxAbs) maxAbs = Math.abs(v);
    if (!(v > 0)) allPositive = false;
  }
  if (maxAbs === 0) return out.fill(y[n - 1]!);
  const x = new Float64Array(n);
  for (let t = 0; t < n; t++) x[t] = y[t]! / maxAbs;
  const useSeason = season >= 2 && n >= 2 * season;
  const index = useSeason ? seasonalIndices(x, season, cycles, allPositive) : null;
  if (index !== null) {
    for (let t = 0; t < n; t++) x[t] = allPositive ? x[t]! / index[t % season]! : x[t]! - index[t % season]!;
  }
  // SES: the grid alpha of least one-step squared error.
  const ses = new Float64Array(2);
  sesGridFit(x, n, 1e-15, ses);
  const bestAlpha = ses[0]!;
  const bestLevel = ses[1]!;
  const slope = olsSlope(x); // 0 for one point
  const shift = (1 - Math.pow(1 - bestAlpha, n)) / bestAlpha;
  for (let k = 0; k < h; k++) {
    const adjusted = bestLevel + 0.5 * slope * (k + shift);
    const phase = (n + k) % season;
    const v = index === null ? adjusted : allPositive ? adjusted * index[phase]! : adjusted + index[phase]!;
    out[k] = v * maxAbs;
  }
  return out;
}

/**
 * Seasonal indices of x by phase t mod m: the median over the last `cycles` cycles of x minus
 * (or, for a positive x, over) its centred moving average, centred to mean 0 (or 1).
 */
function seasonalIndices(x: Float64Array, season: number, cycles: number, multiplicative: boolean): Float64Array {
  const n = x.length;
  const half = Math.floor(season / 2);
  const even = season % 2 === 0;
  const first = half;
  const last = n - 1 - half;
  // The points of the last `cycles` seasons that have a centred average.
  const from = Math.max(first, last + 1 - cycles * season);
  const detrended = new Float64Array(last - from + 1);
  let window = 0;
  for (let k = from - half; k <= from + half; k++) window += x[k]!;
  for (let t = from; t <= last; t++) {
    if (t > from) window += x[t + half]! - x[t - half - 1]!;
    const average = (even ? window - 0.5 * (x[t - half]! + x[t + half]!) : window) / season;
    detrended[t - from] = multiplicative ? x[t]! / average : x[t]! - average;
  }
  const index = new Float64Array(season);
  const values = new Float64Array(Math.ceil(detrended.length / season) + 1);
  for (let j = 0; j < season; j++) {
    let count = 0;
    for (let t = from + ((j - (from % season) + season) % season); t <= last; t += season) values[count++] = detrended[t - from]!;
    index[j] = count === 0 ? (multiplicative ? 1 : 0) : medianInPlace(values.subarray(0, count));
  }
  let mean = 0;
  for (let j = 0; j < season; j++) mean += index[j]!;
  mean /= season;
  for (let j = 0; j < season; j++) index[j] = multiplicative ? index[j]! / mean : index[j]! - mean;
  return index;
}

function projectUnchecked(method: ProjectionMethod, y: ArrayLike<number>, n: number, season: number, h: number, cycles: number): Float64Array {
  if (method === "seasonal-naive") return seasonalNaiveUnchecked(y, n, season, h);
  if (method === "seasonal-profile") return seasonalProfileUnchecked(y, n, season, h, cycles);
  return seasonalThetaUnchecked(y, n, season, h, cycles);
}

/**
 * The projection with the least recent error: each candidate (seasonal
 * naive, seasonal profile and seasonal Theta at each given season the history
 * holds h points and two cycles of, n ≥ h + 2m) forecasts from the same
 * rolling origins inside the history, n − h, n − 2h, … (at most `origins` of
 * them, each with two cycles of the longest of those seasons before it), and
 * the one of least mean absolute error over them forecasts from the whole
 * history. Ties go to the earlier candidate (seasons in the given order, then
 * naive, profile, Theta). When no season leaves room for an origin, the
 * candidates at the seasons the history holds two cycles of are not scored
 * and the first is used (seasonal naive at the first such season; the naive
 * forecast when there is none).
 *
 * Cost: O((origins + 1) · candidates · n).
 *
 * @param y - The history, in time order (finite numbers). Never mutated.
 * @param seasons - Candidate season lengths in steps (integers >= 2; e.g. a day and a week of steps, or the periods `detectPeriods` found).
 * @param h - Steps to forecast, an integer >= 1.
 * @param options - See {@link BestProjectionOptions}.
 * @returns The chosen method, its season, its rolling error, the number of origins and its forecast.
 * @throws RangeError naming the argument when y is empty or holds a non-finite value, a season is not an integer >= 2, or h, cycles or origins is not a positive integer.
 *
 * @example
 * ```ts
 * // two weeks of hours where weekends (days 5, 6) are low: the weekly profile wins
 * const y = Array.from({ length: 24 * 7 * 4 }, (_, t) => (Math.floor(t / 24) % 7 >= 5 ? 2 : 10) + (t % 24 < 12 ? 0 : 3));
 * const best = bestProjection(y, [24, 168], 24);
 * [best.method, best.season, best.rollingMae];
 * // => ["seasonal-naive", 168, 0]
 * ```
 * @category Series
 */
export function bestProjection(y: ArrayLike<number>, seasons: readonly number[], h: number, options: BestProjectionOptions = {}): ChosenProjection {
  checkArgs(y, 1, h, "bestProjection");
  for (const s of seasons) {
    if (!Number.isInteger(s) || s < 2) throw new RangeError(`bestProjection: every season must be an integer >= 2, got ${String(s)}`);
  }
  const cycles = options.cycles ?? PROFILE_CYCLES;
  checkCycles(cycles, "bestProjection");
  const origins = options.origins ?? BEST_PROJECTION_ORIGINS;
  if (!Number.isInteger(origins) || origins < 1) throw new RangeError(`bestProjection: origins must be an integer >= 1, got ${String(origins)}`);
  const n = y.length;
  const methods: readonly ProjectionMethod[] = ["seasonal-naive", "seasonal-profile", "seasonal-theta"];
  // Scored: the seasons with one rolling origin at least (n >= h + 2m), all on the same origins.
  const scored = seasons.filter((s) => n >= h + 2 * s);
  const usable = scored.length > 0 ? scored : seasons.filter((s) => n >= 2 * s);
  const candidates: { method: ProjectionMethod; season: number }[] = [];
  for (const season of usable) for (const method of methods) candidates.push({ method, season });
  if (candidates.length === 0) candidates.push({ method: "seasonal-naive", season: 1 });
  let rounds = 0;
  if (scored.length > 0) {
    const longest = Math.max(...scored);
    while (rounds < origins && n - (rounds + 1) * h >= 2 * longest) rounds++;
  }
  let best = candidates[0]!;
  let bestMae = NaN;
  if (rounds > 0) {
    for (const c of candidates) {
      let sum = 0;
      for (let r = 1; r <= rounds; r++) {
        const origin = n - r * h;
        const f = projectUnchecked(c.method, y, origin, c.season, h, cycles);
        for (let k = 0; k < h; k++) sum += Math.abs(y[origin + k]! - f[k]!);
      }
      const mae = sum / (rounds * h);
      if (Number.isNaN(bestMae) || mae < bestMae) {
        best = c;
        bestMae = mae;
      }
    }
  }
  return { method: best.method, season: best.season, rollingMae: bestMae, rollingOrigins: rounds, forecast: projectUnchecked(best.method, y, n, best.season, h, cycles) };
}
