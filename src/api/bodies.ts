/**
 * TypeScript types of the JSON request bodies, as on the wire (snake_case),
 * for the JSON entry points (`forecast`, `detectAnomaliesOnline`,
 * `historicForecast`, `finetune`): a misspelt field, a string where a number
 * belongs or an unknown frequency fails at compile time. The validated
 * internal forms the pipelines take are `ForecastInput`, `AnomalyInput`,
 * `HistoricInput` and `FinetuneInput`. The bodies mirror the request schemas
 * of `schemas.ts` (the OpenAPI document), which still validate at run time.
 * @module
 */
import type { FinetuneDepth, Freq, LossName, ModelName } from "../types.js";

/**
 * Many series concatenated in `y`, their lengths in `sizes`, optional exogenous features.
 * @category API rules
 */
export interface SeriesBody {
  /** Observations of all series, concatenated in order (finite numbers). */
  y: readonly number[];
  /** Length of each series (integers ≥ 1, summing to `y.length`). */
  sizes: readonly number[];
  /** Exogenous features, feature-major: `X[k]` holds feature k for every row of `y`. */
  X?: readonly (readonly number[])[] | null;
}

/** Fields shared by the bodies that run a model. */
interface ModelFields {
  /** The series. */
  series: SeriesBody;
  /**
   * Frequency, a pandas offset alias: sub-daily steps that divide a day
   * (`"30s"`, `"min"`, `"5min"`, `"15T"`, `"H"`, `"2h"`, …), `"D"`, `"W"`
   * (`"W-SUN"`, …), `"M"` (`"MS"`, `"ME"`) at the HTTP API; the core functions
   * also take quarterly and yearly ones (`"Q"`, `"QS-DEC"`, `"YS"`, …). It sets
   * the season length and native horizon (`modelParams`).
   */
  freq: Freq;
  /** Model name (default `"forecastmodel-1"`). */
  model?: ModelName;
  /** Fine-tune steps (default 0: zero-shot; 10 for `finetune`). */
  finetune_steps?: number;
  /** Fine-tune loss (default `"default"`). */
  finetune_loss?: LossName;
  /** Fine-tune depth 1–5 (default 1). */
  finetune_depth?: FinetuneDepth;
  /** A stored fine-tuned model to use (`finetune`: to start from). */
  finetuned_model_id?: string | null;
}

/**
 * The body of POST /v2/forecast (`forecast`). `L` is the type of its levels:
 * written in the call (`level: [80, 95]`) it is `80 | 95`, and the result's
 * interval keys are typed (`"lo-80"`, …; see `LevelKey`).
 * @category Types
 */
export interface ForecastRequest<L extends number = number> extends ModelFields {
  /** Steps to forecast after each series. */
  h: number;
  /** Interval levels in percent, each 0 ≤ L < 100 (e.g. `[80, 95]`; `0.95` is 0.95 %). */
  level?: readonly L[] | null;
  /** Future values of the exogenous features: `X_future[k]` has `sizes.length × h` values. */
  X_future?: readonly (readonly number[])[] | null;
  /** true (default): y is regressed on X first; false: X explains the model's residuals. */
  clean_ex_first?: boolean;
  /**
   * Indices of features known only up to the forecast origin. Absent or null
   * with fewer `X_future` arrays than features (or `X_future: null`), the
   * features without future values are historical (the SDK's form, see `sdkHistoricalFeatures`).
   */
  hist_exog?: readonly number[] | null;
  /** forecastmodel-2.1 only: forecast a batch of equal-length series jointly. */
  multivariate?: boolean;
  /** Optional settings of the model. */
  model_parameters?: Record<string, unknown> | null;
  /** Return each feature's contribution (and a base value) per forecast row (default false). */
  feature_contributions?: boolean;
}

/**
 * The body of POST /v2/online_anomaly_detection (`detectAnomaliesOnline`).
 * `L` is the type of its level and `M` of its threshold method, as written
 * in the call (they type the result's interval keys).
 * @category Types
 */
export interface AnomalyRequest<L extends number = number, M extends "univariate" | "multivariate" = "univariate" | "multivariate"> extends ModelFields {
  /** Length of each rolling forecast window. */
  h: number;
  /** Points at the end of each series to judge. */
  detection_size: number;
  /** Level in percent, 0 ≤ L < 100 (default 99). */
  level?: L;
  /** `"univariate"` (default) or `"multivariate"`. */
  threshold_method?: M;
  /** Step between windows (default h). */
  step_size?: number | null;
  /** Fine-tune once (false, default) or in every window (true). */
  refit?: boolean;
  /** As in {@link ForecastRequest.clean_ex_first}. */
  clean_ex_first?: boolean;
  /** As in {@link ForecastRequest.hist_exog}. */
  hist_exog?: readonly number[] | null;
  /** As in {@link ForecastRequest.multivariate}. */
  multivariate?: boolean;
  /** Optional settings of the model. */
  model_parameters?: Record<string, unknown> | null;
}

/**
 * The body of POST /v2/historic_forecast (`historicForecast`); `L` as in
 * {@link ForecastRequest}.
 * @category Types
 */
export interface HistoricRequest<L extends number = number> extends ModelFields {
  /** Interval levels in percent. */
  level?: readonly L[] | null;
  /** As in {@link ForecastRequest.clean_ex_first}. */
  clean_ex_first?: boolean;
  /** Return each feature's contribution (and a base value) per row. */
  feature_contributions?: boolean;
}

/**
 * The body of POST /v2/finetune (`finetune`): the model fields (here
 * `finetune_steps` defaults to 10 and `finetuned_model_id` is the earlier
 * fine-tuned model to start from) and the new model's id.
 * @category Types
 */
export interface FinetuneRequest extends ModelFields {
  /** Id of the new model (generated when absent). */
  output_model_id?: string | null;
}

/**
 * A body as the JSON entry points take it: the typed object, JSON text or UTF-8 bytes.
 * @category Types
 */
export type JsonBody<T> = T | string | Uint8Array | ArrayBuffer;
