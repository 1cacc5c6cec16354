/**
 * Rolling-origin cross-validation of any {@link Forecaster} over many packed
 * series, with the (series, window, step) layout.
 * @module
 */
import type { ForecastDistribution, Forecaster, SeriesData } from "../types.js";

/**
 * Makes the forecaster of one cross-validation window (e.g. a model fine-tuned
 * on the data before that window's cutoffs).
 *
 * `windowFromEnd` is 0 for the latest window, 1 for the one before, …;
 * `cutoffs[i]` is the cutoff of series i in that window (its number of
 * context points), or −1 when series i has no such window.
 * @category Cross-validation
 */
export type CrossValidationForecasterFactory = (windowFromEnd: number, cutoffs: Int32Array) => Forecaster;

/**
 * Options of {@link crossValidate}.
 * @category Cross-validation
 */
export interface CrossValidationOptions {
  /** Window length: the forecast horizon, an integer >= 1. */
  readonly h: number;
  /** Distance between consecutive cutoffs, an integer >= 1 (default `h`: windows tile without overlap). */
  readonly stepSize?: number;
  /** At most this many windows per series, counted from the end (default: every window that fits). */
  readonly windows?: number;
  /** Fewest context points a window needs before its cutoff, an integer >= 1 (default 1). */
  readonly minContext?: number;
  /**
   * Also keep the forecaster's predictive spread of every forecast (default
   * false); the forecaster must then have `forecastDistribution` (see `withSpread`).
   */
  readonly spread?: boolean;
  /** Called after each window (all series' forecasts of that window made): `done` of `total` windows (see `boundedProgress`). */
  readonly onWindow?: (done: number, total: number) => void;
  /**
   * Where the spread's two arrays come from (default: new, zeroed ones):
   * given the number of values, an array of exactly that length, whose
   * contents may be anything (every value is written). A caller that reuses
   * its arrays between calls (`ArrayCache`) saves the page faults of a new
   * array's first writes.
   */
  readonly allocateSpread?: (length: number) => Float64Array;
}

/**
 * Forecasts of rolling-origin cross-validation, ragged over series.
 *
 * Layout (series, window, step): the windows of series i are the rows
 * `windowOffsets[i] … windowOffsets[i + 1] − 1`, oldest first; the forecast of
 * step k (0-based) of row r is `forecasts[r · h + k]` and is a forecast of the
 * point `cutoffs[r] + k` of that series (0-based, within the series).
 * @category Cross-validation
 */
export interface CrossValidationResult {
  /** Window length (forecast horizon). */
  readonly h: number;
  /** Distance between consecutive cutoffs. */
  readonly stepSize: number;
  /** Row offsets per series; length `sizes.length + 1`; the last entry is the number of rows. */
  readonly windowOffsets: Int32Array;
  /** Per row: the cutoff, i.e. the number of points of its series used as context (the first forecast point's index). */
  readonly cutoffs: Int32Array;
  /** Per row, `h` forecasts: `forecasts[row * h + k]`. */
  readonly forecasts: Float64Array;
  /**
   * With the `spread` option: the half-widths of every forecast at the grid
   * `levels`, `below[(row * h + k) * G + j]` (G = levels.length), as in
   * `ForecastDistribution`; otherwise absent.
   */
  readonly spread?: CrossValidationSpread;
}

/**
 * The forecaster's predictive spread of every cross-validation forecast (see `ForecastDistribution`).
 * @category Cross-validation
 */
export interface CrossValidationSpread {
  /** Central-interval levels of the grid, as fractions, increasing. */
  readonly levels: readonly number[];
  /** Distance of each lower quantile below its forecast: `below[(row * h + k) * G + j]`. */
  readonly below: Float64Array;
  /** Distance of each upper quantile above its forecast, same layout. */
  readonly above: Float64Array;
}

