/**
 * The forecasting network: a residual MLP with pre-layer-norm blocks, a
 * linear head and a learned linear combination of the classical projections.
 * Forward and backward passes over a batch, on one flat Float64Array of
 * parameters; the dense layers run in the kernel of `kernel/dense.ts`
 * (WebAssembly SIMD where available).
 *
 * Layout of the flat parameter vector (fine-tune depth opens a suffix of it):
 * stem (W0, b0) · block 1 · … · block 5 · head (Wout, bout, projection mix) ·
 * spread head (Q1, c1, Q2, c2). Block b holds (W1, b1, W2, b2); depth d opens
 * blocks 6−d … 5 and the heads, and depth 5 also the stem.
 *
 * The spread head reads the final normalised stream and the window's
 * descriptors (a hidden ReLU layer of {@link SPREAD_HIDDEN} units) and gives
 * the half-widths of the central intervals at the levels of
 * {@link SPREAD_LEVELS} below and above the point output as a product: a
 * positive scale per output step, softplus(a_k), times a shape per side and
 * level, the running sum of softplus increments (so the quantiles are
 * ordered by construction and the point forecast is their median). The
 * factorised form costs O + 2·G outputs per window instead of O·2·G.
 * @module
 */
import { META_COUNT, SPREAD_LEVELS, type NetworkShape } from "./config.js";
import { normalQuantile } from "../stats/normal.js";
import { inputLayout, type InputLayout } from "./features.js";
import { createDenseKernel, type DenseKernel, type DenseKernelKind } from "./kernel/dense.js";

const LN_EPS = 1e-5;

/**
 * Hidden units of the spread head.
 * @category Network
 */
export const SPREAD_HIDDEN = 64;

/**
 * Spread outputs per forecast step: the half-widths below, then above, at each level of {@link SPREAD_LEVELS}.
 * @category Network
 */
export const SPREAD_PER_STEP = 2 * SPREAD_LEVELS.length;

/** Raw outputs of the spread head per window: a scale per output step, then the shape increments below and above. */
function spreadRawSize(outputLength: number): number {
  return outputLength + SPREAD_PER_STEP;
}

/**
 * Offsets of every tensor in the flat parameter vector.
 * @category Network
 */
export interface ParameterLayout {
  readonly inputSize: number;
  readonly stemW: number;
  readonly stemB: number;
  /** Per block: offsets of W1 [hidden × width], b1, W2 [width × hidden], b2, and where the block starts. */
  readonly blocks: readonly { start: number; w1: number; b1: number; w2: number; b2: number }[];
  readonly headStart: number;
  readonly headW: number;
  readonly headB: number;
  readonly mix: number;
  /** Where the spread head starts: everything before it is the point network. */
  readonly spreadStart: number;
  /** Inputs of the spread head: the final normalised stream, then the descriptors. */
  readonly spreadInput: number;
  /** Spread head: hidden weights [SPREAD_HIDDEN × spreadInput], biases, output weights [(O + SPREAD_PER_STEP) × SPREAD_HIDDEN], biases. */
  readonly spreadW1: number;
  readonly spreadB1: number;
  readonly spreadW2: number;
  readonly spreadB2: number;
  readonly total: number;
}

/**
 * Offsets of each tensor of a network of the given shape.
 *
 * @example
 * ```ts
 * parameterLayout(networkShape("forecastmodel-1")).spreadStart; // => 212776 (the point network)
 * parameterLayout(networkShape("forecastmodel-1")).total; // => 224272
 * ```
 * @category Network
 */
export function parameterLayout(shape: NetworkShape): ParameterLayout {
  const D = inputLayout(shape).size;
  const W = shape.width;
  const F = shape.hidden;
  const O = shape.outputLength;
  let at = 0;
  /** The offset of the next tensor of `size` values, laid out one after another. */
  const take = (size: number): number => {
    const start = at;
    at += size;
    return start;
  };
  const stemW = take(W * D);
  const stemB = take(W);
  const blocks: { start: number; w1: number; b1: number; w2: number; b2: number }[] = [];
  for (let b = 0; b < shape.blocks; b++) {
    const start = at;
    const w1 = take(F * W);
    const b1 = take(F);
    const w2 = take(W * F);
    const b2 = take(W);
    blocks.push({ start, w1, b1, w2, b2 });
  }
  const headStart = at;
  const headW = take(O * W);
  const headB = take(O);
  const mix = take(shape.projections * O);
  const spreadStart = at;
  const spreadInput = W + META_COUNT;
  const spreadW1 = take(SPREAD_HIDDEN * spreadInput);
  const spreadB1 = take(SPREAD_HIDDEN);
  const spreadW2 = take(spreadRawSize(O) * SPREAD_HIDDEN);
  const spreadB2 = take(spreadRawSize(O));
  return { inputSize: D, stemW, stemB, blocks, headStart, headW, headB, mix, spreadStart, spreadInput, spreadW1, spreadB1, spreadW2, spreadB2, total: at };
}

