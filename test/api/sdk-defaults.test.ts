/**
 * The hosted API's Python SDK called with its defaults (no `model` argument:
 * it sends `timegpt-2.1`), against a host with the SDK preset
 * (`modelAliases: SDK_MODEL_ALIASES`, `quarterlyAndYearly: true`): each body
 * below is what its client (`nixtla/nixtla_client.py`) sends for forecast,
 * cross-validation, both anomaly detections and fine-tuning, with every
 * default, `start_datetime` included (issue 31, "the SDK called with its
 * defaults"). The same bodies are a 422 at `body.model` on a host without
 * the preset.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { SDK_MODEL_ALIASES } from "../../src/api/model-aliases.js";
import { KEY_A, bearer, testService } from "./helpers.js";

const sdkHost = testService({ pipelines: DEFAULT_PIPELINES, modelAliases: SDK_MODEL_ALIASES, quarterlyAndYearly: true });
const plainHost = testService({ pipelines: DEFAULT_PIPELINES });
const post = (service: typeof sdkHost, path: string, body: unknown) => service.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });

// two monthly series (AirPassengers-like), as the SDK packs a dataframe: sorted by id, y and sizes, each series' first date
const sizes = [144, 132]; // the historic forecast (detect_anomalies) needs inputSize + horizon = 114 monthly points
const y = sizes.flatMap((n, i) => Array.from({ length: n }, (_, t) => (100 + 2 * t + 40 * i) * (1 + 0.2 * Math.sin((2 * Math.PI * t) / 12))));
const series = { y, sizes, start_datetime: ["1949-01-01T00:00:00", "1951-01-01T00:00:00"] };

const bodies: Record<string, [string, Record<string, unknown>]> = {
  "forecast(df, h=12)": ["/v2/forecast", {
    series: { ...series, X: null, X_future: null }, model: "timegpt-2.1", h: 12, freq: "MS", clean_ex_first: true, level: null,
    finetune_steps: 0, finetune_depth: 1, finetune_loss: "default", finetuned_model_id: null, feature_contributions: false, multivariate: false,
  }],
  "cross_validation(df, h=12)": ["/v2/cross_validation", {
    series: { ...series, X: null }, model: "timegpt-2.1", h: 12, n_windows: 1, step_size: 12, freq: "MS", clean_ex_first: true, hist_exog: null, level: null,
    finetune_steps: 0, finetune_depth: 1, finetune_loss: "default", finetuned_model_id: null, refit: true, multivariate: false,
  }],
  "detect_anomalies(df)": ["/v2/anomaly_detection", {
    series: { ...series, X: null }, model: "timegpt-2.1", freq: "MS", finetuned_model_id: null, clean_ex_first: true, level: 99, multivariate: false,
  }],
  "detect_anomalies_online(df, h=12, detection_size=24)": ["/v2/online_anomaly_detection", {
    series: { ...series, X: null }, h: 12, detection_size: 24, threshold_method: "univariate", model: "timegpt-2.1", freq: "MS", clean_ex_first: true, level: 99,
    step_size: null, finetune_steps: 0, finetune_loss: "default", finetune_depth: 1, refit: false, hist_exog: null, multivariate: false,
  }],
  "finetune(df)": ["/v2/finetune", {
    series, model: "timegpt-2.1", freq: "MS", finetune_steps: 10, finetune_depth: 1, finetune_loss: "default", output_model_id: null, finetuned_model_id: null,
  }],
};

describe("the SDK's default calls on a host with the SDK preset", () => {
  it("GET /model_params?model=timegpt-2.1&freq=MS (the SDK's first request of every call)", async () => {
    const res = await sdkHost.handle({ method: "GET", path: "/model_params?model=timegpt-2.1&freq=MS", headers: bearer(KEY_A) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ detail: { input_size: 96, horizon: 18 } });
  });

  it.each(Object.keys(bodies))("%s answers 200 without NaN", async (call) => {
    const [path, body] = bodies[call]!;
    const res = await post(sdkHost, path, body);
    expect(res.status).toBe(200);
    const answer = res.body as { mean?: number[]; finetuned_model_id?: string };
    if (answer.mean !== undefined) expect(answer.mean.length > 0 && answer.mean.every(Number.isFinite)).toBe(true);
    else expect(typeof answer.finetuned_model_id).toBe("string");
  });

  it("the fine-tuned model records the model that ran, and the SDK's default forecast uses it", async () => {
    const tuned = await post(sdkHost, "/v2/finetune", { ...bodies["finetune(df)"]![1], output_model_id: "sdk-default" });
    expect(tuned.status).toBe(200);
    const record = await sdkHost.handle({ method: "GET", path: "/v2/finetuned_models/sdk-default", headers: bearer(KEY_A) });
    expect(record.body).toMatchObject({ id: "sdk-default", model: "forecastmodel-2.1", base_model_id: "None", steps: 10 });
    const forecast = await post(sdkHost, "/v2/forecast", { ...bodies["forecast(df, h=12)"]![1], finetuned_model_id: "sdk-default" });
    expect(forecast.status).toBe(200);
  });

  it.each(Object.keys(bodies))("%s: without the preset, a 422 at body.model", async (call) => {
    const [path, body] = bodies[call]!;
    const res = await post(plainHost, path, body);
    expect(res.status).toBe(422);
    expect((res.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc.join("."))).toContain("body.model");
  });
});
