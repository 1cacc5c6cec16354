/**
 * The seasonal judges of online anomaly detection: a second opinion on each
 * detection point, from the point's difference with the same point one
 * season earlier, and the rule that combines two judges (a point is an
 * anomaly when both find it outside their interval, on the same side; once
 * both reject it at 99 %, its score is their average). The two judges are
 * the network and the seasonal judge; for hourly data with a week of
 * differences, the same hour a day and a week earlier.
 * @module
 */
import { gaussianMultiplier } from "../intervals/index.js";
import { momentsKernel, type MomentsKernel } from "./kernel/moments.js";
import { selectOrderStatistics } from "../stats/index.js";

/**
 * Seasonal differences the seasonal judge compares a point's with: the 168
 * before it (a week of hourly data, as the monitoring baseline uses). In
 * detection a judge speaks only with all of them. Measured on the
 * injected-anomaly evaluation of M1 (docs/anomaly-eval.md, h 1, level 99):
 * letting a judge speak from 48 differences on made the judges speak on
 * most M1 series and cut spike / level-shift / variance-change recall to
 * 54.6 / 37.1 / 39.0 % (all 168: 62.6 / 43.3 / 50.4 %).
 * @category Anomaly detection
 */
export const SEASONAL_JUDGE_WINDOW = 168;

/**
 * Relative floor of a judge's σ: σ is at least this times the larger of
 * |y(t − m)| (the level judge: |μ|) and |y| at the last value it reads, so
 * a noise-free season (all differences equal up to rounding) is judged
 * certain, not by rounding noise.
 * @category Anomaly detection
 */
export const SEASONAL_JUDGE_SD_FLOOR = 1e-9;

/**
 * The lag at which point t is compared with its season m when the values
 * from `windowStart` on may not be read (the detection window: its values
 * touch neither its own intervals nor its threshold): m before the window,
 * and inside it the smallest multiple of m that reaches back before it, so
 * every point of the window is compared with the same phase of the last
 * season before the window.
 *
 * @example
 * ```ts
 * judgeLag(100, 24, 200); // before the window
 * // => 24
 * judgeLag(230, 24, 200); // 30 points into the window: two seasons back, to 182
 * // => 48
 * ```
 * @category Anomaly detection
 */
export function judgeLag(t: number, m: number, windowStart: number): number {
  return t < windowStart ? m : m * Math.ceil((t - windowStart + 1) / m);
}

/**
 * The seasonal judge of point t of one series: r(t) = y(t) − y(t − m) against
 * the mean μ and standard deviation σ of the `window` differences
 * y(k) − y(k − m) for k in [end − window, end) (by default the
 * {@link SEASONAL_JUDGE_WINDOW} before t), z_s = (r(t) − μ) / σ, and its
 * interval at multiplier q: y(t − m) + μ ± q·σ. σ is at least
 * {@link SEASONAL_JUDGE_SD_FLOOR} times the magnitude of the values
 * compared, so a noise-free season scores 0 where it repeats.
 *
 * The mean takes a trend out (a trend makes every seasonal difference about
 * m × slope); σ is the plain standard deviation, not a robust one, on
 * purpose: an anomaly one season earlier widens it, so the echo of that
 * anomaly in r(t) is not judged an anomaly (on the monitoring benchmark a
 * robust scale ranked anomalies far worse: docs/monitoring-experiments.md).
 *
 * Writes [z_s, lo, hi, centre, σ] to `out` (the last two when it has room
 * for them) and returns true when the judge can speak: end − window ≥ m,
 * t ≥ m and σ > 0 (only an all-zero history has σ = 0); otherwise returns
 * false and leaves `out`.
 *
 * Cost: O(window), no allocation.
 *
 * @param y - One series' values (finite).
 * @param t - The point judged.
 * @param m - Season length (≥ 1; 1 compares with the point before).
 * @param q - The level's multiplier Φ⁻¹(0.5 + level/200).
 * @param out - Receives z_s, lo, hi (and centre y(t − m) + μ and σ when it has 5 values).
 * @param window - How many differences (default {@link SEASONAL_JUDGE_WINDOW}).
 * @param end - One past the last difference (default t: the differences just before t).
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 200 }, (_, t) => 10 + (t % 2)); // season 2, differences all 0 ...
 * y[199] = 20; // ... but the last
 * const out = new Float64Array(3);
 * seasonalJudge(y, 199, 2, 2.576, out, 20); // σ = 0 but for the floor: the judge is certain
 * // => true
 * out[0] > 1e6;
 * // => true
 * y[150] = 12; // one earlier difference of 2 (and −2 two points later): σ = 0.37
 * seasonalJudge(y, 199, 2, 2.576, out, 60);
 * // => true
 * out[0] > 20; // the jump of 9 is far outside what the last 60 differences show
 * // => true
 * ```
 * @category Anomaly detection
 */
