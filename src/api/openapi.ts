/**
 * GET /openapi.json: the OpenAPI 3.1 description, generated from the same
 * schemas that validate requests.
 * @module
 */
import { MODEL_NAMES } from "../model/config.js";
import { freqPattern } from "./freq.js";
import { toJsonSchema, type ApiObjectSchema } from "./schema-validator.js";
import {
  ANOMALY_RESPONSE_SCHEMA,
  API_ERROR_SCHEMA,
  API_FREQS,
  API_REQUEST_SCHEMAS,
  ASYNC_JOB_RESPONSE_SCHEMA,
  DETAIL_MESSAGE_SCHEMA,
  FINETUNE_RESPONSE_SCHEMA,
  FINETUNED_MODEL_LIST_SCHEMA,
  FINETUNED_MODEL_SCHEMA,
  FORECAST_RESPONSE_SCHEMA,
  JOB_STATUS_SCHEMA,
  LEGACY_REQUEST_SCHEMA,
  LEGACY_RESPONSE_SCHEMA,
  MODEL_ID_PATTERN,
} from "./schemas.js";

/**
 * Version of the API description (`info.version` of GET /openapi.json).
 *
 * @example
 * ```ts
 * API_VERSION; // => "0.4.6"
 * ```
 * @category API rules
 */
export const API_VERSION = "0.4.6";

const daily = [12, 14, 13, 15, 16, 18, 17, 13, 15, 14, 16, 17, 19, 18, 14, 16, 15, 17, 18, 20, 19];

/**
 * Example request bodies per operation; each passes the library's own validation (tested).
 * @category API rules
 */
export const OPENAPI_EXAMPLES: Readonly<Record<string, unknown>> = {
  forecast: { series: { y: daily, sizes: [21] }, freq: "D", h: 7, level: [80, 95] },
  anomaly: {
    series: { y: [...daily, ...daily.map((v) => v * 2)], sizes: [21, 21] },
    freq: "D",
    h: 7,
    detection_size: 7,
    level: 99,
  },
  historic: { series: { y: [...daily, ...daily, ...daily, ...daily, ...daily, ...daily], sizes: [126] }, freq: "D", level: [90] },
  finetune: { series: { y: [...daily, ...daily], sizes: [42] }, freq: "D", finetune_steps: 5, output_model_id: "my-daily-model" },
  crossValidation: { series: { y: [...daily, ...daily, ...daily, ...daily, ...daily], sizes: [105] }, freq: "D", h: 7, n_windows: 2, level: [80] },
  anomalyHistoric: { series: { y: [...daily, ...daily, ...daily, ...daily, ...daily, ...daily], sizes: [126] }, freq: "D", level: 99 },
  legacy: {
    df: [
      { ds: "2026-01-01", y: 12 },
      { ds: "2026-01-02", y: 14 },
      { ds: "2026-01-03", y: 13 },
      { ds: "2026-01-04", y: 15 },
      { ds: "2026-01-05", y: 16 },
    ],
    h: 3,
  },
};

const validationErrorComponents = {
  ValidationErrorItem: {
    type: "object",
    title: "ValidationErrorItem",
    description: "One validation problem, as pydantic v2 reports it.",
    properties: {
      type: { type: "string", description: "Rule that failed, e.g. missing, int_type, value_error." },
      loc: { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] }, description: "Where: \"body\" (or \"path\"), then property names and indices." },
      msg: { type: "string", description: "Readable message." },
      input: { description: "The offending value (left out when large)." },
      ctx: { type: "object", description: "Parameters of the rule, e.g. {\"gt\": 0}." },
    },
    required: ["type", "loc", "msg"],
  },
  HTTPValidationError: {
    type: "object",
    title: "HTTPValidationError",
    description: "All problems of a request at once.",
    properties: { detail: { type: "array", items: { $ref: "#/components/schemas/ValidationErrorItem" } } },
    required: ["detail"],
  },
};

function json(ref: Record<string, unknown>, description: string): Record<string, unknown> {
  return { description, content: { "application/json": { schema: ref } } };
}

