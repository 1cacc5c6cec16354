/**
 * Anomaly scores and thresholds: calibrated z-scores and intervals of a
 * series' detection window, univariate flags (|z| > q) and the multivariate
 * accumulated score (Σ z² against a chi-square quantile).
 * @module
 */
import { calibratedZ, calibratedZOfRank, conformalMultiplier, gaussianMultiplier, spreadHalfWidth, spreadIsCertain, spreadKnots, spreadScore } from "../intervals/index.js";
import { chiSquareQuantile, compensatedSum } from "../stats/index.js";
import { combineJudges, judgedInterval, JUDGES_AGREE_Z, lastInside } from "./seasonal-judge.js";
import { rangeBoost, rangeOpinion } from "./range-judge.js";

/**
 * What {@link seriesCalibratedScores} returns besides its outputs.
 * @category Anomaly detection
 */
export interface SeriesScoreSummary {
  /** Calibration scores the first detection point was calibrated on (certain forecasts and excluded points left out). */
  readonly calibrationPoints: number;
  /** The calibrated multiplier of the level at the first detection point (see `conformalMultiplier`). */
  readonly multiplier: number;
  /** True when each point was calibrated on the scores just before it (see {@link seriesCalibratedScores}). */
  readonly sliding: boolean;
}

/**
 * Most calibration scores of one detection point in online anomaly
 * detection: 336 (two weeks of hourly data, 14 days of a daily cycle).
 * Longer windows follow the series' recent behaviour less; on the
 * monitoring benchmark (docs/monitoring-eval.md) 144, 336 and 1,000 scored
 * 41.2, 43.7 and 43.6 with one-step forecasts.
 * @category Anomaly detection
 */
export const ANOMALY_CALIBRATION_MAX = 336;

/**
 * A point whose calibrated |z| exceeds this (a two-sided level of 99.994 %)
 * does not join the calibration scores of the points after it, so an
 * anomaly cannot widen the scale that later points are judged by.
 * @category Anomaly detection
 */
export const ANOMALY_EXCLUDE_Z = 4;

/**
 * Largest |anomaly_score|: z-scores are clipped to ±10. Every level below
 * 100 has its multiplier q below 8.3 (0.5 + level/200 is at most the double
 * below 1; a level so close to 100 that it rounds to 1 has q infinite and
 * flags nothing), so clipping changes no flag (|z| > q stays "outside the
 * interval"); it keeps a point missed by a certain forecast (a flat line
 * that steps) or a noise-free season from scoring 10^9 on one stream and
 * 5 on the next.
 * @category Anomaly detection
 */
export const ANOMALY_Z_CAP = 10;

/** Fewest calibration scores before the static mode marks extreme points (fewer do not resolve a z of 4). */
const EXTREME_MIN_SCORES = 20;

/**
 * How many calibration scores online anomaly detection wants per detection
 * point: C = min(6 · detectionSize, {@link ANOMALY_CALIBRATION_MAX}).
 *
 * @param detectionSize - Points scored per series (integer >= 1).
 * @returns C.
 * @throws RangeError when `detectionSize` is not an integer >= 1.
 *
 * @example
 * ```ts
 * anomalyCalibrationSize(24); // => 144
 * anomalyCalibrationSize(5000); // => 336
 * ```
 * @category Anomaly detection
 */
export function anomalyCalibrationSize(detectionSize: number): number {
  if (!Number.isInteger(detectionSize) || detectionSize < 1) {
    throw new RangeError(`anomalyCalibrationSize: detectionSize must be an integer >= 1, got ${String(detectionSize)}`);
  }
  return Math.min(6 * detectionSize, ANOMALY_CALIBRATION_MAX);
}

