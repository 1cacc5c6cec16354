import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { runForecast, CONFORMAL_WINDOWS } from "../../src/forecast/index.js";
import { ValidationError } from "../../src/errors.js";
import type { ForecastRequest, Freq, SeriesData } from "../../src/types.js";

function pack(list: number[][], X: number[][][] = []): SeriesData {
  const sizes = Int32Array.from(list.map((s) => s.length));
  const offsets = new Int32Array(list.length + 1);
  list.forEach((s, i) => (offsets[i + 1] = offsets[i]! + s.length));
  const feats = X.length > 0 ? X[0]!.map((_, k) => Float64Array.from(X.flatMap((perSeries) => perSeries[k]!))) : [];
  return { y: Float64Array.from(list.flat()), sizes, offsets, X: feats };
}

function request(series: SeriesData, h: number, levels: number[], extra: Partial<ForecastRequest> = {}): ForecastRequest {
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
      const res = runForecast(request(pack(list), h, levels));
      expect(res.mean.length).toBe(list.length * h);
      expect(res.sizes).toEqual(list.map(() => h));
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
      expect(res.output_tokens).toBe(list.length * h * (1 + 2 * levels.length));
      expect(res.input_tokens).toBe(list.flat().length);
      for (const v of res.mean) expect(Number.isFinite(v)).toBe(true);
    },
  );

  test.prop([fc.array(seriesArb, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 20 })], { numRuns: 20 })(
    "intervals widen with the level",
    (list, h) => {
      const res = runForecast(request(pack(list), h, [80, 95]));
      const i = res.intervals!;
      res.mean.forEach((_, r) => {
        expect(i["lo-95"]![r]!).toBeLessThanOrEqual(i["lo-80"]![r]!);
        expect(i["hi-95"]![r]!).toBeGreaterThanOrEqual(i["hi-80"]![r]!);
      });
    },
  );

  it("uses conformal intervals when the history allows two windows, else the random-walk fallback", () => {
    const long = seasonal(12 * 6);
    const short = [1, 2, 4, 3, 5];
    const res = runForecast(request(pack([long, short]), 12, [90]));
    const width = (r: number): number => res.intervals!["hi-90"]![r]! - res.intervals!["lo-90"]![r]!;
    // Fallback widths grow like √k for the short series.
    expect(width(12 + 3) / width(12 + 0)).toBeCloseTo(2, 9);
    expect(CONFORMAL_WINDOWS).toBeGreaterThanOrEqual(2);
  });

  it("a constant series forecasts the constant with zero-width intervals", () => {
    const res = runForecast(request(pack([new Array(40).fill(3.5)]), 6, [95]));
    expect(res.mean).toEqual(new Array(6).fill(3.5));
    expect(res.intervals!["lo-95"]).toEqual(new Array(6).fill(3.5));
    expect(res.intervals!["hi-95"]).toEqual(new Array(6).fill(3.5));
  });

  it("a one-point series forecasts that point", () => {
    const res = runForecast(request(pack([[42]]), 3, [80]));
    expect(res.mean).toEqual([42, 42, 42]);
  });

  it("is deterministic: same request, byte-identical JSON", () => {
    const req = request(pack([seasonal(60), seasonal(45, 3)]), 18, [80, 95]);
    expect(JSON.stringify(runForecast(req))).toBe(JSON.stringify(runForecast(req)));
  });

  it("scales with the data", () => {
    const base = runForecast(request(pack([seasonal(60)]), 12, [90]));
    const scaled = runForecast(request(pack([seasonal(60).map((v) => v * 1000)]), 12, [90]));
    base.mean.forEach((m, r) => expect(scaled.mean[r]!).toBeCloseTo(m * 1000, 3));
    base.intervals!["hi-90"]!.forEach((v, r) => expect(scaled.intervals!["hi-90"]![r]!).toBeCloseTo(v * 1000, 3));
  });

  it("warns beyond the native horizon", () => {
    expect(runForecast(request(pack([seasonal(60)]), 18, [])).warnings).toEqual([]);
    expect(runForecast(request(pack([seasonal(60)]), 19, [])).warnings.join(" ")).toMatch(/exceeds the model horizon/);
  });

  it("uses exogenous features and their future values", () => {
    const n = 80;
    const h = 6;
    const x = Array.from({ length: n + h }, (_, t) => ((t * 7) % 5) - 2);
    const y = Array.from({ length: n }, (_, t) => seasonal(n)[t]! + 4 * x[t]!);
    const series = pack([y], [[x.slice(0, n)]]);
    const res = runForecast(request(series, h, [80], { Xfuture: [Float64Array.from(x.slice(n))] }));
    expect(res.weights_x!.length).toBe(1);
    expect(Math.abs(res.weights_x![0]! - 4)).toBeLessThan(0.2);
    expect(res.input_tokens).toBe(n + n + h);
    const noFuture = () => runForecast(request(series, h, []));
    expect(noFuture).toThrow(ValidationError);
    try {
      noFuture();
    } catch (e) {
      expect((e as ValidationError).detail[0]!.loc).toEqual(["body", "X_future"]);
    }
  });

  it("rejects unequal lengths in multivariate mode", () => {
    const req = request(pack([seasonal(30), seasonal(31)]), 4, [], { model: "forecastmodel-2.1", multivariate: true });
    expect(() => runForecast(req)).toThrow(/equal length/);
  });
});