function buildDocument(): Record<string, unknown> {
  const components: Record<string, unknown> = { ...validationErrorComponents };
  const ref = (s: ApiObjectSchema): Record<string, unknown> => toJsonSchema(s, components);
  const e422 = json({ $ref: "#/components/schemas/HTTPValidationError" }, "Validation error");
  const e401 = json(ref(API_ERROR_SCHEMA), "Missing or unknown API key (code A12)");
  const e429 = json(ref(API_ERROR_SCHEMA), "No credits left and no payment method (code A21)");
  const detail = (d: string): Record<string, unknown> => json(ref(DETAIL_MESSAGE_SCHEMA), d);
  const bearer = [{ HTTPBearer: [] }];
  const post = (
    operationId: string,
    summary: string,
    request: ApiObjectSchema,
    example: unknown,
    response: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    operationId,
    summary,
    security: bearer,
    requestBody: { required: true, content: { "application/json": { schema: ref(request), examples: { basic: { summary: "A small request", value: example } } } } },
    responses: { "200": response, "401": e401, "404": detail("A named fine-tuned model does not exist for this account"), "422": e422, "429": e429 },
    ...extra,
  });
  const modelIdParam = {
    name: "finetuned_model_id",
    in: "path",
    required: true,
    schema: { type: "string", pattern: MODEL_ID_PATTERN },
    description: "Id of a fine-tuned model of this account.",
  };
  const jobIdParam = { name: "job_id", in: "path", required: true, schema: { type: "string" }, description: "Id returned by POST /v2/finetune/async." };
  const asyncJobResponse = (task: string): Record<string, unknown> => ({
    type: "object",
    properties: { job_id: { type: "string", pattern: `^${task}-[0-9a-f]{32}$` } },
    required: ["job_id"],
  });
  const jobGet = (operationId: string, summary: string): Record<string, unknown> => ({
    operationId,
    summary,
    security: bearer,
    parameters: [jobIdParam],
    responses: { "200": json(ref(JOB_STATUS_SCHEMA), "Job status record; result is the synchronous route's answer once succeeded"), "401": e401, "404": detail("Unknown job, a job of another task or of another account") },
  });
  const paths: Record<string, unknown> = {
    "/v2/forecast": {
      post: post("forecast", "Forecast", API_REQUEST_SCHEMAS.forecast, OPENAPI_EXAMPLES.forecast, json(ref(FORECAST_RESPONSE_SCHEMA), "Forecast result; a horizon beyond the model's adds a `warning` header")),
    },
    "/v2/online_anomaly_detection": {
      post: post("online_anomaly_detection", "Online multi-series anomaly detection", API_REQUEST_SCHEMAS.anomaly, OPENAPI_EXAMPLES.anomaly, json(ref(ANOMALY_RESPONSE_SCHEMA), "Anomaly detection result")),
    },
    "/v2/historic_forecast": {
      post: post(
        "historic_forecast",
        "Historic (in-sample) forecast",
        API_REQUEST_SCHEMAS.historic,
        OPENAPI_EXAMPLES.historic,
        json(ref(FORECAST_RESPONSE_SCHEMA), "Historic forecast result (response header `deprecation: true`)"),
        { deprecated: true },
      ),
    },
    "/v2/cross_validation": {
      post: post(
        "cross_validation",
        "Cross-validation: n_windows forecasts of h steps per series from origins step_size apart (the forecast body plus n_windows, step_size, refit)",
        API_REQUEST_SCHEMAS.forecast,
        OPENAPI_EXAMPLES.crossValidation,
        json(
          {
            type: "object",
            properties: {
              idxs: { type: "array", items: { type: "integer" } },
              sizes: { type: "array", items: { type: "integer" } },
              mean: { type: "array", items: { type: "number" } },
              intervals: { type: ["object", "null"], additionalProperties: { type: "array", items: { type: "number" } } },
              input_tokens: { type: "integer" },
              output_tokens: { type: "integer" },
              finetune_tokens: { type: "integer" },
            },
            required: ["idxs", "sizes", "mean", "intervals", "input_tokens", "output_tokens", "finetune_tokens"],
          },
          "Forecasts of every window, series after series, oldest window first; idxs are the rows' positions in series.y",
        ),
      ),
    },
    "/v2/forecast/async": {
      post: post("forecast_async", "Start a forecast job (the forecast body)", API_REQUEST_SCHEMAS.forecast, OPENAPI_EXAMPLES.forecast, json(asyncJobResponse("fc"), "The job id (fc-…); the job runs later")),
    },
    "/v2/cross_validation/async": {
      post: post("cross_validation_async", "Start a cross-validation job (the cross-validation body)", API_REQUEST_SCHEMAS.forecast, OPENAPI_EXAMPLES.crossValidation, json(asyncJobResponse("cv"), "The job id (cv-…); the job runs later")),
    },
    "/v2/forecast/jobs/{job_id}": { get: jobGet("get_forecast_job", "Get async forecast job status") },
    "/v2/cross_validation/jobs/{job_id}": { get: jobGet("get_cross_validation_job", "Get async cross-validation job status") },
    "/v2/async/jobs/{job_id}/cancel": {
      post: {
        operationId: "cancel_async_job",
        summary: "Cancel a pending job of any task (ft-, fc- or cv-)",
        security: bearer,
        parameters: [jobIdParam],
        responses: {
          "200": json(ref(JOB_STATUS_SCHEMA), "The job, now cancelled"),
          "401": e401,
          "404": detail("Unknown job or a job of another account"),
          "409": detail("The job is no longer pending"),
        },
      },
    },
    "/v2/anomaly_detection": {
      post: post(
        "anomaly_detection",
        "Historical anomaly detection: the historic forecast at one level (a number or a one-element list, default 99), each fitted point outside its interval flagged",
        API_REQUEST_SCHEMAS.historic,
        OPENAPI_EXAMPLES.anomalyHistoric,
        json(
          { allOf: [ref(FORECAST_RESPONSE_SCHEMA), { type: "object", properties: { anomaly: { type: "array", items: { type: "boolean" } } }, required: ["anomaly"] }] },
          "Historic forecast result with `anomaly`, one flag per fitted point",
        ),
      ),
    },
    "/v2/finetune": {
      post: post("finetune", "Fine-tune a model and store it", API_REQUEST_SCHEMAS.finetune, OPENAPI_EXAMPLES.finetune, json(ref(FINETUNE_RESPONSE_SCHEMA), "The stored fine-tuned model's id and tokens")),
    },
    "/v2/finetune/async": {
      post: post("finetune_async", "Start a fine-tune job", API_REQUEST_SCHEMAS.finetune, OPENAPI_EXAMPLES.finetune, json(ref(ASYNC_JOB_RESPONSE_SCHEMA), "The job id; the job runs later")),
    },
    "/v2/finetune/jobs/{job_id}": {
      get: {
        operationId: "get_finetune_job",
        summary: "Get async fine-tune job status",
        security: bearer,
        parameters: [jobIdParam],
        responses: { "200": json(ref(JOB_STATUS_SCHEMA), "Job status record"), "401": e401, "404": detail("Unknown job, a job of another task or of another account"), "422": e422 },
      },
    },
    "/v2/finetune/jobs/{job_id}/cancel": {
      post: {
        operationId: "cancel_finetune_job",
        summary: "Cancel a pending fine-tune job",
        security: bearer,
        parameters: [jobIdParam],
        responses: {
          "200": json(ref(JOB_STATUS_SCHEMA), "The job, now cancelled"),
          "401": e401,
          "404": detail("Unknown job, a job of another task or of another account"),
          "409": detail("The job is no longer pending"),
        },
      },
    },
    "/v2/finetuned_models": {
      get: {
        operationId: "list_finetuned_models",
        summary: "List the account's fine-tuned models",
        security: bearer,
        responses: { "200": json(ref(FINETUNED_MODEL_LIST_SCHEMA), "Records, oldest first"), "401": e401 },
      },
    },
    "/v2/finetuned_models/{finetuned_model_id}": {
      get: {
        operationId: "get_finetuned_model",
        summary: "Get a single fine-tuned model",
        security: bearer,
        parameters: [modelIdParam],
        responses: { "200": json(ref(FINETUNED_MODEL_SCHEMA), "Fine-tuned model record"), "401": e401, "404": detail("Finetuned model not found"), "422": e422 },
      },
      delete: {
        operationId: "delete_finetuned_model",
        summary: "Delete a fine-tuned model",
        security: bearer,
        parameters: [modelIdParam],
        responses: { "204": { description: "Deleted" }, "401": e401, "404": detail("Finetuned model not found"), "422": e422 },
      },
    },
    "/forecastmodel": {
      post: {
        operationId: "forecast_legacy",
        summary: "Forecast, older request form",
        security: [{ APIKeyHeader: [] }],
        requestBody: {
          required: true,
          content: { "application/json": { schema: ref(LEGACY_REQUEST_SCHEMA), examples: { basic: { summary: "Five daily points", value: OPENAPI_EXAMPLES.legacy } } } },
        },
        responses: { "200": json(ref(LEGACY_RESPONSE_SCHEMA), "Forecast envelope (code B10)"), "401": e401, "422": e422, "429": e429 },
      },
    },
    "/model_params": {
      get: {
        operationId: "model_params",
        summary: "The model's input size and horizon for a frequency (as SDKs ask before forecasting)",
        security: bearer,
        parameters: [
          { name: "model", in: "query", required: true, schema: { type: "string", enum: [...MODEL_NAMES] }, description: "Model name." },
          {
            name: "freq",
            in: "query",
            required: true,
            schema: { type: "string", pattern: freqPattern(API_FREQS) },
            description: "Frequency, a pandas alias as in the request bodies: sub-daily steps that divide a day (30s, min, 5min, 15T, h, 2h, …), D, W (W-SUN, …), M (MS, ME).",
          },
        ],
        responses: {
          "200": json(
            {
              type: "object",
              properties: { detail: { type: "object", properties: { input_size: { type: "integer" }, horizon: { type: "integer" } }, required: ["input_size", "horizon"] } },
              required: ["detail"],
            },
            "The model's parameters",
          ),
          "401": e401,
          "422": e422,
        },
      },
    },
    "/validate_api_key": {
      get: {
        operationId: "validate_api_key",
        summary: "Whether the bearer key is valid (200) or not (401), with a `detail` text either way",
        security: bearer,
        responses: { "200": detail("The key is valid"), "401": detail("The key is missing or unknown") },
      },
    },
    "/usage": {
      get: {
        operationId: "usage",
        summary: "Calls of the key's account in the current minute and month (model requests accepted), with their limits (-1: none)",
        security: bearer,
        responses: {
          "200": {
            description: "Calls and limits by period",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: Object.fromEntries(
                    ["minute", "month"].map((period) => [
                      period,
                      { type: "object", properties: { limit: { type: "integer" }, usage: { type: "integer" } }, required: ["limit", "usage"] },
                    ]),
                  ),
                  required: ["minute", "month"],
                },
              },
            },
          },
          "401": e401,
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "openapi",
        summary: "This description",
        security: [],
        responses: { "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "forecastmodel",
      version: API_VERSION,
      description: "Time-series forecasting, online anomaly detection, historic forecasts and fine-tuning with a pretrained model.",
    },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        HTTPBearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API key> (all /v2 routes)." },
        APIKeyHeader: { type: "apiKey", in: "header", name: "x-api-key", description: "x-api-key: <API key> (older request form)." },
      },
    },
  };
}

let cached: string | null = null;

/**
 * The OpenAPI 3.1 document of the service (a fresh object each call, built
 * from the request schemas).
 *
 * @returns the document served at GET /openapi.json.
 *
 * @example
 * ```ts
 * const doc = openApiDocument() as { openapi: string; info: { version: string } };
 * doc.info.version; // => "0.4.6"
 * ```
 * @category Service
 */
export function openApiDocument(): Record<string, unknown> {
  cached ??= JSON.stringify(buildDocument());
  return JSON.parse(cached) as Record<string, unknown>;
}
