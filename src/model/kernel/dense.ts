/**
 * The dense-layer kernels of the network and the memory they work in: a
 * WebAssembly kernel with 128-bit SIMD (src/model/kernel/dense.wat, shipped
 * assembled in dense-wasm.ts) where the runtime supports it, and the plain
 * TypeScript kernel otherwise. Both give the same bits: the WebAssembly text
 * keeps the TypeScript kernel's order of operations lane for lane.
 *
 * A kernel owns an arena: every array it computes on must come from
 * {@link DenseKernel.alloc} (for WebAssembly, views into its memory).
 * @module
 */
import { compiledKernel, instantiateKernel, WASM_PAGE } from "./wasm.js";
import { DENSE_WASM_BASE64 } from "./dense-wasm.js";

/**
 * Which implementation a kernel uses.
 * @category Network
 */
export type DenseKernelKind = "wasm-simd" | "js";

/**
 * Dense layers over arrays of the kernel's own arena.
 * @category Network
 */
export interface DenseKernel {
  /** The implementation. */
  readonly kind: DenseKernelKind;
  /** A zeroed array of `count` doubles in the arena (only before the first layer call). */
  alloc(count: number): Float64Array;
  /**
   * y[r, n] = p[bOff + n] + Σ_k x[r, k] · p[wOff + n · inSize + k] for `rows`
   * rows (four partial sums per dot product, k mod 4).
   */
  forward(x: Float64Array, rows: number, inSize: number, p: Float64Array, wOff: number, bOff: number, outSize: number, y: Float64Array): void;
  /** dst[i] = src[i] > 0 ? src[i] : 0 for the first `count` values (NaN and −0 give +0). */
  relu(dst: Float64Array, src: Float64Array, count: number): void;
  /** dst[i] += src[i] for the first `count` values. */
  addInto(dst: Float64Array, src: Float64Array, count: number): void;
  /**
   * Row-wise layer normalisation without affine parameters (the next linear layer absorbs them): for each of
   * `rows` rows of h (`width` values each), mean = Σ h / width and v = Σ (h − mean)² (sums in index order),
   * invStd[r] = 1 / √(v / width + eps) and u = (h − mean) · invStd[r].
   */
  layerNorm(h: Float64Array, rows: number, width: number, u: Float64Array, invStd: Float64Array, eps: number): void;
  /** Accumulates dW += dyᵀ x and db += Σ dy into `grad` (laid out as `p`) and, when dx is given, dx += dy W. */
  backward(
    x: Float64Array, rows: number, inSize: number, p: Float64Array, wOff: number, bOff: number, outSize: number,
    dy: Float64Array, grad: Float64Array, dx: Float64Array | null,
  ): void;
}

/**
 * Whether the WebAssembly SIMD kernel is available in this runtime (Node ≥ 20,
 * Deno, Bun and current browsers have it).
 *
 * @example
 * ```ts
 * typeof denseKernelAvailable(); // => "boolean"
 * ```
 * @category Network
 */
export function denseKernelAvailable(): boolean {
  return compiledKernel(DENSE_WASM_BASE64) !== null;
}

/**
 * A kernel whose arena holds `capacity` doubles: the WebAssembly SIMD kernel
 * when available (and `kind` is not `"js"`), else the TypeScript one.
 *
 * @example
 * ```ts
 * const k = createDenseKernel(16, "js");
 * const x = k.alloc(4), p = k.alloc(5), y = k.alloc(1);
 * x.set([1, 2, 3, 4]); p.set([1, 1, 1, 1, 0.5]);
 * k.forward(x, 1, 4, p, 0, 4, 1, y);
 * y[0]; // => 10.5
 * ```
 * @category Network
 */
export function createDenseKernel(capacity: number, kind: DenseKernelKind = "wasm-simd"): DenseKernel {
  const module = kind === "wasm-simd" ? compiledKernel(DENSE_WASM_BASE64) : null;
  return module === null ? jsKernel() : wasmKernel(module, capacity);
}

function jsKernel(): DenseKernel {
  return {
    kind: "js",
    alloc: (count) => new Float64Array(count),
    forward: linearForwardJs,
    backward: linearBackwardJs,
    relu(dst, src, count) {
      for (let i = 0; i < count; i++) dst[i] = src[i]! > 0 ? src[i]! : 0;
    },
    addInto(dst, src, count) {
      for (let i = 0; i < count; i++) dst[i]! += src[i]!;
    },
    layerNorm: layerNormJs,
  };
}