/**
 * Calibrated z-scores and the level-L interval of one series' detection
 * window (its last `detectionSize` points), as online anomaly detection
 * defines them.
 *
 * Method: every point with a forecast has a score u (`spreadScore`: where y
 * fell in the forecaster's predictive spread, on a normal scale); points the
 * forecaster was certain of never calibrate. With C =
 * {@link anomalyCalibrationSize}(detectionSize):
 * - **Sliding** (at least C forecast points before the window): walking
 *   through the forecast points in time order, each point is calibrated on
 *   the last C scores kept before it. A point is kept unless its own
 *   calibrated |z| exceeds {@link ANOMALY_EXCLUDE_Z}, judged once min(20, ⌊C/2⌋)
 *   scores precede it (fewer do not resolve such a z); with `history`, its
 *   judged z (`judgedZ`, where the seasonal judges speak at that point)
 *   instead of the network's own. So the scale is
 *   local and robust (rank-based, and anomalies do not join it). The
 *   seed's rule: when at least 6 · detectionSize forecast points precede
 *   the window, the window's own scores are never kept (every window point
 *   is calibrated on the last C scores before the window); with fewer (a
 *   long window: C is at most 336), the walk goes on through the window.
 *   A window longer than C, or than the forecast points before it, also
 *   slides once 20 scores precede it (one static set, mostly the window's
 *   own points, would judge each regime of a long window by the others).
 * - **Static** (a shorter history): every forecast point, the detection
 *   window included, calibrates every detection point, as before.
 *
 * Every point's own calibrated z (`out.pointZ`, when given): in sliding mode
 * the z of each forecast point once min(20, ⌊C/2⌋) scores precede it, NaN
 * elsewhere; in static mode the detection points' z only. The accumulated
 * anomaly score runs over them (`accumulatedAnomalyScores`).
 *
 * With the n sorted |u| of a point's calibration scores, it gets z =
 * `calibratedZ(u)` and the interval ŷ − W_below(m), ŷ + W_above(m) with m =
 * `conformalMultiplier` of the level: so |z| > Φ⁻¹(0.5 + L/200) exactly when y
 * lies outside that interval, and on exchangeable anomaly-free data a point
 * falls outside with probability at most about (100 − L) %.
 *
 * Cost: O(P · C) time for P forecast points (sorted insertion); static mode
 * O(n log n + n · G); no allocation when `scratch` has max(n, 2C + 1) values.
 *
 * @param y - Observations of the series (a view is fine); never mutated.
 * @param forecast - One forecast per point of `y`, `NaN` where there is none; the detection window must have forecasts.
 * @param below - Half-widths below each forecast, G per point of `y` (as in `ForecastDistribution`).
 * @param above - Half-widths above each forecast, G per point.
 * @param levels - The spread's grid levels (fractions), G of them.
 * @param detectionSize - Points at the end of the series to score (integer, 1 <= detectionSize <= y.length).
 * @param level - Interval level in percent, 0 <= level < 100.
 * @param out - Receives `detectionSize` values each: `z`, `lo`, `hi`; `pointZ` (n values), when
 *   given, every point's own z (see above); `extreme` (n values), when given, marks with 1 the points whose calibrated
 *   |z| (judged z, with `history`) exceeds 4 (in sliding mode the ones left out of the calibration; in
 *   static mode against all the scores, once there are at least 20).
 * @param scratch - Optional work buffer of at least max(y.length, 2C + 1) values.
 * @param judge - Optional seasonal judge's opinion of each detection point (`SeasonalOpinion`, with an optional
 *   second seasonal judge): where it speaks, z and the interval are the judges' combination (`combineJudges`, `judgedInterval`);
 *   `pointZ` keeps the network's own z.
 * @param history - Optional opinions of the same judges at every point of `y` (n values each, aligned with `y`):
 *   which points are left out of later calibrations and marked `extreme` is then decided on their judged z
 *   (`judgedZ`: the seasonal judges' combination with the network, or the two seasonal judges', where they speak
 *   at that point), so a point the judges reject does not widen the scale after it though the network's
 *   own z was moderate (a spike like the spikes before it). On the development half of the real monitoring data
 *   this ranked anomalies better in both call patterns (docs/monitoring-eval.md).
 * @param rangeValues - Optional: the series from its first value (`y` is its last y.length values), for the range
 *   judge (`rangeOpinion`, `rangeBoost`): each detection point's score is raised to √(|z| · |r|) where its value lies
 *   further out of the series' usual range (r, on z's side) than z, and its interval narrowed to match. Its history
 *   ends at the window's start when the window is left out (`windowLeftOut`), else at the point.
 * @throws RangeError when lengths or `detectionSize` are invalid, or a detection point has no finite forecast.
 *
 * @example
 * ```ts
 * // a forecaster that says ±1 at the 68 % level and never changes its mind
 * const G = SPREAD_LEVELS.length;
 * const knots = spreadKnots(SPREAD_LEVELS);
 * const n = 40;
 * const y = Float64Array.from({ length: n }, (_, t) => (t % 2 === 0 ? 0.5 : -0.5));
 * y[n - 1] = 9;
 * const forecast = new Float64Array(n);
 * const widths = new Float64Array(n * G).map((_, i) => knots[i % G]!);
 * const out = { z: new Float64Array(1), lo: new Float64Array(1), hi: new Float64Array(1) };
 * const summary = seriesCalibratedScores(y, forecast, widths, widths, SPREAD_LEVELS, 1, 99, out);
 * summary.calibrationPoints; // the last 6 points before the window: C = 6 · 1
 * // => 6
 * // 9 lies beyond every calibration score (all 0.5): far outside the 99 % interval
 * out.z[0]! > gaussianMultiplier(99) && out.hi[0]! < 9;
 * // => true
 * ```
 * @category Anomaly detection
 */
