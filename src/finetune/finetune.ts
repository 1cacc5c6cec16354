/**
 * Fine-tuning: Adam steps on windows drawn from the request's own series,
 * updating only the suffix of the network's parameters that the fine-tune
 * depth opens, and the one function every pipeline uses to get its model.
 * @module
 */
import seedrandom from "seedrandom";
import { finetuneLossNames, getLoss } from "../losses/index.js";
import {
  AdamOptimizer,
  aggregationFactor,
  applyFinetuned,
  createNetworkForecaster,
  depthStart,
  networkShape,
  parameterLayout,
  MODELS,
  networkLossAndGradient,
  pretrainedParameters,
  requestModelParams,
  withMemo,
  type ForecastMemo,
} from "../model/index.js";
import type {
  FinetuneDepth,
  FinetuneInput,
  FinetuneOutput,
  FinetunedWeights,
  Forecaster,
  ModelSpec,
  SeriesData,
} from "../types.js";
import { finetuneSeed } from "./seed.js";
import { refitOutputEnd, type ReadoutChoice } from "./readout.js";
import { boundedProgress } from "../progress.js";
import { blockMeansToEnd } from "../series/blocks.js";
import { packSeries, seriesOffsets } from "../series/pack.js";

/**
 * Peak Adam learning rate of fine-tuning. The rate follows a cosine from this
 * value down to 10 % of it over the requested steps, so the last steps refine
 * rather than jump. Chosen by measurement (`test/finetune/finetune-helps.test.ts`,
 * interim weights): with 50 steps on a period-10 sawtooth, 3e-4 / 1e-3 / 3e-3
 * cut the hold-out MAE by 23 / 65 / 81 % at depth 1 and 59 / 77 / 76 % at
 * depth 5, while on a weekly sine with noise all three gave the same 21–26 %:
 * 3e-3 adapts within the default 10 steps and did not hurt the familiar family.
 *
 * Measured since on real data (`bench/eval-finetune.ts`, half A; mean over its
 * four "all" cells of fine-tuned / zero-shot hold-out MASE): 3e-3 1.063,
 * 1e-3 1.022, 3e-4 0.991, 1e-4 0.990; half B 1.021, 1.001, 0.990, 0.990. So
 * at this rate default fine-tuning raises M1's error on average (its
 * quarterly and monthly requests), and at 3e-4 it would lower it. Not
 * changed: on the hosted API's SDK suite (tools/sdk-suite) 3e-4 and 1e-3 make
 * `test_anomaly_detection_with_finetuned_model` fail (the twice-tuned model
 * flags 8 of the 10 injected anomalies, as the base model does; it must flag
 * more), which passes at 3e-3.
 *
 * @example
 * ```ts
 * FINETUNE_LEARNING_RATE; // => 0.003
 * ```
 * @category Fine-tuning
 */
export const FINETUNE_LEARNING_RATE = 3e-3;

/**
 * Smallest number of windows per step (drawn round-robin over the series,
 * repeating a series when there are fewer), so that one short series still
 * gives a gradient averaged over many cut points.
 *
 * @example
 * ```ts
 * Math.min(FINETUNE_MAX_BATCH, Math.max(FINETUNE_MIN_BATCH, 3)); // => 32 (windows per step for 3 series)
 * ```
 * @category Fine-tuning
 */
export const FINETUNE_MIN_BATCH = 32;

/**
 * Largest number of windows per step, which bounds the cost of a step
 * (with more series, consecutive steps take consecutive slices of a seeded
 * series order, so every series is visited equally often).
 *
 * @example
 * ```ts
 * Math.min(FINETUNE_MAX_BATCH, Math.max(FINETUNE_MIN_BATCH, 1000)); // => 128 (windows per step for 1000 series)
 * ```
 * @category Fine-tuning
 */
export const FINETUNE_MAX_BATCH = 128;

/**
 * Windows per fine-tune step for `seriesCount` series: one per series,
 * clamped to [`FINETUNE_MIN_BATCH`, `FINETUNE_MAX_BATCH`]. The run reads it
 * with the series it can tune on, the work budget with the series sent.
 *
 * @example
 * ```ts
 * [finetuneBatchSize(3), finetuneBatchSize(100), finetuneBatchSize(1000)]; // => [32, 100, 128]
 * ```
 * @category Fine-tuning
 */