export function seasonalJudge(y: Float64Array, t: number, m: number, q: number, out: Float64Array, window: number = SEASONAL_JUDGE_WINDOW, end: number = t): boolean {
  if (end - window < m || t - m < 0 || t >= y.length || end > y.length || window < 2) return false;
  return judgeDifferences(y, t, m, q, out, window, end);
}

/**
 * Both judges: y(t) − ref(t) against the mean and sd of y(k) − ref(k) for k in [end − window, end),
 * ref(k) = y(k − lag) (a season back) or 0 (lag 0: the values themselves). Writes [z, lo, hi, centre, σ].
 */
function judgeDifferences(y: Float64Array, t: number, lag: number, q: number, out: Float64Array, window: number, end: number): boolean {
  // One loop per case (lag 0 reads the values themselves: v − 0 is v, bit for bit), so the loops carry no branch.
  if (lag === 0) {
    windowMoments(y, end - window, end);
    return judgeFromMoments(y, t, lag, q, out, window, end, MOMENTS[0]!, MOMENTS[1]!);
  }
  let mean = 0;
  for (let k = end - window; k < end; k++) mean += (y[k] as number) - (y[k - lag] as number);
  mean /= window;
  let squares = 0;
  for (let k = end - window; k < end; k++) {
    const d = (y[k] as number) - (y[k - lag] as number) - mean;
    squares += d * d;
  }
  return judgeFromMoments(y, t, lag, q, out, window, end, mean, squares);
}

/** [mean, sum of squared deviations] of the last {@link windowMoments} call. */
const MOMENTS = new Float64Array(2);

/** The mean of d[from .. end) and the sum of its squared deviations from it, into {@link MOMENTS} (two passes, in index order). */
function windowMoments(d: Float64Array, from: number, end: number): void {
  let mean = 0;
  for (let k = from; k < end; k++) mean += d[k] as number;
  mean /= end - from;
  let squares = 0;
  for (let k = from; k < end; k++) {
    const e = (d[k] as number) - mean;
    squares += e * e;
  }
  MOMENTS[0] = mean;
  MOMENTS[1] = squares;
}

/** The rest of {@link judgeDifferences} once the window's mean and sum of squared deviations are known. */
function judgeFromMoments(y: Float64Array, t: number, lag: number, q: number, out: Float64Array, window: number, end: number, mean: number, squares: number): boolean {
  // the floor's magnitude: the value the point is compared with and the last value read (O(1), not a scan of the window)
  const largest = Math.max(Math.abs(lag > 0 ? (y[t - lag] as number) : mean), Math.abs(y[end - 1] as number));
  const sd = Math.max(Math.sqrt(squares / (window - 1)), SEASONAL_JUDGE_SD_FLOOR * largest);
  if (!(sd > 0) || !Number.isFinite(sd)) return false;
  const centre = (lag > 0 ? (y[t - lag] as number) : 0) + mean;
  out[0] = ((y[t] as number) - centre) / sd;
  out[1] = centre - q * sd;
  out[2] = centre + q * sd;
  if (out.length >= 5) {
    out[3] = centre;
    out[4] = sd;
  }
  return true;
}

/** How many windows {@link JudgeWindows} sums side by side in TypeScript. */
const WINDOWS_AT_ONCE = 4;

/** Most windows one call of the WebAssembly kernel sums (the ends from the first one asked for on, up to the last end). */
const KERNEL_WINDOWS = 2048;

/**
 * Which implementation sums the windows of {@link JudgeWindows}.
 * @category Anomaly detection
 */
export type JudgeWindowsKind = "wasm-simd" | "js";

