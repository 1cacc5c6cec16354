import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { calibrationWindowCount, runForecast } from "../../src/forecast/index.js";
import { readFileSync } from "node:fs";
import { ValidationError } from "../../src/api/errors.js";
import { forecast } from "../../src/api/index.js";
import { forecastResultJson } from "../../src/api/results.js";
import type { ForecastInput, Freq, SeriesData } from "../../src/types.js";
import { modelSource } from "../../src/finetune/index.js";

function pack(list: number[][], X: number[][][] = []): SeriesData {
  const sizes = Int32Array.from(list.map((s) => s.length));
  const offsets = new Int32Array(list.length + 1);
  list.forEach((s, i) => (offsets[i + 1] = offsets[i]! + s.length));
  const feats = X.length > 0 ? X[0]!.map((_, k) => Float64Array.from(X.flatMap((perSeries) => perSeries[k]!))) : [];
  return { y: Float64Array.from(list.flat()), sizes, offsets, X: feats };
}

function request(series: SeriesData, h: number, levels: number[], extra: Partial<ForecastInput> = {}): ForecastInput {
  return {
    series, h, levels, freq: "M" as Freq, model: "forecastmodel-1", finetune: { steps: 0, loss: "default", depth: 1 },
    finetuned: null, multivariate: false, modelParameters: null, Xfuture: [], cleanExFirst: true, histExog: [], ...extra,
  };
}

const seasonal = (n: number, phase = 0): number[] => Array.from({ length: n }, (_, t) => 50 + 10 * Math.sin((2 * Math.PI * (t + phase)) / 12) + t * 0.2);
const seriesArb = fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 1, maxLength: 80 });
const levelsArb = fc.uniqueArray(fc.constantFrom(50, 80, 90, 95, 97.5, 99), { minLength: 0, maxLength: 3 });

