/**
 * Gradients of the network on batches of (context, target) windows, the
 * depth → parameter-range map of fine-tuning, and Adam. Used by pretraining
 * and by fine-tuning.
 * @module
 */
import type { FinetuneDepth, Freq, ModelName } from "../types.js";
import { longSeasonLength, modelParams, networkShape, SPREAD_LEVELS, type NetworkShape } from "./config.js";
import type { Featurizer, WindowScale } from "./features.js";
import { createFeaturizer } from "./featurizer.js";
import { NetworkRunner, parameterLayout, SPREAD_PER_STEP } from "./network.js";
import { ADAM_WASM_BASE64 } from "./kernel/adam-wasm.js";
import { makeKernel, WASM_PAGE } from "./kernel/wasm.js";

/** Standardised targets are clipped to ±this in pretraining. */
const TARGET_CLIP = 30;

/**
 * A target in the window's standardised units, winsorised at ±{@link TARGET_CLIP}
 * (explosive synthetic paths would otherwise dominate a batch).
 */
function winsorisedTarget(value: number, s: WindowScale): number {
  const z = (value - s.location) / s.scale;
  return z > TARGET_CLIP ? TARGET_CLIP : z < -TARGET_CLIP ? -TARGET_CLIP : z;
}

/**
 * A per-sample loss: returns its value and writes d(loss)/d(pred) into `gradOut`.
 * @category Network
 */
export type SampleLoss = (pred: Float64Array, actual: Float64Array, gradOut: Float64Array) => number;

/**
 * Windows to learn from. `groups` (optional) lists group sizes of time-aligned peers, in order.
 * @category Network
 */
export interface TrainingBatch {
  readonly contexts: readonly Float64Array[];
  readonly targets: readonly Float64Array[];
  /** Season length of every sample, or one per sample. */
  readonly seasonLengths: number | Int32Array;
  /** The longer season (a week of steps) read by the seasons view, for all samples or one per sample; default 0 (none). */
  readonly longSeasons?: number | Int32Array;
  readonly groups?: Int32Array;
}

/** What a training pass does with each chunk of a batch (see BatchGradient.forEachChunk). */
interface ChunkPass {
  /** The chunk's inputs, its rows, and the batch index of its first row. */
  forward(xs: Float64Array, rows: number, first: number): void;
  /** Row r of the chunk: its `len` usable target steps, its target and its window's scale. */
  sample(r: number, len: number, target: Float64Array, scale: WindowScale): void;
  /** After the chunk's samples: a training pass's backward step (or what a pass keeps of the chunk). */
  afterChunk(xs: Float64Array, rows: number, first: number): void;
}

/**
 * Computes the loss and gradient of one network shape over batches. Keeps its
 * buffers between calls; not safe to share between concurrent users.
 * @category Network
 */
export class BatchGradient {
  /** The network shape this computes gradients for. */
  readonly shape: NetworkShape;
  private readonly featurizer: Featurizer;
  private readonly runner: NetworkRunner;
  private x: Float64Array;
  private scales: WindowScale[];
  private readonly out: Float64Array;
  private readonly dOut: Float64Array;
  private readonly pred: Float64Array;
  private readonly actual: Float64Array;
  private readonly gradPred: Float64Array;
  private readonly peerSums: Float64Array;
  private spreadOut: Float64Array;
  private dSpread: Float64Array;

  constructor(shape: NetworkShape, chunk = 128) {
    this.shape = shape;
    this.featurizer = createFeaturizer(shape);
    this.runner = new NetworkRunner(shape, chunk);
    this.x = new Float64Array(0);
    this.scales = [];
    const O = shape.outputLength;
    this.out = new Float64Array(chunk * O);
    this.dOut = new Float64Array(chunk * O);
    this.pred = new Float64Array(O);
    this.actual = new Float64Array(O);
    this.gradPred = new Float64Array(O);
    this.peerSums = new Float64Array(shape.contextLength);
    this.spreadOut = new Float64Array(0);
    this.dSpread = new Float64Array(0);
  }