/**
 * The judges of many points of one series: {@link seasonalJudge} (lag > 0)
 * and {@link levelJudge} (lag 0) with the same bits, but the window sums of
 * one lag are kept per window end and computed many ends at a time
 * (independent sums side by side, each in the order of `judgeDifferences`),
 * so that consecutive points, whose windows differ by one value, do not each
 * wait on a long chain of additions, and points that share a window (a
 * detection window read against the history before it) share its sums.
 * `"wasm-simd"` (the default, where the runtime has it) sums every window
 * from the first end asked for to the last end in one call of a WebAssembly
 * kernel, eight windows side by side; `"js"` sums {@link WINDOWS_AT_ONCE}
 * ends at a time. The same bits either way.
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 400 }, (_, t) => 10 + Math.sin(t) + (t % 7) / 3);
 * const judges = new JudgeWindows(400);
 * judges.start(y, 400);
 * const a = new Float64Array(5), b = new Float64Array(5);
 * judges.judge(300, 24, 2.576, a, 168, 300) === seasonalJudge(y, 300, 24, 2.576, b, 168, 300); // => true
 * Array.from(a).join() === Array.from(b).join(); // => true
 * ```
 * @category Anomaly detection
 */
export class JudgeWindows {
  private y: Float64Array = new Float64Array(0);
  private lastEnd = 0;
  private readonly capacity: number;
  private readonly lags = new Map<number, LagWindows>();
  private series = 0;
  private readonly kernel: MomentsKernel | null;

  /**
   * @param capacity - The longest series to be judged.
   * @param kind - The implementation (default `"wasm-simd"`, which falls back to `"js"`).
   */
  constructor(capacity: number, kind: JudgeWindowsKind = "wasm-simd") {
    this.capacity = capacity;
    this.kernel = kind === "wasm-simd" ? momentsKernel() : null;
  }

  /** Starts the judging of one series `y`; no window will end after `lastEnd`. */
  start(y: Float64Array, lastEnd: number): void {
    if (y.length > this.capacity) throw new RangeError(`JudgeWindows: a series of ${y.length} values exceeds the capacity ${this.capacity}`);
    this.y = y;
    this.lastEnd = Math.min(lastEnd, y.length);
    this.series++;
  }

  /**
   * `seasonalJudge(y, t, lag, q, out, window, end)` for lag > 0, `levelJudge(y, t, q, out, window, end)`
   * for lag 0: the same return value and the same values in `out`.
   */
  judge(t: number, lag: number, q: number, out: Float64Array, window: number, end: number): boolean {
    const y = this.y;
    if (lag > 0 ? end - window < lag || t - lag < 0 : end - window < 0 || t < end) return false;
    if (t >= y.length || end > y.length || window < 2) return false;
    if (end > this.lastEnd) return judgeDifferences(y, t, lag, q, out, window, end);
    let windows = this.lags.get(lag);
    if (windows === undefined) {
      windows = new LagWindows(this.capacity);
      this.lags.set(lag, windows);
    }
    if (windows.series !== this.series || windows.window !== window) windows.start(y, lag, window, this.series);
    if (windows.known[end] !== 1) windows.fill(end, this.lastEnd, this.kernel);
    return judgeFromMoments(y, t, lag, q, out, window, end, windows.mean[end]!, windows.squares[end]!);
  }
}

/** Window sums of one lag of one series (see {@link JudgeWindows}). */
class LagWindows {
  series = -1;
  window = 0;
  /** The differences y(k) − y(k − lag) (lag 0: y(k)), as judgeDifferences computes them. */
  private readonly d: Float64Array;
  readonly mean: Float64Array;
  readonly squares: Float64Array;
  readonly known: Uint8Array;

  constructor(capacity: number) {
    this.d = new Float64Array(capacity);
    this.mean = new Float64Array(capacity + 1);
    this.squares = new Float64Array(capacity + 1);
    this.known = new Uint8Array(capacity + 1);
  }

  start(y: Float64Array, lag: number, window: number, series: number): void {
    this.series = series;
    this.window = window;
    this.known.fill(0);
    const d = this.d;
    if (lag > 0) for (let k = lag; k < y.length; k++) d[k] = (y[k] as number) - (y[k - lag] as number);
    else d.set(y);
  }

