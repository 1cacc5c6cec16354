/**
 * Requests a dataframe SDK of the hosted API sends besides the forecasting
 * bodies (read from its public client source; part of issue 14): GET
 * /model_params with `model` and a pandas frequency alias, answered
 * `{"detail": {"input_size", "horizon"}}`; GET /validate_api_key, 200 or 401
 * with a `detail` text either way; GET /usage, calls and limits by minute and
 * month.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { createMemoryStore } from "../../src/api/store.js";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { describe, expect, it } from "vitest";
import { acceptedFreqAliases, freqFromAlias } from "../../src/api/freq.js";
import { sdkBodyForms } from "../../src/api/requests.js";
import { modelParams } from "../../src/model/config.js";
import type { Freq, ModelName } from "../../src/types.js";
import { KEY_A, KEY_B, bearer, sdkForecastBody, testService } from "./helpers.js";
import { sdkCrossValidationBody } from "../support/sdk-bodies.js";

const service = testService();
const get = (path: string, headers: Record<string, string> = bearer(KEY_A)) => service.handle({ method: "GET", path, headers });

describe("frequency aliases", () => {
  it.each([
    ["h", "H"], ["H", "H"], ["D", "D"], ["W", "W"], ["W-SUN", "W"], ["W-MON", "W"], ["MS", "M"], ["ME", "M"], ["M", "M"],
    ["QS", "Q"], ["QS-DEC", "Q"], ["QE-MAR", "Q"], ["Q", "Q"], ["YS", "Y"], ["YE", "Y"], ["A-DEC", "Y"], ["AS-JAN", "Y"], ["Y", "Y"],
  ])("%s is %s", (alias, freq) => {
    expect(freqFromAlias(alias)).toBe(freq);
  });

  it.each(["min", "T", "S", "B", "m", "ms", "d", "W-XYZ", "QS-FOO", "", "MS ", "2h", "hourly"])("%j is no frequency", (alias) => {
    expect(freqFromAlias(alias)).toBeNull();
  });

  it("every alias maps to one of the six frequencies, and anything else to null", () => {
    fc.assert(fc.property(fc.string({ maxLength: 8 }), (s) => {
      const f = freqFromAlias(s);
      expect(f === null || ["H", "D", "W", "M", "Q", "Y"].includes(f)).toBe(true);
    }));
  });

  it("the accepted list names each frequency once", () => {
    expect(acceptedFreqAliases(["H", "D", "W", "M"])).toBe("H (or h), D, W (or W-SUN, W-MON, …), M (or MS, ME)");
  });
});

describe("GET /model_params", () => {
  it.each([
    ["forecastmodel-1", "MS", "M"],
    ["forecastmodel-1", "h", "H"],
    ["forecastmodel-1-long-horizon", "W-SUN", "W"],
    ["forecastmodel-2.1", "D", "D"],
  ])("%s at %s: the model's input size and horizon for %s", async (model, alias, freq) => {
    const res = await get(`/model_params?model=${encodeURIComponent(model)}&freq=${encodeURIComponent(alias)}`);
    expect(res.status).toBe(200);
    const p = modelParams(model as ModelName, freq as Freq);
    expect(res.body).toEqual({ detail: { input_size: p.inputSize, horizon: p.horizon } });
  });

  it("an unsupported frequency is a 422 at query.freq listing what is accepted (quarterly and yearly are core-only, as for forecasts)", async () => {
    for (const alias of ["7min", "QS-DEC", "YS"]) { // "min" was here until sub-daily steps were accepted (issue 26); 7 minutes does not divide a day
      const res = await get(`/model_params?model=forecastmodel-1&freq=${alias}`);
      expect(res.status).toBe(422);
      const item = (res.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]!;
      expect(item.loc).toEqual(["query", "freq"]);
      expect(item.msg).toContain(`freq '${alias}' is not a supported frequency; accepted: H (or h), D`);
    }
  });

  it("missing or unknown parameters are 422 items naming each", async () => {
    const res = await get("/model_params?model=gpt");
    expect(res.status).toBe(422);
    expect((res.body as { detail: { type: string; loc: unknown[] }[] }).detail.map((d) => [d.type, d.loc.join(".")])).toEqual([
      ["literal_error", "query.model"],
      ["missing", "query.freq"],
    ]);
  });

  it("needs a valid bearer key", async () => {
    expect((await get("/model_params?model=forecastmodel-1&freq=D", {})).status).toBe(401);
    expect((await get("/model_params?model=forecastmodel-1&freq=D", bearer("nope"))).status).toBe(401);
  });
});

describe("GET /usage", () => {
  const body = { series: { y: [1, 2, 3, 4, 5, 6], sizes: [6] }, freq: "D", h: 2 };

  it("counts the account's accepted model calls in the clock's minute and month; limits are -1 (none)", async () => {
    let now = Date.UTC(2026, 0, 31, 23, 58, 10);
    const s = testService({ clock: () => new Date(now) });
    const call = (path: string, key = KEY_A, payload: unknown = body) =>
      s.handle({ method: "POST", path, headers: bearer(key), body: JSON.stringify(payload) });
    const usage = async (key = KEY_A) => (await s.handle({ method: "GET", path: "/usage", headers: bearer(key) })).body;
    expect(await usage()).toEqual({ minute: { limit: -1, usage: 0 }, month: { limit: -1, usage: 0 } });
    expect((await call("/v2/forecast")).status).toBe(200);
    expect((await call("/v2/forecast/async")).status).toBe(200);
    // a refused request is not a call
    expect((await call("/v2/forecast", KEY_A, { ...body, h: 0 })).status).toBe(422);
    expect(await usage()).toEqual({ minute: { limit: -1, usage: 2 }, month: { limit: -1, usage: 2 } });
    // another account sees only its own calls
    expect((await call("/v2/forecast", KEY_B)).status).toBe(200);
    expect(await usage(KEY_B)).toEqual({ minute: { limit: -1, usage: 1 }, month: { limit: -1, usage: 1 } });
    // the next minute starts at 0, the month goes on; the next month starts at 0 too
    now += 60_000;
    expect(await usage()).toEqual({ minute: { limit: -1, usage: 0 }, month: { limit: -1, usage: 2 } });
    expect((await call("/v2/forecast")).status).toBe(200);
    expect(await usage()).toEqual({ minute: { limit: -1, usage: 1 }, month: { limit: -1, usage: 3 } });
    now += 24 * 3600_000;
    expect(await usage()).toEqual({ minute: { limit: -1, usage: 0 }, month: { limit: -1, usage: 0 } });
  });

  it("needs a valid bearer key; POST is a 405", async () => {
    expect((await service.handle({ method: "GET", path: "/usage", headers: {} })).status).toBe(401);
    expect((await service.handle({ method: "GET", path: "/usage", headers: bearer("nope") })).status).toBe(401);
    expect((await service.handle({ method: "POST", path: "/usage", headers: bearer(KEY_A) })).status).toBe(405);
  });

  it("a store without call counts reports 0 calls", async () => {
    const { countCall: _c, callCounts: _k, ...plain } = createMemoryStore();
    const s = testService({ store: plain });
    await s.handle({ method: "POST", path: "/v2/forecast", headers: bearer(KEY_A), body: JSON.stringify(body) });
    expect((await s.handle({ method: "GET", path: "/usage", headers: bearer(KEY_A) })).body).toEqual({ minute: { limit: -1, usage: 0 }, month: { limit: -1, usage: 0 } });
  });
});

describe("GET /validate_api_key", () => {
  it("200 with a detail for a good key, 401 with a detail otherwise (the SDK logs body['detail'] both ways)", async () => {
    const good = await get("/validate_api_key");
    expect(good.status).toBe(200);
    expect(typeof (good.body as { detail: unknown }).detail).toBe("string");
    for (const headers of [{}, bearer("wrong-key"), { authorization: "Basic abc" }]) {
      const bad = await get("/validate_api_key", headers);
      expect(bad.status).toBe(401);
      expect(typeof (bad.body as { detail: unknown }).detail).toBe("string");
      expect(bad.headers["x-request-id"]).toBeDefined();
    }
  });

  it("POST is a 405", async () => {
    expect((await service.handle({ method: "POST", path: "/validate_api_key", headers: bearer(KEY_A) })).status).toBe(405);
  });
});

describe("bodies as the SDK sends them", () => {
  const y = Array.from({ length: 48 }, (_, t) => 10 + (t % 12));
  // the forecast payload of the SDK's client: every field present, nulls for "none"
  const sdkForecast = (series: Record<string, unknown>, freq: string, extra: Record<string, unknown> = {}) => sdkForecastBody(series, { model: "forecastmodel-1", h: 6, freq }, extra);
  const post = (path: string, body: unknown) => service.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });

  it("a pandas alias and X_future: null inside series give the same answer as the specification's form", async () => {
    const sdk = await post("/v2/forecast", sdkForecast({ y, sizes: [48], X: null, X_future: null }, "MS"));
    const spec = await post("/v2/forecast", { series: { y, sizes: [48] }, freq: "M", h: 6 });
    expect(sdk.status).toBe(200);
    expect(sdk.body).toEqual(spec.body);
  });

  it("X_future inside series is the top-level X_future", async () => {
    const X = [y.map((v) => v % 2)];
    const XF = [[1, 0, 1, 0, 1, 0]];
    const sdk = await post("/v2/forecast", sdkForecast({ y, sizes: [48], X, X_future: XF }, "MS"));
    const spec = await post("/v2/forecast", { series: { y, sizes: [48], X }, X_future: XF, freq: "M", h: 6 });
    expect(sdk.status).toBe(200);
    expect(sdk.body).toEqual(spec.body);
  });

  it("X_future both inside series and at the top level is a 422 naming series.X_future", async () => {
    const X = [y.map((v) => v % 2)];
    const res = await post("/v2/forecast", sdkForecast({ y, sizes: [48], X, X_future: [[1, 0, 1, 0, 1, 0]] }, "M", { X_future: [[1, 0, 1, 0, 1, 0]] }));
    expect(res.status).toBe(422);
    expect((res.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["body", "series", "X_future"]);
  });

  it("anomaly detection with h and W-SUN aliases; an unsupported alias is still the literal 422", async () => {
    const hourly = await post("/v2/online_anomaly_detection", { series: { y, sizes: [48], X: null }, model: "forecastmodel-1", h: 1, freq: "h", level: 99, detection_size: 6 });
    expect(hourly.status).toBe(200);
    const weekly = await post("/v2/online_anomaly_detection", { series: { y, sizes: [48] }, h: 1, freq: "W-SUN", level: 99, detection_size: 6 });
    expect(weekly.status).toBe(200);
    const minutely = await post("/v2/forecast", { series: { y, sizes: [48] }, h: 1, freq: "7min" }); // "min" until issue 26: now accepted
    expect(minutely.status).toBe(422);
    expect((minutely.body as { detail: { type: string; loc: unknown[] }[] }).detail[0]).toMatchObject({ type: "literal_error", loc: ["body", "freq"] });
  });

  it("the body object is never modified", () => {
    const body = sdkForecast({ y, sizes: [48], X: [y], X_future: [[1, 2, 3, 4, 5, 6]] }, "MS");
    const before = JSON.stringify(body);
    const out = sdkBodyForms(body, ["D", "M", "H", "W"]);
    expect(JSON.stringify(body)).toBe(before);
    expect((out.raw as { freq: string }).freq).toBe("M");
    expect(sdkBodyForms({ freq: "M", series: { y: [1] } }, ["M"]).raw).toEqual({ freq: "M", series: { y: [1] } });
  });
});

describe("POST /v2/anomaly_detection (historical anomaly detection)", () => {
  const air = (JSON.parse(readFileSync("bench/data/r-datasets.json", "utf8")) as Record<string, { y: number[] }>).AirPassengers!.y;
  const real = testService({ pipelines: DEFAULT_PIPELINES });
  const send = (path: string, body: unknown) => real.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });
  const spiked = air.map((v, t) => (t === 130 ? v * 1.6 : v));
  // the SDK's payload: series with X null, level a number, multivariate false
  const sdkBody = { series: { y: spiked, sizes: [144], X: null }, model: "forecastmodel-1", freq: "MS", finetuned_model_id: null, clean_ex_first: true, level: 99, multivariate: false };

  it("is the historic forecast at the level, with every actual outside its interval flagged", async () => {
    const res = await send("/v2/anomaly_detection", sdkBody);
    expect(res.status).toBe(200);
    const body = res.body as { mean: number[]; sizes: number[]; intervals: Record<string, number[]>; anomaly: boolean[]; weights_x: unknown };
    const hist = (await send("/v2/historic_forecast", { series: { y: spiked, sizes: [144] }, freq: "M", level: [99] })).body as typeof body;
    expect(body.mean).toEqual(hist.mean);
    expect(body.intervals).toEqual(hist.intervals);
    expect(Object.keys(body.intervals)).toEqual(["lo-99", "hi-99"]);
    expect(body.anomaly.length).toBe(body.sizes[0]);
    const first = 144 - body.sizes[0]!;
    body.anomaly.forEach((flag, r) => {
      const y = spiked[first + r]!;
      expect(flag).toBe(y < body.intervals["lo-99"]![r]! || y > body.intervals["hi-99"]![r]!);
    });
    expect(body.anomaly[130 - first]).toBe(true);
    expect(body.anomaly.filter(Boolean).length).toBeLessThanOrEqual(5);
    expect(body.weights_x).toBeNull();
  });

  it("level as a one-element list or absent (99); several levels are a 422 at body.level", async () => {
    const list = await send("/v2/anomaly_detection", { ...sdkBody, level: [99] });
    const absent = await send("/v2/anomaly_detection", { ...sdkBody, level: undefined });
    const number = await send("/v2/anomaly_detection", sdkBody);
    expect(list.body).toEqual(number.body);
    expect(absent.body).toEqual(number.body);
    const several = await send("/v2/anomaly_detection", { ...sdkBody, level: [80, 99] });
    expect(several.status).toBe(422);
    expect((several.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["body", "level"]);
    const bad = await send("/v2/anomaly_detection", { ...sdkBody, level: 100 });
    expect(bad.status).toBe(422);
  });
});

describe("POST /v2/cross_validation", () => {
  const data = JSON.parse(readFileSync("bench/data/r-datasets.json", "utf8")) as Record<string, { y: number[] }>;
  const air = data.AirPassengers!.y;
  const deaths = data.UKDriverDeaths!.y;
  const real = testService({ pipelines: DEFAULT_PIPELINES });
  const send = (path: string, body: unknown) => real.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });
  // the SDK's payload
  const cvBody = (extra: Record<string, unknown> = {}) => sdkCrossValidationBody({ series: { y: [...air, ...deaths], sizes: [144, 192], X: null }, n_windows: 3, ...extra });

  it("each window is the forecast from the history before its origin; idxs and sizes as the SDK reads them", async () => {
    const res = await send("/v2/cross_validation", cvBody());
    expect(res.status).toBe(200);
    const body = res.body as { idxs: number[]; sizes: number[]; mean: number[]; intervals: Record<string, number[]>; input_tokens: number };
    expect(body.sizes).toEqual([36, 36]);
    expect(body.idxs.slice(0, 36)).toEqual(Array.from({ length: 36 }, (_, k) => 108 + k));
    expect(body.idxs.slice(36)).toEqual(Array.from({ length: 36 }, (_, k) => 144 + 156 + k));
    // the middle window of the second series = forecasting UKDriverDeaths from its first 168 months
    const direct = (await send("/v2/forecast", { series: { y: deaths.slice(0, 168), sizes: [168] }, freq: "M", h: 12, level: [80] })).body as { mean: number[]; intervals: Record<string, number[]> };
    expect(body.mean.slice(36 + 12, 36 + 24)).toEqual(direct.mean);
    expect(body.intervals["lo-80"]!.slice(36 + 12, 36 + 24)).toEqual(direct.intervals["lo-80"]);
    expect(Object.keys(body)).toEqual(["idxs", "sizes", "mean", "intervals", "input_tokens", "output_tokens", "finetune_tokens"]);
  });

  it("features: each window's X_future is the features over the window (hist_exog ones left out)", async () => {
    const x = air.map((_, t) => (t % 12 === 6 ? 1 : 0));
    const res = await send("/v2/cross_validation", cvBody({ series: { y: air, sizes: [144], X: [x, x.map((v) => 1 - v)] }, hist_exog: [1], n_windows: 2 }));
    expect(res.status).toBe(200);
    const direct = (await send("/v2/forecast", { series: { y: air.slice(0, 132), sizes: [132], X: [x.slice(0, 132), x.slice(0, 132).map((v) => 1 - v)] }, X_future: [x.slice(132), []], hist_exog: [1], freq: "M", h: 12, level: [80] })).body as { mean: number[] };
    expect((res.body as { mean: number[] }).mean.slice(12)).toEqual(direct.mean);
  });

  it("add_history: full_history true is the historic forecast, with idxs of the fitted points", async () => {
    // the SDK's in-sample payload: the forecast payload, X_future removed from series, placeholders for h and the windows
    const payload = { ...cvBody({ series: { y: air, sizes: [144], X: null }, h: 11, n_windows: 1, step_size: 11, hist_exog: null, level: [80] }), full_history: true };
    const res = await send("/v2/cross_validation", payload);
    expect(res.status).toBe(200);
    const hist = (await send("/v2/historic_forecast", { series: { y: air, sizes: [144] }, freq: "M", level: [80] })).body as { mean: number[]; sizes: number[]; intervals: unknown };
    const body = res.body as { idxs: number[]; mean: number[]; sizes: number[]; intervals: unknown };
    expect(body.mean).toEqual(hist.mean);
    expect(body.sizes).toEqual(hist.sizes);
    expect(body.intervals).toEqual(hist.intervals);
    expect(body.idxs).toEqual(Array.from({ length: hist.sizes[0]! }, (_, k) => 144 - hist.sizes[0]! + k));
  });

  it("non-JSON numbers in a parsed body are echoed as strings (found by fuzzing)", async () => {
    for (const [path, body] of [
      ["/v2/cross_validation", { series: { y: air, sizes: [144] }, freq: "D", h: Number.NaN }],
      ["/v2/cross_validation/async", { series: { y: air, sizes: [144] }, freq: "D", h: 3, step_size: Infinity }],
      ["/v2/anomaly_detection", { series: { y: air, sizes: [144] }, freq: "D", level: [Number.NaN, 1] }],
    ] as const) {
      const res = await real.handle({ method: "POST", path, headers: bearer(KEY_A), body });
      expect(res.status).toBe(422);
      expect(JSON.parse(JSON.stringify(res.body))).toEqual(res.body);
      expect(JSON.stringify(res.body)).toMatch(/"NaN"|"Infinity"/);
    }
  });

  it("step_size null is h; n_windows defaults to 1", async () => {
    const a = (await send("/v2/cross_validation", cvBody({ step_size: null, n_windows: undefined }))).body as { idxs: number[] };
    expect(a.idxs.slice(0, 12)).toEqual(Array.from({ length: 12 }, (_, k) => 132 + k));
  });

  it("too short a series, too many windows and bad shapes are 422s naming the field", async () => {
    const locOf = async (b: unknown) => {
      const r = await send("/v2/cross_validation", b);
      expect(r.status).toBe(422);
      return (r.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc.join(".");
    };
    expect(await locOf(cvBody({ series: { y: air.slice(0, 30), sizes: [30] }, n_windows: 3 }))).toBe("body.series.sizes.0");
    expect(await locOf(cvBody({ n_windows: 101 }))).toBe("body.n_windows");
    expect(await locOf(cvBody({ step_size: 0 }))).toBe("body.step_size");
    expect(await locOf(cvBody({ h: "12" }))).toBe("body.h");
    expect(await locOf(cvBody({ series: { y: [1, 2, "x"], sizes: [3] } }))).toBe("body.series.y.2");
  });
});

describe("async forecasts and cross-validation", () => {
  const y = Array.from({ length: 48 }, (_, t) => 10 + (t % 12) + t / 10);
  const fcBody = { series: { y, sizes: [48] }, freq: "MS", h: 6, level: [80] };
  const cvBody = { ...fcBody, n_windows: 2, step_size: 6 };

  it("submit, poll, run: the job's result is the synchronous answer; ids carry the task prefix", async () => {
    const s = testService({ pipelines: DEFAULT_PIPELINES });
    const post = (path: string, body: unknown) => s.handle({ method: "POST", path, headers: bearer(KEY_A), body });
    const get = (path: string) => s.handle({ method: "GET", path, headers: bearer(KEY_A) });
    const fc = (await post("/v2/forecast/async", fcBody)).body as { job_id: string };
    const cv = (await post("/v2/cross_validation/async", cvBody)).body as { job_id: string };
    expect(fc.job_id).toMatch(/^fc-[0-9a-f]{32}$/);
    expect(cv.job_id).toMatch(/^cv-[0-9a-f]{32}$/);
    expect(((await get(`/v2/forecast/jobs/${fc.job_id}`)).body as { status: string }).status).toBe("pending");
    expect(await s.runJobs()).toEqual({ ran: 2, succeeded: 2, failed: 0 });
    const fcJob = (await get(`/v2/forecast/jobs/${fc.job_id}`)).body as { status: string; result: unknown };
    const cvJob = (await get(`/v2/cross_validation/jobs/${cv.job_id}`)).body as { status: string; result: unknown };
    expect(fcJob.status).toBe("succeeded");
    expect(fcJob.result).toEqual((await post("/v2/forecast", fcBody)).body);
    expect(cvJob.result).toEqual((await post("/v2/cross_validation", cvBody)).body);
  });

  it("cross-task lookups are 404; the cancel route takes any task; bad bodies are 422 at submission", async () => {
    const s = testService();
    const post = (path: string, body?: unknown) => s.handle({ method: "POST", path, headers: bearer(KEY_A), body });
    const get = (path: string) => s.handle({ method: "GET", path, headers: bearer(KEY_A) });
    const fc = ((await post("/v2/forecast/async", fcBody)).body as { job_id: string }).job_id;
    expect((await get(`/v2/cross_validation/jobs/${fc}`)).status).toBe(404);
    expect((await get(`/v2/finetune/jobs/${fc}`)).status).toBe(404);
    expect((await post(`/v2/finetune/jobs/${fc}/cancel`)).status).toBe(404);
    const cancelled = await post(`/v2/async/jobs/${fc}/cancel`);
    expect(cancelled.status).toBe(200);
    expect((cancelled.body as { status: string }).status).toBe("cancelled");
    expect((await s.runJobs()).ran).toBe(0);
    const other = await s.handle({ method: "GET", path: `/v2/forecast/jobs/${fc}`, headers: bearer(KEY_B) });
    expect(other.status).toBe(404);
    expect((await post("/v2/forecast/async", { ...fcBody, h: 0 })).status).toBe(422);
    expect((await post("/v2/cross_validation/async", { ...cvBody, n_windows: 500 })).status).toBe(422);
  });

  it("a series too short for the in-sample forecast (add_history) is a 422 at submission, as on the sync route, not a failed job", async () => {
    const s = testService();
    const post = (path: string, body: unknown) => s.handle({ method: "POST", path, headers: bearer(KEY_A), body });
    // at most the horizon (18 months): shorter series get one window on this route (sdk-short-series.test.ts)
    const short = { ...cvBody, series: { y: y.slice(0, 18), sizes: [18] }, full_history: true };
    const sync = await post("/v2/cross_validation", short);
    const submitted = await post("/v2/cross_validation/async", short);
    expect(sync.status).toBe(422);
    expect(submitted.status).toBe(422);
    expect(submitted.body).toEqual(sync.body);
    expect((await s.runJobs()).ran).toBe(0);
  });
});
