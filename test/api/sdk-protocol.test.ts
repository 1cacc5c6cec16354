/**
 * Requests a dataframe SDK of the hosted API sends besides the forecasting
 * bodies (read from its public client source; part of issue 14): GET
 * /model_params with `model` and a pandas frequency alias, answered
 * `{"detail": {"input_size", "horizon"}}`; GET /validate_api_key, 200 or 401
 * with a `detail` text either way.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acceptedFreqAliases, freqFromAlias } from "../../src/api/freq.js";
import { modelParams } from "../../src/model/config.js";
import type { Freq, ModelName } from "../../src/types.js";
import { KEY_A, bearer, testService } from "./helpers.js";

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
    for (const alias of ["min", "QS-DEC", "YS"]) {
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