describe("runForecast", () => {
  test.prop([fc.array(seriesArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 30 }), levelsArb], { numRuns: 25 })(
    "output length, sizes and interval keys always match the request; intervals contain the mean",
    (list, h, levels) => {
      const res = runForecast(request(pack(list), h, levels), modelSource(request(pack(list), h, levels)));
      expect(res.mean.length).toBe(list.length * h);
      expect(Array.from(res.sizes)).toEqual(list.map(() => h));
      const keys = levels.flatMap((l) => [`lo-${l}`, `hi-${l}`]);
      expect(Object.keys(res.intervals ?? {})).toEqual(keys);
      for (const l of levels) {
        const lo = res.intervals![`lo-${l}`]!;
        const hi = res.intervals![`hi-${l}`]!;
        res.mean.forEach((m, r) => {
          expect(lo[r]!).toBeLessThanOrEqual(m);
          expect(hi[r]!).toBeGreaterThanOrEqual(m);
        });
      }
      const json = forecastResultJson(res, request(pack(list), h, levels));
      expect(json.output_tokens).toBe(list.length * h * (1 + 2 * levels.length));
      expect(json.input_tokens).toBe(list.flat().length);
      for (const v of res.mean) expect(Number.isFinite(v)).toBe(true);
    },
  );

  test.prop([fc.array(seriesArb, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 20 })], { numRuns: 20 })(
    "intervals widen with the level",
    (list, h) => {
      const res = runForecast(request(pack(list), h, [80, 95]), modelSource(request(pack(list), h, [80, 95])));
      const i = res.intervals!;
      res.mean.forEach((_, r) => {
        expect(i["lo-95"]![r]!).toBeLessThanOrEqual(i["lo-80"]![r]!);
        expect(i["hi-95"]![r]!).toBeGreaterThanOrEqual(i["hi-80"]![r]!);
      });
    },
  );

  test.prop(
    [
      fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 1, maxLength: 60 }),
      fc.integer({ min: 1, max: 12 }),
      fc.double({ min: 0, max: 99.9, noNaN: true }),
      fc.double({ min: 0, max: 99.9, noNaN: true }),
    ],
    { numRuns: 30 },
  )("any two levels nest: the higher level's interval contains the lower one's, both contain the mean", (values, h, a, b) => {
    const [low, high] = a <= b ? [a, b] : [b, a];
    const res = runForecast(request(pack([values]), h, [low, high]), modelSource(request(pack([values]), h, [low, high])));
    const i = res.intervals!;
    res.mean.forEach((m, r) => {
      expect(i[`lo-${high}`]![r]!).toBeLessThanOrEqual(i[`lo-${low}`]![r]!);
      expect(i[`lo-${low}`]![r]!).toBeLessThanOrEqual(m);
      expect(m).toBeLessThanOrEqual(i[`hi-${low}`]![r]!);
      expect(i[`hi-${low}`]![r]!).toBeLessThanOrEqual(i[`hi-${high}`]![r]!);
    });
    // a level's interval does not depend on the other levels asked for
    const alone = runForecast(request(pack([values]), h, [high]), modelSource(request(pack([values]), h, [high]))).intervals!;
    expect(alone[`lo-${high}`]).toEqual(i[`lo-${high}`]);
    expect(alone[`hi-${high}`]).toEqual(i[`hi-${high}`]);
  });

  test.prop(
    [
      // values on a 0.001 grid: no subnormal inputs (they underflow when scaled) and no variation so small
      // beside the shift that the window counts as constant (relative spread below 1e-12)
      fc.array(fc.integer({ min: -100000, max: 100000 }).map((v) => v / 1000), { minLength: 2, maxLength: 60 }),
      fc.integer({ min: 1, max: 10 }),
      fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
      fc.double({ min: -1e3, max: 1e3, noNaN: true }),
    ],
    { numRuns: 30 },
  )("scale-equivariance: y·c + b (c > 0) gives mean·c + b and intervals·c + b", (values, h, c, shift) => {
    // the shift is given relative to the data's own size, so that adding it keeps the data's digits
    const b = shift * Math.max(...values.map((v) => Math.abs(v))) * c;
    const base = runForecast(request(pack([values]), h, [80, 97.5]), modelSource(request(pack([values]), h, [80, 97.5])));
    const moved = runForecast(request(pack([values.map((v) => v * c + b)]), h, [80, 97.5]), modelSource(request(pack([values.map((v) => v * c + b)]), h, [80, 97.5])));
    const spread = Math.max(...values.map((v) => Math.abs(v))) * c + Math.abs(b) + 1e-290;
    const close = (x: number, y: number): void => expect(Math.abs(x - y)).toBeLessThanOrEqual(1e-7 * spread);
    base.mean.forEach((m, r) => close(moved.mean[r]!, m * c + b));
    for (const key of ["lo-80", "hi-80", "lo-97.5", "hi-97.5"]) {
      base.intervals![key]!.forEach((v, r) => close(moved.intervals![key]![r]!, v * c + b));
    }
  });

  it("a trend forecast has intervals of positive width that grow with the horizon (y = 1..30, h 20, level 90)", () => {
    const res = runForecast(request(pack([Array.from({ length: 30 }, (_, t) => t + 1)]), 20, [90]), modelSource(request(pack([Array.from({ length: 30 }, (_, t) => t + 1)]), 20, [90])));
    const width = res.mean.map((_, r) => res.intervals!["hi-90"]![r]! - res.intervals!["lo-90"]![r]!);
    for (const w of width) expect(w).toBeGreaterThan(0);
    expect(width[19]!).toBeGreaterThan(width[0]!);
  });

  it("calibration windows: at least 3, about 72 errors, at most 20", () => {
    expect([24, 18, 8, 6, 1].map(calibrationWindowCount)).toEqual([3, 4, 9, 12, 20]);
    expect(() => calibrationWindowCount(0)).toThrow(RangeError);
  });

  it("AirPassengers cut at 1958-12, h 24: the 95 % interval holds most of the 24 actuals (it held 2 before the calibrated spread)", () => {
    const data = JSON.parse(readFileSync("bench/data/r-datasets.json", "utf8")) as { series: Record<string, { y: number[] }> } | Record<string, { y: number[] }>;
    const table = ("series" in data ? data.series : data) as Record<string, { y: number[] }>;
    const air = Object.entries(table).find(([name]) => name.includes("AirPassengers"))![1].y;
    expect(air.length).toBe(144);
    const res = runForecast(request(pack([air.slice(0, 120)]), 24, [95]), modelSource(request(pack([air.slice(0, 120)]), 24, [95])));
    const inside = air.slice(120).filter((v, k) => v >= res.intervals!["lo-95"]![k]! && v <= res.intervals!["hi-95"]![k]!).length;
    expect(inside).toBeGreaterThanOrEqual(20);
  });

  it("a constant series forecasts the constant with zero-width intervals", () => {
    const res = runForecast(request(pack([new Array(40).fill(3.5)]), 6, [95]), modelSource(request(pack([new Array(40).fill(3.5)]), 6, [95])));
    expect(Array.from(res.mean)).toEqual(new Array(6).fill(3.5));
    expect(Array.from(res.intervals!["lo-95"]!)).toEqual(new Array(6).fill(3.5));
    expect(Array.from(res.intervals!["hi-95"]!)).toEqual(new Array(6).fill(3.5));
  });

  it("a one-point series forecasts that point", () => {
    const res = runForecast(request(pack([[42]]), 3, [80]), modelSource(request(pack([[42]]), 3, [80])));
    expect(Array.from(res.mean)).toEqual([42, 42, 42]);
  });

  it("is deterministic: same request, byte-identical JSON", () => {
    const req = request(pack([seasonal(60), seasonal(45, 3)]), 18, [80, 95]);
    expect(JSON.stringify(runForecast(req, modelSource(req)))).toBe(JSON.stringify(runForecast(req, modelSource(req))));
  });

  it("scales with the data", () => {
    const base = runForecast(request(pack([seasonal(60)]), 12, [90]), modelSource(request(pack([seasonal(60)]), 12, [90])));
    const scaled = runForecast(request(pack([seasonal(60).map((v) => v * 1000)]), 12, [90]), modelSource(request(pack([seasonal(60).map((v) => v * 1000)]), 12, [90])));
    base.mean.forEach((m, r) => expect(scaled.mean[r]!).toBeCloseTo(m * 1000, 3));
    base.intervals!["hi-90"]!.forEach((v, r) => expect(scaled.intervals!["hi-90"]![r]!).toBeCloseTo(v * 1000, 3));
  });

  it("warns beyond the native horizon", () => {
    expect(runForecast(request(pack([seasonal(60)]), 18, []), modelSource(request(pack([seasonal(60)]), 18, []))).warnings).toEqual([]);
    expect(runForecast(request(pack([seasonal(60)]), 19, []), modelSource(request(pack([seasonal(60)]), 19, []))).warnings.join(" ")).toMatch(/exceeds the model horizon/);
  });

  it("uses exogenous features and their future values", () => {
    const n = 80;
    const h = 6;
    const x = Array.from({ length: n + h }, (_, t) => ((t * 7) % 5) - 2);
    const y = Array.from({ length: n }, (_, t) => seasonal(n)[t]! + 4 * x[t]!);
    const series = pack([y], [[x.slice(0, n)]]);
    const withFuture = request(series, h, [80], { Xfuture: [Float64Array.from(x.slice(n))] });
    const res = runForecast(withFuture, modelSource(withFuture));
    expect(res.weightsX!.length).toBe(1);
    expect(Math.abs(res.weightsX![0]! - 4)).toBeLessThan(0.2);
    expect(forecastResultJson(res, withFuture).input_tokens).toBe(n + n + h);
    const noFuture = () => runForecast(request(series, h, []), modelSource(request(series, h, [])));
    expect(noFuture).toThrow(RangeError);
    // the API reports it as a 422 item before the pipeline runs
    const body = { series: { y, sizes: [n], X: [x.slice(0, n)] }, freq: "D" as const, h };
    try {
      forecast(body);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).detail[0]!.loc).toEqual(["body", "X_future"]);
    }
  });

  it("rejects unequal lengths in multivariate mode", () => {
    const req = request(pack([seasonal(30), seasonal(31)]), 4, [], { model: "forecastmodel-2.1", multivariate: true });
    expect(() => runForecast(req, modelSource(req))).toThrow(/equal length/);
  });
});

