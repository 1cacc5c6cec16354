import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { averageRanks, detectPeriods, hasPeriod, periodStrength } from "../../src/series/period.js";
import { seasonal } from "./helpers.js";

const noiseOnly = (n: number, seed: number): Float64Array => seasonal(n, 1, 0, 1, seed);

describe("periodStrength", () => {
  test("a noise-free season scores 1 at its period, with or without a trend", () => {
    for (const m of [2, 4, 7, 12, 24]) {
      const y = Array.from({ length: 10 * m }, (_, t) => Math.sin((2 * Math.PI * (t % m)) / m) + (t % m === 0 ? 2 : 0));
      expect(periodStrength(y, m)).toBeCloseTo(1, 10);
      expect(periodStrength(y.map((v, t) => v + 0.3 * t), m)).toBeCloseTo(1, 10);
    }
  });

  test("white noise scores within four standard errors of 0", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.constantFrom(7, 24, 168), (seed, p) => {
        const y = noiseOnly(2000, seed);
        return Math.abs(periodStrength(y, p)) < 4 / Math.sqrt(2000 - p);
      }),
      { numRuns: 40 },
    );
  });

  test("a level shift neither makes nor hides a season", () => {
    const y = seasonal(24 * 20, 24, 5, 1, 3);
    const shifted = y.map((v, t) => (t >= 200 ? v + 50 : v));
    expect(periodStrength(shifted, 24)).toBeGreaterThan(periodStrength(y, 24) - 0.2);
    expect(detectPeriods(shifted, [24]).map((p) => p.period)).toEqual([24]);
    const noise = noiseOnly(24 * 20, 4).map((v, t) => (t >= 200 ? v + 50 : v));
    expect(Math.abs(periodStrength(noise, 24))).toBeLessThan(0.2);
    expect(detectPeriods(noise, [24, 48])).toEqual([]);
  });

  test("a few huge spikes do not hide a season", () => {
    const y = seasonal(24 * 20, 24, 5, 1, 5);
    for (const t of [30, 100, 250, 400]) y[t] = 1e6;
    expect(periodStrength(y, 24)).toBeGreaterThan(0.8);
  });

  test("the same strength at any magnitude (scale invariance, 1e-300 to 1e300)", () => {
    const y = seasonal(24 * 10, 24, 5, 1, 6);
    const base = periodStrength(y, 24);
    for (const s of [1e-300, 1e-150, 1e150, 1e300]) expect(periodStrength(y.map((v) => v * s), 24)).toBeCloseTo(base, 9);
  });

  test("degenerate input gives 0: constant, too short, p < 2, non-integer p, non-finite values", () => {
    expect(periodStrength(new Float64Array(100).fill(3), 7)).toBe(0);
    expect(periodStrength([1, 2, 3, 4, 5], 3)).toBe(0);
    expect(periodStrength(seasonal(100, 7, 5, 1, 1), 1)).toBe(0);
    expect(periodStrength(seasonal(100, 7, 5, 1, 1), 7.5)).toBe(0);
    expect(periodStrength([...seasonal(100, 7, 5, 1, 1), NaN], 7)).toBe(0);
    expect(periodStrength([], 7)).toBe(0);
    expect(periodStrength([1], 7)).toBe(0);
    const line = Array.from({ length: 100 }, (_, t) => 2 * t + 1);
    expect(periodStrength(line, 7)).toBe(0);
  });

  test("never mutates its input and stays in [-1, 1]", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 0, maxLength: 80 }), fc.integer({ min: 2, max: 30 }), (values, p) => {
        const y = Float64Array.from(values);
        const copy = Float64Array.from(values);
        const r = periodStrength(y, p);
        return r >= -1 && r <= 1 && y.every((v, i) => Object.is(v, copy[i]));
      }),
    );
  });
});

