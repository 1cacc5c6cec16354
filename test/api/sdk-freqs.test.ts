/**
 * The frequencies the hosted API's Python SDK test suite sends (issue 31
 * item 5): its pandas aliases are accepted (quarterly and yearly ones when the
 * host sets `quarterlyAndYearly`), business calendars (`CBH`, custom
 * business hours; `B`, `BH`, business months) are counted steps with their
 * own seasons, and one with a multiple (`2BH`) is a 422 saying why.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { SDK_MODEL_ALIASES } from "../../src/api/model-aliases.js";
import { freqRefusal, parseFreq } from "../../src/series/freq.js";
import { modelParams } from "../../src/model/config.js";
import { KEY_A, bearer, testService } from "./helpers.js";

const sdkHost = testService({ pipelines: DEFAULT_PIPELINES, modelAliases: SDK_MODEL_ALIASES, quarterlyAndYearly: true });
const plainHost = testService({ pipelines: DEFAULT_PIPELINES });
const post = (service: typeof sdkHost, path: string, body: unknown) => service.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });
const get = (service: typeof sdkHost, path: string) => service.handle({ method: "GET", path, headers: bearer(KEY_A) });

const y = Array.from({ length: 80 }, (_, t) => 20 + 5 * Math.sin((2 * Math.PI * t) / 4) + t / 8);
const body = (freq: string) => ({ series: { y, sizes: [80], X: null, X_future: null }, model: "timegpt-2.1", h: 4, freq, level: [80], clean_ex_first: true, finetune_steps: 0 });

// every alias the SDK's nixtla_tests/nixtla_client and its conftest send, with the class it stands for
const SUITE_ALIASES: [string, string][] = [
  ["D", "D"], ["W-THU", "W"], ["W-MON", "W"], ["W-SUN", "W"], ["W", "W"], ["MS", "M"], ["M", "M"], ["H", "H"], ["h", "H"],
  ["15T", "15min"], ["min", "min"], ["5min", "5min"], ["Q-DEC", "Q"], ["Y", "Y"], ["A-DEC", "Y"],
];

describe("the SDK suite's frequency aliases", () => {
  it.each(SUITE_ALIASES)("%s parses as %s", (alias, name) => {
    expect(parseFreq(alias)?.name).toBe(name);
  });

  it.each(SUITE_ALIASES)("%s: forecast and model_params answer 200 on a host with quarterlyAndYearly", async (alias, name) => {
    const res = await post(sdkHost, "/v2/forecast", body(alias));
    expect(res.status).toBe(200);
    expect((res.body as { mean: number[] }).mean.every(Number.isFinite)).toBe(true);
    const params = await get(sdkHost, `/model_params?model=timegpt-2.1&freq=${encodeURIComponent(alias)}`);
    const p = modelParams("forecastmodel-2.1", name as Parameters<typeof modelParams>[1]);
    expect(params.body).toEqual({ detail: { input_size: p.inputSize, horizon: p.horizon } });
  });

  it("a quarterly forecast on the SDK host equals the core functions' (the alias is the same frequency)", async () => {
    const q = (await post(sdkHost, "/v2/forecast", body("Q-DEC"))).body as { mean: number[] };
    const qs = (await post(sdkHost, "/v2/forecast", body("QS"))).body as { mean: number[] };
    expect(q.mean).toEqual(qs.mean);
  });

  it("without quarterlyAndYearly the service keeps the specification's classes: Q-DEC, A-DEC and Y are 422s naming why", async () => {
    for (const alias of ["Q-DEC", "A-DEC", "Y"]) {
      const res = await post(plainHost, "/v2/forecast", { ...body(alias), model: "forecastmodel-1" });
      expect(res.status).toBe(422);
      const item = (res.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]!;
      expect(item.loc).toEqual(["body", "freq"]);
      expect(item.msg).toContain("which only the core functions accept");
    }
  });
});

describe("business calendars", () => {
  it.each([
    ["B", "B", "D", [5]], ["C", "C", "D", [5]], ["BH", "BH", "H", [8, 40]], ["CBH", "CBH", "H", []],
    ["CBMS", "M", "M", [12]], ["BMS", "M", "M", [12]], ["BQS-DEC", "Q", "Q", [4]], ["BA-DEC", "Y", "Y", []],
  ] as const)("%s is accepted as %s (class %s, seasons %j)", (alias, name, modelFreq, seasons) => {
    const info = parseFreq(alias)!;
    expect(info).toMatchObject({ name, modelFreq });
    expect(info.seasons).toEqual(seasons);
    expect(freqRefusal(alias)).toBeNull();
  });

  it.each([["2BH", "business hours"], ["3B", "business days"], ["2CBMS", "custom business month starts"]])("%s (%s with a multiple) is refused, saying why", (alias, words) => {
    expect(parseFreq(alias)).toBeNull();
    expect(freqRefusal(alias)).toBe(`'${alias}' is ${words} with a multiple, which is not supported: a business calendar is one step at a time (B, C, BH, CBH, BMS, BQS-DEC, …)`);
  });

  it("business days and hours read their own seasons: B a week of 5 (a season the network does not know: 1), BH a day of 8; the horizons are the class's", () => {
    expect(modelParams("forecastmodel-1", "B")).toEqual({ ...modelParams("forecastmodel-1", "D"), seasonLength: 1 });
    expect(modelParams("forecastmodel-1", "BH")).toEqual({ ...modelParams("forecastmodel-1", "H"), seasonLength: 1 });
    expect(modelParams("forecastmodel-1", "CBH")).toEqual({ ...modelParams("forecastmodel-1", "H"), seasonLength: 1 });
    expect(modelParams("forecastmodel-1-high-frequency", "BH").seasonLength).toBe(8);
  });

  it("CBH: forecast, cross-validation, anomaly detection and model_params answer on the SDK host (the SDK's test_custom_business_hours)", async () => {
    // 7 open hours a day, 5 days a week: the SDK's fixture shape; the steps are counted, the closed hours are no gap
    const yb = Array.from({ length: 7 * 5 * 8 }, (_, t) => 50 + 10 * Math.sin((2 * Math.PI * t) / 7) + ((t * 13) % 5));
    const series = { y: yb, sizes: [yb.length], X: null, X_future: null };
    const fc = await post(sdkHost, "/v2/forecast", { ...body("CBH"), series, h: 7 });
    expect(fc.status).toBe(200);
    expect((fc.body as { mean: number[] }).mean).toHaveLength(7);
    const cv = await post(sdkHost, "/v2/cross_validation", { series, model: "timegpt-2.1", h: 7, n_windows: 1, freq: "CBH" });
    expect(cv.status).toBe(200);
    const an = await post(sdkHost, "/v2/anomaly_detection", { series, model: "timegpt-2.1", freq: "CBH", level: [90] });
    expect(an.status).toBe(200);
    const params = await get(sdkHost, "/model_params?model=timegpt-2.1&freq=CBH");
    const p = modelParams("forecastmodel-2.1", "CBH");
    expect(params.body).toEqual({ detail: { input_size: p.inputSize, horizon: p.horizon } });
  });

  it("a 2BH body is a 422 at body.freq that names the reason and lists the business calendars among the accepted", async () => {
    const res = await post(sdkHost, "/v2/forecast", body("2BH"));
    expect(res.status).toBe(422);
    const item = (res.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]!;
    expect(item.loc).toEqual(["body", "freq"]);
    expect(item.msg).toContain("'2BH' is business hours with a multiple");
    expect(item.msg).toContain("business calendars BH, CBH, B, C, BMS, CBME, BQS-DEC, BA-DEC, …");
  });

  it("other unknown aliases keep their plain refusal", () => {
    expect(freqRefusal("XYZ")).toBe("'XYZ' is not a frequency alias");
    expect(freqRefusal("BX")).toBe("'BX' is not a frequency alias");
    expect(freqRefusal("BQS-XYZ")).toBe("'BQS-XYZ' is not a frequency alias");
  });
});
