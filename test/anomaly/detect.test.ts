import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  anomalyMinimumLength,
  anomalyWindowCount,
  detectAnomalies,
  multivariateThreshold,
} from "../../src/anomaly/index.js";
import { crossValidate, latestWindowForecasts, seasonalNaiveForecaster } from "../../src/cv/index.js";
import { ValidationError } from "../../src/api/errors.js";
import { detectAnomaliesOnline } from "../../src/api/index.js";
import { gaussianMultiplier } from "../../src/intervals/index.js";
import { horizonWarning } from "../../src/model/index.js";
import { normalQuantile } from "../../src/stats/index.js";
import type { AnomalyInput, AnomalyOutput, Forecaster } from "../../src/types.js";
import { anomalyResultJson } from "../../src/api/results.js";
import { anomalyRequestForTest, fixtureSeries, packForTest } from "./helpers.js";
import { modelSource, fixedModelSource } from "../../src/finetune/index.js";
import { hourlyBenchValues, univariateAnomalyRequest } from "../support/anomaly-request.js";

const weekly = seasonalNaiveForecaster(52);

function flagged(result: AnomalyOutput): number[] {
  return Array.from(result.idxs).filter((_, r) => result.anomaly[r] === 1);
}

/** The flags of a typed result as booleans (1 → true). */
function flags(result: AnomalyOutput): boolean[] {
  return Array.from(result.anomaly, (f) => f === 1);
}

/** Every interval bound of a typed result, as one list. */
function intervalValues(result: AnomalyOutput): number[] {
  return Object.values(result.intervals ?? {}).flatMap((bound) => Array.from(bound));
}

/** The 422 items of a JSON anomaly body: the API checks the lengths before the pipeline runs. */
function apiError(series: ReturnType<typeof packForTest>, fields: Record<string, unknown> = {}): ValidationError {
  const body = { series: { y: Array.from(series.y), sizes: Array.from(series.sizes) }, freq: "W", h: 20, detection_size: 5, ...fields };
  return validationError(() => detectAnomaliesOnline(body as never));
}

