/**
 * Conformance with docs/contract.md, one test per rule: status codes, body shapes
 * and headers of every route. Pipelines are stand-ins (test/api/helpers.ts) so
 * only the API layer is under test.
 */
import { describe, expect, it } from "vitest";
import type { ServiceRequest, ServiceResponse } from "../../src/api/service.js";
import { ErrorCollector, INVALID, validateAgainst } from "../../src/api/schema-validator.js";
import {
  ANOMALY_RESPONSE_SCHEMA,
  API_ERROR_SCHEMA,
  FINETUNE_RESPONSE_SCHEMA,
  FINETUNED_MODEL_LIST_SCHEMA,
  FINETUNED_MODEL_SCHEMA,
  FORECAST_RESPONSE_SCHEMA,
  JOB_STATUS_SCHEMA,
  LEGACY_RESPONSE_SCHEMA,
} from "../../src/api/schemas.js";
import type { ApiObjectSchema } from "../../src/api/schema-validator.js";
import { HORIZON_WARNING, KEY_A, KEY_B, KEY_POOR, bearer, smallSeries, testService } from "./helpers.js";

const ERROR_401 = { data: null, message: "Invalid API key", details: "Key not found", code: "A12" };

function conforms(schema: ApiObjectSchema, body: unknown): void {
  const c = new ErrorCollector();
  const r = validateAgainst(schema, body, ["response"], c);
  expect(c.items).toEqual([]);
  expect(r).not.toBe(INVALID);
}

const post = (path: string, body: unknown, headers: ServiceRequest["headers"] = bearer(KEY_A)): ServiceRequest => ({ method: "POST", path, headers, body });
const get = (path: string, headers: ServiceRequest["headers"] = bearer(KEY_A)): ServiceRequest => ({ method: "GET", path, headers });

const forecastBody = { series: smallSeries, freq: "D", h: 3, level: [80, 97.5] };
const anomalyBody = { series: smallSeries, freq: "D", h: 2, detection_size: 2 };
const historicSeries = { y: Array.from({ length: 120 }, (_, t) => 10 + (t % 7)), sizes: [120] };
const historicBody = { series: historicSeries, freq: "D", level: [90] };
const finetuneBody = { series: smallSeries, freq: "D", finetune_steps: 4 };

async function call(req: ServiceRequest, service = testService()): Promise<ServiceResponse> {
  const res = await service.handle(req);
  expect(() => JSON.stringify(res.body)).not.toThrow();
  return res;
}

