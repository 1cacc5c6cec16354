/**
 * Calibrated uncertainty: the forecaster's own predictive spread (the
 * half-widths of its central intervals at a grid of levels), put on one
 * normal-equivalent scale and calibrated on a series' own past errors by
 * nested conformal prediction.
 *
 * The three pieces, used alike by the forecast, the historic forecast and
 * online anomaly detection:
 * 1. **Score.** An observation y against a forecast ŷ with half-widths
 *    w_1 ≤ … ≤ w_G at grid levels s_1 < … < s_G (below or above ŷ, by the
 *    side y lies on) gets the multiplier m at which the spread reaches it:
 *    the half-width function W(m) goes through (0, 0) and (Φ⁻¹(0.5 + s_j/2), w_j),
 *    linear in between and proportional beyond the last knot, and
 *    |u| = W⁻¹(|y − ŷ|), signed like y − ŷ ({@link spreadScore}). A perfectly
 *    calibrated Gaussian forecaster gives u ~ N(0, 1).
 * 2. **Calibrated multiplier.** From the n sorted calibration scores |u| of a
 *    series, the interval at level L uses m(L) = |u|₍ₖ₎ with
 *    k = ⌊(n + 1)·L/100⌋ + 1 when k ≤ r = n − 2 (split-conformal with its
 *    finite-sample correction: a new exchangeable point falls inside with
 *    probability at least L/100; the two largest scores never set a level on
 *    their own), and otherwise the forecaster's own quantile rescaled and
 *    given a heavier tail, max(|u|₍ᵣ₎, c·a·(q/a)^1.25) with q = Φ⁻¹(0.5 + L/200),
 *    a the normal quantile of the highest resolved level and c the shrunk
 *    scale ratio of {@link spreadScaleRatio} ({@link conformalMultiplier}).
 *    m(L) never decreases with L, so intervals nest.
 * 3. **Calibrated z.** The signed normal-equivalent of the level at which a
 *    point leaves the calibrated intervals ({@link calibratedZ}), so that
 *    |z| > Φ⁻¹(0.5 + L/200) exactly when the point lies outside the level-L
 *    interval.
 *
 * The constants (2 trimmed scores, a prior weight of 20 scores, the highest
 * resolved score for the ratio, the tail power 0.25) were chosen on the
 * validation series, not on M1 (docs/forecasting.md).
 * @module
 */
import { SPREAD_LEVELS } from "../model/config.js";
import { normalQuantile } from "../stats/index.js";
import type { ForecastDistribution, Forecaster, IntervalBounds } from "../types.js";
import { gaussianMultiplier, intervalKey } from "./intervals.js";

/**
 * Largest |score| ({@link spreadScore}): the score of any deviation from a
 * certain forecast, and a bound that keeps scores finite (a normal quantile
 * never exceeds 40 in double precision, so nothing calibrated is near it).
 * @category Intervals
 */
export const SPREAD_SCORE_CAP = 1e9;

const knotCache = new Map<readonly number[], Float64Array>();

/**
 * The normal multipliers Φ⁻¹(0.5 + s/2) of a grid of central-interval levels
 * s (fractions): the knots of the half-width function.
 *
 * @example
 * ```ts
 * Array.from(spreadKnots([0.8, 0.95])); // ≈ [1.2816, 1.9600]
 * // => [1.2815515655446008, 1.9599639845400536]
 * ```
 * @category Intervals
 */
export function spreadKnots(levels: readonly number[]): Float64Array {
  let knots = knotCache.get(levels);
  if (knots === undefined) {
    knots = new Float64Array(levels.length);
    for (let j = 0; j < levels.length; j++) {
      const s = levels[j]!;
      if (!(s > 0 && s < 1) || (j > 0 && !(s > levels[j - 1]!))) throw new RangeError(`spread levels must increase within (0, 1), got ${String(levels)}`);
      knots[j] = normalQuantile(0.5 + s / 2);
    }
    knotCache.set(levels, knots);
  }
  return knots;
}