export function seriesCalibratedScores(
  y: ArrayLike<number>,
  forecast: ArrayLike<number>,
  below: ArrayLike<number>,
  above: ArrayLike<number>,
  levels: readonly number[],
  detectionSize: number,
  level: number,
  out: { z: Float64Array; lo: Float64Array; hi: Float64Array; pointZ?: Float64Array; extreme?: Uint8Array },
  scratch?: Float64Array,
  judge?: SeasonalOpinion,
  history?: SeasonalOpinion,
  rangeValues?: ArrayLike<number>,
): SeriesScoreSummary {
  const n = y.length;
  const knots = spreadKnots(levels);
  const G = knots.length;
  if (forecast.length !== n) throw new RangeError(`seriesCalibratedScores: forecast has ${forecast.length} values, y has ${n}`);
  if (below.length !== n * G || above.length !== n * G) throw new RangeError(`seriesCalibratedScores: below and above need ${n * G} values (G = ${G} per point)`);
  if (!Number.isInteger(detectionSize) || detectionSize < 1 || detectionSize > n) {
    throw new RangeError(`seriesCalibratedScores: detectionSize must be an integer in 1..${n}, got ${String(detectionSize)}`);
  }
  if (out.extreme !== undefined) {
    if (out.extreme.length < n) throw new RangeError(`seriesCalibratedScores: out.extreme needs ${n} values, has ${out.extreme.length}`);
    out.extreme.fill(0, 0, n);
  }
  if (out.pointZ !== undefined) {
    if (out.pointZ.length < n) throw new RangeError(`seriesCalibratedScores: out.pointZ needs ${n} values, has ${out.pointZ.length}`);
    out.pointZ.fill(Number.NaN, 0, n);
  }
  for (const key of ["z", "lo", "hi"] as const) {
    if (out[key] !== undefined && out[key].length < detectionSize) throw new RangeError(`seriesCalibratedScores: out.${key} needs ${detectionSize} values, has ${out[key].length}`);
  }
  const C = anomalyCalibrationSize(detectionSize);
  const size = Math.max(n, 2 * C + 1);
  const work = scratch !== undefined && scratch.length >= size ? scratch : new Float64Array(size);
  const detectionStart = n - detectionSize;
  let outside = 0;
  for (let t = 0; t < n; t++) {
    const f = forecast[t] as number;
    if (Number.isNaN(f)) {
      if (t >= detectionStart) throw new RangeError(`seriesCalibratedScores: point ${t} of the detection window has no forecast`);
      continue;
    }
    if (!Number.isFinite(f) || !Number.isFinite(y[t] as number)) throw new RangeError(`seriesCalibratedScores: y and forecast must be finite at point ${t}`);
    if (t < detectionStart) outside++;
  }
  if (judge !== undefined && (judge.centre.length < detectionSize || judge.sd.length < detectionSize)) {
    throw new RangeError(`seriesCalibratedScores: judge.centre and judge.sd need ${detectionSize} values`);
  }
  if (judge?.second !== undefined && (judge.second.centre.length < detectionSize || judge.second.sd.length < detectionSize)) {
    throw new RangeError(`seriesCalibratedScores: judge.second.centre and judge.second.sd need ${detectionSize} values`);
  }
  if (history !== undefined && (history.centre.length < n || history.sd.length < n || (history.second !== undefined && (history.second.centre.length < n || history.second.sd.length < n)))) {
    throw new RangeError(`seriesCalibratedScores: history's centre and sd (and its second judge's) need ${n} values, one per point of y`);
  }
  const q = judge !== undefined || rangeValues !== undefined ? gaussianMultiplier(level) : Number.NaN;
  const judging: Judging | undefined = judge === undefined ? undefined : { centre: judge.centre, sd: judge.sd, second: judge.second, q };
  // the seed's rule: with 6 · detectionSize forecast points before it, the window's values judge none of its points
  const leftOut = windowLeftOut(outside, detectionSize);
  let ranging: Ranging | undefined;
  if (rangeValues !== undefined) {
    if (rangeValues.length < n) throw new RangeError(`seriesCalibratedScores: rangeValues has ${rangeValues.length} values, fewer than y's ${n}`);
    ranging = { centre: new Float64Array(detectionSize), scale: new Float64Array(detectionSize), q };
    rangeOpinion(rangeValues, detectionSize, leftOut, ranging.centre, ranging.scale);
  }
  // a window longer than C or than the forecast points before it slides through itself once 20 scores precede it: one
  // static set, mostly the window's own points, would judge each regime of a long window by the others
  if (outside >= C || (outside >= EXTREME_MIN_SCORES && detectionSize > Math.min(outside, C))) {
    return slidingScores(y, forecast, below, above, knots, detectionSize, level, C, out, work, judging, !leftOut, history, ranging);
  }

  // Static: every forecast point calibrates every detection point.
  let count = 0;
  for (let t = 0; t < n; t++) {
    const f = forecast[t] as number;
    if (Number.isNaN(f) || spreadIsCertain(below, above, t * G, G)) continue;
    work[count++] = Math.abs(spreadScore(y[t] as number, f, below, above, t * G, knots));
  }
  const sorted = work.subarray(0, count).sort();
  const multiplier = conformalMultiplier(sorted, 0, count, level);
  if (out.extreme !== undefined && count >= EXTREME_MIN_SCORES) {
    for (let t = 0; t < n; t++) {
      const f = forecast[t] as number;
      if (Number.isNaN(f)) continue;
      const u = spreadScore(y[t] as number, f, below, above, t * G, knots);
      if (Math.abs(judgedAt(history, t, y[t] as number, calibratedZ(u, sorted, 0, count))) > ANOMALY_EXCLUDE_Z) out.extreme[t] = 1;
    }
  }
  for (let j = 0; j < detectionSize; j++) {
    const t = detectionStart + j;
    const f = forecast[t] as number;
    const u = spreadScore(y[t] as number, f, below, above, t * G, knots);
    out.z[j] = calibratedZ(u, sorted, 0, count);
    out.lo[j] = Math.max(f - spreadHalfWidth(below, t * G, knots, multiplier), -Number.MAX_VALUE);
    out.hi[j] = Math.min(f + spreadHalfWidth(above, t * G, knots, multiplier), Number.MAX_VALUE);
    if (out.pointZ !== undefined) out.pointZ[t] = out.z[j]!;
    secondOpinions(j, y[t] as number, f, below, above, t * G, knots, sorted, count, judging, ranging, out);
  }
  return { calibrationPoints: count, multiplier, sliding: false };
}