  /**
   * The mean and squares of the windows ending at end, end + 1, … (none after lastEnd): with the kernel up to
   * KERNEL_WINDOWS of them, else up to WINDOWS_AT_ONCE.
   */
  fill(end: number, lastEnd: number, kernel: MomentsKernel | null): void {
    const { d, window, mean, squares, known } = this;
    if (kernel !== null) {
      const count = Math.min(lastEnd - end + 1, KERNEL_WINDOWS);
      kernel.moments(d, end, window, count, mean, squares);
      known.fill(1, end, end + count);
      return;
    }
    const from = end - window;
    if (lastEnd - end + 1 >= WINDOWS_AT_ONCE) {
      let m0 = 0;
      let m1 = 0;
      let m2 = 0;
      let m3 = 0;
      for (let k = from; k < end; k++) {
        m0 += d[k] as number;
        m1 += d[k + 1] as number;
        m2 += d[k + 2] as number;
        m3 += d[k + 3] as number;
      }
      m0 /= window;
      m1 /= window;
      m2 /= window;
      m3 /= window;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = from; k < end; k++) {
        const e0 = (d[k] as number) - m0;
        const e1 = (d[k + 1] as number) - m1;
        const e2 = (d[k + 2] as number) - m2;
        const e3 = (d[k + 3] as number) - m3;
        s0 += e0 * e0;
        s1 += e1 * e1;
        s2 += e2 * e2;
        s3 += e3 * e3;
      }
      mean[end] = m0;
      mean[end + 1] = m1;
      mean[end + 2] = m2;
      mean[end + 3] = m3;
      squares[end] = s0;
      squares[end + 1] = s1;
      squares[end + 2] = s2;
      squares[end + 3] = s3;
      known.fill(1, end, end + WINDOWS_AT_ONCE);
      return;
    }
    windowMoments(d, from, end);
    mean[end] = MOMENTS[0]!;
    squares[end] = MOMENTS[1]!;
    known[end] = 1;
  }
}

/**
 * The level judge of point t of one series, for a series without a season:
 * y(t) against the mean μ and standard deviation σ of the `window` values
 * y(k), k in [end − window, end): z = (y(t) − μ)/σ, interval μ ± q·σ (NAB's
 * windowed Gaussian). σ has the floor of {@link seasonalJudge}.
 *
 * Writes [z, lo, hi, μ, σ] to `out` (the last two when it has room for them)
 * and returns true when it can speak: end − window ≥ 0, t ≥ end and σ > 0.
 *
 * Cost: O(window), no allocation.
 *
 * @param y - One series' values (finite).
 * @param t - The point judged.
 * @param q - The level's multiplier.
 * @param out - Receives z, lo, hi (and μ, σ when it has 5 values).
 * @param window - How many values (default {@link SEASONAL_JUDGE_WINDOW}).
 * @param end - One past the last value read (default t).
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 200 }, (_, t) => 10 + (t % 2)); // mean 10.5, sd 0.5
 * y[199] = 20;
 * const out = new Float64Array(3);
 * levelJudge(y, 199, 2.576, out, 100);
 * // => true
 * out[0]!.toFixed(1); // (20 − 10.5) / 0.5025
 * // => '18.9'
 * ```
 * @category Anomaly detection
 */
export function levelJudge(y: Float64Array, t: number, q: number, out: Float64Array, window: number = SEASONAL_JUDGE_WINDOW, end: number = t): boolean {
  if (end - window < 0 || t < end || t >= y.length || end > y.length || window < 2) return false;
  return judgeDifferences(y, t, 0, q, out, window, end);
}

/**
 * Fewest values {@link judgesOnLogScale} reads before it can say the spread
 * follows the level: 21 values, 20 changes, about 10 on each side of the
 * median level.
 * @category Anomaly detection
 */
export const LOG_SCALE_MIN_POINTS = 21;

/**
 * Least spread ratio (changes at high levels over changes at low levels, see
 * {@link judgesOnLogScale}) at which a series' spread is said to grow with
 * its level: half as much again.
 * @category Anomaly detection
 */
export const LOG_SCALE_MIN_RATIO = 1.5;