/** softplus(a) = log(1 + eᵃ), without overflow. */
function softplus(a: number): number {
  return a > 30 ? a : a < -30 ? Math.exp(a) : Math.log1p(Math.exp(a));
}

/** The inverse of softplus for v > 0: log(eᵛ − 1). */
function inverseSoftplus(v: number): number {
  return v > 30 ? v : Math.log(Math.expm1(v));
}

/**
 * Deterministic initial parameters: scaled Gaussian (He) weights from the
 * given uniform generator, zero biases, residual branches and head started
 * small, the projection mix started as their plain average, and the spread
 * head started at the half-widths of a unit normal law. The point network's
 * values are drawn first, so they do not depend on the spread head.
 * @category Network
 */
export function initialParameters(shape: NetworkShape, uniform: () => number): Float64Array {
  const layout = parameterLayout(shape);
  const params = new Float64Array(layout.total);
  const gauss = (): number => {
    const u1 = Math.max(uniform(), 1e-300);
    const u2 = uniform();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  };
  const fill = (offset: number, count: number, std: number): void => {
    for (let i = 0; i < count; i++) params[offset + i] = gauss() * std;
  };
  const W = shape.width;
  const F = shape.hidden;
  fill(layout.stemW, W * layout.inputSize, Math.sqrt(1 / layout.inputSize));
  for (const block of layout.blocks) {
    fill(block.w1, F * W, Math.sqrt(2 / W));
    fill(block.w2, W * F, Math.sqrt(2 / F) * 0.1);
  }
  fill(layout.headW, shape.outputLength * W, Math.sqrt(1 / W) * 0.01);
  params.fill(1 / shape.projections, layout.mix, layout.mix + shape.projections * shape.outputLength);
  fill(layout.spreadW1, SPREAD_HIDDEN * layout.spreadInput, Math.sqrt(2 / layout.spreadInput));
  const O = shape.outputLength;
  fill(layout.spreadW2, spreadRawSize(O) * SPREAD_HIDDEN, Math.sqrt(1 / SPREAD_HIDDEN) * 0.01);
  const G = SPREAD_LEVELS.length;
  // scale 1 at every step, shape = the half-widths of a unit normal law
  params.fill(inverseSoftplus(1), layout.spreadB2, layout.spreadB2 + O);
  for (let side = 0; side < 2; side++) {
    let previous = 0;
    for (let j = 0; j < G; j++) {
      const width = normalHalfWidth(SPREAD_LEVELS[j]!);
      params[layout.spreadB2 + O + side * G + j] = inverseSoftplus(width - previous);
      previous = width;
    }
  }
  return params;
}

/** Φ⁻¹(0.5 + s/2): the half-width of the central interval of level s of a unit normal law. */
function normalHalfWidth(s: number): number {
  return normalQuantile(0.5 + s / 2);
}

/**
 * Runs the network on batches of input rows. Holds activation buffers for up
 * to `maxBatch` rows so repeated calls allocate nothing.
 * @category Network
 */
export class NetworkRunner {
  readonly shape: NetworkShape;
  readonly layout: ParameterLayout;
  readonly input: InputLayout;
  readonly maxBatch: number;
  /** The dense-layer kernel (WebAssembly SIMD where available); every activation lives in its arena. */
  readonly kernel: DenseKernel;
  /** Kernel-side copies of the parameters, gradient, input rows and the head's output (WebAssembly only). */
  private readonly kernelParams: Float64Array;
  private readonly kernelGrad: Float64Array;
  private readonly kernelX: Float64Array;
  private readonly kernelOut: Float64Array;
  private readonly kernelDOut: Float64Array;
  /** The parameters the last `forward` ran with, as the kernel sees them. */
  private current: Float64Array;
  private readonly streams: Float64Array[]; // h_0 … h_B (B×W each)
  private readonly normed: Float64Array[]; // LN outputs u_0 … u_B
  private readonly invStd: Float64Array[]; // per row 1/σ of each LN
  private readonly pre: Float64Array[]; // hidden pre-activations per block (B×F)
  private readonly act: Float64Array; // hidden activations scratch (B×F)
  private readonly dStream: Float64Array;
  private readonly dNormed: Float64Array;
  private readonly dHidden: Float64Array;
  private readonly spreadIn: Float64Array; // B × spreadInput
  private readonly spreadPre: Float64Array; // B × SPREAD_HIDDEN
  private readonly spreadAct: Float64Array;
  private readonly spreadRaw: Float64Array; // B × (O + SPREAD_PER_STEP)
  private readonly spreadScale: Float64Array; // B × O
  private readonly spreadShape: Float64Array; // B × SPREAD_PER_STEP
  private readonly dSpreadRaw: Float64Array;
  private readonly dSpreadAct: Float64Array;