/**
 * Number of rolling-origin windows that fit in a series.
 *
 * Formula: windows tile back from the end; window w (w = 0 the latest) starts
 * at cutoff `length − h − w · stepSize`; it fits when that cutoff is at least
 * `minContext`. So the count is ⌊(length − minContext − h) / stepSize⌋ + 1 when
 * `length >= minContext + h`, else 0.
 *
 * Cost: O(1).
 *
 * @param length - Points in the series (integer >= 0).
 * @param h - Window length (integer >= 1).
 * @param stepSize - Distance between cutoffs (integer >= 1).
 * @param minContext - Fewest context points a window needs (integer >= 1, default 1).
 * @returns The number of windows, >= 0.
 * @throws RangeError when an argument is not an integer in its range.
 *
 * @example
 * ```ts
 * rollingWindowCount(100, 20, 20); // cutoffs 80, 60, 40, 20
 * // => 4
 * rollingWindowCount(100, 20, 20, 30); // cutoffs 80, 60, 40
 * // => 3
 * rollingWindowCount(10, 20, 20);
 * // => 0
 * ```
 * @category Cross-validation
 */
export function rollingWindowCount(length: number, h: number, stepSize: number, minContext = 1): number {
  checkInteger(length, 0, "rollingWindowCount: length");
  checkInteger(h, 1, "rollingWindowCount: h");
  checkInteger(stepSize, 1, "rollingWindowCount: stepSize");
  checkInteger(minContext, 1, "rollingWindowCount: minContext");
  const room = length - minContext - h;
  return room < 0 ? 0 : Math.floor(room / stepSize) + 1;
}

/**
 * A pipeline's rolling-origin windows, as both its work budget and its run
 * read them: their length, the distance between cutoffs, the most windows a
 * series gets and the fewest context points a window needs.
 * @category Cross-validation
 */
export interface WindowPlan {
  /** Window length (integer >= 1). */
  readonly h: number;
  /** Distance between cutoffs (integer >= 1). */
  readonly stepSize: number;
  /** Most windows per series (integer >= 0). */
  readonly windows: number;
  /** Fewest context points before a window (integer >= 1). */
  readonly minContext: number;
}

/**
 * The windows a series of `length` points gets under `plan`:
 * min(`plan.windows`, {@link rollingWindowCount}(length, h, stepSize,
 * minContext)), as {@link crossValidate} makes them.
 *
 * Cost: O(1).
 *
 * @example
 * ```ts
 * plannedWindowCount({ h: 20, stepSize: 20, windows: 3, minContext: 1 }, 100); // 4 fit, 3 planned
 * // => 3
 * plannedWindowCount({ h: 20, stepSize: 20, windows: 3, minContext: 1 }, 50);
 * // => 2
 * ```
 * @category Cross-validation
 */
export function plannedWindowCount(plan: WindowPlan, length: number): number {
  return Math.min(plan.windows, rollingWindowCount(length, plan.h, plan.stepSize, plan.minContext));
}

/**
 * Rolling-origin cross-validation: forecasts of windows of length `h` every
 * `stepSize` points, tiling back from the end of each series.
 *
 * Method: window w of series i (w = 0 the latest) has cutoff
 * cᵢ(w) = nᵢ − h − w · stepSize and forecasts points cᵢ(w) … cᵢ(w) + h − 1 from the
 * context `y[0 … cᵢ(w) − 1]` of that series. Series i gets
 * min(`windows`, {@link rollingWindowCount}) windows, so every context has at
 * least `minContext` points; a series too short for one window gets none. For
 * each w, the forecaster is called ONCE with the contexts of all series that
 * have window w (in series order), so a multivariate forecaster sees the whole
 * batch and a network runs full batches. Contexts are `subarray` views of
 * `series.y` (no copies). When a factory is given instead of a forecaster, it is
 * called once per w (latest window first) to make that window's forecaster.
 *
 * Cost: one forecaster call per window index; O(rows · h) memory for the result.
 *
 * @param forecaster - The forecaster, or a factory making one per window.
 * @param series - Packed series (`y`, `sizes`, `offsets`); never mutated.
 * @param options - Horizon, step, window count and minimum context.
 * @returns The forecasts in the (series, window, step) layout.
 * @throws RangeError when an option is out of range, or the forecaster returns
 *   the wrong number of values or a non-finite value.
 *
 * @example
 * ```ts
 * const y = new Float64Array([1, 2, 3, 4, 5, 6, 7, 8]);
 * const series = { y, sizes: new Int32Array([8]), offsets: new Int32Array([0, 8]), X: [] };
 * const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 2, windows: 2 });
 * Array.from(cv.cutoffs); // windows forecast points 4..5 and 6..7
 * // => [4, 6]
 * Array.from(cv.forecasts); // naive: the last context value repeated
 * // => [4, 4, 6, 6]
 * ```
 * @category Cross-validation
 */
