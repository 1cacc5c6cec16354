/**
 * Simple exponential smoothing on a grid of smoothing weights, and the
 * least-squares slope: the pieces the Theta-like projections share
 * (the network's features and the whole-history projections).
 * @module
 */

/**
 * The smoothing weights α {@link sesGridFit} tries, in this order.
 * @category Statistics
 */
export const SES_GRID: readonly number[] = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1];

/** The end state (error, level) of the eight weights of one group of {@link sesGridFit}: its scratch. */
const SES_LANES = new Float64Array(16);

/**
 * Simple exponential smoothing of x[0 .. n−1] with the weight α of
 * {@link SES_GRID} whose one-step squared error is least: level ℓ₀ = x₀,
 * ℓₜ = ℓₜ₋₁ + α(xₜ − ℓₜ₋₁), error Σ (xₜ − ℓₜ₋₁)² over t ≥ 1. A later α
 * replaces the best so far only when its error is lower by more than
 * `tolerance` (so near-ties keep the smaller α).
 *
 * Writes [α, final level] to `out` (for n < 2: [1, x[n − 1]]).
 *
 * Cost: O(n · grid) time, no allocation.
 *
 * @param x - The values.
 * @param n - How many of them (from the start).
 * @param tolerance - How much lower a later α's error must be.
 * @param out - Receives α and the final level.
 *
 * @example
 * ```ts
 * const out = new Float64Array(2);
 * sesGridFit(Float64Array.of(1, 1, 1, 1), 4, 1e-12, out);
 * Array.from(out); // no error at any α: the first is kept
 * // => [0.05, 1]
 * ```
 * @category Statistics
 */
export function sesGridFit(x: ArrayLike<number>, n: number, tolerance: number, out: Float64Array): void {
  let bestAlpha = 1;
  let bestLevel = x[n - 1] as number;
  let bestSse = Infinity;
  const G = SES_GRID.length;
  // Eight weights run side by side (independent recurrences, each in its own
  // order, so they overlap in the CPU); the choice is made in grid order after.
  // A group of fewer than eight repeats the last weight in its spare lanes
  // and considers only its own.
  const lanes = SES_LANES;
  for (let g = 0; g < G; g += 8) {
    const a0 = SES_GRID[g] as number;
    const a1 = SES_GRID[Math.min(g + 1, G - 1)] as number;
    const a2 = SES_GRID[Math.min(g + 2, G - 1)] as number;
    const a3 = SES_GRID[Math.min(g + 3, G - 1)] as number;
    const a4 = SES_GRID[Math.min(g + 4, G - 1)] as number;
    const a5 = SES_GRID[Math.min(g + 5, G - 1)] as number;
    const a6 = SES_GRID[Math.min(g + 6, G - 1)] as number;
    const a7 = SES_GRID[Math.min(g + 7, G - 1)] as number;
    let l0 = x[0] as number;
    let l1 = l0;
    let l2 = l0;
    let l3 = l0;
    let l4 = l0;
    let l5 = l0;
    let l6 = l0;
    let l7 = l0;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let s4 = 0;
    let s5 = 0;
    let s6 = 0;
    let s7 = 0;
    for (let i = 1; i < n; i++) {
      const xi = x[i] as number;
      const e0 = xi - l0;
      const e1 = xi - l1;
      const e2 = xi - l2;
      const e3 = xi - l3;
      const e4 = xi - l4;
      const e5 = xi - l5;
      const e6 = xi - l6;
      const e7 = xi - l7;
      s0 += e0 * e0;
      s1 += e1 * e1;
      s2 += e2 * e2;
      s3 += e3 * e3;
      s4 += e4 * e4;
      s5 += e5 * e5;
      s6 += e6 * e6;
      s7 += e7 * e7;
      l0 += a0 * e0;
      l1 += a1 * e1;
      l2 += a2 * e2;
      l3 += a3 * e3;
      l4 += a4 * e4;
      l5 += a5 * e5;
      l6 += a6 * e6;
      l7 += a7 * e7;
    }
    lanes[0] = s0; lanes[1] = l0;
    lanes[2] = s1; lanes[3] = l1;
    lanes[4] = s2; lanes[5] = l2;
    lanes[6] = s3; lanes[7] = l3;
    lanes[8] = s4; lanes[9] = l4;
    lanes[10] = s5; lanes[11] = l5;
    lanes[12] = s6; lanes[13] = l6;
    lanes[14] = s7; lanes[15] = l7;
    for (let j = 0; j < 8 && g + j < G; j++) {
      const sse = lanes[2 * j] as number;
      if (sse < bestSse - tolerance) {
        bestSse = sse;
        bestAlpha = SES_GRID[g + j] as number;
        bestLevel = lanes[2 * j + 1] as number;
      }
    }
  }
  out[0] = bestAlpha;
  out[1] = bestLevel;
}

/**
 * Least-squares slope of x[0 .. n−1] against 0 … n − 1 (0 when n < 2).
 *
 * Cost: O(n), no allocation.
 *
 * @example
 * ```ts
 * olsSlope(Float64Array.of(1, 3, 5, 7));
 * // => 2
 * ```
 * @category Statistics
 */
export function olsSlope(x: ArrayLike<number>, n: number = x.length): number {
  if (n < 2) return 0;
  const tMean = (n - 1) / 2;
  let xMean = 0;
  for (let i = 0; i < n; i++) xMean += x[i] as number;
  xMean /= n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const dt = i - tMean;
    num += dt * ((x[i] as number) - xMean);
    den += dt * dt;
  }
  return num / den;
}