/**
 * The half-width of a point's spread at normal multiplier m ≥ 0: linear
 * between (0, 0) and the knots (Φ⁻¹(0.5 + s_j/2), w_j), proportional
 * (w_G · m / knot_G) beyond the last knot; clamped to `Number.MAX_VALUE`.
 *
 * Cost: O(G).
 *
 * @param widths - Half-widths of one side, G per point.
 * @param base - Index of the point's first half-width in `widths`.
 * @param knots - {@link spreadKnots} of the grid.
 * @param m - The multiplier (≥ 0).
 *
 * @example
 * ```ts
 * const knots = spreadKnots([0.8, 0.95]);
 * spreadHalfWidth(new Float64Array([2, 3]), 0, knots, knots[1]!); // at the 95% knot
 * // => 3
 * spreadHalfWidth(new Float64Array([2, 3]), 0, knots, 2 * knots[1]!); // beyond: proportional
 * // => 6
 * ```
 * @category Intervals
 */
export function spreadHalfWidth(widths: ArrayLike<number>, base: number, knots: Float64Array, m: number): number {
  if (!(m > 0)) return 0;
  const G = knots.length;
  let prevKnot = 0;
  let prevWidth = 0;
  for (let j = 0; j < G; j++) {
    const knot = knots[j]!;
    const width = widths[base + j] as number;
    if (m <= knot) return prevWidth + ((m - prevKnot) / (knot - prevKnot)) * (width - prevWidth);
    prevKnot = knot;
    prevWidth = width;
  }
  return Math.min((prevWidth / prevKnot) * m, Number.MAX_VALUE);
}

/**
 * A deviation at most this fraction of max(|y|, |ŷ|) is rounding, not an error
 * (so a constant series forecast exactly, up to rounding, scores 0).
 * @category Intervals
 */
export const SPREAD_RELATIVE_TOLERANCE = 1e-12;

/**
 * Whether a forecaster was certain of a point: every half-width of its spread
 * is 0 (a constant context). Such a point says nothing about the scale and is
 * left out of calibration.
 *
 * @example
 * ```ts
 * spreadIsCertain(new Float64Array([0, 0]), new Float64Array([0, 0]), 0, 2); // => true
 * ```
 * @category Intervals
 */
export function spreadIsCertain(below: ArrayLike<number>, above: ArrayLike<number>, base: number, G: number): boolean {
  return !((below[base + G - 1] as number) > 0) && !((above[base + G - 1] as number) > 0);
}

/**
 * The signed normal-equivalent score of an observation against a forecast
 * and its spread: u = ±W⁻¹(|y − ŷ|), W the half-width function of the side
 * y lies on ({@link spreadHalfWidth}), capped at ±{@link SPREAD_SCORE_CAP}
 * (also the score of any deviation from a certain forecast). A deviation
 * within {@link SPREAD_RELATIVE_TOLERANCE} of the magnitudes scores 0.
 *
 * Cost: O(G).
 *
 * @example
 * ```ts
 * const knots = spreadKnots([0.8, 0.95]);
 * const below = new Float64Array([2, 3]);
 * const above = new Float64Array([4, 6]);
 * spreadScore(16, 10, below, above, 0, knots); // 6 above: the 95% knot
 * // => 1.9599639845400536
 * spreadScore(8, 10, below, above, 0, knots); // 2 below: the 80% knot
 * // => -1.2815515655446008
 * ```
 * @category Intervals
 */
export function spreadScore(y: number, mean: number, below: ArrayLike<number>, above: ArrayLike<number>, base: number, knots: Float64Array): number {
  const G = knots.length;
  const up = y >= mean;
  const d = up ? y - mean : mean - y;
  if (!(d > SPREAD_RELATIVE_TOLERANCE * Math.max(Math.abs(y), Math.abs(mean)))) return 0;
  const widths = up ? above : below;
  let prevKnot = 0;
  let prevWidth = 0;
  let m = SPREAD_SCORE_CAP;
  let found = false;
  for (let j = 0; j < G; j++) {
    const width = widths[base + j] as number;
    const knot = knots[j]!;
    if (d <= width) {
      m = prevKnot + ((d - prevWidth) / (width - prevWidth)) * (knot - prevKnot);
      found = true;
      break;
    }
    prevKnot = knot;
    prevWidth = width;
  }
  if (!found && prevWidth > 0) m = (prevKnot * d) / prevWidth;
  if (!(m < SPREAD_SCORE_CAP)) m = SPREAD_SCORE_CAP;
  return up ? m : -m;
}