  /** Steps of sample i a loss sees: its target length up to the output length, 0 for a constant window. */
  private usableSteps(batch: TrainingBatch, i: number): number {
    return this.scales[i]!.constant ? 0 : Math.min(batch.targets[i]!.length, this.shape.outputLength);
  }

  /**
   * Runs a featurised batch through `pass` chunk by chunk (the runner's batch
   * size of rows at a time, in order): `forward` on the chunk's inputs, then
   * `sample` for each row r whose window has usable steps (see usableSteps),
   * then `afterChunk`.
   */
  private forEachChunk(batch: TrainingBatch, pass: ChunkPass): void {
    const n = batch.contexts.length;
    const D = this.featurizer.layout.size;
    const chunk = this.runner.maxBatch;
    for (let c0 = 0; c0 < n; c0 += chunk) {
      const rows = Math.min(chunk, n - c0);
      const xs = this.x.subarray(c0 * D, (c0 + rows) * D);
      pass.forward(xs, rows, c0);
      for (let r = 0; r < rows; r++) {
        const len = this.usableSteps(batch, c0 + r);
        if (len > 0) pass.sample(r, len, batch.targets[c0 + r]!, this.scales[c0 + r]!);
      }
      pass.afterChunk(xs, rows, c0);
    }
  }

  /** Featurises a batch into `this.x` (and its scales), peers included. */
  private featurizeBatch(batch: TrainingBatch): void {
    const n = batch.contexts.length;
    if (batch.targets.length !== n) throw new RangeError("contexts and targets must have the same length");
    const D = this.featurizer.layout.size;
    if (this.x.length < n * D) this.x = new Float64Array(n * D);
    while (this.scales.length < n) this.scales.push({ location: 0, scale: 0, constant: true });
    for (let i = 0; i < n; i++) {
      const m = typeof batch.seasonLengths === "number" ? batch.seasonLengths : batch.seasonLengths[i]!;
      const long = batch.longSeasons === undefined ? 0 : typeof batch.longSeasons === "number" ? batch.longSeasons : batch.longSeasons[i]!;
      this.featurizer.featurize(batch.contexts[i]!, m, this.x, i * D, this.scales[i]!, long);
    }
    if (batch.groups !== undefined) {
      let from = 0;
      for (const size of batch.groups) {
        this.featurizer.writePeers(this.x, from, size, this.peerSums);
        from += size;
      }
    }
  }

  /**
   * Mean quantile (pinball) loss of the spread head over the batch, in the
   * window's standardised units (targets winsorised as in pretraining), with
   * the point output as the median; `grad` is overwritten with the mean
   * gradient of the spread head's parameters (zero elsewhere: the point
   * network is not changed by this loss).
   *
   * Per sample, step k and level s of `SPREAD_LEVELS`, the quantiles
   * τ = (1 − s)/2 and (1 + s)/2 are point − below and point + above, and the
   * loss is the mean over steps and quantiles of ρ_τ(y − q), with
   * ρ_τ(e) = max(τ·e, (τ − 1)·e). Constant windows carry no gradient.
   */
  runSpread(params: Float64Array, batch: TrainingBatch, grad: Float64Array): number {
    const n = batch.contexts.length;
    this.featurizeBatch(batch);
    const O = this.shape.outputLength;
    const G = SPREAD_LEVELS.length;
    const chunk = this.runner.maxBatch;
    if (this.spreadOut.length < chunk * O * SPREAD_PER_STEP) {
      this.spreadOut = new Float64Array(chunk * O * SPREAD_PER_STEP);
      this.dSpread = new Float64Array(chunk * O * SPREAD_PER_STEP);
    }
    const spread = this.spreadOut;
    const dSpread = this.dSpread;
    grad.fill(0);
    let total = 0;
    this.forEachChunk(batch, {
      forward: (xs, rows) => {
        this.runner.forward(params, xs, rows, this.out);
        this.runner.forwardSpread(params, xs, rows, spread);
        dSpread.fill(0, 0, rows * O * SPREAD_PER_STEP);
      },
      sample: (r, len, target, s) => {
        const weight = 1 / (n * len * SPREAD_PER_STEP);
        let sampleLoss = 0;
        for (let k = 0; k < len; k++) {
          const z = winsorisedTarget(target[k]!, s);
          const point = this.out[r * O + k]!;
          const base = (r * O + k) * SPREAD_PER_STEP;
          for (let j = 0; j < G; j++) {
            const tauLow = (1 - SPREAD_LEVELS[j]!) / 2;
            // lower quantile q = point − below; e = z − q
            const eLow = z - (point - spread[base + j]!);
            sampleLoss += eLow >= 0 ? tauLow * eLow : (tauLow - 1) * eLow;
            // dρ/dq = −τ (e > 0) or 1 − τ (e < 0); dq/d below = −1
            dSpread[base + j] = (eLow > 0 ? tauLow : eLow < 0 ? tauLow - 1 : 0) * weight;
            const tauHigh = 1 - tauLow;
            const eHigh = z - (point + spread[base + G + j]!);
            sampleLoss += eHigh >= 0 ? tauHigh * eHigh : (tauHigh - 1) * eHigh;
            dSpread[base + G + j] = (eHigh > 0 ? -tauHigh : eHigh < 0 ? 1 - tauHigh : 0) * weight;
          }
        }
        total += sampleLoss / (len * SPREAD_PER_STEP);
      },
      afterChunk: (_xs, rows) => this.runner.backwardSpread(params, rows, dSpread, grad),
    });
    return total / Math.max(n, 1);
  }

