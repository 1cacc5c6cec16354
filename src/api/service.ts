/**
 * `createService`: every route of docs/contract.md §2 as an async function
 * from a request ({method, path, headers, body}) to a response ({status,
 * headers, body}), with keys, credits, fine-tuned models, fine-tune jobs and
 * the older request form. No I/O: time, ids and storage are injected. The
 * routes are the entries of `ROUTES` (src/api/routes.ts); `handle` runs a
 * request through match → key → credits → paid work → error mapping.
 * @module
 */
import { ValidationError } from "./errors.js";
import { runOneJob, runPendingJobs, type RunJobsSummary } from "./jobs.js";
import { modelItemsWithAliases } from "./model-aliases.js";
import { runPaid, runStoredJob, submitPaid } from "./paid-work.js";
import { callPeriods, type RouteAnswer } from "./route-handlers.js";
import { matchRoute, type Route } from "./routes.js";
import { HttpError, JSON_HEADERS } from "./responses.js";
import { precompileSchemas } from "./schema-validator.js";
import { API_REQUEST_SCHEMAS } from "./schemas.js";
import { authenticate, checkCredits, createContext, freshUuid, type ServiceContext } from "./service-context.js";
import type { ForecastService, JobRunOutcome, ServiceOptions, ServiceRequest, ServiceResponse } from "./service-types.js";

export type { ForecastService, JobRunOutcome, ServiceAccount, ServiceOptions, ServiceRequest, ServiceResponse, SubmittedJob } from "./service-types.js";
export type { RunJobsSummary } from "./jobs.js";

/**
 * Creates a service answering every route of the contract: POST
 * /v2/forecast, /v2/online_anomaly_detection, /v2/historic_forecast,
 * /v2/finetune, /v2/finetune/async, /v2/finetune/jobs/{job_id}/cancel, GET
 * /v2/finetune/jobs/{job_id}, GET /v2/finetuned_models(/{id}), DELETE
 * /v2/finetuned_models/{id}, POST /forecastmodel and GET /openapi.json.
 *
 * Order of checks: route (404, 405), key (401), credits (429), body limits
 * and validation (422), named fine-tuned model (404), work; the tokens used
 * are then charged to the account.
 *
 * @param options - accounts, clock, ids, limits, store, pipelines and model aliases.
 * @returns the service; its `handle` never rejects.
 * @throws RangeError for invalid options (a key used twice, an empty key, negative limits).
 *
 * @example
 * ```ts
 * const service = createService({ accounts: [{ id: "acme", apiKeys: ["key-1"], credits: 1e9, hasPaymentMethod: true }] });
 * const res = await service.handle({ method: "GET", path: "/v2/finetuned_models", headers: { authorization: "Bearer key-1" } });
 * res.status; // => 200
 * res.body; // => { finetuned_models: [] }
 * ```
 * @category Service
 */
export function createService(options: ServiceOptions): ForecastService {
  const ctx = createContext(options);
  precompileSchemas(Object.values(API_REQUEST_SCHEMAS));
  const runJobs = (): Promise<RunJobsSummary> => runPendingJobs(ctx.store, ctx.jobClock, (job) => runStoredJob(ctx, job));
  const runJob = async (jobId: string): Promise<JobRunOutcome | null> => {
    const status = await runOneJob(ctx.store, ctx.jobClock, jobId, (job) => runStoredJob(ctx, job));
    return status === null ? null : { jobId, status };
  };
  return { handle: (request) => handle(ctx, request), runJobs, runJob };
}

/**
 * A matched route's answer: its key (401), its credits when it is paid
 * (429), its handler, the paid work it returns run against the account's
 * tokens (now, or stored as a job), and the call counted when it is one.
 */
async function answerRoute(ctx: ServiceContext, route: Route, params: Record<string, string>, request: ServiceRequest, requestID: string): Promise<RouteAnswer> {
  if (route.key === "none") return route.answer({ ctx, params, request, requestID });
  const account = authenticate(ctx, route.key, request.headers, requestID);
  const call = { ctx, account, params, request, requestID };
  let res: RouteAnswer;
  if (route.paid) {
    await checkCredits(ctx, account, requestID);
    const work = await route.prepare(call);
    if (work.kind === "job") res = { status: 200, body: await submitPaid(ctx, account, requestID, work.task, work.request, work.estimate), headers: {} };
    else res = work.respond(await runPaid(ctx, account, requestID, work.work));
  } else res = await route.answer(call);
  if (route.countsAsCall && res.status === 200) await ctx.store.countCall?.(account.id, ...callPeriods(ctx));
  return res;
}

/** Answers one request; never rejects: 404/405 from the route table, 422 and the HTTP errors of the routes mapped to their bodies, anything else 500. */
async function handle(ctx: ServiceContext, req: ServiceRequest): Promise<ServiceResponse> {
  let requestID: string | null = null;
  try {
    const request: ServiceRequest = typeof req === "object" && req !== null ? req : ({} as ServiceRequest);
    requestID = freshUuid(ctx);
    const base = { ...JSON_HEADERS, "x-request-id": requestID };
    const match = matchRoute(request.method, request.path);
    if (match.kind === "notFound") return { status: 404, headers: base, body: { detail: "Not Found" } };
    if (match.kind === "methodNotAllowed") return { status: 405, headers: { ...base, allow: match.allow }, body: { detail: "Method Not Allowed" } };
    try {
      const res = await answerRoute(ctx, match.route, match.params, request, requestID);
      if (res.status === 204) return { status: 204, headers: { "x-request-id": requestID }, body: null };
      return { status: res.status, headers: { ...base, ...res.headers }, body: res.body };
    } catch (e) {
      if (e instanceof ValidationError) return { status: 422, headers: base, body: { detail: modelItemsWithAliases(e.detail, ctx.aliasTable) } };
      if (e instanceof HttpError) return { status: e.status, headers: { ...base, ...e.extraHeaders }, body: e.body };
      throw e;
    }
  } catch {
    return { status: 500, headers: requestID === null ? { ...JSON_HEADERS } : { ...JSON_HEADERS, "x-request-id": requestID }, body: { detail: "Internal Server Error" } };
  }
}