/**
 * The calibrated multiplier of level L from a series' sorted calibration
 * scores |u|₍₁₎ ≤ … ≤ |u|₍ₙ₎: |u|₍ₖ₎ with k = ⌊(n + 1)·L/100⌋ + 1 when
 * k ≤ r = n − {@link SPREAD_TRIM} (split-conformal, finite-sample corrected),
 * else max(|u|₍ᵣ₎, c·a·(q/a)^(1 + {@link SPREAD_TAIL_POWER})) with
 * q = Φ⁻¹(0.5 + L/200), a = Φ⁻¹(0.5 + r/(2(n + 1))) and c = {@link spreadScaleRatio}
 * (the forecaster's own quantile, rescaled by what the scores show, with a
 * heavier tail); with r ≤ 0, q itself. Non-decreasing in L.
 *
 * A level is calibrated by the scores directly once ⌊(n + 1)·L/100⌋ + 1 ≤ n − 2,
 * i.e. from n = 15 scores at 80 %, 60 at 95 %, 300 at 99 %; higher levels use
 * the rescaled quantile.
 *
 * Cost: O(1).
 *
 * @param sorted - Calibration scores |u|, ascending (only `[from, from + n)` is read).
 * @param from - Where the series' scores start.
 * @param n - How many there are (≥ 0).
 * @param level - Level in percent, 0 ≤ level < 100.
 *
 * @example
 * ```ts
 * const s = Float64Array.from({ length: 19 }, (_, i) => (i + 1) / 10); // 0.1 … 1.9
 * conformalMultiplier(s, 0, 19, 80); // k = ⌊20 · 0.8⌋ + 1 = 17 ≤ 17
 * // => 1.7
 * conformalMultiplier(s, 0, 19, 95) > 1.96; // k = 20 > 17: c · 1.96, the scores run wider than a unit normal
 * // => true
 * ```
 * @category Intervals
 */
export function conformalMultiplier(sorted: ArrayLike<number>, from: number, n: number, level: number): number {
  const q = gaussianMultiplier(level);
  if (n <= 0) return q;
  const k = Math.floor(((n + 1) * level) / 100) + 1;
  const r = resolvedCount(n);
  if (k <= r) return sorted[from + k - 1] as number;
  if (r <= 0) return q;
  // Beyond the resolved scores: the anchor's quantile a, rescaled by c, grown like (q / a)^(1 + SPREAD_TAIL_POWER).
  const a = rankQuantile(r, n);
  return Math.max(sorted[from + r - 1] as number, spreadScaleRatio(sorted, from, n) * a * Math.pow(q / a, 1 + SPREAD_TAIL_POWER));
}

/** Largest n whose {@link rankQuantile} values are kept (the anomaly calibration's 336 scores and more). */
const RANK_QUANTILE_CACHED = 400;

/** {@link rankQuantile}'s values, n after n (row n at n(n + 1)/2, b = 0 .. n; NaN: not computed yet), made on first use. */
let rankQuantiles: Float64Array | null = null;

/**
 * Φ⁻¹(0.5 + b / (2(n + 1))) for 0 <= b <= n: the normal quantile of b of n
 * calibration scores, which every calibrated z and multiplier reads. Kept
 * per (n, b) up to n = {@link RANK_QUANTILE_CACHED}, so a series scored point
 * after point computes each once (the same value: a pure function).
 */
function rankQuantile(b: number, n: number): number {
  if (n > RANK_QUANTILE_CACHED) return normalQuantile(0.5 + b / (2 * (n + 1)));
  rankQuantiles ??= new Float64Array(((RANK_QUANTILE_CACHED + 1) * (RANK_QUANTILE_CACHED + 2)) / 2).fill(Number.NaN);
  const at = (n * (n + 1)) / 2 + b;
  let value = rankQuantiles[at] as number;
  if (value !== value) {
    value = normalQuantile(0.5 + b / (2 * (n + 1)));
    rankQuantiles[at] = value;
  }
  return value;
}