function validationError(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

// The fixture with windows as long as the detection window (h 5): each spike is at most 5 steps
// after its window's cutoff. (With h 20 the spikes fall 16 and 20 steps after the cutoff, where the
// forecaster's own spread, calibrated on this series, is wide enough to hold them at level 99.)
describe("the issue's fixture (seasonal naive, season 52, h 5)", () => {
  test("univariate flags exactly the two spikes", () => {
    const result = detectAnomalies(anomalyRequestForTest(fixtureSeries(), { h: 5 }), fixedModelSource(weekly));
    expect(flagged(result)).toEqual([95, 199]);
    expect(Array.from(result.sizes)).toEqual([5, 5]);
    expect(Array.from(result.idxs)).toEqual([95, 96, 97, 98, 99, 195, 196, 197, 198, 199]);
    expect(Object.keys(result.intervals!)).toEqual(["lo-99", "hi-99"]);
    // A = max(z², z_e²) ≥ z²
    result.anomalyScore.forEach((z, r) => expect(result.accumulatedAnomalyScore[r]).toBeGreaterThanOrEqual(z * z));
  });

  test("multivariate flags four rows: both series at both time steps", () => {
    const result = detectAnomalies(anomalyRequestForTest(fixtureSeries(), { h: 5, thresholdMethod: "multivariate" }), fixedModelSource(weekly));
    expect(flagged(result)).toEqual([95, 99, 195, 199]);
    expect(result.intervals).toBeNull();
    for (let t = 0; t < 5; t++) expect(result.accumulatedAnomalyScore[t]).toBe(result.accumulatedAnomalyScore[5 + t]);
    expect(result.accumulatedAnomalyScore[0]).toBeGreaterThan(multivariateThreshold(99, 2));
  });

  test("a point is flagged exactly when it lies outside the returned interval, and |z| > q then", () => {
    for (const h of [5, 10, 20]) {
      const result = detectAnomalies(anomalyRequestForTest(fixtureSeries(), { h }), fixedModelSource(weekly));
      const y = fixtureSeries().y;
      const q = gaussianMultiplier(99);
      result.idxs.forEach((row, r) => {
        const lo = result.intervals!["lo-99"]![r]!;
        const hi = result.intervals!["hi-99"]![r]!;
        expect(lo).toBeLessThanOrEqual(result.mean[r]!);
        expect(hi).toBeGreaterThanOrEqual(result.mean[r]!);
        expect(result.anomaly[r] === 1).toBe(y[row]! < lo || y[row]! > hi);
        expect(result.anomaly[r] === 1).toBe(Math.abs(result.anomalyScore[r]!) > q);
      });
    }
  });

  test("tokens (counted by the API from the typed result) and the horizon warning (h 20 > weekly horizon 13)", () => {
    const request = anomalyRequestForTest(fixtureSeries());
    const result = detectAnomalies(request, fixedModelSource(weekly));
    const json = anomalyResultJson(result, request);
    expect(json.input_tokens).toBe(200);
    expect(json.output_tokens).toBe(10 * 6); // mean, anomaly, score, accumulated, lo, hi
    expect(json.finetune_tokens).toBe(0);
    expect(result.finetuneWork).toBe(0);
    expect(result.warnings).toEqual([horizonWarning("forecastmodel-1", "W", 20)]);
    const multiRequest = anomalyRequestForTest(fixtureSeries(), { thresholdMethod: "multivariate", h: 10 });
    const multi = detectAnomalies(multiRequest, fixedModelSource(weekly,));
    expect(anomalyResultJson(multi, multiRequest).output_tokens).toBe(10 * 4);
    expect(multi.warnings).toEqual([]);
  });
});

describe("calibration points and windows", () => {
  test("calibration leaves the detection window out when 6·detection_size forecast points precede it", () => {
    // h 5, d 2: 14 points wanted → 3 windows (cutoffs 45, 50, 55); 13 points precede the window.
    const values = Array.from({ length: 60 }, (_, t) => 10 + (t % 3) + (t % 7 === 0 ? 1 : 0));
    values[59] = 40;
    const series = packForTest([values]);
    const forecaster = seasonalNaiveForecaster(3);
    const result = detectAnomalies(anomalyRequestForTest(series, { h: 5, detectionSize: 2, freq: "D" }), fixedModelSource(forecaster));
    const cv = crossValidate(forecaster, series, { h: 5, windows: anomalyWindowCount(2, 5, 5) });
    expect(Array.from(cv.cutoffs)).toEqual([45, 50, 55]);
    expect(flags(result)).toEqual([false, true]);
    // the spike is beyond every calibration score: its z is at least the top calibrated level's quantile
    expect(result.anomalyScore[1]!).toBeGreaterThan(normalQuantile(0.5 + 13 / 28));
    // moving the spike into the calibration points (one step earlier, d 1) leaves the last point unflagged
    const early = values.slice();
    early[59] = 10 + (59 % 3);
    early[50] = 40;
    const calm = detectAnomalies(anomalyRequestForTest(packForTest([early]), { h: 5, detectionSize: 2, freq: "D" }), fixedModelSource(forecaster));
    expect(flags(calm)).toEqual([false, false]);
  });

  test("calibration uses every forecast point when fewer than 6·detection_size precede the window", () => {
    const values = Array.from({ length: 12 }, (_, t) => 10 + (t % 2));
    values[11] = 20;
    const series = packForTest([values]);
    const result = detectAnomalies(anomalyRequestForTest(series, { h: 4, detectionSize: 2 }), fixedModelSource(seasonalNaiveForecaster(2)));
    // windows at cutoffs 8, 4 → forecast points 4..11, all of them calibration points (6 before the window < 12);
    // seven are forecast exactly, so the jump to 20 lies beyond the n − 2 = 6 resolved scores and is flagged
    expect(result.anomalyScore[1]!).toBeGreaterThanOrEqual(normalQuantile(0.5 + 6 / 18));
    expect(flags(result)).toEqual([false, true]);
  });

  test("window count and minimum length rules", () => {
    expect(anomalyWindowCount(48, 24, 24)).toBe(14);
    expect(anomalyWindowCount(5, 20, 20)).toBe(2);
    expect(anomalyWindowCount(1, 1, 1)).toBe(7);
    expect(anomalyWindowCount(2, 4, 10)).toBe(4); // gaps: 4 windows × 4 points ≥ 14
    expect(anomalyMinimumLength(5, 20, 20)).toBe(21);
    expect(anomalyMinimumLength(48, 24, 24)).toBe(49);
    expect(anomalyMinimumLength(48, 24, 5)).toBe(50); // 1 + 24 + 5·⌈24/5⌉
    expect(anomalyMinimumLength(1, 1, 1)).toBe(3);
    expect(anomalyMinimumLength(1, 1, 4)).toBe(6);
    expect(anomalyMinimumLength(30, 20, 25)).toBeNull();
    expect(() => anomalyWindowCount(0, 1, 1)).toThrow(RangeError);
  });

  test("every accepted length covers the detection window with forecasts (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 30 }),
        (d, h, step, extra) => {
          const minimum = anomalyMinimumLength(d, h, step);
          fc.pre(minimum !== null);
          const n = minimum! + extra;
          const series = packForTest([Array.from({ length: n }, (_, t) => Math.sin(t))]);
          const result = detectAnomalies(anomalyRequestForTest(series, { h, stepSize: step, detectionSize: d }), fixedModelSource(seasonalNaiveForecaster(1),));
          expect(result.idxs.length).toBe(d);
          if (minimum! > 1 + h) {
            // one point shorter is refused
            const short = packForTest([Array.from({ length: minimum! - 1 }, (_, t) => Math.sin(t))]);
            expect(() => detectAnomalies(anomalyRequestForTest(short, { h, stepSize: step, detectionSize: d }), modelSource(anomalyRequestForTest(short, { h, stepSize: step, detectionSize: d })))).toThrow(RangeError);
            expect(apiError(short, { h, step_size: step, detection_size: d }).detail[0]!.loc).toEqual(["body", "series", "sizes", 0]);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("422 rules (checked by the API before the pipeline; the typed pipeline throws RangeError)", () => {
  test("a too-short series: value_error at its size, the message states the minimum", () => {
    const series = packForTest([Array(30).fill(1), Array(20).fill(1)]);
    const error = apiError(series, { h: 20 });
    expect(error.detail).toHaveLength(1);
    expect(error.detail[0]!.type).toBe("value_error");
    expect(error.detail[0]!.loc).toEqual(["body", "series", "sizes", 1]);
    expect(error.detail[0]!.msg).toMatch(/^Value error, series 1 has 20 points; .* needs at least 21 points per series/);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { h: 20 }), fixedModelSource(weekly))).toThrow(/series 1 has 20 points, fewer than anomalyMinimumLength\(5, 20, 20\) = 21/);
  });

  test("detection_size larger than the series allows states the minimum length", () => {
    const series = packForTest([Array(40).fill(1)]);
    const error = apiError(series, { h: 10, detection_size: 45 });
    expect(error.detail[0]!.msg).toMatch(/needs at least 51 points per series/);
    expect(error.detail[0]!.msg).toMatch(/detection_size = 45/);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { h: 10, detectionSize: 45 }), fixedModelSource(weekly))).toThrow(RangeError);
  });

  test("detection_size > h with step_size > h leaves gaps", () => {
    const series = packForTest([Array(200).fill(1)]);
    const error = apiError(series, { h: 5, step_size: 8, detection_size: 6 });
    expect(error.detail[0]!.loc).toEqual(["body", "detection_size"]);
    expect(error.detail[0]!.msg).toMatch(/must be <= h \(5\) when step_size \(8\) > h/);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { h: 5, stepSize: 8, detectionSize: 6 }), modelSource(anomalyRequestForTest(series, { h: 5, stepSize: 8, detectionSize: 6 })))).toThrow(/must be <= h \(5\) when stepSize \(8\) > h/);
  });

  test("multivariate thresholding needs equal lengths", () => {
    const series = packForTest([Array(50).fill(1), Array(60).fill(1), Array(50).fill(1)]);
    // the API's message (the pipeline's own copy of this rule, with another wording, is gone)
    const error = apiError(series, { threshold_method: "multivariate" });
    expect(error.detail.map((d) => d.loc)).toEqual([["body", "series", "sizes"]]);
    expect(error.detail[0]!.msg).toMatch(/needs all series of the same length; sizes\[0\] = 50 but sizes\[1\] = 60/);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { thresholdMethod: "multivariate" }), modelSource(anomalyRequestForTest(series, { thresholdMethod: "multivariate" })))).toThrow(/series 1 has 60 points, series 0 has 50/);
    // univariate accepts it
    expect(detectAnomalies(anomalyRequestForTest(series), fixedModelSource(weekly)).sizes).toEqual(Int32Array.of(5, 5, 5));
  });

  test("non-integer or non-positive h, detection_size, step_size and a bad level", () => {
    const series = packForTest([Array(50).fill(1)]);
    const error = apiError(series, { h: 0, detection_size: 1.5, step_size: -1, level: 100 });
    // every field at once, in the schema's order
    expect(error.detail.map((d) => d.loc)).toEqual([["body", "detection_size"], ["body", "h"], ["body", "level"], ["body", "step_size"]]);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { h: 0 }), modelSource(anomalyRequestForTest(series, { h: 0 })))).toThrow(RangeError);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { detectionSize: 1.5 }), modelSource(anomalyRequestForTest(series, { detectionSize: 1.5 })))).toThrow(RangeError);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { stepSize: -1 }), modelSource(anomalyRequestForTest(series, { stepSize: -1 })))).toThrow(RangeError);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { level: 100 }), modelSource(anomalyRequestForTest(series, { level: 100 })))).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------- properties

