/**
 * Types shared by every module: frequencies, model and loss names, the
 * forecaster interface and the validated (typed) requests that the core
 * pipelines take. The JSON request bodies of the API are turned into these by
 * `src/api/` validation; nothing in the core sees raw JSON.
 * @module
 */

import type { LossName } from "./losses/losses.js";
import type { ProgressCallback } from "./progress.js";

/**
 * The six frequency classes the network's tables know (season length and
 * native horizon): hourly (and every sub-daily step), daily, weekly, monthly,
 * quarterly, yearly; the keys of the frequencies table (`FREQUENCIES`). See
 * `parseFreq` for how a frequency maps to its class.
 * @category Types
 */
export type ModelFreq = "H" | "D" | "W" | "M" | "Q" | "Y";

/**
 * A sub-daily frequency as a pandas alias: an optional positive integer
 * multiple and a unit, seconds (`s`, `S`), minutes (`min`, `T`) or hours
 * (`h`, `H`): `"s"`, `"30s"`, `"min"`, `"5min"`, `"15T"`, `"h"`, `"2h"`.
 * At run time the step must divide a day evenly (`7min` is refused); the type
 * cannot say so.
 * @category Types
 */
export type SubDailyFreq = `${"" | number}${"s" | "S" | "min" | "T" | "h" | "H"}`;

/**
 * A daily or longer frequency as a pandas alias: `D`; `W` or `W-MON` …
 * `W-SUN`; `M`, `MS`, `ME`; `Q`, `QS`, `QE`, `Y`, `YS`, `YE`, `A`, `AS`, each
 * also anchored on a month (`QS-DEC`); and their business forms (`BMS`,
 * `CBME`, `BQS-DEC`, `BA-DEC`). The anchor does not change the model.
 * @category Types
 */
export type CalendarFreq =
  | "D"
  | "W"
  | `W-${"MON" | "TUE" | "WED" | "THU" | "FRI" | "SAT" | "SUN"}`
  | "M"
  | "MS"
  | "ME"
  | "BM"
  | "BMS"
  | "BME"
  | "CBM"
  | "CBMS"
  | "CBME"
  | `${"Q" | "QS" | "QE" | "BQ" | "BQS" | "BQE" | "Y" | "YS" | "YE" | "A" | "AS" | "BA" | "BAS" | "BY" | "BYS" | "BYE"}${"" | `-${"JAN" | "FEB" | "MAR" | "APR" | "MAY" | "JUN" | "JUL" | "AUG" | "SEP" | "OCT" | "NOV" | "DEC"}`}`;

/**
 * A business calendar that steps over closed days or hours: business days
 * `B` (custom: `C`) and business hours `BH` (custom: `CBH`). The steps are
 * counted, not timed (see `parseFreq`).
 * @category Types
 */
export type BusinessFreq = "B" | "C" | "BH" | "CBH";

/**
 * Series frequency: one of the six classes' letters (`"H"`, `"D"`, `"W"`,
 * `"M"`, `"Q"`, `"Y"`), a sub-daily pandas alias with a multiple (`"5min"`,
 * `"15T"`, `"30s"`, `"2h"`) or a calendar pandas alias (`"MS"`, `"W-SUN"`,
 * `"QS-DEC"`) or a business calendar (`"B"`, `"BH"`, `"CBH"`). The HTTP API takes every one of them except the quarterly and
 * yearly ones; the core functions take them all. Validated requests carry
 * the canonical name (`parseFreq(alias).name`: `"15T"` becomes `"15min"`,
 * `"MS"` becomes `"M"`).
 * @category Types
 */
export type Freq = ModelFreq | SubDailyFreq | CalendarFreq | BusinessFreq;

/**
 * Names of the pretrained models.
 * @category Types
 */
export type ModelName = "forecastmodel-1" | "forecastmodel-1-long-horizon" | "forecastmodel-2.1" | "forecastmodel-1-high-frequency";

export type { LossName } from "./losses/losses.js";

/**
 * Fine-tune depth: 1 opens only the output end of the network, 5 the whole model.
 * @category Types
 */
export type FinetuneDepth = 1 | 2 | 3 | 4 | 5;

/**
 * Anything that forecasts: the pretrained network in production, seasonal naive in tests.
 *
 * `forecast(contexts, h)` returns the `h` values after each context, row-major
 * (`out[i * h + k]` is step `k + 1` after `contexts[i]`). Contexts are views
 * (e.g. `subarray`s of a packed `y`) and are never mutated. A multivariate
 * forecaster assumes the contexts of one call are time-aligned series of one batch.
 * @category Types
 */
