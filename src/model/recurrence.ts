/**
 * Exact linear recurrences: a context that follows y_t = c + a_1·y_{t-1} + … + a_p·y_{t-p}
 * to rounding (a noise-free sine, a sine on a ramp, a ramp, geometric growth, a pattern
 * of period ≤ p + 1) is forecast by extending the recurrence, which no learned model does as
 * well. Every other context is left to the network.
 * @module
 */
import type { ForecastDistribution, Forecaster } from "../types.js";

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
 * times their largest magnitude (so single-precision rounding stays below a 600th of it),
 * else no recurrence is looked for.
 */
export const RECURRENCE_MIN_VARIATION = 1e-4;

/** Fewest points a context needs before a recurrence is looked for (16 predicted values past the highest order). */
export const RECURRENCE_MIN_POINTS = 24;

/** Rows of the probe fit: the last values of the context, fitted first (an exact recurrence fits any of its rows). */
const PROBE_ROWS = 16;
const COLS = RECURRENCE_MAX_ORDER + 2; // the level, p lags, the predicted value
/** A pivot this small against the largest one means the lags are collinear at that order. */
const PIVOT_FLOOR = 1e-10;
/** Most a recurrence's coefficients may amplify the rounding of the values they read (√(1 + Σ a_j²) is capped here). */
const ROUNDING_GAIN_CAP = 100;

/** Work space of {@link findRecurrence}: the probe's matrix and the coefficients found. */
export class RecurrenceFit {
  /** Order found, 0 for none. */
  order = 0;
  /** c, a_1 … a_p of the recurrence found (the first `order + 1` entries). */
  readonly coefficients = new Float64Array(RECURRENCE_MAX_ORDER + 1);
  /** @internal the probe's rows (PROBE_ROWS × COLS, row-major), reduced in place to R. */
  readonly matrix = new Float64Array(PROBE_ROWS * COLS);
}

/**
 * Looks for the lowest order p ≤ {@link RECURRENCE_MAX_ORDER} whose least-squares
 * recurrence y_t = c + Σ_j a_j·y_{t-j} predicts every value of `y[from..to)` (from its p
 * values before) to within rounding: the root mean square of the errors is at most
 * {@link RECURRENCE_TOLERANCE} times the standard deviation of the values predicted, plus
 * float32 rounding ({@link RECURRENCE_ROUNDING} · largest magnitude · √(1 + Σ a_j²), that root
 * at most 100). The
 * coefficients are fitted on the last 16 values by Householder QR, which also gives each
 * order's residual; an order that passes there is checked on the whole span. Writes
 * `fit.order` (0 if none, or if the span holds a NaN or Infinity, is shorter than
 * {@link RECURRENCE_MIN_POINTS}, or its last 16 values vary by less than
 * {@link RECURRENCE_MIN_VARIATION} of its largest magnitude) and `fit.coefficients`.
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
  if (to - from < RECURRENCE_MIN_POINTS) return;
  // values are divided by their largest magnitude, so squares neither overflow nor underflow
  let largest = 0;
  for (let t = from; t < to; t++) {
    if (!Number.isFinite(y[t]!)) return;
    largest = Math.max(largest, Math.abs(y[t]!));
  }
  if (largest === 0) return;
  const unit = 1 / largest;
  const a = fit.matrix;
  const R = PROBE_ROWS;
  const P = RECURRENCE_MAX_ORDER;
  // row r predicts y[t], t = to - R + r: [1, y[t-1], …, y[t-P], y[t]]
  for (let r = 0; r < R; r++) {
    const t = to - R + r;
    const row = r * COLS;
    a[row] = 1;
    for (let j = 1; j <= P; j++) a[row + j] = y[t - j]! * unit;
    a[row + P + 1] = y[t]! * unit;
  }
  const last = P + 1;
  // Householder QR of the level and lag columns, applied to the predicted values too: afterwards
  // a[k][last] is the part of them column k explains beyond the columns before it (k ≤ P), and the
  // squares of a[k][last] for k > P sum to what no column explains.
  for (let k = 0; k < last; k++) {
    // the values are at most 1 in magnitude, so the sum of squares needs no guard
    let squares = 0;
    for (let r = k; r < R; r++) squares += a[r * COLS + k]! * a[r * COLS + k]!;
    if (squares === 0) continue;
    const norm = Math.sqrt(squares);
    const alpha = a[k * COLS + k]! > 0 ? -norm : norm;
    a[k * COLS + k] = a[k * COLS + k]! - alpha; // v = x − alpha·e_k, stored in column k
    let vv = 0;
    for (let r = k; r < R; r++) vv += a[r * COLS + k]! * a[r * COLS + k]!;
    for (let j = k + 1; j < COLS; j++) {
      let dot = 0;
      for (let r = k; r < R; r++) dot += a[r * COLS + k]! * a[r * COLS + j]!;
      const f = (2 * dot) / vv;
      for (let r = k; r < R; r++) a[r * COLS + j] = a[r * COLS + j]! - f * a[r * COLS + k]!;
    }
    a[k * COLS + k] = alpha;
    for (let r = k + 1; r < R; r++) a[r * COLS + k] = 0;
  }
  // what the level alone leaves (R times the variance of the predicted values); order p leaves the sum from p + 1
  let spread = 0;
  for (let k = 1; k < R; k++) spread += a[k * COLS + last]! ** 2;
  if (!(spread >= R * RECURRENCE_MIN_VARIATION * RECURRENCE_MIN_VARIATION)) return;
  let largestPivot = 0;
  for (let k = 0; k <= P; k++) largestPivot = Math.max(largestPivot, Math.abs(a[k * COLS + k]!));
  // the highest order leaves the least: if even it is above the most any order may leave, none is a recurrence
  let leastResidual = 0;
  for (let k = P + 1; k < R; k++) leastResidual += a[k * COLS + last]! ** 2;
  if (leastResidual > R * (RECURRENCE_TOLERANCE * Math.sqrt(spread / R) + RECURRENCE_ROUNDING * ROUNDING_GAIN_CAP) ** 2) return;
  const c = fit.coefficients;
  for (let p = 1; p <= P; p++) {
    if (Math.abs(a[p * COLS + p]!) <= PIVOT_FLOOR * largestPivot || Math.abs(a[0]!) <= PIVOT_FLOOR * largestPivot) break;
    // back substitution of the leading (p + 1) × (p + 1) triangle
    for (let k = p; k >= 0; k--) {
      let s = a[k * COLS + last]!;
      for (let j = k + 1; j <= p; j++) s -= a[k * COLS + j]! * c[j]!;
      c[k] = s / a[k * COLS + k]!;
    }
    let residual = 0;
    for (let k = p + 1; k < R; k++) residual += a[k * COLS + last]! ** 2;
    if (residual > R * allowedError(c, p, Math.sqrt(spread / R)) ** 2) continue;
    if (holdsOver(y, from, to, p, c, unit)) {
      c[0] = c[0]! * largest; // the level, back in the data's units
      fit.order = p;
      return;
    }
  }
}

/** The root mean square error the order-p recurrence `c` may leave on values of standard deviation `sd` (largest magnitude 1). */
function allowedError(c: Float64Array, p: number, sd: number): number {
  let squares = 1;
  for (let j = 1; j <= p; j++) squares += c[j]! * c[j]!;
  return RECURRENCE_TOLERANCE * sd + RECURRENCE_ROUNDING * Math.min(Math.sqrt(squares), ROUNDING_GAIN_CAP);
}

