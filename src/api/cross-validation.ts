/**
 * Cross-validation over the wire (POST /v2/cross_validation, as the hosted
 * API's dataframe SDK calls it): `n_windows` forecasts of `h` steps per
 * series from rolling origins `step_size` apart, the last window ending at
 * the series' end, each made exactly as POST /v2/forecast makes it from the
 * history before its origin.
 * @module
 */
import { ValidationError, valueError, type ErrorItem } from "./errors.js";
import { seriesOffsets } from "../series/index.js";
import type { FinetunedWeights, ForecastInput, Intervals, SeriesData } from "../types.js";
import type { ForecastResult } from "./results.js";
import { echoedValueError } from "./json.js";
import { schemaWith, toCrossValidationFields, type CrossValidationWindowFields, type ValidatedHistoricBody } from "./requests.js";
import { ErrorCollector, INVALID, isJsonObject, ownProperty, validateAgainst } from "./schema-validator.js";
import { API_REQUEST_SCHEMAS } from "./schemas.js";

/** Most windows one cross-validation request may ask for. */
export const CROSS_VALIDATION_MAX_WINDOWS = 100;

/** The cross-validation fields besides those of a forecast body. */
export interface CrossValidationShape {
  /** Forecast steps per window. */
  readonly h: number;
  /** Number of windows (default 1). */
  readonly nWindows: number;
  /** Steps between window origins (default `h`). */
  readonly stepSize: number;
}

function positiveInteger(raw: Record<string, unknown>, key: string, fallback: number | null, out: ErrorItem[]): number {
  const v = ownProperty(raw, key);
  if ((v === undefined || v === null) && fallback !== null) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
    out.push(echoedValueError(["body", key], `${key} must be a positive integer`, v));
    return 1;
  }
  return v;
}

/**
 * Reads `h`, `n_windows` (default 1, at most `CROSS_VALIDATION_MAX_WINDOWS`)
 * and `step_size` (default `h`) of a cross-validation body. (`refit` is read
 * by the service: with fine-tuning, `true` (the default) fine-tunes every
 * window on its own history, `false` fine-tunes once, on the oldest window's
 * history, and forecasts every window with those weights.)
 *
 * @example
 * ```ts
 * crossValidationShape({ h: 3, n_windows: 2, step_size: null }).shape;
 * // => { h: 3, nWindows: 2, stepSize: 3 }
 * ```
 * @category API rules
 */
export function crossValidationShape(raw: unknown): { shape: CrossValidationShape; errors: ErrorItem[] } {
  const errors: ErrorItem[] = [];
  if (!isJsonObject(raw)) return { shape: { h: 1, nWindows: 1, stepSize: 1 }, errors };
  const h = positiveInteger(raw, "h", null, errors);
  const nWindows = positiveInteger(raw, "n_windows", 1, errors);
  if (nWindows > CROSS_VALIDATION_MAX_WINDOWS) errors.push(valueError(["body", "n_windows"], `n_windows must be at most ${CROSS_VALIDATION_MAX_WINDOWS}`, nWindows));
  const stepSize = positiveInteger(raw, "step_size", h, errors);
  return { shape: { h, nWindows, stepSize }, errors };
}

/** The forecast fields a cross-validation body passes on to each window. */
const PASSED_ON = ["model", "freq", "level", "clean_ex_first", "finetune_steps", "finetune_loss", "finetune_depth", "finetuned_model_id", "hist_exog", "model_parameters", "multivariate"] as const;

/**
 * The forecast body of window `w` (0 = oldest): every series cut at its
 * origin `n − h − (n_windows − 1 − w)·step_size`, the features' values over
 * the window as `X_future` (empty for `hist_exog` features). Returns error
 * items when a series is too short for the windows.
 *
 * @example
 * ```ts
 * const series = { y: Float64Array.of(1, 2, 3, 4, 5, 6), sizes: [6], X: null };
 * crossValidationWindowBody({ freq: "D" }, series, { h: 2, nWindows: 2, stepSize: 2 }, 0).body;
 * // => { freq: "D", series: { y: [1, 2], sizes: [2] }, h: 2 }
 * ```
 * @category API rules
 */
