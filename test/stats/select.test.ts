/**
 * selectOrderStatistics: the requested places hold what a sort would put there, and every value left of a
 * place is no larger, every value right of it no smaller; the values are only rearranged.
 */
import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { selectOrderStatistics } from "../../src/stats/index.js";

const value = fc.oneof(fc.double({ noNaN: true }), fc.integer({ min: -3, max: 3 }).map((v) => v + 0.5), fc.constantFrom(0, 1, 1, 2));

describe("selectOrderStatistics", () => {
  test.prop([fc.array(value, { minLength: 1, maxLength: 300 }), fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 300 })(
    "the requested places hold the sorted array's values, partitioned around them",
    (values, picks) => {
      const a = Float64Array.from(values);
      const sorted = Float64Array.from(values).sort();
      const ks = picks.map((p) => p % a.length).sort((x, y) => x - y);
      selectOrderStatistics(a, ks);
      for (const k of ks) {
        expect(a[k] === sorted[k]).toBe(true); // −0 and 0 are one value to the comparisons (a sort puts −0 first)
        for (let i = 0; i < k; i++) expect(a[i]! <= a[k]!).toBe(true);
        for (let i = k + 1; i < a.length; i++) expect(a[i]! >= a[k]!).toBe(true);
      }
      expect(Array.from(Float64Array.from(a).sort(), (v) => (v === 0 ? 0 : v))).toEqual(Array.from(sorted, (v) => (v === 0 ? 0 : v)));
    },
  );

  it("places every quartile of a long run of ties and a sorted and a reversed array", () => {
    for (const values of [
      Array.from({ length: 1001 }, (_, i) => (i % 3 === 0 ? 7 : 7)),
      Array.from({ length: 1000 }, (_, i) => i),
      Array.from({ length: 1000 }, (_, i) => 1000 - i),
    ]) {
      const a = Float64Array.from(values);
      const sorted = Float64Array.from(values).sort();
      const ks = [249, 250, 499, 500, 749, 750];
      selectOrderStatistics(a, ks);
      for (const k of ks) expect(a[k]).toBe(sorted[k]);
    }
  });

  it("names the rule when the places are not ascending or out of range", () => {
    expect(() => selectOrderStatistics(Float64Array.of(1, 2, 3), [2, 1])).toThrow(/ks must be ascending integers in \[0, 3\), got ks\[1\] = 1/);
    expect(() => selectOrderStatistics(Float64Array.of(1, 2, 3), [3])).toThrow(/got ks\[0\] = 3/);
    expect(() => selectOrderStatistics(Float64Array.of(1, 2, 3), [0.5])).toThrow(RangeError);
    const empty = new Float64Array(0);
    selectOrderStatistics(empty, []);
    expect(empty.length).toBe(0);
  });
});
