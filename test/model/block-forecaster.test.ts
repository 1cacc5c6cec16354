/**
 * forecastmodel-1-high-frequency at sub-half-hourly data (issue 30, "a day of
 * steps for sub-hourly data"): the network reads half-hour block means and
 * forecasts a day of them directly; each step gets its block's forecast plus
 * its place in the daily profile within its block.
 */
import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { aggregationFactor, createNetworkForecaster, modelParams } from "../../src/model/index.js";
import { finetuneParameters } from "../../src/finetune/index.js";
import { forecast } from "../../src/index.js";

const HF = "forecastmodel-1-high-frequency";
const forecasters = new Map<string, ReturnType<typeof createNetworkForecaster>>();
/** One forecaster per freq for the whole file (building one decodes its weights). */
const hf = (freq: "min" | "5min" | "15min" | "30min") => forecasters.get(freq) ?? forecasters.set(freq, createNetworkForecaster(HF, freq)).get(freq)!;

/** Per-minute values: a daily wave, and within every half-hour a ramp of 0..2.9 (a shape only the profile can give). */
function perMinute(n: number, level = 100): Float64Array {
  return Float64Array.from({ length: n }, (_, t) => level + 20 * Math.sin((2 * Math.PI * t) / 1440) + 0.1 * (t % 30));
}

/** Means of consecutive blocks of k values, the last block ending at the end. */
function blockMeans(y: Float64Array, k: number): Float64Array {
  const count = Math.floor(y.length / k);
  const from = y.length - count * k;
  return Float64Array.from({ length: count }, (_, j) => y.subarray(from + j * k, from + (j + 1) * k).reduce((a, v) => a + v, 0) / k);
}

describe("aggregationFactor and modelParams", () => {
  it("half-hour blocks for sub-half-hourly data, only with the seasons view; a day of steps is the native horizon", () => {
    expect(["min", "5min", "10min", "15min", "30min", "H", "D"].map((f) => aggregationFactor(HF, f as never))).toEqual([30, 6, 3, 2, 1, 1, 1]);
    expect(aggregationFactor("forecastmodel-1", "min")).toBe(1);
    expect(modelParams(HF, "min")).toEqual({ inputSize: 168 * 30, horizon: 1440, seasonLength: 1440 });
    expect(modelParams(HF, "15min")).toEqual({ inputSize: 336, horizon: 96, seasonLength: 96 });
    expect(modelParams(HF, "30min")).toEqual({ inputSize: 168, horizon: 48, seasonLength: 48 });
  });
});

describe("the block forecaster", () => {
  const n = 9 * 1440;
  const y = perMinute(n + 1440);
  const history = y.subarray(0, n);

  it("forecasts a day of minutes directly (no horizon warning), with the within-block shape the flat blocks miss", () => {
    const r = forecast({ series: { y: Array.from(history), sizes: [n] }, freq: "min", h: 1440, model: HF });
    expect(r.warnings ?? []).toEqual([]);
    expect(r.mean.every(Number.isFinite)).toBe(true);
    const flat = Float64Array.from(hf("30min").forecast([blockMeans(history, 30)], 48));
    let err = 0;
    let flatErr = 0;
    for (let s = 0; s < 1440; s++) {
      err += Math.abs(r.mean[s]! - y[n + s]!) / 1440;
      flatErr += Math.abs(flat[Math.floor(s / 30)]! - y[n + s]!) / 1440;
    }
    // the ramp alone costs flat blocks 0.75 on average (the mean distance of 0..2.9 from its mean)
    expect(flatErr).toBeGreaterThan(0.7);
    expect(err).toBeLessThan(flatErr / 2);
    const longer = forecast({ series: { y: Array.from(history), sizes: [n] }, freq: "min", h: 1441, model: HF });
    expect(longer.warnings?.some((w) => w.includes("exceeds the model horizon"))).toBe(true);
  });

  test.prop([fc.integer({ min: 1, max: 3 * 1440 }), fc.integer({ min: 1, max: 4 }), fc.constantFrom(1, 5, 15)], { numRuns: 40 })(
    "each whole future block averages to the network's half-hour forecast of the block means (the profile's offsets sum to 0 within a block)",
    (length, blocksAhead, minutes) => {
      const k = 30 / minutes;
      const freq = ({ 1: "min", 5: "5min", 15: "15min" } as const)[minutes as 1 | 5 | 15];
      const c = perMinute(length * k, 1000).subarray(0, Math.max(k, length));
      const h = blocksAhead * k;
      const out = hf(freq).forecast([c], h);
      const half = hf("30min").forecast([blockMeans(c, k)], blocksAhead);
      for (let b = 0; b < blocksAhead; b++) {
        const avg = out.subarray(b * k, (b + 1) * k).reduce((a, v) => a + v, 0) / k;
        expect(avg).toBeCloseTo(half[b]!, 6);
      }
    },
  );

  test.prop([fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 4000 }), fc.integer({ min: 1, max: 200 })], { numRuns: 40 })(
    "a non-negative context gets no negative forecast; every value finite, also for a context shorter than a block",
    (values, h) => {
      const out = hf("min").forecastDistribution!([Float64Array.from(values)], h);
      expect(out.mean.every((v) => Number.isFinite(v) && v >= 0)).toBe(true);
      expect(out.below.every(Number.isFinite) && out.above.every(Number.isFinite)).toBe(true);
    },
  );

  it("each step's spread is its block's", () => {
    const f = hf("15min").forecastDistribution!([blockMeans(history, 15)], 8);
    const G = f.levels.length;
    for (let s = 0; s < 8; s += 2) expect(Array.from(f.below.subarray(s * G, (s + 1) * G))).toEqual(Array.from(f.below.subarray((s + 1) * G, (s + 2) * G)));
  });
});

describe("fine-tuning at sub-half-hourly data", () => {
  it("tunes the network on the half-hour block means: the same parameters as tuning at 30min on them", () => {
    const y = perMinute(4 * 1440 + 17);
    const spec = { model: HF, finetune: { steps: 2, loss: "mae", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null } as const;
    const minute = finetuneParameters({ ...spec, freq: "min" }, { y, sizes: Int32Array.of(y.length), offsets: Int32Array.of(0, y.length), X: [] });
    const means = blockMeans(y, 30);
    const half = finetuneParameters({ ...spec, freq: "30min" }, { y: means, sizes: Int32Array.of(means.length), offsets: Int32Array.of(0, means.length), X: [] });
    expect(minute.finetuneWork).toBe(2);
    expect(Array.from(minute.weights!.values)).toEqual(Array.from(half.weights!.values));
  });
});
