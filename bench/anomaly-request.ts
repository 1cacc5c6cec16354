/**
 * The univariate, zero-shot anomaly request with the API's defaults that the
 * anomaly benchmark and evaluation both run.
 */
import type { AnomalyInput, Freq, SeriesData } from "../src/types.js";

/** `step_size = h`, forecastmodel-1 without fine-tuning, exogenous defaults. */
export function univariateAnomalyRequest(series: SeriesData, freq: Freq, h: number, detectionSize: number, level: number): AnomalyInput {
  return {
    series,
    freq,
    h,
    detectionSize,
    level,
    thresholdMethod: "univariate",
    stepSize: h,
    model: "forecastmodel-1",
    finetune: { steps: 0, loss: "default", depth: 1 },
    finetuned: null,
    multivariate: false,
    modelParameters: null,
    cleanExFirst: true,
    histExog: [],
    refit: false,
  };
}