interface KernelExports {
  linear(x: number, rows: number, inSize: number, w: number, b: number, outSize: number, y: number): void;
  linearBackward(x: number, rows: number, inSize: number, w: number, outSize: number, dy: number, gw: number, gb: number, dx: number, hasDx: number): void;
  relu(dst: number, src: number, count: number): void;
  addInto(dst: number, src: number, count: number): void;
  layerNorm(h: number, rows: number, width: number, u: number, inv: number, eps: number): void;
}

function wasmKernel(module: object, capacity: number): DenseKernel {
  const bytes = Math.max(8, capacity * 8 + 64);
  const { exports, memory } = instantiateKernel<KernelExports>(module, Math.ceil(bytes / WASM_PAGE));
  const buffer = memory.buffer;
  let used = 0;
  const at = (a: Float64Array, index: number): number => {
    if (a.buffer !== buffer) throw new RangeError("dense kernel: an array is not in the kernel's arena");
    return a.byteOffset + index * 8;
  };
  return {
    kind: "wasm-simd",
    alloc(count: number): Float64Array {
      if (used + count > capacity) throw new RangeError(`dense kernel: arena of ${capacity} doubles is full`);
      const view = new Float64Array(buffer, used * 8, count);
      used += count;
      return view;
    },
    forward(x, rows, inSize, p, wOff, bOff, outSize, y) {
      exports.linear(at(x, 0), rows, inSize, at(p, wOff), at(p, bOff), outSize, at(y, 0));
    },
    relu(dst, src, count) {
      exports.relu(at(dst, 0), at(src, 0), count);
    },
    addInto(dst, src, count) {
      exports.addInto(at(dst, 0), at(src, 0), count);
    },
    layerNorm(h, rows, width, u, invStd, eps) {
      exports.layerNorm(at(h, 0), rows, width, at(u, 0), at(invStd, 0), eps);
    },
    backward(x, rows, inSize, p, wOff, bOff, outSize, dy, grad, dx) {
      exports.linearBackward(at(x, 0), rows, inSize, at(p, wOff), outSize, at(dy, 0), at(grad, wOff), at(grad, bOff), dx === null ? 0 : at(dx, 0), dx === null ? 0 : 1);
    },
  };
}

/**
 * The TypeScript kernel: y[r, n] = bias[n] + Σ_k x[r, k] · w[n, k] (w row-major, n × k).
 * Two rows share each pass over a weight row (fewer loads); every row keeps
 * the same four-way split of its sum, so results do not depend on the pairing.
 */
function linearForwardJs(x: Float64Array, rows: number, inSize: number, p: Float64Array, wOff: number, bOff: number, outSize: number, y: Float64Array): void {
  const tail = inSize - (inSize % 4);
  let r = 0;
  for (; r + 1 < rows; r += 2) {
    const xa = r * inSize;
    const xb = xa + inSize;
    const ya = r * outSize;
    const yb = ya + outSize;
    for (let n = 0; n < outSize; n++) {
      const wn = wOff + n * inSize;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let b0 = 0;
      let b1 = 0;
      let b2 = 0;
      let b3 = 0;
      for (let k = 0; k < tail; k += 4) {
        const w0 = p[wn + k]!;
        const w1 = p[wn + k + 1]!;
        const w2 = p[wn + k + 2]!;
        const w3 = p[wn + k + 3]!;
        a0 += x[xa + k]! * w0;
        a1 += x[xa + k + 1]! * w1;
        a2 += x[xa + k + 2]! * w2;
        a3 += x[xa + k + 3]! * w3;
        b0 += x[xb + k]! * w0;
        b1 += x[xb + k + 1]! * w1;
        b2 += x[xb + k + 2]! * w2;
        b3 += x[xb + k + 3]! * w3;
      }
      for (let k = tail; k < inSize; k++) {
        a0 += x[xa + k]! * p[wn + k]!;
        b0 += x[xb + k]! * p[wn + k]!;
      }
      y[ya + n] = p[bOff + n]! + (a0 + a1) + (a2 + a3);
      y[yb + n] = p[bOff + n]! + (b0 + b1) + (b2 + b3);
    }
  }
  // the odd last row on its own: folding it into the loop above (paired with itself) measured 20-60% slower
  for (; r < rows; r++) {
    const xr = r * inSize;
    const yr = r * outSize;
    for (let n = 0; n < outSize; n++) {
      const wn = wOff + n * inSize;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = 0; k < tail; k += 4) {
        s0 += x[xr + k]! * p[wn + k]!;
        s1 += x[xr + k + 1]! * p[wn + k + 1]!;
        s2 += x[xr + k + 2]! * p[wn + k + 2]!;
        s3 += x[xr + k + 3]! * p[wn + k + 3]!;
      }
      for (let k = tail; k < inSize; k++) s0 += x[xr + k]! * p[wn + k]!;
      y[yr + n] = p[bOff + n]! + (s0 + s1) + (s2 + s3);
    }
  }
}

