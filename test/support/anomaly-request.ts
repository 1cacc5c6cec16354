/**
 * The univariate, zero-shot anomaly request with the API's defaults that the
 * anomaly benchmark and evaluation both run.
 */
import seedrandom from "seedrandom";
import type { AnomalyInput, Freq, SeriesData } from "../../src/types.js";
import type { AnomalyRequest } from "../../src/api/index.js";

/**
 * The hourly series of the anomaly benchmarks, seeded with `seed`: per series
 * a level of 50 to 150, a daily cycle of amplitude 5 to 25 (with a random
 * phase when `phase`), uniform noise of ±3 and a rare spike of 10 amplitudes.
 * Series after series in one `Float64Array`.
 */
export function hourlyBenchValues(seed: string, seriesCount: number, points: number, phase: boolean): Float64Array {
  const random = seedrandom(seed);
  const y = new Float64Array(seriesCount * points);
  for (let i = 0; i < seriesCount; i++) {
    const level = 50 + 100 * random();
    const amplitude = 5 + 20 * random();
    const shift = phase ? 24 * random() : 0;
    for (let t = 0; t < points; t++) {
      y[i * points + t] = level + amplitude * Math.sin((2 * Math.PI * (t + shift)) / 24) + 6 * (random() - 0.5) + (random() < 0.002 ? 10 * amplitude : 0);
    }
  }
  return y;
}

/**
 * The large request of the flow benchmarks (bench/flow-throughput.ts,
 * bench/parallel-ceiling.ts): {@link hourlyBenchValues} without phase;
 * h 24, detection_size 48, level 99.
 */
export function flowBenchmarkRequest(seriesCount: number, points: number) {
  const y = Array.from(hourlyBenchValues("flow-throughput", seriesCount, points, false));
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

/**
 * The POST /v2/online_anomaly_detection body (for `detectAnomaliesOnline`)
 * of the same zero-shot univariate call: `series` one after another,
 * `step_size` (default h), forecastmodel-1, level `level`.
 */
export function onlineAnomalyBody(series: readonly Float64Array[], freq: AnomalyRequest["freq"], h: number, detectionSize: number, level: number, stepSize: number = h): AnomalyRequest {
  const y: number[] = [];
  for (const s of series) for (const v of s) y.push(v);
  return { series: { y, sizes: series.map((s) => s.length) }, freq, h, detection_size: detectionSize, level, step_size: stepSize, model: "forecastmodel-1", threshold_method: "univariate" };
}