export function crossValidationWindowBody(
  raw: Record<string, unknown>,
  series: { readonly y: Float64Array; readonly sizes: readonly number[]; readonly X: readonly Float64Array[] | null },
  shape: CrossValidationShape,
  w: number,
): { body: Record<string, unknown>; origins: number[]; errors: ErrorItem[] } {
  const { h, nWindows, stepSize } = shape;
  const back = h + (nWindows - 1 - w) * stepSize;
  const y: number[] = [];
  const sizes: number[] = [];
  const origins: number[] = [];
  const X = series.X ?? [];
  const future = futureFeatures(raw, X.length);
  const Xs: number[][] = X.map(() => []);
  const Xf: number[][] = X.map(() => []);
  const errors: ErrorItem[] = [];
  let start = 0;
  series.sizes.forEach((n, i) => {
    const origin = n - back;
    if (origin < 1) {
      errors.push(tooShortItem(n, i, shape));
      start += n;
      return;
    }
    origins.push(start + origin);
    for (let t = 0; t < origin; t++) y.push(series.y[start + t] as number);
    sizes.push(origin);
    X.forEach((x, f) => {
      for (let t = 0; t < origin; t++) Xs[f]!.push(x[start + t] as number);
      if (future[f]) for (let t = origin; t < origin + h; t++) Xf[f]!.push(x[start + t] as number);
    });
    start += n;
  });
  const body: Record<string, unknown> = {};
  for (const key of PASSED_ON) {
    const v = ownProperty(raw, key);
    if (v !== undefined) body[key] = v;
  }
  body.series = X.length > 0 ? { y, sizes, X: Xs } : { y, sizes };
  body.h = h;
  if (X.length > 0) body.X_future = Xf;
  return { body, origins, errors };
}

function tooShortItem(n: number, i: number, { h, nWindows, stepSize }: CrossValidationShape): ErrorItem {
  return valueError(["body", "series", "sizes", i], `series ${i} has ${n} points, too few for n_windows = ${nWindows} windows of h = ${h} every step_size = ${stepSize} (needs more than ${h + (nWindows - 1) * stepSize})`);
}

/**
 * The series too short for the windows, from their sizes alone: the items
 * `crossValidationWindowBody` gives for the oldest window.
 *
 * @example
 * ```ts
 * crossValidationSizeErrors([10, 3], { h: 2, nWindows: 2, stepSize: 1 }).map((e) => e.loc);
 * // => [["body", "series", "sizes", 1]]
 * ```
 * @category API rules
 */
export function crossValidationSizeErrors(sizes: readonly number[], shape: CrossValidationShape): ErrorItem[] {
  const origins = windowOrigins(sizes, shape, 0);
  const out: ErrorItem[] = [];
  sizes.forEach((n, i) => {
    if (origins[i]! < 1) out.push(tooShortItem(n, i, shape));
  });
  return out;
}

/** Per series, where window `w` cuts it: the points of history before the window's origin. */
function windowOrigins(sizes: ArrayLike<number>, shape: CrossValidationShape, w: number): number[] {
  const back = shape.h + (shape.nWindows - 1 - w) * shape.stepSize;
  return Array.from(sizes, (n) => n - back);
}

/** The indices of the features whose future values a window passes (all but `hist_exog`). */
function futureFeatures(raw: Record<string, unknown>, features: number): boolean[] {
  return futureFeatureFlags(ownProperty(raw, "hist_exog"), features);
}

/**
 * Per feature, whether a window passes its future values: every feature
 * not listed in `histExog` (a list of feature indices, or anything else for none).
 *
 * @example
 * ```ts
 * futureFeatureFlags([1], 3); // => [true, false, true]
 * futureFeatureFlags(null, 2); // => [true, true]
 * ```
 * @category API rules
 */
export function futureFeatureFlags(histExog: unknown, features: number): boolean[] {
  const hist = new Set(Array.isArray(histExog) ? (histExog as unknown[]) : []);
  return Array.from({ length: features }, (_, f) => !hist.has(f));
}

