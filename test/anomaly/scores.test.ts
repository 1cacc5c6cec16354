import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  multivariateAccumulatedScores,
  multivariateThreshold,
  seriesAnomalyScores,
  univariateAnomalyFlags,
} from "../../src/anomaly/index.js";
import { gaussianMultiplier } from "../../src/intervals/index.js";
import { sampleStd } from "../../src/stats/index.js";

const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true });
const level = fc.double({ min: 0, max: 99.999, noNaN: true });

describe("seriesAnomalyScores", () => {
  test("σ leaves the detection window out when at least 6·detectionSize forecast points lie before it", () => {
    // 13 forecast points: 12 before the window (= 6·2), 2 in it.
    const y = Float64Array.from([0, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 50, -50]);
    const forecast = Float64Array.from(y, (_, t) => (t === 0 ? NaN : 0));
    const z = new Float64Array(2);
    const sigma = seriesAnomalyScores(y, forecast, 2, z);
    const expected = sampleStd(y.subarray(1, 13));
    expect(sigma).toBeCloseTo(expected, 14);
    expect(z[0]).toBeCloseTo(50 / expected, 12);
    expect(z[1]).toBeCloseTo(-50 / expected, 12);
  });

  test("σ uses every forecast point when fewer than 6·detectionSize lie before the window", () => {
    const y = Float64Array.from([0, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, 50, -50]);
    const forecast = Float64Array.from(y, (_, t) => (t === 0 ? NaN : 0));
    const z = new Float64Array(2);
    const sigma = seriesAnomalyScores(y, forecast, 2, z); // 11 points before the window < 12
    expect(sigma).toBeCloseTo(sampleStd(y.subarray(1)), 12);
    expect(z[0]! * sigma).toBeCloseTo(50, 10);
  });

  test("σ = 0 (perfect forecasts, constant residuals, rounding noise) gives z = 0", () => {
    const z = new Float64Array(3);
    expect(seriesAnomalyScores([5, 5, 5, 5], [NaN, 5, 5, 5], 3, z)).toBe(0);
    expect(Array.from(z)).toEqual([0, 0, 0]);
    expect(seriesAnomalyScores([5, 5, 5, 5], [NaN, 4, 4, 4], 3, z)).toBe(0); // constant residual 1
    expect(Array.from(z)).toEqual([0, 0, 0]);
    const noisy = [1e6, 1e6 + 1e-9, 1e6 - 1e-9, 1e6];
    expect(seriesAnomalyScores(noisy, [NaN, 1e6, 1e6, 1e6], 3, z)).toBe(0);
    expect(Array.from(z)).toEqual([0, 0, 0]);
  });

  test("no NaN or Infinity for huge, tiny and mixed finite values", () => {
    const z = new Float64Array(2);
    for (const [y, f] of [
      [[1e308, -1e308, 1e308, -1.7e308], [NaN, 1.7e308, -1.7e308, 1e308]],
      [[5e-324, 0, 5e-324, 1e-320], [NaN, 0, 0, 0]],
      [[0, 0, 0, 0], [NaN, 0, 0, 0]],
    ] as const) {
      const sigma = seriesAnomalyScores(y, f, 2, z);
      expect(Number.isFinite(sigma)).toBe(true);
      expect(z.every((v) => Number.isFinite(v))).toBe(true);
    }
  });

  test("z·σ equals y − ŷ and σ is the sample std of the chosen residuals (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(finite, finite), { minLength: 2, maxLength: 60 }), fc.integer({ min: 1, max: 10 }), (rows, d) => {
        fc.pre(d <= rows.length);
        const y = rows.map((r) => r[0]);
        const f = rows.map((r) => r[1]);
        const z = new Float64Array(d);
        const sigma = seriesAnomalyScores(y, f, d, z);
        const n = rows.length;
        const residuals = y.map((v, t) => v - f[t]!);
        const chosen = n - d >= 6 * d ? residuals.slice(0, n - d) : residuals;
        const reference = sampleStd(chosen);
        expect(Number.isFinite(sigma)).toBe(true);
        if (sigma === 0) {
          expect(reference).toBeLessThanOrEqual(1e-12 * 2e6);
          expect(Array.from(z)).toEqual(Array(d).fill(0));
        } else {
          expect(sigma).toBeCloseTo(reference, 6);
          for (let j = 0; j < d; j++) expect(z[j]! * sigma).toBeCloseTo(residuals[n - d + j]!, 6);
        }
      }),
      { numRuns: 200 },
    );
  });

  test("rejects a detection point without forecast and bad sizes", () => {
    const z = new Float64Array(2);
    expect(() => seriesAnomalyScores([1, 2, 3], [NaN, NaN, 1], 2, z)).toThrow(/no forecast/);
    expect(() => seriesAnomalyScores([1, 2, 3], [1, 1, 1], 4, new Float64Array(4))).toThrow(RangeError);
    expect(() => seriesAnomalyScores([1, 2, 3], [1, 1], 1, z)).toThrow(RangeError);
    expect(() => seriesAnomalyScores([1, 2, 3], [1, 1, 1], 3, z)).toThrow(/zOut/);
  });
});