export function finetuneBatchSize(seriesCount: number): number {
  return Math.min(FINETUNE_MAX_BATCH, Math.max(FINETUNE_MIN_BATCH, seriesCount));
}

/**
 * Depth that is used for `forecastmodel-2.1`: the API says fine-tune depth is
 * effective only for `forecastmodel-1` and `forecastmodel-1-long-horizon`, so
 * any requested depth fine-tunes the output end (with a warning when it is not 1).
 *
 * @example
 * ```ts
 * FINETUNE_DEPTH_FIXED_MODEL_2_1; // => 1
 * ```
 * @category Fine-tuning
 */
export const FINETUNE_DEPTH_FIXED_MODEL_2_1: FinetuneDepth = MODELS["forecastmodel-2.1"].fixedFinetuneDepth ?? 1;

/**
 * Options of {@link prepareForecaster} and {@link finetuneParameters}.
 *
 * @example
 * ```ts
 * const options: PrepareForecasterOptions = { trainLengths: Int32Array.from([100, 80]) };
 * options.trainLengths!.length; // => 2
 * ```
 * @category Fine-tuning
 */
export interface PrepareForecasterOptions {
  /**
   * Fine-tune on the first `trainLengths[i]` points of series i only (e.g. the
   * part before a cross-validation window); default: every point.
   */
  trainLengths?: Int32Array;
  /**
   * Forecasts kept between calls ({@link createForecastMemo}): the zero-shot
   * forecaster of the pretrained weights answers from it the contexts it has
   * forecast before (byte-identical answers). Not used with fine-tuning or
   * stored fine-tuned weights.
   */
  memo?: ForecastMemo;
}

/**
 * The model a pipeline forecasts with, and the fine-tune work done to get it.
 *
 * @example
 * ```ts
 * const series = { y: new Float64Array([1, 2, 3]), sizes: Int32Array.from([3]), offsets: Int32Array.from([0, 3]), X: [] };
 * const prepared: PreparedForecaster = prepareForecaster({ model: "forecastmodel-1", freq: "D",
 *   finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null }, series);
 * prepared.finetuneWork; // => 0
 * ```
 * @category Fine-tuning
 */
export interface PreparedForecaster {
  /** The network forecaster with the (possibly fine-tuned) parameters. */
  forecaster: Forecaster;
  /** `finetune.steps × number of series` (0 without fine-tuning). */
  finetuneWork: number;
  /**
   * The stored form of the parameters used: the fine-tuned suffix, `spec.finetuned`
   * when no steps were taken, or `null` for the plain pretrained model.
   */
  weights: FinetunedWeights | null;
  /** Notes for the caller's `warnings` (e.g. nothing to fine-tune on). */
  warnings: string[];
}

/**
 * Full parameters after fine-tuning, with their stored form.
 *
 * @example
 * ```ts
 * const series = { y: new Float64Array([1, 2, 3, 4]), sizes: Int32Array.from([4]), offsets: Int32Array.from([0, 4]), X: [] };
 * const run: FinetunedParameters = finetuneParameters({ model: "forecastmodel-1", freq: "D",
 *   finetune: { steps: 1, loss: "mae", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null }, series);
 * run.stepLosses.length; // => 1
 * ```
 * @category Fine-tuning
 */
export interface FinetunedParameters {
  /** The full flat parameter vector (a new array, safe to keep). */
  params: Float64Array;
  /** As in {@link PreparedForecaster.weights}. */
  weights: FinetunedWeights | null;
  /** `finetune.steps × number of series` (0 without fine-tuning). */
  finetuneWork: number;
  /** Notes for the caller's `warnings`. */
  warnings: string[];
  /** Mean training loss of each step taken (in the data's units divided by a power of two; for diagnostics). */
  stepLosses: Float64Array;
  /** What the output end's closed-form refit chose (null: not run: no steps or no usable window, or a loss outside {@link READOUT_LOSSES}). */
  readout: ReadoutChoice | null;
}

/**
 * Losses after whose steps the output end is refit in closed form
 * (`refitOutputEnd`): the refit minimises squared error, so it follows the
 * squared-error losses and the default (a Huber loss, squared near zero);
 * `"mae"`, `"mape"`, `"smape"` and `"poisson"` ask for another criterion and
 * keep the optimiser's weights.
 *
 * @example
 * ```ts
 * READOUT_LOSSES; // => ["default", "mse", "rmse"]
 * ```
 * @category Fine-tuning
 */
