/**
 * The seasonal judges' window moments in WebAssembly SIMD: the mean and the
 * sum of squared deviations of many windows of one array, eight windows side
 * by side (src/anomaly/kernel/moments.wat, shipped assembled in
 * moments-wasm.ts). The same operations in the same order as the TypeScript
 * loops of `JudgeWindows`, so the same bits.
 * @module
 */
import { compiledKernel, instantiateKernel, WASM_PAGE } from "../../model/kernel/wasm.js";
import { MOMENTS_WASM_BASE64 } from "./moments-wasm.js";

/**
 * The kernel of one thread: `moments(d, from, window, count, mean, squares)`
 * writes, for j in [0, count), the mean of d[from + j − window .. from + j)
 * to mean[from + j] and the sum of its squared deviations from that mean to
 * squares[from + j] (sums from 0 in index order).
 */
export interface MomentsKernel {
  moments(d: Float64Array, end: number, window: number, count: number, mean: Float64Array, squares: Float64Array): void;
}

let kernelOnce: MomentsKernel | null | undefined;

/**
 * The instantiated kernel (one per thread, made on first use), or null where
 * WebAssembly SIMD is unavailable.
 *
 * @example
 * ```ts
 * const kernel = momentsKernel();
 * const mean = new Float64Array(6), squares = new Float64Array(6);
 * kernel?.moments(Float64Array.of(1, 2, 3, 4, 5), 3, 3, 3, mean, squares); // the windows of 3 ending at 3, 4, 5
 * kernel === null || Array.from(mean.subarray(3)).join() === "2,3,4"; // => true
 * kernel === null || Array.from(squares.subarray(3)).join() === "2,2,2"; // => true
 * ```
 */
export function momentsKernel(): MomentsKernel | null {
  if (kernelOnce !== undefined) return kernelOnce;
  kernelOnce = null;
  const module = compiledKernel(MOMENTS_WASM_BASE64);
  if (module === null) return null;
  try {
    type Exports = { windowMoments(d: number, window: number, count: number, mean: number, squares: number): void };
    const { exports, memory } = instantiateKernel<Exports>(module, 1);
    const { windowMoments } = exports;
    let heap = new Float64Array(memory.buffer);
    kernelOnce = {
      moments(d: Float64Array, end: number, window: number, count: number, mean: Float64Array, squares: Float64Array): void {
        // memory: the values read (window + count − 1), then the means, then the sums of squares
        const values = window + count - 1;
        const needed = values + 2 * count;
        if (needed > heap.length) {
          memory.grow(Math.ceil((needed * 8 - memory.buffer.byteLength) / WASM_PAGE));
          heap = new Float64Array(memory.buffer);
        }
        const from = end - window;
        for (let k = 0; k < values; k++) heap[k] = d[from + k]!;
        windowMoments(0, window, count, values * 8, (values + count) * 8);
        for (let j = 0; j < count; j++) {
          mean[end + j] = heap[values + j]!;
          squares[end + j] = heap[values + count + j]!;
        }
      },
    };
  } catch {
    kernelOnce = null;
  }
  return kernelOnce;
}