describe("univariateAnomalyFlags", () => {
  test("flags a point iff |z| exceeds the level quantile (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { maxLength: 30 }), level, (z, lv) => {
        const flags = univariateAnomalyFlags(z, lv);
        const q = gaussianMultiplier(lv);
        z.forEach((v, r) => expect(flags[r] === 1).toBe(Math.abs(v) > q));
      }),
      { numRuns: 200 },
    );
  });

  test("raising the level never adds a flag (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { maxLength: 30 }), level, level, (z, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const lowFlags = univariateAnomalyFlags(z, low);
        const highFlags = univariateAnomalyFlags(z, high);
        highFlags.forEach((f, r) => expect(f).toBeLessThanOrEqual(lowFlags[r]!));
      }),
      { numRuns: 200 },
    );
  });

  test("known values at level 99 (q = 2.5758…)", () => {
    expect(Array.from(univariateAnomalyFlags([0.5, -3, 2.6, 2.5, 0], 99))).toEqual([0, 1, 1, 0, 0]);
    expect(Array.from(univariateAnomalyFlags([0, 1e-9], 0))).toEqual([0, 1]);
  });
});

describe("multivariate scores", () => {
  test("accumulated score is Σ z² per step", () => {
    expect(Array.from(multivariateAccumulatedScores([1, 2, 3, 4], 2, 2))).toEqual([10, 20]);
    expect(Array.from(multivariateAccumulatedScores([-3], 1, 1))).toEqual([9]);
    expect(multivariateAccumulatedScores([], 3, 0).length).toBe(0);
  });

  test("does not depend on the order of the series, to the bit (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 30, maxLength: 30 }),
        fc.nat(),
        (series, steps, pool, seed) => {
          const z = pool.slice(0, series * steps);
          fc.pre(z.length === series * steps);
          const order = Array.from({ length: series }, (_, i) => i).sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13));
          const permuted = order.flatMap((i) => z.slice(i * steps, i * steps + steps));
          const a = multivariateAccumulatedScores(z, series, steps);
          const b = multivariateAccumulatedScores(permuted, series, steps);
          expect(Array.from(b)).toEqual(Array.from(a));
          for (let t = 0; t < steps; t++) {
            let sum = 0;
            for (let i = 0; i < series; i++) sum += z[i * steps + t]! ** 2;
            expect(a[t]).toBeCloseTo(sum, 6);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  test("threshold never decreases as the level rises (property)", () => {
    fc.assert(
      fc.property(level, level, fc.integer({ min: 1, max: 6 }), (a, b, n) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(multivariateThreshold(low, n)).toBeLessThanOrEqual(multivariateThreshold(high, n));
      }),
      { numRuns: 300 },
    );
  });

  test("threshold is the chi-square quantile with one degree of freedom per series (R qchisq)", () => {
    expect(multivariateThreshold(99, 2)).toBeCloseTo(9.21034037197618, 10); // qchisq(0.99, 2)
    expect(multivariateThreshold(99, 3)).toBeCloseTo(11.34486673014437, 9); // qchisq(0.99, 3)
    // one series: the χ²(1) quantile is the squared two-sided normal quantile
    expect(multivariateThreshold(95, 1)).toBeCloseTo(3.841458820694124, 12); // qchisq(0.95, 1)
    expect(multivariateThreshold(99, 1)).toBeCloseTo(6.634896601021214, 12); // qchisq(0.99, 1)
    expect(multivariateThreshold(99.9, 2)).toBeCloseTo(13.81551055796427, 11); // qchisq(0.999, 2)
    expect(multivariateThreshold(0, 3)).toBe(0);
    expect(() => multivariateThreshold(99, 0)).toThrow(RangeError);
    expect(() => multivariateThreshold(100, 2)).toThrow(RangeError);
    expect(() => multivariateAccumulatedScores([1, 2, 3], 2, 2)).toThrow(RangeError);
  });
});