/**
 * The largest calibration scores that never calibrate a level on their own:
 * levels are read from the n − 2 smallest scores, so one or two anomalies
 * among the calibration points do not set the high levels (chosen on the
 * validation series, see docs/forecasting.md).
 * @category Intervals
 */
export const SPREAD_TRIM = 2;

/** How many of n sorted scores calibrate levels directly: all but the largest {@link SPREAD_TRIM}. */
function resolvedCount(n: number): number {
  return Math.max(0, n - SPREAD_TRIM);
}

/**
 * How much faster than a normal law the multiplier grows beyond the resolved
 * levels: from the anchor a = Φ⁻¹(0.5 + r/(2(n + 1))) the multiplier is
 * c·a·(q/a)^(1 + 0.25). Forecast errors have heavier tails than the normal
 * law; the power was chosen on the validation series (best MSIS of 0, 0.25,
 * 0.5 and 1; docs/forecasting.md).
 * @category Intervals
 */
export const SPREAD_TAIL_POWER = 0.25;

/**
 * Weight of the forecaster's own scale, in calibration scores, in
 * {@link spreadScaleRatio}.
 * @category Intervals
 */
export const SPREAD_PRIOR_WEIGHT = 20;

/**
 * How much wider than its own the forecaster's spread should be at the
 * levels the calibration scores do not resolve. With r = n − {@link SPREAD_TRIM}
 * resolved scores, the raw ratio is ĉ = |u|₍ᵣ₎ / Φ⁻¹(0.5 + r/(2(n + 1))) (the
 * highest resolved score over what a calibrated forecaster would give there),
 * shrunk towards 1 with the weight of {@link SPREAD_PRIOR_WEIGHT} scores:
 * c = (n·ĉ + 20) / (n + 20); 1 without resolved scores.
 *
 * @example
 * ```ts
 * // no scores: the forecaster's own scale
 * spreadScaleRatio(new Float64Array(0), 0, 0);
 * // => 1
 * ```
 * @category Intervals
 */
export function spreadScaleRatio(sorted: ArrayLike<number>, from: number, n: number): number {
  const r = resolvedCount(n);
  if (r <= 0) return 1;
  const raw = (sorted[from + r - 1] as number) / rankQuantile(r, n);
  return (n * raw + SPREAD_PRIOR_WEIGHT) / (n + SPREAD_PRIOR_WEIGHT);
}

/**
 * The calibrated z of a signed score u: the signed normal quantile of the
 * highest level whose calibrated interval ({@link conformalMultiplier}) the
 * point lies outside. With b the number of calibration scores below |u| and
 * r = n − {@link SPREAD_TRIM}: Φ⁻¹(0.5 + b/(2(n + 1))) when b < r, else the
 * inverse of the multiplier's tail, max(a, a·(|u|/(c·a))^(1/1.25)) with
 * a = Φ⁻¹(0.5 + r/(2(n + 1))) and c = {@link spreadScaleRatio}; with r ≤ 0,
 * u itself. So |z| > Φ⁻¹(0.5 + L/200) exactly when |u| exceeds the
 * calibrated multiplier of level L, and z keeps growing beyond the resolved
 * scores.
 *
 * Cost: O(log n).
 *
 * @example
 * ```ts
 * const s = Float64Array.from({ length: 19 }, (_, i) => (i + 1) / 10);
 * calibratedZ(-1.05, s, 0, 19); // 10 of 19 scores below: level 10/20
 * // => -0.6744897501960817
 * calibratedZ(5, s, 0, 19) > 3; // beyond the resolved scores
 * // => true
 * ```
 * @category Intervals
 */
