import fc from "fast-check";
import { test as propTest } from "@fast-check/vitest";
import { describe, expect, test } from "vitest";
import "../../src/model/weights/default.js";
import { createNetworkForecaster } from "../../src/model/index.js";
import {
  crossValidate,
  latestWindowForecasts,
  rollingWindowCount,
  seasonalNaiveForecaster,
  type CrossValidationResult,
} from "../../src/cv/index.js";
import type { Forecaster } from "../../src/types.js";
import { packForTest } from "../anomaly/helpers.js";

/** Forecasts `h` copies of (context length + 1000·(sum of context)), so each window's output is recognisable. */
function recordingForecaster(): Forecaster & { calls: number[][] } {
  const calls: number[][] = [];
  return {
    name: "recording",
    seasonLength: 1,
    calls,
    forecast(contexts, h) {
      calls.push(contexts.map((c) => c.length));
      const out = new Float64Array(contexts.length * h);
      contexts.forEach((c, i) => {
        let sum = 0;
        for (const v of c) sum += v;
        for (let k = 0; k < h; k++) out[i * h + k] = c.length + 1000 * sum + k / 10;
      });
      return out;
    },
  };
}

const seriesLists = fc.array(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 0, maxLength: 40 }), {
  minLength: 1,
  maxLength: 5,
});

describe("seasonalNaiveForecaster", () => {
  test("repeats the last season, step k taking the value one season earlier", () => {
    const f = seasonalNaiveForecaster(4);
    const out = f.forecast([Float64Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)], 6);
    expect(Array.from(out)).toEqual([7, 8, 9, 10, 7, 8]);
    expect(f.name).toBe("seasonal-naive");
    expect(f.seasonLength).toBe(4);
  });

  test("falls back to the last value when the context is shorter than a season", () => {
    expect(Array.from(seasonalNaiveForecaster(12).forecast([Float64Array.of(3, 5)], 3))).toEqual([5, 5, 5]);
  });

  test("forecasts several contexts row-major", () => {
    const out = seasonalNaiveForecaster(1).forecast([Float64Array.of(1, 2), Float64Array.of(7)], 2);
    expect(Array.from(out)).toEqual([2, 2, 7, 7]);
  });

  test("rejects bad season lengths, horizons and empty contexts", () => {
    expect(() => seasonalNaiveForecaster(0)).toThrow(RangeError);
    expect(() => seasonalNaiveForecaster(1.5)).toThrow(RangeError);
    expect(() => seasonalNaiveForecaster(2).forecast([Float64Array.of(1)], 0)).toThrow(RangeError);
    expect(() => seasonalNaiveForecaster(2).forecast([new Float64Array(0)], 1)).toThrow(/context 0 is empty/);
  });
});

