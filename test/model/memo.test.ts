/**
 * The forecast memo (src/model/memo.ts): forecasts kept between calls that send overlapping histories give
 * byte-identical answers, the memo never holds more than it may, and forecasts of other weights or settings never mix.
 */
import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import seedrandom from "seedrandom";
import { createForecastMemo, withMemo, FORECAST_MEMO_ENTRIES } from "../../src/model/index.js";
import { detectAnomalies } from "../../src/anomaly/index.js";
import { modelSource } from "../../src/finetune/index.js";
import { createService, detectAnomaliesOnline, memoPipelines } from "../../src/api/index.js";
import { withSpread } from "../../src/intervals/index.js";
import { univariateAnomalyRequest } from "../support/anomaly-request.js";
import type { AnomalyInput, Forecaster } from "../../src/types.js";

/** `streams` streams of `total` points: a daily wave, noise, and (flagged by `spikes`) a spike now and then. */
function streamsOf(seed: string, streams: number, total: number, spikes: boolean): Float64Array[] {
  const u = seedrandom(seed);
  return Array.from({ length: streams }, () => {
    const level = 50 + 100 * u();
    return Float64Array.from({ length: total }, (_, t) => level + 10 * Math.sin((2 * Math.PI * t) / 24) + 3 * (u() - 0.5) + (spikes && u() < 0.02 ? 40 : 0));
  });
}

/** The streaming request of the streams' `history` points up to `end`: h 1, detection_size `d`, step 1. */
function streamingRequest(data: readonly Float64Array[], end: number, history: number, d: number): AnomalyInput {
  const y = new Float64Array(data.length * history);
  data.forEach((s, i) => y.set(s.subarray(end - history, end), i * history));
  const series = { y, sizes: new Int32Array(data.length).fill(history), offsets: Int32Array.from({ length: data.length + 1 }, (_, i) => i * history), X: [] };
  return { ...univariateAnomalyRequest(series, "H", 1, d, 99), stepSize: 1 };
}

const accounts = [{ id: "a", apiKeys: ["k-1234567890"], credits: 1e12, hasPaymentMethod: true }];

const bytes = (value: unknown): string => JSON.stringify(value, (_, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float64Array, (x) => (Object.is(x, -0) ? "-0" : String(x))) : v));