  /**
   * @param shape - The network.
   * @param maxBatch - Most rows of one call.
   * @param kernel - `"wasm-simd"` (default: the WebAssembly SIMD kernel where
   *   the runtime has it) or `"js"` (the TypeScript kernel; the same bits, slower).
   */
  constructor(shape: NetworkShape, maxBatch: number, kernel: DenseKernelKind = "wasm-simd") {
    this.shape = shape;
    this.layout = parameterLayout(shape);
    this.input = inputLayout(shape);
    this.maxBatch = maxBatch;
    const W = shape.width;
    const F = shape.hidden;
    const O = shape.outputLength;
    const nb = shape.blocks;
    const P = this.layout.total;
    const R = spreadRawSize(O);
    const H = SPREAD_HIDDEN;
    const B = maxBatch;
    const capacity = 2 * P + B * (this.layout.inputSize + 2 * O + (2 * (nb + 1) + 2) * W + (nb + 2) * F + this.layout.spreadInput + 3 * H + 2 * R + nb + 1);
    this.kernel = createDenseKernel(capacity, kernel);
    const k = this.kernel;
    const wasm = k.kind === "wasm-simd";
    this.kernelParams = wasm ? k.alloc(P) : new Float64Array(0);
    this.kernelGrad = wasm ? k.alloc(P) : new Float64Array(0);
    this.kernelX = wasm ? k.alloc(B * this.layout.inputSize) : new Float64Array(0);
    this.kernelOut = wasm ? k.alloc(B * O) : new Float64Array(0);
    this.kernelDOut = wasm ? k.alloc(B * O) : new Float64Array(0);
    this.current = this.kernelParams;
    this.streams = Array.from({ length: nb + 1 }, () => k.alloc(B * W));
    this.normed = Array.from({ length: nb + 1 }, () => k.alloc(B * W));
    this.invStd = Array.from({ length: nb + 1 }, () => k.alloc(B));
    this.pre = Array.from({ length: nb }, () => k.alloc(B * F));
    this.act = k.alloc(B * F);
    this.dStream = k.alloc(B * W);
    this.dNormed = k.alloc(B * W);
    this.dHidden = k.alloc(B * F);
    this.spreadIn = k.alloc(B * this.layout.spreadInput);
    this.spreadPre = k.alloc(B * H);
    this.spreadAct = k.alloc(B * H);
    this.spreadRaw = k.alloc(B * R);
    this.spreadScale = new Float64Array(B * O);
    this.spreadShape = new Float64Array(B * SPREAD_PER_STEP);
    this.dSpreadRaw = k.alloc(B * R);
    this.dSpreadAct = k.alloc(B * H);
  }

  /**
   * The final normalised stream of the last `forward` (rows × width): what the
   * point head and the spread head read. A view valid until the next pass.
   */
  finalStream(rows: number): Float64Array {
    return this.normed[this.shape.blocks]!.subarray(0, rows * this.shape.width);
  }

  /**
   * Promises that `params` will not change while this runner uses it (a
   * forecaster's fixed weights): the kernel then copies it into its arena
   * once instead of at every `forward`.
   */
  fixParameters(params: Float64Array): void {
    this.fixed = params;
    // copied afresh at the next pass, even from an array copied before it was fixed
    this.copiedFrom = null;
  }

  private fixed: Float64Array | null = null;
  /** The array the kernel's copy of the parameters was last taken from. */
  private copiedFrom: Float64Array | null = null;