export interface Forecaster {
  /** A readable name, e.g. `"forecastmodel-1"` or `"seasonal-naive"`. */
  readonly name: string;
  /** Season length the forecaster uses (1 = no seasonality). */
  readonly seasonLength: number;
  /** Forecasts `h` steps after each context; result has `contexts.length * h` values. */
  forecast(contexts: readonly Float64Array[], h: number): Float64Array;
  /**
   * Optional: the same point forecasts with the forecaster's own predictive
   * spread (the pretrained network has one; see `withSpread` for the
   * fallback given to forecasters without).
   */
  forecastDistribution?(contexts: readonly Float64Array[], h: number): ForecastDistribution;
  /**
   * Optional: {@link Forecaster.forecastDistribution}'s values written into
   * the caller's arrays instead of new ones: context i's point forecast k to
   * `into.mean[i · stride + offset + k]` and its half-widths at level g to
   * `into.below` / `into.above` at `(i · stride + offset + k) · G + g`
   * (G = `into.levels.length`). Returns true when written; false, writing
   * nothing, when it cannot (other levels than `into.levels`, or a horizon it
   * only reaches by a rollout): the caller then calls `forecastDistribution`.
   * The values are the same bits either way. Cross-validation uses it to
   * write each window's rows in place.
   */
  forecastDistributionInto?(contexts: readonly Float64Array[], h: number, into: DistributionTarget): boolean;
  /**
   * Optional: each forecast reads at most the last `contextReach` points of
   * its context, so older points never change it (the window view of the
   * network reads its `contextLength`). Absent: a context may be read whole.
   */
  readonly contextReach?: number;
}

/**
 * The forecaster a pipeline runs with, and what preparing it cost (see {@link ModelSource}).
 * @category Types
 */
export interface PreparedModel {
  /** The forecaster. */
  readonly forecaster: Forecaster;
  /** Fine-tune work done: `finetune.steps × number of series`, 0 without fine-tuning. */
  readonly finetuneWork: number;
  /** Notes for the result's `warnings` (e.g. nothing to fine-tune on). */
  readonly warnings: readonly string[];
}

/**
 * Where a pipeline gets its model: called with the series the model will see
 * (after the exogenous phase) and, optionally, how many leading points of
 * each series it may be fine-tuned on (the points before a rolling window).
 * The forecast, anomaly and historic pipelines take one as their second
 * argument; `modelSource(request)` resolves the request's model settings
 * (base model, fine-tuned weights, steps, depth, loss) in one place, and
 * `fixedModelSource(forecaster)` passes any forecaster (seasonal naive, a
 * baseline) through the same seam.
 * @category Types
 */
export type ModelSource = (train: SeriesData, trainLengths?: Int32Array) => PreparedModel;

/**
 * Point forecasts with the half-widths of central intervals around them.
 *
 * For row `r = i · h + k` (step k + 1 after context i) and grid level
 * `levels[j]` (a fraction, increasing), `below[r · G + j]` and
 * `above[r · G + j]` (G = `levels.length`) are how far the quantiles
 * (1 − levels[j])/2 and (1 + levels[j])/2 lie below and above `mean[r]`:
 * finite, ≥ 0 and non-decreasing in j. Zero everywhere means the forecaster
 * is certain (a constant context).
 * @category Types
 */
export interface ForecastDistribution {
  /** Central-interval levels of the grid, as fractions in (0, 1), increasing. */
  readonly levels: readonly number[];
  /** Point forecasts, `contexts.length · h` values. */
  readonly mean: Float64Array;
  /** Distance of each lower quantile below the point forecast, `mean.length · levels.length` values. */
  readonly below: Float64Array;
  /** Distance of each upper quantile above the point forecast, `mean.length · levels.length` values. */
  readonly above: Float64Array;
}

/**
 * Where {@link Forecaster.forecastDistributionInto} writes: context i's
 * values start at `i · stride + offset` of `mean` (and times G, the number
 * of `levels`, in `below` and `above`).
 * @category Types
 */
export interface DistributionTarget {
  /** The spread's levels the arrays are laid out for (a forecaster with others writes nothing). */
  readonly levels: readonly number[];
  /** Point forecasts. */
  readonly mean: Float64Array;
  /** Distances below, G per point. */
  readonly below: Float64Array;
  /** Distances above, G per point. */
  readonly above: Float64Array;
  /** Values between two contexts' first points. */
  readonly stride: number;
  /** Where context 0's first point goes. */
  readonly offset: number;
}

