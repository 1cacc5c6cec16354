/**
 * Exact linear recurrences: a context that follows y_t = c + a_1·y_{t-1} + … + a_p·y_{t-p}
 * to rounding (a noise-free sine, a sine on a ramp, a ramp, geometric growth, a pattern
 * of period ≤ p + 1), or repeats exactly every season (y_t = d + y_{t-m}), is forecast by
 * extending the recurrence, which no learned model does as well. Every other context is
 * left to the network.
 * @module
 */
import type { DistributionTarget, ForecastDistribution, Forecaster } from "../types.js";

/** Highest order p tried (two sinusoids and a level, or a sine on a ramp). */
export const RECURRENCE_MAX_ORDER = 4;

/**
 * Largest residual a recurrence may leave, beyond single-precision rounding: the root
 * mean square of its one-step errors over the context is at most this times the standard
 * deviation of the values it predicts, plus {@link RECURRENCE_ROUNDING} times the largest
 * magnitude times √(1 + Σ a_j²), at most 100 (what rounding every value to float32, as clients that
 * send float32 do, can leave).
 */
export const RECURRENCE_TOLERANCE = 1e-9;

/** Unit roundoff of float32, 2^-24: the rounding {@link RECURRENCE_TOLERANCE} allows on top. */
export const RECURRENCE_ROUNDING = 2 ** -24;

/**
 * Least variation: the values predicted must have a standard deviation of at least this
 * times their largest magnitude (so single-precision rounding, 6e-8 of the magnitude, stays below a 1,600th of it),
 * else no recurrence is looked for.
 */
export const RECURRENCE_MIN_VARIATION = 1e-4;

/** Fewest points a context needs before a recurrence is looked for (16 predicted values past the highest order). */
export const RECURRENCE_MIN_POINTS = 24;

/** Rows of the probe fit: the last values of the context, fitted first (an exact recurrence fits any of its rows). */
const PROBE_ROWS = 16;
const P = RECURRENCE_MAX_ORDER;
const TARGET = P + 1; // the probe's columns: the level (implicit), P lags, the predicted value
/** A lag whose part beyond the level and the lags before it is this small against its centred norm is collinear with them. */
const PIVOT_FLOOR = 1e-10;
/** Most a recurrence's coefficients may amplify the rounding of the values they read (√(1 + Σ a_j²) is capped here). */
const ROUNDING_GAIN_CAP = 100;

/** Work space of {@link findRecurrence}: the probe's columns and factors, and the coefficients found. */
export class RecurrenceFit {
  /** Order found, 0 for none. */
  order = 0;
  /** Period of an exact seasonal repeat found by {@link findSeasonalRepeat} (0: none). */
  period = 0;
  /** Its drift: y_t = drift + y_{t-period}. */
  drift = 0;
  /** c, a_1 … a_p of the recurrence found (the first `order + 1` entries). */
  readonly coefficients = new Float64Array(RECURRENCE_MAX_ORDER + 1);
  /** @internal the probe's lag and target columns (column j at j · PROBE_ROWS), orthogonalised in place. */
  readonly columns = new Float64Array((TARGET + 1) * PROBE_ROWS);
  /** @internal R of the probe's QR ((TARGET + 1)², row-major; row 0 the level's). */
  readonly r = new Float64Array((TARGET + 1) * (TARGET + 1));
  /** @internal what each order leaves of the predicted values (sum of squares, in units of the probe's largest magnitude). */
  readonly residuals = new Float64Array(RECURRENCE_MAX_ORDER + 1);
}

/**
 * Looks for the lowest order p ≤ {@link RECURRENCE_MAX_ORDER} whose least-squares
 * recurrence y_t = c + Σ_j a_j·y_{t-j} predicts every value of `y[from..to)` (from its p
 * values before) to within rounding: the root mean square of the errors is at most
 * {@link RECURRENCE_TOLERANCE} times the standard deviation of the values predicted, plus
 * float32 rounding ({@link RECURRENCE_ROUNDING} · largest magnitude · √(1 + Σ a_j²), that root
 * at most 100). The coefficients are fitted on the last 16 values by a QR factorisation
 * (modified Gram-Schmidt on the lags, the predicted values carried along), which also gives
 * each order's residual; an order that passes there is checked on the whole span. Writes
 * `fit.order` (0 if none, or if the span holds a NaN or Infinity, is shorter than
 * {@link RECURRENCE_MIN_POINTS}, or its last 16 values vary by less than
 * {@link RECURRENCE_MIN_VARIATION} of their largest magnitude) and `fit.coefficients`.
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 60 }, (_, t) => 10 * Math.sin(0.1 * t) + 12);
 * const fit = new RecurrenceFit();
 * findRecurrence(y, 0, 60, fit);
 * fit.order; // => 2
 * Math.abs(fit.coefficients[1]! - 2 * Math.cos(0.1)) < 1e-9; // => true
 * ```
 * @category Network
 */