export function calibratedZ(u: number, sorted: ArrayLike<number>, from: number, n: number): number {
  const v = Math.abs(u);
  if (n <= 0) return u;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[from + mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return calibratedZOfRank(u, lo, sorted, from, n);
}

/**
 * {@link calibratedZ} when the number of calibration scores below |u|
 * (`below`, the first index of `sorted[from, from + n)` holding a value
 * >= |u|) is already known: the same value, without searching for it again.
 *
 * @example
 * ```ts
 * const s = Float64Array.from({ length: 19 }, (_, i) => (i + 1) / 10);
 * calibratedZOfRank(-1.05, 10, s, 0, 19) === calibratedZ(-1.05, s, 0, 19); // 10 of 19 scores below 1.05
 * // => true
 * ```
 * @category Intervals
 */
export function calibratedZOfRank(u: number, below: number, sorted: ArrayLike<number>, from: number, n: number): number {
  const v = Math.abs(u);
  if (n <= 0) return u;
  const lo = below;
  const r = resolvedCount(n);
  let z: number;
  if (r <= 0) z = v;
  else if (lo < r) z = rankQuantile(lo, n);
  else {
    // the inverse of conformalMultiplier beyond the resolved scores
    const a = rankQuantile(r, n);
    z = Math.max(a, a * Math.pow(v / (spreadScaleRatio(sorted, from, n) * a), 1 / (1 + SPREAD_TAIL_POWER)));
  }
  return u < 0 ? -z : z;
}

/**
 * The forecaster itself when it has a predictive spread, else a wrapper whose
 * `forecastDistribution` adds the Gaussian random-walk spread of each context:
 * half-width at grid level s and step k = Φ⁻¹(0.5 + s/2) · σ₁ · √k, with σ₁
 * the sample standard deviation of the context's one-step differences (0 with
 * fewer than 3 points: the forecaster is then taken as certain).
 *
 * @example
 * ```ts
 * const f = withSpread(seasonalNaiveForecaster(1));
 * const d = f.forecastDistribution!([new Float64Array([1, 2, 1, 2])], 1);
 * Array.from(d.mean); // => [2]
 * d.above[d.levels.length - 1]! > 0; // => true
 * ```
 * @category Intervals
 */
export function withSpread(forecaster: Forecaster): Forecaster {
  if (forecaster.forecastDistribution !== undefined) return forecaster;
  const levels = SPREAD_LEVELS;
  const knots = spreadKnots(levels);
  const G = levels.length;
  return {
    name: forecaster.name,
    seasonLength: forecaster.seasonLength,
    forecast: (contexts, h) => forecaster.forecast(contexts, h),
    forecastDistribution(contexts, h): ForecastDistribution {
      const mean = forecaster.forecast(contexts, h);
      const below = new Float64Array(mean.length * G);
      for (let i = 0; i < contexts.length; i++) {
        const sigma = oneStepDifferenceStd(contexts[i]!);
        for (let k = 0; k < h; k++) {
          const base = (i * h + k) * G;
          const s = sigma * Math.sqrt(k + 1);
          for (let j = 0; j < G; j++) below[base + j] = Math.min(knots[j]! * s, Number.MAX_VALUE);
        }
      }
      return { levels, mean, below, above: below.slice() };
    },
  };
}

/** Sample standard deviation of x[t] − x[t−1] (0 with fewer than 3 points; MAX_VALUE on overflow). */
function oneStepDifferenceStd(x: Float64Array): number {
  const n = x.length - 1;
  if (n < 2) return 0;
  let mean = 0;
  let m2 = 0;
  for (let t = 1; t <= n; t++) {
    const d = x[t]! - x[t - 1]!;
    const delta = d - mean;
    mean += delta / t;
    m2 += delta * (d - mean);
  }
  const s = Math.sqrt(m2 / (n - 1));
  return Number.isFinite(s) ? s : Number.MAX_VALUE;
}

/**
 * Sorted calibration scores of many series: `scores[offsets[i] … offsets[i + 1])`
 * holds series i's |u|, ascending.
 * @category Intervals
 */
export interface CalibrationScores {
  /** |u| of every calibration point, series after series, each series ascending. */
  readonly scores: Float64Array;
  /** `offsets[i]` is where series i's scores start; `sizes.length + 1` entries. */
  readonly offsets: Int32Array;
}

/**
 * Collects calibration scores per series: for each series i, each of its
 * calibration points p (given by `pointsOf(i, add)` calling `add(y, mean,
 * below, above, base)`), |u| of {@link spreadScore}; points where the
 * forecaster was certain ({@link spreadIsCertain}) are left out; then each
 * series' scores are sorted.
 *
 * @example
 * ```ts
 * const knots = spreadKnots([0.8, 0.95]);
 * const w = new Float64Array([1, 2]);
 * const c = collectCalibrationScores(1, [0.8, 0.95], (i, add) => { add(11, 10, w, w, 0); add(8, 10, w, w, 0); });
 * Array.from(c.scores); // ≈ [1.2816, 1.96]
 * // => [1.2815515655446008, 1.9599639845400536]
 * ```
 * @category Intervals
 */
export function collectCalibrationScores(
  seriesCount: number,
  levels: readonly number[],
  pointsOf: (series: number, add: (y: number, mean: number, below: ArrayLike<number>, above: ArrayLike<number>, base: number) => void) => void,
): CalibrationScores {
  const knots = spreadKnots(levels);
  const G = knots.length;
  let scores = new Float64Array(64);
  let count = 0;
  const offsets = new Int32Array(seriesCount + 1);
  const add = (y: number, mean: number, below: ArrayLike<number>, above: ArrayLike<number>, base: number): void => {
    if (spreadIsCertain(below, above, base, G)) return;
    const u = spreadScore(y, mean, below, above, base, knots);
    if (count === scores.length) {
      const grown = new Float64Array(scores.length * 2);
      grown.set(scores);
      scores = grown;
    }
    scores[count++] = Math.abs(u);
  };
  for (let i = 0; i < seriesCount; i++) {
    offsets[i] = count;
    pointsOf(i, add);
    scores.subarray(offsets[i]!, count).sort();
  }
  offsets[seriesCount] = count;
  return { scores: scores.slice(0, count), offsets };
}

/**
 * Calibrated intervals of a distribution's rows for each level: for row r of
 * series i, lo = ŷ − W_below(m_i(L)) and hi = ŷ + W_above(m_i(L)) with
 * m_i(L) = {@link conformalMultiplier} of series i's calibration scores. Keys
 * `lo-<L>`, `hi-<L>` in the given order, one `Float64Array` per bound; bounds
 * clamped to the finite range.
 *
 * Cost: O(rows · levels · G).
 *
 * @param dist - The distribution whose rows get intervals (its `mean` is the centre).
 * @param seriesOfRow - The series of each row.
 * @param calibration - Sorted calibration scores per series.
 * @param levels - Levels in percent.
 * @param mean - The centre of each row (default `dist.mean`; e.g. the mean after exogenous features).
 *
 * @example
 * ```ts
 * const w = new Float64Array([1, 2, 4, 6, 7, 8, 9, 10]);
 * const dist = { levels: [0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.98, 0.99], mean: Float64Array.of(100), below: w, above: w };
 * const none = { scores: new Float64Array(0), offsets: Int32Array.of(0, 0) };
 * // no calibration scores: the forecaster's own 80 % interval
 * const bounds = calibratedIntervals(dist, Int32Array.of(0), none, [80]);
 * Object.keys(bounds); // => ["lo-80", "hi-80"]
 * [Array.from(bounds["lo-80"]!), Array.from(bounds["hi-80"]!)]; // => [[94], [106]]
 * ```
 * @category Intervals
 */
export function calibratedIntervals(
  dist: ForecastDistribution,
  seriesOfRow: Int32Array,
  calibration: CalibrationScores,
  levels: readonly number[],
  mean: ArrayLike<number> = dist.mean,
): IntervalBounds {
  const knots = spreadKnots(dist.levels);
  const G = knots.length;
  const rows = mean.length;
  const result: IntervalBounds = {};
  const nSeries = calibration.offsets.length - 1;
  const multipliers = new Float64Array(nSeries);
  for (const level of levels) {
    for (let i = 0; i < nSeries; i++) {
      const from = calibration.offsets[i]!;
      multipliers[i] = conformalMultiplier(calibration.scores, from, calibration.offsets[i + 1]! - from, level);
    }
    const lo = new Float64Array(rows);
    const hi = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
      const m = multipliers[seriesOfRow[r]!]!;
      const centre = mean[r] as number;
      lo[r] = Math.max(centre - spreadHalfWidth(dist.below, r * G, knots, m), -Number.MAX_VALUE);
      hi[r] = Math.min(centre + spreadHalfWidth(dist.above, r * G, knots, m), Number.MAX_VALUE);
    }
    result[intervalKey(level, "lo")] = lo;
    result[intervalKey(level, "hi")] = hi;
  }
  return result;
}