/**
 * The judged z of point i of `opinion` (value `value`, network z `zNetwork`): `judgedZ` where the seasonal judges
 * speak there, else the network's own. What decides whether a point is left out of later calibrations (`history`,
 * one opinion per point of y), and a detection point's z (`judge`, one per detection point).
 */
function judgedAt(opinion: SeasonalOpinion | undefined, i: number, value: number, zNetwork: number): number {
  const sd = opinion === undefined ? Number.NaN : (opinion.sd[i] as number);
  if (!(sd > 0)) return zNetwork;
  const second = opinion!.second;
  return judgedZ(zNetwork, value, opinion!.centre[i] as number, sd, second === undefined ? Number.NaN : (second.centre[i] as number), second === undefined ? Number.NaN : (second.sd[i] as number));
}

/** Whether the second seasonal judge of `opinion` speaks at i (it then takes the network's place). */
function secondSpeaks(opinion: SeasonalOpinion, i: number): boolean {
  return opinion.second !== undefined && (opinion.second.sd[i] as number) > 0;
}

/** The last C kept |scores|, sorted, in `sorted` (C + 1 values) with a ring of them in arrival order (C values). */
class SlidingRanks {
  count = 0;
  private head = 0;
  constructor(
    readonly sorted: Float64Array,
    private readonly ring: Float64Array,
  ) {}

  /** The kept values below v (the index where v would go). */
  rank(v: number): number {
    return lowerBound(this.sorted, this.count, v);
  }

  /** Keeps v, whose {@link rank} is `below`, dropping the oldest kept value when C are kept. */
  add(v: number, below: number): void {
    const { sorted, ring } = this;
    const C = ring.length;
    if (this.count === C) {
      const old = ring[this.head] as number;
      ring[this.head] = v;
      this.head = this.head + 1 === C ? 0 : this.head + 1;
      // v takes old's place with one shift of the values between them (scores are |u|: no −0, so equal values are one
      // bit pattern); `below` counts old when old < v
      const from = lowerBound(sorted, this.count, old);
      if (below > from) {
        sorted.copyWithin(from, from + 1, below);
        sorted[below - 1] = v;
      } else {
        sorted.copyWithin(below + 1, below, from);
        sorted[below] = v;
      }
      return;
    }
    ring[(this.head + this.count) % C] = v;
    sorted.copyWithin(below + 1, below, this.count);
    sorted[below] = v;
    this.count++;
  }
}

