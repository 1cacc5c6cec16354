import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { quantileSorted, quantilesType7, quantileType7 } from "../../src/stats/index.js";
import { relativeError, rFixtures } from "./fixtures.js";

const finiteArray = fc.array(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }), { minLength: 1, maxLength: 40 });

describe("quantileType7", () => {
  it("matches R quantile(type = 7) on the fixture data sets to 1e-14 relative", () => {
    for (const set of rFixtures.datasets) {
      set.probs.forEach((p, k) => {
        expect(relativeError(quantileType7(set.x, p), set.quantiles[k] as number), `${set.name} p=${p}`).toBeLessThan(1e-14);
      });
      const all = quantilesType7(set.x, set.probs);
      set.probs.forEach((p, k) => expect(all[k]).toBe(quantileType7(set.x, p)));
    }
  });

  it("known values", () => {
    expect(quantileType7([7, 1, 3], 0.5)).toBe(3);
    expect(quantileType7([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileType7([4, 1, 3, 2], 0)).toBe(1);
    expect(quantileType7([4, 1, 3, 2], 1)).toBe(4);
    expect(quantileType7([5], 0.3)).toBe(5);
  });

  it("gives NaN for an empty range or a NaN value, and RangeError for p outside [0, 1]", () => {
    expect(quantileType7([], 0.5)).toBeNaN();
    expect(quantileType7([1, NaN, 3], 0.5)).toBeNaN();
    expect(Array.from(quantilesType7([], [0.1, 0.9]))).toEqual([NaN, NaN]);
    expect(() => quantileType7([1, 2], 1.5)).toThrow(RangeError);
    expect(() => quantileType7([1, 2], -0.1)).toThrow(/\[0, 1\]/);
    expect(() => quantileType7([1, 2], NaN)).toThrow(RangeError);
    expect(() => quantilesType7([1, 2], [0.5, 2])).toThrow(RangeError);
    expect(() => quantileSorted([1, 2], 2)).toThrow(RangeError);
  });

  it("handles infinities and a sub-range", () => {
    expect(quantileType7([-Infinity, 0, Infinity], 0.5)).toBe(0);
    expect(quantileType7([100, 3, 1, 2, 100], 0.5, 1, 4)).toBe(2);
    expect(quantileSorted([0, 1, 2, 3, 4], 0.5, 1, 4)).toBe(2);
  });

  test.prop([finiteArray, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })], { numRuns: 200 })(
    "is monotone (non-decreasing) in p and lies within [min, max]",
    (values, p1, p2) => {
      const [lo, hi] = p1 <= p2 ? [p1, p2] : [p2, p1];
      const qLo = quantileType7(values, lo);
      const qHi = quantileType7(values, hi);
      expect(qLo).toBeLessThanOrEqual(qHi);
      expect(qLo).toBeGreaterThanOrEqual(Math.min(...values));
      expect(qHi).toBeLessThanOrEqual(Math.max(...values));
    },
  );

  test.prop([finiteArray], { numRuns: 100 })("gives the minimum at p = 0 and the maximum at p = 1", (values) => {
    // `+ 0` folds -0 into 0: which of two equal zeros is picked is not specified.
    expect(quantileType7(values, 0) + 0).toBe(Math.min(...values) + 0);
    expect(quantileType7(values, 1) + 0).toBe(Math.max(...values) + 0);
  });

  test.prop([finiteArray, fc.double({ min: 0, max: 1, noNaN: true })], { numRuns: 100 })(
    "equals quantileSorted on a sorted copy and never mutates its input",
    (values, p) => {
      const frozen = Object.freeze([...values]);
      const q = quantileType7(frozen, p);
      expect(frozen).toEqual(values);
      const sorted = Float64Array.from(values).sort();
      expect(q + 0).toBe(quantileSorted(sorted, p) + 0);
      const typed = Float64Array.from(values);
      quantileType7(typed, p);
      expect(Array.from(typed)).toEqual(values);
    },
  );
});

describe("quantileType7 selection (larger inputs)", () => {
  it("agrees with sorting on sorted, reversed, constant, few-distinct and sawtooth data of 2000 values", () => {
    const n = 2000;
    const shapes: Record<string, (i: number) => number> = {
      sorted: (i) => i,
      reversed: (i) => n - i,
      constant: () => 7,
      fewDistinct: (i) => i % 3,
      sawtooth: (i) => (i * 37) % 101,
      organPipe: (i) => (i < n / 2 ? i : n - i),
    };
    for (const [name, shape] of Object.entries(shapes)) {
      const values = Float64Array.from({ length: n }, (_, i) => shape(i));
      const sorted = Float64Array.from(values).sort();
      for (const p of [0, 0.001, 0.25, 0.5, 0.7777, 0.99, 1]) {
        expect(quantileType7(values, p), `${name} p=${p}`).toBe(quantileSorted(sorted, p));
      }
    }
  });
});
