/**
 * The route table: every route of the service as one entry (method, path,
 * how its key is read, whether it counts as a call, whether it is paid, its
 * handler and its OpenAPI description, request and response schemas
 * included), the matching of a request's method and path (404, 405,
 * parameters), and the OpenAPI document built from the table.
 * @module
 */
import { MODEL_NAMES } from "../model/config.js";
import { freqPattern } from "./freq.js";
import { buildOpenApiDocument, OPENAPI_EXAMPLES, type OperationDoc } from "./openapi.js";
import {
  anomalyHistoricHandler,
  asyncHandler,
  cancelJobHandler,
  crossValidationHandler,
  deleteModelHandler,
  endpointHandler,
  finetuneAsyncHandler,
  finetuneHandler,
  getJobHandler,
  getModelHandler,
  legacyHandler,
  listModelsHandler,
  modelParamsHandler,
  ok,
  usageHandler,
  validateKeyHandler,
  type AccountCall,
  type PaidWork,
  type RouteAnswer,
  type RouteCall,
} from "./route-handlers.js";
import {
  ANOMALY_RESPONSE_SCHEMA,
  API_FREQS,
  API_REQUEST_SCHEMAS,
  ASYNC_JOB_RESPONSE_SCHEMA,
  FINETUNE_RESPONSE_SCHEMA,
  FINETUNED_MODEL_LIST_SCHEMA,
  FINETUNED_MODEL_SCHEMA,
  FORECAST_RESPONSE_SCHEMA,
  JOB_STATUS_SCHEMA,
  LEGACY_REQUEST_SCHEMA,
  LEGACY_RESPONSE_SCHEMA,
  MODEL_ID_PATTERN,
} from "./schemas.js";
import type { KeyHeader } from "./service-context.js";

/** What every route has: its method and path, whether it counts as a call, its OpenAPI description. */
interface RouteBase<N extends string> {
  /** The route's name. */
  readonly name: N;
  /** HTTP method. */
  readonly method: "GET" | "POST" | "DELETE";
  /** Path, `{name}` for a parameter. */
  readonly path: string;
  /** Whether an answered (200) request counts as a call of the account in GET /usage. */
  readonly countsAsCall: boolean;
  /** Its OpenAPI operation. */
  readonly openapi: OperationDoc;
}

/**
 * A route and its handler: a route without a key answers anyone; a free
 * route answers its account; a paid route (credits checked first) returns
 * the paid work the service runs against the account's tokens.
 */
export type Route<N extends string = string> = RouteBase<N> &
  (
    | { readonly key: "none"; readonly paid: false; readonly answer: (call: RouteCall) => Promise<RouteAnswer> }
    | { readonly key: KeyHeader; readonly paid: false; readonly answer: (call: AccountCall) => Promise<RouteAnswer> }
    | { readonly key: KeyHeader; readonly paid: true; readonly prepare: (call: AccountCall) => Promise<PaidWork> }
  );

const KEY = "key" as const;
const VALIDATION = "validation" as const;
const CREDITS = "credits" as const;
const NO_MODEL = { detail: "A named fine-tuned model does not exist for this account" };
const JOB_NOT_FOUND = { detail: "Unknown job, a job of another task or of another account" };
const NO_LONGER_PENDING = { detail: "The job is no longer pending" };
const MODEL_NOT_FOUND = { detail: "Finetuned model not found" };

const jobIdParam = { name: "job_id", in: "path", required: true, schema: { type: "string" }, description: "Id returned by POST /v2/finetune/async." };
const modelIdParam = { name: "finetuned_model_id", in: "path", required: true, schema: { type: "string", pattern: MODEL_ID_PATTERN }, description: "Id of a fine-tuned model of this account." };

/** The operation of a paid POST route with a JSON body: 200 with `response`, 401, 404 (a named fine-tuned model), 422, 429. */
function paidOperation(operationId: string, summary: string, body: OperationDoc["body"] & object, response: OperationDoc["responses"][string], deprecated?: true): OperationDoc {
  return { operationId, summary, body, responses: { "200": response, "401": KEY, "404": NO_MODEL, "422": VALIDATION, "429": CREDITS }, ...(deprecated ? { deprecated } : {}) };
}

