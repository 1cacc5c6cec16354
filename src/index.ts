/**
 * forecastmodel: the computation behind a hosted time-series forecasting API,
 * as pure functions with no I/O. This entry registers the weights of every
 * pretrained model; `forecastmodel/lite` is the same API without them.
 * @module
 */
import "./model/weights/default.js";

export * from "./lite.js";
