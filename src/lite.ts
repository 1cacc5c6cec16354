/**
 * forecastmodel/lite: the whole library without the pretrained weights
 * registered. Register the models a bundle needs, e.g.
 * `registerWeights(WEIGHTS_FM1)` with `WEIGHTS_FM1` from
 * `forecastmodel/weights/forecastmodel-1`; the main entry `forecastmodel`
 * is this plus every model's weights.
 *
 * The runtime names are listed one by one, grouped as a reader looks for
 * them; every type of a listed module is exported. Helpers that only serve
 * the library itself (statistics kernels, training internals, error-item
 * builders) stay in their modules.
 * @module
 */

// The API layer, as src/api/index.ts lists it: the JSON entry points (docs/contract.md §1) and their
// dataframe-like forms; the service behind `handle` (routes, keys, credits, jobs, fine-tuned models) and
// its store, limits, OpenAPI document, freq aliases and content decoding; the series reader; typed
// pipeline results as the API's JSON bodies, and the one token count.
export * from "./api/index.js";

// Scaling past one call.
export { partition, merge, partitionBlocker } from "./api/partition.js";

// Errors.
export { ValidationError, MAX_ERROR_ITEMS } from "./api/errors.js";

// The typed pipelines and the seam their model comes through.
export { runForecast, calibrationWindowCount, CALIBRATION_MAX_WINDOWS, CALIBRATION_MIN_WINDOWS, CALIBRATION_TARGET_SCORES, CONFORMAL_MIN_CONTEXT } from "./forecast/index.js";
export {
  detectAnomalies,
  anomalyMinimumLength,
  anomalyWindowCount,
  anomalyCalibrationSize,
  ANOMALY_MIN_CONTEXT,
  ANOMALY_CALIBRATION_MAX,
  ANOMALY_EXCLUDE_Z,
  ANOMALY_Z_CAP,
} from "./anomaly/index.js";
export { runHistoricForecast, historicWindowCount } from "./historic/index.js";
export {
  finetuneModel,
  modelSource,
  fixedModelSource,
  prepareForecaster,
  FINETUNE_LEARNING_RATE,
  FINETUNE_MIN_BATCH,
  FINETUNE_MAX_BATCH,
  FINETUNE_DEPTH_FIXED_MODEL_2_1,
} from "./finetune/index.js";

// Models.
export {
  modelParams,
  horizonWarning,
  isModelName,
  MODEL_NAMES,
  createNetworkForecaster,
  createForecastMemo,
  withMemo,
  FORECAST_MEMO_ENTRIES,
  withRecurrences,
  findRecurrence,
  findSeasonalRepeat,
  SEASONAL_REPEAT_MIN_CYCLES,
  RecurrenceFit,
  RECURRENCE_MAX_ORDER,
  RECURRENCE_TOLERANCE,
  RECURRENCE_ROUNDING,
  RECURRENCE_MIN_VARIATION,
  RECURRENCE_MIN_POINTS,
  pretrainedParameters,
  applyFinetuned,
  registerWeights,
  registeredModels,
} from "./model/index.js";

// Series packing by sizes: the whole module is public.
export * from "./series/index.js";

// Cross-validation windows.
export { crossValidate, rollingWindowCount, latestWindowForecasts, seasonalNaiveForecaster } from "./cv/index.js";

// Prediction intervals.
export {
  gaussianMultiplier,
  intervalKey,
  gaussianIntervals,
  conformalHalfWidths,
  conformalHalfWidthsByLevel,
  conformalIntervals,
  intervalsFromHalfWidths,
  calibratedIntervals,
  collectCalibrationScores,
  conformalMultiplier,
  calibratedZ,
  withSpread,
} from "./intervals/index.js";

// z-scores, accumulated scores and thresholds.
export { seriesCalibratedScores, univariateAnomalyFlags, multivariateAccumulatedScores, multivariateThreshold, seasonalJudge, combineJudges, judgedInterval, JUDGES_AGREE_Z, SEASONAL_JUDGE_WINDOW, SEASONAL_JUDGE_SD_FLOOR, judgeLag, levelJudge, judgesOnLogScale, LOG_SCALE_MIN_POINTS, LOG_SCALE_MIN_RATIO, rangeBoost, rangeOpinion, RANGE_JUDGE_MIN_POINTS, accumulatedAnomalyScores, cusumEquivalentZ, cusumRunLength, scoreCorrelation, ANOMALY_CUSUM_ALLOWANCE } from "./anomaly/index.js";

// Fine-tune losses.
export {
  getLoss,
  LOSSES,
  finetuneLossNames,
  maeLoss,
  mseLoss,
  rmseLoss,
  mapeLoss,
  smapeLoss,
  poissonLoss,
  defaultRobustLoss,
  createScaledHuberLoss,
  DEFAULT_LOSS_HUBER_DELTA,
  POISSON_LOSS_LINEAR_FRACTION,
} from "./losses/index.js";

// Exogenous features and their contributions.
export { exogenousBeforeModel, exogenousAfterModel, fitRidgeRegression, EXOGENOUS_DEFAULT_PENALTY } from "./exogenous/index.js";

// Progress of long work.
export { boundedProgress, windowProgress, PROGRESS_MAX_CALLS } from "./progress.js";

// Charts.
export { renderAnomalyChart, anomalyChartInput, cropAnomalyChartInput, plotForecast, plotAnomalies } from "./chart/index.js";

// Every type of the modules above.
export type * from "./types.js";
export type { ErrorItem } from "./api/errors.js";
export type * from "./api/partition.js";
export type * from "./forecast/index.js";
export type * from "./anomaly/index.js";
export type * from "./historic/index.js";
export type * from "./finetune/index.js";
export type { ModelParams, NetworkForecasterOptions, EmbeddedWeights, ForecastMemo } from "./model/index.js";
export type * from "./cv/index.js";
export type * from "./intervals/index.js";
export type * from "./losses/index.js";
export type * from "./exogenous/index.js";
export type * from "./chart/index.js";
export type * from "./progress.js";