/** The operation of GET …/jobs/{job_id}. */
function jobOperation(operationId: string, summary: string, description: string, extra: OperationDoc["responses"] = {}): OperationDoc {
  return { operationId, summary, parameters: [jobIdParam], responses: { "200": { description, schema: JOB_STATUS_SCHEMA }, "401": KEY, "404": JOB_NOT_FOUND, ...extra } };
}

/** The operation of POST …/cancel. */
function cancelOperation(operationId: string, summary: string, notFound: string): OperationDoc {
  return {
    operationId,
    summary,
    parameters: [jobIdParam],
    responses: { "200": { description: "The job, now cancelled", schema: JOB_STATUS_SCHEMA }, "401": KEY, "404": { detail: notFound }, "409": NO_LONGER_PENDING },
  };
}

/** The operation of a route on one fine-tuned model (the path's id): `success`, 401, 404, 422. */
function modelOperation(operationId: string, summary: string, success: OperationDoc["responses"]): OperationDoc {
  return { operationId, summary, parameters: [modelIdParam], responses: { ...success, "401": KEY, "404": MODEL_NOT_FOUND, "422": VALIDATION } };
}

/** The 200 of an async route: its job id, `<task>-<32 hex>`. */
function asyncJobResponse(task: string, description: string): OperationDoc["responses"][string] {
  return { description, schema: () => ({ type: "object", properties: { job_id: { type: "string", pattern: `^${task}-[0-9a-f]{32}$` } }, required: ["job_id"] }) };
}

const crossValidationResponse = {
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
};

const forecastBody = { schema: API_REQUEST_SCHEMAS.forecast, example: OPENAPI_EXAMPLES.forecast };
const anomalyBody = { schema: API_REQUEST_SCHEMAS.anomaly, example: OPENAPI_EXAMPLES.anomaly };
const historicBody = { schema: API_REQUEST_SCHEMAS.historic, example: OPENAPI_EXAMPLES.historic };
const crossValidationBody = { schema: API_REQUEST_SCHEMAS.forecast, example: OPENAPI_EXAMPLES.crossValidation };
const finetuneBody = { schema: API_REQUEST_SCHEMAS.finetune, example: OPENAPI_EXAMPLES.finetune };

const modelParamsQuery = [
  { name: "model", in: "query", required: true, schema: { type: "string", enum: [...MODEL_NAMES] }, description: "Model name." },
  {
    name: "freq",
    in: "query",
    required: true,
    schema: { type: "string", pattern: freqPattern(API_FREQS) },
    description: "Frequency, a pandas alias as in the request bodies: sub-daily steps that divide a day (30s, min, 5min, 15T, h, 2h, …), D, W (W-SUN, …), M (MS, ME).",
  },
];
const modelParamsResponse = {
  type: "object",
  properties: { detail: { type: "object", properties: { input_size: { type: "integer" }, horizon: { type: "integer" } }, required: ["input_size", "horizon"] } },
  required: ["detail"],
};
const usageResponse = {
  type: "object",
  properties: Object.fromEntries(["minute", "month"].map((period) => [period, { type: "object", properties: { limit: { type: "integer" }, usage: { type: "integer" } }, required: ["limit", "usage"] }])),
  required: ["minute", "month"],
};

/**
 * Every route of the service, in the order of GET /openapi.json's paths.
 * Two entries with the same path are two methods of it.
 */
