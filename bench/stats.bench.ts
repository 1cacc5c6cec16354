/**
 * Micro-benchmarks of the stats primitives: `npx vitest bench --run bench/stats.bench.ts`.
 * Inputs are deterministic (a fixed linear congruential sequence), so runs are comparable.
 */
import { bench, describe } from "vitest";
import { chiSquareQuantile, compensatedSum, normalQuantile, quantileSorted, quantileType7, sampleStd } from "../src/stats/index.js";

function deterministicValues(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let state = seed >>> 0;
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = (state / 4294967296 - 0.5) * 1000;
  }
  return out;
}

const values = deterministicValues(100_000, 42);
const sorted = Float64Array.from(values).sort();
const probabilities = deterministicValues(1000, 7).map((v) => v / 1000 + 0.5);

describe("sums and moments, n = 100 000", () => {
  bench("compensatedSum", () => {
    compensatedSum(values);
  });
  bench("plain for-loop sum (reference)", () => {
    let s = 0;
    for (let i = 0; i < values.length; i++) s += values[i] as number;
    if (Number.isNaN(s)) throw new Error("unreachable");
  });
  bench("sampleStd (Welford)", () => {
    sampleStd(values);
  });
});

describe("quantiles, n = 100 000", () => {
  bench("quantileType7 (copy + quickselect)", () => {
    quantileType7(values, 0.95);
  });
  bench("quantileSorted (pre-sorted)", () => {
    quantileSorted(sorted, 0.95);
  });
});

describe("distribution quantiles, 1000 p each", () => {
  bench("normalQuantile", () => {
    for (let i = 0; i < probabilities.length; i++) normalQuantile(probabilities[i] as number);
  });
  bench("chiSquareQuantile df = 10", () => {
    for (let i = 0; i < probabilities.length; i++) chiSquareQuantile(probabilities[i] as number, 10);
  });
  bench("chiSquareQuantile df = 1000", () => {
    for (let i = 0; i < probabilities.length; i++) chiSquareQuantile(probabilities[i] as number, 1000);
  });
});