  /**
   * Mean loss over the batch; `grad` is overwritten with the mean gradient
   * (zero below `fromIndex`). With `standardised` the loss sees predictions
   * and targets in the window's standardised units (pretraining); otherwise
   * on the data's own scale (fine-tuning). Constant windows carry no gradient.
   * `unchangedBelow`: see `NetworkRunner.forward` (only the parameters from
   * there on are copied to the kernel again).
   */
  run(params: Float64Array, batch: TrainingBatch, loss: SampleLoss, grad: Float64Array, fromIndex: number, standardised: boolean, unchangedBelow = 0): number {
    const n = batch.contexts.length;
    this.featurizeBatch(batch);
    const O = this.shape.outputLength;
    // only the gradients from fromIndex on are kept: those below (any a pass writes too) are zeroed at the end
    grad.fill(0, Math.min(fromIndex, grad.length));
    let total = 0;
    this.forEachChunk(batch, {
      forward: (xs, rows) => {
        this.runner.forward(params, xs, rows, this.out, unchangedBelow);
        this.dOut.fill(0, 0, rows * O);
      },
      sample: (r, len, target, s) => {
        const pred = this.pred.subarray(0, len);
        const actual = this.actual.subarray(0, len);
        const gp = this.gradPred.subarray(0, len);
        for (let k = 0; k < len; k++) {
          const zOut = this.out[r * O + k]!;
          if (standardised) {
            pred[k] = zOut;
            actual[k] = winsorisedTarget(target[k]!, s);
          } else {
            pred[k] = s.location + s.scale * zOut;
            actual[k] = target[k]!;
          }
        }
        gp.fill(0);
        total += loss(pred, actual, gp);
        const factor = (standardised ? 1 : s.scale) / n;
        for (let k = 0; k < len; k++) this.dOut[r * O + k] = gp[k]! * factor;
      },
      afterChunk: (xs, rows) => this.runner.backward(params, xs, rows, this.dOut, grad, fromIndex),
    });
    if (fromIndex > 0) grad.fill(0, 0, Math.min(fromIndex, grad.length));
    return total / Math.max(n, 1);
  }