export const ROUTES = [
  {
    name: "forecast", method: "POST", path: "/v2/forecast", key: "bearer", countsAsCall: true, paid: true,
    prepare: endpointHandler("forecast"),
    openapi: paidOperation("forecast", "Forecast", forecastBody, { description: "Forecast result; a horizon beyond the model's adds a `warning` header", schema: FORECAST_RESPONSE_SCHEMA }),
  },
  {
    name: "anomaly", method: "POST", path: "/v2/online_anomaly_detection", key: "bearer", countsAsCall: true, paid: true,
    prepare: endpointHandler("anomaly"),
    openapi: paidOperation("online_anomaly_detection", "Online multi-series anomaly detection", anomalyBody, { description: "Anomaly detection result", schema: ANOMALY_RESPONSE_SCHEMA }),
  },
  {
    name: "historic", method: "POST", path: "/v2/historic_forecast", key: "bearer", countsAsCall: true, paid: true,
    prepare: endpointHandler("historic"),
    openapi: paidOperation(
      "historic_forecast", "Historic (in-sample) forecast",
      historicBody,
      { description: "Historic forecast result (response header `deprecation: true`)", schema: FORECAST_RESPONSE_SCHEMA },
      true,
    ),
  },
  {
    name: "crossValidation", method: "POST", path: "/v2/cross_validation", key: "bearer", countsAsCall: true, paid: true,
    prepare: crossValidationHandler,
    openapi: paidOperation(
      "cross_validation", "Cross-validation: n_windows forecasts of h steps per series from origins step_size apart (the forecast body plus n_windows, step_size, refit)",
      crossValidationBody,
      { description: "Forecasts of every window, series after series, oldest window first; idxs are the rows' positions in series.y", schema: () => crossValidationResponse },
    ),
  },
  {
    name: "forecastAsync", method: "POST", path: "/v2/forecast/async", key: "bearer", countsAsCall: true, paid: true,
    prepare: asyncHandler("fc"),
    openapi: paidOperation("forecast_async", "Start a forecast job (the forecast body)", forecastBody, asyncJobResponse("fc", "The job id (fc-…); the job runs later")),
  },
  {
    name: "crossValidationAsync", method: "POST", path: "/v2/cross_validation/async", key: "bearer", countsAsCall: true, paid: true,
    prepare: asyncHandler("cv"),
    openapi: paidOperation("cross_validation_async", "Start a cross-validation job (the cross-validation body)", crossValidationBody, asyncJobResponse("cv", "The job id (cv-…); the job runs later")),
  },
  {
    name: "getForecastJob", method: "GET", path: "/v2/forecast/jobs/{job_id}", key: "bearer", countsAsCall: false, paid: false,
    answer: getJobHandler("fc"),
    openapi: jobOperation("get_forecast_job", "Get async forecast job status", "Job status record; result is the synchronous route's answer once succeeded"),
  },
  {
    name: "getCrossValidationJob", method: "GET", path: "/v2/cross_validation/jobs/{job_id}", key: "bearer", countsAsCall: false, paid: false,
    answer: getJobHandler("cv"),
    openapi: jobOperation("get_cross_validation_job", "Get async cross-validation job status", "Job status record; result is the synchronous route's answer once succeeded"),
  },
  {
    name: "cancelAnyJob", method: "POST", path: "/v2/async/jobs/{job_id}/cancel", key: "bearer", countsAsCall: false, paid: false,
    answer: cancelJobHandler(null),
    openapi: cancelOperation("cancel_async_job", "Cancel a pending job of any task (ft-, fc- or cv-)", "Unknown job or a job of another account"),
  },
  {
    name: "anomalyHistoric", method: "POST", path: "/v2/anomaly_detection", key: "bearer", countsAsCall: true, paid: true,
    prepare: anomalyHistoricHandler,
    openapi: paidOperation(
      "anomaly_detection", "Historical anomaly detection: the historic forecast at one level (a number or a one-element list, default 99), each fitted point outside its interval flagged",
      { schema: API_REQUEST_SCHEMAS.historic, example: OPENAPI_EXAMPLES.anomalyHistoric },
      {
        description: "Historic forecast result with `anomaly`, one flag per fitted point",
        schema: (ref) => ({ allOf: [ref(FORECAST_RESPONSE_SCHEMA), { type: "object", properties: { anomaly: { type: "array", items: { type: "boolean" } } }, required: ["anomaly"] }] }),
      },
    ),
  },
  {
    name: "finetune", method: "POST", path: "/v2/finetune", key: "bearer", countsAsCall: true, paid: true,
    prepare: finetuneHandler,
    openapi: paidOperation("finetune", "Fine-tune a model and store it", finetuneBody, { description: "The stored fine-tuned model's id and tokens", schema: FINETUNE_RESPONSE_SCHEMA }),
  },
  {
    name: "finetuneAsync", method: "POST", path: "/v2/finetune/async", key: "bearer", countsAsCall: true, paid: true,
    prepare: finetuneAsyncHandler,
    openapi: paidOperation("finetune_async", "Start a fine-tune job", finetuneBody, { description: "The job id; the job runs later", schema: ASYNC_JOB_RESPONSE_SCHEMA }),
  },
  {
    name: "getJob", method: "GET", path: "/v2/finetune/jobs/{job_id}", key: "bearer", countsAsCall: false, paid: false,
    answer: getJobHandler("ft"),
    openapi: jobOperation("get_finetune_job", "Get async fine-tune job status", "Job status record", { "422": VALIDATION }),
  },
  {
    name: "cancelJob", method: "POST", path: "/v2/finetune/jobs/{job_id}/cancel", key: "bearer", countsAsCall: false, paid: false,
    answer: cancelJobHandler("ft"),
    openapi: cancelOperation("cancel_finetune_job", "Cancel a pending fine-tune job", JOB_NOT_FOUND.detail),
  },
  {
    name: "listModels", method: "GET", path: "/v2/finetuned_models", key: "bearer", countsAsCall: false, paid: false,
    answer: listModelsHandler,
    openapi: { operationId: "list_finetuned_models", summary: "List the account's fine-tuned models", responses: { "200": { description: "Records, oldest first", schema: FINETUNED_MODEL_LIST_SCHEMA }, "401": KEY } },
  },
  {
    name: "getModel", method: "GET", path: "/v2/finetuned_models/{finetuned_model_id}", key: "bearer", countsAsCall: false, paid: false,
    answer: getModelHandler,
    openapi: modelOperation("get_finetuned_model", "Get a single fine-tuned model", { "200": { description: "Fine-tuned model record", schema: FINETUNED_MODEL_SCHEMA } }),
  },
  {
    name: "deleteModel", method: "DELETE", path: "/v2/finetuned_models/{finetuned_model_id}", key: "bearer", countsAsCall: false, paid: false,
    answer: deleteModelHandler,
    openapi: modelOperation("delete_finetuned_model", "Delete a fine-tuned model", { "204": { description: "Deleted" } }),
  },
  {
    name: "legacy", method: "POST", path: "/forecastmodel", key: "x-api-key", countsAsCall: true, paid: true,
    prepare: legacyHandler,
    openapi: {
      operationId: "forecast_legacy", summary: "Forecast, older request form",
      body: { schema: LEGACY_REQUEST_SCHEMA, example: OPENAPI_EXAMPLES.legacy, exampleSummary: "Five daily points" },
      responses: { "200": { description: "Forecast envelope (code B10)", schema: LEGACY_RESPONSE_SCHEMA }, "401": KEY, "422": VALIDATION, "429": CREDITS },
    },
  },
  {
    name: "modelParams", method: "GET", path: "/model_params", key: "bearer", countsAsCall: false, paid: false,
    answer: modelParamsHandler,
    openapi: {
      operationId: "model_params", summary: "The model's input size and horizon for a frequency (as SDKs ask before forecasting)",
      parameters: modelParamsQuery,
      responses: { "200": { description: "The model's parameters", schema: () => modelParamsResponse }, "401": KEY, "422": VALIDATION },
    },
  },
  {
    name: "validateKey", method: "GET", path: "/validate_api_key", key: "none", countsAsCall: false, paid: false,
    answer: validateKeyHandler,
    openapi: {
      operationId: "validate_api_key",
      summary: "Whether the bearer key is valid (200) or not (401), with a `detail` text either way",
      responses: { "200": { detail: "The key is valid" }, "401": { detail: "The key is missing or unknown" } },
    },
  },
  {
    name: "usage", method: "GET", path: "/usage", key: "bearer", countsAsCall: false, paid: false,
    answer: usageHandler,
    openapi: {
      operationId: "usage",
      summary: "Calls of the key's account in the current minute and month (model requests accepted), with their limits (-1: none)",
      responses: { "200": { description: "Calls and limits by period", schema: () => usageResponse }, "401": KEY },
    },
  },
  {
    name: "openapi", method: "GET", path: "/openapi.json", key: "none", countsAsCall: false, paid: false,
    answer: async () => ok(openApiDocument()),
    openapi: {
      operationId: "openapi",
      summary: "This description",
      public: true,
      responses: { "200": { description: "OpenAPI 3.1 document", schema: () => ({ type: "object" }) } },
    },
  },
] as const satisfies readonly Route[];