  /**
   * The parameters as the kernel sees them: copied into its arena for
   * WebAssembly (they may change between calls, unless fixed). With
   * `unchangedBelow` > 0 the caller promises that `params[0 .. unchangedBelow)`
   * have not changed since the last copy from this same array, and only the
   * rest is copied again.
   */
  private kernelParameters(params: Float64Array, unchangedBelow = 0): Float64Array {
    if (this.kernel.kind !== "wasm-simd") return params;
    if (params.length !== this.kernelParams.length) throw new RangeError(`expected ${this.kernelParams.length} parameters, got ${params.length}`);
    if (params === this.fixed) {
      // fixed parameters do not change: the copy stands while nothing else was copied over it
      if (this.copiedFrom !== params) this.kernelParams.set(params);
      this.copiedFrom = params;
      return this.kernelParams;
    }
    if (unchangedBelow > 0 && params === this.copiedFrom) this.kernelParams.set(params.subarray(unchangedBelow), unchangedBelow);
    else this.kernelParams.set(params);
    this.copiedFrom = params;
    return this.kernelParams;
  }

  /**
   * Runs `body` with a gradient the kernel can accumulate into, and leaves the
   * result in `grad`. `body` touches no entry outside `[from, to)`, so only
   * that range travels to the kernel and back (fine-tuning at depth 1 opens a
   * seventh of the vector; the point network's pass ends where the spread
   * head starts).
   */
  private withKernelGrad(grad: Float64Array, body: (g: Float64Array) => void, from = 0, to = grad.length): void {
    if (this.kernel.kind !== "wasm-simd") {
      body(grad);
      return;
    }
    this.kernelGrad.set(grad.subarray(from, to), from);
    body(this.kernelGrad);
    grad.set(this.kernelGrad.subarray(from, to), from);
  }

  /** `rows × len` values of `source` in the kernel's arena (a copy for WebAssembly). */
  private kernelRows(source: Float64Array, target: Float64Array, count: number): Float64Array {
    if (this.kernel.kind !== "wasm-simd") return source;
    target.set(source.subarray(0, count));
    return target;
  }

  /**
   * Spread head after `forward` on the same rows: writes, per row and output
   * step, the {@link SPREAD_PER_STEP} half-widths (standardised units, ≥ 0,
   * increasing with the level on each side) to `out[(r·O + k)·SPREAD_PER_STEP + side·G + j]`
   * (side 0 below the point output, 1 above; j indexes {@link SPREAD_LEVELS}).
   */
  forwardSpread(params: Float64Array, x: Float64Array, rows: number, out: Float64Array): void {
    const { shape, layout, input } = this;
    const W = shape.width;
    const O = shape.outputLength;
    const D = layout.inputSize;
    const S = layout.spreadInput;
    const u = this.normed[shape.blocks]!;
    const qIn = this.spreadIn;
    for (let r = 0; r < rows; r++) {
      qIn.set(u.subarray(r * W, (r + 1) * W), r * S);
      qIn.set(x.subarray(r * D + input.meta, r * D + input.meta + META_COUNT), r * S + W);
    }
    const p = this.current;
    this.kernel.forward(qIn, rows, S, p, layout.spreadW1, layout.spreadB1, SPREAD_HIDDEN, this.spreadPre);
    const act = this.spreadAct;
    this.kernel.relu(act, this.spreadPre, rows * SPREAD_HIDDEN);
    const raw = this.spreadRaw;
    const R = spreadRawSize(O);
    this.kernel.forward(act, rows, SPREAD_HIDDEN, p, layout.spreadW2, layout.spreadB2, R, raw);
    const G = SPREAD_LEVELS.length;
    const scale = this.spreadScale;
    const shapeOut = this.spreadShape;
    for (let r = 0; r < rows; r++) {
      for (let k = 0; k < O; k++) scale[r * O + k] = softplus(raw[r * R + k]!);
      for (let side = 0; side < 2; side++) {
        let sum = 0;
        for (let j = 0; j < G; j++) {
          sum += softplus(raw[r * R + O + side * G + j]!);
          shapeOut[r * SPREAD_PER_STEP + side * G + j] = sum;
        }
      }
      for (let k = 0; k < O; k++) {
        const sk = scale[r * O + k]!;
        const base = (r * O + k) * SPREAD_PER_STEP;
        for (let i = 0; i < SPREAD_PER_STEP; i++) out[base + i] = sk * shapeOut[r * SPREAD_PER_STEP + i]!;
      }
    }
  }