  /**
   * What the point network's output end reads for each window of the batch
   * (see {@link OutputEndFeatures}): its final normalised stream, its
   * classical projections, and its targets in its standardised units
   * (winsorised), NaN past the target's end or for a constant window.
   */
  outputEndFeatures(params: Float64Array, batch: TrainingBatch): OutputEndFeatures {
    const n = batch.contexts.length;
    this.featurizeBatch(batch);
    const { shape } = this;
    const O = shape.outputLength;
    const W = shape.width;
    const P = shape.projections;
    const D = this.featurizer.layout.size;
    const projAt = this.featurizer.layout.projections;
    const stream = new Float64Array(n * W);
    const projections = new Float64Array(n * P * O);
    const targets = new Float64Array(n * O).fill(Number.NaN);
    let c0 = 0; // the chunk's first window
    this.forEachChunk(batch, {
      forward: (xs, rows, first) => {
        c0 = first;
        this.runner.forward(params, xs, rows, this.out);
      },
      sample: (r, len, target, s) => {
        for (let k = 0; k < len; k++) targets[(c0 + r) * O + k] = winsorisedTarget(target[k]!, s);
      },
      afterChunk: (_xs, rows, first) => stream.set(this.runner.finalStream(rows), first * W),
    });
    for (let i = 0; i < n; i++) projections.set(this.x.subarray(i * D + projAt, i * D + projAt + P * O), i * P * O);
    return { windows: n, width: W, projectionCount: P, outputLength: O, stream, projections, targets };
  }
}

/**
 * What the point network's output end reads, for `windows` windows: the
 * output at step k of window i is
 * `headB[k] + Σ_j headW[k, j]·stream[i, j] + Σ_p mix[p, k]·projections[i, p, k]`
 * in the window's standardised units.
 * @category Network
 */
export interface OutputEndFeatures {
  readonly windows: number;
  readonly width: number;
  readonly projectionCount: number;
  readonly outputLength: number;
  /** windows × width: the final normalised stream. */
  readonly stream: Float64Array;
  /** windows × projectionCount × outputLength: the classical projections. */
  readonly projections: Float64Array;
  /** windows × outputLength: the standardised targets, NaN where there is none. */
  readonly targets: Float64Array;
}

const gradientCache = new Map<ModelName, BatchGradient>();

/** A batch of (context, target) windows of one model and frequency: the season lengths its featurizer reads. */
function trainingBatchOf(model: ModelName, freq: Freq, batch: { contexts: readonly Float64Array[]; targets: readonly Float64Array[] }): TrainingBatch {
  return { contexts: batch.contexts, targets: batch.targets, seasonLengths: modelParams(model, freq).seasonLength, longSeasons: longSeasonLength(model, freq) };
}

/** The cached batch-gradient worker of a model. */
function gradientWorker(model: ModelName): BatchGradient {
  let worker = gradientCache.get(model);
  if (worker === undefined) {
    worker = new BatchGradient(networkShape(model));
    gradientCache.set(model, worker);
  }
  return worker;
}

/**
 * One batch's mean loss and gradient with respect to the flat parameters, on
 * the data's own scale (what fine-tuning needs).
 *
 * For each (context, target) pair the network forecasts
 * `target.length` values (at most its direct output length) and `loss(pred,
 * actual, gradOut)` returns the sample's loss and writes d(loss)/d(pred).
 * `grad` is overwritten with the mean gradient; only parameters at index ≥
 * `fromIndex` get one (the backward pass stops below them).
 * `unchangedBelow` (default 0) promises that `params[0 .. unchangedBelow)`
 * are unchanged since the previous call with this same array (a fine-tuning
 * loop whose optimiser moves only `[fromIndex, total)`), so that only the
 * rest is copied to the network's kernel again; the result is the same.
 *
 * @example
 * ```ts
 * const params = pretrainedParameters("forecastmodel-1").slice();
 * const grad = new Float64Array(params.length);
 * const l1 = (p: Float64Array, a: Float64Array, g: Float64Array) => {
 *   let s = 0;
 *   for (let i = 0; i < p.length; i++) { s += Math.abs(p[i]! - a[i]!); g[i] = Math.sign(p[i]! - a[i]!) / p.length; }
 *   return s / p.length;
 * };
 * const value = networkLossAndGradient("forecastmodel-1", "M", params,
 *   { contexts: [new Float64Array([1, 2, 3, 4])], targets: [new Float64Array([5, 6])] }, l1, grad);
 * value >= 0; // => true
 * ```
 * @category Network
 */