/** The name of a route (what the service does for it). */
export type RouteName = (typeof ROUTES)[number]["name"];

/** A path of the table: its segments (`{name}` a parameter) and its routes by method, in the table's order. */
interface PathEntry {
  readonly segments: readonly string[];
  readonly methods: ReadonlyMap<string, Route>;
}

const PATHS: readonly PathEntry[] = (() => {
  const byPath = new Map<string, { segments: string[]; methods: Map<string, Route> }>();
  for (const route of ROUTES as readonly Route[]) {
    let entry = byPath.get(route.path);
    if (entry === undefined) byPath.set(route.path, (entry = { segments: route.path.slice(1).split("/"), methods: new Map() }));
    entry.methods.set(route.method, route);
  }
  return [...byPath.values()];
})();

/** A request's route and the path's parameters, or why there is none. */
export type Match = { kind: "route"; route: Route; params: Record<string, string> } | { kind: "notFound" } | { kind: "methodNotAllowed"; allow: string };

/** The parameters of a path whose decoded segments match `want`'s, or null. */
function matchSegments(want: readonly string[], segments: readonly string[]): Record<string, string> | null {
  if (want.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const pattern = want[i] as string;
    const got = segments[i] as string;
    if (pattern.startsWith("{")) {
      if (got.length === 0) return null;
      params[pattern.slice(1, -1)] = got;
    } else if (pattern !== got) return null;
  }
  return params;
}