/**
 * Whether the judges of a series read it on the log scale: true when its
 * values are all above 0 and its spread follows its level, i.e. its
 * one-step changes are more even on the log scale than on its own.
 *
 * Method: over the first `end` values, each change y(t) − y(t − 1) is put
 * on the high or the low side by its level y(t − 1) against the median
 * level; the spread ratio is the root mean square of the high side's
 * changes over the low side's. The series is read on the log scale when the
 * ratio of the log changes is nearer 1 (|log ratio| smaller) than that of
 * the changes themselves: a metric whose noise grows with its level (a
 * request rate busy by day, quiet by night) is judged by relative
 * differences, so its quiet hours are not judged by its busy hours' spread.
 * False with any value at or below 0 (or missing), with fewer than
 * {@link LOG_SCALE_MIN_POINTS} values, or when a side has no change.
 * Multiplying the series by a positive constant never changes the answer.
 *
 * @param y - One series' values.
 * @param end - How many of its first values to read (the history before the detection window).
 *
 * @example
 * ```ts
 * const day = (t: number) => Math.sin((2 * Math.PI * t) / 24);
 * // busy by day (11 times the night's level), cycle and noise (±5 %) proportional to the level
 * const multiplicative = Float64Array.from({ length: 240 }, (_, t) => 100 * Math.exp(1.2 * day(t)) * (1 + 0.05 * Math.sin(t * 2.7)));
 * judgesOnLogScale(multiplicative, 240);
 * // => true
 * // the same range as a sine of 500 ± 400 with noise of ±50 whatever the level
 * const additive = Float64Array.from({ length: 240 }, (_, t) => 500 + 400 * day(t) + 50 * Math.sin(t * 2.7));
 * judgesOnLogScale(additive, 240);
 * // => false
 * ```
 * @category Anomaly detection
 */
export function judgesOnLogScale(y: ArrayLike<number>, end: number): boolean {
  if (end < LOG_SCALE_MIN_POINTS || end > y.length) return false;
  for (let t = 0; t < end; t++) if (!((y[t] as number) > 0)) return false;
  const levels = new Float64Array(end - 1);
  for (let t = 0; t + 1 < end; t++) levels[t] = y[t] as number;
  const middle = levels.length >> 1;
  selectOrderStatistics(levels, [middle]);
  const median = levels[middle] as number;
  const linear = changeSpreadRatio(y, end, median, false);
  return linear >= LOG_SCALE_MIN_RATIO && Math.abs(Math.log(changeSpreadRatio(y, end, median, true))) < Math.log(linear);
}

/**
 * Root mean square of the changes whose level is above `median` over that of the others (of log values with `log`:
 * each value's log taken once); 1 when a side has none or only zeros.
 */
function changeSpreadRatio(y: ArrayLike<number>, end: number, median: number, log: boolean): number {
  let high = 0;
  let highCount = 0;
  let low = 0;
  let lowCount = 0;
  let before = y[0] as number;
  let from = log ? Math.log(before) : before;
  for (let t = 1; t < end; t++) {
    const now = y[t] as number;
    const to = log ? Math.log(now) : now;
    const d = to - from;
    if (before > median) {
      high += d * d;
      highCount++;
    } else {
      low += d * d;
      lowCount++;
    }
    before = now;
    from = to;
  }
  if (highCount === 0 || lowCount === 0 || high === 0 || low === 0) return 1;
  return Math.sqrt(high / highCount / (low / lowCount));
}

/**
 * Where the two judges' agreement turns into their average:
 * Φ⁻¹(0.995) = 2.5758…, the multiplier of level 99 (see {@link combineJudges}).
 * @category Anomaly detection
 */
export const JUDGES_AGREE_Z = gaussianMultiplier(99);

/**
 * The combined z of a point whose network z is `zNetwork` and whose
 * seasonal z is `zSeasonal`: both judges must agree, and once both reject
 * the point at level 99 its score is their average.
 *
 * With m = min(|z_network|, |z_seasonal|): when the two have one sign,
 * z = sign · m if m <= τ, else sign · (|z_network| + |z_seasonal|)/2, with
 * τ = {@link JUDGES_AGREE_Z} = Φ⁻¹(0.995); when their signs differ (or one
 * is 0), z = 0.
 *
 * Why: a point is flagged at level L only when both judges put it outside
 * their level-L intervals on the same side (for L <= 99, |z| > q exactly
 * when m > q), which normal points rarely do; but ranking by the smaller z
 * understates a point one judge finds extreme. Above τ the score is the
 * average, which ranked anomalies best on the monitoring benchmark
 * (docs/monitoring-experiments.md). z is nondecreasing in each |z| on each
 * side, so "outside the interval" stays one threshold on |z| (see
 * {@link judgedInterval}).
 *
 * Cost: O(1).
 *
 * @param zNetwork - The network's calibrated z (where the weekly judge speaks: the daily judge's z).
 * @param zSeasonal - The seasonal judge's z (where the weekly judge speaks: the weekly judge's z).
 * @returns The combined signed z.
 *
 * @example
 * ```ts
 * combineJudges(4, 2); // both above, not both beyond 2.576: the smaller
 * // => 2
 * combineJudges(4, 3); // both beyond 2.576: the average
 * // => 3.5
 * combineJudges(-4, -6); // both beyond 2.576 below: the average
 * // => -5
 * combineJudges(4, -1); // opposite sides: no evidence
 * // => 0
 * ```
 * @category Anomaly detection
 */