export const READOUT_LOSSES: readonly string[] = ["default", "mse", "rmse"];

/** Guards of the typed settings (the API reports these as 422 items before any tuning). */
function checkSpec(spec: ModelSpec): void {
  const { steps, depth, loss } = spec.finetune;
  if (!Number.isInteger(steps) || steps < 0) throw new RangeError(`fine-tuning: finetune.steps must be an integer >= 0, got ${String(steps)}`);
  if (!Number.isInteger(depth) || depth < 1 || depth > 5) throw new RangeError(`fine-tuning: finetune.depth must be 1, 2, 3, 4 or 5, got ${String(depth)}`);
  if (!finetuneLossNames.includes(loss)) throw new RangeError(`fine-tuning: finetune.loss must be one of ${finetuneLossNames.join(", ")}, got ${String(loss)}`);
  if (spec.finetuned !== null && spec.finetuned.model !== spec.model) {
    throw new RangeError(`fine-tuning: the fine-tuned weights were trained from ${spec.finetuned.model}, but the request uses ${spec.model}`);
  }
}

/**
 * Each series' first trainLengths[i] points as the means of blocks of
 * `blocks` steps ending at its training end (`blockMeansToEnd`), with their
 * training lengths.
 */
function blockMeanSeries(series: SeriesData, trainLengths: Int32Array, blocks: number): { series: SeriesData; trainLengths: Int32Array } {
  const count = series.sizes.length;
  const parts: Float64Array[] = [];
  for (let i = 0; i < count; i++) {
    const from = series.offsets[i] as number;
    parts.push(blockMeansToEnd(series.y.subarray(from, from + (trainLengths[i] as number)), blocks));
  }
  const { y, sizes } = packSeries(parts);
  return { series: { y, sizes, offsets: seriesOffsets(sizes), X: [] }, trainLengths: Int32Array.from(sizes) };
}

function resolveTrainLengths(series: SeriesData, trainLengths: Int32Array | undefined): Int32Array {
  const k = series.sizes.length;
  if (trainLengths === undefined) return series.sizes;
  if (trainLengths.length !== k) {
    throw new RangeError(`prepareForecaster: trainLengths has ${trainLengths.length} entries, the data has ${k} series`);
  }
  for (let i = 0; i < k; i++) {
    const t = trainLengths[i] as number;
    if (t < 0 || t > (series.sizes[i] as number)) {
      throw new RangeError(`prepareForecaster: trainLengths[${i}] = ${t} must be in 0..${series.sizes[i] as number} (the series length)`);
    }
  }
  return trainLengths;
}

/** A power of two near the mean |value| of the training points (1 when they are all 0). */
function powerOfTwoScale(y: Float64Array, offsets: Int32Array, trainLengths: Int32Array): number {
  let maxAbs = 0;
  let count = 0;
  for (let i = 0; i < trainLengths.length; i++) {
    const from = offsets[i] as number;
    const to = from + (trainLengths[i] as number);
    for (let j = from; j < to; j++) {
      const a = Math.abs(y[j] as number);
      if (a > maxAbs) maxAbs = a;
    }
    count += trainLengths[i] as number;
  }
  if (!(maxAbs > 0) || count === 0) return 1;
  // Only the order of magnitude matters here, so a plain sum (of values in [0, 1]) is enough.
  let sum = 0;
  for (let i = 0; i < trainLengths.length; i++) {
    const from = offsets[i] as number;
    const to = from + (trainLengths[i] as number);
    for (let j = from; j < to; j++) sum += Math.abs(y[j] as number) / maxAbs;
  }
  const meanAbs = (sum / count) * maxAbs;
  const exponent = Math.max(-1000, Math.min(1000, Math.floor(Math.log2(meanAbs))));
  return Math.pow(2, exponent);
}