/**
 * Finds the route of a method and path in `ROUTES`: 404 when no path
 * matches, 405 (with the allowed methods) when only the method does not.
 * The query and fragment are ignored; segments are percent-decoded.
 *
 * @example
 * ```ts
 * const m = matchRoute("GET", "/v2/forecast/jobs/fc-1?x=1");
 * m.kind === "route" && m.route.name; // => "getForecastJob"
 * m.kind === "route" && m.params; // => { job_id: "fc-1" }
 * matchRoute("GET", "/v2/forecast"); // => { kind: "methodNotAllowed", allow: "POST" }
 * ```
 */
export function matchRoute(method: unknown, path: unknown): Match {
  if (typeof path !== "string") return { kind: "notFound" };
  const cut = path.search(/[?#]/);
  const clean = cut >= 0 ? path.slice(0, cut) : path;
  if (!clean.startsWith("/")) return { kind: "notFound" };
  let segments: string[];
  try {
    segments = clean.slice(1).split("/").map((s) => decodeURIComponent(s));
  } catch {
    return { kind: "notFound" };
  }
  for (const entry of PATHS) {
    const params = matchSegments(entry.segments, segments);
    if (params === null) continue;
    const route = entry.methods.get(typeof method === "string" ? method.toUpperCase() : "");
    if (route === undefined) return { kind: "methodNotAllowed", allow: [...entry.methods.keys()].join(", ") };
    return { kind: "route", route, params };
  }
  return { kind: "notFound" };
}

let cached: string | null = null;

/**
 * The OpenAPI 3.1 document of the service (a fresh object each call, built
 * from the route table and the request schemas).
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
  cached ??= JSON.stringify(buildOpenApiDocument(ROUTES));
  return JSON.parse(cached) as Record<string, unknown>;
}