export function networkLossAndGradient(
  model: ModelName, freq: Freq, params: Float64Array,
  batch: { contexts: readonly Float64Array[]; targets: readonly Float64Array[] },
  loss: SampleLoss, grad: Float64Array, fromIndex = 0, unchangedBelow = 0,
): number {
  return gradientWorker(model).run(params, trainingBatchOf(model, freq, batch), loss, grad, fromIndex, false, unchangedBelow);
}

/**
 * Index of the first parameter that fine-tune depth `depth` opens; parameters
 * `[depthStart(model, depth), total)` are trainable. Depth 1 opens the last
 * residual block and the head (the output end), each further depth one more
 * block, and depth 5 everything including the input stem (index 0).
 *
 * @example
 * ```ts
 * depthStart("forecastmodel-1", 5); // => 0
 * depthStart("forecastmodel-1", 1) > depthStart("forecastmodel-1", 2); // => true
 * ```
 * @category Network
 */
export function depthStart(model: ModelName, depth: FinetuneDepth): number {
  const layout = parameterLayout(networkShape(model));
  if (!Number.isInteger(depth) || depth < 1 || depth > 5) throw new RangeError(`finetune depth must be 1..5, got ${String(depth)}`);
  if (depth === 5) return 0;
  return layout.blocks[layout.blocks.length - depth]!.start;
}

/**
 * Total number of parameters of a model's network.
 *
 * @example
 * ```ts
 * parameterCount("forecastmodel-1") > 100000; // => true
 * ```
 * @category Network
 */
export function parameterCount(model: ModelName): number {
  return parameterLayout(networkShape(model)).total;
}

/**
 * Options of {@link AdamOptimizer}.
 * @category Network
 */
export interface AdamOptions {
  /** Step size (default 1e-3). */
  learningRate?: number;
  /** Decay of the first-moment average (default 0.9). */
  beta1?: number;
  /** Decay of the second-moment average (default 0.999). */
  beta2?: number;
  /** Added to the denominator for stability (default 1e-8). */
  epsilon?: number;
}

/**
 * Adam (Kingma & Ba, 2015) over a suffix `[from, size)` of a flat parameter
 * vector: m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², θ ← θ − lr·m̂/(√v̂ + ε)
 * with bias-corrected m̂, v̂. On the arrays {@link AdamOptimizer.workArrays}
 * gives, a step runs in WebAssembly SIMD (two parameters at a time, the
 * same operations in the same order: the same bits), without a copy.
 *
 * @example
 * ```ts
 * const adam = new AdamOptimizer(1, { learningRate: 0.1 });
 * const theta = new Float64Array([1]);
 * adam.step(theta, new Float64Array([2]));
 * theta[0]; // => 0.9 (to 1e-9)
 * ```
 * @category Network
 */
export class AdamOptimizer {
  /** Learning rate; may be changed between steps (schedules). */
  learningRate: number;
  private readonly beta1: number;
  private readonly beta2: number;
  private readonly epsilon: number;
  private readonly size: number;
  /** Adam's moments: made on the first step, or in the kernel's memory by workArrays. */
  private m: Float64Array | null = null;
  private v: Float64Array | null = null;
  private t = 0;
  /** What workArrays gave (null until then): the two arrays, and the WebAssembly update over them and the moments (null: plain arrays, the TypeScript loop). */
  private work: { readonly params: Float64Array; readonly grad: Float64Array; readonly update: AdamKernel | null } | null = null;

  constructor(size: number, options: AdamOptions = {}) {
    this.learningRate = options.learningRate ?? 1e-3;
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.999;
    this.epsilon = options.epsilon ?? 1e-8;
    this.size = size;
  }

  /** Steps taken so far. */
  get steps(): number {
    return this.t;
  }