interface Case {
  lists: number[][];
  h: number;
  stepSize: number;
  detectionSize: number;
  season: number;
  level: number;
}

/** Random requests that satisfy the minimum-length rule; equal lengths when `equal`. */
function caseArbitrary(equal: boolean, values: fc.Arbitrary<number>): fc.Arbitrary<Case> {
  return fc
    .record({
      h: fc.integer({ min: 1, max: 6 }),
      stepExtra: fc.integer({ min: -5, max: 2 }),
      detectionSize: fc.integer({ min: 1, max: 6 }),
      season: fc.integer({ min: 1, max: 5 }),
      level: fc.double({ min: 0, max: 99.99, noNaN: true }),
      seriesCount: fc.integer({ min: 1, max: 4 }),
      extras: fc.array(fc.integer({ min: 0, max: 25 }), { minLength: 4, maxLength: 4 }),
      pool: fc.array(values, { minLength: 200, maxLength: 200 }),
    })
    .map((r) => {
      const stepSize = Math.max(1, r.h + r.stepExtra);
      const detectionSize = stepSize > r.h ? Math.min(r.detectionSize, r.h) : r.detectionSize;
      const minimum = anomalyMinimumLength(detectionSize, r.h, stepSize)!;
      const lists = Array.from({ length: r.seriesCount }, (_, i) => {
        const n = minimum + (equal ? r.extras[0]! : r.extras[i]!);
        return Array.from({ length: n }, (_, t) => r.pool[(i * 37 + t) % 200]!);
      });
      return { lists, h: r.h, stepSize, detectionSize, season: r.season, level: r.level };
    });
}

