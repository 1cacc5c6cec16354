import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { meanOf, sampleStd, sampleVariance } from "../../src/stats/index.js";
import { relativeError, rFixtures } from "./fixtures.js";

describe("meanOf", () => {
  it("matches R mean() on the fixture data sets to 1e-15 relative", () => {
    for (const set of rFixtures.datasets) expect(relativeError(meanOf(set.x), set.mean[0] as number)).toBeLessThan(1e-15);
  });

  it("gives NaN for an empty range and propagates NaN", () => {
    expect(meanOf([])).toBeNaN();
    expect(meanOf([1, 2], 1, 1)).toBeNaN();
    expect(meanOf([1, NaN])).toBeNaN();
  });

  it("stays finite for huge values whose sum overflows", () => {
    expect(meanOf([1.5e308, 1.5e308, 1.5e308])).toBe(1.5e308);
    expect(meanOf([Infinity, 1])).toBe(Infinity);
    expect(meanOf([Infinity, -Infinity])).toBeNaN();
  });

  it("handles one point and tiny values", () => {
    expect(meanOf([42])).toBe(42);
    expect(meanOf([5e-324, 5e-324])).toBe(5e-324);
  });

  test.prop([fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 40 })], { numRuns: 100 })(
    "lies between the minimum and the maximum",
    (values) => {
      const m = meanOf(values);
      expect(m).toBeGreaterThanOrEqual(Math.min(...values));
      expect(m).toBeLessThanOrEqual(Math.max(...values));
    },
  );
});

describe("sampleStd / sampleVariance", () => {
  it("matches R sd() on the fixture data sets (incl. offset 1e9 and scale 1e-200) to 1e-13 relative", () => {
    for (const set of rFixtures.datasets) {
      expect(relativeError(sampleStd(set.x), set.sd[0] as number), set.name).toBeLessThan(1e-13);
    }
  });

  it("known values", () => {
    expect(sampleVariance([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(32 / 7, 15);
    expect(sampleStd([1, 2, 3, 4], 1, 3)).toBeCloseTo(Math.SQRT1_2, 15);
  });

  it("is NaN for fewer than two values (undefined sample std) and for non-finite values", () => {
    expect(sampleStd([])).toBeNaN();
    expect(sampleStd([3])).toBeNaN();
    expect(sampleVariance([3])).toBeNaN();
    expect(sampleStd([1, NaN, 2])).toBeNaN();
    expect(sampleStd([1, Infinity])).toBeNaN();
  });

  it("does not overflow or underflow for huge and tiny values", () => {
    expect(relativeError(sampleStd([1e300, -1e300]), Math.SQRT2 * 1e300)).toBeLessThan(1e-15);
    expect(relativeError(sampleStd([1e-300, 3e-300]), Math.SQRT2 * 1e-300)).toBeLessThan(1e-15);
  });

  test.prop([fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 2, max: 30 })], { numRuns: 100 })(
    "is exactly 0 for a constant series of any magnitude",
    (value, n) => {
      expect(sampleStd(new Float64Array(n).fill(value))).toBe(0);
    },
  );

  test.prop(
    [fc.array(fc.double({ noNaN: true, min: -1e3, max: 1e3 }), { minLength: 2, maxLength: 40 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })],
    { numRuns: 100 },
  )("agrees with the two-pass formula and is invariant under a shift", (values, shift) => {
    const n = values.length;
    const mean = values.reduce((a, b) => a + b, 0) / n;
    const twoPass = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    const std = sampleStd(values);
    expect(Math.abs(std - twoPass)).toBeLessThanOrEqual(1e-12 * (1 + twoPass));
    const shifted = sampleStd(values.map((v) => v + shift));
    expect(Math.abs(shifted - std)).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(shift)));
  });

  test.prop([fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { maxLength: 30 })], { numRuns: 50 })(
    "never mutates its input (frozen array)",
    (values) => {
      const frozen = Object.freeze([...values]);
      sampleStd(frozen);
      meanOf(frozen);
      expect(frozen).toEqual(values);
    },
  );

  it("throws RangeError for a bad range", () => {
    expect(() => sampleStd([1, 2, 3], 2, 1)).toThrow(RangeError);
    expect(() => meanOf([1, 2, 3], 0, 4)).toThrow(RangeError);
  });
});