describe("section 2: routes", () => {
  it("POST /v2/forecast: 200 forecast result", async () => {
    const res = await call(post("/v2/forecast", forecastBody));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    conforms(FORECAST_RESPONSE_SCHEMA, res.body);
    expect(Object.keys(res.body as object)).toEqual(["input_tokens", "output_tokens", "finetune_tokens", "mean", "sizes", "intervals", "weights_x", "feature_contributions"]);
    expect((res.body as { mean: number[] }).mean).toHaveLength(6);
  });

  it("POST /v2/online_anomaly_detection: 200 anomaly result", async () => {
    const res = await call(post("/v2/online_anomaly_detection", anomalyBody));
    expect(res.status).toBe(200);
    conforms(ANOMALY_RESPONSE_SCHEMA, res.body);
    expect(res.body).toMatchObject({ sizes: [2, 2], idxs: [2, 3, 8, 9] });
  });

  it("POST /v2/historic_forecast: 200 with header deprecation: true", async () => {
    const res = await call(post("/v2/historic_forecast", historicBody));
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe("true");
    conforms(FORECAST_RESPONSE_SCHEMA, res.body);
  });

  it("only historic forecast carries the deprecation header", async () => {
    expect((await call(post("/v2/forecast", forecastBody))).headers.deprecation).toBeUndefined();
  });

  it("POST /v2/finetune: {input_tokens, output_tokens, finetune_tokens, finetuned_model_id}", async () => {
    const res = await call(post("/v2/finetune", { ...finetuneBody, output_model_id: "mine" }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ input_tokens: 10, output_tokens: 0, finetune_tokens: 8, finetuned_model_id: "mine" });
    conforms(FINETUNE_RESPONSE_SCHEMA, res.body);
  });

  it("POST /v2/finetune without output_model_id generates an id matching the id pattern", async () => {
    const res = await call(post("/v2/finetune", finetuneBody));
    expect((res.body as { finetuned_model_id: string }).finetuned_model_id).toMatch(/^[a-zA-Z0-9\-_]{1,36}$/);
  });

  it("POST /v2/finetune/async: {job_id} with ft- and 32 hex; runJobs runs it", async () => {
    const s = testService();
    const res = await call(post("/v2/finetune/async", finetuneBody), s);
    expect(res.status).toBe(200);
    const jobId = (res.body as { job_id: string }).job_id;
    expect(res.body).toEqual({ job_id: expect.stringMatching(/^ft-[0-9a-f]{32}$/) });
    expect(await s.runJobs()).toEqual({ ran: 1, succeeded: 1, failed: 0 });
    const status = await call(get(`/v2/finetune/jobs/${jobId}`), s);
    expect(status.status).toBe(200);
    conforms(JOB_STATUS_SCHEMA, status.body);
    expect(status.body).toMatchObject({ job_id: jobId, status: "succeeded", error: null });
  });

  it("GET /v2/finetuned_models, GET one, DELETE one (204)", async () => {
    const s = testService();
    await call(post("/v2/finetune", { ...finetuneBody, output_model_id: "m-1" }), s);
    const list = await call(get("/v2/finetuned_models"), s);
    expect(list.status).toBe(200);
    conforms(FINETUNED_MODEL_LIST_SCHEMA, list.body);
    const one = await call(get("/v2/finetuned_models/m-1"), s);
    expect(one.status).toBe(200);
    conforms(FINETUNED_MODEL_SCHEMA, one.body);
    const del = await call({ method: "DELETE", path: "/v2/finetuned_models/m-1", headers: bearer(KEY_A) }, s);
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    expect((await call(get("/v2/finetuned_models/m-1"), s)).status).toBe(404);
  });

  it("POST /forecastmodel: the older form's envelope", async () => {
    const df = [
      { ds: "2026-01-01", y: 1 },
      { ds: "2026-01-02", y: 2 },
      { ds: "2026-01-03", y: 3 },
    ];
    const res = await call(post("/forecastmodel", { df, h: 2 }, { "x-api-key": KEY_A }));
    expect(res.status).toBe(200);
    conforms(LEGACY_RESPONSE_SCHEMA, res.body);
    expect(res.body).toEqual({
      status: 200,
      data: { timestamp: ["2026-01-04", "2026-01-05"], value: [3, 3], input_tokens: 3, output_tokens: 2, finetune_tokens: 0 },
      message: "success",
      details: "request successful",
      code: "B10",
      requestID: res.headers["x-request-id"],
      support: expect.any(String),
    });
  });

  it("GET /openapi.json needs no key: OpenAPI 3.1, version 0.4.6", async () => {
    const res = await call({ method: "GET", path: "/openapi.json" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./), info: { version: "0.4.6" } });
  });

  it("unknown path: 404 {detail: 'Not Found'}", async () => {
    for (const path of ["/v3/forecast", "/v2/forecast/", "/", "", "v2/forecast", "/v2/finetuned_models/a/b"]) {
      const res = await call(post(path, forecastBody));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Not Found" });
    }
  });

  it("known path, wrong method: 405 with an allow header", async () => {
    const res = await call(get("/v2/forecast"));
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: "Method Not Allowed" });
    expect(res.headers.allow).toBe("POST");
    expect((await call({ method: "PUT", path: "/v2/finetuned_models/x", headers: bearer(KEY_A) })).headers.allow).toBe("GET, DELETE");
  });

  it("the query string is ignored", async () => {
    expect((await call(post("/v2/forecast?verbose=1", forecastBody))).status).toBe(200);
  });
});

