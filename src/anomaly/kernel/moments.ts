/**
 * The seasonal judges' window moments in WebAssembly SIMD: the mean and the
 * sum of squared deviations of many windows of one array, eight windows side
 * by side (src/anomaly/kernel/moments.wat, shipped assembled in
 * moments-wasm.ts). The same operations in the same order as the TypeScript
 * loops of `JudgeWindows`, so the same bits.
 * @module
 */
import { lazyKernel, WASM_PAGE } from "../../model/kernel/wasm.js";
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
export const momentsKernel: () => MomentsKernel | null = lazyKernel(
  MOMENTS_WASM_BASE64,
  1,
  (exports: { windowMoments(d: number, window: number, count: number, mean: number, squares: number): void }, memory): MomentsKernel => {
    const { windowMoments } = exports;
    let heap = new Float64Array(memory.buffer);
    return {
      moments(d: Float64Array, end: number, window: number, count: number, mean: Float64Array, squares: Float64Array): void {
        // memory: the values read (window + count − 1), then the means, then the sums of squares
        const values = window + count - 1;
        const needed = values + 2 * count;
        if (needed > heap.length) {
          memory.grow(Math.ceil((needed * 8 - memory.buffer.byteLength) / WASM_PAGE));
          heap = new Float64Array(memory.buffer);
        }
        const from = end - window;
        heap.set(d.subarray(from, from + values));
        windowMoments(0, window, count, values * 8, (values + count) * 8);
        mean.set(heap.subarray(values, values + count), end);
        squares.set(heap.subarray(values + count, values + 2 * count), end);
      },
    };
  },
);
