/**
 * forecastmodel/lite: the whole library without the pretrained weights
 * registered. Register the models a bundle needs, e.g.
 * `registerWeights(WEIGHTS_FM1)` with `WEIGHTS_FM1` from
 * `forecastmodel/weights/forecastmodel-1`; the main entry `forecastmodel`
 * is this plus every model's weights.
 * @module
 */
export * from "./types.js";
export * from "./errors.js";
export * from "./stats/index.js";
export * from "./series/index.js";
export {
  modelParams, horizonWarning, isModelName, MODEL_NAMES, createNetworkForecaster, pretrainedParameters,
  applyFinetuned, depthStart, parameterCount, networkLossAndGradient, AdamOptimizer, registerWeights, registeredModels,
} from "./model/index.js";
export type { ModelParams, NetworkForecasterOptions, SampleLoss, AdamOptions, EmbeddedWeights } from "./model/index.js";
export * from "./cv/index.js";
export * from "./intervals/index.js";
export * from "./anomaly/index.js";
export * from "./losses/index.js";
export * from "./finetune/index.js";
export * from "./exogenous/index.js";
export * from "./historic/index.js";
export * from "./forecast/index.js";
export * from "./api/partition.js";
export * from "./chart/index.js";
export * from "./api/index.js";