/**
 * Fine-tunes a model's parameters on the request's own series (or returns the
 * zero-shot parameters when `spec.finetune.steps` is 0).
 *
 * Method: start from the pretrained parameters, or from `spec.finetuned` when
 * given. Divide every training point by one power of two near their mean |value|
 * (exact, and harmless: the network and every loss are scale-equivariant, so
 * this only keeps gradients of huge or tiny data finite). Then take
 * `spec.finetune.steps` Adam steps ({@link FINETUNE_LEARNING_RATE}, cosine to
 * 10 %) on `[depthStart(model, depth), end)` of the flat parameter vector. Each
 * step uses a batch of `clamp(number of series, 32, 128)` windows: series are
 * visited round-robin in a seeded order (each at least once per step when there
 * are at most 128), and each window cuts its series (first `trainLengths[i]`
 * points) at a uniformly drawn point `t`: the context is every point before
 * `t`, the target the next `min(horizon, length − t)` points. `t` is drawn from
 * `[max(1, min(inputSize, length − horizon)), length − 1]`, so windows have a
 * full context whenever the series is long enough. Series with fewer than 2
 * training points are not used. The random generator is `seedrandom` seeded by
 * {@link finetuneSeed} of the model, frequency and scaled training data: the
 * same request gives the same parameters, and so does the same data times a
 * power of two. A step whose loss or gradient is not finite is skipped
 * (with a warning).
 *
 * The stored form (`weights`) is the suffix that could have changed: from
 * `min(depthStart, spec.finetuned.start)` to the end.
 *
 * @param spec - model, frequency, fine-tune settings and optional starting fine-tuned model
 * @param series - the request's series
 * @param options - optional training lengths
 * @returns parameters, their stored form, fine-tune work (steps × series) and warnings
 * @throws RangeError for bad fine-tune settings or a non-finite training value (the API reports these as 422 items first)
 * @example
 * ```ts
 * const series = { y: new Float64Array([1, 2, 3, 4, 5, 6]), sizes: Int32Array.from([6]), offsets: Int32Array.from([0, 6]), X: [] };
 * const spec = { model: "forecastmodel-1", freq: "D", finetune: { steps: 2, loss: "mae", depth: 1 },
 *   finetuned: null, multivariate: false, modelParameters: null } as const;
 * const run = finetuneParameters(spec, series);
 * run.finetuneWork; // => 2
 * run.weights!.start === depthStart("forecastmodel-1", 1); // => true
 * ```
 * @category Fine-tuning
 */