export function crossValidate(
  forecaster: Forecaster | CrossValidationForecasterFactory,
  series: Pick<SeriesData, "y" | "sizes" | "offsets">,
  options: CrossValidationOptions,
): CrossValidationResult {
  const { h } = options;
  checkInteger(h, 1, "crossValidate: h");
  const stepSize = options.stepSize ?? h;
  checkInteger(stepSize, 1, "crossValidate: stepSize");
  const minContext = options.minContext ?? 1;
  checkInteger(minContext, 1, "crossValidate: minContext");
  const maxWindows = options.windows ?? Number.MAX_SAFE_INTEGER;
  checkInteger(maxWindows, 0, "crossValidate: windows");
  const { y, sizes, offsets } = series;
  const nSeries = sizes.length;
  if (offsets.length !== nSeries + 1) throw new RangeError("crossValidate: offsets must have sizes.length + 1 entries");

  const windowOffsets = new Int32Array(nSeries + 1);
  let mostWindows = 0;
  const plan: WindowPlan = { h, stepSize, windows: maxWindows, minContext };
  for (let i = 0; i < nSeries; i++) {
    const count = plannedWindowCount(plan, sizes[i] as number);
    windowOffsets[i + 1] = (windowOffsets[i] as number) + count;
    if (count > mostWindows) mostWindows = count;
  }
  const rows = windowOffsets[nSeries] as number;
  const cutoffs = new Int32Array(rows);
  const forecasts = new Float64Array(rows * h);
  const windowCutoffs = new Int32Array(nSeries);
  const members = new Int32Array(nSeries);
  const contexts: Float64Array[] = [];
  let spread: CrossValidationSpread | undefined;

  // (the loops over series live in module functions, called once per window: the optimised code of a function that
  // runs once per call would be dropped after each)
  // every series with the same number of windows: window w's rows are i · W + (W − 1 − w), evenly spaced, so a
  // forecaster that writes in place (forecastDistributionInto) fills them without a copy
  let uniform = true;
  for (let i = 0; i < nSeries; i++) if ((windowOffsets[i + 1] as number) - (windowOffsets[i] as number) !== mostWindows) uniform = false;
  for (let w = 0; w < mostWindows; w++) {
    const count = windowContexts(series, h, stepSize, windowOffsets, w, windowCutoffs, members, contexts);
    const model = typeof forecaster === "function" ? forecaster(w, windowCutoffs) : forecaster;
    let out: Float64Array;
    if (
      options.spread === true &&
      uniform &&
      spread !== undefined &&
      model.forecastDistributionInto !== undefined &&
      model.forecastDistributionInto(contexts, h, { ...spread, mean: forecasts, stride: mostWindows * h, offset: (mostWindows - 1 - w) * h })
    ) {
      const bad = checkWindowRows(h, windowOffsets, w, members, count, windowCutoffs, cutoffs, forecasts);
      if (bad >= 0) throw new RangeError(`crossValidate: forecaster "${model.name}" returned a non-finite value for series ${bad}`);
      options.onWindow?.(w + 1, mostWindows);
      continue;
    }
    if (options.spread === true) {
      if (model.forecastDistribution === undefined) throw new RangeError(`crossValidate: forecaster "${model.name}" has no forecastDistribution (wrap it with withSpread)`);
      const dist = model.forecastDistribution(contexts, h);
      out = dist.mean;
      const G = dist.levels.length;
      spread ??= { levels: dist.levels, below: spreadArray(options, rows * h * G), above: spreadArray(options, rows * h * G) };
      if (dist.levels.length !== spread.levels.length || dist.below.length !== out.length * G || dist.above.length !== out.length * G) {
        throw new RangeError(`crossValidate: forecaster "${model.name}" returned a spread of the wrong shape`);
      }
      storeWindowSpreads(dist, spread, h, windowOffsets, w, members, count);
    } else {
      out = model.forecast(contexts, h);
    }
    if (out.length !== count * h) {
      throw new RangeError(`crossValidate: forecaster "${model.name}" returned ${out.length} values for ${count} contexts × h ${h}`);
    }
    const bad = storeWindowForecasts(out, h, windowOffsets, w, members, count, windowCutoffs, cutoffs, forecasts);
    if (bad >= 0) throw new RangeError(`crossValidate: forecaster "${model.name}" returned a non-finite value for series ${bad}`);
    options.onWindow?.(w + 1, mostWindows);
  }
  return spread !== undefined ? { h, stepSize, windowOffsets, cutoffs, forecasts, spread } : { h, stepSize, windowOffsets, cutoffs, forecasts };
}

