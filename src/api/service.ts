/**
 * `createService`: every route of docs/contract.md §2 as an async function
 * from a request ({method, path, headers, body}) to a response ({status,
 * headers, body}), with keys, credits, fine-tuned models, fine-tune jobs and
 * the older request form. No I/O: time, ids and storage are injected.
 * @module
 */
import { ValidationError, valueError, type ErrorItem } from "../errors.js";
import type { FinetunedWeights, ForecastResult, Freq, ModelName, TokenCounts } from "../types.js";
import { MODEL_NAMES, modelParams } from "../model/config.js";
import { bearerToken, findAccountByKey, headerValue, keyIndex, type KeyEntry } from "./auth.js";
import { executeEndpoint } from "./core.js";
import { seededIdSequence, toHex32, uuidLayout } from "./ids.js";
import { bodyBytes, readJsonBody } from "./json.js";
import { acceptedFreqAliases, freqFromAlias } from "./freq.js";
import { BodyDecodeError, CONTENT_ENCODINGS, decodeContent } from "./encoding.js";
import { historicAnomalyBody, historicAnomalyFlags, tailRowIndices } from "./historic-anomaly.js";
import { crossValidationShape, crossValidationWindowBody, mergeCrossValidation } from "./cross-validation.js";
import { prepareLegacySeries } from "./legacy.js";
import { openApiDocument } from "./openapi.js";
import { DEFAULT_PIPELINES, type ApiPipelines } from "./pipelines.js";
import {
  DEFAULT_SERVICE_LIMITS,
  resolveLimits,
  validateEndpointBody,
  type ServiceLimits,
  type ValidatedBodies,
} from "./requests.js";
import { ErrorCollector, INVALID, isJsonObject, ownProperty, validateAgainst } from "./schema.js";
import { API_FREQS, ASYNC_JOB_ID_PATTERN, LEGACY_REQUEST_SCHEMA, MODEL_ID_PATTERN, type ApiEndpoint } from "./schemas.js";
import { createMemoryStore, type FinetunedModelRecord, type ServiceStore, type StoredJob } from "./store.js";
import { splitWarnings } from "./results.js";

/**
 * An account of the service.
 * @category API rules
 */
export interface ServiceAccount {
  /** Account id (owner of jobs and fine-tuned models). */
  readonly id: string;
  /** Keys that authenticate as this account (non-empty strings, unique across accounts). */
  readonly apiKeys: readonly string[];
  /** Token credits granted; tokens used are charged against them. */
  readonly credits: number;
  /** With a payment method, an account may go past its credits (billed); without one it gets 429. */
  readonly hasPaymentMethod: boolean;
}

/**
 * Options of `createService`.
 * @category API rules
 */
export interface ServiceOptions {
  /** Accounts and their keys. */
  readonly accounts: readonly ServiceAccount[];
  /** Current time (default: the fixed epoch 1970-01-01T00:00:00Z). */
  readonly clock?: () => Date;
  /**
   * Fresh ids for request ids, job ids and generated model ids (default:
   * random UUIDs from `globalThis.crypto.randomUUID`, present in Node, Deno,
   * Bun and browsers, so processes sharing a store never collide; inject a
   * seeded sequence, e.g. `seededIdSequence(seed)`, for reproducible ids).
   */
  readonly ids?: () => string;
  /** Size limits (defaults: `DEFAULT_SERVICE_LIMITS`). */
  readonly limits?: Partial<ServiceLimits>;
  /** Persistence of jobs, fine-tuned models and spent tokens (default: in memory). */
  readonly store?: ServiceStore;
  /** Most fine-tuned models per account (default 50). */
  readonly maxFinetunedModels?: number;
  /** The pipelines behind the endpoints (default: the library's; stand-ins for tests and benchmarks). */
  readonly pipelines?: ApiPipelines;
}

/**
 * A request to `handle`. Header names match case-insensitively.
 * @category API rules
 */
export interface ServiceRequest {
  /** HTTP method, e.g. "POST". */
  readonly method: string;
  /** Path, optionally with a query string (ignored). */
  readonly path: string;
  /** Request headers. */
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** JSON text, UTF-8 bytes or an already parsed value. */
  readonly body?: unknown;
}