export function combineJudges(zNetwork: number, zSeasonal: number): number {
  const sameSide = (zNetwork > 0 && zSeasonal > 0) || (zNetwork < 0 && zSeasonal < 0);
  if (!sameSide) return 0;
  const a = Math.abs(zNetwork);
  const b = Math.abs(zSeasonal);
  const m = a < b ? a : b;
  return Math.sign(zNetwork) * (m > JUDGES_AGREE_Z ? 0.5 * (a + b) : m);
}

/** Largest number of search steps of {@link judgedInterval} (halving alone needs at most about 1,100 for doubles). */
const BISECTION_STEPS = 2_000;

/**
 * The level-L interval of a point judged by {@link combineJudges}: the y
 * whose combined |z| is at most q = Φ⁻¹(0.5 + L/200). `zNetworkAt(y)` is the
 * network's calibrated z at a value y (nondecreasing in y); the seasonal z
 * is (y − centre)/σ.
 *
 * For q <= τ ({@link JUDGES_AGREE_Z}) it is the hull of the two level-L
 * intervals (|z| > q exactly when both judges put y outside theirs on one
 * side). For q > τ each bound is found by bisection between the hull at τ
 * (inside) and the hull at q (just beyond it: outside), to the last double:
 * `hi` is the largest y above the forecast with combined z <= q, `lo` the
 * smallest below, so |z(y)| > q exactly when y < lo or y > hi.
 *
 * Writes [lo, hi] to `out`.
 *
 * Cost: O(1) for q <= τ; else a few dozen evaluations of `zNetworkAt` per
 * bound (Illinois steps; at most 2 × 2,000).
 *
 * @param zNetworkAt - The network's z at y (where the weekly judge speaks: the daily judge's).
 * @param network - The network's interval at q ([lo, hi]) and at τ ([loAgree, hiAgree], read only when q > τ); `forecast` inside both
 *   (where the weekly judge speaks: the daily judge's intervals and centre).
 * @param centre - The seasonal judge's centre y(t − m) + μ (where the weekly judge speaks: the weekly judge's).
 * @param sd - The seasonal judge's σ (> 0).
 * @param q - The level's multiplier.
 * @param out - Receives lo, hi.
 *
 * @example
 * ```ts
 * // a network judge z = y / 1 and a seasonal judge z = (y − 1) / 2
 * const out = new Float64Array(2);
 * const net = (q: number, agree: number) => ({ forecast: 0, lo: -q, hi: q, loAgree: -agree, hiAgree: agree });
 * judgedInterval((y) => y, net(1.96, JUDGES_AGREE_Z), 1, 2, 1.96, out);
 * Array.from(out); // the hull at 95 %: below both −1.96 and 1 − 2 · 1.96, above both 1.96 and 1 + 2 · 1.96
 * // => [-2.92, 4.92]
 * const q = gaussianMultiplier(99.9);
 * judgedInterval((y) => y, net(q, JUDGES_AGREE_Z), 1, 2, q, out);
 * out[1]!.toFixed(4); // the average passes q = 3.29 only once the seasonal z reaches 2.576: y = 1 + 2 · 2.576
 * // => '6.1517'
 * ```
 * @category Anomaly detection
 */
export function judgedInterval(
  zNetworkAt: (y: number) => number,
  network: { forecast: number; lo: number; hi: number; loAgree: number; hiAgree: number },
  centre: number,
  sd: number,
  q: number,
  out: Float64Array,
): void {
  const loHull = Math.max(Math.min(network.lo, centre - q * sd), -Number.MAX_VALUE);
  const hiHull = Math.min(Math.max(network.hi, centre + q * sd), Number.MAX_VALUE);
  if (q <= JUDGES_AGREE_Z) {
    out[0] = loHull;
    out[1] = hiHull;
    return;
  }
  const excess = (y: number): number => Math.abs(combineJudges(zNetworkAt(y), (y - centre) / sd)) - q;
  // above: from the hull at τ (both judges at most τ there: inside) up to just past the hull at q (outside)
  out[1] = lastInside(excess, network.forecast, Math.max(network.forecast, Math.min(Math.max(network.hiAgree, centre + JUDGES_AGREE_Z * sd), Number.MAX_VALUE)), hiHull, 1);
  out[0] = lastInside(excess, network.forecast, Math.min(network.forecast, Math.max(Math.min(network.loAgree, centre - JUDGES_AGREE_Z * sd), -Number.MAX_VALUE)), loHull, -1);
}