/** The sliding mode of {@link seriesCalibratedScores}; `work` has room for one {@link SlidingRanks}. */
function slidingScores(
  y: ArrayLike<number>,
  forecast: ArrayLike<number>,
  below: ArrayLike<number>,
  above: ArrayLike<number>,
  knots: Float64Array,
  detectionSize: number,
  level: number,
  C: number,
  out: { z: Float64Array; lo: Float64Array; hi: Float64Array; pointZ?: Float64Array; extreme?: Uint8Array },
  work: Float64Array,
  judge: Judging | undefined,
  windowCalibrates: boolean,
  history: SeasonalOpinion | undefined,
  ranging: Ranging | undefined,
): SeriesScoreSummary {
  const n = y.length;
  const G = knots.length;
  const detectionStart = n - detectionSize;
  const scores = new SlidingRanks(work.subarray(0, C + 1), work.subarray(C + 1, 2 * C + 1));
  let first: SeriesScoreSummary | null = null;
  const excludeFrom = Math.min(20, C >> 1);
  for (let t = 0; t < n; t++) {
    const f = forecast[t] as number;
    if (Number.isNaN(f)) continue;
    const certain = spreadIsCertain(below, above, t * G, G);
    const u = spreadScore(y[t] as number, f, below, above, t * G, knots);
    // the rank of |u| among the kept scores: its calibrated z, and where it is kept (the scores do not change in between)
    const rank = scores.rank(Math.abs(u));
    const z = calibratedZOfRank(u, rank, scores.sorted, 0, scores.count);
    if (out.pointZ !== undefined && (scores.count >= excludeFrom || t >= detectionStart)) out.pointZ[t] = z;
    if (t >= detectionStart) {
      const j = t - detectionStart;
      const multiplier = conformalMultiplier(scores.sorted, 0, scores.count, level);
      if (first === null) first = { calibrationPoints: scores.count, multiplier, sliding: true };
      out.z[j] = z;
      out.lo[j] = Math.max(f - spreadHalfWidth(below, t * G, knots, multiplier), -Number.MAX_VALUE);
      out.hi[j] = Math.min(f + spreadHalfWidth(above, t * G, knots, multiplier), Number.MAX_VALUE);
      secondOpinions(j, y[t] as number, f, below, above, t * G, knots, scores.sorted, scores.count, judge, ranging, out);
    }
    // left out: a point whose judged z (the network's where no seasonal judge speaks) is beyond ANOMALY_EXCLUDE_Z
    if (scores.count >= excludeFrom && Math.abs(judgedAt(history, t, y[t] as number, z)) > ANOMALY_EXCLUDE_Z) {
      if (out.extreme !== undefined) out.extreme[t] = 1;
      continue;
    }
    // the seed's rule: with 6 · detectionSize forecast points before it, the window's own values calibrate none of its points
    if (certain || (!windowCalibrates && t >= detectionStart)) continue;
    scores.add(Math.abs(u), rank);
  }
  return first!;
}

/**
 * The seasonal judge's opinion of each detection point (see `seasonalJudge`):
 * its centre y(t − m) + μ and σ; σ NaN (or <= 0) where the judge cannot speak.
 * @category Anomaly detection
 */
export interface SeasonalOpinion {
  /** y(t − m) + μ of each detection point: where the seasonal judge expects it. */
  readonly centre: ArrayLike<number>;
  /** σ of each detection point's seasonal differences; NaN (or <= 0) where the judge cannot speak. */
  readonly sd: ArrayLike<number>;
  /**
   * The second seasonal judge (hourly data: the same hour a week earlier), when there is one: its centre and σ
   * per detection point, σ NaN (or <= 0) where it cannot speak. It is heard only where the first judge speaks,
   * and there it takes the network's place: the two seasonal judges must agree.
   */
  readonly second?: Pick<SeasonalOpinion, "centre" | "sd">;
}

/**
 * The judged z of a point whose value is `y` and whose network z is
 * `zNetwork`: where the second seasonal judge speaks (`secondSd` > 0) it takes
 * the network's place and the two seasonal judges are combined, else the
 * network and the seasonal judge (`combineJudges`). The one place that rule
 * is written: the detection points' scoring and the accumulated score's
 * earlier points both ask it.
 *
 * @example
 * ```ts
 * judgedZ(4, 13, 10, 1, 0, Number.NaN); // no second judge: the network (4) and the seasonal judge (3) agree
 * // => 3.5
 * judgedZ(4, 13, 10, 1, 13, 2); // the weekly judge (0) disagrees with the daily judge (3): no evidence
 * // => 0
 * ```
 */
export function judgedZ(zNetwork: number, y: number, centre: number, sd: number, secondCentre: number, secondSd: number): number {
  const zSeasonal = (y - centre) / sd;
  return secondSd > 0 ? combineJudges(zSeasonal, (y - secondCentre) / secondSd) : combineJudges(zNetwork, zSeasonal);
}

/** A {@link SeasonalOpinion} with the level's multiplier q, as the scoring passes it to {@link judgePoint}. */
type Judging = SeasonalOpinion & { readonly q: number };

/**
 * The network's side of one judged detection point, as `judgedInterval` reads
 * it: its interval at q and at 99 % (the latter only when q is above 99 %)
 * and its calibrated z at any y. One instance serves every judged point (the
 * computation is synchronous), so judging allocates nothing per point.
 */