/**
 * Many series packed into one array (`y`) with their lengths (`sizes`).
 * @category Types
 */
export interface SeriesData {
  /** Observations of all series, concatenated. */
  readonly y: Float64Array;
  /** Length of each series. */
  readonly sizes: Int32Array;
  /** `offsets[i]` is where series i starts in `y`; `offsets[sizes.length] === y.length`. */
  readonly offsets: Int32Array;
  /** Feature-major exogenous values: `X[k][row]` is feature k at row `row` of `y`. Empty when absent. */
  readonly X: readonly Float64Array[];
}

/**
 * Fine-tuning settings of a request. `steps === 0` means zero-shot.
 * @category Types
 */
export interface FinetuneSpec {
  /** Adam steps (0 = zero-shot). */
  readonly steps: number;
  /** Loss minimised while fine-tuning. */
  readonly loss: LossName;
  /** How much of the network is opened (1 = output end, 5 = all). */
  readonly depth: FinetuneDepth;
}

/**
 * A fine-tuned model as stored: only the parameters that changed (a suffix of
 * the network's flat parameter vector, starting at `start`).
 * @category Types
 */
export interface FinetunedWeights {
  /** The pretrained model these parameters belong to. */
  readonly model: ModelName;
  /** Index of the first stored parameter in the flat parameter vector. */
  readonly start: number;
  /** Values of parameters `start .. start + values.length - 1`. */
  readonly values: Float64Array;
}

/**
 * What every model-using request shares.
 * @category Types
 */
export interface ModelSpec {
  /** Which pretrained model forecasts. */
  readonly model: ModelName;
  /** Frequency of the series (sets the season length and native horizon). */
  readonly freq: Freq;
  /** Fine-tuning settings (steps 0 = zero-shot). */
  readonly finetune: FinetuneSpec;
  /** A fine-tuned model to start from (already resolved from its id), or null. */
  readonly finetuned: FinetunedWeights | null;
  /** forecastmodel-2.1 only: use the other (equal-length) series of the batch. */
  readonly multivariate: boolean;
  /** Free-form model parameters of the request (accepted, currently unused by the networks). */
  readonly modelParameters: Readonly<Record<string, unknown>> | null;
  /**
   * `modelParams(model, freq)`, resolved once where the request is built (the
   * API's typed requests carry it); the pipelines compute it when absent
   * (`requestModelParams`). It must be that of this `model` and `freq`: a copy
   * of the spec with another model or freq leaves it out.
   */
  readonly params?: ModelParams;
  /** Reports the progress of fine-tuning and of rolling windows (see `boundedProgress`); never changes a result. */
  readonly onProgress?: ProgressCallback;
}

/**
 * Context length, native horizon and season length of a model at a frequency.
 * @category Network
 */
export interface ModelParams {
  /** Points of history the network reads (older points are ignored; fewer are padded). */
  readonly inputSize: number;
  /** Native horizon: forecasts beyond it are rolled out recursively, with a warning. */
  readonly horizon: number;
  /** Season length used for the seasonal inputs (1 = none). */
  readonly seasonLength: number;
}

/**
 * Validated POST /v2/forecast request.
 * @category Types
 */
export interface ForecastInput extends ModelSpec {
  /** The series to forecast. */
  readonly series: SeriesData;
  /** Steps to forecast after each series. */
  readonly h: number;
  /** Interval levels in percent, as given (may be empty). */
  readonly levels: readonly number[];
  /** Feature-major future values: `Xfuture[k]` has `sizes.length * h` values, series after series. */
  readonly Xfuture: readonly Float64Array[];
  /** true: regress y on X before the model; false: X explains the model's residuals. */
  readonly cleanExFirst: boolean;
  /** Indices of features known only up to the forecast origin. */
  readonly histExog: readonly number[];
  /** Return each feature's contribution to every forecast row, and the base (default false). */
  readonly featureContributions?: boolean;
  /**
   * 1 where `series.y` was missing and has been filled (`fillMissing`): the
   * calibration of the intervals and the residual regression skip those points.
   */
  readonly missing?: Uint8Array;
}

/**
 * Validated POST /v2/online_anomaly_detection request.
 * @category Types
 */