describe("section 1: handle", () => {
  it("header names match case-insensitively", async () => {
    expect((await call(post("/v2/forecast", forecastBody, { AUTHORIZATION: `Bearer ${KEY_A}` }))).status).toBe(200);
    expect((await call(post("/forecastmodel", { df: [{ ds: "2026-01-01", y: 1 }, { ds: "2026-01-02", y: 1 }], h: 1 }, { "X-Api-Key": KEY_A }))).status).toBe(200);
  });

  it("body may be a JSON string, bytes or a parsed value, with the same result", async () => {
    const text = JSON.stringify(forecastBody);
    const bodies = [text, new TextEncoder().encode(text), new TextEncoder().encode(text).buffer, forecastBody];
    const results = await Promise.all(bodies.map(async (b) => JSON.stringify((await call(post("/v2/forecast", b))).body)));
    expect(new Set(results).size).toBe(1);
  });

  it("malformed JSON: 422 json_invalid", async () => {
    const res = await call(post("/v2/forecast", '{"series": [1, 2'));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ type: "json_invalid", loc: ["body", 16], msg: "JSON decode error", input: {}, ctx: { error: "Expecting ',' delimiter" } }] });
  });

  it("a missing body: 422 missing at ['body']", async () => {
    const res = await call(post("/v2/forecast", undefined));
    expect(res.body).toEqual({ detail: [{ type: "missing", loc: ["body"], msg: "Field required", input: null }] });
  });
});

