/**
 * The handlers of the routes: what each route does once its key (and, for
 * paid routes, its credits) have been checked. A free route answers; a paid
 * route validates its body and returns its paid work (run now, or a job),
 * which the service runs against the account's tokens.
 * @module
 */
import type { Freq, ModelName } from "../types.js";
import { modelParams } from "../model/config.js";
import { ValidationError, valueError } from "./errors.js";
import { historicAnomalyBody, scalarLevelItems } from "./historic-anomaly.js";
import { historicAnomalyFlags } from "../historic/anomaly.js";
import { intervalKey } from "../intervals/intervals.js";
import { cancelJob, jobRecord, ownJob, toJsonRequest, type JobTask } from "./jobs.js";
import { jobStatusRecord } from "./job-progress.js";
import { legacyAnswer, readLegacyBody } from "./legacy.js";
import { acceptedFreqText, freqRefusalAmong, readFreq } from "./freq.js";
import { canonicalModelName } from "./model-aliases.js";
import { notFoundModel, warningHeader } from "./responses.js";
import { endpointWork, prepareWork, runFinetune, validatedWork, validateFinetune, type PreparedWork, type WorkOutcome } from "./route-work.js";
import type { ValidatedBodies } from "./requests.js";
import type { ForecastResult } from "./results.js";
import { ErrorCollector, INVALID, validateAgainst } from "./schema-validator.js";
import { MODEL_ID_SCHEMA, MODEL_NAME_SCHEMA } from "./schemas.js";
import { isKnownBearer, nowText, readBody, readModelBody, type ServiceContext } from "./service-context.js";
import type { ServiceAccount, ServiceRequest } from "./service-types.js";

/** A request as a route's handler sees it. */
export interface RouteCall {
  /** The service's shared state. */
  readonly ctx: ServiceContext;
  /** The path's parameters (`job_id`, `finetuned_model_id`). */
  readonly params: Readonly<Record<string, string>>;
  /** The request. */
  readonly request: ServiceRequest;
  /** The request's id (the `x-request-id` header). */
  readonly requestID: string;
}

/** A request of a route with a key: the account of that key. */
export interface AccountCall extends RouteCall {
  /** The account of the presented key. */
  readonly account: ServiceAccount;
}