describe("a spike in the history is not echoed in the forecast (issue 14)", () => {
  const base = (t: number, season: number): number => 100 + 20 * Math.sin((2 * Math.PI * t) / season) + ((t * 7919) % 13) / 4;
  for (const [freq, season] of [["H", 24], ["D", 7], ["M", 12], ["Q", 4]] as const) {
    for (const back of [1, 2]) {
      it(`freq ${freq}: a spike ${back} season(s) before the end leaves the forecast as without it (real model)`, () => {
        const n = 140;
        const clean = Array.from({ length: n }, (_, t) => base(t, season));
        const y = [...clean];
        const at = n - back * season + 2;
        y[at] = y[at]! + 120;
        const withSpike = forecast({ series: { y, sizes: [n] }, freq, h: season, level: [90] });
        const without = forecast({ series: { y: clean, sizes: [n] }, freq, h: season, level: [90] });
        // before the spike was cleaned the forecast one season after it was up to 46 higher (amplitude 20)
        for (let k = 0; k < season; k++) expect(Math.abs(withSpike.mean[k]! - without.mean[k]!)).toBeLessThan(2.5);
      });
    }
  }

  it("a level shift near the end is followed, not cleaned", () => {
    const n = 120;
    const y = Array.from({ length: n }, (_, t) => base(t, 12) + (t >= n - 6 ? 60 : 0));
    const shifted = forecast({ series: { y, sizes: [n] }, freq: "M", h: 6 });
    const mean = shifted.mean.reduce((a, v) => a + v, 0) / 6;
    expect(mean).toBeGreaterThan(130);
  });
});