/**
 * What the budget and the size limits read of window `w`'s forecast body,
 * made of views, without copying a value: the passed-on fields, `h`, the
 * window's `sizes`, and `y`, `X` and `X_future` as subarrays of the right
 * lengths (the limits read only lengths). For `checkRequestLimits`, before
 * any window is built.
 *
 * @example
 * ```ts
 * const series = { y: Float64Array.of(1, 2, 3, 4, 5, 6), sizes: [6], X: null };
 * const b = crossValidationWindowShapeBody({ freq: "D", level: [80] }, series, { h: 2, nWindows: 2, stepSize: 2 }, 0);
 * [b.level, b.h, b.series.sizes, b.series.y.length];
 * // => [[80], 2, [2], 2]
 * ```
 * @category API rules
 */
export function crossValidationWindowShapeBody(
  raw: Record<string, unknown>,
  series: { readonly y: Float64Array; readonly sizes: readonly number[]; readonly X: readonly Float64Array[] | null },
  shape: CrossValidationShape,
  w: number,
): Record<string, unknown> & { h: number; series: { y: Float64Array; sizes: number[]; X?: Float64Array[] } } {
  const sizes = windowOrigins(series.sizes, shape, w).map((n) => Math.max(0, n));
  let rows = 0;
  for (const n of sizes) rows += n;
  const body: Record<string, unknown> = {};
  for (const key of PASSED_ON) {
    const v = ownProperty(raw, key);
    if (v !== undefined) body[key] = v;
  }
  const X = series.X ?? [];
  const future = futureFeatures(raw, X.length);
  const out = { ...body, h: shape.h, series: X.length > 0 ? { y: series.y.subarray(0, rows), sizes, X: X.map((x) => x.subarray(0, rows)) } : { y: series.y.subarray(0, rows), sizes } };
  return X.length > 0 ? { ...out, X_future: X.map((x, f) => x.subarray(0, future[f] ? Math.min(x.length, sizes.length * shape.h) : 0)) } : out;
}

/** The forecast body's properties a cross-validation body passes on to its windows that a historic body has not. */
const WINDOW_ONLY_SCHEMA = schemaWith(API_REQUEST_SCHEMAS.forecast, (name) => name === "level" || name === "hist_exog" || name === "multivariate" || name === "model_parameters");

/**
 * The typed forecast fields every window of a cross-validation body shares,
 * validated once from the body: `level`, `hist_exog`, `multivariate` and
 * `model_parameters` against the forecast schema (the 422 items at their
 * place in the body), then `toCrossValidationFields` with `base`, the body's
 * series and model fields already validated as a historic body, and the
 * oldest window's sizes. No window body is built.
 *
 * @example
 * ```ts
 * const raw = { series: { y: [1, 2, 3, 4, 5, 6], sizes: [6] }, freq: "D", h: 2, level: [80] };
 * const base = validateEndpointBody("historic", { series: raw.series, freq: "D" }, { core: false, limits: UNLIMITED });
 * crossValidationFields(raw, base, { h: 2, nWindows: 2, stepSize: 2 }, null).levels; // => [80]
 * const refusal = (): unknown => {
 *   try {
 *     return crossValidationFields({ ...raw, level: [100] }, base, { h: 2, nWindows: 2, stepSize: 2 }, null);
 *   } catch (e) {
 *     return (e as ValidationError).detail.map((item) => item.loc);
 *   }
 * };
 * refusal(); // => [["body", "level", 0]]
 * ```
 * @category API rules
 */
export function crossValidationFields(
  raw: Record<string, unknown>,
  base: ValidatedHistoricBody,
  shape: CrossValidationShape,
  finetuned: FinetunedWeights | null,
): Omit<ForecastInput, "series" | "Xfuture"> {
  const errors = new ErrorCollector();
  const window = validateAgainst(WINDOW_ONLY_SCHEMA, raw, ["body"], errors);
  if (window === INVALID) throw new ValidationError(errors.items);
  return toCrossValidationFields(base, window as CrossValidationWindowFields, windowOrigins(base.series.sizes, shape, 0), shape.h, finetuned);
}