  /**
   * Backward pass of the spread head alone, after `forwardSpread` on the same
   * rows: accumulates into `grad` the gradient of the spread head's
   * parameters given d(loss)/d(half-widths) in `dOut` (the layout of
   * `forwardSpread`'s output). The point network gets no gradient.
   */
  backwardSpread(params: Float64Array, rows: number, dOut: Float64Array, grad: Float64Array): void {
    const { shape, layout } = this;
    const O = shape.outputLength;
    const G = SPREAD_LEVELS.length;
    const raw = this.spreadRaw;
    const dRaw = this.dSpreadRaw;
    const R = spreadRawSize(O);
    const scale = this.spreadScale;
    const shapeOut = this.spreadShape;
    for (let r = 0; r < rows; r++) {
      // width(k, i) = scale_k · shape_i: d scale_k = Σ_i dOut·shape_i, d shape_i = Σ_k dOut·scale_k.
      const dShape = r * R + O;
      dRaw.fill(0, dShape, dShape + SPREAD_PER_STEP);
      for (let k = 0; k < O; k++) {
        const base = (r * O + k) * SPREAD_PER_STEP;
        const sk = scale[r * O + k]!;
        let dScale = 0;
        for (let i = 0; i < SPREAD_PER_STEP; i++) {
          const g = dOut[base + i]!;
          dScale += g * shapeOut[r * SPREAD_PER_STEP + i]!;
          dRaw[dShape + i]! += g * sk;
        }
        dRaw[r * R + k] = dScale / (1 + Math.exp(-raw[r * R + k]!));
      }
      // shape_j = Σ_{i ≤ j} softplus(b_i), so d/d b_i = sigmoid(b_i) · Σ_{j ≥ i} d shape_j.
      for (let side = 0; side < 2; side++) {
        let tail = 0;
        for (let j = G - 1; j >= 0; j--) {
          const at = dShape + side * G + j;
          tail += dRaw[at]!;
          dRaw[at] = tail / (1 + Math.exp(-raw[at]!));
        }
      }
    }
    const dAct = this.dSpreadAct;
    dAct.fill(0, 0, rows * SPREAD_HIDDEN);
    const p = this.current;
    this.withKernelGrad(grad, (g) => {
      this.kernel.backward(this.spreadAct, rows, SPREAD_HIDDEN, p, layout.spreadW2, layout.spreadB2, R, dRaw, g, dAct);
      const pre = this.spreadPre;
      for (let i = 0; i < rows * SPREAD_HIDDEN; i++) if (!(pre[i]! > 0)) dAct[i] = 0;
      this.kernel.backward(this.spreadIn, rows, layout.spreadInput, p, layout.spreadW1, layout.spreadB1, SPREAD_HIDDEN, dAct, g, null);
    }, layout.spreadW1);
  }

  /**
   * Forward pass: `x` holds `rows` input rows; writes `rows × outputLength`
   * standardised forecasts to `out`. Keeps the activations for `backward`.
   * `unchangedBelow` (default 0): the caller's promise that
   * `params[0 .. unchangedBelow)` are unchanged since the last pass on this
   * same array (fine-tuning moves only the open suffix), so that only the
   * rest is copied to the kernel again.
   */
  forward(params: Float64Array, x: Float64Array, rows: number, out: Float64Array, unchangedBelow = 0): void {
    if (rows > this.maxBatch) throw new RangeError(`batch of ${rows} rows exceeds ${this.maxBatch}`);
    const { shape, layout, input } = this;
    const W = shape.width;
    const F = shape.hidden;
    const O = shape.outputLength;
    const D = layout.inputSize;
    const p = this.kernelParameters(params, unchangedBelow);
    this.current = p;
    const k = this.kernel;
    k.forward(this.kernelRows(x, this.kernelX, rows * D), rows, D, p, layout.stemW, layout.stemB, W, this.streams[0]!);
    for (let b = 0; b < shape.blocks; b++) {
      const block = layout.blocks[b]!;
      const h = this.streams[b]!;
      const u = this.normed[b]!;
      k.layerNorm(h, rows, W, u, this.invStd[b]!, LN_EPS);
      const pre = this.pre[b]!;
      k.forward(u, rows, W, p, block.w1, block.b1, F, pre);
      const act = this.act;
      k.relu(act, pre, rows * F);
      const next = this.streams[b + 1]!;
      k.forward(act, rows, F, p, block.w2, block.b2, W, next);
      k.addInto(next, h, rows * W);
    }
    const last = shape.blocks;
    const u = this.normed[last]!;
    k.layerNorm(this.streams[last]!, rows, W, u, this.invStd[last]!, LN_EPS);
    if (k.kind === "wasm-simd") {
      k.forward(u, rows, W, p, layout.headW, layout.headB, O, this.kernelOut);
      out.set(this.kernelOut.subarray(0, rows * O));
    } else k.forward(u, rows, W, p, layout.headW, layout.headB, O, out);
    // Learned per-step mix of the classical projections (a linear skip from the input).
    for (let r = 0; r < rows; r++) {
      const xr = r * D + input.projections;
      for (let j = 0; j < shape.projections; j++) {
        const mix = layout.mix + j * O;
        const proj = xr + j * O;
        for (let k = 0; k < O; k++) out[r * O + k]! += params[mix + k]! * x[proj + k]!;
      }
    }
  }

