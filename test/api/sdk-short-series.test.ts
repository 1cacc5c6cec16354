/**
 * Short series on the SDK's in-sample routes (issue 31, found by running the
 * SDK's own suite, tools/sdk-suite): POST /v2/anomaly_detection and
 * cross-validation with `full_history` (the SDK's add_history) give a series
 * shorter than inputSize + horizon one window, its last horizon points
 * forecast from the points before them, as the SDK's own in-sample rule
 * (`_get_in_sample_horizon_and_windows`: at least one window per series)
 * expects; a series of at most horizon points is a 422 in the hosted API's
 * words ("Minimum required … samples for computing prediction intervals").
 * POST /v2/historic_forecast, the specification's route, still refuses them.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { historicWindowCount, historicWindowsWithShort } from "../../src/historic/index.js";
import { KEY_A, bearer, testService } from "./helpers.js";
import { sdkCrossValidationBody } from "../support/sdk-bodies.js";

const service = testService({ pipelines: DEFAULT_PIPELINES });
const send = (path: string, body: unknown) => service.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });
type Answer = { mean: number[]; sizes: number[]; idxs?: number[]; anomaly?: boolean[]; intervals: Record<string, number[]> | null };
type Detail = { detail: { loc: (string | number)[]; msg: string }[] };

// a smooth weekly pattern with a trend: no isolated spike, so what the network reads is the series itself
const daily = Array.from({ length: 92 }, (_, t) => 50 + 8 * Math.sin((2 * Math.PI * t) / 7) + 0.2 * t);
const air = (JSON.parse(readFileSync("bench/data/r-datasets.json", "utf8")) as Record<string, { y: number[] }>).AirPassengers!.y;

describe("historicWindowsWithShort", () => {
  it("is historicWindowCount when a full-context window fits, 1 when only a shorter one does, 0 up to horizon points", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 60 }), (n, inputSize, horizon) => {
        const full = historicWindowCount(n, inputSize, horizon);
        const withShort = historicWindowsWithShort(n, inputSize, horizon);
        if (full > 0) expect(withShort).toBe(full);
        else expect(withShort).toBe(n > horizon ? 1 : 0);
      }),
    );
  });
});

describe("POST /v2/anomaly_detection on a series shorter than inputSize + horizon", () => {
  const body = { series: { y: daily, sizes: [92], X: null }, model: "forecastmodel-1", freq: "D", finetuned_model_id: null, clean_ex_first: true, level: 99, multivariate: false };

  it("answers one window of horizon (14) points, the forecast from the 78 points before them", async () => {
    const res = await send("/v2/anomaly_detection", body);
    expect(res.status).toBe(200);
    const out = res.body as Answer;
    expect(out.sizes).toEqual([14]);
    expect(out.anomaly).toHaveLength(14);
    const direct = (await send("/v2/forecast", { series: { y: daily.slice(0, 78), sizes: [78] }, model: "forecastmodel-1", freq: "D", h: 14 })).body as Answer;
    expect(out.mean).toEqual(direct.mean);
    const lo = out.intervals!["lo-99"]!;
    const hi = out.intervals!["hi-99"]!;
    out.mean.forEach((m, r) => expect(lo[r]! <= m && m <= hi[r]!).toBe(true));
  });

  it("the work budget counts the short series' window as the run makes it", async () => {
    // a series of 110 points has one full window (96 + 14), the short one one more: 2 windows
    const long = Array.from({ length: 110 }, (_, t) => 50 + 8 * Math.sin((2 * Math.PI * t) / 7));
    const two = { ...body, series: { y: [...long, ...daily], sizes: [110, 92], X: null } };
    const tight = testService({ pipelines: DEFAULT_PIPELINES, limits: { maxNetworkWindows: 1 } });
    const refused = await tight.handle({ method: "POST", path: "/v2/anomaly_detection", headers: bearer(KEY_A), body: JSON.stringify(two) });
    expect(refused.status).toBe(422);
    expect((refused.body as Detail).detail[0]!.msg).toMatch(/would forecast 2 windows/);
    const enough = testService({ pipelines: DEFAULT_PIPELINES, limits: { maxNetworkWindows: 2 } });
    const served = await enough.handle({ method: "POST", path: "/v2/anomaly_detection", headers: bearer(KEY_A), body: JSON.stringify(two) });
    expect(served.status).toBe(200);
    expect((served.body as Answer).sizes).toEqual([14, 14]);
  });

  it("a series of 14 points (the horizon) is a 422 at its size, in the hosted API's words", async () => {
    const res = await send("/v2/anomaly_detection", { ...body, series: { y: daily.slice(0, 14), sizes: [14], X: null } });
    expect(res.status).toBe(422);
    const item = (res.body as Detail).detail[0]!;
    expect(item.loc).toEqual(["body", "series", "sizes", 0]);
    expect(item.msg).toMatch(/Minimum required 15 samples for computing prediction intervals/);
    const ok = await send("/v2/anomaly_detection", { ...body, series: { y: daily.slice(0, 15), sizes: [15], X: null } });
    expect(ok.status).toBe(200);
    expect((ok.body as Answer).sizes).toEqual([14]);
  });

  it("POST /v2/historic_forecast, the specification's route, still refuses the series (inputSize + horizon = 110)", async () => {
    const res = await send("/v2/historic_forecast", { series: { y: daily, sizes: [92] }, freq: "D", level: [99] });
    expect(res.status).toBe(422);
    expect((res.body as Detail).detail[0]!.msg).toMatch(/inputSize \+ horizon = 96 \+ 14 = 110/);
  });
});

describe("cross-validation with full_history (the SDK's add_history)", () => {
  const payload = (model: string, y: number[], level: number[] | null) => sdkCrossValidationBody({ series: { y, sizes: [y.length], X: null }, model, level, full_history: true });

  it("AirPassengers (144 months) with the long-horizon model (192 + 24): the last 24 months, idxs 120-143", async () => {
    const res = await send("/v2/cross_validation", payload("forecastmodel-1-long-horizon", air, [80]));
    expect(res.status).toBe(200);
    const out = res.body as Answer;
    expect(out.sizes).toEqual([24]);
    expect(out.idxs).toEqual(Array.from({ length: 24 }, (_, k) => 120 + k));
    expect(out.mean.every(Number.isFinite)).toBe(true);
    expect(Object.keys(out.intervals!)).toEqual(["lo-80", "hi-80"]);
  });

  it("series long enough for a full-context window are answered as before (the historic forecast's windows)", async () => {
    const res = (await send("/v2/cross_validation", payload("forecastmodel-1", air, [80]))).body as Answer;
    const hist = (await send("/v2/historic_forecast", { series: { y: air, sizes: [144] }, freq: "M", level: [80] })).body as Answer;
    expect(res.mean).toEqual(hist.mean);
    expect(res.intervals).toEqual(hist.intervals);
  });

  it("three months with levels: a 422 that says the minimum (horizon 18 + 1)", async () => {
    const res = await send("/v2/cross_validation", payload("forecastmodel-1", air.slice(-3), [90, 95]));
    expect(res.status).toBe(422);
    expect((res.body as Detail).detail[0]!.msg).toMatch(/Minimum required 19 samples for computing prediction intervals/);
  });
});