/** A spread array of `length` values from `options.allocateSpread` (checked), or a new one. */
function spreadArray(options: CrossValidationOptions, length: number): Float64Array {
  if (options.allocateSpread === undefined) return new Float64Array(length);
  const a = options.allocateSpread(length);
  if (!(a instanceof Float64Array) || a.length !== length) throw new RangeError(`crossValidate: allocateSpread must give a Float64Array of ${length} values`);
  return a;
}

/**
 * The contexts of window w of {@link crossValidate} (views of `y`, in series order) into `contexts`, each series'
 * cutoff into `windowCutoffs` (−1: no window w) and the series that have one into `members`; returns their count.
 */
function windowContexts(
  series: Pick<SeriesData, "y" | "sizes" | "offsets">,
  h: number,
  stepSize: number,
  windowOffsets: Int32Array,
  w: number,
  windowCutoffs: Int32Array,
  members: Int32Array,
  contexts: Float64Array[],
): number {
  const { y, sizes, offsets } = series;
  contexts.length = 0;
  let count = 0;
  for (let i = 0; i < sizes.length; i++) {
    const windowsOfSeries = (windowOffsets[i + 1] as number) - (windowOffsets[i] as number);
    if (w >= windowsOfSeries) {
      windowCutoffs[i] = -1;
      continue;
    }
    const cutoff = (sizes[i] as number) - h - w * stepSize;
    windowCutoffs[i] = cutoff;
    members[count++] = i;
    const start = offsets[i] as number;
    contexts.push(y.subarray(start, start + cutoff));
  }
  return count;
}

/** The half-widths of window w's `count` contexts (`members`) into their rows of `spread`. */
function storeWindowSpreads(dist: ForecastDistribution, spread: CrossValidationSpread, h: number, windowOffsets: Int32Array, w: number, members: Int32Array, count: number): void {
  for (let j = 0; j < count; j++) copyRowSpread(dist, j, spread, (windowOffsets[(members[j] as number) + 1] as number) - 1 - w, h);
}

/**
 * The half-widths of context j of `dist` (h steps) into row `row` of `spread`: how {@link crossValidate} stores
 * each window's, and how a pipeline that forecasts a window again overwrites them.
 */
export function copyRowSpread(dist: ForecastDistribution, j: number, spread: CrossValidationSpread, row: number, h: number): void {
  const width = h * dist.levels.length;
  spread.below.set(dist.below.subarray(j * width, (j + 1) * width), row * width);
  spread.above.set(dist.above.subarray(j * width, (j + 1) * width), row * width);
}

/**
 * The forecasts `out` of window w's `count` contexts (`members`) and their cutoffs into their rows; returns the first
 * series with a non-finite forecast (its row left partly written), or −1.
 */
function storeWindowForecasts(
  out: Float64Array,
  h: number,
  windowOffsets: Int32Array,
  w: number,
  members: Int32Array,
  count: number,
  windowCutoffs: Int32Array,
  cutoffs: Int32Array,
  forecasts: Float64Array,
): number {
  for (let j = 0; j < count; j++) {
    const i = members[j] as number;
    const row = (windowOffsets[i + 1] as number) - 1 - w; // the series' windows are stored earliest first
    cutoffs[row] = windowCutoffs[i] as number;
    for (let k = 0; k < h; k++) {
      const value = out[j * h + k] as number;
      if (!Number.isFinite(value)) return i;
      forecasts[row * h + k] = value;
    }
  }
  return -1;
}

/**
 * The cutoffs of window w's `count` contexts (`members`) into their rows, whose forecasts the forecaster wrote in
 * place; returns the first series with a non-finite forecast, or −1 (as {@link storeWindowForecasts}).
 */
