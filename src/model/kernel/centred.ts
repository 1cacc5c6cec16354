/**
 * The centred moving averages of the window featurizer's classical
 * decomposition in WebAssembly SIMD (src/model/kernel/centred.wat, shipped
 * assembled in centred-wasm.ts): two adjacent points per vector, each lane
 * adding its own terms in the TypeScript loop's order, so the same bits.
 * @module
 */
import { lazyKernel } from "./wasm.js";
import { CENTRED_WASM_BASE64 } from "./centred-wasm.js";

/**
 * The kernel of one thread: `means(z, from, to, m, out)` writes out[t] for t
 * in [from, to), as `centredMeans` of features.ts does, and returns true; it
 * returns false, writing nothing, when the values it would read do not fit
 * its memory (the caller then runs the TypeScript loop).
 */
export interface CentredKernel {
  means(z: Float64Array, from: number, to: number, m: number, out: Float64Array): boolean;
}

/** Values the kernel's memory holds (the values read, then as many results). */
const CAPACITY = 4096;

/**
 * The instantiated kernel (one per thread, made on first use), or null where
 * WebAssembly SIMD is unavailable.
 *
 * @example
 * ```ts
 * const out = new Float64Array(6);
 * const done = centredKernel()?.means(Float64Array.of(1, 2, 3, 4, 5, 6), 1, 5, 3, out);
 * done !== true || Array.from(out).join() === "0,2,3,4,5,0"; // => true
 * ```
 */
export const centredKernel: () => CentredKernel | null = lazyKernel(
  CENTRED_WASM_BASE64,
  1,
  (exports: { centredMeans(values: number, from: number, to: number, m: number): void }, memory): CentredKernel => {
    const heap = new Float64Array(memory.buffer, 0, 2 * CAPACITY);
    const { centredMeans } = exports;
    return {
      means(z: Float64Array, from: number, to: number, m: number, out: Float64Array): boolean {
        // the last value read is z[to − 1 + ⌊m/2⌋]
        const values = to + (m >> 1);
        if (values > CAPACITY || from >= to) return from >= to;
        for (let i = 0; i < values; i++) heap[i] = z[i]!; // a copy without the subarray view set() would need
        centredMeans(values, from, to, m);
        for (let t = from; t < to; t++) out[t] = heap[values + t]!;
        return true;
      },
    };
  },
);
