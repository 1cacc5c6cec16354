import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { crossValidate, seasonalNaiveForecaster } from "../../src/cv/index.js";
import {
  conformalHalfWidths,
  conformalIntervals,
  gaussianIntervals,
  gaussianMultiplier,
  intervalKey,
} from "../../src/intervals/index.js";
import { packForTest } from "../anomaly/helpers.js";

const level = fc.double({ min: 0, max: 99.999, noNaN: true });

describe("intervalKey", () => {
  test("writes the level as given", () => {
    expect(intervalKey(99, "lo")).toBe("lo-99");
    expect(intervalKey(80, "hi")).toBe("hi-80");
    expect(intervalKey(97.5, "lo")).toBe("lo-97.5");
    expect(intervalKey(0, "hi")).toBe("hi-0");
  });

  test("rejects levels outside [0, 100)", () => {
    for (const bad of [100, -1, NaN, Infinity]) expect(() => intervalKey(bad, "lo")).toThrow(RangeError);
  });
});

describe("gaussianMultiplier", () => {
  test("matches R qnorm(0.5 + level/200)", () => {
    expect(gaussianMultiplier(95)).toBeCloseTo(1.959963984540054, 14); // qnorm(0.975)
    expect(gaussianMultiplier(99)).toBeCloseTo(2.5758293035489, 13); // qnorm(0.995)
    expect(gaussianMultiplier(80)).toBeCloseTo(1.2815515655446, 13); // qnorm(0.9)
    expect(gaussianMultiplier(0)).toBe(0);
  });

  test("increases with the level (property)", () => {
    fc.assert(
      fc.property(level, level, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(gaussianMultiplier(lo)).toBeLessThanOrEqual(gaussianMultiplier(hi));
      }),
      { numRuns: 200 },
    );
  });
});

describe("gaussianIntervals", () => {
  test("mean ± q·sigma with keys lo then hi per level, in the given order", () => {
    const out = gaussianIntervals([10, 20], [1, 2], [99, 80]);
    expect(Object.keys(out)).toEqual(["lo-99", "hi-99", "lo-80", "hi-80"]);
    const q = gaussianMultiplier(99);
    expect(out["lo-99"]).toEqual([10 - q, 20 - 2 * q]);
    expect(out["hi-99"]).toEqual([10 + q, 20 + 2 * q]);
    expect(Object.keys(gaussianIntervals([1], [1], [80, 97.5, 99]))).toEqual(["lo-80", "hi-80", "lo-97.5", "hi-97.5", "lo-99", "hi-99"]);
  });

  test("sigma 0 gives lo = hi = mean; huge bounds are clamped to finite numbers", () => {
    expect(gaussianIntervals([5], [0], [99])).toEqual({ "lo-99": [5], "hi-99": [5] });
    const huge = gaussianIntervals([1e308], [1e308], [99]);
    expect(huge["hi-99"]).toEqual([Number.MAX_VALUE]);
    expect(Number.isFinite(huge["lo-99"]![0])).toBe(true);
  });

  test("nested: a higher level contains a lower one, both contain the mean (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1e3, noNaN: true })), {
          minLength: 1,
          maxLength: 10,
        }),
        level,
        level,
        (rows, a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          const mean = rows.map((r) => r[0]);
          const sigma = rows.map((r) => r[1]);
          const out = gaussianIntervals(mean, sigma, [low, high]);
          rows.forEach((_, r) => {
            const lo1 = out[intervalKey(low, "lo")]![r]!;
            const hi1 = out[intervalKey(low, "hi")]![r]!;
            expect(out[intervalKey(high, "lo")]![r]!).toBeLessThanOrEqual(lo1);
            expect(out[intervalKey(high, "hi")]![r]!).toBeGreaterThanOrEqual(hi1);
            expect(lo1).toBeLessThanOrEqual(mean[r]!);
            expect(hi1).toBeGreaterThanOrEqual(mean[r]!);
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  test("rejects mismatched lengths and negative or non-finite sigma", () => {
    expect(() => gaussianIntervals([1, 2], [1], [90])).toThrow(RangeError);
    expect(() => gaussianIntervals([1], [-1], [90])).toThrow(RangeError);
    expect(() => gaussianIntervals([1], [NaN], [90])).toThrow(RangeError);
    expect(() => gaussianIntervals([1], [1], [100])).toThrow(RangeError);
  });
});

describe("conformal intervals", () => {
  test("known value: type-7 quantile of the absolute errors per step", () => {
    // y = 1, 2, 4, 7, 11: naive one-step errors 1, 2, 3, 4; numpy.quantile([1,2,3,4], 0.9) = 3.7
    const series = packForTest([[1, 2, 4, 7, 11]]);
    const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 1 });
    expect(conformalHalfWidths(cv, series.y, series.offsets, 90)[0]).toBeCloseTo(3.7, 12);
    expect(conformalIntervals([11], cv, series, [50])).toEqual({ "lo-50": [8.5], "hi-50": [13.5] });
  });

  test("per horizon step and per series", () => {
    // h = 2, naive: series 0 windows at cutoffs 2 and 4 (context [0,1] and [0,1,0,1]).
    const series = packForTest([
      [0, 1, 0, 1, 0, 1],
      [5, 5, 5, 5, 5],
    ]);
    const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 2 });
    // series 0: step 1 errors |0-1| twice = 1; step 2 errors |1-1| twice = 0. series 1: all 0.
    expect(Array.from(conformalHalfWidths(cv, series.y, series.offsets, 95))).toEqual([1, 0, 0, 0]);
    const out = conformalIntervals([1, 1, 5, 5], cv, series, [95]);
    expect(out).toEqual({ "lo-95": [0, 1, 5, 5], "hi-95": [2, 1, 5, 5] });
  });

  test("half-widths lie between the smallest and largest error and grow with the level (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -100, max: 100 }), { minLength: 3, maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        level,
        level,
        (values, h, a, b) => {
          fc.pre(values.length > h);
          const series = packForTest([values]);
          const cv = crossValidate(seasonalNaiveForecaster(2), series, { h, stepSize: 1 });
          const [low, high] = a <= b ? [a, b] : [b, a];
          const wLow = conformalHalfWidths(cv, series.y, series.offsets, low);
          const wHigh = conformalHalfWidths(cv, series.y, series.offsets, high);
          for (let k = 0; k < h; k++) {
            const errors: number[] = [];
            for (let row = 0; row < cv.cutoffs.length; row++) {
              errors.push(Math.abs(values[cv.cutoffs[row]! + k]! - cv.forecasts[row * h + k]!));
            }
            // type-7 interpolation may land an ulp outside the bracketing errors, or an ulp the wrong way round for close levels
            const ulps = 4 * Number.EPSILON * Math.max(1, ...errors);
            expect(wLow[k]!).toBeGreaterThanOrEqual(Math.min(...errors) - ulps);
            expect(wHigh[k]!).toBeLessThanOrEqual(Math.max(...errors) + ulps);
            expect(wLow[k]!).toBeLessThanOrEqual(wHigh[k]! + ulps);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  test("rejects a series without windows and a mean of the wrong length", () => {
    const series = packForTest([[1, 2, 3], [1]]);
    const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 1 });
    expect(() => conformalHalfWidths(cv, series.y, series.offsets, 90)).toThrow(/series 1 has no cross-validation window/);
    const ok = packForTest([[1, 2, 3]]);
    const cvOk = crossValidate(seasonalNaiveForecaster(1), ok, { h: 1 });
    expect(() => conformalIntervals([1, 2], cvOk, ok, [90])).toThrow(RangeError);
  });
});
