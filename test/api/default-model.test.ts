/**
 * The model of a request that names none (docs/api-decisions.md, "model when
 * the body names none"): forecasts and cross-validation at freq H and 30min
 * are served by forecastmodel-1-high-frequency, every other route and
 * frequency by forecastmodel-1.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { KEY_A, bearer, testService } from "./helpers.js";

const service = testService({ pipelines: DEFAULT_PIPELINES });
const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
  const res = await service.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
};
const y = Array.from({ length: 400 }, (_, t) => 50 + 10 * Math.sin((2 * Math.PI * t) / 24) + (Math.floor(t / 24) % 7 >= 5 ? -8 : 0) + ((t * 7919) % 13) / 5);
const series = { y, sizes: [400] };

describe("the default model", () => {
  for (const path of ["/v2/forecast", "/v2/cross_validation"]) {
    it(`${path} at freq h names no model and gets forecastmodel-1-high-frequency's answer`, async () => {
      const extra = path === "/v2/cross_validation" ? { n_windows: 2 } : {};
      const byDefault = await post(path, { series, freq: "h", h: 24, ...extra });
      const hf = await post(path, { series, freq: "h", h: 24, model: "forecastmodel-1-high-frequency", ...extra });
      const fm1 = await post(path, { series, freq: "h", h: 24, model: "forecastmodel-1", ...extra });
      expect(byDefault.mean).toEqual(hf.mean);
      expect(byDefault.mean).not.toEqual(fm1.mean);
    });
  }

  it("daily forecasts and hourly anomaly detection keep forecastmodel-1", async () => {
    const daily = await post("/v2/forecast", { series, freq: "D", h: 7 });
    const dailyFm1 = await post("/v2/forecast", { series, freq: "D", h: 7, model: "forecastmodel-1" });
    expect(daily.mean).toEqual(dailyFm1.mean);
    const anomaly = { series, freq: "H", h: 1, detection_size: 24 };
    const detected = await post("/v2/online_anomaly_detection", anomaly);
    const detectedFm1 = await post("/v2/online_anomaly_detection", { ...anomaly, model: "forecastmodel-1" });
    expect(detected).toEqual(detectedFm1);
  });
});
