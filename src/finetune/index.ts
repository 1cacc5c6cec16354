/**
 * Fine-tuning on the request's own series (`finetuneModel`), and the one
 * place a request's model settings become a forecaster (`modelSource`, on
 * `prepareForecaster`), handed to the pipelines as their `ModelSource`.
 * @module
 */
export * from "./finetune.js";
export * from "./seed.js";
export * from "./source.js";
export * from "./readout.js";