/**
 * The series and the features' future values of window `w` (0 = oldest) as a
 * typed forecast request takes them: every series cut at its origin. With
 * one series `y` and `X` are views of the request's arrays (subarrays); with
 * several, each series' history is set from a view into one array per
 * window. `origins` are the windows' first rows in the request's `y`.
 *
 * @example
 * ```ts
 * const series = { y: Float64Array.of(1, 2, 3, 4, 5, 6), sizes: [6], X: null };
 * const win = crossValidationWindowSeries([], series, { h: 2, nWindows: 2, stepSize: 2 }, 0);
 * [Array.from(win.series.y), win.series.y.buffer === series.y.buffer, win.origins];
 * // => [[1, 2], true, [2]]
 * ```
 * @category API rules
 */
export function crossValidationWindowSeries(
  future: readonly boolean[],
  series: { readonly y: Float64Array; readonly sizes: readonly number[]; readonly X: readonly Float64Array[] | null },
  shape: CrossValidationShape,
  w: number,
): { series: SeriesData; Xfuture: Float64Array[]; origins: number[] } {
  const cut = windowOrigins(series.sizes, shape, w);
  const sizes = Int32Array.from(cut);
  const offsets = seriesOffsets(sizes);
  const starts = seriesOffsets(series.sizes);
  const X = series.X ?? [];
  const pack = (values: Float64Array): Float64Array => {
    if (cut.length === 1) return values.subarray(0, cut[0]);
    const out = new Float64Array(offsets[cut.length]!);
    cut.forEach((n, i) => out.set(values.subarray(starts[i]!, starts[i]! + n), offsets[i]!));
    return out;
  };
  const Xfuture = X.map((x, f) => {
    if (!future[f]) return new Float64Array(0);
    const out = new Float64Array(cut.length * shape.h);
    cut.forEach((n, i) => out.set(x.subarray(starts[i]! + n, starts[i]! + n + shape.h), i * shape.h));
    return out;
  });
  return { series: { y: pack(series.y), sizes, offsets, X: X.map(pack) }, Xfuture, origins: cut.map((n, i) => starts[i]! + n) };
}

/**
 * Lays the windows' forecasts out as the SDK reads them: series after
 * series, each series' windows oldest first, `h` rows each; `idxs` are the
 * rows' positions in the request's `y`, `sizes` the rows per series
 * (`n_windows · h`), and the token counts the sums over windows.
 *
 * @example
 * ```ts
 * const r = (m: number[]) => ({ mean: m, sizes: [1], intervals: null, weights_x: null, feature_contributions: null, warnings: [], input_tokens: 2, output_tokens: 1, finetune_tokens: 0 });
 * mergeCrossValidation([r([3]), r([5])], [[2], [3]], 1).idxs;
 * // => [2, 3]
 * ```
 * @category API rules
 */
export function mergeCrossValidation(
  results: readonly ForecastResult[],
  origins: readonly (readonly number[])[],
  h: number,
): { idxs: number[]; sizes: number[]; mean: number[]; intervals: Intervals | null; input_tokens: number; output_tokens: number; finetune_tokens: number; warnings: string[] } {
  const k = origins[0]?.length ?? 0;
  const idxs: number[] = [];
  const mean: number[] = [];
  const sizes: number[] = [];
  const keys = results[0]?.intervals === null || results[0] === undefined ? null : Object.keys(results[0].intervals);
  const intervals: Record<string, number[]> | null = keys === null ? null : Object.fromEntries(keys.map((key) => [key, [] as number[]]));
  for (let i = 0; i < k; i++) {
    results.forEach((r, w) => {
      const origin = origins[w]![i]!;
      for (let s = 0; s < h; s++) {
        idxs.push(origin + s);
        mean.push(r.mean[i * h + s] as number);
        if (intervals !== null) for (const key of keys!) intervals[key]!.push(r.intervals![key]![i * h + s] as number);
      }
    });
    sizes.push(results.length * h);
  }
  const warnings = [...new Set(results.flatMap((r) => r.warnings))];
  const sum = (f: (r: ForecastResult) => number): number => results.reduce((a, r) => a + f(r), 0);
  return { idxs, sizes, mean, intervals, input_tokens: sum((r) => r.input_tokens), output_tokens: sum((r) => r.output_tokens), finetune_tokens: sum((r) => r.finetune_tokens), warnings };
}