export function finetuneParameters(spec: ModelSpec, series: SeriesData, options: PrepareForecasterOptions = {}): FinetunedParameters {
  checkSpec(spec);
  const trainLengths = resolveTrainLengths(series, options.trainLengths);
  const { model, freq } = spec;
  const { steps, loss } = spec.finetune;
  const base = spec.finetuned;
  const blocks = aggregationFactor(model, freq);
  if (blocks > 1 && steps > 0) {
    // the network reads sub-half-hourly data as half-hour block means: it is tuned on them (blocks end at each series' training end)
    const blocked = blockMeanSeries(series, trainLengths, blocks);
    // tuned at half-hours: the spec's resolved params (of its own freq) are left out
    const { params: _params, ...halfHourly } = spec;
    return finetuneParameters({ ...halfHourly, freq: "30min" }, blocked.series, { ...options, trainLengths: blocked.trainLengths });
  }
  if (steps === 0) {
    return {
      params: applyFinetuned(model, base),
      weights: base,
      finetuneWork: 0,
      warnings: [],
      stepLosses: new Float64Array(0),
      readout: null,
    };
  }
  const warnings: string[] = [];
  const depth = MODELS[model].fixedFinetuneDepth ?? spec.finetune.depth;
  if (depth !== spec.finetune.depth) {
    warnings.push(`finetune_depth has no effect for ${model}: depth ${depth} was used`);
  }
  const { y, offsets } = series;
  const seriesCount = series.sizes.length;
  // Training values must be finite (the API rejects them earlier; this guards direct callers).
  for (let i = 0; i < seriesCount; i++) {
    const from = offsets[i] as number;
    const to = from + (trainLengths[i] as number);
    for (let j = from; j < to; j++) {
      if (!Number.isFinite(y[j] as number)) throw new RangeError(`fine-tuning: y[${j}] must be a finite number, got ${String(y[j])}`);
    }
  }

  const params = applyFinetuned(model, base);
  const total = params.length;
  const from = depthStart(model, depth);
  const start = base === null ? from : Math.min(from, base.start);
  const finetuneWork = steps * seriesCount;
  const stepLosses = new Float64Array(steps);

  const usable: number[] = [];
  for (let i = 0; i < seriesCount; i++) if ((trainLengths[i] as number) >= 2) usable.push(i);
  if (usable.length === 0) {
    warnings.push("no series has at least 2 points to fine-tune on: the model was not changed");
    stepLosses.fill(NaN);
    return { params, weights: { model, start, values: params.slice(start) }, finetuneWork, warnings, stepLosses, readout: null };
  }

  const scale = powerOfTwoScale(y, offsets, trainLengths);
  const scaled = new Float64Array(y.length);
  for (let i = 0; i < seriesCount; i++) {
    const o = offsets[i] as number;
    const to = o + (trainLengths[i] as number);
    for (let j = o; j < to; j++) scaled[j] = (y[j] as number) / scale;
  }
  // Seeded by the scaled data: data multiplied by a power of two fine-tunes exactly alike.
  const rng = seedrandom(finetuneSeed({ model, freq, y: scaled, offsets, trainLengths }));
  // Seeded order of the usable series (Fisher–Yates).
  for (let i = usable.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const tmp = usable[i] as number;
    usable[i] = usable[j] as number;
    usable[j] = tmp;
  }

  const { horizon, inputSize } = requestModelParams(spec);
  const batchSize = finetuneBatchSize(usable.length);
  const contexts = new Array<Float64Array>(batchSize);
  const targets = new Array<Float64Array>(batchSize);
  const batch = { contexts, targets };
  // the loss is about the point forecast: the spread head (from spreadStart on) gets no gradient, and Adam leaves
  // a parameter whose gradient was always 0 exactly as it is, so its steps stop there
  const pointEnd = Math.max(from, parameterLayout(networkShape(model)).spreadStart);
  const adam = new AdamOptimizer(total, { learningRate: FINETUNE_LEARNING_RATE });
  // the steps work on Adam's own arrays (updated in WebAssembly without a copy); params gets the result after them
  const { params: working, grad } = adam.workArrays();
  working.set(params);
  const lossFn = getLoss(loss);
  let skipped = 0;
  let cursor = 0;
  const report = boundedProgress(spec.onProgress, "finetune");
  const drawnSeries = new Int32Array(steps * batchSize);
  const drawnOrigins = new Int32Array(steps * batchSize);
  for (let step = 0; step < steps; step++) {
    for (let b = 0; b < batchSize; b++) {
      const k = usable[cursor] as number;
      cursor = cursor + 1 === usable.length ? 0 : cursor + 1;
      const length = trainLengths[k] as number;
      const o = offsets[k] as number;
      const tLo = Math.max(1, Math.min(inputSize, length - horizon));
      const t = tLo + Math.floor(rng() * (length - tLo));
      contexts[b] = scaled.subarray(o, o + t);
      targets[b] = scaled.subarray(o + t, o + Math.min(length, t + horizon));
      drawnSeries[step * batchSize + b] = k;
      drawnOrigins[step * batchSize + b] = t;
    }
    // after the first step only Adam has moved params, and only from `from` on: the kernel's copy of the rest stands
    const value = networkLossAndGradient(model, freq, working, batch, lossFn, grad, from, step === 0 ? 0 : from);
    stepLosses[step] = value;
    // every gradient finite exactly when Σ 0·g is 0 (0·±∞ and 0·NaN are NaN): one pass without a branch per entry
    let zero = 0;
    for (let i = from; i < pointEnd; i++) zero += 0 * (grad[i] as number);
    const finite = Number.isFinite(value) && zero === 0;
    if (!finite) {
      skipped++;
      report?.(step + 1, steps);
      continue;
    }
    const progress = steps > 1 ? step / (steps - 1) : 0;
    adam.learningRate = FINETUNE_LEARNING_RATE * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * progress)));
    adam.step(working, grad, from, pointEnd);
    report?.(step + 1, steps);
  }
  params.set(working);
  if (skipped > 0) warnings.push(`${skipped} of ${steps} fine-tune steps had a non-finite loss or gradient and were skipped`);
  // the output end refit in closed form where the series' last points show it helps (squared-error losses)
  const readout = READOUT_LOSSES.includes(loss)
    ? refitOutputEnd(model, freq, params, { scaled, offsets, trainLengths, usable, horizon, drawnSeries, drawnOrigins })
    : null;
  return { params, weights: { model, start, values: params.slice(start) }, finetuneWork, warnings, stepLosses, readout };
}