class NetworkAtPoint {
  forecast = 0;
  lo = 0;
  hi = 0;
  loAgree = Number.NaN;
  hiAgree = Number.NaN;
  private below: ArrayLike<number> = [];
  private above: ArrayLike<number> = [];
  private base = 0;
  private knots: Float64Array = new Float64Array(0);
  private sorted: ArrayLike<number> = [];
  private count = 0;
  /** The network's calibrated z at y (as the scoring computes it). */
  readonly zAt = (y: number): number => calibratedZ(spreadScore(y, this.forecast, this.below, this.above, this.base, this.knots), this.sorted, 0, this.count);

  /** Points the instance at one detection point (forecast f, interval [lo, hi] at q, spread at `base`, calibration `sorted[0, count)`). */
  at(f: number, lo: number, hi: number, below: ArrayLike<number>, above: ArrayLike<number>, base: number, knots: Float64Array, sorted: ArrayLike<number>, count: number, q: number): this {
    this.forecast = f;
    this.lo = lo;
    this.hi = hi;
    this.below = below;
    this.above = above;
    this.base = base;
    this.knots = knots;
    this.sorted = sorted;
    this.count = count;
    if (q > JUDGES_AGREE_Z) {
      const agree = conformalMultiplier(sorted, 0, count, 99);
      this.loAgree = Math.max(f - spreadHalfWidth(below, base, knots, agree), -Number.MAX_VALUE);
      this.hiAgree = Math.min(f + spreadHalfWidth(above, base, knots, agree), Number.MAX_VALUE);
    }
    return this;
  }
}

const networkAtPoint = new NetworkAtPoint();

/** Work buffer of {@link judgePoint}'s bounds. */
const judgedBounds = new Float64Array(2);

/**
 * The daily judge in the network's place (where the weekly judge speaks), as `judgedInterval` reads its first
 * judge: z = (y − centre)/σ, its intervals at q and at τ, centred on `forecast` = its centre. One instance.
 */
class DailyAtPoint {
  forecast = 0;
  lo = 0;
  hi = 0;
  loAgree = 0;
  hiAgree = 0;
  private sd = 1;
  readonly zAt = (y: number): number => (y - this.forecast) / this.sd;

  at(centre: number, sd: number, q: number): this {
    this.forecast = centre;
    this.sd = sd;
    this.lo = centre - q * sd;
    this.hi = centre + q * sd;
    this.loAgree = centre - JUDGES_AGREE_Z * sd;
    this.hiAgree = centre + JUDGES_AGREE_Z * sd;
    return this;
  }
}

const dailyAtPoint = new DailyAtPoint();

/**
 * The judges beside the network at detection point j, where they speak: the seasonal judges (`judgePoint`), then the
 * range judge (`rangePoint`). The network's side of the point (its forecast `f`, spread at `base`, calibration
 * `sorted[0, count)`) is read through `networkAtPoint`.
 */
function secondOpinions(
  j: number,
  value: number,
  f: number,
  below: ArrayLike<number>,
  above: ArrayLike<number>,
  base: number,
  knots: Float64Array,
  sorted: ArrayLike<number>,
  count: number,
  judging: Judging | undefined,
  ranging: Ranging | undefined,
  out: { z: Float64Array; lo: Float64Array; hi: Float64Array },
): void {
  const judged = judging !== undefined && (judging.sd[j] as number) > 0;
  const ranged = ranging !== undefined && (ranging.scale[j] as number) > 0;
  if (!judged && !ranged) return;
  // (q 0 where only the range judge speaks: the network's bounds at the judges' agreement level are not needed)
  networkAtPoint.at(f, out.lo[j]!, out.hi[j]!, below, above, base, knots, sorted, count, judged ? judging!.q : 0);
  if (judged) judgePoint(j, value, judging!, out);
  if (ranged) rangePoint(j, value, f, judged ? judging : undefined, ranging!, out);
}

/**
 * Detection point j judged by the network (`networkAtPoint`, set to the point) and the seasonal judge (both must
 * agree), or, where the weekly judge speaks, by the daily and the weekly judge (both must agree): its z and interval
 * become the combination's (`combineJudges`, `judgedInterval`).
 */
function judgePoint(j: number, value: number, judge: Judging, out: { z: Float64Array; lo: Float64Array; hi: Float64Array }): void {
  out.z[j] = judgedAt(judge, j, value, out.z[j]!);
  const centre = judge.centre[j] as number;
  const sd = judge.sd[j] as number;
  if (!secondSpeaks(judge, j)) {
    judgedInterval(networkAtPoint.zAt, networkAtPoint, centre, sd, judge.q, judgedBounds);
  } else {
    // the weekly judge speaks and takes the network's place (its context cannot see a week): daily and weekly must agree
    judgedInterval(dailyAtPoint.zAt, dailyAtPoint.at(centre, sd, judge.q), judge.second!.centre[j] as number, judge.second!.sd[j] as number, judge.q, judgedBounds);
  }
  out.lo[j] = judgedBounds[0]!;
  out.hi[j] = judgedBounds[1]!;
}

