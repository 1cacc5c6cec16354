/**
 * Pretraining on synthetic series: deterministic batches, MAE in the
 * window's standardised units, Adam with warm-up and cosine decay, gradient
 * norm clipping. The multi-core driver (`tools/pretrain.ts`) splits each
 * batch between worker threads with these same functions.
 * @module
 */
import seedrandom from "seedrandom";
import type { ModelName } from "../../src/types.js";
import { networkShape, type NetworkShape } from "../../src/model/config.js";
import { initialParameters, parameterLayout } from "../../src/model/network.js";
import { syntheticGroup, syntheticWindow, type Uniform } from "./synthetic.js";
import { syntheticHfWindow, type HfWindow } from "./synthetic-hf.js";
import { loadHourly } from "../datasets/hourly-data.js";
import { AdamOptimizer, BatchGradient, type SampleLoss, type TrainingBatch } from "../../src/model/train.js";

/**
 * Settings of one pretraining run.
 */
export interface PretrainConfig {
  readonly model: ModelName;
  readonly seed: string;
  readonly steps: number;
  readonly batchSize: number;
  readonly learningRate: number;
  readonly warmupSteps: number;
  /** Parameters to start from (e.g. forecastmodel-1's for the cross-series model); default: fresh init. */
  readonly initial?: Float64Array;
  /** Cycle through only this many distinct batches (smoke runs that must fit them); default: a new batch every step. */
  readonly distinctBatches?: number;
  /**
   * What is trained: `"point"` (default) the point network with the MAE, the
   * spread head untouched; `"spread"` the spread head alone with the quantile
   * loss, the point network untouched.
   */
  readonly stage?: PretrainStage;
}

/**
 * A pretraining stage: the point network first, then the spread head on it.
 */
export type PretrainStage = "point" | "spread";

/**
 * The mean loss of one stage on a batch, with its gradient in `grad` (the
 * single- and multi-threaded drivers share it).
 */
export function pretrainStageGradient(worker: BatchGradient, stage: PretrainStage, params: Float64Array, batch: TrainingBatch, grad: Float64Array): number {
  return stage === "spread" ? worker.runSpread(params, batch, grad) : worker.run(params, batch, standardisedMae, grad, 0, true);
}

/**
 * Mean absolute error over a sample's steps, with its gradient (sign / n).
 *
 * @example
 * ```ts
 * const g = new Float64Array(2);
 * standardisedMae(new Float64Array([1, 2]), new Float64Array([0, 4]), g); // => 1.5
 * Array.from(g); // => [0.5, -0.5]
 * ```
 */
export const standardisedMae: SampleLoss = (pred, actual, gradOut) => {
  const n = pred.length;
  let sum = 0;
  for (let k = 0; k < n; k++) {
    const d = pred[k]! - actual[k]!;
    sum += Math.abs(d);
    gradOut[k] = (d > 0 ? 1 : d < 0 ? -1 : 0) / n;
  }
  return sum / n;
};

/**
 * The deterministic training batch of `step` for part `part` (of a batch split
 * into parts): the same (seed, step, part) always gives the same windows.
 */
export function pretrainBatch(shape: NetworkShape, seed: string, step: number, part: number, count: number): TrainingBatch {
  // The seasons view draws long histories point by point: its batches use the faster Alea generator.
  const u = shape.view === "seasons" ? seedrandom.alea(`${seed}:${step}:${part}`) : seedrandom(`${seed}:${step}:${part}`);
  const contexts: Float64Array[] = [];
  const targets: Float64Array[] = [];
  const seasons = new Int32Array(count);
  if (shape.view === "seasons") {
    const longSeasons = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      const w = u() < REAL_SHARE ? realHfWindow(u, shape) : syntheticHfWindow(u, shape);
      contexts.push(w.context);
      targets.push(w.target);
      seasons[i] = w.seasonLength;
      longSeasons[i] = w.longSeason;
    }
    return { contexts, targets, seasonLengths: seasons, longSeasons };
  }
  if (!shape.crossSeries) {
    for (let i = 0; i < count; i++) {
      const w = syntheticWindow(u, shape);
      contexts.push(w.context);
      targets.push(w.target);
      seasons[i] = w.seasonLength;
    }
    return { contexts, targets, seasonLengths: seasons };
  }
  const groups: number[] = [];
  while (contexts.length < count) {
    const size = Math.min(count - contexts.length, 1 + Math.floor(u() * 6));
    const members = size === 1 ? [syntheticWindow(u, shape)] : syntheticGroup(u, shape, size);
    for (const w of members) {
      seasons[contexts.length] = w.seasonLength;
      contexts.push(w.context);
      targets.push(w.target);
    }
    groups.push(size);
  }
  return { contexts, targets, seasonLengths: seasons, groups: Int32Array.from(groups) };
}

/**
 * Share of the seasons view's training windows drawn from real development
 * series (the rest are synthetic).
 */
const REAL_SHARE = 0.2;

/** Hourly and half-hourly development series, each cut before its first development evaluation origin. */
let realSeries: { y: Float64Array; day: number; limit: number }[] | null = null;

/**
 * A window from the hourly data's development parts (tools/datasets/hourly-data.ts):
 * ETT, taylor and the Cloud Monitoring Dataset's hourly development streams,
 * only before the first development origin of each series (so neither part's
 * evaluation windows are trained on). History: a log-uniform length from two
 * days to all that is before the origin.
 */