/**
 * The model every pipeline forecasts with: zero-shot when
 * `spec.finetune.steps === 0` (with `spec.finetuned` applied when set),
 * otherwise fine-tuned on the series by {@link finetuneParameters}.
 *
 * `finetuneWork` = steps × number of series (0 without fine-tuning). With
 * 0 steps the forecaster is exactly the zero-shot one (same parameters, no
 * computation on the series).
 *
 * @param spec - model, frequency, fine-tune settings, starting fine-tuned model, multivariate flag
 * @param series - the request's series
 * @param options - `trainLengths`: fine-tune only on the first `trainLengths[i]` points of series i
 * @returns the forecaster, fine-tune work (steps × series), stored weights and warnings
 * @throws RangeError for bad fine-tune settings or a non-finite training value (the API reports these as 422 items first)
 * @example
 * ```ts
 * const series = { y: new Float64Array([1, 2, 3, 4]), sizes: Int32Array.from([4]), offsets: Int32Array.from([0, 4]), X: [] };
 * const spec = { model: "forecastmodel-1", freq: "D", finetune: { steps: 0, loss: "default", depth: 1 },
 *   finetuned: null, multivariate: false, modelParameters: null } as const;
 * const { forecaster, finetuneWork, weights } = prepareForecaster(spec, series);
 * finetuneWork; // => 0
 * weights; // => null
 * forecaster.forecast([series.y], 2).length; // => 2
 * ```
 * @category Fine-tuning
 */
export function prepareForecaster(spec: ModelSpec, series: SeriesData, options: PrepareForecasterOptions = {}): PreparedForecaster {
  const multivariate = spec.multivariate;
  if (spec.finetune.steps === 0) {
    checkSpec(spec);
    let forecaster: Forecaster;
    if (spec.finetuned === null) {
      forecaster = createNetworkForecaster(spec.model, spec.freq, { multivariate });
      if (options.memo !== undefined) forecaster = withMemo(forecaster, options.memo, pretrainedParameters(spec.model), `${spec.model}|${spec.freq}|${String(multivariate)}`);
    } else {
      forecaster = createNetworkForecaster(spec.model, spec.freq, { params: applyFinetuned(spec.model, spec.finetuned), multivariate });
    }
    return { forecaster, finetuneWork: 0, weights: spec.finetuned, warnings: [] };
  }
  const run = finetuneParameters(spec, series, options);
  return {
    forecaster: createNetworkForecaster(spec.model, spec.freq, { params: run.params, multivariate }),
    finetuneWork: run.finetuneWork,
    weights: run.weights,
    warnings: run.warnings,
  };
}

/**
 * Runs a fine-tune request (POST /v2/finetune without the storage): fine-tunes
 * on every point of every series and returns the weights to store.
 *
 * The weights are the parameter suffix that could have changed (see
 * {@link finetuneParameters}); with 0 steps they are `request.finetuned`, or an
 * empty suffix (`start` = parameter count, no values) when there is none.
 * `finetuneWork` = steps × number of series (0 with 0 steps); the API adds
 * the stored model's id and counts the tokens (`finetuneResultJson`).
 *
 * @param request - the validated fine-tune request
 * @returns weights to store, the fine-tune work and warnings
 * @throws RangeError for bad fine-tune settings or a non-finite value (the API reports these as 422 items first)
 * @example
 * ```ts
 * const series = { y: new Float64Array([3, 1, 4, 1, 5, 9, 2, 6]), sizes: Int32Array.from([4, 4]), offsets: Int32Array.from([0, 4, 8]), X: [] };
 * const res = finetuneModel({ model: "forecastmodel-1", freq: "D", finetune: { steps: 3, loss: "default", depth: 1 },
 *   finetuned: null, multivariate: false, modelParameters: null, series });
 * res.finetuneWork; // => 6
 * res.weights.start === depthStart("forecastmodel-1", 1); // => true
 * ```
 * @category Fine-tuning
 */
export function finetuneModel(request: FinetuneInput): FinetuneOutput {
  const run = finetuneParameters(request, request.series);
  const model = request.model;
  const weights = run.weights ?? { model, start: run.params.length, values: new Float64Array(0) };
  return { weights, finetuneWork: run.finetuneWork, warnings: run.warnings };
}