/** The TypeScript kernel: dW += dyᵀ x, db += Σ dy and (when dx is given) dx += dy W. */
function linearBackwardJs(
  x: Float64Array, rows: number, inSize: number, p: Float64Array, wOff: number, bOff: number, outSize: number,
  dy: Float64Array, grad: Float64Array, dx: Float64Array | null,
): void {
  for (let r = 0; r < rows; r++) {
    const xr = r * inSize;
    const yr = r * outSize;
    for (let n = 0; n < outSize; n++) {
      const g = dy[yr + n]!;
      if (g === 0) continue;
      grad[bOff + n]! += g;
      const wn = wOff + n * inSize;
      for (let k = 0; k < inSize; k++) grad[wn + k]! += g * x[xr + k]!;
      if (dx !== null) for (let k = 0; k < inSize; k++) dx[xr + k]! += g * p[wn + k]!;
    }
  }
}

/**
 * The TypeScript kernel's layer normalisation ({@link DenseKernel.layerNorm}). Four rows at a time:
 * their sums are independent chains of additions, side by side, each in its row's order (the same bits as one row
 * at a time, without waiting on one long chain).
 */
export function layerNormJs(h: Float64Array, rows: number, width: number, u: Float64Array, invStd: Float64Array, eps: number): void {
  let r = 0;
  for (; r + 4 <= rows; r += 4) {
    const b0 = r * width;
    const b1 = b0 + width;
    const b2 = b1 + width;
    const b3 = b2 + width;
    let mean0 = 0;
    let mean1 = 0;
    let mean2 = 0;
    let mean3 = 0;
    for (let i = 0; i < width; i++) {
      mean0 += h[b0 + i]!;
      mean1 += h[b1 + i]!;
      mean2 += h[b2 + i]!;
      mean3 += h[b3 + i]!;
    }
    mean0 /= width;
    mean1 /= width;
    mean2 /= width;
    mean3 /= width;
    let v0 = 0;
    let v1 = 0;
    let v2 = 0;
    let v3 = 0;
    for (let i = 0; i < width; i++) {
      const d0 = h[b0 + i]! - mean0;
      const d1 = h[b1 + i]! - mean1;
      const d2 = h[b2 + i]! - mean2;
      const d3 = h[b3 + i]! - mean3;
      v0 += d0 * d0;
      v1 += d1 * d1;
      v2 += d2 * d2;
      v3 += d3 * d3;
    }
    const inv0 = 1 / Math.sqrt(v0 / width + eps);
    const inv1 = 1 / Math.sqrt(v1 / width + eps);
    const inv2 = 1 / Math.sqrt(v2 / width + eps);
    const inv3 = 1 / Math.sqrt(v3 / width + eps);
    invStd[r] = inv0;
    invStd[r + 1] = inv1;
    invStd[r + 2] = inv2;
    invStd[r + 3] = inv3;
    for (let i = 0; i < width; i++) {
      u[b0 + i] = (h[b0 + i]! - mean0) * inv0;
      u[b1 + i] = (h[b1 + i]! - mean1) * inv1;
      u[b2 + i] = (h[b2 + i]! - mean2) * inv2;
      u[b3 + i] = (h[b3 + i]! - mean3) * inv3;
    }
  }
  for (; r < rows; r++) {
    const base = r * width;
    let mean = 0;
    for (let i = 0; i < width; i++) mean += h[base + i]!;
    mean /= width;
    let v = 0;
    for (let i = 0; i < width; i++) {
      const d = h[base + i]! - mean;
      v += d * d;
    }
    const inv = 1 / Math.sqrt(v / width + eps);
    invStd[r] = inv;
    for (let i = 0; i < width; i++) u[base + i] = (h[base + i]! - mean) * inv;
  }
}
