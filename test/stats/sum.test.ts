import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { compensatedSum } from "../../src/stats/index.js";

/** Exact sum of doubles of the form m·2^e (|m| < 2^40, e in [-40, 40]) using BigInt, rounded once. */
function exactSum(values: readonly number[]): number {
  const scale = 2n ** 80n;
  let total = 0n;
  for (const v of values) total += BigInt(v * 2 ** 40) * 2n ** 40n; // v·2^80 exactly (v·2^40 is an integer)
  const negative = total < 0n;
  const abs = negative ? -total : total;
  // Converting a BigInt quotient to number rounds twice at most at the 2^-80 granularity, which is
  // far below the tolerance used below; exact enough as a reference.
  const value = Number(abs / scale) + Number(abs % scale) / Number(scale);
  return negative ? -value : value;
}

const dyadic = fc
  .tuple(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: -40, max: 0 }))
  .map(([m, e]) => m * 2 ** e);

describe("compensatedSum", () => {
  it("recovers what plain summation loses (1 + 1e100 + 1 − 1e100 = 2)", () => {
    const values = [1, 1e100, 1, -1e100];
    let naive = 0;
    for (const v of values) naive += v;
    expect(naive).toBe(0);
    expect(compensatedSum(values)).toBe(2);
  });

  it("sums a sub-range [start, end)", () => {
    expect(compensatedSum(new Float64Array([1, 2, 3, 4]), 1, 3)).toBe(5);
    expect(compensatedSum([1, 2, 3], 2, 2)).toBe(0);
  });

  it("sums 0.1 ten million-like times without drift (1e5 copies)", () => {
    const values = new Float64Array(100_000).fill(0.1);
    expect(compensatedSum(values)).toBe(10000);
  });

  it("propagates NaN and infinities like plain summation", () => {
    expect(compensatedSum([1, NaN, 2])).toBeNaN();
    expect(compensatedSum([1, Infinity, 2])).toBe(Infinity);
    expect(compensatedSum([-Infinity, 1])).toBe(-Infinity);
    expect(compensatedSum([Infinity, -Infinity])).toBeNaN();
  });

  it("throws RangeError for a bad range", () => {
    expect(() => compensatedSum([1, 2], -1, 2)).toThrow(RangeError);
    expect(() => compensatedSum([1, 2], 0, 3)).toThrow(RangeError);
    expect(() => compensatedSum([1, 2], 2, 1)).toThrow(RangeError);
    expect(() => compensatedSum([1, 2], 0.5, 2)).toThrow(/range/);
  });

  test.prop([fc.array(dyadic, { maxLength: 60 })], { numRuns: 200 })(
    "is within 2 ulp of the exact sum, whatever the cancellation",
    (values) => {
      const exact = exactSum(values);
      let absSum = 0;
      for (const v of values) absSum += Math.abs(v);
      const tolerance = 2 * Number.EPSILON * Math.abs(exact) + values.length * Number.EPSILON ** 2 * absSum;
      expect(Math.abs(compensatedSum(values) - exact)).toBeLessThanOrEqual(tolerance);
    },
  );

  test.prop([fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { maxLength: 50 })], { numRuns: 100 })(
    "never mutates its input (frozen array)",
    (values) => {
      const frozen = Object.freeze([...values]);
      compensatedSum(frozen);
      expect(frozen).toEqual(values);
    },
  );
});
