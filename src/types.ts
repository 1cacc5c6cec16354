/**
 * Types shared by every module: frequencies, model and loss names, the
 * forecaster interface and the validated (typed) requests that the core
 * pipelines take. The JSON request bodies of the API are turned into these by
 * `src/api/` validation; nothing in the core sees raw JSON.
 * @module
 */

/** Series frequency. The API accepts D, M, H, W; the core functions also accept Q and Y. */
export type Freq = "H" | "D" | "W" | "M" | "Q" | "Y";

/** Names of the pretrained models. */
export type ModelName = "forecastmodel-1" | "forecastmodel-1-long-horizon" | "forecastmodel-2.1";

/** Fine-tune losses. */
export type LossName = "default" | "mae" | "mse" | "rmse" | "mape" | "smape" | "poisson";

/** Fine-tune depth: 1 opens only the output end of the network, 5 the whole model. */
export type FinetuneDepth = 1 | 2 | 3 | 4 | 5;

/**
 * Anything that forecasts: the pretrained network in production, seasonal naive in tests.
 *
 * `forecast(contexts, h)` returns the `h` values after each context, row-major
 * (`out[i * h + k]` is step `k + 1` after `contexts[i]`). Contexts are views
 * (e.g. `subarray`s of a packed `y`) and are never mutated. A multivariate
 * forecaster assumes the contexts of one call are time-aligned series of one batch.
 */
export interface Forecaster {
  /** A readable name, e.g. `"forecastmodel-1"` or `"seasonal-naive"`. */
  readonly name: string;
  /** Season length the forecaster uses (1 = no seasonality). */
  readonly seasonLength: number;
  /** Forecasts `h` steps after each context; result has `contexts.length * h` values. */
  forecast(contexts: readonly Float64Array[], h: number): Float64Array;
}

/** Many series packed into one array (`y`) with their lengths (`sizes`). */
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

/** Fine-tuning settings of a request. `steps === 0` means zero-shot. */
export interface FinetuneSpec {
  readonly steps: number;
  readonly loss: LossName;
  readonly depth: FinetuneDepth;
}

/**
 * A fine-tuned model as stored: only the parameters that changed (a suffix of
 * the network's flat parameter vector, starting at `start`).
 */
export interface FinetunedWeights {
  readonly model: ModelName;
  /** Index of the first stored parameter in the flat parameter vector. */
  readonly start: number;
  /** Values of parameters `start .. start + values.length - 1`. */
  readonly values: Float64Array;
}

/** What every model-using request shares. */
export interface ModelSpec {
  readonly model: ModelName;
  readonly freq: Freq;
  readonly finetune: FinetuneSpec;
  /** A fine-tuned model to start from (already resolved from its id), or null. */
  readonly finetuned: FinetunedWeights | null;
  /** forecastmodel-2.1 only: use the other (equal-length) series of the batch. */
  readonly multivariate: boolean;
  readonly modelParameters: Readonly<Record<string, unknown>> | null;
}

/** Validated POST /v2/forecast request. */
export interface ForecastRequest extends ModelSpec {
  readonly series: SeriesData;
  readonly h: number;
  /** Interval levels in percent, as given (may be empty). */
  readonly levels: readonly number[];
  /** Feature-major future values: `Xfuture[k]` has `sizes.length * h` values, series after series. */
  readonly Xfuture: readonly Float64Array[];
  readonly cleanExFirst: boolean;
  readonly histExog: readonly number[];
}

/** Validated POST /v2/online_anomaly_detection request. */
export interface AnomalyRequest extends ModelSpec {
  readonly series: SeriesData;
  readonly h: number;
  readonly detectionSize: number;
  /** Level in percent, 0 <= level < 100. */
  readonly level: number;
  readonly thresholdMethod: "univariate" | "multivariate";
  /** Step between cross-validation windows (defaults to h). */
  readonly stepSize: number;
  readonly cleanExFirst: boolean;
  readonly histExog: readonly number[];
  /** Fine-tune in each window (true) or only on the first window (false). */
  readonly refit: boolean;
}

/** Validated POST /v2/historic_forecast request. */
export interface HistoricRequest extends ModelSpec {
  readonly series: SeriesData;
  readonly levels: readonly number[];
  readonly cleanExFirst: boolean;
  readonly featureContributions: boolean;
}

/** Validated POST /v2/finetune request. */
export interface FinetuneRequest extends ModelSpec {
  readonly series: SeriesData;
}

/** Prediction intervals keyed `lo-<L>` / `hi-<L>` (L written as given, e.g. `lo-97.5`). */
export type Intervals = Record<string, number[]>;

/** Token counts every result carries. */
export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  finetune_tokens: number;
}

/** Result of a forecast (JSON-serialisable; `warnings` go to the `warning` header at the API). */
export interface ForecastResult extends TokenCounts {
  mean: number[];
  sizes: number[];
  intervals: Intervals | null;
  weights_x: number[] | null;
  feature_contributions: number[][] | null;
  warnings: string[];
}

/** Result of online anomaly detection. */
export interface AnomalyResult extends TokenCounts {
  mean: number[];
  sizes: number[];
  idxs: number[];
  anomaly: boolean[];
  anomaly_score: number[];
  accumulated_anomaly_score: number[];
  intervals: Intervals | null;
  warnings: string[];
}

/** Result of the historic (in-sample) forecast. */
export interface HistoricResult extends TokenCounts {
  mean: number[];
  sizes: number[];
  intervals: Intervals | null;
  weights_x: number[] | null;
  feature_contributions: number[][] | null;
  warnings: string[];
}

/** Result of a fine-tune (the API adds the stored model's id). */
export interface FinetuneResult extends TokenCounts {
  weights: FinetunedWeights;
  warnings: string[];
}
