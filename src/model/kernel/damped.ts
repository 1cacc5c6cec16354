/**
 * The damped-trend grid of the window featurizer: Holt's damped trend fitted
 * by least one-step squared error over a grid of smoothing and damping
 * values. A WebAssembly SIMD kernel (src/model/kernel/damped.wat, shipped
 * assembled in damped-wasm.ts) runs five grid points, twenty lanes, side by
 * side where the runtime supports it; the TypeScript loop otherwise. Both
 * give the same bits.
 * @module
 */
import { lazyKernel } from "./wasm.js";
import { DAMPED_WASM_BASE64 } from "./damped-wasm.js";

/** Level smoothing values of the grid. */
const DAMPED_ALPHA = [0.1, 0.3, 0.5, 0.8, 1];
/** Trend smoothing values, as a share of the level smoothing. */
const DAMPED_BETA = [0.05, 0.2, 0.5];
/** Damping values. */
const DAMPED_PHI = [0.8, 0.9, 0.98, 1];

/**
 * Which implementation fits the grid.
 * @category Network
 */
export type DampedTrendKind = "wasm-simd" | "js";

/**
 * Fits Holt's damped trend to x[0 .. n) at every grid point and writes the
 * chosen one's end state [level, trend, phi] to `out`.
 *
 * Method: for each level smoothing α in {0.1, 0.3, 0.5, 0.8, 1}, trend
 * smoothing β = α · {0.05, 0.2, 0.5} and damping φ in {0.8, 0.9, 0.98, 1},
 * start from level x[0] and trend x[1] − x[0] (0 when n = 1), then for
 * each i >= 1 the one-step error e = x[i] − (level + φ · trend) adds e² to
 * the SSE, level ← level + φ · trend + α · e and trend ← φ · trend + β · e.
 * The grid point of least SSE is chosen in grid order (α, then β, then φ), a
 * later one only when its SSE is below the chosen one's minus 1e-12.
 * `"wasm-simd"` (the default) uses the WebAssembly kernel when the runtime
 * has it; the result is the same bits either way.
 *
 * Cost: O(60 · n), no allocation.
 *
 * @param x - The values (finite).
 * @param n - How many of them (integer >= 1).
 * @param out - Receives [level, trend, phi] (three values at least).
 * @param kind - The implementation (default `"wasm-simd"`, which falls back to `"js"`).
 *
 * @example
 * ```ts
 * const out = new Float64Array(3);
 * dampedTrendFit(Float64Array.of(1, 2, 3, 4, 5), 5, out);
 * Array.from(out); // a straight line: undamped, level at its end, trend its slope
 * // => [5, 1, 1]
 * ```
 * @category Network
 */
export function dampedTrendFit(x: Float64Array, n: number, out: Float64Array, kind: DampedTrendKind = "wasm-simd"): void {
  const kernel = kind === "wasm-simd" ? wasmKernel() : null;
  if (kernel !== null && n <= kernel.x.length) {
    const into = kernel.x;
    for (let i = 0; i < n; i++) into[i] = x[i]!; // a copy without the subarray view set() would need, once per window
    kernel.fit(n);
    out[0] = kernel.result[0]!;
    out[1] = kernel.result[1]!;
    out[2] = kernel.result[2]!;
    return;
  }
  dampedTrendFitJs(x, n, out);
}

/**
 * Which implementation {@link dampedTrendFit} runs by default in this
 * runtime: `"wasm-simd"` where WebAssembly SIMD is available (Node ≥ 20,
 * Deno, Bun, current browsers), else `"js"`.
 *
 * @example
 * ```ts
 * ["wasm-simd", "js"].includes(dampedTrendKind()); // => true
 * ```
 * @category Network
 */
export function dampedTrendKind(): DampedTrendKind {
  return wasmKernel() === null ? "js" : "wasm-simd";
}

/** The TypeScript loop: the four damping values of one (α, β) side by side (independent recurrences, so they overlap in the CPU). */
function dampedTrendFitJs(x: Float64Array, n: number, out: Float64Array): void {
  let dLevel = x[0]!;
  let dTrend = 0;
  let dPhi = 1;
  let dSse = Infinity;
  const [phiA, phiB, phiC, phiD] = DAMPED_PHI as [number, number, number, number];
  const trend0 = n > 1 ? x[1]! - x[0]! : 0;
  const ends = JS_ENDS;
  for (const alpha of DAMPED_ALPHA) {
    for (const betaShare of DAMPED_BETA) {
      const beta = alpha * betaShare;
      let lA = x[0]!, lB = lA, lC = lA, lD = lA;
      let tA = trend0, tB = trend0, tC = trend0, tD = trend0;
      let sA = 0, sB = 0, sC = 0, sD = 0;
      for (let i = 1; i < n; i++) {
        const xi = x[i]!;
        const eA = xi - (lA + phiA * tA);
        const eB = xi - (lB + phiB * tB);
        const eC = xi - (lC + phiC * tC);
        const eD = xi - (lD + phiD * tD);
        sA += eA * eA;
        sB += eB * eB;
        sC += eC * eC;
        sD += eD * eD;
        if (sA >= dSse && sB >= dSse && sC >= dSse && sD >= dSse) break; // none can win any more
        lA = lA + phiA * tA + alpha * eA;
        lB = lB + phiB * tB + alpha * eB;
        lC = lC + phiC * tC + alpha * eC;
        lD = lD + phiD * tD + alpha * eD;
        tA = phiA * tA + beta * eA;
        tB = phiB * tB + beta * eB;
        tC = phiC * tC + beta * eC;
        tD = phiD * tD + beta * eD;
      }
      ends[0] = sA; ends[1] = lA; ends[2] = tA;
      ends[3] = sB; ends[4] = lB; ends[5] = tB;
      ends[6] = sC; ends[7] = lC; ends[8] = tC;
      ends[9] = sD; ends[10] = lD; ends[11] = tD;
      for (let j = 0; j < 4; j++) {
        const sse = ends[3 * j]!;
        if (sse < dSse - 1e-12) {
          dSse = sse;
          dLevel = ends[3 * j + 1]!;
          dTrend = ends[3 * j + 2]!;
          dPhi = DAMPED_PHI[j]!;
        }
      }
    }
  }
  out[0] = dLevel;
  out[1] = dTrend;
  out[2] = dPhi;
}

/** End state (SSE, level, trend) of the four damping values of one grid point. */
const JS_ENDS = new Float64Array(12);

/** The kernel's memory as views: the result, and x (byte 512 on, to the end of the page). */
interface DampedKernel {
  readonly result: Float64Array;
  readonly x: Float64Array;
  readonly fit: (n: number) => void;
}

/** The instantiated kernel (one per thread, made on first use), or null where WebAssembly SIMD is unavailable. */
const wasmKernel: () => DampedKernel | null = lazyKernel(DAMPED_WASM_BASE64, 1, (exports: { dampedTrend(n: number): void }, memory): DampedKernel => {
  // the phis at byte 64, then the grid's 15 (α, β) pairs, β computed as the TypeScript loop computes it
  const constants = new Float64Array(memory.buffer, 64, 4 + 2 * DAMPED_ALPHA.length * DAMPED_BETA.length);
  constants.set(DAMPED_PHI);
  let at = 4;
  for (const alpha of DAMPED_ALPHA) {
    for (const betaShare of DAMPED_BETA) {
      constants[at++] = alpha;
      constants[at++] = alpha * betaShare;
    }
  }
  return { result: new Float64Array(memory.buffer, 0, 4), x: new Float64Array(memory.buffer, 512), fit: exports.dampedTrend };
});
