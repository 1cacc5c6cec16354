/**
 * GET /openapi.json: a valid OpenAPI 3.1 document (checked by
 * @seriousme/openapi-schema-validator), every route described, every example
 * request accepted by the library's own validation and by the service.
 */
import { historicAnomalyBody } from "../../src/api/historic-anomaly.js";
import { crossValidationShape } from "../../src/api/cross-validation.js";
import { describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { OPENAPI_EXAMPLES } from "../../src/api/openapi.js";
import { openApiDocument } from "../../src/api/routes.js";
import { DEFAULT_SERVICE_LIMITS, validateEndpointBody } from "../../src/api/requests.js";
import { ErrorCollector, INVALID, validateAgainst } from "../../src/api/schema-validator.js";
import { LEGACY_REQUEST_SCHEMA } from "../../src/api/schemas.js";
import { KEY_A, bearer, testService } from "./helpers.js";

type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, { deprecated?: boolean; security?: unknown[]; requestBody?: { content: Record<string, { examples: Record<string, { value: unknown }> }> } }>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
};

const doc = openApiDocument() as unknown as Doc;

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("the validator rejects a broken document (the check has teeth)", async () => {
    const broken = openApiDocument() as Record<string, unknown>;
    delete (broken.info as Record<string, unknown>).title;
    (broken.paths as Record<string, unknown>)["/v2/forecast"] = { post: { responses: "nope" } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("info.version is 0.4.6 and the service serves the same document", async () => {
    expect(doc.info.version).toBe("0.4.6");
    const res = await testService().handle({ method: "GET", path: "/openapi.json" });
    expect(res.body).toEqual(doc);
  });

  it("describes every route, and historic forecast is deprecated", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/forecastmodel",
        "/model_params",
        "/openapi.json",
        "/usage",
        "/validate_api_key",
        "/v2/anomaly_detection",
        "/v2/async/jobs/{job_id}/cancel",
        "/v2/cross_validation",
        "/v2/cross_validation/async",
        "/v2/cross_validation/jobs/{job_id}",
        "/v2/forecast/async",
        "/v2/forecast/jobs/{job_id}",
        "/v2/finetune",
        "/v2/finetune/async",
        "/v2/finetune/jobs/{job_id}",
        "/v2/finetune/jobs/{job_id}/cancel",
        "/v2/finetuned_models",
        "/v2/finetuned_models/{finetuned_model_id}",
        "/v2/forecast",
        "/v2/historic_forecast",
        "/v2/online_anomaly_detection",
      ].sort(),
    );
    expect(Object.keys(doc.paths["/v2/finetuned_models/{finetuned_model_id}"] ?? {}).sort()).toEqual(["delete", "get"]);
    const deprecated = Object.entries(doc.paths).filter(([, ops]) => Object.values(ops).some((op) => op.deprecated === true));
    expect(deprecated.map(([p]) => p)).toEqual(["/v2/historic_forecast"]);
  });

  it("has bearer and x-api-key security schemes, used by the right routes", () => {
    expect(doc.components.securitySchemes).toMatchObject({
      HTTPBearer: { type: "http", scheme: "bearer" },
      APIKeyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
    });
    expect(doc.paths["/forecastmodel"]?.post?.security).toEqual([{ APIKeyHeader: [] }]);
    expect(doc.paths["/openapi.json"]?.get?.security).toEqual([]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith("/v2/")) for (const op of Object.values(ops)) expect(op.security).toEqual([{ HTTPBearer: [] }]);
    }
  });

  it("every $ref points at a component", () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([A-Za-z]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThan(10);
    for (const name of refs) expect(Object.keys(doc.components.schemas)).toContain(name);
  });

  const examples = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) =>
      Object.entries(op.requestBody?.content["application/json"]?.examples ?? {}).map(([name, ex]) => [`${method.toUpperCase()} ${path} (${name})`, path, ex.value] as const),
    ),
  );

  it("has an example for every route with a body", () => {
    expect(examples.map(([name]) => name.split(" (")[0]).sort()).toEqual(
      ["POST /forecastmodel", "POST /v2/anomaly_detection", "POST /v2/cross_validation", "POST /v2/cross_validation/async", "POST /v2/forecast/async", "POST /v2/finetune", "POST /v2/finetune/async", "POST /v2/forecast", "POST /v2/historic_forecast", "POST /v2/online_anomaly_detection"].sort(),
    );
  });

  it.each(examples)("example %s passes the library's own validation", (_name, path, value) => {
    if (path === "/forecastmodel") {
      const c = new ErrorCollector();
      expect(validateAgainst(LEGACY_REQUEST_SCHEMA, value, ["body"], c)).not.toBe(INVALID);
      return;
    }
    if (path === "/v2/anomaly_detection") {
      const mapped = historicAnomalyBody(value);
      expect(mapped.errors).toEqual([]);
      expect(() => validateEndpointBody("historic", mapped.body, { core: false, limits: DEFAULT_SERVICE_LIMITS })).not.toThrow();
      return;
    }
    if (path === "/v2/cross_validation" || path === "/v2/cross_validation/async") {
      expect(crossValidationShape(value).errors).toEqual([]);
      return;
    }
    const endpoint = path === "/v2/forecast" || path === "/v2/forecast/async" ? "forecast" : path === "/v2/online_anomaly_detection" ? "anomaly" : path === "/v2/historic_forecast" ? "historic" : "finetune";
    expect(() => validateEndpointBody(endpoint, value, { core: false, limits: DEFAULT_SERVICE_LIMITS })).not.toThrow();
  });

  it.each(examples)("example %s is answered 200 by the service", async (_name, path, value) => {
    const headers = path === "/forecastmodel" ? { "x-api-key": KEY_A } : bearer(KEY_A);
    const res = await testService().handle({ method: "POST", path, headers, body: value });
    expect(res.status).toBe(200);
  });

  it("the examples are the exported OPENAPI_EXAMPLES", () => {
    expect(examples.map(([, , v]) => v)).toEqual(expect.arrayContaining(Object.values(OPENAPI_EXAMPLES)));
  });
});
