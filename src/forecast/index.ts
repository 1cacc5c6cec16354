/**
 * The plain future forecast (POST /v2/forecast): the model's mean for `h`
 * steps after each series, conformal intervals from rolling-origin errors of
 * the same model on the series' own history, and exogenous features.
 * @module
 */
import { ValidationError, valueError, type ErrorItem } from "../errors.js";
import { crossValidate, type CrossValidationResult } from "../cv/index.js";
import { exogenousAfterModel, exogenousBeforeModel, type ExogenousPlan } from "../exogenous/index.js";
import { prepareForecaster } from "../finetune/index.js";
import { conformalHalfWidthsByLevel, gaussianMultiplier, intervalsFromHalfWidths } from "../intervals/index.js";
import { horizonWarning } from "../model/index.js";
import type { ForecastRequest, ForecastResult, Intervals, SeriesData } from "../types.js";

/**
 * Rolling-origin windows (of length h, one every h points, tiling back from
 * the end) used to calibrate conformal intervals, at most.
 */
export const CONFORMAL_WINDOWS = 3;

/** Fewest windows a series needs for conformal intervals; shorter series use the fallback. */
export const CONFORMAL_MIN_WINDOWS = 2;

/** Fewest context points a calibration window must have. */
export const CONFORMAL_MIN_CONTEXT = 3;

/**
 * Forecasts `h` steps after every series, with conformal intervals.
 *
 * Method: the model (zero-shot, fine-tuned or a stored fine-tuned model, see
 * `prepareForecaster`) forecasts each series. For each requested level L the
 * interval at step k is mean ± w, where w is the type-7 quantile at L/100 of
 * the absolute errors at step k of the same model in up to
 * {@link CONFORMAL_WINDOWS} rolling-origin windows of length h on the series'
 * own history. Fallback when a series is too short for
 * {@link CONFORMAL_MIN_WINDOWS} windows (each with at least
 * {@link CONFORMAL_MIN_CONTEXT} context points): a Gaussian random-walk
 * interval, w = q · σ₁ · √k with q the normal quantile at 0.5 + L/200 and σ₁
 * the sample standard deviation of the series' one-step differences (0 for a
 * one-point series, whose interval is the point forecast itself).
 *
 * Exogenous features (`series.X`, with `Xfuture`): see `exogenousBeforeModel`;
 * with `cleanExFirst` false the residual regression is fitted on the
 * calibration windows' forecasts. `weights_x` is returned when there are features.
 *
 * Tokens: input = every number received (y, X, X_future); output = numbers in
 * the per-row arrays (mean and each interval bound); finetune = steps × series.
 *
 * @throws ValidationError (loc starting with "body") for unequal lengths in
 *   multivariate mode, missing or mis-sized X_future, or bad fine-tune settings.
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 48 }, (_, t) => 100 + 10 * Math.sin((2 * Math.PI * t) / 12));
 * const series = { y, sizes: Int32Array.of(48), offsets: Int32Array.of(0, 48), X: [] };
 * const res = runForecast({ series, h: 12, freq: "M", levels: [80], model: "forecastmodel-1",
 *   finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null, multivariate: false,
 *   modelParameters: null, Xfuture: [], cleanExFirst: true, histExog: [] });
 * res.mean.length; // => 12
 * Object.keys(res.intervals ?? {}); // => ["lo-80", "hi-80"]
 * ```
 */
export function runForecast(request: ForecastRequest): ForecastResult {
  const { series, h, levels } = request;
  checkForecastRequest(request);
  const nSeries = series.sizes.length;
  const hasX = series.X.length > 0;
  const plan: ExogenousPlan | null = hasX
    ? exogenousBeforeModel(series, { cleanExFirst: request.cleanExFirst, histExog: request.histExog })
    : null;
  const modelSeries = plan?.modelSeries ?? series;
  const prepared = prepareForecaster(request, modelSeries);
  const forecaster = prepared.forecaster;
  const contexts: Float64Array[] = [];
  for (let i = 0; i < nSeries; i++) contexts.push(modelSeries.y.subarray(series.offsets[i]!, series.offsets[i + 1]!));
  let mean = forecaster.forecast(contexts, h);

  const needCv = levels.length > 0 || (hasX && !request.cleanExFirst);
  let cv: CrossValidationResult | null = needCv
    ? crossValidate(forecaster, modelSeries, { h, stepSize: h, windows: CONFORMAL_WINDOWS, minContext: CONFORMAL_MIN_CONTEXT })
    : null;

  let weightsX: number[] | null = null;
  const warnings: string[] = [...prepared.warnings];
  if (plan !== null) {
    const inSample = cv !== null ? calibrationRows(cv, series.offsets) : undefined;
    const outcome = exogenousAfterModel(plan, {
      future: { h, model: mean, Xfuture: request.Xfuture },
      ...(inSample !== undefined ? { inSample: { rows: inSample.rows, model: cv!.forecasts, origins: inSample.origins } } : {}),
    });
    mean = outcome.future!.mean;
    if (cv !== null && outcome.inSample !== null) cv = { ...cv, forecasts: outcome.inSample.mean };
    weightsX = Array.from(outcome.weightsX ?? []);
    warnings.push(...outcome.warnings);
  }

  const intervals = levels.length > 0 ? forecastIntervals(mean, cv!, series, h, levels) : null;
  const warning = horizonWarning(request.model, request.freq, h);
  if (warning !== null) warnings.push(warning);
  let inputTokens = series.y.length;
  for (const x of series.X) inputTokens += x.length;
  for (const x of request.Xfuture) inputTokens += x.length;
  return {
    mean: Array.from(mean),
    sizes: Array.from({ length: nSeries }, () => h),
    intervals,
    weights_x: weightsX,
    feature_contributions: null,
    input_tokens: inputTokens,
    output_tokens: mean.length * (1 + 2 * levels.length),
    finetune_tokens: prepared.finetuneTokens,
    warnings,
  };
}

