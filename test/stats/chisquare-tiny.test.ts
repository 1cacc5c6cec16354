import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { chiSquareCdf, chiSquareQuantile } from "../../src/stats/index.js";

describe("chiSquareQuantile in the far lower tail", () => {
  it("is 0 where the true quantile underflows (df 1: x ≈ πp²/2)", () => {
    expect(chiSquareQuantile(1e-300, 1)).toBe(0);
    expect(chiSquareQuantile(5e-324, 1)).toBe(0);
    const x = chiSquareQuantile(1e-100, 1);
    expect(Math.abs(x / ((Math.PI * 1e-200) / 2) - 1)).toBeLessThan(1e-9);
  });
  test.prop([fc.double({ min: 1e-320, max: 0.5, noNaN: true }), fc.double({ min: 1e-320, max: 0.5, noNaN: true }), fc.constantFrom(0.5, 1, 2, 3, 10)])(
    "is monotone in p down to tiny p (up to rounding of the iterative solve)",
    (p1, p2, df) => {
      const [lo, hi] = p1 < p2 ? [p1, p2] : [p2, p1];
      // A few ulps of solver rounding are allowed; the old bug (6e-64 where the answer is 0) is not.
      expect(chiSquareQuantile(lo, df)).toBeLessThanOrEqual(chiSquareQuantile(hi, df) * (1 + 1e-14));
    },
  );
  it("still inverts the CDF at moderate p", () => {
    expect(chiSquareCdf(chiSquareQuantile(0.01, 1), 1)).toBeCloseTo(0.01, 12);
  });
});
