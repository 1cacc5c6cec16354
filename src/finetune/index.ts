/**
 * Fine-tuning on the request's own series (`finetuneModel`) and the one way
 * every pipeline gets its model (`prepareForecaster`).
 * @module
 */
export * from "./finetune.js";
export * from "./seed.js";
