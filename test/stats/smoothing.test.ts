import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { SES_GRID, sesGridFit } from "../../src/stats/smoothing.js";

/** One loop per weight of the grid, in grid order: the definition sesGridFit documents. */
function referenceSes(x: Float64Array, n: number, tolerance: number): [number, number] {
  let bestAlpha = 1;
  let bestLevel = x[n - 1]!;
  let bestSse = Infinity;
  for (const alpha of SES_GRID) {
    let level = x[0]!;
    let sse = 0;
    for (let i = 1; i < n; i++) {
      const e = x[i]! - level;
      sse += e * e;
      level += alpha * e;
    }
    if (sse < bestSse - tolerance) {
      bestSse = sse;
      bestAlpha = alpha;
      bestLevel = level;
    }
  }
  return [bestAlpha, bestLevel];
}

describe("sesGridFit", () => {
  it("chooses the weight and final level of one loop per grid weight, bit for bit (near-ties keep the earlier weight)", () => {
    const value = fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constantFrom(0, -0, 1, 1 + 1e-13, 1e300, -1e300, 1e-300));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 200 }), fc.constantFrom(0, 1e-15, 1e-12, 1e-3), (list, tolerance) => {
        const x = Float64Array.from(list);
        const out = new Float64Array(2);
        sesGridFit(x, x.length, tolerance, out);
        const [alpha, level] = referenceSes(x, x.length, tolerance);
        expect(Object.is(out[0], alpha)).toBe(true);
        expect(Object.is(out[1], level)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("on a trend, the largest weight follows it best", () => {
    const x = Float64Array.from({ length: 50 }, (_, t) => 2 * t);
    const out = new Float64Array(2);
    sesGridFit(x, x.length, 1e-12, out);
    expect(out[0]).toBe(1);
    expect(out[1]).toBe(98);
  });
});