export interface AnomalyInput extends ModelSpec {
  /** The series to scan. */
  readonly series: SeriesData;
  /** Length of each rolling forecast window. */
  readonly h: number;
  /** Points at the end of each series in which anomalies are reported. */
  readonly detectionSize: number;
  /** Level in percent, 0 <= level < 100. */
  readonly level: number;
  /** Per series (z against the normal quantile) or across series (Σz² against chi-square). */
  readonly thresholdMethod: "univariate" | "multivariate";
  /** Step between cross-validation windows (defaults to h). */
  readonly stepSize: number;
  /** As in {@link ForecastInput.cleanExFirst}. */
  readonly cleanExFirst: boolean;
  /** As in {@link ForecastInput.histExog}. */
  readonly histExog: readonly number[];
  /** Fine-tune in each window (true) or only on the first window (false). */
  readonly refit: boolean;
  /**
   * 1 where `series.y` was missing and has been filled (`fillMissing`): the
   * model reads the filled values in its contexts, but a filled point never
   * calibrates a score, and a filled point of the detection window is never
   * an anomaly (its `anomalyScore` is 0: there is no observation to judge).
   */
  readonly missing?: Uint8Array;
}

/**
 * Validated POST /v2/historic_forecast request.
 * @category Types
 */
export interface HistoricInput extends ModelSpec {
  /** The series to fit. */
  readonly series: SeriesData;
  /** Interval levels in percent (may be empty). */
  readonly levels: readonly number[];
  /** As in {@link ForecastInput.cleanExFirst}. */
  readonly cleanExFirst: boolean;
  /** Also return the (features + 1) contribution arrays. */
  readonly featureContributions: boolean;
  /** As in {@link ForecastInput.missing}: filled points, which the calibration of the intervals skips. */
  readonly missing?: Uint8Array;
  /**
   * A series shorter than inputSize + horizon (but longer than horizon) gets
   * one window, its last horizon points forecast from the points before them,
   * instead of being refused (default false). The API sets it on the hosted
   * API's SDK's in-sample routes (POST /v2/anomaly_detection and
   * cross-validation with `full_history`).
   */
  readonly shortSeriesWindow?: boolean;
}

/**
 * Validated POST /v2/finetune request.
 * @category Types
 */
export interface FinetuneInput extends ModelSpec {
  /** The series to fine-tune on. */
  readonly series: SeriesData;
}

/**
 * The two interval keys of a level in percent, as the results write them:
 * `LevelKey<80>` is `"lo-80" | "hi-80"`, `LevelKey<97.5>` is
 * `"lo-97.5" | "hi-97.5"`. For levels known only at run time (`number`) it
 * is the pattern `` `lo-${number}` | `hi-${number}` ``.
 *
 * @example
 * ```ts
 * const fc = forecast({ series: { y: [1, 2, 3, 4, 5, 6, 7, 8], sizes: [8] }, freq: "D", h: 1, level: [80] });
 * const key: LevelKey<80> = "lo-80";
 * fc.intervals[key].length; // => 1
 * ```
 * @category Types
 */
export type LevelKey<L extends number> = `lo-${L}` | `hi-${L}`;

/**
 * The intervals of a JSON result for the levels `L`: one array per
 * {@link LevelKey} ({@link LevelArrays}); `null` when no level was asked (`L` is `never`), and
 * possibly `null` when the levels are known only at run time (`L` is
 * `number`: an empty list gives `null`).
 *
 * @example
 * ```ts
 * const fc = forecast({ series: { y: [1, 2, 3, 4, 5, 6, 7, 8], sizes: [8] }, freq: "D", h: 2, level: [90] });
 * const intervals: LevelIntervals<90> = fc.intervals; // not null: the levels are written in the body
 * intervals["hi-90"].length; // => 2
 * ```
 * @category Types
 */
export type LevelIntervals<L extends number> = [L] extends [never] ? null : number extends L ? LevelArrays<L> | null : LevelArrays<L>;

/**
 * One array per {@link LevelKey} of the levels `L`, and any other key read
 * as in {@link Intervals} (a key computed at run time, e.g. by `intervalKey`).
 *
 * @example
 * ```ts
 * const fc = forecast({ series: { y: [1, 2, 3, 4, 5, 6, 7, 8], sizes: [8] }, freq: "D", h: 1, level: [80] });
 * fc.intervals["lo-80"].length; // => 1
 * fc.intervals[intervalKey(80, "hi")]?.length; // => 1
 * ```
 * @category Types
 */
export type LevelArrays<L extends number> = { [K in LevelKey<L>]: number[] } & Intervals;

/**
 * The intervals of an anomaly detection result: with the univariate
 * threshold one array per {@link LevelKey} of the level `L` (99 unless
 * given), with the multivariate threshold `null`; `M` is the threshold
 * method as written in the call (both when not known).
 *
 * @example
 * ```ts
 * const y = Array.from({ length: 60 }, (_, t) => Math.sin(t / 2));
 * const r = detectAnomaliesOnline({ series: { y, sizes: [60] }, freq: "D", h: 7, detection_size: 7, level: 95, threshold_method: "univariate" });
 * r.intervals["lo-95"].length; // => 7
 * ```
 * @category Types
 */