describe("the forecast memo", () => {
  test.prop([fc.integer({ min: 1, max: 3 }), fc.integer({ min: 4, max: 12 }), fc.boolean(), fc.string({ maxLength: 6 })], { numRuns: 4 })(
    "streaming calls that share their history: the same answers with the memo as without, and the shared forecasts come from it",
    (streams, d, spikes, seed) => {
      const history = 6 * d + 96 + 10;
      const data = streamsOf(seed, streams, history + 3 * d, spikes);
      const memo = createForecastMemo();
      for (let call = 0; call < 3; call++) {
        const request = streamingRequest(data, history + call * d, history, d);
        const plain = detectAnomalies(request, modelSource(request));
        const kept = detectAnomalies(request, modelSource(request, { memo }));
        expect(bytes(kept)).toBe(bytes(plain));
      }
      // the later calls forecast again only what the first did not (their new points; with spikes, the cleaned windows too)
      // each later call's 6·d calibration windows were forecast by the call before (less the few a cleaned spike changed)
      expect(memo.hits).toBeGreaterThanOrEqual(spikes ? 1 : streams * 2 * 5 * d);
    },
  );

  it("forecasts with levels and h beyond the native horizon (a service on memoPipelines): the same bodies, every context answered from the memo the second time", async () => {
    const data = streamsOf("forecast", 3, 300, false);
    const body = JSON.stringify({ series: { y: data.flatMap((s) => Array.from(s)), sizes: [300, 300, 300] }, freq: "H", h: 30, level: [80, 95], model: "forecastmodel-1" });
    const memo = createForecastMemo();
    const [plain, kept] = [createService({ accounts }), createService({ accounts, pipelines: memoPipelines(memo) })];
    const call = (service: typeof plain) => service.handle({ method: "POST", path: "/v2/forecast", headers: { authorization: "Bearer k-1234567890" }, body });
    const want = await call(plain);
    expect(want.status).toBe(200);
    expect(JSON.stringify((await call(kept)).body)).toBe(JSON.stringify(want.body));
    const misses = memo.misses;
    expect(JSON.stringify((await call(kept)).body)).toBe(JSON.stringify(want.body));
    expect(memo.misses).toBe(misses);
    expect(memo.hits).toBeGreaterThan(0);
  });

  it("keeps at most `entries` forecasts, forgetting the least recently used first; clear() forgets all", () => {
    let forecast = 0;
    const last: Forecaster = {
      ...withSpread({
        name: "last",
        seasonLength: 1,
        forecast(contexts, h) {
          forecast += contexts.length;
          return Float64Array.from({ length: contexts.length * h }, (_, i) => contexts[Math.floor(i / h)]!.at(-1)!);
        },
      }),
      contextReach: 2,
    };
    const memo = createForecastMemo({ entries: 2 });
    const f = withMemo(last, memo, {}, "last");
    const c = (v: number) => Float64Array.of(0, v);
    f.forecastDistribution!([c(1), c(2)], 1); // kept: 1, 2
    f.forecastDistribution!([c(1)], 1); // 1 used last
    f.forecastDistribution!([c(3)], 1); // 2 forgotten
    expect(memo.size).toBe(2);
    forecast = 0;
    expect(Array.from(f.forecastDistribution!([c(1), c(3), c(2)], 1).mean)).toEqual([1, 3, 2]);
    expect(forecast).toBe(1); // only 2 again
    expect(memo.size).toBe(2);
    memo.clear();
    expect(memo.size).toBe(0);
    forecast = 0;
    f.forecastDistribution!([c(1)], 1);
    expect(forecast).toBe(1);
    // only the last contextReach points count: an older point differs, the forecast is the memo's
    expect(Array.from(f.forecastDistribution!([Float64Array.of(9, 0, 1)], 1).mean)).toEqual([1]);
    expect(forecast).toBe(1);
  });

  it("other weights, settings or horizons never share a forecast; a forecaster that may read a whole context is not wrapped", () => {
    const constant = (value: number): Forecaster => ({ ...withSpread({ name: "c", seasonLength: 1, forecast: (cs, h) => new Float64Array(cs.length * h).fill(value) }), contextReach: 3 });
    const memo = createForecastMemo();
    const context = [Float64Array.of(1, 2, 3)];
    expect(withMemo(constant(1), memo, {}, "k").forecastDistribution!(context, 1).mean[0]).toBe(1);
    expect(withMemo(constant(2), memo, {}, "k").forecastDistribution!(context, 1).mean[0]).toBe(2); // other weights object
    const weights = {};
    expect(withMemo(constant(3), memo, weights, "a").forecastDistribution!(context, 1).mean[0]).toBe(3);
    expect(withMemo(constant(4), memo, weights, "b").forecastDistribution!(context, 1).mean[0]).toBe(4); // other key
    expect(Array.from(withMemo(constant(5), memo, weights, "a").forecastDistribution!(context, 2).mean)).toEqual([5, 5]); // other h
    const whole: Forecaster = withSpread({ name: "w", seasonLength: 1, forecast: (cs, h) => new Float64Array(cs.length * h) });
    expect(withMemo(whole, memo, {}, "w")).toBe(whole);
  });

  it("entries must be a positive integer; a memo must come from createForecastMemo", () => {
    expect(createForecastMemo().entries).toBe(FORECAST_MEMO_ENTRIES);
    for (const entries of [0, -1, 1.5, NaN]) expect(() => createForecastMemo({ entries })).toThrow(/entries must be a positive integer/);
    const f = { ...withSpread({ name: "c", seasonLength: 1, forecast: (cs: readonly Float64Array[], h: number) => new Float64Array(cs.length * h) }), contextReach: 3 };
    expect(() => withMemo(f, { entries: 1, size: 0, hits: 0, misses: 0, clear() {} }, {}, "k")).toThrow(/createForecastMemo/);
  });

  it("the entry points take a memo in their call options: the same answers, the shared windows from the memo", () => {
    const data = streamsOf("entry", 2, 400, true);
    const memo = createForecastMemo();
    for (const end of [300, 310, 320]) {
      const body = { series: { y: data.flatMap((s) => Array.from(s.subarray(end - 250, end))), sizes: [250, 250] }, freq: "H", h: 1, detection_size: 10, step_size: 1, level: 99 } as const;
      expect(bytes(detectAnomaliesOnline(body, { memo }))).toBe(bytes(detectAnomaliesOnline(body)));
    }
    expect(memo.hits).toBeGreaterThan(0);
  });

  it("a service on memoPipelines answers streaming calls with the same bodies as one without", async () => {
    const plain = createService({ accounts });
    const memo = createForecastMemo();
    const kept = createService({ accounts, pipelines: memoPipelines(memo) });
    const data = streamsOf("service", 2, 400, true);
    for (const end of [300, 310, 320]) {
      const body = JSON.stringify({ series: { y: data.flatMap((s) => Array.from(s.subarray(end - 250, end))), sizes: [250, 250] }, freq: "H", h: 1, detection_size: 10, step_size: 1, level: 99 });
      const call = (service: typeof plain) => service.handle({ method: "POST", path: "/v2/online_anomaly_detection", headers: { authorization: "Bearer k-1234567890" }, body });
      const [a, b] = await Promise.all([call(plain), call(kept)]);
      expect(a.status).toBe(200);
      expect(JSON.stringify(b.body)).toBe(JSON.stringify(a.body));
    }
    expect(memo.hits).toBeGreaterThan(0);
  });
});