/**
 * The last y from `inside` in `direction` (+1 up, −1 down) where
 * `excess(y)` (nondecreasing away from the forecast) is <= 0, knowing it is
 * > 0 just past `outside`; ±MAX_VALUE when it never is.
 *
 * `inside` is the gate, where both judges reach τ: the combined score jumps
 * there from the smaller z (<= τ) to the average, so when the average is
 * already beyond q just past the gate, the bound is the gate itself (a few
 * ulps are searched). Otherwise the score beyond the gate is the average,
 * continuous but for the calibration's small steps, and Illinois steps
 * (regula falsi with the stale end's value halved; a halving whenever a step
 * gains less than half the bracket) find the bound down to adjacent
 * doubles. Should rounding put `inside` beyond, the search starts from
 * `forecast` (combined z 0) instead. (The range judge's bounds use it too,
 * with `inside` = `forecast`.)
 *
 * @example
 * ```ts
 * lastInside((y) => Math.abs(y) - 2, 0, 0, 3, 1); // |y| ≤ 2 up to 2
 * // => 2
 * ```
 * @category Anomaly detection
 */
export function lastInside(excess: (y: number) => number, forecast: number, inside: number, outside: number, direction: 1 | -1): number {
  const clamp = (y: number): number => Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, y));
  // the bracket: excess(a) <= 0 < excess(b), with their values (fa, fb; halved by Illinois when an end goes stale)
  const bracket = new Bracket(inside, excess(inside), outside, Number.NaN);
  if (bracket.fa > 0) {
    bracket.place(inside, bracket.fa);
    bracket.place(forecast, excess(forecast));
  } else {
    // just past the gate: beyond already (the jump decides), or the start of the smooth part
    const past = clamp(inside + direction * Math.max(Math.abs(inside), Number.MIN_VALUE) * 2 ** -48);
    if (!bracket.place(past, excess(past))) {
      // step past `outside` until it is beyond (one step usually: just past the hull at q both judges exceed q)
      let y = outside;
      for (let step = Math.max(Math.abs(y), 1) * 2 ** -52, i = 0; !bracket.place(y, excess(y)); step *= 2, i++) {
        if (i > 1100 || Math.abs(y) >= Number.MAX_VALUE) return direction * Number.MAX_VALUE;
        y = clamp(y + direction * step);
      }
    }
  }
  let stale = 0; // +1: the last step moved a (b is stale), −1: it moved b
  for (let i = 0; i < BISECTION_STEPS; i++) {
    const { a, b, fa, fb } = bracket;
    const half = a + (b - a) / 2;
    if (half === a || half === b) break;
    const width = Math.abs(b - a);
    let m = Number.isFinite(fa) && Number.isFinite(fb) && fb > fa ? a - (fa * (b - a)) / (fb - fa) : half;
    if (!(direction * (m - a) > 0 && direction * (b - m) > 0)) m = half;
    if (bracket.place(m, excess(m))) {
      if (stale === -1) bracket.fa /= 2;
      stale = -1;
    } else {
      if (stale === 1) bracket.fb /= 2;
      stale = 1;
    }
    if (Math.abs(bracket.b - bracket.a) > 0.5 * width) {
      // the step gained little (a step in the calibration, or the stale end): halve once
      const mid = bracket.a + (bracket.b - bracket.a) / 2;
      if (mid === bracket.a || mid === bracket.b) break;
      bracket.place(mid, excess(mid));
      stale = 0;
    }
  }
  return bracket.a;
}

/** The bracket of {@link lastInside}: `a` inside (excess <= 0), `b` beyond (excess > 0), and their values. */
class Bracket {
  constructor(
    public a: number,
    public fa: number,
    public b: number,
    public fb: number,
  ) {}

  /** Puts y at the end its excess f says (b when f > 0, else a); returns true for b. */
  place(y: number, f: number): boolean {
    if (f > 0) {
      this.b = y;
      this.fb = f;
      return true;
    }
    this.a = y;
    this.fa = f;
    return false;
  }
}