function checkWindowRows(
  h: number,
  windowOffsets: Int32Array,
  w: number,
  members: Int32Array,
  count: number,
  windowCutoffs: Int32Array,
  cutoffs: Int32Array,
  forecasts: Float64Array,
): number {
  for (let j = 0; j < count; j++) {
    const i = members[j] as number;
    const row = (windowOffsets[i + 1] as number) - 1 - w;
    cutoffs[row] = windowCutoffs[i] as number;
    for (let k = 0; k < h; k++) if (!Number.isFinite(forecasts[row * h + k] as number)) return i;
  }
  return -1;
}

/**
 * One forecast per point: where windows overlap, the forecast of the window
 * with the latest cutoff that covers the point.
 *
 * Method: for each series, writes its windows oldest first into an array
 * aligned with `y`, so a later window overwrites an earlier one. Points covered
 * by no window (the first context points, and gaps when `stepSize > h`) are `NaN`.
 *
 * Cost: O(y.length + rows · h) time; one `Float64Array` of `y.length` values.
 *
 * @param cv - A cross-validation result of these series.
 * @param offsets - Series offsets into `y` (`sizes.length + 1` entries, as in `SeriesData`).
 * @returns `forecast[offsets[i] + t]` = the forecast of point t of series i, or `NaN`.
 * @throws RangeError when `cv` does not match `offsets`.
 *
 * @example
 * ```ts
 * const y = new Float64Array([1, 2, 3, 4, 5, 6]);
 * const series = { y, sizes: new Int32Array([6]), offsets: new Int32Array([0, 6]), X: [] };
 * const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 3, stepSize: 1, windows: 2 });
 * Array.from(latestWindowForecasts(cv, series.offsets)); // cutoffs 2 and 3: point 3 from cutoff 3
 * // => [NaN, NaN, 2, 3, 3, 3]
 * ```
 * @category Cross-validation
 */
export function latestWindowForecasts(cv: CrossValidationResult, offsets: Int32Array): Float64Array {
  const nSeries = offsets.length - 1;
  if (nSeries < 0 || cv.windowOffsets.length !== nSeries + 1) {
    throw new RangeError("latestWindowForecasts: cv.windowOffsets and offsets describe different numbers of series");
  }
  const result = new Float64Array(offsets[nSeries] as number).fill(NaN);
  for (let i = 0; i < nSeries; i++) writeLatestWindowForecasts(cv, i, result, offsets);
  return result;
}

/**
 * Series i's part of {@link latestWindowForecasts}, written into `out` (laid
 * out as `y`, from `offsets[i]`): its windows oldest first, so where they
 * overlap the latest cutoff's forecast stays; points no window covers are
 * left as they are.
 *
 * Cost: O(rows of series i · h).
 *
 * @param cv - A cross-validation result of these series.
 * @param i - The series.
 * @param out - Aligned with `y`.
 * @param offsets - Series offsets into `y`.
 * @throws RangeError when a window of series i does not fit it.
 *
 * @example
 * ```ts
 * const y = new Float64Array([1, 2, 3, 4, 5, 6]);
 * const series = { y, sizes: new Int32Array([6]), offsets: new Int32Array([0, 6]), X: [] };
 * const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 3, stepSize: 1, windows: 2 });
 * const out = new Float64Array(6);
 * writeLatestWindowForecasts(cv, 0, out, series.offsets);
 * Array.from(out);
 * // => [0, 0, 2, 3, 3, 3]
 * ```
 * @category Cross-validation
 */
export function writeLatestWindowForecasts(cv: CrossValidationResult, i: number, out: Float64Array, offsets: Int32Array): void {
  const { h } = cv;
  const start = offsets[i] as number;
  const length = (offsets[i + 1] as number) - start;
  for (let row = cv.windowOffsets[i] as number; row < (cv.windowOffsets[i + 1] as number); row++) {
    const cutoff = cv.cutoffs[row] as number;
    if (cutoff < 0 || cutoff + h > length) throw new RangeError(`latestWindowForecasts: window ${row} does not fit series ${i}`);
    out.set(cv.forecasts.subarray(row * h, row * h + h), start + cutoff);
  }
}

function checkInteger(value: number, min: number, what: string): void {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${what} must be an integer >= ${min}, got ${String(value)}`);
}
