/**
 * forecastmodel: the computation behind a hosted time-series forecasting API,
 * as pure functions with no I/O.
 * @module
 */
export * from "./types.js";
export * from "./errors.js";
export * from "./stats/index.js";
export * from "./series/index.js";
export {
  modelParams, horizonWarning, isModelName, MODEL_NAMES, createNetworkForecaster, pretrainedParameters,
  applyFinetuned, depthStart, parameterCount, networkLossAndGradient, AdamOptimizer,
} from "./model/index.js";
export type { ModelParams, NetworkForecasterOptions, SampleLoss, AdamOptions } from "./model/index.js";
export * from "./cv/index.js";
export * from "./intervals/index.js";
export * from "./anomaly/index.js";
export * from "./losses/index.js";
export * from "./finetune/index.js";
export * from "./exogenous/index.js";
export * from "./historic/index.js";
export * from "./forecast/index.js";
export * from "./partition/index.js";
export * from "./chart/index.js";
export * from "./api/index.js";