/** The range judge's opinion of each detection point (`rangeOpinion`), with the level's multiplier q. */
interface Ranging {
  readonly centre: Float64Array;
  readonly scale: Float64Array;
  readonly q: number;
}

/** The range judge's z of value y at detection point j: (y − median) / (IQR / 1.349). */
function rangeZ(ranging: Ranging, j: number, y: number): number {
  return (y - (ranging.centre[j] as number)) / (ranging.scale[j] as number);
}

/**
 * The judgement of one detection point before the range judge, as a z at any y: the network's, or the seasonal
 * judges' combination with it (`judgedZ`), as `judgePoint` made it. One instance (judging allocates nothing per point).
 */
class JudgedAtPoint {
  /** The seasonal judges, where they spoke at this point (else undefined: the network alone). */
  private judging: Judging | undefined = undefined;
  private j = 0;
  /** Where the second seasonal judge speaks: the network's z is not read. */
  private abstains = false;
  /** Where this judgement's z is 0 (inside its interval): the network's forecast, or the daily judge's centre where two seasonal judges decide. */
  inside = 0;
  private ranging: Ranging | undefined = undefined;
  /** The z before the range judge at y. */
  readonly zAt = (y: number): number => judgedAt(this.judging, this.j, y, this.abstains ? Number.NaN : networkAtPoint.zAt(y));
  /** |score| − q at y, the score raised by the range judge (nondecreasing away from `inside`). */
  readonly excess = (y: number): number => Math.abs(rangeBoost(this.zAt(y), rangeZ(this.ranging!, this.j, y))) - this.ranging!.q;

  /** Points the instance at detection point j (forecast f; `judging` only where the seasonal judges spoke there). */
  at(f: number, judging: Judging | undefined, j: number, ranging: Ranging): this {
    this.judging = judging;
    this.j = j;
    this.abstains = judging !== undefined && secondSpeaks(judging, j);
    this.inside = this.abstains ? (judging!.centre[j] as number) : f;
    this.ranging = ranging;
    return this;
  }
}

const judgedAtPoint = new JudgedAtPoint();

/**
 * Detection point j heard by the range judge (its scale > 0), after the seasonal judges (`judging`, where they spoke;
 * `networkAtPoint` set to the point): its score raised by `rangeBoost`, and each bound of its interval moved in to
 * the last value whose raised score is at most q, where the range judge makes the bound's value an anomaly (so
 * |score| > q exactly when the value lies outside the interval, as before).
 */
function rangePoint(j: number, value: number, f: number, judging: Judging | undefined, ranging: Ranging, out: { z: Float64Array; lo: Float64Array; hi: Float64Array }): void {
  out.z[j] = rangeBoost(out.z[j]!, rangeZ(ranging, j, value));
  const point = judgedAtPoint.at(f, judging, j, ranging);
  const hi = out.hi[j]!;
  const lo = out.lo[j]!;
  if (point.excess(hi) > 0) out.hi[j] = lastInside(point.excess, point.inside, point.inside, hi, 1);
  if (point.excess(lo) > 0) out.lo[j] = lastInside(point.excess, point.inside, point.inside, lo, -1);
}