export function findRecurrence(y: Float64Array, from: number, to: number, fit: RecurrenceFit): void {
  fit.order = 0;
  fit.period = 0;
  if (to - from < RECURRENCE_MIN_POINTS) return;
  const R = PROBE_ROWS;
  const first = to - R; // the first value the probe predicts
  // the probe's values, divided by their largest magnitude (squares neither overflow nor underflow)
  const largest = largestFiniteMagnitude(y, first - P, to);
  if (!(largest > 0)) return;
  const unit = 1 / largest;
  const q = fit.columns;
  const r = fit.r;
  const W = TARGET + 1;
  // the level's step of the QR: centre every column (its part along the constant is √R · its mean)
  const rootR = Math.sqrt(R);
  r[0] = rootR;
  for (let j = 1; j <= TARGET; j++) {
    const back = j === TARGET ? 0 : j;
    let sum = 0;
    for (let i = 0; i < R; i++) {
      const v = y[first + i - back]! * unit;
      q[j * R + i] = v;
      sum += v;
    }
    const mean = sum / R;
    r[j] = rootR * mean;
    for (let i = 0; i < R; i++) q[j * R + i] = q[j * R + i]! - mean;
  }
  const residuals = fit.residuals;
  residuals[0] = sumOfSquares(q, TARGET * R, R);
  if (!(residuals[0] >= R * RECURRENCE_MIN_VARIATION * RECURRENCE_MIN_VARIATION)) return;
  // each lag in turn: its part beyond the level and the lags before it, then that part removed from the later columns
  let orders = 0;
  for (let k = 1; k <= P; k++) {
    const centred = Math.sqrt(sumOfSquares(q, k * R, R)); // before the earlier lags are removed
    for (let m = 1; m < k; m++) {
      const rm = dot(q, m * R, k * R, R);
      r[m * W + k] = rm;
      for (let i = 0; i < R; i++) q[k * R + i] = q[k * R + i]! - rm * q[m * R + i]!;
    }
    const norm = Math.sqrt(sumOfSquares(q, k * R, R));
    if (!(norm > PIVOT_FLOOR * centred)) break;
    r[k * W + k] = norm;
    const inverse = 1 / norm;
    let rt = 0;
    for (let i = 0; i < R; i++) {
      const v = q[k * R + i]! * inverse;
      q[k * R + i] = v;
      rt += v * q[TARGET * R + i]!;
    }
    r[k * W + TARGET] = rt;
    let left = 0;
    for (let i = 0; i < R; i++) {
      const v = q[TARGET * R + i]! - rt * q[k * R + i]!;
      q[TARGET * R + i] = v;
      left += v * v;
    }
    residuals[k] = left;
    orders = k;
  }
  if (orders === 0) return;
  // the highest order leaves the least: if even it is above the most any order may leave, none is a recurrence
  if (residuals[orders]! > R * allowance(Math.sqrt(residuals[0] / R), ROUNDING_GAIN_CAP) ** 2) return;
  const c = fit.coefficients;
  for (let p = 1; p <= orders; p++) {
    // back substitution of the leading (p + 1) × (p + 1) triangle
    for (let k = p; k >= 0; k--) {
      let s = r[k * W + TARGET]!;
      for (let j = k + 1; j <= p; j++) s -= r[k * W + j]! * c[j]!;
      c[k] = s / r[k * W + k]!;
    }
    if (residuals[p]! > R * allowedError(c, p, Math.sqrt(residuals[0] / R)) ** 2) continue;
    c[0] = c[0]! * largest; // the level, back in the data's units
    if (holdsOver(y, from, to, p, c)) {
      fit.order = p;
      return;
    }
  }
}

/** Fewest cycles of a period a context must hold before {@link findSeasonalRepeat} looks for it. */
export const SEASONAL_REPEAT_MIN_CYCLES = 3;

