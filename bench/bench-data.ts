/**
 * The seeded data the benchmarks share, so that their figures speak of the
 * same work: forecast-bench's hourly series (also the overhead and pool
 * benches') and finetune-bench's daily series (also the overhead bench's).
 */
import seedrandom from "seedrandom";
import type { ForecastInput, ModelName, SeriesData } from "../src/types.js";

/**
 * forecast-bench's values: `count` hourly series of `points` each, series
 * after series (a level, a daily wave, a little noise and trend; a fixed
 * linear congruential generator, seed 12345).
 */
export function forecastBenchValues(count: number, points: number): Float64Array {
  const y = new Float64Array(count * points);
  let state = 12345;
  const rand = (): number => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < count; i++) {
    const level = 50 + 100 * rand();
    const amp = 5 + 20 * rand();
    for (let t = 0; t < points; t++) y[i * points + t] = level + amp * Math.sin((2 * Math.PI * t) / 24) + 3 * (rand() - 0.5) + 0.01 * t;
  }
  return y;
}

/** forecast-bench's typed request: {@link forecastBenchValues}, h 24, levels 80 and 95, zero-shot `model`. */
export function forecastBenchRequest(count: number, points: number, model: ModelName): ForecastInput {
  const y = forecastBenchValues(count, points);
  const sizes = new Int32Array(count).fill(points);
  const offsets = Int32Array.from({ length: count + 1 }, (_, i) => i * points);
  return {
    series: { y, sizes, offsets, X: [] }, h: 24, levels: [80, 95], freq: "H", model,
    finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null,
    Xfuture: [], cleanExFirst: true, histExog: [],
  };
}

/** finetune-bench's series: `count` daily series of `length` (level + weekly season + trend + noise, seeded "finetune-bench"). */
export function finetuneBenchSeries(count: number, length: number): SeriesData {
  const u = seedrandom("finetune-bench");
  const y = new Float64Array(count * length);
  for (let s = 0; s < count; s++) {
    const level = 50 + 100 * u();
    const amp = 5 + 20 * u();
    const slope = (u() - 0.5) * 0.1;
    for (let t = 0; t < length; t++) {
      const noise = (u() + u() + u() - 1.5) * 4;
      y[s * length + t] = level + slope * t + amp * Math.sin((2 * Math.PI * t) / 7) + noise;
    }
  }
  return { y, sizes: new Int32Array(count).fill(length), offsets: Int32Array.from({ length: count + 1 }, (_, i) => i * length), X: [] };
}