/** First index in `sorted[0, count)` whose value is >= v. */
function lowerBound(sorted: Float64Array, count: number, v: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Univariate anomaly flags: a point is anomalous when |z| exceeds the two-sided
 * normal quantile of the level, q = Φ⁻¹(0.5 + level/200).
 *
 * With the calibrated z of {@link seriesCalibratedScores} this is the same as
 * "y lies outside the level's calibrated interval", the interval the result
 * reports; z = 0 is never flagged.
 *
 * Cost: O(n).
 *
 * @param zScores - Signed z-scores.
 * @param level - Level in percent, finite, 0 <= level < 100.
 * @returns 1 where |z| > q, else 0.
 * @throws RangeError when the level is out of range.
 *
 * @example
 * ```ts
 * Array.from(univariateAnomalyFlags([0.5, -3, 2.6, 2.5], 99)); // q(99) = 2.5758…
 * // => [0, 1, 1, 0]
 * ```
 * @category Anomaly detection
 */
export function univariateAnomalyFlags(zScores: ArrayLike<number>, level: number): Uint8Array {
  const q = gaussianMultiplier(level);
  const flags = new Uint8Array(zScores.length);
  for (let r = 0; r < zScores.length; r++) flags[r] = Math.abs(zScores[r] as number) > q ? 1 : 0;
  return flags;
}

/**
 * Multivariate accumulated anomaly score: at each time step, the sum over
 * series of the squared z-scores, A_t = Σᵢ zᵢ,ₜ².
 *
 * Method: per step the squares are sorted ascending and added with a
 * compensated sum, so A does not depend on the order of the series (a
 * permutation of the series gives the same bits).
 *
 * Cost: O(steps · n log n) for n series; one work buffer of n values.
 *
 * @param zScores - Series-major z-scores: `zScores[i · steps + t]` is series i at step t.
 * @param seriesCount - Number of series n (>= 1).
 * @param steps - Number of time steps per series (>= 0).
 * @returns A, one value per step.
 * @throws RangeError when `zScores.length !== seriesCount · steps`.
 *
 * @example
 * ```ts
 * Array.from(multivariateAccumulatedScores([1, 2, 3, 4], 2, 2)); // [1² + 3², 2² + 4²]
 * // => [10, 20]
 * ```
 * @category Anomaly detection
 */
export function multivariateAccumulatedScores(zScores: ArrayLike<number>, seriesCount: number, steps: number): Float64Array {
  if (!Number.isInteger(seriesCount) || seriesCount < 1 || !Number.isInteger(steps) || steps < 0) {
    throw new RangeError(`multivariateAccumulatedScores: seriesCount must be an integer >= 1 and steps >= 0`);
  }
  if (zScores.length !== seriesCount * steps) {
    throw new RangeError(`multivariateAccumulatedScores: expected ${seriesCount} × ${steps} z-scores, got ${zScores.length}`);
  }
  const squares = new Float64Array(seriesCount);
  const result = new Float64Array(steps);
  for (let t = 0; t < steps; t++) {
    for (let i = 0; i < seriesCount; i++) {
      const z = zScores[i * steps + t] as number;
      squares[i] = z * z;
    }
    squares.sort();
    result[t] = compensatedSum(squares);
  }
  return result;
}

/**
 * The multivariate threshold: the chi-square quantile at level/100 with as many
 * degrees of freedom as series. A step is anomalous when its accumulated score
 * exceeds it.
 *
 * Reasoning: for independent standard normal z-scores, Σ z² over n series is
 * χ²(n)-distributed, so the quantile bounds it with probability level/100.
 *
 * Method: closed forms where they exist, for full precision: one series gives
 * q² with q the two-sided normal quantile ({@link gaussianMultiplier}), two
 * series give −2·ln(1 − level/100); more series use `chiSquareQuantile`.
 *
 * Cost: O(1) for one or two series, else O(√n) (see `chiSquareQuantile`).
 *
 * @param level - Level in percent, finite, 0 <= level < 100.
 * @param seriesCount - Number of series (integer >= 1), the degrees of freedom.
 * @returns The threshold (0 for level 0).
 * @throws RangeError when the level or series count is out of range.
 *
 * @example
 * ```ts
 * multivariateThreshold(99, 2); // R: qchisq(0.99, 2)
 * // => 9.21034037197618
 * ```
 * @category Anomaly detection
 */
export function multivariateThreshold(level: number, seriesCount: number): number {
  const q = gaussianMultiplier(level); // also validates the level
  if (!Number.isInteger(seriesCount) || seriesCount < 1) {
    throw new RangeError(`multivariateThreshold: seriesCount must be an integer >= 1, got ${String(seriesCount)}`);
  }
  if (seriesCount === 1) return q * q;
  if (seriesCount === 2) return -2 * Math.log1p(-level / 100);
  return chiSquareQuantile(level / 100, seriesCount);
}

/**
 * The seed's rule: whether the detection window is left out of everything
 * that judges it (the calibration of its points, the seasonal judges'
 * periods, differences and centres): when at least 6 · detectionSize
 * forecast points precede it. With fewer, the window's own values may enter.
 *
 * @param outside - Forecast points before the detection window.
 * @param detectionSize - Points of the detection window.
 *
 * @example
 * ```ts
 * windowLeftOut(30, 5); // => true
 * windowLeftOut(336, 100); // a long window: fewer than 600 precede it
 * // => false
 * ```
 * @category Anomaly detection
 */
export function windowLeftOut(outside: number, detectionSize: number): boolean {
  return outside >= 6 * detectionSize;
}

/**
 * Where the calibration points of online anomaly detection end: the forecast
 * points before the detection window when at least
 * {@link anomalyCalibrationSize}(detection_size) of them exist
 * (`n − detectionSize`), else every forecast point (`n`). The exogenous fit of
 * the anomaly pipeline uses the same points.
 *
 * @param outside - Forecast points before the detection window.
 * @param detectionSize - Points of the detection window.
 * @param n - Points of the series.
 * @returns The end (exclusive) of the calibration points.
 *
 * @example
 * ```ts
 * calibrationFitEnd(30, 5, 100); // => 95
 * calibrationFitEnd(29, 5, 100); // => 100
 * ```
 * @category Anomaly detection
 */
export function calibrationFitEnd(outside: number, detectionSize: number, n: number): number {
  return outside >= anomalyCalibrationSize(detectionSize) ? n - detectionSize : n;
}