function realHfWindow(u: Uniform, shape: NetworkShape): HfWindow {
  if (realSeries === null) {
    const { series, origins } = loadHourly();
    realSeries = [];
    series.forEach((s, i) => {
      if (s.day > 48) return;
      const first = Math.min(...origins.filter((o) => o.series === i && o.part === "development").map((o) => o.origin));
      if (first - shape.outputLength > 2 * s.day) realSeries!.push({ y: s.y, day: s.day, limit: first });
    });
  }
  const s = realSeries[Math.floor(u() * realSeries.length)]!;
  const O = shape.outputLength;
  const origin = 2 * s.day + Math.floor(u() * (s.limit - O - 2 * s.day + 1));
  const length = Math.max(2 * s.day, Math.floor(Math.exp(Math.log(2 * s.day) + u() * (Math.log(origin) - Math.log(2 * s.day)))));
  const from = Math.max(0, origin - length);
  return { context: s.y.slice(from, origin), target: s.y.slice(origin, origin + O), seasonLength: s.day, longSeason: 7 * s.day };
}

/**
 * Learning rate at a step: linear warm-up, then cosine decay to 5 % of the peak.
 *
 * @example
 * ```ts
 * learningRateAt({ learningRate: 1e-3, warmupSteps: 10, steps: 100 }, 100); // => 0.00005
 * ```
 */
function learningRateAt(config: { learningRate: number; warmupSteps: number; steps: number }, step: number): number {
  if (step < config.warmupSteps) return (config.learningRate * (step + 1)) / config.warmupSteps;
  const progress = Math.min(1, (step - config.warmupSteps) / Math.max(1, config.steps - config.warmupSteps));
  return config.learningRate * (0.05 + 0.95 * 0.5 * (1 + Math.cos(Math.PI * progress)));
}

/**
 * Scales `grad` in place so its Euclidean norm is at most `maxNorm`; returns the norm before.
 *
 * @example
 * ```ts
 * const g = new Float64Array([3, 4]);
 * clipGradientNorm(g, 1); // => 5
 * Array.from(g); // => [0.6, 0.8] (to 1e-12)
 * ```
 */
function clipGradientNorm(grad: Float64Array, maxNorm: number): number {
  let s = 0;
  for (let i = 0; i < grad.length; i++) s += grad[i]! * grad[i]!;
  const norm = Math.sqrt(s);
  if (norm > maxNorm) {
    const f = maxNorm / norm;
    for (let i = 0; i < grad.length; i++) grad[i]! *= f;
  }
  return norm;
}

/**
 * One pretraining update from a batch-mean gradient: clip its norm at 1, set
 * the scheduled learning rate, take an Adam step (the single- and the
 * multi-threaded drivers share it).
 */
export function pretrainUpdate(
  adam: AdamOptimizer, params: Float64Array, grad: Float64Array,
  config: { learningRate: number; warmupSteps: number; steps: number }, step: number,
): void {
  clipGradientNorm(grad, 1);
  adam.learningRate = learningRateAt(config, step);
  adam.step(params, grad);
}

/**
 * Fresh parameters of a model for a seed.
 */
export function pretrainInitialParameters(model: ModelName, seed: string): Float64Array {
  return initialParameters(networkShape(model), seedrandom(`${seed}:init`));
}

/**
 * Single-threaded pretraining (tests, smoke runs). Calls `onStep(step, loss)`
 * after each step and returns the trained parameters.
 *
 * @example
 * ```ts
 * const params = pretrainSingleThread({ model: "forecastmodel-1", seed: "s", steps: 2, batchSize: 4, learningRate: 1e-3, warmupSteps: 1 });
 * params.length === parameterCount("forecastmodel-1"); // => true
 * ```
 */
export function pretrainSingleThread(config: PretrainConfig, onStep?: (step: number, loss: number) => void): Float64Array {
  const shape = networkShape(config.model);
  const params = config.initial?.slice() ?? pretrainInitialParameters(config.model, config.seed);
  if (params.length !== parameterLayout(shape).total) throw new RangeError("initial parameters do not fit the model");
  const grad = new Float64Array(params.length);
  const adam = new AdamOptimizer(params.length, { learningRate: config.learningRate });
  const worker = new BatchGradient(shape);
  for (let step = 0; step < config.steps; step++) {
    const batch = pretrainBatch(shape, config.seed, config.distinctBatches === undefined ? step : step % config.distinctBatches, 0, config.batchSize);
    const loss = pretrainStageGradient(worker, config.stage ?? "point", params, batch, grad);
    pretrainUpdate(adam, params, grad, config, step);
    onStep?.(step, loss);
  }
  return params;
}

/**
 * Maps forecastmodel-1 parameters onto the cross-series network
 * (forecastmodel-2.1): every tensor is copied (the spread head too), and the
 * stem's weights for the extra peer inputs start at zero, so the cross-series
 * model starts out as exactly forecastmodel-1.
 */
export function expandToCrossSeries(univariate: Float64Array): Float64Array {
  const from = parameterLayout(networkShape("forecastmodel-1"));
  const toShape = networkShape("forecastmodel-2.1");
  const to = parameterLayout(toShape);
  if (univariate.length !== from.total) throw new RangeError("expected forecastmodel-1 parameters");
  const out = new Float64Array(to.total);
  const W = toShape.width;
  for (let r = 0; r < W; r++) {
    out.set(univariate.subarray(from.stemW + r * from.inputSize, from.stemW + (r + 1) * from.inputSize), to.stemW + r * to.inputSize);
  }
  out.set(univariate.subarray(from.stemB), to.stemB);
  return out;
}