/**
 * What `handle` resolves with.
 * @category API rules
 */
export interface ServiceResponse {
  /** HTTP status. */
  status: number;
  /** Response headers (lowercase names). */
  headers: Record<string, string>;
  /** JSON-serialisable body (null for 204). */
  body: unknown;
}

/**
 * Counts of one `runJobs` call.
 * @category API rules
 */
export interface RunJobsSummary {
  /** Jobs started. */
  ran: number;
  /** Of which succeeded. */
  succeeded: number;
  /** Of which failed. */
  failed: number;
}

/**
 * A service made by `createService`.
 * @category API rules
 */
export interface ForecastService {
  /** Answers one request; never rejects. */
  handle(request: ServiceRequest): Promise<ServiceResponse>;
  /** Runs every pending job, oldest first. */
  runJobs(): Promise<RunJobsSummary>;
}

/**
 * Text of the `support` field of 401 and 429 bodies and of the older form's envelope.
 *
 * @example
 * ```ts
 * SUPPORT_TEXT.includes("requestID"); // => true
 * ```
 * @category API rules
 */
export const SUPPORT_TEXT = "If you need help, contact support and quote the requestID.";

const JSON_HEADERS = { "content-type": "application/json" } as const;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly extraHeaders: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

const notFoundModel = (): HttpError => new HttpError(404, { detail: "Finetuned model not found" });
const notFoundJob = (): HttpError => new HttpError(404, { detail: "job not found" });

type RouteName =
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
  | "openapi";

interface RouteSpec {
  readonly segments: readonly string[]; // "{name}" = parameter
  readonly methods: Readonly<Record<string, RouteName>>;
}

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
  { segments: ["openapi.json"], methods: { GET: "openapi" } },
];

/**
 * The query parameters of a request path (`/model_params?model=…&freq=…`);
 * a name given twice keeps its first value.
 */
function queryParams(path: unknown): URLSearchParams {
  if (typeof path !== "string") return new URLSearchParams();
  const q = path.indexOf("?");
  if (q < 0) return new URLSearchParams();
  const hash = path.indexOf("#", q);
  return new URLSearchParams(path.slice(q + 1, hash < 0 ? undefined : hash));
}

/** What a prepared request answers: the body without warnings, the warnings, the tokens used. */
interface WorkOutcome {
  readonly value: Record<string, unknown>;
  readonly warnings: string[];
  readonly used: number;
}

/** A request validated now and run later: its token estimate and its run. */
interface PreparedWork {
  readonly estimate: number;
  readonly run: () => WorkOutcome;
}

type Match = { kind: "route"; route: RouteName; params: Record<string, string> } | { kind: "notFound" } | { kind: "methodNotAllowed"; allow: string };

function matchRoute(method: unknown, path: unknown): Match {
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

function bodyByteLength(body: unknown): number {
  if (typeof body === "string") return body.length;
  if (body instanceof ArrayBuffer) return body.byteLength;
  if (ArrayBuffer.isView(body)) return body.byteLength;
  return 0;
}

function warningHeader(warnings: readonly string[]): Record<string, string> {
  if (warnings.length === 0) return {};
  const quoted = warnings.map((w) => `299 - "${w.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, " ")}"`);
  return { warning: quoted.join(", ") };
}

function toJsonRequest(v: ValidatedBodies[ApiEndpoint]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(v)) {
    if (key === "modelGiven") continue;
    if (key === "model" && !v.modelGiven) continue;
    if (key === "series") {
      const s = value as ValidatedBodies["finetune"]["series"];
      out.series = { y: Array.from(s.y), sizes: [...s.sizes], X: s.X === null ? null : s.X.map((f) => Array.from(f)) };
    } else out[key] = value;
  }
  return out;
}