describe("section 3: request bodies", () => {
  it("defaults: anomaly level 99 gives lo-99/hi-99", async () => {
    const res = await call(post("/v2/online_anomaly_detection", anomalyBody));
    expect(Object.keys((res.body as { intervals: object }).intervals)).toEqual(["lo-99", "hi-99"]);
  });

  it("interval keys write L as given (lo-97.5)", async () => {
    const res = await call(post("/v2/forecast", forecastBody));
    expect(Object.keys((res.body as { intervals: object }).intervals)).toEqual(["lo-80", "hi-80", "lo-97.5", "hi-97.5"]);
  });

  it("freq Q is refused at the API", async () => {
    const res = await call(post("/v2/forecast", { ...forecastBody, freq: "Q" }));
    expect(res.status).toBe(422);
    expect((res.body as { detail: { type: string }[] }).detail[0]?.type).toBe("literal_error");
  });

  it("unknown properties are ignored", async () => {
    const a = await call(post("/v2/forecast", forecastBody));
    const b = await call(post("/v2/forecast", { ...forecastBody, colour: "blue", nested: { deep: [1] } }));
    expect(b.body).toEqual(a.body);
  });

  it("ids must match ^[a-zA-Z0-9\\-_]{1,36}$", async () => {
    const res = await call(post("/v2/finetune", { ...finetuneBody, output_model_id: "a".repeat(37) }));
    expect((res.body as { detail: { type: string }[] }).detail[0]?.type).toBe("string_pattern_mismatch");
    const path = await call(get("/v2/finetuned_models/bad%20id"));
    expect(path.status).toBe(422);
    expect((path.body as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["path", "finetuned_model_id"]);
  });
});

describe("section 4: semantics at the API", () => {
  it("h beyond the model horizon: 200 with warning: 299 - \"...\"", async () => {
    const res = await call(post("/v2/forecast", { ...forecastBody, h: 20 }));
    expect(res.status).toBe(200);
    expect(res.headers.warning).toBe(`299 - "${HORIZON_WARNING}"`);
    expect(res.headers.warning).toMatch(/^299 - "The specified horizon h exceeds the model horizon/);
    expect(res.body).not.toHaveProperty("warnings");
  });

  it("no warning header within the horizon", async () => {
    expect((await call(post("/v2/forecast", forecastBody))).headers.warning).toBeUndefined();
  });

  it("input_tokens counts y, every X and every X_future value", async () => {
    const body = { series: { ...smallSeries, X: [smallSeries.y, smallSeries.y] }, freq: "D", h: 3, X_future: [[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]] };
    const res = await call(post("/v2/forecast", body));
    expect((res.body as { input_tokens: number }).input_tokens).toBe(10 + 20 + 12);
  });

  it("output_tokens counts the numbers of per-row arrays (mean and each interval array)", async () => {
    const res = await call(post("/v2/forecast", forecastBody));
    expect((res.body as { output_tokens: number }).output_tokens).toBe(6 * (1 + 4));
    const an = await call(post("/v2/online_anomaly_detection", anomalyBody));
    expect((an.body as { output_tokens: number }).output_tokens).toBe(4 * (4 + 2));
  });

  it("finetune_tokens = finetune_steps × number of series", async () => {
    const res = await call(post("/v2/forecast", { ...forecastBody, finetune_steps: 7 }));
    expect((res.body as { finetune_tokens: number }).finetune_tokens).toBe(14);
  });

  it("identical requests give byte-identical bodies", async () => {
    const s = testService();
    const a = JSON.stringify((await s.handle(post("/v2/forecast", forecastBody))).body);
    const b = JSON.stringify((await s.handle(post("/v2/forecast", forecastBody))).body);
    expect(a).toBe(b);
  });

  it("an infinite value is a 422 naming its position; null and NaN are missing values of a forecast (issue 31), filled, not refused", async () => {
    const res = await call(post("/v2/forecast", { ...forecastBody, series: { y: [1, 2, null, 4, NaN, 6, 7, 8, Infinity, 10], sizes: [4, 6] } }));
    expect(res.status).toBe(422);
    expect((res.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([["body", "series", "y", 8]]);
    const gaps = await call(post("/v2/forecast", { ...forecastBody, series: { y: [1, 2, null, 4, NaN, 6, 7, 8, 9, 10], sizes: [4, 6] } }));
    expect(gaps.status).toBe(200);
    // the historic forecast and online anomaly detection read them the same way (issue 31); an infinity stays a 422 at its position
    const y = Array.from({ length: 120 }, (_, t) => 10 + (t % 7));
    for (const path of ["/v2/historic_forecast", "/v2/online_anomaly_detection"]) {
      const body = (values: (number | null)[]) => ({ series: { y: values, sizes: [120] }, freq: "D", ...(path === "/v2/historic_forecast" ? {} : { h: 7, detection_size: 7, level: 95 }) });
      const filled = await call(post(path, body(y.map((v, t) => (t === 30 ? null : v)))));
      expect(filled.status).toBe(200);
      const refused = await call(post(path, body(y.map((v, t) => (t === 30 ? Infinity : v)))));
      expect(refused.status).toBe(422);
      expect((refused.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([["body", "series", "y", 30]]);
    }
  });
});

describe("section 5: 422 items", () => {
  const cases: [string, Record<string, unknown>, string, (string | number)[]][] = [
    ["missing", { series: smallSeries, h: 1 }, "missing", ["body", "freq"]],
    ["int_type for a string", { ...forecastBody, h: "3" }, "int_type", ["body", "h"]],
    ["int_type for 1.5", { ...forecastBody, h: 1.5 }, "int_type", ["body", "h"]],
    ["float_type for a boolean", { ...forecastBody, level: [true] }, "float_type", ["body", "level", 0]],
    ["bool_type for 'true'", { ...forecastBody, clean_ex_first: "true" }, "bool_type", ["body", "clean_ex_first"]],
    ["string_type", { ...forecastBody, finetuned_model_id: 5 }, "string_type", ["body", "finetuned_model_id"]],
    ["list_type", { ...forecastBody, series: { y: 5, sizes: [1] } }, "list_type", ["body", "series", "y"]],
    ["dict_type", { ...forecastBody, model_parameters: [1] }, "dict_type", ["body", "model_parameters"]],
    ["model_attributes_type (series not an object)", { ...forecastBody, series: [1] }, "model_attributes_type", ["body", "series"]],
    ["greater_than", { ...forecastBody, h: 0 }, "greater_than", ["body", "h"]],
    ["greater_than_equal", { ...forecastBody, finetune_steps: -1 }, "greater_than_equal", ["body", "finetune_steps"]],
    ["less_than (level 100)", { ...forecastBody, level: [100] }, "less_than", ["body", "level", 0]],
    ["literal_error", { ...forecastBody, finetune_loss: "huber" }, "literal_error", ["body", "finetune_loss"]],
    ["string_pattern_mismatch", { ...forecastBody, finetuned_model_id: "no spaces" }, "string_pattern_mismatch", ["body", "finetuned_model_id"]],
    ["too_short (level [])", { ...forecastBody, level: [] }, "too_short", ["body", "level"]],
    ["value_error (sizes)", { ...forecastBody, series: { y: [1, 2], sizes: [3] } }, "value_error", ["body", "series", "sizes"]],
    ["value_error (X length)", { ...forecastBody, series: { y: [1, 2], sizes: [2], X: [[1]] }, X_future: [[1, 2, 3]] }, "value_error", ["body", "series", "X", 0]],
  ];
  it.each(cases)("%s", async (_name, body, type, loc) => {
    const res = await call(post("/v2/forecast", body));
    expect(res.status).toBe(422);
    const detail = (res.body as { detail: { type: string; loc: unknown[]; msg: string }[] }).detail;
    expect(detail[0]).toMatchObject({ type, loc });
    expect(typeof detail[0]?.msg).toBe("string");
  });

  it("json_invalid", async () => {
    expect(((await call(post("/v2/forecast", "{"))).body as { detail: { type: string }[] }).detail[0]?.type).toBe("json_invalid");
  });

  it("value_error from a rule across fields (series too short), before any pipeline runs", async () => {
    const res = await call(post("/v2/historic_forecast", { series: { y: [1, 2], sizes: [2] }, freq: "D" }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [
        {
          type: "value_error",
          loc: ["body", "series", "sizes", 0],
          msg: "Value error, series 0 has 2 observation(s); the historic forecast with forecastmodel-1 at freq D needs at least inputSize + horizon = 96 + 14 = 110 per series",
          input: 2,
        },
      ],
    });
  });

  it("value_error naming a limit", async () => {
    const s = testService({ limits: { maxValues: 5 } });
    const res = await call(post("/v2/forecast", forecastBody), s);
    expect(res.status).toBe(422);
    expect((res.body as { detail: { msg: string }[] }).detail[0]?.msg).toContain("limits.maxValues");
    const big = await call(post("/v2/forecast", { ...forecastBody, h: 10_001 }));
    expect((big.body as { detail: { msg: string }[] }).detail[0]?.msg).toContain("limits.maxHorizon");
    const bytes = await call(post("/v2/forecast", JSON.stringify(forecastBody)), testService({ limits: { maxBodyBytes: 10 } }));
    expect((bytes.body as { detail: { msg: string }[] }).detail[0]?.msg).toContain("limits.maxBodyBytes");
  });

  it("all field errors of a request at once", async () => {
    const res = await call(post("/v2/forecast", { series: { y: ["a"], sizes: ["b"] }, freq: 1, h: -1 }));
    expect((res.body as { detail: unknown[] }).detail).toHaveLength(4);
  });
});

describe("section 5: keys", () => {
  const cases: [string, ServiceRequest["headers"]][] = [
    ["missing header", {}],
    ["no headers at all", undefined],
    ["wrong scheme", { authorization: `Basic ${KEY_A}` }],
    ["x-api-key on a /v2 route", { "x-api-key": KEY_A }],
    ["unknown key", bearer("key-unknown")],
    ["a prefix of a key", bearer(KEY_A.slice(0, -1))],
    ["a key with a suffix", bearer(`${KEY_A}x`)],
    ["empty bearer", { authorization: "Bearer " }],
  ];
  it.each(cases)("401 for %s, body exactly as the contract", async (_name, headers) => {
    const res = await call({ method: "POST", path: "/v2/forecast", headers, body: forecastBody });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ...ERROR_401, requestID: res.headers["x-request-id"], support: expect.any(String) });
    conforms(API_ERROR_SCHEMA, res.body);
  });

  it("401 on the older form without x-api-key (a bearer header does not count)", async () => {
    const res = await call(post("/forecastmodel", { df: [], h: 1 }, bearer(KEY_A)));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject(ERROR_401);
  });

  it("401 comes before validation (checked before any work)", async () => {
    expect((await call(post("/v2/forecast", "{not json", {}))).status).toBe(401);
  });

  it("the bearer scheme is case-insensitive", async () => {
    expect((await call(post("/v2/forecast", forecastBody, { authorization: `bearer ${KEY_A}` }))).status).toBe(200);
  });

  it("a key never appears in a response", async () => {
    for (const req of [post("/v2/forecast", forecastBody), post("/v2/forecast", { bad: 1 }), post("/v2/forecast", forecastBody, bearer(`${KEY_A}zz`))]) {
      const res = await call(req);
      expect(JSON.stringify(res)).not.toContain(KEY_A);
    }
  });

  it("every GET route needs the key too", async () => {
    for (const path of ["/v2/finetuned_models", "/v2/finetuned_models/x", "/v2/finetune/jobs/ft-00000000000000000000000000000000"]) {
      expect((await call(get(path, {}))).status).toBe(401);
    }
  });
});

describe("section 5: credits", () => {
  it("429 A21 once an account without a payment method has no credits left; tokens are charged", async () => {
    const s = testService();
    const first = await call(post("/v2/forecast", forecastBody, bearer(KEY_POOR)), s); // 10 + 30 tokens > 30 credits
    expect(first.status).toBe(200);
    const second = await call(post("/v2/forecast", forecastBody, bearer(KEY_POOR)), s);
    expect(second.status).toBe(429);
    expect(second.body).toEqual({
      data: null,
      message: "Too many requests",
      details: expect.stringContaining("payment method"),
      code: "A21",
      requestID: second.headers["x-request-id"],
      support: expect.any(String),
    });
  });

  it("a 422 costs nothing", async () => {
    const s = testService();
    for (let i = 0; i < 3; i++) expect((await call(post("/v2/forecast", { bad: 1 }, bearer(KEY_POOR)), s)).status).toBe(422);
    expect((await call(post("/v2/forecast", forecastBody, bearer(KEY_POOR)), s)).status).toBe(200);
  });

  it("with a payment method an account goes on past its credits", async () => {
    const s = testService({ accounts: [{ id: "paying", apiKeys: ["k-paying"], credits: 1, hasPaymentMethod: true }] });
    for (let i = 0; i < 3; i++) expect((await call(post("/v2/forecast", forecastBody, bearer("k-paying")), s)).status).toBe(200);
  });

  it("accounts are charged separately", async () => {
    const s = testService();
    await call(post("/v2/forecast", forecastBody, bearer(KEY_POOR)), s);
    expect((await call(post("/v2/forecast", forecastBody, bearer(KEY_B)), s)).status).toBe(200);
  });
});

describe("section 6: the older form", () => {
  const legacy = (df: { ds: string; y: number }[], h = 2) => call(post("/forecastmodel", { df, h }, { "x-api-key": KEY_A }));
  const rows = (ds: string[]) => ds.map((d, i) => ({ ds: d, y: i }));

  it.each([
    ["H", ["2026-03-01 22:00:00", "2026-03-01 23:00:00"], ["2026-03-02 00:00:00", "2026-03-02 01:00:00"]],
    ["D", ["2024-02-27", "2024-02-28"], ["2024-02-29", "2024-03-01"]],
    ["W", ["2026-01-05", "2026-01-12"], ["2026-01-19", "2026-01-26"]],
    ["M (day of month)", ["2026-11-15", "2026-12-15"], ["2027-01-15", "2027-02-15"]],
    ["M (month ends)", ["2026-01-31", "2026-02-28"], ["2026-03-31", "2026-04-30"]],
  ])("infers %s and writes future timestamps in the input's format", async (_f, ds, future) => {
    const res = await legacy(rows(ds));
    expect(res.status).toBe(200);
    expect((res.body as { data: { timestamp: string[] } }).data.timestamp).toEqual(future);
  });

  it.each([
    ["duplicate", ["2026-01-01", "2026-01-02", "2026-01-02"], 2, "duplicates"],
    ["gap", ["2026-01-01", "2026-01-02", "2026-01-04"], 2, "gap"],
    ["irregular", ["2026-01-01 00:00:00", "2026-01-01 01:00:00", "2026-01-01 02:30:00"], 2, "irregular"],
    ["not a date", ["2026-01-01", "2026-02-30"], 1, "not a valid timestamp"],
    ["wrong layout", ["2026-01-01", "2026-1-2"], 1, "not a valid timestamp"],
    ["mixed formats", ["2026-01-01", "2026-01-02 00:00:00"], 1, "format"],
    ["unsorted and gapped", ["2026-01-05", "2026-01-01", "2026-01-02"], 0, "gap"],
  ])("%s: 422 naming the offending index", async (_name, ds, index, words) => {
    const res = await legacy(rows(ds));
    expect(res.status).toBe(422);
    const item = (res.body as { detail: { type: string; loc: unknown[]; msg: string }[] }).detail[0];
    expect(item?.type).toBe("value_error");
    expect(item?.loc).toEqual(["body", "df", index, "ds"]);
    expect(item?.msg).toContain(words);
    expect(item?.msg).toContain(`df[${index}]`);
  });

  it("quarterly and yearly rows stay a 422 in the older form (its inference is hourly to monthly; the records API reads them)", async () => {
    for (const ds of [["2025-01-01", "2025-04-01", "2025-07-01"], ["2023-01-01", "2024-01-01", "2025-01-01"]]) {
      const res = await legacy(rows(ds));
      expect(res.status).toBe(422);
      expect((res.body as { detail: { msg: string }[] }).detail[0]?.msg).toMatch(/cannot infer the frequency.*hourly, daily, weekly, monthly$/);
    }
  });

  it("unsorted but regular rows are sorted by time", async () => {
    const res = await legacy([
      { ds: "2026-01-02", y: 2 },
      { ds: "2026-01-01", y: 1 },
      { ds: "2026-01-03", y: 7 },
    ]);
    expect(res.status).toBe(200);
    expect((res.body as { data: { value: number[] } }).data.value).toEqual([7, 7]);
  });

  it("field errors of the older form are pydantic items", async () => {
    const res = await call(post("/forecastmodel", { df: [{ ds: 1, y: "x" }], h: 0 }, { "x-api-key": KEY_A }));
    expect((res.body as { detail: { type: string }[] }).detail.map((d) => d.type)).toEqual(["string_type", "float_type", "greater_than"]);
  });
});

describe("section 5: fine-tuned model ownership", () => {
  it("another account gets the same 404 as an unknown id, for read, delete and use", async () => {
    const s = testService();
    await call(post("/v2/finetune", { ...finetuneBody, output_model_id: "acme-model" }), s);
    const notFound = { detail: "Finetuned model not found" };
    for (const req of [
      get("/v2/finetuned_models/acme-model", bearer(KEY_B)),
      { method: "DELETE", path: "/v2/finetuned_models/acme-model", headers: bearer(KEY_B) },
      post("/v2/forecast", { ...forecastBody, finetuned_model_id: "acme-model" }, bearer(KEY_B)),
      get("/v2/finetuned_models/never-made"),
      post("/v2/forecast", { ...forecastBody, finetuned_model_id: "never-made" }),
    ]) {
      const res = await call(req, s);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound);
    }
    expect((await call(get("/v2/finetuned_models", bearer(KEY_B)), s)).body).toEqual({ finetuned_models: [] });
    expect((await call(get("/v2/finetuned_models/acme-model"), s)).status).toBe(200);
  });

});
