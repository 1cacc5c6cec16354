/**
 * Fine-tune losses by name (`getLoss`), each with its value and gradient with
 * respect to the predictions.
 * @module
 */
export * from "./losses.js";