function run(c: Case, fields: Partial<AnomalyInput> = {}): AnomalyOutput {
  const request = anomalyRequestForTest(packForTest(c.lists), {
    h: c.h,
    stepSize: c.stepSize,
    detectionSize: c.detectionSize,
    level: c.level,
    ...fields,
  });
  return detectAnomalies(request, fixedModelSource(seasonalNaiveForecaster(c.season)));
}

const smallValues = fc.double({ min: -1000, max: 1000, noNaN: true });
const anyFinite = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, 1, -1, 1e308, -1e308, 5e-324),
);

describe("properties", () => {
  test("a point is flagged iff |z| > q(level) (univariate)", () => {
    fc.assert(
      fc.property(caseArbitrary(false, smallValues), (c) => {
        const result = run(c);
        const q = gaussianMultiplier(c.level);
        result.anomalyScore.forEach((z, r) => expect(result.anomaly[r] === 1).toBe(Math.abs(z) > q));
      }),
      { numRuns: 60 },
    );
  });

  test("a step is flagged in every series iff Σ z² > χ² quantile (multivariate)", () => {
    fc.assert(
      fc.property(caseArbitrary(true, smallValues), (c) => {
        const result = run(c, { thresholdMethod: "multivariate" });
        const threshold = multivariateThreshold(c.level, c.lists.length);
        const d = c.detectionSize;
        for (let t = 0; t < d; t++) {
          let sum = 0;
          for (let i = 0; i < c.lists.length; i++) sum += result.anomalyScore[i * d + t]! ** 2;
          for (let i = 0; i < c.lists.length; i++) {
            expect(Math.abs(result.accumulatedAnomalyScore[i * d + t]! - sum)).toBeLessThanOrEqual(1e-12 * Math.max(1, sum));
            expect(result.anomaly[i * d + t] === 1).toBe(result.accumulatedAnomalyScore[i * d + t]! > threshold);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  test("raising the level never adds a flag", () => {
    fc.assert(
      fc.property(
        caseArbitrary(true, smallValues),
        fc.double({ min: 0, max: 99.99, noNaN: true }),
        fc.constantFrom("univariate" as const, "multivariate" as const),
        (c, other, thresholdMethod) => {
          const low = run({ ...c, level: Math.min(c.level, other) }, { thresholdMethod });
          const high = run({ ...c, level: Math.max(c.level, other) }, { thresholdMethod });
          high.anomaly.forEach((flag, r) => {
            if (flag) expect(low.anomaly[r]).toBe(1);
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  test("idxs increase within a series and lie in its last detection_size positions; sizes sum to the output length", () => {
    fc.assert(
      fc.property(caseArbitrary(false, smallValues), (c) => {
        const result = run(c);
        const rows = result.idxs.length;
        expect(result.sizes.reduce((a, b) => a + b, 0)).toBe(rows);
        for (const array of [result.mean, result.anomaly, result.anomalyScore, result.accumulatedAnomalyScore]) {
          expect(array.length).toBe(rows);
        }
        let offset = 0;
        let row = 0;
        c.lists.forEach((list, i) => {
          const n = list.length;
          for (let j = 0; j < result.sizes[i]!; j++, row++) {
            const idx = result.idxs[row]!;
            expect(idx).toBeGreaterThanOrEqual(offset + n - c.detectionSize);
            expect(idx).toBeLessThan(offset + n);
            if (j > 0) expect(idx).toBeGreaterThan(result.idxs[row - 1]!);
          }
          offset += n;
        });
      }),
      { numRuns: 60 },
    );
  });

  test("permuting the series permutes a univariate result and leaves multivariate flags unchanged", () => {
    fc.assert(
      fc.property(caseArbitrary(true, smallValues), fc.nat(), (c, seed) => {
        const count = c.lists.length;
        const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => ((a * 31 + seed) % 7) - ((b * 31 + seed) % 7));
        const permuted = { ...c, lists: order.map((i) => c.lists[i]!) };
        const d = c.detectionSize;
        const block = (a: ArrayLike<number>, i: number) => Array.from(a).slice(i * d, i * d + d);

        const uni = run(c);
        const uniP = run(permuted);
        order.forEach((i, k) => {
          expect(block(uniP.anomaly, k)).toEqual(block(uni.anomaly, i));
          expect(block(uniP.anomalyScore, k)).toEqual(block(uni.anomalyScore, i));
          expect(block(uniP.mean, k)).toEqual(block(uni.mean, i));
          expect(block(uniP.intervals!["lo-" + String(c.level)]!, k)).toEqual(block(uni.intervals!["lo-" + String(c.level)]!, i));
        });

        const multi = run(c, { thresholdMethod: "multivariate" });
        const multiP = run(permuted, { thresholdMethod: "multivariate" });
        expect(multiP.anomaly).toEqual(multi.anomaly); // the same steps in every series
        expect(multiP.accumulatedAnomalyScore).toEqual(multi.accumulatedAnomalyScore);
      }),
      { numRuns: 60 },
    );
  });

  test("no NaN or Infinity anywhere for any finite input, constant series included", () => {
    const allFinite = (result: AnomalyOutput) => {
      const numbers = [
        ...result.mean,
        ...result.anomalyScore,
        ...result.accumulatedAnomalyScore,
        ...intervalValues(result),
      ];
      for (const v of numbers) expect(Number.isFinite(v)).toBe(true);
      expect(JSON.stringify({ ...result, intervals: result.intervals ?? {} })).not.toMatch(/null/);
    };
    fc.assert(
      fc.property(caseArbitrary(true, anyFinite), fc.boolean(), (c, constant) => {
        const lists = constant ? c.lists.map((l) => l.map(() => l[0]!)) : c.lists;
        const result = run({ ...c, lists });
        allFinite(result);
        if (constant) expect(result.anomaly.every((f) => !f)).toBe(true);
        allFinite(run({ ...c, lists }, { thresholdMethod: "multivariate" }));
      }),
      { numRuns: 80 },
    );
  });
});

describe("pipeline behaviour", () => {
  test("a perfectly predicted series (σ = 0) scores 0 and flags nothing, even with a level of 0", () => {
    const series = packForTest([Array.from({ length: 40 }, (_, t) => t % 4)]);
    const result = detectAnomalies(anomalyRequestForTest(series, { h: 4, detectionSize: 4, level: 0 }), fixedModelSource(seasonalNaiveForecaster(4),));
    expect(Array.from(result.anomalyScore)).toEqual([0, 0, 0, 0]);
    expect(flags(result)).toEqual([false, false, false, false]);
  });

  test("identical requests give identical results; the input is not mutated", () => {
    const series = fixtureSeries();
    const copy = Float64Array.from(series.y);
    const a = detectAnomalies(anomalyRequestForTest(series), fixedModelSource(weekly));
    const b = detectAnomalies(anomalyRequestForTest(series), fixedModelSource(weekly));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(series.y).toEqual(copy);
  });

  test("level written as given in the interval keys", () => {
    const result = detectAnomalies(anomalyRequestForTest(fixtureSeries(), { level: 97.5 }), fixedModelSource(weekly));
    expect(Object.keys(result.intervals!)).toEqual(["lo-97.5", "hi-97.5"]);
  });

  test("one batched forecaster call per window, with every series", () => {
    const calls: number[] = [];
    const counting = {
      name: "counting",
      seasonLength: 52,
      forecast(contexts: readonly Float64Array[], h: number) {
        calls.push(contexts.length);
        return weekly.forecast(contexts, h);
      },
    };
    detectAnomalies(anomalyRequestForTest(fixtureSeries()), fixedModelSource(counting));
    expect(calls).toEqual([2, 2]); // anomalyWindowCount(5, 20, 20) = 2
  });
});

describe("exogenous features", () => {
  // y = 10 + (t mod 4) + 5·x + noise, x a pulse every 17 steps (one at t = 117, in the detection window).
  const n = 120;
  const x = Array.from({ length: n }, (_, t) => (t % 17 === 15 ? 1 : 0));
  const noise = (t: number) => ((t * 37) % 11) / 11 - 0.5;
  const y = x.map((v, t) => 10 + (t % 4) + 5 * v + noise(t));
  const series = { ...packForTest([y]), X: [Float64Array.from(x)] };
  // level 95: the same pulse also lies among the calibration points (t = 100), so at 99 it is inside the calibrated band
  const fields = { h: 4, detectionSize: 3, freq: "D" as const, level: 95 };
  // Knows the pattern 10 + (t mod 4) from the context length alone, not the pulses.
  const pattern = {
    name: "pattern",
    seasonLength: 4,
    forecast(contexts: readonly Float64Array[], h: number) {
      const out = new Float64Array(contexts.length * h);
      contexts.forEach((c, i) => {
        for (let k = 0; k < h; k++) out[i * h + k] = 10 + ((c.length + k) % 4);
      });
      return out;
    },
  };

  test("without X the pulse at t = 117 is an anomaly", () => {
    const request = anomalyRequestForTest({ ...series, X: [] }, fields);
    const result = detectAnomalies(request, fixedModelSource(pattern));
    expect(flags(result)).toEqual([true, false, false]);
    expect(anomalyResultJson(result, request).input_tokens).toBe(n);
  });

  test.each([true, false])("with X (clean_ex_first %s) the pulse is explained and nothing is flagged", (cleanExFirst) => {
    const request = anomalyRequestForTest(series, { ...fields, cleanExFirst });
    const result = detectAnomalies(request, fixedModelSource(pattern));
    expect(flags(result)).toEqual([false, false, false]);
    expect(anomalyResultJson(result, request).input_tokens).toBe(2 * n);
    // the forecast of the pulse includes the X part (≈ 5 above the pattern's 10 + 117 mod 4 = 11)
    expect(result.mean[0]).toBeGreaterThan(14);
  });
});

describe("with the network (forecastmodel-1)", () => {
  // The acceptance case as the anomaly issue states it (h 20). The calibration window of cutoff 60 holds less than
  // one period of the sine (62.8 points): the network alone missed by up to 12 there, so the spikes' calibrated z
  // were 2.01 and 2.02. The sine is an exact linear recurrence (order 2), which the forecaster now extends.
  /** The fixture at horizon h: univariate flags the two spikes, multivariate the four rows (and gives no intervals). */
  const expectFixtureFlags = (h: number): void => {
    const uniRequest = anomalyRequestForTest(fixtureSeries(), { h });
    expect(flagged(detectAnomalies(uniRequest, modelSource(uniRequest)))).toEqual([95, 199]);
    const multiRequest = anomalyRequestForTest(fixtureSeries(), { h, thresholdMethod: "multivariate" });
    const multi = detectAnomalies(multiRequest, modelSource(multiRequest));
    expect(flagged(multi)).toEqual([95, 99, 195, 199]);
    expect(multi.intervals).toBeNull();
  };

  test("the issue's fixture (h 20): univariate flags the two spikes, multivariate the four rows", () => {
    expectFixtureFlags(20);
  });

  test("the issue's fixture (h 20) as the Python SDK sends it (float32 values, freq W-SUN): the same flags", () => {
    const base = Array.from({ length: 100 }, (_, t) => 10 * Math.sin(0.1 * t) + 12);
    const y = Array.from([...base, ...base], (v, i) => Math.fround(i === 95 || i === 199 ? 30 : v));
    for (const [threshold_method, want] of [["univariate", [95, 199]], ["multivariate", [95, 99, 195, 199]]] as const) {
      const result = detectAnomaliesOnline({ series: { y, sizes: [100, 100] }, freq: "W-SUN", h: 20, detection_size: 5, threshold_method, level: 99 });
      expect(result.idxs.filter((_, r) => result.anomaly[r])).toEqual(want);
    }
  });

  test("the issue's fixture (h 5): univariate flags the two spikes, multivariate the four rows", () => {
    expectFixtureFlags(5);
  });

  test("no NaN or Infinity for constant, huge, tiny and mixed series", () => {
    const lists = [
      Array(30).fill(7),
      Array.from({ length: 30 }, (_, t) => (t % 2 ? 1e308 : -1e308)),
      Array.from({ length: 30 }, (_, t) => 1.7e308 - t * 1e306),
      Array.from({ length: 30 }, (_, t) => (t % 3) * 5e-324),
      Array.from({ length: 30 }, (_, t) => (t === 10 ? 1e300 : t)),
    ];
    for (const thresholdMethod of ["univariate", "multivariate"] as const) {
      const result = detectAnomalies(anomalyRequestForTest(packForTest(lists), { h: 5, detectionSize: 3, freq: "D", thresholdMethod }), modelSource(anomalyRequestForTest(packForTest(lists), { h: 5, detectionSize: 3, freq: "D", thresholdMethod })));
      const numbers = [...result.mean, ...result.anomalyScore, ...result.accumulatedAnomalyScore, ...intervalValues(result)];
      for (const v of numbers) expect(Number.isFinite(v)).toBe(true);
      if (thresholdMethod === "univariate") expect(flags(result).slice(0, 3)).toEqual([false, false, false]); // the constant series
    }
  });

  test.each([false, true])("fine-tuning (refit %s) charges steps × series for each tuning", (refit) => {
    const request = anomalyRequestForTest(fixtureSeries(), { refit, finetune: { steps: 2, loss: "mae", depth: 1 } });
    const result = detectAnomalies(request, modelSource(request));
    // refit tunes once per window: anomalyWindowCount(5, 20, 20) = 2
    expect(result.finetuneWork).toBe(refit ? 8 : 4);
    expect(anomalyResultJson(result, request).finetune_tokens).toBe(refit ? 8 : 4);
    expect(result.idxs.length).toBe(10);
  });
});

describe("hist_exog", () => {
  test("an index that is not a feature is a 422, with or without X", () => {
    const series = packForTest([Array.from({ length: 60 }, (_, t) => t % 7)]);
    const error = apiError(series, { h: 5, hist_exog: [0] });
    expect(error.detail[0]!.loc).toEqual(["body", "hist_exog", 0]);
    expect(() => detectAnomalies(anomalyRequestForTest(series, { histExog: [0] }), fixedModelSource(weekly))).toThrow(RangeError);
    const withX = { ...series, X: [Float64Array.from({ length: 60 }, (_, t) => t % 2)] };
    expect(() => detectAnomalies(anomalyRequestForTest(withX, { histExog: [1] }), fixedModelSource(weekly))).toThrow(RangeError);
    expect(detectAnomalies(anomalyRequestForTest(withX, { histExog: [0] }), fixedModelSource(weekly)).idxs).toHaveLength(5);
  });
});

describe("a spike is not echoed one season later (issue 14)", () => {
  for (const [freq, season] of [["D", 7], ["M", 12]] as const) {
    test(`freq ${freq}: the spike is flagged, the point one season later is not (real model)`, () => {
      const n = 140;
      const y = Array.from({ length: n }, (_, t) => 100 + 20 * Math.sin((2 * Math.PI * t) / season) + ((t * 7919) % 13) / 4);
      const spikeAt = n - 10 - season;
      y[spikeAt] = y[spikeAt]! + 120;
      const result = detectAnomaliesOnline({ series: { y, sizes: [n] }, freq, h: 1, detection_size: 10 + season + 1, level: 99 });
      const flagged = result.idxs.filter((_, r) => result.anomaly[r]);
      expect(flagged).toContain(spikeAt);
      expect(flagged).not.toContain(spikeAt + season);
    });
  }

  test("the windows forecast again after a spike are only those within the forecaster's contextReach of it: the same result as forecasting every later window again", () => {
    // hourly series of 1,000 points with spikes; the network reads the last 96 points of a context
    const seriesCount = 12;
    const y = hourlyBenchValues("context-reach", seriesCount, 1000, true);
    const series = { y, sizes: new Int32Array(seriesCount).fill(1000), offsets: Int32Array.from({ length: seriesCount + 1 }, (_, i) => i * 1000), X: [] };
    const request = univariateAnomalyRequest(series, "H", 24, 48, 99);
    const network = modelSource(request)(series).forecaster;
    expect(network.contextReach).toBe(96);
    // both count the windows they forecast; one states the network's reach, the other none
    const counted = (reach: number | undefined) => {
      const seen = { windows: 0 };
      const forecaster: Forecaster = {
        name: network.name,
        seasonLength: network.seasonLength,
        forecast: (contexts, h) => network.forecast(contexts, h),
        forecastDistribution: (contexts, h) => {
          seen.windows += contexts.length;
          return network.forecastDistribution!(contexts, h);
        },
        ...(reach === undefined ? {} : { contextReach: reach }),
      };
      return { seen, result: detectAnomalies(request, fixedModelSource(forecaster)) };
    };
    const near = counted(network.contextReach);
    const all = counted(undefined);
    expect(near.result).toEqual(all.result);
    expect(near.seen.windows).toBeLessThan(all.seen.windows);
  });

  test("a level shift is not cleaned: the points after it are judged against the new level", () => {
    const n = 200;
    const y = Array.from({ length: n }, (_, t) => 50 + 5 * Math.sin((2 * Math.PI * t) / 7) + ((t * 31) % 7) / 3 + (t >= 150 ? 40 : 0));
    const result = detectAnomaliesOnline({ series: { y, sizes: [n] }, freq: "D", h: 1, detection_size: 20, level: 99 });
    // 20 points, all on the new level reached 30 points earlier: none is an anomaly any more
    expect(result.anomaly.filter(Boolean).length).toBe(0);
  });
});

describe("work arrays kept between calls", () => {
  test("a call after others on other data answers as it did first (the kept arrays' old contents never show)", () => {
    const make = (seed: number, n: number, length: number) => {
      const list = Array.from({ length: n }, (_, i) => Array.from({ length }, (_, t) => 20 + 5 * Math.sin((2 * Math.PI * t) / 24 + i + seed) + ((t * (7 + seed) + i) % 5) - (t === length - 3 ? 30 : 0)));
      return detectAnomaliesOnline({ series: { y: list.flat(), sizes: list.map((s) => s.length) }, freq: "H", h: 24, detection_size: 24, level: 99, model: "forecastmodel-1" } as never);
    };
    const first = JSON.stringify(make(1, 4, 400));
    make(2, 4, 400); // the same sizes: its arrays are reused
    make(3, 3, 300);
    expect(JSON.stringify(make(1, 4, 400))).toBe(first);
  });
});