/**
 * Looks for an exact seasonal repeat y_t = d + y_{t-m} (m = `period`, d the mean
 * of the differences) over `y[from..to)`, to within the rounding
 * {@link findRecurrence} allows (its coefficients are 1 and 1): a pattern that
 * repeats every m steps, on a ramp when d ≠ 0. The span must hold
 * {@link SEASONAL_REPEAT_MIN_CYCLES} cycles and {@link RECURRENCE_MIN_POINTS}
 * points, finite values varying by at least {@link RECURRENCE_MIN_VARIATION}
 * of their largest magnitude. Writes `fit.period` (0 if none) and `fit.drift`;
 * `fit.order` is left 0.
 *
 * @example
 * ```ts
 * const square = Float64Array.from({ length: 96 }, (_, t) => (t % 24 < 12 ? 10 : 0));
 * const fit = new RecurrenceFit();
 * findSeasonalRepeat(square, 0, 96, 24, fit);
 * [fit.period, fit.drift]; // => [24, 0]
 * ```
 * @category Network
 */
export function findSeasonalRepeat(y: Float64Array, from: number, to: number, period: number, fit: RecurrenceFit): void {
  fit.order = 0;
  fit.period = 0;
  fit.drift = 0;
  const n = to - from;
  if (!(period >= 2) || n < SEASONAL_REPEAT_MIN_CYCLES * period || n < RECURRENCE_MIN_POINTS) return;
  const largest = largestFiniteMagnitude(y, from, to);
  if (!(largest > 0)) return;
  const count = n - period;
  // quick reject: any two differences d, d' leave at least (d − d')² / 2 whatever the drift, and the
  // allowance is at most its value at a standard deviation of the largest magnitude
  const most = allowance(1, Math.SQRT2) * largest;
  const last = y[to - 1]! - y[to - 1 - period]!;
  const before = y[to - 2]! - y[to - 2 - period]!;
  if ((last - before) ** 2 / 2 > count * most * most) return;
  const unit = 1 / largest;
  let sum = 0;
  let differences = 0;
  for (let t = from + period; t < to; t++) {
    sum += y[t]! * unit;
    differences += (y[t]! - y[t - period]!) * unit;
  }
  const mean = sum / count;
  const drift = differences / count;
  let spread = 0;
  let residual = 0;
  for (let t = from + period; t < to; t++) {
    const e = (y[t]! - y[t - period]!) * unit - drift;
    residual += e * e;
    spread += (y[t]! * unit - mean) ** 2;
  }
  if (!(spread >= count * RECURRENCE_MIN_VARIATION * RECURRENCE_MIN_VARIATION)) return;
  const allowed = allowance(Math.sqrt(spread / count), Math.SQRT2); // the coefficient 1 on y_{t-m}: √(1 + 1)
  if (residual > count * allowed * allowed) return;
  fit.period = period;
  fit.drift = drift * largest;
}

/** Σ a[at + i]² for i < n. */
function sumOfSquares(a: Float64Array, at: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[at + i]! * a[at + i]!;
  return s;
}

/** Σ a[x + i] · a[z + i] for i < n. */
function dot(a: Float64Array, x: number, z: number, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[x + i]! * a[z + i]!;
  return s;
}

/**
 * The root mean square error a recurrence may leave on values of standard deviation `sd` (largest magnitude 1)
 * when its coefficients amplify rounding by `gain` (√(1 + Σ a_j²), at most {@link ROUNDING_GAIN_CAP}).
 */
function allowance(sd: number, gain: number): number {
  return RECURRENCE_TOLERANCE * sd + RECURRENCE_ROUNDING * Math.min(gain, ROUNDING_GAIN_CAP);
}

/** {@link allowance} of the order-p recurrence `c`. */
function allowedError(c: Float64Array, p: number, sd: number): number {
  let squares = 1;
  for (let j = 1; j <= p; j++) squares += c[j]! * c[j]!;
  return allowance(sd, Math.sqrt(squares));
}

/** The largest |y[t]| over [from, to), or NaN if one of them is NaN or ±Infinity. */
function largestFiniteMagnitude(y: Float64Array, from: number, to: number): number {
  let largest = 0;
  for (let t = from; t < to; t++) {
    const v = Math.abs(y[t]!);
    if (!(v <= Number.MAX_VALUE)) return NaN;
    if (v > largest) largest = v;
  }
  return largest;
}

/**
 * Whether the order-p recurrence `c` (its level in the data's units) predicts y[from+p .. to) to within
 * the tolerance, every value of the span finite (computed in units of the span's largest magnitude).
 */
