/**
 * The routes of the service: the table of paths and methods, and the
 * matching of a request's method and path (404, 405, parameters, query).
 * @module
 */

/** The name of a route (what the service does for it). */
export type RouteName =
  | "forecast"
  | "anomaly"
  | "historic"
  | "finetune"
  | "finetuneAsync"
  | "getJob"
  | "cancelJob"
  | "listModels"
  | "getModel"
  | "deleteModel"
  | "legacy"
  | "anomalyHistoric"
  | "crossValidation"
  | "forecastAsync"
  | "crossValidationAsync"
  | "getForecastJob"
  | "getCrossValidationJob"
  | "cancelAnyJob"
  | "modelParams"
  | "validateKey"
  | "usage"
  | "openapi";

interface RouteSpec {
  readonly segments: readonly string[]; // "{name}" = parameter
  readonly methods: Readonly<Record<string, RouteName>>;
}

/** Every route: path segments ("{name}" a parameter) and the route of each method. */
const ROUTES: readonly RouteSpec[] = [
  { segments: ["v2", "forecast"], methods: { POST: "forecast" } },
  { segments: ["v2", "online_anomaly_detection"], methods: { POST: "anomaly" } },
  { segments: ["v2", "historic_forecast"], methods: { POST: "historic" } },
  { segments: ["v2", "anomaly_detection"], methods: { POST: "anomalyHistoric" } },
  { segments: ["v2", "cross_validation"], methods: { POST: "crossValidation" } },
  { segments: ["v2", "forecast", "async"], methods: { POST: "forecastAsync" } },
  { segments: ["v2", "cross_validation", "async"], methods: { POST: "crossValidationAsync" } },
  { segments: ["v2", "forecast", "jobs", "{job_id}"], methods: { GET: "getForecastJob" } },
  { segments: ["v2", "cross_validation", "jobs", "{job_id}"], methods: { GET: "getCrossValidationJob" } },
  { segments: ["v2", "async", "jobs", "{job_id}", "cancel"], methods: { POST: "cancelAnyJob" } },
  { segments: ["v2", "finetune"], methods: { POST: "finetune" } },
  { segments: ["v2", "finetune", "async"], methods: { POST: "finetuneAsync" } },
  { segments: ["v2", "finetune", "jobs", "{job_id}"], methods: { GET: "getJob" } },
  { segments: ["v2", "finetune", "jobs", "{job_id}", "cancel"], methods: { POST: "cancelJob" } },
  { segments: ["v2", "finetuned_models"], methods: { GET: "listModels" } },
  { segments: ["v2", "finetuned_models", "{finetuned_model_id}"], methods: { GET: "getModel", DELETE: "deleteModel" } },
  { segments: ["forecastmodel"], methods: { POST: "legacy" } },
  { segments: ["model_params"], methods: { GET: "modelParams" } },
  { segments: ["validate_api_key"], methods: { GET: "validateKey" } },
  { segments: ["usage"], methods: { GET: "usage" } },
  { segments: ["openapi.json"], methods: { GET: "openapi" } },
];

/**
 * The query parameters of a request path (`/model_params?model=…&freq=…`);
 * a name given twice keeps its first value.
 */
export function queryParams(path: unknown): URLSearchParams {
  if (typeof path !== "string") return new URLSearchParams();
  const q = path.indexOf("?");
  if (q < 0) return new URLSearchParams();
  const hash = path.indexOf("#", q);
  return new URLSearchParams(path.slice(q + 1, hash < 0 ? undefined : hash));
}

/** A request's route, or why there is none. */
type Match = { kind: "route"; route: RouteName; params: Record<string, string> } | { kind: "notFound" } | { kind: "methodNotAllowed"; allow: string };

/** Finds the route of a method and path: 404 when no path matches, 405 (with the allowed methods) when only the method does not. */
export function matchRoute(method: unknown, path: unknown): Match {
  if (typeof path !== "string") return { kind: "notFound" };
  const cut = path.search(/[?#]/);
  const clean = cut >= 0 ? path.slice(0, cut) : path;
  if (!clean.startsWith("/")) return { kind: "notFound" };
  const raw = clean.slice(1).split("/");
  let segments: string[];
  try {
    segments = raw.map((s) => decodeURIComponent(s));
  } catch {
    return { kind: "notFound" };
  }
  for (const r of ROUTES) {
    if (r.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const want = r.segments[i] as string;
      const got = segments[i] as string;
      if (want.startsWith("{")) {
        if (got.length === 0) ok = false;
        else params[want.slice(1, -1)] = got;
      } else ok = want === got;
    }
    if (!ok) continue;
    const m = typeof method === "string" ? method.toUpperCase() : "";
    const route = Object.prototype.hasOwnProperty.call(r.methods, m) ? r.methods[m] : undefined;
    if (route === undefined) return { kind: "methodNotAllowed", allow: Object.keys(r.methods).join(", ") };
    return { kind: "route", route, params };
  }
  return { kind: "notFound" };
}