function validationMessage(e: ValidationError): string {
  return e.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ");
}

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
 * @param options - accounts, clock, ids, limits, store and pipelines.
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
  const accounts = new Map<string, ServiceAccount>();
  const keys: KeyEntry[] = [];
  const seenKeys = new Set<string>();
  for (const a of options.accounts) {
    if (typeof a.id !== "string" || accounts.has(a.id)) throw new RangeError(`createService: account id ${String(a.id)} is invalid or repeated`);
    if (typeof a.credits !== "number" || !Number.isFinite(a.credits) || a.credits < 0) {
      throw new RangeError(`createService: account ${a.id}: credits must be a finite number >= 0, got ${String(a.credits)} (give a payment method for use past the credits)`);
    }
    accounts.set(a.id, a);
    for (const key of a.apiKeys) {
      if (typeof key !== "string" || key.length === 0) throw new RangeError(`createService: account ${a.id} has an empty or non-string API key`);
      if (seenKeys.has(key)) throw new RangeError(`createService: an API key of account ${a.id} is used by another account too`);
      seenKeys.add(key);
      keys.push({ key, accountId: a.id });
    }
  }
  const keysByHash = keyIndex(keys);
  const clock = options.clock ?? ((): Date => new Date(0));
  const ids = options.ids ?? randomIds();
  const freshUuid = (): string => uuidLayout(toHex32(String(ids())));
  const limits = resolveLimits(options.limits, DEFAULT_SERVICE_LIMITS);
  const store = options.store ?? createMemoryStore();
  const pipelines = options.pipelines ?? DEFAULT_PIPELINES;
  const maxModels = options.maxFinetunedModels ?? 50;
  const now = (): string => clock().toISOString();

  const apiError = (status: 401 | 429, requestID: string): HttpError =>
    status === 401
      ? new HttpError(401, { data: null, message: "Invalid API key", details: "Key not found", code: "A12", requestID, support: SUPPORT_TEXT }, { "www-authenticate": "Bearer" })
      : new HttpError(429, {
          data: null,
          message: "Too many requests",
          details: "Free credits exhausted: add a payment method to continue",
          code: "A21",
          requestID,
          support: SUPPORT_TEXT,
        });

  const authenticate = (route: RouteName, headers: unknown, requestID: string): ServiceAccount => {
    const presented = route === "legacy" ? headerValue(headers, "x-api-key") : bearerToken(headers);
    const accountId = presented === null ? null : findAccountByKey(keysByHash, presented);
    const account = accountId === null ? undefined : accounts.get(accountId);
    if (account === undefined) throw apiError(401, requestID);
    return account;
  };

  const checkCredits = async (account: ServiceAccount, requestID: string): Promise<void> => {
    if (account.hasPaymentMethod) return;
    const spent = await store.spentTokens(account.id);
    if (account.credits - spent <= 0) throw apiError(429, requestID);
  };

  const readBody = (req: ServiceRequest): unknown => {
    let body = req.body;
    const encoding = headerValue(req.headers, "content-encoding");
    if (encoding !== null && !["", "identity"].includes(encoding.trim().toLowerCase())) {
      const size = bodyByteLength(body);
      if (size > limits.maxBodyBytes) throw new ValidationError([valueError(["body"], `the body has ${size} bytes, more than limits.maxBodyBytes = ${limits.maxBodyBytes}`)]);
      const bytes = bodyBytes(body);
      try {
        if (bytes === null) throw new BodyDecodeError(CONTENT_ENCODINGS.some((e) => e === encoding.trim().toLowerCase()) ? "corrupt" : "unsupported", `a body with content-encoding '${encoding}' must be given as bytes (Uint8Array or ArrayBuffer)`);
        body = decodeContent(bytes, encoding, limits.maxBodyBytes);
      } catch (e) {
        if (!(e instanceof BodyDecodeError)) throw e;
        if (e.reason === "unsupported") throw new HttpError(415, { detail: e.message });
        throw new ValidationError([valueError(["body"], e.message)]);
      }
    }
    const size = bodyByteLength(body);
    if (size > limits.maxBodyBytes) throw new ValidationError([valueError(["body"], `the body has ${size} bytes, more than limits.maxBodyBytes = ${limits.maxBodyBytes}`)]);
    const read = readJsonBody(body);
    if (read.kind === "invalid") throw new ValidationError([read.item]);
    if (read.kind === "missing") throw new ValidationError([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
    return read.value;
  };

  const resolveFinetuned = async (accountId: string, id: string | null): Promise<FinetunedWeights | null> => {
    if (id === null) return null;
    const found = await store.getModel(accountId, id);
    if (found === undefined) throw notFoundModel();
    return found.weights;
  };

  const precheckNewModel = async (accountId: string, outputId: string | null): Promise<void> => {
    const models = await store.listModels(accountId);
    if (outputId !== null && models.some((m) => m.record.id === outputId)) {
      throw new ValidationError([valueError(["body", "output_model_id"], `a fine-tuned model '${outputId}' already exists in this account`, outputId)]);
    }
    if (models.length >= maxModels) throw new ValidationError([modelLimitItem()]);
  };

  const modelLimitItem = (): ErrorItem =>
    valueError(["body"], `this account already has ${maxModels} fine-tuned models, the most allowed; delete one (DELETE /v2/finetuned_models/{id}) first`);

  /** Fine-tunes and stores the model; returns the response body. */
  const runFinetune = async (accountId: string, b: ValidatedBodies["finetune"], finetuned: FinetunedWeights | null) => {
    const result = executeEndpoint("finetune", b, finetuned, pipelines);
    const created = now();
    // A generated id that collides with a model of the account (a repeating `ids`) is drawn again.
    let id = "";
    for (let attempt = 0; ; attempt++) {
      id = b.output_model_id ?? freshUuid();
      const record: FinetunedModelRecord = {
        id,
        created_at: created,
        base_model_id: b.finetuned_model_id ?? "None",
        steps: b.finetune_steps,
        depth: b.finetune_depth,
        loss: b.finetune_loss,
        model: result.weights.model,
        freq: b.freq,
        created_by: "user",
      };
      const outcome = await store.insertModel({ accountId, record, weights: result.weights }, maxModels);
      if (outcome === "ok") break;
      if (outcome === "limit") throw new ValidationError([modelLimitItem()]);
      if (b.output_model_id !== null) throw new ValidationError([valueError(["body", "output_model_id"], `a fine-tuned model '${id}' already exists in this account`, id)]);
      if (attempt + 1 >= JOB_ID_ATTEMPTS) throw new Error(`no fresh model id after ${JOB_ID_ATTEMPTS} attempts: the ids function repeats itself`);
    }
    const response = { input_tokens: result.input_tokens, output_tokens: result.output_tokens, finetune_tokens: result.finetune_tokens, finetuned_model_id: id };
    return { value: response, used: tokensUsed(result) };
  };

  /**
   * Runs paid work: for an account without a payment method, reserves
   * `estimate` tokens atomically first (429 when its credits are used up by
   * what is charged and reserved, concurrent requests included) and settles
   * the reservation with the tokens used; otherwise charges after the work.
   * A failed request charges nothing.
   */
  const paid = async <T>(account: ServiceAccount, requestID: string, estimate: number, work: () => Promise<{ value: T; used: number }>): Promise<T> => {
    if (account.hasPaymentMethod) {
      const done = await work();
      await store.chargeTokens(account.id, done.used);
      return done.value;
    }
    const held = Math.max(1, estimate);
    if (!(await store.reserveTokens(account.id, held, account.credits))) throw apiError(429, requestID);
    let used = 0;
    try {
      const done = await work();
      used = done.used;
      return done.value;
    } finally {
      await store.settleTokens(account.id, held, used);
    }
  };

  const jobRecord = (job: StoredJob): Record<string, unknown> => ({
    job_id: job.jobId,
    status: job.status,
    result: job.status === "succeeded" ? job.result : null,
    error: job.status === "failed" ? job.error : null,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  });

  /** A job of the account; `task` null accepts any task (the cross-task cancel route). */
  const ownJob = async (accountId: string, jobId: string, task: JobTask | null = "ft"): Promise<StoredJob> => {
    if (!JOB_ID_REGEX.test(jobId)) throw notFoundJob();
    const job = await store.getJob(jobId);
    if (job === undefined || (task !== null && job.task !== task) || job.accountId !== accountId) throw notFoundJob();
    return job;
  };

  /**
   * Validates the body of an endpoint (422 on the spot) and resolves its
   * fine-tuned model; the returned work runs the endpoint, now (sync routes)
   * or later (async jobs). `extend` adds fields to the answer from the
   * validated body.
   */
  const endpointWork = async <E extends "forecast" | "anomaly" | "historic">(
    endpoint: E,
    accountId: string,
    raw: unknown,
    extend?: (value: Record<string, unknown>, b: ValidatedBodies[E]) => Record<string, unknown>,
  ): Promise<PreparedWork> => {
    const b = validateEndpointBody(endpoint, raw, { core: false, limits });
    const finetuned = await resolveFinetuned(accountId, b.finetuned_model_id);
    return {
      estimate: b.series.y.length,
      run: () => {
        const r = executeEndpoint(endpoint, b, finetuned, pipelines) as TokenCounts & { warnings: string[] };
        const { body, warnings } = splitWarnings(r);
        const value = body as Record<string, unknown>;
        return { value: extend === undefined ? value : extend(value, b), warnings, used: tokensUsed(r) };
      },
    };
  };

  /** Runs prepared work as paid work (see `paid`). */
  const runPaid = (account: ServiceAccount, requestID: string, work: PreparedWork): Promise<WorkOutcome> =>
    paid(account, requestID, work.estimate, async () => {
      const done = work.run();
      return { value: done, used: done.used };
    });

  /**
   * Validates a forecast or cross-validation body (422 on the spot) and
   * returns its work, so the same body runs now (sync routes) or later
   * (async jobs).
   */
  const prepareWork = async (task: "fc" | "cv", accountId: string, raw: unknown): Promise<PreparedWork> => {
    if (task === "fc") return endpointWork("forecast", accountId, raw);
    if (isJsonObject(raw) && ownProperty(raw, "full_history") === true) {
      // The SDK's add_history: "the server derives the horizon and number of windows", i.e. the historic forecast.
      const { h: _h, n_windows: _n, step_size: _s, refit: _r, X_future: _xf, full_history: _f, hist_exog: _he, ...rest } = raw;
      return endpointWork("historic", accountId, rest, (value, b) => ({ idxs: tailRowIndices(b.series.sizes, value.sizes as number[]), ...value }));
    }
    const { shape, errors: shapeErrors } = crossValidationShape(raw);
    if (shapeErrors.length > 0) throw new ValidationError(shapeErrors);
    const rawBody = raw as Record<string, unknown>;
    // the series and the model fields, checked once (the windows' budget is checked below)
    const { h: _h, n_windows: _n, step_size: _s, refit: _r, X_future: _xf, ...rest } = rawBody;
    const base = validateEndpointBody("historic", { ...rest, level: null, hist_exog: undefined }, { core: false, limits: { ...limits, maxNetworkWindows: Infinity, maxFinetuneWindows: Infinity } });
    const finetuned = await resolveFinetuned(accountId, base.finetuned_model_id);
    const windowLimits = { ...limits, maxNetworkWindows: limits.maxNetworkWindows / shape.nWindows, maxFinetuneWindows: limits.maxFinetuneWindows / shape.nWindows };
    const windows = Array.from({ length: shape.nWindows }, (_, w) => crossValidationWindowBody(rawBody, base.series, shape, w));
    if (windows[0]!.errors.length > 0) throw new ValidationError(windows[0]!.errors);
    const bodies = windows.map((win) => validateEndpointBody("forecast", win.body, { core: false, limits: windowLimits }));
    return {
      estimate: base.series.y.length * shape.nWindows,
      run: () => {
        const results = bodies.map((b) => executeEndpoint("forecast", b, finetuned, pipelines));
        const { warnings, ...body } = mergeCrossValidation(results, windows.map((win) => win.origins), shape.h);
        return { value: body, warnings, used: tokensUsed(body) };
      },
    };
  };

  /** Stores a pending job under a fresh `<task>-<32 hex>` id and answers its id. */
  const submitJob = async (task: JobTask, accountId: string, request: unknown): Promise<{ job_id: string }> => {
    const at = now();
    // A fresh id; one that names an existing job (a repeating `ids`) is never overwritten.
    for (let attempt = 0; attempt < JOB_ID_ATTEMPTS; attempt++) {
      const jobId = `${task}-${toHex32(String(ids()))}`;
      const job: StoredJob = { jobId, task, accountId, status: "pending", request, result: null, error: null, createdAt: at, updatedAt: at };
      if (await store.insertJob(job)) return { job_id: jobId };
    }
    throw new Error(`no fresh job id after ${JOB_ID_ATTEMPTS} attempts: the ids function repeats itself`);
  };

  const ok = (body: unknown, headers: Record<string, string> = {}): { status: number; body: unknown; headers: Record<string, string> } => ({ status: 200, body, headers });

  const route = async (name: RouteName, params: Record<string, string>, req: ServiceRequest, requestID: string) => {
    if (name === "openapi") return ok(openApiDocument());
    if (name === "validateKey") {
      const presented = bearerToken(req.headers);
      const valid = presented !== null && findAccountByKey(keysByHash, presented) !== null;
      return valid ? ok({ detail: "API key is valid" }) : { status: 401, body: { detail: "API key is invalid" }, headers: { "www-authenticate": "Bearer" } };
    }
    const account = authenticate(name, req.headers, requestID);
    switch (name) {
      case "forecast":
      case "anomaly":
      case "historic": {
        await checkCredits(account, requestID);
        const done = await runPaid(account, requestID, await endpointWork(name, account.id, readBody(req)));
        return ok(done.value, { ...warningHeader(done.warnings), ...(name === "historic" ? { deprecation: "true" } : {}) });
      }
      case "finetune": {
        await checkCredits(account, requestID);
        const b = validateEndpointBody("finetune", readBody(req), { core: false, limits });
        const finetuned = await resolveFinetuned(account.id, b.finetuned_model_id);
        await precheckNewModel(account.id, b.output_model_id);
        return ok(await paid(account, requestID, b.series.y.length, () => runFinetune(account.id, b, finetuned)));
      }
      case "finetuneAsync": {
        await checkCredits(account, requestID);
        const b = validateEndpointBody("finetune", readBody(req), { core: false, limits });
        await resolveFinetuned(account.id, b.finetuned_model_id);
        await precheckNewModel(account.id, b.output_model_id);
        return ok(await submitJob("ft", account.id, toJsonRequest(b)));
      }
      case "getJob":
        return ok(jobRecord(await ownJob(account.id, params.job_id as string)));
      case "cancelJob":
      case "cancelAnyJob": {
        const job = await ownJob(account.id, params.job_id as string, name === "cancelJob" ? "ft" : null);
        const cancelled: StoredJob = { ...job, status: "cancelled", updatedAt: now() };
        // Compare-and-set: only a job still pending is cancelled (a job claimed meanwhile runs to its end).
        if (job.status !== "pending" || !(await store.updateJob(job.jobId, "pending", cancelled))) {
          const current = (await store.getJob(job.jobId)) ?? job;
          throw new HttpError(409, { detail: `job ${job.jobId} is ${current.status}; only a pending job can be cancelled` });
        }
        return ok(jobRecord(cancelled));
      }
      case "listModels": {
        const models = await store.listModels(account.id);
        return ok({ finetuned_models: models.map((m) => ({ ...m.record })) });
      }
      case "getModel":
      case "deleteModel": {
        const id = params.finetuned_model_id as string;
        const errors = new ErrorCollector();
        if (validateAgainst({ kind: "string", pattern: MODEL_ID_PATTERN }, id, ["path", "finetuned_model_id"], errors) === INVALID) throw new ValidationError(errors.items);
        if (name === "getModel") {
          const found = await store.getModel(account.id, id);
          if (found === undefined) throw notFoundModel();
          return ok({ ...found.record });
        }
        if (!(await store.deleteModel(account.id, id))) throw notFoundModel();
        return { status: 204, body: null, headers: {} };
      }
      case "anomalyHistoric": {
        await checkCredits(account, requestID);
        const mapped = historicAnomalyBody(readBody(req));
        if (mapped.errors.length > 0) throw new ValidationError(mapped.errors);
        const work = await endpointWork("historic", account.id, mapped.body, (value, b) => ({
          ...value,
          anomaly: historicAnomalyFlags(b.series.y, b.series.sizes, value as unknown as ForecastResult, (b.level as readonly number[])[0] as number),
        }));
        const done = await runPaid(account, requestID, work);
        return ok(done.value, warningHeader(done.warnings));
      }
      case "crossValidation": {
        await checkCredits(account, requestID);
        const done = await runPaid(account, requestID, await prepareWork("cv", account.id, readBody(req)));
        return ok(done.value, warningHeader(done.warnings));
      }
      case "forecastAsync":
      case "crossValidationAsync": {
        await checkCredits(account, requestID);
        const task = name === "forecastAsync" ? "fc" : "cv";
        const raw = readBody(req);
        await prepareWork(task, account.id, raw);
        return ok(await submitJob(task, account.id, raw));
      }
      case "getForecastJob":
        return ok(jobRecord(await ownJob(account.id, params.job_id as string, "fc")));
      case "getCrossValidationJob":
        return ok(jobRecord(await ownJob(account.id, params.job_id as string, "cv")));
      case "modelParams": {
        const query = queryParams(req.path);
        const errors = new ErrorCollector();
        const model = query.get("model");
        const freqText = query.get("freq");
        if (model === null) errors.add({ type: "missing", loc: ["query", "model"], msg: "Field required", input: null });
        else validateAgainst({ kind: "literal", values: MODEL_NAMES }, model, ["query", "model"], errors);
        let freq: Freq | null = null;
        if (freqText === null) errors.add({ type: "missing", loc: ["query", "freq"], msg: "Field required", input: null });
        else {
          freq = freqFromAlias(freqText);
          if (freq === null || !(API_FREQS as readonly string[]).includes(freq)) {
            errors.add(valueError(["query", "freq"], `freq '${freqText}' is not a supported frequency; accepted: ${acceptedFreqAliases(API_FREQS)}`, freqText));
          }
        }
        if (errors.items.length > 0) throw new ValidationError(errors.items);
        const params = modelParams(model as ModelName, freq as Freq);
        return ok({ detail: { input_size: params.inputSize, horizon: params.horizon } });
      }
      case "legacy": {
        await checkCredits(account, requestID);
        const raw = readBody(req);
        const limitItems = legacyLimits(raw, limits);
        if (limitItems.length > 0) throw new ValidationError(limitItems);
        const errors = new ErrorCollector();
        const v = validateAgainst(LEGACY_REQUEST_SCHEMA, raw, ["body"], errors);
        if (v === INVALID) throw new ValidationError(errors.items);
        const body = v as { df: { ds: string; y: number }[]; h: number };
        const prepared = prepareLegacySeries(body.df, body.h);
        const validated = validateEndpointBody(
          "forecast",
          { series: { y: prepared.y, sizes: [prepared.y.length] }, freq: prepared.freq, h: body.h },
          { core: false, limits },
        );
        const result = await paid(account, requestID, prepared.y.length, async () => {
          const r = executeEndpoint("forecast", validated, null, pipelines);
          return { value: r, used: tokensUsed(r) };
        });
        return ok(
          {
            status: 200,
            data: {
              timestamp: prepared.future,
              value: result.mean,
              input_tokens: result.input_tokens,
              output_tokens: result.output_tokens,
              finetune_tokens: result.finetune_tokens,
            },
            message: "success",
            details: "request successful",
            code: "B10",
            requestID,
            support: SUPPORT_TEXT,
          },
          warningHeader(result.warnings),
        );
      }
    }
  };

  const handle = async (req: ServiceRequest): Promise<ServiceResponse> => {
    let requestID: string | null = null;
    try {
      const request: ServiceRequest = typeof req === "object" && req !== null ? req : ({} as ServiceRequest);
      requestID = freshUuid();
      const base = { ...JSON_HEADERS, "x-request-id": requestID };
      const match = matchRoute(request.method, request.path);
      if (match.kind === "notFound") return { status: 404, headers: base, body: { detail: "Not Found" } };
      if (match.kind === "methodNotAllowed") return { status: 405, headers: { ...base, allow: match.allow }, body: { detail: "Method Not Allowed" } };
      try {
        const res = await route(match.route, match.params, request, requestID);
        if (res.status === 204) return { status: 204, headers: { "x-request-id": requestID }, body: null };
        return { status: res.status, headers: { ...base, ...res.headers }, body: res.body };
      } catch (e) {
        if (e instanceof ValidationError) return { status: 422, headers: base, body: { detail: e.detail } };
        if (e instanceof HttpError) return { status: e.status, headers: { ...base, ...e.extraHeaders }, body: e.body };
        throw e;
      }
    } catch {
      return { status: 500, headers: requestID === null ? { ...JSON_HEADERS } : { ...JSON_HEADERS, "x-request-id": requestID }, body: { detail: "Internal Server Error" } };
    }
  };

  const runJobs = async (): Promise<RunJobsSummary> => {
    const summary: RunJobsSummary = { ran: 0, succeeded: 0, failed: 0 };
    for (const queued of await store.pendingJobs()) {
      const current = await store.getJob(queued.jobId);
      if (current === undefined || current.status !== "pending") continue;
      const running: StoredJob = { ...current, status: "running", updatedAt: now() };
      // Claim by compare-and-set: of concurrent runners exactly one moves a pending job to running; a cancelled job is never claimed.
      if (!(await store.updateJob(current.jobId, "pending", running))) continue;
      summary.ran++;
      let finished: StoredJob;
      try {
        let done: { value: unknown; used: number };
        if (running.task === "fc" || running.task === "cv") {
          done = (await prepareWork(running.task, running.accountId, running.request)).run();
        } else {
          const b = validateEndpointBody("finetune", running.request, { core: false, limits });
          const finetuned = await resolveFinetuned(running.accountId, b.finetuned_model_id);
          done = await runFinetune(running.accountId, b, finetuned);
        }
        await store.chargeTokens(running.accountId, done.used);
        finished = { ...running, status: "succeeded", result: done.value, updatedAt: now() };
        summary.succeeded++;
      } catch (e) {
        let message: string;
        if (e instanceof ValidationError) message = validationMessage(e);
        else if (e instanceof HttpError) message = String((e.body as { detail?: unknown }).detail ?? `HTTP ${e.status}`);
        else message = `internal error: ${e instanceof Error ? e.message : String(e)}`;
        finished = { ...running, status: "failed", error: message, updatedAt: now() };
        summary.failed++;
      }
      // Terminal states are final: only the claimer moves its running job on.
      await store.updateJob(running.jobId, "running", finished);
    }
    return summary;
  };

  return { handle, runJobs };
}

function legacyLimits(raw: unknown, limits: ServiceLimits): ErrorItem[] {
  const out: ErrorItem[] = [];
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return out;
  const r = raw as Record<string, unknown>;
  const df = Object.prototype.hasOwnProperty.call(r, "df") ? r.df : undefined;
  if (Array.isArray(df) && df.length > limits.maxValues) {
    out.push(valueError(["body", "df"], `the request sends ${df.length} rows, more than limits.maxValues = ${limits.maxValues}`));
  }
  const h = Object.prototype.hasOwnProperty.call(r, "h") ? r.h : undefined;
  if (typeof h === "number" && h > limits.maxHorizon) out.push(valueError(["body", "h"], `h = ${h} is more than limits.maxHorizon = ${limits.maxHorizon}`));
  if (typeof h === "number" && Number.isFinite(h) && h > limits.maxValues) out.push(valueError(["body", "h"], `the response would hold ${h} numbers, more than limits.maxValues = ${limits.maxValues}`));
  return out;
}

/** Job id prefixes: fine-tune, forecast, cross-validation. */
type JobTask = "ft" | "fc" | "cv";
const JOB_ID_REGEX = new RegExp(ASYNC_JOB_ID_PATTERN);

/** Random UUIDs where the runtime has `crypto.randomUUID`, else the fixed seeded sequence (such a runtime should inject `ids`). */
function randomIds(): () => string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto !== undefined && typeof crypto.randomUUID === "function") return () => crypto.randomUUID!();
  return seededIdSequence("forecastmodel-service");
}

/** Fresh ids tried for a new job before giving up (a repeating `ids` function). */
const JOB_ID_ATTEMPTS = 8;

/** Tokens a result charges: input + output + fine-tune. */
function tokensUsed(result: TokenCounts): number {
  return result.input_tokens + result.output_tokens + result.finetune_tokens;
}