function holdsOver(y: Float64Array, from: number, to: number, p: number, c: Float64Array): boolean {
  const largest = largestFiniteMagnitude(y, from, to);
  if (Number.isNaN(largest)) return false;
  const unit = 1 / largest;
  let sum = 0;
  for (let t = from + p; t < to; t++) sum += y[t]! * unit;
  const count = to - from - p;
  const mean = sum / count;
  const level = c[0]! * unit;
  let spread = 0;
  let residual = 0;
  for (let t = from + p; t < to; t++) {
    let e = y[t]! * unit - level;
    for (let j = 1; j <= p; j++) e -= c[j]! * y[t - j]! * unit;
    residual += e * e;
    spread += (y[t]! * unit - mean) ** 2;
  }
  return residual <= count * allowedError(c, p, Math.sqrt(spread / count)) ** 2;
}

/**
 * Extends the recurrence found in `fit` from the end of `context` by h values into
 * out[at .. at + h). Returns false (out unchanged beyond what it wrote) if a value is not
 * finite.
 */
function extendRecurrence(context: Float64Array, fit: RecurrenceFit, h: number, out: Float64Array, at: number): boolean {
  const p = fit.order;
  const c = fit.coefficients;
  const m = context.length;
  for (let k = 0; k < h; k++) {
    let v: number;
    if (p > 0) {
      v = c[0]!;
      for (let j = 1; j <= p; j++) {
        const back = k - j;
        v += c[j]! * (back >= 0 ? out[at + back]! : context[m + back]!);
      }
    } else {
      const back = k - fit.period;
      v = fit.drift + (back >= 0 ? out[at + back]! : context[m + back]!);
    }
    if (!Number.isFinite(v)) return false;
    out[at + k] = v;
  }
  return true;
}

/**
 * The forecaster `inner` with one change: a context whose last `reach` points (all of
 * it, if shorter) follow an exact linear recurrence ({@link findRecurrence}), or else
 * repeat exactly every `inner.seasonLength` steps ({@link findSeasonalRepeat}), gets the
 * recurrence's extension as its point forecast; its spread stays `inner`'s. Reads no
 * more of a context than `reach`, so `inner`'s `contextReach` still holds.
 *
 * @example
 * ```ts
 * const flat = { name: "flat", seasonLength: 1, forecast: (cs: readonly Float64Array[], h: number) => new Float64Array(cs.length * h) };
 * const f = withRecurrences(flat, 96);
 * Array.from(f.forecast([Float64Array.from({ length: 30 }, (_, t) => 2 * t + 1)], 2), Math.round); // => [61, 63]
 * ```
 * @category Network
 */
export function withRecurrences(inner: Forecaster, reach: number): Forecaster {
  const fit = new RecurrenceFit();
  /** Context i's point forecast at mean[i · stride + offset ..] replaced by its recurrence's extension, where it has one. */
  function overwrite(contexts: readonly Float64Array[], h: number, mean: Float64Array, stride = h, offset = 0): void {
    for (let i = 0; i < contexts.length; i++) {
      const c = contexts[i]!;
      const from = Math.max(0, c.length - reach);
      findRecurrence(c, from, c.length, fit);
      if (fit.order === 0) findSeasonalRepeat(c, from, c.length, inner.seasonLength, fit);
      if (fit.order === 0 && fit.period === 0) continue;
      const at = i * stride + offset;
      const before = mean.slice(at, at + h);
      if (!extendRecurrence(c.subarray(from), fit, h, mean, at)) mean.set(before, at);
    }
  }
  const wrapped: Forecaster = {
    name: inner.name,
    seasonLength: inner.seasonLength,
    forecast(contexts: readonly Float64Array[], h: number): Float64Array {
      const mean = inner.forecast(contexts, h);
      overwrite(contexts, h, mean);
      return mean;
    },
    ...(inner.forecastDistribution === undefined
      ? {}
      : {
          forecastDistribution(contexts: readonly Float64Array[], h: number): ForecastDistribution {
            const dist = inner.forecastDistribution!(contexts, h);
            overwrite(contexts, h, dist.mean);
            return dist;
          },
        }),
    ...(inner.forecastDistributionInto === undefined
      ? {}
      : {
          forecastDistributionInto(contexts: readonly Float64Array[], h: number, into: DistributionTarget): boolean {
            if (!inner.forecastDistributionInto!(contexts, h, into)) return false;
            overwrite(contexts, h, into.mean, into.stride, into.offset);
            return true;
          },
        }),
    ...(inner.contextReach === undefined ? {} : { contextReach: inner.contextReach }),
  };
  return wrapped;
}