describe("detectPeriods", () => {
  test("an hourly series with a day and a week: both, the week only when weekdays differ", () => {
    const weeks = 4;
    const dayOnly = seasonal(168 * weeks, 24, 10, 1, 7);
    expect(detectPeriods(dayOnly, [24, 168]).map((p) => p.period)).toEqual([24]);
    const weekly = dayOnly.map((v, t) => (Math.floor(t / 24) % 7 >= 5 ? v - 15 : v));
    expect(detectPeriods(weekly, [24, 168]).map((p) => p.period).sort((a, b) => a - b)).toEqual([24, 168]);
  });

  test("no season: no period, whatever the candidates", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), (seed) => detectPeriods(noiseOnly(1000, seed), [7, 12, 24, 168]).length === 0),
      { numRuns: 30 },
    );
  });

  test("a candidate needs minCycles cycles of history", () => {
    const y = seasonal(24 * 5, 24, 10, 0.1, 8);
    expect(detectPeriods(y, [24]).length).toBe(1);
    expect(detectPeriods(y, [24], { minCycles: 6 }).length).toBe(0);
    expect(() => detectPeriods(y, [24], { minCycles: 1 })).toThrow(RangeError);
  });

  test("the answer does not depend on the order or repetition of the candidates", () => {
    const y = seasonal(24 * 30, 24, 10, 1, 9).map((v, t) => (Math.floor(t / 24) % 7 >= 5 ? v - 15 : v));
    fc.assert(
      fc.property(fc.shuffledSubarray([24, 168, 12, 7, 24, 168], { minLength: 6, maxLength: 6 }), (order) => {
        expect(detectPeriods(y, order)).toEqual(detectPeriods(y, [7, 12, 24, 168]));
      }),
      { numRuns: 20 },
    );
  });
});

describe("hasPeriod", () => {
  test("is whether detectPeriods finds any period, for any series strength, candidates and options", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 20, max: 900 }),
        fc.constantFrom(1, 5, 7, 12, 24),
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.subarray([2, 5, 7, 12, 24, 48, 168, 2.5, -3]),
        fc.constantFrom(2, 3, 4),
        fc.constantFrom(0.1, 0.3, 0.6),
        (seed, n, m, amplitude, candidates, minCycles, minStrength) => {
          const y = seasonal(n, m, amplitude, 1, seed);
          const options = { minCycles, minStrength };
          expect(hasPeriod(y, candidates, options)).toBe(detectPeriods(y, candidates, options).length > 0);
        },
      ),
      { numRuns: 150 },
    );
  });

  test("a constant series or one without enough cycles has none; minCycles below 2 is refused", () => {
    expect(hasPeriod(new Float64Array(500).fill(3), [24])).toBe(false);
    expect(hasPeriod(seasonal(24 * 2, 24, 10, 0.1, 8), [24])).toBe(false);
    expect(() => hasPeriod(seasonal(100, 4, 1, 1, 1), [4], { minCycles: 1 })).toThrow(RangeError);
  });
});

/** The ranks by their definition: (a + b + 1) / 2 with a values below v − 1e-12·max(1, |v|) and b values up to v + 1e-12·max(1, |v|). */
function countedRanks(values: Float64Array): number[] {
  return Array.from(values, (v) => {
    const tolerance = 1e-12 * Math.max(1, Math.abs(v));
    let below = 0;
    let upTo = 0;
    for (const w of values) {
      if (w < v - tolerance) below++;
      if (w <= v + tolerance) upTo++;
    }
    return (below + upTo + 1) / 2;
  });
}

describe("averageRanks", () => {
  const value = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0, -0, 1, -1, 1 + 1e-13, 1 - 1e-13, 1e300, -1e300, 5e-324, 3),
    fc.integer({ min: -3, max: 3 }),
  );
  test("rank (a + b + 1) / 2: a values below v − 1e-12·max(1, |v|), b values up to v + 1e-12·max(1, |v|) (ties share the average rank)", () => {
    fc.assert(fc.property(fc.array(value, { maxLength: 300 }), (list) => {
      const values = Float64Array.from(list);
      const ranks = averageRanks(values);
      const want = countedRanks(values);
      expect(Array.from(ranks)).toEqual(want);
    }), { numRuns: 300 });
  });
  test("the same ranks when most values crowd one end of the range (a bucket longer than the insertion run) or are ±0", () => {
    const crowded = fc.oneof(fc.double({ min: 0, max: 1e-9, noNaN: true }), fc.constantFrom(0, -0, 1e-10, 1));
    fc.assert(fc.property(fc.array(crowded, { minLength: 40, maxLength: 400 }), (list) => {
      const values = Float64Array.from(list);
      const want = countedRanks(values);
      expect(Array.from(averageRanks(values))).toEqual(want);
    }), { numRuns: 200 });
  });
});
