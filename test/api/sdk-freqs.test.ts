/**
 * The frequencies the hosted API's Python SDK test suite sends (issue 31
 * item 5): its pandas aliases are accepted (quarterly and yearly ones when the
 * host sets `quarterlyAndYearly`), and business calendars (`CBH`, custom
 * business hours) are a 422 that says they are not supported.
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

describe("business calendars are refused clearly", () => {
  it.each([
    ["CBH", "custom business hours"], ["BH", "business hours"], ["2BH", "business hours"], ["B", "business days"], ["C", "custom business days"],
    ["CBMS", "custom business month starts"], ["BMS", "business month starts"], ["BQS-DEC", "business quarter starts"], ["BA-DEC", "business year ends"],
  ])("%s is %s, not supported", (alias, words) => {
    expect(parseFreq(alias)).toBeNull();
    expect(freqRefusal(alias)).toBe(
      `'${alias}' is ${words}, which is not supported: steps on a business calendar (business days or hours, custom business calendars) are not evenly spaced in time; send the series at an evenly spaced frequency (e.g. 'h' or 'D')`,
    );
  });

  it("CBH is a 422 at body.freq and query.freq saying custom business hours are not supported (the SDK's test_custom_business_hours)", async () => {
    const res = await post(sdkHost, "/v2/forecast", body("CBH"));
    expect(res.status).toBe(422);
    const item = (res.body as { detail: { type: string; loc: unknown[]; msg: string }[] }).detail[0]!;
    expect(item.type).toBe("literal_error");
    expect(item.loc).toEqual(["body", "freq"]);
    expect(item.msg).toContain("'CBH' is custom business hours, which is not supported");
    const query = await get(sdkHost, "/model_params?model=timegpt-2.1&freq=CBH");
    expect(query.status).toBe(422);
    expect((query.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]).toMatchObject({ loc: ["query", "freq"] });
    expect((query.body as { detail: { msg: string }[] }).detail[0]!.msg).toContain("custom business hours, which is not supported");
  });

  it("other unknown aliases keep their plain refusal", () => {
    expect(freqRefusal("XYZ")).toBe("'XYZ' is not a frequency alias");
    expect(freqRefusal("BX")).toBe("'BX' is not a frequency alias");
  });
});