  /**
   * A parameter array and a gradient array of the optimizer's size, zeroed,
   * that {@link step} updates in WebAssembly without copying them (where the
   * runtime has WebAssembly SIMD; plain arrays otherwise, updated by the
   * TypeScript loop). They live in one WebAssembly memory with Adam's moments
   * (32 bytes per parameter) for as long as the optimizer does; the same two
   * arrays on every call. Any other arrays still work with {@link step}.
   *
   * @example
   * ```ts
   * const adam = new AdamOptimizer(3, { learningRate: 0.1 });
   * const { params, grad } = adam.workArrays();
   * params.set([1, 1, 1]);
   * grad.set([2, 0, -2]);
   * adam.step(params, grad);
   * Array.from(params).map((x) => x.toFixed(3)); // => ["0.900", "1.000", "1.100"]
   * ```
   */
  workArrays(): { params: Float64Array; grad: Float64Array } {
    if (this.work === null) {
      const made = adamKernel(this.size);
      if (made === null) this.work = { params: new Float64Array(this.size), grad: new Float64Array(this.size), update: null };
      else {
        // the moments move into the kernel's memory (those of steps already taken, if any)
        if (this.m !== null && this.v !== null) {
          made.m.set(this.m);
          made.v.set(this.v);
        }
        this.m = made.m;
        this.v = made.v;
        this.work = { params: made.params, grad: made.grad, update: made.adam };
      }
    }
    return { params: this.work.params, grad: this.work.grad };
  }

  /** One update of `params[from .. to)` with gradient `grad` (default: to the end). */
  step(params: Float64Array, grad: Float64Array, from = 0, to = params.length): void {
    this.t++;
    const { beta1, beta2, epsilon, work } = this;
    const c1 = 1 - Math.pow(beta1, this.t);
    const c2 = 1 - Math.pow(beta2, this.t);
    const lr = this.learningRate;
    if (work !== null && work.update !== null && params === work.params && grad === work.grad && to > from) {
      const at = 8 * from;
      const bytes = 8 * this.size;
      work.update(at, bytes + at, 2 * bytes + at, 3 * bytes + at, to - from, beta1, beta2, c1, c2, lr, epsilon);
      return;
    }
    this.m ??= new Float64Array(this.size);
    this.v ??= new Float64Array(this.size);
    const { m, v } = this;
    for (let i = from; i < to; i++) {
      const g = grad[i]!;
      m[i] = beta1 * m[i]! + (1 - beta1) * g;
      v[i] = beta2 * v[i]! + (1 - beta2) * g * g;
      params[i]! -= (lr * (m[i]! / c1)) / (Math.sqrt(v[i]! / c2) + epsilon);
    }
  }
}

/** The WebAssembly update: byte offsets of θ, g, m and v at `from`, the count, then β1, β2, c1, c2, lr, ε. */
type AdamKernel = (p: number, g: number, m: number, v: number, n: number, b1: number, b2: number, c1: number, c2: number, lr: number, eps: number) => void;

/** A memory of θ, g, m and v (`size` doubles each) with the update over it, or null where WebAssembly SIMD is unavailable. */
function adamKernel(size: number): { adam: AdamKernel; params: Float64Array; grad: Float64Array; m: Float64Array; v: Float64Array } | null {
  const bytes = 8 * size;
  return makeKernel(ADAM_WASM_BASE64, Math.max(1, Math.ceil((4 * bytes) / WASM_PAGE)), (exports: { adam: AdamKernel }, memory) => {
    const view = (k: number): Float64Array => new Float64Array(memory.buffer, k * bytes, size);
    return { adam: exports.adam, params: view(0), grad: view(1), m: view(2), v: view(3) };
  });
}

/**
 * {@link BatchGradient.outputEndFeatures} for a model and frequency: what the
 * output end of the network with `params` reads for each (context, target)
 * window (the contexts on the data's own scale, as fine-tuning cuts them).
 *
 * @example
 * ```ts
 * const f = outputEndFeatures("forecastmodel-1", "D", pretrainedParameters("forecastmodel-1"),
 *   { contexts: [new Float64Array([1, 3, 2, 4, 3, 5])], targets: [new Float64Array([4, 6])] });
 * [f.windows, f.stream.length, Number.isNaN(f.targets[2]!)]; // => [1, 128, true]
 * ```
 * @category Network
 */
export function outputEndFeatures(
  model: ModelName, freq: Freq, params: Float64Array,
  batch: { contexts: readonly Float64Array[]; targets: readonly Float64Array[] },
): OutputEndFeatures {
  return gradientWorker(model).outputEndFeatures(params, trainingBatchOf(model, freq, batch));
}