describe("rollingWindowCount", () => {
  test("known values", () => {
    expect(rollingWindowCount(100, 20, 20)).toBe(4);
    expect(rollingWindowCount(100, 20, 20, 30)).toBe(3);
    expect(rollingWindowCount(21, 20, 20)).toBe(1);
    expect(rollingWindowCount(20, 20, 20)).toBe(0);
    expect(rollingWindowCount(0, 1, 1)).toBe(0);
    expect(rollingWindowCount(10, 3, 1)).toBe(7);
  });

  test("is the largest count whose oldest cutoff keeps minContext points", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        (n, h, step, minContext) => {
          const count = rollingWindowCount(n, h, step, minContext);
          const oldestCutoff = (w: number) => n - h - (w - 1) * step;
          if (count > 0) expect(oldestCutoff(count)).toBeGreaterThanOrEqual(minContext);
          expect(oldestCutoff(count + 1)).toBeLessThan(minContext);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("rejects non-integers", () => {
    expect(() => rollingWindowCount(10, 0, 1)).toThrow(RangeError);
    expect(() => rollingWindowCount(-1, 1, 1)).toThrow(RangeError);
    expect(() => rollingWindowCount(10, 1, 1, 0)).toThrow(RangeError);
  });
});

describe("crossValidate", () => {
  test("tiles back from the end, oldest window first, (series, window, step) layout", () => {
    const series = packForTest([
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      [10, 20, 30, 40, 50, 60],
    ]);
    const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 3 });
    // series 0: cutoffs 7, 4, 1; series 1: cutoffs 3 (0 would leave no context)
    expect(Array.from(cv.windowOffsets)).toEqual([0, 3, 4]);
    expect(Array.from(cv.cutoffs)).toEqual([1, 4, 7, 3]);
    expect(Array.from(cv.forecasts)).toEqual([1, 1, 1, 4, 4, 4, 7, 7, 7, 30, 30, 30]);
    expect(cv.h).toBe(3);
    expect(cv.stepSize).toBe(3);
  });

  test("honours stepSize, windows and minContext", () => {
    const series = packForTest([Array.from({ length: 12 }, (_, t) => t)]);
    const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 4, stepSize: 2, windows: 3, minContext: 5 });
    expect(Array.from(cv.cutoffs)).toEqual([6, 8]); // cutoff 4 would leave fewer than 5 context points
    const all = crossValidate(seasonalNaiveForecaster(1), series, { h: 4, stepSize: 2, minContext: 1 });
    expect(Array.from(all.cutoffs)).toEqual([2, 4, 6, 8]);
    const capped = crossValidate(seasonalNaiveForecaster(1), series, { h: 4, stepSize: 2, windows: 3 });
    expect(Array.from(capped.cutoffs)).toEqual([4, 6, 8]);
  });

  test("calls the forecaster once per window with every series that has that window", () => {
    const series = packForTest([Array(10).fill(1), Array(7).fill(2), Array(2).fill(3), Array(10).fill(4)]);
    const f = recordingForecaster();
    crossValidate(f, series, { h: 2, stepSize: 3 });
    // latest window first: cutoffs 8, 5, 8; then 5, 2, 5; then 2, 2
    expect(f.calls).toEqual([
      [8, 5, 8],
      [5, 2, 5],
      [2, 2],
    ]);
  });

  test("each window row holds the forecast of its own context (property)", () => {
    fc.assert(
      fc.property(seriesLists, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 8 }), (lists, h, step) => {
        const series = packForTest(lists);
        const copy = Float64Array.from(series.y);
        const f = recordingForecaster();
        const cv = crossValidate(f, series, { h, stepSize: step });
        expect(series.y).toEqual(copy);
        expect(cv.windowOffsets.length).toBe(lists.length + 1);
        for (let i = 0; i < lists.length; i++) {
          const n = lists[i]!.length;
          const rows = cv.windowOffsets[i + 1]! - cv.windowOffsets[i]!;
          expect(rows).toBe(rollingWindowCount(n, h, step));
          for (let w = 0; w < rows; w++) {
            const row = cv.windowOffsets[i]! + w;
            const cutoff = cv.cutoffs[row]!;
            expect(cutoff).toBe(n - h - (rows - 1 - w) * step);
            const expected = f.forecast([Float64Array.from(lists[i]!.slice(0, cutoff))], h);
            expect(Array.from(cv.forecasts.subarray(row * h, row * h + h))).toEqual(Array.from(expected));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  test("a factory gets each window's cutoffs, -1 for series without that window", () => {
    const series = packForTest([Array(9).fill(1), Array(5).fill(2)]);
    const seen: [number, number[]][] = [];
    crossValidate(
      (w, cutoffs) => {
        seen.push([w, Array.from(cutoffs)]);
        return seasonalNaiveForecaster(1);
      },
      series,
      { h: 2 },
    );
    expect(seen).toEqual([
      [0, [7, 3]],
      [1, [5, 1]],
      [2, [3, -1]],
      [3, [1, -1]],
    ]);
  });

  test("rejects wrong forecaster output and bad options", () => {
    const series = packForTest([[1, 2, 3, 4]]);
    const short: Forecaster = { name: "short", seasonLength: 1, forecast: () => new Float64Array(1) };
    expect(() => crossValidate(short, series, { h: 2 })).toThrow(/returned 1 values/);
    const nan: Forecaster = { name: "nan", seasonLength: 1, forecast: (c, h) => new Float64Array(c.length * h).fill(NaN) };
    expect(() => crossValidate(nan, series, { h: 2 })).toThrow(/non-finite/);
    expect(() => crossValidate(seasonalNaiveForecaster(1), series, { h: 0 })).toThrow(RangeError);
    expect(() => crossValidate(seasonalNaiveForecaster(1), series, { h: 1, stepSize: 0 })).toThrow(RangeError);
    expect(() => crossValidate(seasonalNaiveForecaster(1), series, { h: 1, windows: -1 })).toThrow(RangeError);
  });

  test("series too short for a window get none; empty input gives an empty result", () => {
    const cv = crossValidate(seasonalNaiveForecaster(1), packForTest([[], [1], [1, 2]]), { h: 1 });
    expect(Array.from(cv.windowOffsets)).toEqual([0, 0, 0, 1]);
    expect(Array.from(cv.forecasts)).toEqual([1]);
  });
});

describe("latestWindowForecasts", () => {
  /** Brute force: for each point, the covering window with the largest cutoff. */
  function bruteForce(cv: CrossValidationResult, sizes: number[]): number[] {
    const out: number[] = [];
    sizes.forEach((n, i) => {
      for (let t = 0; t < n; t++) {
        let best = -1;
        let value = NaN;
        for (let row = cv.windowOffsets[i]!; row < cv.windowOffsets[i + 1]!; row++) {
          const c = cv.cutoffs[row]!;
          if (c <= t && t < c + cv.h && c > best) {
            best = c;
            value = cv.forecasts[row * cv.h + (t - c)]!;
          }
        }
        out.push(value);
      }
    });
    return out;
  }

  test("each point takes the window with the latest cutoff that covers it (property)", () => {
    fc.assert(
      fc.property(seriesLists, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 8 }), (lists, h, step) => {
        const series = packForTest(lists);
        const cv = crossValidate(recordingForecaster(), series, { h, stepSize: step });
        const got = Array.from(latestWindowForecasts(cv, series.offsets));
        expect(got).toEqual(bruteForce(cv, lists.map((l) => l.length)));
      }),
      { numRuns: 100 },
    );
  });

  test("overlapping windows: the later cutoff wins", () => {
    const series = packForTest([[1, 2, 3, 4, 5, 6]]);
    const cv = crossValidate(seasonalNaiveForecaster(1), series, { h: 3, stepSize: 1, windows: 2 });
    expect(Array.from(latestWindowForecasts(cv, series.offsets))).toEqual([NaN, NaN, 2, 3, 3, 3]);
  });

  test("rejects a result of other series", () => {
    const cv = crossValidate(seasonalNaiveForecaster(1), packForTest([[1, 2, 3]]), { h: 1 });
    expect(() => latestWindowForecasts(cv, Int32Array.of(0, 2, 3))).toThrow(RangeError);
    expect(() => latestWindowForecasts(cv, Int32Array.of(0, 1))).toThrow(RangeError);
  });
});

describe("forecasters that write in place (forecastDistributionInto)", () => {
  const bits = (r: CrossValidationResult): string =>
    JSON.stringify([Array.from(r.cutoffs), Array.from(r.windowOffsets), Array.from(new Uint8Array(r.forecasts.buffer)), r.spread === undefined ? null : [r.spread.levels, Array.from(new Uint8Array(r.spread.below.buffer)), Array.from(new Uint8Array(r.spread.above.buffer))]]);
  const value = fc.oneof(fc.double({ min: -100, max: 100, noNaN: true }), fc.constantFrom(0, -0, 7, 1e6));
  propTest.prop(
    [
      fc.array(fc.array(value, { minLength: 0, maxLength: 70 }), { minLength: 1, maxLength: 5 }),
      fc.constantFrom<"H" | "D" | "M">("H", "D", "M"),
      fc.integer({ min: 1, max: 30 }),
      fc.integer({ min: 1, max: 6 }),
      fc.boolean(),
    ],
    { numRuns: 40 },
  )("give the bits of forecastDistribution and a copy, every window (the same windows or not, a rollout or not, exact recurrences)", (list, freq, h, windows, sameLength) => {
    const series = packForTest(sameLength ? list.map((s) => [...s, ...list[0]!, ...list[0]!].slice(0, list[0]!.length)) : list);
    const inPlace = createNetworkForecaster("forecastmodel-1", freq);
    expect(inPlace.forecastDistributionInto).toBeDefined();
    const { forecastDistributionInto: _, ...copying } = inPlace;
    const run = (f: Forecaster) => {
      try {
        return bits(crossValidate(f, series, { h, windows, spread: true }));
      } catch (e) {
        return String(e);
      }
    };
    expect(run(inPlace)).toBe(run(copying as Forecaster));
  });
});