/** What a route answers before the service adds its headers. */
export interface RouteAnswer {
  /** HTTP status. */
  readonly status: number;
  /** The JSON body (null for 204). */
  readonly body: unknown;
  /** The route's own headers. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The paid work of a route: run now and answered by `respond`, or stored as a job of `task`. */
export type PaidWork =
  | { readonly kind: "run"; readonly work: PreparedWork; readonly respond: (done: WorkOutcome) => RouteAnswer }
  | { readonly kind: "job"; readonly task: JobTask; readonly request: unknown; readonly estimate: number };

/** A 200 answer. */
export function ok(body: unknown, headers: Readonly<Record<string, string>> = {}): RouteAnswer {
  return { status: 200, body, headers };
}

/** Paid work answered with its value and its warnings (the `warning` header), plus `headers`. */
function runWork(work: PreparedWork, headers: Readonly<Record<string, string>> = {}): PaidWork {
  return { kind: "run", work, respond: (done) => ok(done.value, { ...warningHeader(done.warnings), ...headers }) };
}

/** POST /v2/forecast, /v2/online_anomaly_detection, /v2/historic_forecast (the last answered with `deprecation: true`). */
export function endpointHandler(endpoint: "forecast" | "anomaly" | "historic"): (call: AccountCall) => Promise<PaidWork> {
  const headers: Record<string, string> = endpoint === "historic" ? { deprecation: "true" } : {};
  return async ({ ctx, account, request }) => runWork(await endpointWork(ctx, endpoint, account.id, readModelBody(ctx, request)), headers);
}

/** POST /v2/finetune: fine-tunes and stores the model now. */
export async function finetuneHandler({ ctx, account, request }: AccountCall): Promise<PaidWork> {
  const tune = await validateFinetune(ctx, account.id, readModelBody(ctx, request), true, true);
  const work: PreparedWork = {
    estimate: tune.body.series.y.length,
    run: async () => ({ ...(await runFinetune(ctx, account.id, tune)), warnings: [] }),
  };
  return { kind: "run", work, respond: (done) => ok(done.value) };
}

/** POST /v2/finetune/async: the fine-tune body checked now, stored as a job. */
export async function finetuneAsyncHandler({ ctx, account, request }: AccountCall): Promise<PaidWork> {
  const tune = await validateFinetune(ctx, account.id, readModelBody(ctx, request), true, true);
  return { kind: "job", task: "ft", request: toJsonRequest(tune.body), estimate: tune.body.series.y.length };
}

/** POST /v2/cross_validation. */
export async function crossValidationHandler({ ctx, account, request }: AccountCall): Promise<PaidWork> {
  return runWork(await prepareWork(ctx, "cv", account.id, readModelBody(ctx, request)));
}

/** POST /v2/forecast/async and /v2/cross_validation/async: the body checked now, stored as a job. */
export function asyncHandler(task: "fc" | "cv"): (call: AccountCall) => Promise<PaidWork> {
  return async ({ ctx, account, request }) => {
    const raw = readModelBody(ctx, request);
    const work = await prepareWork(ctx, task, account.id, raw);
    return { kind: "job", task, request: raw, estimate: work.estimate };
  };
}

/** POST /v2/anomaly_detection: the historic forecast at one level, each fitted point outside its interval flagged. */
export async function anomalyHistoricHandler({ ctx, account, request }: AccountCall): Promise<PaidWork> {
  const mapped = historicAnomalyBody(readModelBody(ctx, request));
  if (mapped.errors.length > 0) throw new ValidationError(mapped.errors);
  const flagged = (value: Record<string, unknown>, b: ValidatedBodies["historic"]): Record<string, unknown> => {
    const level = (b.level as readonly number[])[0] as number;
    const intervals = (value as unknown as ForecastResult).intervals;
    const bounds = [intervals?.[intervalKey(level, "lo")], intervals?.[intervalKey(level, "hi")]] as const;
    return { ...value, anomaly: historicAnomalyFlags(b.series.y, b.series.sizes, value.sizes as number[], bounds[0], bounds[1], b.missing ?? null) };
  };
  const work = await endpointWork(ctx, "historic", account.id, mapped.body, flagged, true, true).catch((e: unknown) => {
    throw mapped.scalarLevel && e instanceof ValidationError ? new ValidationError(scalarLevelItems(e.detail)) : e;
  });
  return runWork(work);
}

/** POST /forecastmodel: the older request form, answered in its envelope. */
export async function legacyHandler({ ctx, account, request, requestID }: AccountCall): Promise<PaidWork> {
  const { forecastBody, future } = readLegacyBody(readBody(ctx, request), ctx.limits);
  const work = await validatedWork(ctx, "forecast", account.id, forecastBody);
  return { kind: "run", work, respond: (done) => ok(legacyAnswer(done.value as Parameters<typeof legacyAnswer>[0], future, requestID), warningHeader(done.warnings)) };
}

/** GET a job of `task` (any task when null) of the account. */
export function getJobHandler(task: JobTask): (call: AccountCall) => Promise<RouteAnswer> {
  return async ({ ctx, account, params }) => ok(await jobStatusRecord(ctx.store, await ownJob(ctx.store, account.id, params.job_id as string, task, ctx.jobClock)));
}

/** POST …/cancel: cancels a pending job of `task` (any task when null). */
export function cancelJobHandler(task: JobTask | null): (call: AccountCall) => Promise<RouteAnswer> {
  return async ({ ctx, account, params }) => {
    const job = await ownJob(ctx.store, account.id, params.job_id as string, task, ctx.jobClock);
    const cancelled = await cancelJob(ctx.store, job, ctx.jobClock);
    // only the cancel that moved the job from pending gets here: its reservation is released once
    if (job.reservation !== undefined) await ctx.store.settleTokens(job.accountId, job.reservation.id, 0);
    return ok(jobRecord(cancelled));
  };
}

/** GET /v2/finetuned_models. */
export async function listModelsHandler({ ctx, account }: AccountCall): Promise<RouteAnswer> {
  const models = await ctx.store.listModels(account.id);
  return ok({ finetuned_models: models.map((m) => ({ ...m.record })) });
}

/** The path's fine-tuned model id, checked against its pattern (422). */
function pathModelId(params: Readonly<Record<string, string>>): string {
  const id = params.finetuned_model_id as string;
  const errors = new ErrorCollector();
  if (validateAgainst(MODEL_ID_SCHEMA, id, ["path", "finetuned_model_id"], errors) === INVALID) throw new ValidationError(errors.items);
  return id;
}

/** GET /v2/finetuned_models/{finetuned_model_id}. */
export async function getModelHandler({ ctx, account, params }: AccountCall): Promise<RouteAnswer> {
  const found = await ctx.store.getModel(account.id, pathModelId(params));
  if (found === undefined) throw notFoundModel();
  return ok({ ...found.record });
}

/** DELETE /v2/finetuned_models/{finetuned_model_id}. */
export async function deleteModelHandler({ ctx, account, params }: AccountCall): Promise<RouteAnswer> {
  if (!(await ctx.store.deleteModel(account.id, pathModelId(params)))) throw notFoundModel();
  return { status: 204, body: null, headers: {} };
}

/** The query parameters of a request path (`/model_params?model=…&freq=…`); a name given twice keeps its first value. */
export function queryParams(path: unknown): URLSearchParams {
  if (typeof path !== "string") return new URLSearchParams();
  const q = path.indexOf("?");
  if (q < 0) return new URLSearchParams();
  const hash = path.indexOf("#", q);
  return new URLSearchParams(path.slice(q + 1, hash < 0 ? undefined : hash));
}

/** GET /model_params?model=…&freq=…: the model's input size and horizon for a frequency. */
export async function modelParamsHandler({ ctx, request }: AccountCall): Promise<RouteAnswer> {
  const query = queryParams(request.path);
  const errors = new ErrorCollector();
  const given = query.get("model");
  const model = given === null ? null : (canonicalModelName(given, ctx.aliasTable) as string);
  const freqText = query.get("freq");
  if (model === null) errors.add({ type: "missing", loc: ["query", "model"], msg: "Field required", input: null });
  else validateAgainst(MODEL_NAME_SCHEMA, model, ["query", "model"], errors);
  let freq: Freq | null = null;
  if (freqText === null) errors.add({ type: "missing", loc: ["query", "freq"], msg: "Field required", input: null });
  else {
    freq = readFreq(freqText, ctx.freqClasses);
    if (freq === null) {
      errors.add(valueError(["query", "freq"], `freq '${freqText}' is not a supported frequency; accepted: ${acceptedFreqText(ctx.freqClasses)} (${freqRefusalAmong(freqText, ctx.freqClasses)})`, freqText));
    }
  }
  if (errors.items.length > 0) throw new ValidationError(errors.items);
  const params = modelParams(model as ModelName, freq as Freq);
  return ok({ detail: { input_size: params.inputSize, horizon: params.horizon } });
}

/** The minute and the month of now (ISO prefixes), the periods calls are counted in. */
export function callPeriods(ctx: ServiceContext): [string, string] {
  const at = nowText(ctx);
  return [at.slice(0, 16), at.slice(0, 7)];
}

/** GET /usage: the account's calls this minute and this month. */
export async function usageHandler({ ctx, account }: AccountCall): Promise<RouteAnswer> {
  const counts = (await ctx.store.callCounts?.(account.id, ...callPeriods(ctx))) ?? { minute: 0, month: 0 };
  return ok({ minute: { limit: -1, usage: counts.minute }, month: { limit: -1, usage: counts.month } });
}

/** GET /validate_api_key: 200 when the bearer key is known, else 401, with a `detail` either way. */
export async function validateKeyHandler({ ctx, request }: RouteCall): Promise<RouteAnswer> {
  return isKnownBearer(ctx, request.headers) ? ok({ detail: "API key is valid" }) : { status: 401, body: { detail: "API key is invalid" }, headers: { "www-authenticate": "Bearer" } };
}