export type AnomalyIntervals<L extends number, M extends "univariate" | "multivariate"> = M extends "univariate" ? LevelArrays<L> : null;

/**
 * Prediction intervals keyed `lo-<L>` / `hi-<L>` (L written as given, e.g.
 * `lo-97.5`), as plain arrays: the form of the JSON bodies and of the
 * stand-alone helpers `gaussianIntervals` and `conformalIntervals`. The
 * pipelines return {@link IntervalBounds}.
 * @category Types
 */
export type Intervals = Record<string, number[]>;

/**
 * Prediction intervals as the pipelines return them: one `Float64Array` per
 * bound, keyed `lo-<L>` / `hi-<L>` (L written as given, see `intervalKey`),
 * in the order of the requested levels (lo then hi for each level). Each
 * array has one value per output row.
 * @category Types
 */
export type IntervalBounds = Record<string, Float64Array>;

/**
 * What a forecast pipeline returns (`runForecast`, and `runHistoricForecast`
 * as {@link HistoricOutput}): typed arrays, camelCase fields, no token
 * counts. `forecastResultJson` in `src/api/results.ts` turns it into the JSON
 * body (`weightsX` → `weights_x`, `contributions` → `feature_contributions`,
 * typed arrays → plain arrays) and counts the tokens there.
 * @category Types
 */
export interface ForecastOutput {
  /** Point forecasts (in-sample fitted values for the historic forecast), series after series. */
  mean: Float64Array;
  /** Output rows of each series. */
  sizes: Int32Array;
  /** Calibrated intervals per requested level, or null without levels. */
  intervals: IntervalBounds | null;
  /** Fitted coefficient of each exogenous feature, or null without features. */
  weightsX: Float64Array | null;
  /** (features + 1) arrays of the output length, the last the base value, summing to `mean`; or null when not asked. */
  contributions: Float64Array[] | null;
  /** Fine-tune work done: steps × number of series for every tuning (0 without fine-tuning). */
  finetuneWork: number;
  /** Notes such as the horizon warning (the API moves them to the `warning` header). */
  warnings: string[];
}

/**
 * What the historic (in-sample) forecast returns: the fields of a forecast,
 * where `mean` holds the in-sample fitted values of the output rows, `sizes`
 * the rows per series and `intervals` the model's spread calibrated on the
 * series' own fitted points.
 * @category Types
 */
export type HistoricOutput = ForecastOutput;

/**
 * What online anomaly detection (`detectAnomalies`) returns: typed arrays,
 * camelCase fields, no token counts. `anomalyResultJson` in `src/api/results.ts`
 * turns it into the JSON body (`anomalyScore` → `anomaly_score`,
 * `accumulatedAnomalyScore` → `accumulated_anomaly_score`, flags 1/0 →
 * true/false).
 * @category Types
 */
export interface AnomalyOutput {
  /** Forecast ŷ of each output row. */
  mean: Float64Array;
  /** Output rows per series. */
  sizes: Int32Array;
  /** Position of each output row in the request's concatenated y. */
  idxs: Int32Array;
  /** 1 where the row is flagged, else 0. */
  anomaly: Uint8Array;
  /** Signed calibrated z-score of each row (|z| > Φ⁻¹(0.5 + level/200) exactly when y is outside the interval). */
  anomalyScore: Float64Array;
  /** max(z², z_c²) (univariate, z_c the z-equivalent of a CUSUM of the scored points, reset after alarms) or Σ over series of z² at the row's step (multivariate). */
  accumulatedAnomalyScore: Float64Array;
  /** The interval used for the decision (univariate), or null (multivariate). */
  intervals: IntervalBounds | null;
  /** Fine-tune work done: steps × number of series for every tuning (once, or once per window with refit). */
  finetuneWork: number;
  /** Notes such as the horizon warning. */
  warnings: string[];
}

/**
 * What a fine-tune (`finetuneModel`) returns: the weights to store and the
 * work done; the API adds the stored model's id and the token counts.
 * @category Types
 */
export interface FinetuneOutput {
  /** The parameters to store (only what changed). */
  weights: FinetunedWeights;
  /** Fine-tune work done: steps × number of series (0 without steps). */
  finetuneWork: number;
  /** Notes for the caller. */
  warnings: string[];
}