/** Rows (global indices into y) and origins of every calibration forecast, in the cv's (row, step) order. */
function calibrationRows(cv: CrossValidationResult, offsets: Int32Array): { rows: Int32Array; origins: Int32Array } {
  const { h } = cv;
  const count = cv.cutoffs.length;
  const rows = new Int32Array(count * h);
  const origins = new Int32Array(count * h);
  for (let i = 0; i + 1 < offsets.length; i++) {
    for (let r = cv.windowOffsets[i]!; r < cv.windowOffsets[i + 1]!; r++) {
      const start = offsets[i]! + cv.cutoffs[r]!;
      for (let k = 0; k < h; k++) {
        rows[r * h + k] = start + k;
        origins[r * h + k] = start - 1;
      }
    }
  }
  return { rows, origins };
}

/** Conformal intervals per series and step, with the random-walk fallback for series with too few windows. */
function forecastIntervals(mean: Float64Array, cv: CrossValidationResult, series: SeriesData, h: number, levels: readonly number[]): Intervals {
  const nSeries = series.sizes.length;
  const fallbackSigma = new Float64Array(nSeries).fill(NaN);
  const conformal = conformalHalfWidthsByLevel(cv, series.y, series.offsets, levels, CONFORMAL_MIN_WINDOWS);
  return intervalsFromHalfWidths(mean, levels, (level, index) => {
    const widths = conformal[index]!;
    const q = gaussianMultiplier(level);
    for (let i = 0; i < nSeries; i++) {
      if (!Number.isNaN(widths[i * h]!)) continue;
      if (Number.isNaN(fallbackSigma[i]!)) fallbackSigma[i] = oneStepDifferenceStd(series.y, series.offsets[i]!, series.offsets[i + 1]!);
      for (let k = 0; k < h; k++) widths[i * h + k] = q * fallbackSigma[i]! * Math.sqrt(k + 1);
    }
    return widths;
  });
}

/** Sample standard deviation of y[t] − y[t−1] over one series (0 with fewer than 3 points). */
function oneStepDifferenceStd(y: Float64Array, start: number, end: number): number {
  const n = end - start - 1;
  if (n < 2) return 0;
  let mean = 0;
  let m2 = 0;
  for (let t = 1; t <= n; t++) {
    const d = y[start + t]! - y[start + t - 1]!;
    const delta = d - mean;
    mean += delta / t;
    m2 += delta * (d - mean);
  }
  const s = Math.sqrt(m2 / (n - 1));
  return Number.isFinite(s) ? s : Number.MAX_VALUE;
}

/** Rules across fields of a forecast request (the API schema checks each field). */
function checkForecastRequest(request: ForecastRequest): void {
  const { series, h } = request;
  const items: ErrorItem[] = [];
  if (!Number.isInteger(h) || h < 1) items.push(valueError(["body", "h"], "h must be an integer > 0", h));
  const nSeries = series.sizes.length;
  if (request.multivariate && nSeries > 1) {
    const first = series.sizes[0]!;
    for (let i = 1; i < nSeries; i++) {
      if (series.sizes[i] !== first) {
        items.push(valueError(["body", "series", "sizes", i], `multivariate forecasting needs series of equal length: series 0 has ${first} points, series ${i} has ${series.sizes[i]}`));
        break;
      }
    }
  }
  const features = series.X.length;
  const historical = new Set(request.histExog);
  const futureNeeded = Array.from({ length: features }, (_, k) => k).filter((k) => !historical.has(k));
  if (features > 0 && Number.isInteger(h) && h >= 1) {
    const expected = nSeries * h;
    if (request.Xfuture.length === 0 && futureNeeded.length > 0) {
      items.push(valueError(["body", "X_future"], `X_future is required when series.X has features that are not in hist_exog: give ${features} arrays (one per feature) of sizes.length × h = ${expected} values`));
    } else if (request.Xfuture.length > 0 && request.Xfuture.length !== features && request.Xfuture.length !== futureNeeded.length) {
      items.push(valueError(["body", "X_future"], `X_future must have one array per feature of series.X (${features})`));
    } else {
      request.Xfuture.forEach((x, k) => {
        if (x.length !== expected && !(x.length === 0 && historical.has(k))) {
          items.push(valueError(["body", "X_future", k], `X_future[${k}] must have sizes.length × h = ${expected} values, got ${x.length}`));
        }
      });
    }
  } else if (features === 0 && request.Xfuture.length > 0) {
    items.push(valueError(["body", "X_future"], "X_future given but series.X has no features"));
  }
  if (items.length > 0) throw new ValidationError(items);
}