  /**
   * Backward pass after `forward` on the same rows: accumulates
   * d(loss)/d(params) into `grad` given d(loss)/d(output) in `dOut`. Only
   * parameters at index ≥ `fromIndex` receive gradients; the pass stops at
   * the first layer below it.
   */
  backward(params: Float64Array, x: Float64Array, rows: number, dOut: Float64Array, grad: Float64Array, fromIndex: number): void {
    const { shape, layout, input } = this;
    const W = shape.width;
    const F = shape.hidden;
    const O = shape.outputLength;
    const D = layout.inputSize;
    for (let r = 0; r < rows; r++) {
      const xr = r * D + input.projections;
      for (let j = 0; j < shape.projections; j++) {
        const mix = layout.mix + j * O;
        const proj = xr + j * O;
        for (let k = 0; k < O; k++) grad[mix + k]! += dOut[r * O + k]! * x[proj + k]!;
      }
    }
    const p = this.current;
    const k = this.kernel;
    const dy = this.kernelRows(dOut, this.kernelDOut, rows * O);
    const xs = this.kernelRows(x, this.kernelX, rows * D);
    // the lowest parameter the pass below writes: it goes down from the head while a layer's biases end above fromIndex
    let lowest = layout.headW;
    if (layout.stemB + W > fromIndex) lowest = layout.stemW;
    else for (let b = shape.blocks - 1; b >= 0 && layout.blocks[b]!.b2 + W > fromIndex; b--) lowest = layout.blocks[b]!.start;
    this.withKernelGrad(grad, (g) => {
      const last = shape.blocks;
      const dU = this.dNormed;
      dU.fill(0, 0, rows * W);
      k.backward(this.normed[last]!, rows, W, p, layout.headW, layout.headB, O, dy, g, dU);
      const dH = this.dStream;
      dH.fill(0, 0, rows * W);
      layerNormBackward(this.normed[last]!, this.invStd[last]!, rows, W, dU, dH);
      for (let b = shape.blocks - 1; b >= 0; b--) {
        const block = layout.blocks[b]!;
        if (block.b2 + W <= fromIndex) return;
        const pre = this.pre[b]!;
        const act = this.act;
        k.relu(act, pre, rows * F);
        const dAct = this.dHidden;
        dAct.fill(0, 0, rows * F);
        k.backward(act, rows, F, p, block.w2, block.b2, W, dH, g, dAct);
        for (let i = 0; i < rows * F; i++) if (!(pre[i]! > 0)) dAct[i] = 0;
        dU.fill(0, 0, rows * W);
        k.backward(this.normed[b]!, rows, W, p, block.w1, block.b1, F, dAct, g, dU);
        // The residual path passes dH through unchanged; the branch adds its LN backward.
        layerNormBackward(this.normed[b]!, this.invStd[b]!, rows, W, dU, dH);
      }
      if (layout.stemB + W <= fromIndex) return;
      k.backward(xs, rows, D, p, layout.stemW, layout.stemB, W, dH, g, null);
    }, lowest, layout.spreadStart);
  }
}

/** dh += (1/σ)·(du − mean(du) − u·mean(du·u)) per row. */
function layerNormBackward(u: Float64Array, invStd: Float64Array, rows: number, width: number, du: Float64Array, dh: Float64Array): void {
  for (let r = 0; r < rows; r++) {
    const base = r * width;
    let meanDu = 0;
    let meanDuU = 0;
    for (let i = 0; i < width; i++) {
      meanDu += du[base + i]!;
      meanDuU += du[base + i]! * u[base + i]!;
    }
    meanDu /= width;
    meanDuU /= width;
    const inv = invStd[r]!;
    for (let i = 0; i < width; i++) dh[base + i]! += inv * (du[base + i]! - meanDu - u[base + i]! * meanDuU);
  }
}