/** Whether the order-p recurrence `c` (its level in units of 1 / `unit`) predicts y[from+p .. to) to within the tolerance. */
function holdsOver(y: Float64Array, from: number, to: number, p: number, c: Float64Array, unit: number): boolean {
  let sum = 0;
  for (let t = from + p; t < to; t++) sum += y[t]! * unit;
  const mean = sum / (to - from - p);
  let spread = 0;
  let residual = 0;
  for (let t = from + p; t < to; t++) {
    let e = y[t]! * unit - c[0]!;
    for (let j = 1; j <= p; j++) e -= c[j]! * y[t - j]! * unit;
    residual += e * e;
    spread += (y[t]! * unit - mean) ** 2;
  }
  const count = to - from - p;
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
    let v = c[0]!;
    for (let j = 1; j <= p; j++) {
      const back = k - j;
      v += c[j]! * (back >= 0 ? out[at + back]! : context[m + back]!);
    }
    if (!Number.isFinite(v)) return false;
    out[at + k] = v;
  }
  return true;
}

/**
 * The forecaster `inner` with one change: a context whose last `reach` points (all of
 * it, if shorter) follow an exact linear recurrence ({@link findRecurrence}) gets the
 * recurrence's extension as its point forecast; its spread stays `inner`'s. Reads no
 * more of a context than `reach`, so `inner`'s `contextReach` still holds.
 *
 * @example
 * ```ts
 * const flat = { name: "flat", seasonLength: 1, forecast: (cs: readonly Float64Array[], h: number) => new Float64Array(cs.length * h) };
 * const f = withRecurrences(flat, 96);
 * Array.from(f.forecast([Float64Array.from({ length: 30 }, (_, t) => 2 * t + 1)], 2)); // => [61, 63]
 * ```
 * @category Network
 */
export function withRecurrences(inner: Forecaster, reach: number): Forecaster {
  const fit = new RecurrenceFit();
  function overwrite(contexts: readonly Float64Array[], h: number, mean: Float64Array): void {
    for (let i = 0; i < contexts.length; i++) {
      const c = contexts[i]!;
      findRecurrence(c, Math.max(0, c.length - reach), c.length, fit);
      if (fit.order === 0) continue;
      const before = mean.slice(i * h, (i + 1) * h);
      if (!extendRecurrence(c.subarray(Math.max(0, c.length - reach)), fit, h, mean, i * h)) mean.set(before, i * h);
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
    ...(inner.contextReach === undefined ? {} : { contextReach: inner.contextReach }),
  };
  return wrapped;
}
