/**
 * The univariate, zero-shot anomaly request with the API's defaults that the
 * anomaly benchmark and evaluation both run.
 */
import seedrandom from "seedrandom";
import type { AnomalyInput, Freq, SeriesData } from "../src/types.js";

/**
 * The large request of the flow benchmarks (bench/flow-throughput.ts,
 * bench/parallel-ceiling.ts): hourly series with a daily cycle, noise and a
 * rare spike, seeded; h 24, detection_size 48, level 99.
 */
export function flowBenchmarkRequest(seriesCount: number, points: number) {
  const random = seedrandom("flow-throughput");
  const y: number[] = [];
  for (let i = 0; i < seriesCount; i++) {
    const level = 50 + 100 * random();
    const amplitude = 5 + 20 * random();
    for (let t = 0; t < points; t++) y.push(level + amplitude * Math.sin((2 * Math.PI * t) / 24) + 6 * (random() - 0.5) + (random() < 0.002 ? 10 * amplitude : 0));
  }
  return { series: { y, sizes: Array.from({ length: seriesCount }, () => points) }, freq: "H" as const, h: 24, detection_size: 48, level: 99 };
}

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
