/**
 * GET /openapi.json: the OpenAPI 3.1 description, built from the route
 * table (src/api/routes.ts) and the JSON Schema of the TypeBox types that
 * validate requests (src/api/schemas.ts).
 * @module
 */
import type { ApiObjectSchema } from "./schema-validator.js";
import { API_ERROR_SCHEMA, DETAIL_MESSAGE_SCHEMA } from "./schemas.js";

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

/**
 * A schema's JSON Schema as the document shows it (TypeBox's, without its
 * codecs): every titled object becomes a `$ref` to a component of that name,
 * collected into `components` the first time it is met (a model used as a
 * property with its own description, a one-member `anyOf`, is shown as
 * `{$ref, description}`), and an `enum` of strings or of integers says its
 * `type` (for client generators).
 */
function toJsonSchema(schema: unknown, components: Record<string, unknown>): Record<string, unknown> {
  return withRefs(JSON.parse(JSON.stringify(schema)), components) as Record<string, unknown>;
}

function withRefs(node: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((n) => withRefs(n, components));
  if (node === null || typeof node !== "object") return node;
  const entries = Object.entries(node as Record<string, unknown>);
  const title = (node as Record<string, unknown>).title;
  const component = typeof title === "string" && (node as Record<string, unknown>).type === "object";
  if (component && Object.prototype.hasOwnProperty.call(components, title)) return { $ref: `#/components/schemas/${title}` };
  if (component) components[title] = {}; // the name first, so the components keep the order they are met in
  const out = Object.fromEntries(entries.map(([k, v]) => [k, k === "default" || k === "enum" ? v : withRefs(v, components)]));
  const only = out.anyOf as unknown[] | undefined;
  if (only?.length === 1) {
    // a model used as a property with its own description (`modelAs` in schemas.ts): {$ref, description}
    const { anyOf: _one, ...rest } = out;
    return { ...(only[0] as Record<string, unknown>), ...rest };
  }
  const values = out.enum as unknown[] | undefined;
  if (values !== undefined && out.type === undefined) {
    if (values.every((v) => typeof v === "string")) out.type = "string";
    else if (values.every((v) => Number.isInteger(v))) out.type = "integer";
  }
  if (!component) return out;
  components[title] = out;
  return { $ref: `#/components/schemas/${title}` };
}

function json(ref: Record<string, unknown>, description: string): Record<string, unknown> {
  return { description, content: { "application/json": { schema: ref } } };
}

/** A response of an operation: a standard error (401 key, 422 validation, 429 credits), a `detail` text, or a body. */
export type ResponseDoc =
  | "key"
  | "validation"
  | "credits"
  | { readonly detail: string }
  | {
      readonly description: string;
      /** The body's schema: a request schema, or a JSON Schema made with `ref` for the schemas it names; none for a body-less answer. */
      readonly schema?: ApiObjectSchema | ((ref: (s: ApiObjectSchema) => Record<string, unknown>) => Record<string, unknown>);
    };

/**
 * How GET /openapi.json describes one route: its operation's id and summary,
 * path or query parameters, request body (schema and example) and responses
 * by status.
 */
export interface OperationDoc {
  /** `operationId`. */
  readonly operationId: string;
  /** `summary`. */
  readonly summary: string;
  /** Parameters of the path or the query, as OpenAPI writes them. */
  readonly parameters?: readonly Record<string, unknown>[];
  /** The JSON body: its schema, an example and the example's summary (default "A small request"). */
  readonly body?: { readonly schema: ApiObjectSchema; readonly example: unknown; readonly exampleSummary?: string };
  /** Responses by status. */
  readonly responses: Readonly<Record<string, ResponseDoc>>;
  /** Whether the route is deprecated. */
  readonly deprecated?: boolean;
  /** A route anyone may call (no security scheme). */
  readonly public?: boolean;
}

/** What the OpenAPI builder needs of a route. */
export interface DocumentedRoute {
  /** HTTP method. */
  readonly method: string;
  /** Path, `{name}` for a parameter. */
  readonly path: string;
  /** The header its key is read from (`x-api-key` for the older form; else the bearer token). */
  readonly key: string;
  /** Its description. */
  readonly openapi: OperationDoc;
}

/** One operation: responses rendered after the 200's body schema and the request body, so components keep their order. */
function operation(route: DocumentedRoute, components: Record<string, unknown>): Record<string, unknown> {
  const ref = (s: ApiObjectSchema): Record<string, unknown> => toJsonSchema(s, components);
  const response = (r: ResponseDoc): Record<string, unknown> => {
    if (r === "key") return json(ref(API_ERROR_SCHEMA), "Missing or unknown API key (code A12)");
    if (r === "credits") return json(ref(API_ERROR_SCHEMA), "No credits left and no payment method (code A21)");
    if (r === "validation") return json({ $ref: "#/components/schemas/HTTPValidationError" }, "Validation error");
    if ("detail" in r) return json(ref(DETAIL_MESSAGE_SCHEMA), r.detail);
    if (r.schema === undefined) return { description: r.description };
    return json(typeof r.schema === "function" ? r.schema(ref) : ref(r.schema), r.description);
  };
  const doc = route.openapi;
  const responses: Record<string, unknown> = {};
  const ok = doc.responses["200"];
  if (ok !== undefined) responses["200"] = response(ok);
  const out: Record<string, unknown> = { operationId: doc.operationId, summary: doc.summary };
  out.security = doc.public === true ? [] : route.key === "x-api-key" ? [{ APIKeyHeader: [] }] : [{ HTTPBearer: [] }];
  if (doc.parameters !== undefined) out.parameters = doc.parameters;
  if (doc.body !== undefined) {
    const examples = { basic: { summary: doc.body.exampleSummary ?? "A small request", value: doc.body.example } };
    out.requestBody = { required: true, content: { "application/json": { schema: ref(doc.body.schema), examples } } };
  }
  for (const [status, r] of Object.entries(doc.responses)) if (status !== "200") responses[status] = response(r);
  out.responses = responses;
  if (doc.deprecated === true) out.deprecated = true;
  return out;
}

/**
 * The OpenAPI 3.1 document of `routes`: a path per route path (in the
 * routes' order), an operation per method.
 */
export function buildOpenApiDocument(routes: readonly DocumentedRoute[]): Record<string, unknown> {
  const components: Record<string, unknown> = { ...validationErrorComponents };
  // the shared error schema first, as every authenticated operation names it
  toJsonSchema(API_ERROR_SCHEMA, components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, components);
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
