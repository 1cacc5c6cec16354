/**
 * `createService`: every route of docs/contract.md §2 as an async function
 * from a request ({method, path, headers, body}) to a response ({status,
 * headers, body}), with keys, credits, fine-tuned models, fine-tune jobs and
 * the older request form. No I/O: time, ids and storage are injected.
 * @module
 */
import { expandCategorical } from "./categorical.js";
import { ValidationError, valueError, type ErrorItem } from "./errors.js";
import type { FinetunedWeights, Freq, ModelName, SeriesData } from "../types.js";
import { seriesOffsets } from "../series/index.js";
import { isMissingValuesWarning, missingCount, missingValuesWarning } from "../series/missing.js";
import { MODEL_NAMES, modelParams } from "../model/config.js";
import { bearerToken, findAccountByKey, headerValue, keyIndex, type KeyEntry } from "./auth.js";
import { endpointRequest, runEndpoint } from "./entry-points.js";
import { seededIdSequence, toHex32, uuidLayout } from "./ids.js";
import { bodyBytes, readJsonBody } from "./json.js";
import { acceptedFreqText, freqRefusalAmong, readFreq } from "./freq.js";
import { BodyDecodeError, CONTENT_ENCODINGS, decodeContent } from "./encoding.js";
import { historicAnomalyBody, historicAnomalyFlags, scalarLevelItems, tailRowIndices } from "./historic-anomaly.js";
import { crossValidationShape, crossValidationSizeErrors, crossValidationWindowBody, crossValidationWindowSeries, crossValidationWindowShapeBody, mergeCrossValidation } from "./cross-validation.js";
import { legacyAnswer, readLegacyBody } from "./legacy.js";
import { openApiDocument } from "./openapi.js";
import { DEFAULT_PIPELINES, type ApiPipelines } from "./pipelines.js";
import {
  DEFAULT_SERVICE_LIMITS,
  checkRequestLimits,
  resolveLimits,
  validateEndpointBody,
  type ServiceLimits,
  type ValidatedBodies,
} from "./requests.js";
import { ErrorCollector, INVALID, isJsonObject, ownProperty, validateAgainst } from "./schema-validator.js";
import { API_FREQS, CORE_FREQS, MODEL_ID_PATTERN } from "./schemas.js";
import { createMemoryStore, type FinetunedModelRecord, type JobReservation, type ServiceStore, type StoredJob } from "./store.js";
import { splitWarnings, type ForecastResult, type TokenCounts } from "./results.js";
import { HttpError, JSON_HEADERS, notFoundModel, SUPPORT_TEXT, warningHeader } from "./responses.js";
import {
  cancelJob,
  JOB_ID_ATTEMPTS,
  jobRecord,
  ownJob,
  resolveJobLimits,
  runOneJob,
  type JobWork,
  runPendingJobs,
  submitJob,
  toJsonRequest,
  withLease,
  type JobClock,
  type JobLimits,
  type JobTask,
  type RunJobsSummary,
} from "./jobs.js";
import { matchRoute, queryParams, type RouteName } from "./routes.js";
import { crossValidationProgress, jobProgressWriter, jobStatusRecord } from "./job-progress.js";
import type { ProgressCallback } from "../progress.js";
import { canonicalModelName, modelAliasTable, modelItemsWithAliases, withCanonicalModel, type ModelAliases } from "./model-aliases.js";

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
  /**
   * Bounds of jobs and reservations (defaults `DEFAULT_JOB_LIMITS`): pending
   * jobs and values per account, how long finished jobs are kept, the lease
   * of a reservation of tokens.
   */
  readonly jobLimits?: Partial<JobLimits>;
  /** The pipelines behind the endpoints (default: the library's; stand-ins for tests and benchmarks). */
  readonly pipelines?: ApiPipelines;
  /**
   * Runs the paid work (every forecast, anomaly detection, historic
   * forecast, fine-tune and cross-validation window) elsewhere, e.g. on the
   * worker threads of `createPool` from `forecastmodel/pool`, so `handle`
   * never computes a model on the caller's thread: validation, keys,
   * credits and the store stay here. Given with `pipelines`, `createService`
   * throws (the pool runs the library's own pipelines).
   */
  readonly pool?: {
    /**
     * The JSON result of a typed request of `endpoint`, as `runEndpoint` with the library's pipelines computes it (on another thread);
     * `options.onProgress`, when the runner supports it, gets the work's progress (an async job's, see `ServiceStore.setJobProgress`).
     */
    runEndpoint(endpoint: "forecast" | "anomaly" | "historic" | "finetune", request: unknown, options?: { readonly onProgress?: ProgressCallback }): Promise<unknown>;
  };
  /**
   * Called after an async route stored a pending job, before it is answered:
   * hand the id to your own queue (e.g. BullMQ) whose workers call
   * `runJob(jobId)`. When it throws, the request is answered 500 and the job
   * stays pending (`runJobs` would still run it).
   */
  readonly onJobSubmitted?: (job: SubmittedJob) => void | Promise<void>;
  /**
   * Other names this service accepts for the library's models, alias →
   * model (default: none), e.g. `SDK_MODEL_ALIASES` for the hosted API's
   * Python SDK. An alias is accepted wherever a request names a model (the
   * `model` of every body, `GET /v2/model_params`'s `model`) and stands for
   * its model: the answers and the stored fine-tuned models give the
   * model's own name, and a fine-tuned model's base is compared by model
   * (`timegpt-1` matches a model fine-tuned from `forecastmodel-1`). An
   * unknown name stays a 422 `literal_error` that lists the models and the
   * aliases. An alias may not be one of the library's model names.
   */
  readonly modelAliases?: ModelAliases;
  /**
   * Accept quarterly and yearly frequencies (`Q`, `QS-DEC`, `Q-DEC`, `Y`,
   * `YS`, `A-DEC`, …) in request bodies and `GET /model_params`, as the core
   * functions do (default false: the specification's sub-daily steps, D, W
   * and M). A host serving the hosted API's Python SDK sets it: its users
   * send such data (its test suite forecasts `Q-DEC` and `Y` series).
   */
  readonly quarterlyAndYearly?: boolean;
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

export type { RunJobsSummary } from "./jobs.js";

/**
 * A service made by `createService`.
 * @category API rules
 */
export interface ForecastService {
  /** Answers one request; never rejects. */
  handle(request: ServiceRequest): Promise<ServiceResponse>;
  /** Runs every pending job, oldest first. */
  runJobs(): Promise<RunJobsSummary>;
  /**
   * Runs one job if it is still pending (claimed by compare-and-set, so of
   * concurrent runners exactly one runs it); null when it is not pending
   * (unknown, cancelled, running elsewhere or done). For a host whose own
   * queue delivers job ids (see `onJobSubmitted`).
   */
  runJob(jobId: string): Promise<JobRunOutcome | null>;
}

/**
 * A job accepted by an async route, as `onJobSubmitted` receives it.
 * @category Service
 */
export interface SubmittedJob {
  /** `<task>-<32 hex>`. */
  readonly jobId: string;
  /** `ft` (fine-tune), `fc` (forecast) or `cv` (cross-validation). */
  readonly task: JobTask;
  /** Owner. */
  readonly accountId: string;
}

/**
 * What `runJob` did.
 * @category Service
 */
export interface JobRunOutcome {
  /** The job run. */
  readonly jobId: string;
  /** Its final state. */
  readonly status: "succeeded" | "failed";
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
  readonly run: (onProgress?: ProgressCallback) => Promise<WorkOutcome>;
}

function bodyByteLength(body: unknown): number {
  if (typeof body === "string") return body.length;
  if (body instanceof ArrayBuffer) return body.byteLength;
  if (ArrayBuffer.isView(body)) return body.byteLength;
  return 0;
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
  if (options.pool !== undefined && options.pipelines !== undefined) throw new RangeError("createService: give pool or pipelines, not both (the pool runs the library's pipelines)");
  const pool = options.pool;
  /** The paid work of one typed request: on the pool when there is one, else here. */
  const runOn = async <E extends "forecast" | "anomaly" | "historic" | "finetune">(endpoint: E, request: Parameters<typeof runEndpoint<E>>[1], onProgress?: ProgressCallback): Promise<ReturnType<typeof runEndpoint<E>>> =>
    pool === undefined
      ? runEndpoint(endpoint, onProgress === undefined ? request : { ...request, onProgress }, pipelines)
      : ((await (onProgress === undefined ? pool.runEndpoint(endpoint, request) : pool.runEndpoint(endpoint, request, { onProgress }))) as ReturnType<typeof runEndpoint<E>>);
  const maxModels = options.maxFinetunedModels ?? 50;
  const jobLimits = resolveJobLimits(options.jobLimits);
  const jobClock: JobClock = { clock, resultTtlMs: jobLimits.resultTtlMs, leaseMs: jobLimits.leaseMs };
  const pendingQuota = { maxJobs: jobLimits.maxPendingJobs, maxValues: jobLimits.maxPendingValues };
  const now = (): string => clock().toISOString();
  const aliasTable = modelAliasTable(options.modelAliases);
  // the core functions' frequency classes (quarterly and yearly too) when the host asks for them
  const coreFreqs = options.quarterlyAndYearly === true;
  const freqClasses = coreFreqs ? CORE_FREQS : API_FREQS;
  const nowMs = (): number => clock().getTime();
  // reservation ids: the request's id (random across processes) and a counter (unique in this one, whatever `ids` repeats)
  let reservationCount = 0;
  const reservationId = (requestID: string): string => `${requestID}.${reservationCount++}`;

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

  /** The JSON body with an aliased `model` replaced by its model (see `ServiceOptions.modelAliases`). */
  const readModelBody = (req: ServiceRequest): unknown => withCanonicalModel(readBody(req), aliasTable);

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
  const runFinetune = async (accountId: string, b: ValidatedBodies["finetune"], finetuned: FinetunedWeights | null, onProgress?: ProgressCallback) => {
    const result = await runOn("finetune", endpointRequest("finetune", b, finetuned), onProgress);
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
    const id = reservationId(requestID);
    if (!(await store.reserveTokens(account.id, { id, tokens: Math.max(1, estimate), leaseMs: jobLimits.leaseMs }, account.credits, nowMs()))) throw apiError(429, requestID);
    let used = 0;
    try {
      const done = await withLease(store, account.id, id, jobLimits.leaseMs, clock, work);
      used = done.used;
      return done.value;
    } finally {
      await store.settleTokens(account.id, id, used);
    }
  };

  /**
   * Validates the body of an endpoint (422 on the spot) and resolves its
   * fine-tuned model; the returned work runs the endpoint, now (sync routes)
   * or later (async jobs). `extend` adds fields to the answer from the
   * validated body; `sdkInSample` marks the SDK's in-sample routes, where a
   * short series has one window (`HistoricInput.shortSeriesWindow`).
   */
  const endpointWork = async <E extends "forecast" | "anomaly" | "historic">(
    endpoint: E,
    accountId: string,
    raw: unknown,
    extend?: (value: Record<string, unknown>, b: ValidatedBodies[E]) => Record<string, unknown>,
    missingValues = false,
    sdkInSample = false,
  ): Promise<PreparedWork> => {
    const b = validateEndpointBody(endpoint, raw, { core: coreFreqs, limits, missingValues, shortSeriesWindow: sdkInSample });
    const finetuned = await resolveFinetuned(accountId, b.finetuned_model_id);
    // the typed request now: its rules (a series too short) are 422 items on the spot, also for async jobs
    const request = endpointRequest(endpoint, b, finetuned);
    return {
      estimate: b.series.y.length,
      run: async (onProgress) => {
        const r = (await runOn(endpoint, request, onProgress)) as TokenCounts & { warnings: string[] };
        const { body, warnings } = splitWarnings(r);
        const value = body as Record<string, unknown>;
        return { value: extend === undefined ? value : extend(value, b), warnings, used: tokensUsed(r) };
      },
    };
  };

  /** Runs prepared work as paid work (see `paid`). */
  const runPaid = (account: ServiceAccount, requestID: string, work: PreparedWork): Promise<WorkOutcome> =>
    paid(account, requestID, work.estimate, async () => {
      const done = await work.run();
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
      return endpointWork("historic", accountId, rest, (value, b) => ({ idxs: tailRowIndices(b.series.sizes, value.sizes as number[]), ...value }), false, true);
    }
    const { shape, errors: shapeErrors } = crossValidationShape(raw);
    if (shapeErrors.length > 0) throw new ValidationError(shapeErrors);
    // categorical features become 0/1 rows once, for the whole request (the labels of every window), hist_exog following them
    const categorical = expandCategorical(raw);
    if (categorical.errors.length > 0) throw new ValidationError(categorical.errors);
    const rawBody = categorical.raw as Record<string, unknown>;
    // the series and the model fields, checked once (the windows' budget is checked below)
    const { h: _h, n_windows: _n, step_size: _s, refit: _r, X_future: _xf, ...rest } = rawBody;
    const base = validateEndpointBody("historic", { ...rest, level: null, hist_exog: undefined }, { core: coreFreqs, missingValues: true, limits: { ...limits, maxNetworkWindows: Infinity, maxFinetuneWindows: Infinity } });
    // null or NaN in y: filled in base.series.y; each window's calibration skips them (its slice of the mask)
    const missing = base.missing ?? null;
    const finetuned = await resolveFinetuned(accountId, base.finetuned_model_id);
    const windowLimits = { ...limits, maxNetworkWindows: limits.maxNetworkWindows / shape.nWindows, maxFinetuneWindows: limits.maxFinetuneWindows / shape.nWindows };
    // from sizes alone, before a window is built: too short a series, the size limits and each window's share of the work budget
    const tooShort = crossValidationSizeErrors(base.series.sizes, shape);
    if (tooShort.length > 0) throw new ValidationError(tooShort);
    for (let w = 0; w < shape.nWindows; w++) {
      const items = checkRequestLimits("forecast", crossValidationWindowShapeBody(rawBody, base.series, shape, w), windowLimits);
      if (items.length > 0) throw new ValidationError(items);
    }
    const first = crossValidationWindowBody(rawBody, base.series, shape, 0);
    // every window shares the fields of the oldest: validated once, the windows' series are views made when the work runs
    const { series: _series, Xfuture: _future, ...fields } = endpointRequest("forecast", validateEndpointBody("forecast", first.body, { core: coreFreqs, limits: windowLimits }), finetuned);
    const histExog = { hist_exog: ownProperty(rawBody, "hist_exog") };
    // refit false: fine-tuned once, on the oldest window's history, and every window forecasts with those weights
    const tuneOnce = ownProperty(rawBody, "refit") === false && fields.finetune.steps > 0;
    return {
      estimate: base.series.y.length * shape.nWindows,
      run: async (onProgress) => {
        // the job's progress: the windows finished, or the steps of every window's fine-tuning (refit)
        const progress = crossValidationProgress(onProgress, shape.nWindows, tuneOnce ? 0 : fields.finetune.steps);
        let shared = fields;
        let tuned: ReturnType<typeof runEndpoint<"finetune">> | null = null;
        if (tuneOnce) {
          const oldest = crossValidationWindowSeries(histExog, base.series, shape, 0);
          tuned = await runOn("finetune", { ...fields, series: oldest.series }, progress?.tune);
          shared = { ...fields, finetuned: tuned.weights, finetune: { ...fields.finetune, steps: 0 } };
        }
        const pending: Promise<ReturnType<typeof runEndpoint<"forecast">>>[] = [];
        const origins: number[][] = [];
        for (let w = 0; w < shape.nWindows; w++) {
          const win = crossValidationWindowSeries(histExog, base.series, shape, w);
          const windowMissing = missing === null ? {} : { missing: windowMask(missing, base.series.sizes, win.series) };
          // on a pool the windows run in parallel; here one after the other
          const result = runOn("forecast", { ...shared, ...windowMissing, series: win.series, Xfuture: win.Xfuture }, progress?.window(w));
          if (progress !== undefined) void result.then(progress.windowDone, () => undefined);
          if (pool === undefined) await result;
          pending.push(result);
          origins.push(win.origins);
        }
        const results = await Promise.all(pending);
        const merged = mergeCrossValidation(results, origins, shape.h);
        // (the cross-validation answer has no per-feature arrays to fold back)
        const { warnings: windowWarnings, ...body } = merged;
        // one warning for the request's missing values instead of one per window
        const warnings = missing === null ? windowWarnings : [missingValuesWarning(missingCount(missing), missing.length), ...windowWarnings.filter((x) => !isMissingValuesWarning(x))];
        if (tuned !== null) {
          body.finetune_tokens += tuned.finetune_tokens;
          warnings.unshift(...tuned.warnings.filter((x) => !warnings.includes(x)));
        }
        return { value: body, warnings, used: tokensUsed(body) };
      },
    };
  };

  const ok = (body: unknown, headers: Record<string, string> = {}): { status: number; body: unknown; headers: Record<string, string> } => ({ status: 200, body, headers });

  /** The minute and the month of now (ISO prefixes), the periods calls are counted in. */
  const periods = (): [string, string] => {
    const at = now();
    return [at.slice(0, 16), at.slice(0, 7)];
  };

  const route = async (name: RouteName, params: Record<string, string>, req: ServiceRequest, requestID: string) => {
    if (name === "openapi") return ok(openApiDocument());
    if (name === "validateKey") {
      const presented = bearerToken(req.headers);
      const valid = presented !== null && findAccountByKey(keysByHash, presented) !== null;
      return valid ? ok({ detail: "API key is valid" }) : { status: 401, body: { detail: "API key is invalid" }, headers: { "www-authenticate": "Bearer" } };
    }
    const account = authenticate(name, req.headers, requestID);
    if (name === "usage") {
      const counts = (await store.callCounts?.(account.id, ...periods())) ?? { minute: 0, month: 0 };
      return ok({ minute: { limit: -1, usage: counts.minute }, month: { limit: -1, usage: counts.month } });
    }
    const res = await answer(name, account, params, req, requestID);
    if (CALL_ROUTES.has(name) && res.status === 200) await store.countCall?.(account.id, ...periods());
    return res;
  };

  /** The answer of an authenticated route. */
  const answer = async (name: RouteName, account: ServiceAccount, params: Record<string, string>, req: ServiceRequest, requestID: string) => {
    switch (name) {
      case "forecast":
      case "anomaly":
      case "historic": {
        await checkCredits(account, requestID);
        const done = await runPaid(account, requestID, await endpointWork(name, account.id, readModelBody(req)));
        return ok(done.value, { ...warningHeader(done.warnings), ...(name === "historic" ? { deprecation: "true" } : {}) });
      }
      case "finetune": {
        await checkCredits(account, requestID);
        const b = validateEndpointBody("finetune", readModelBody(req), { core: coreFreqs, limits, missingValues: true });
        const finetuned = await resolveFinetuned(account.id, b.finetuned_model_id);
        await precheckNewModel(account.id, b.output_model_id);
        return ok(await paid(account, requestID, b.series.y.length, () => runFinetune(account.id, b, finetuned)));
      }
      case "finetuneAsync": {
        await checkCredits(account, requestID);
        const b = validateEndpointBody("finetune", readModelBody(req), { core: coreFreqs, limits, missingValues: true });
        await resolveFinetuned(account.id, b.finetuned_model_id);
        await precheckNewModel(account.id, b.output_model_id);
        return ok(await submitPaid(account, requestID, "ft", toJsonRequest(b), b.series.y.length));
      }
      case "getJob":
        return ok(await jobStatusRecord(store, await ownJob(store, account.id, params.job_id as string, "ft", jobClock)));
      case "cancelJob":
      case "cancelAnyJob": {
        const job = await ownJob(store, account.id, params.job_id as string, name === "cancelJob" ? "ft" : null, jobClock);
        const cancelled = await cancelJob(store, job, jobClock);
        // only the cancel that moved the job from pending gets here: its reservation is released once
        if (job.reservation !== undefined) await store.settleTokens(job.accountId, job.reservation.id, 0);
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
        const mapped = historicAnomalyBody(readModelBody(req));
        if (mapped.errors.length > 0) throw new ValidationError(mapped.errors);
        const work = await endpointWork(
          "historic",
          account.id,
          mapped.body,
          (value, b) => ({
            ...value,
            anomaly: observedOnly(historicAnomalyFlags(b.series.y, b.series.sizes, value as unknown as ForecastResult, (b.level as readonly number[])[0] as number), b, value.sizes as number[]),
          }),
          true,
          true,
        ).catch((e: unknown) => {
          throw mapped.scalarLevel && e instanceof ValidationError ? new ValidationError(scalarLevelItems(e.detail)) : e;
        });
        const done = await runPaid(account, requestID, work);
        return ok(done.value, warningHeader(done.warnings));
      }
      case "crossValidation": {
        await checkCredits(account, requestID);
        const done = await runPaid(account, requestID, await prepareWork("cv", account.id, readModelBody(req)));
        return ok(done.value, warningHeader(done.warnings));
      }
      case "forecastAsync":
      case "crossValidationAsync": {
        await checkCredits(account, requestID);
        const task = name === "forecastAsync" ? "fc" : "cv";
        const raw = readModelBody(req);
        const work = await prepareWork(task, account.id, raw);
        return ok(await submitPaid(account, requestID, task, raw, work.estimate));
      }
      case "getForecastJob":
        return ok(await jobStatusRecord(store, await ownJob(store, account.id, params.job_id as string, "fc", jobClock)));
      case "getCrossValidationJob":
        return ok(await jobStatusRecord(store, await ownJob(store, account.id, params.job_id as string, "cv", jobClock)));
      case "modelParams": {
        const query = queryParams(req.path);
        const errors = new ErrorCollector();
        const given = query.get("model");
        const model = given === null ? null : (canonicalModelName(given, aliasTable) as string);
        const freqText = query.get("freq");
        if (model === null) errors.add({ type: "missing", loc: ["query", "model"], msg: "Field required", input: null });
        else validateAgainst({ kind: "literal", values: MODEL_NAMES }, model, ["query", "model"], errors);
        let freq: Freq | null = null;
        if (freqText === null) errors.add({ type: "missing", loc: ["query", "freq"], msg: "Field required", input: null });
        else {
          freq = readFreq(freqText, freqClasses);
          if (freq === null) {
            errors.add(valueError(["query", "freq"], `freq '${freqText}' is not a supported frequency; accepted: ${acceptedFreqText(freqClasses)} (${freqRefusalAmong(freqText, freqClasses)})`, freqText));
          }
        }
        if (errors.items.length > 0) throw new ValidationError(errors.items);
        const params = modelParams(model as ModelName, freq as Freq);
        return ok({ detail: { input_size: params.inputSize, horizon: params.horizon } });
      }
      case "legacy": {
        await checkCredits(account, requestID);
        const { forecastBody, future } = readLegacyBody(readBody(req), limits);
        const done = await runPaid(account, requestID, await endpointWork("forecast", account.id, forecastBody));
        return ok(legacyAnswer(done.value as Parameters<typeof legacyAnswer>[0], future, requestID), warningHeader(done.warnings));
      }
      default:
        // openapi, validateKey and usage are answered by `route` before any account work
        throw new Error(`route ${name} has no answer`);
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
        if (e instanceof ValidationError) return { status: 422, headers: base, body: { detail: modelItemsWithAliases(e.detail, aliasTable) } };
        if (e instanceof HttpError) return { status: e.status, headers: { ...base, ...e.extraHeaders }, body: e.body };
        throw e;
      }
    } catch {
      return { status: 500, headers: requestID === null ? { ...JSON_HEADERS } : { ...JSON_HEADERS, "x-request-id": requestID }, body: { detail: "Internal Server Error" } };
    }
  };

  /**
   * Stores a pending job under a fresh id (429 when the account's pending
   * jobs would pass `jobLimits`), tells the host (`onJobSubmitted`), and
   * answers its id. A reservation is released when the job is not stored.
   */
  const submit = async (task: JobTask, account: ServiceAccount, requestID: string, request: unknown, reservation: JobReservation | null): Promise<{ job_id: string }> => {
    let answer: { job_id: string } | "limit";
    try {
      answer = await submitJob(store, ids, now(), task, account.id, request, reservation, pendingQuota);
    } catch (e) {
      // not stored: its reservation is released here (a stored job's at its end)
      if (reservation !== null) await store.settleTokens(account.id, reservation.id, 0);
      throw e;
    }
    if (answer === "limit") {
      if (reservation !== null) await store.settleTokens(account.id, reservation.id, 0);
      throw pendingLimitError(requestID);
    }
    // stored: a pending job's reservation is held until the job ends (leased again when it runs). A runner
    // that claimed the job before this line has its lease undone here until its next renewal (leaseMs / 3)
    if (reservation !== null) await store.renewReservation(account.id, reservation.id, null, nowMs());
    if (options.onJobSubmitted !== undefined) await options.onJobSubmitted({ jobId: answer.job_id, task, accountId: account.id });
    return answer;
  };

  const pendingLimitError = (requestID: string): HttpError =>
    new HttpError(429, {
      detail: `this account already has the most pending jobs allowed (jobLimits: at most ${jobLimits.maxPendingJobs} jobs holding at most ${jobLimits.maxPendingValues} values); wait for one to finish or cancel one (POST /v2/async/jobs/{job_id}/cancel)`,
      requestID,
    });

  /**
   * Submits a job as paid work (see `paid`): for an account without a
   * payment method, `estimate` tokens are reserved first (429 on the spot
   * when its credits are used up by what is charged and reserved) and
   * recorded on the job, to be settled when it ends.
   */
  const submitPaid = async (account: ServiceAccount, requestID: string, task: JobTask, request: unknown, estimate: number): Promise<{ job_id: string }> => {
    if (account.hasPaymentMethod) return submit(task, account, requestID, request, null);
    const reservation = { id: reservationId(requestID), tokens: Math.max(1, estimate) };
    if (!(await store.reserveTokens(account.id, { ...reservation, leaseMs: jobLimits.leaseMs }, account.credits, nowMs()))) throw apiError(429, requestID);
    return submit(task, account, requestID, request, reservation);
  };

  /**
   * The work of a stored job: forecast and cross-validation as their routes,
   * fine-tune with storing the model. Its reservation is leased while it
   * runs and released when the work fails; once the runner has recorded the
   * result, `settle` charges the tokens used (nothing when the job had been
   * declared failed meanwhile: its lease lapsed).
   */
  const runStoredJob = async (job: StoredJob): Promise<JobWork> => {
    const reservation = job.reservation ?? null;
    // the job's progress, written to the store at a bounded rate (a store without setJobProgress: none)
    const progress = jobProgressWriter(store, job.jobId, nowMs);
    const work = async (): Promise<{ value: unknown; used: number }> => {
      try {
        if (job.task === "fc" || job.task === "cv") return await (await prepareWork(job.task, job.accountId, job.request)).run(progress?.report);
        const b = validateEndpointBody("finetune", job.request, { core: coreFreqs, limits });
        const finetuned = await resolveFinetuned(job.accountId, b.finetuned_model_id);
        return await runFinetune(job.accountId, b, finetuned, progress?.report);
      } finally {
        await progress?.settled();
      }
    };
    if (reservation === null) {
      const done = await work();
      return { value: done.value, settle: async (kept) => (kept ? store.chargeTokens(job.accountId, done.used) : undefined) };
    }
    // claimed: from now on the reservation lapses unless this process keeps renewing it
    await store.renewReservation(job.accountId, reservation.id, jobLimits.leaseMs, nowMs());
    let done: { value: unknown; used: number };
    try {
      done = await withLease(store, job.accountId, reservation.id, jobLimits.leaseMs, clock, work);
    } catch (e) {
      await store.settleTokens(job.accountId, reservation.id, 0);
      throw e;
    }
    return { value: done.value, settle: (kept) => store.settleTokens(job.accountId, reservation.id, kept ? done.used : 0) };
  };

  const runJobs = (): Promise<RunJobsSummary> => runPendingJobs(store, jobClock, runStoredJob);

  const runJob = async (jobId: string): Promise<JobRunOutcome | null> => {
    const status = await runOneJob(store, jobClock, jobId, runStoredJob);
    return status === null ? null : { jobId, status };
  };

  return { handle, runJobs, runJob };
}



/** Random UUIDs where the runtime has `crypto.randomUUID`, else the fixed seeded sequence (such a runtime should inject `ids`). */
function randomIds(): () => string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto !== undefined && typeof crypto.randomUUID === "function") return () => crypto.randomUUID!();
  return seededIdSequence("forecastmodel-service");
}

/** Routes that count as a call of the account in GET /usage: every request for model work (sync or async). */
const CALL_ROUTES: ReadonlySet<RouteName> = new Set<RouteName>([
  "forecast",
  "anomaly",
  "historic",
  "finetune",
  "finetuneAsync",
  "anomalyHistoric",
  "crossValidation",
  "forecastAsync",
  "crossValidationAsync",
  "legacy",
]);

/** Historical anomaly flags with a filled (missing) point never flagged: it has no actual value. */
function observedOnly(flags: boolean[], b: { readonly series: { readonly sizes: readonly number[] }; readonly missing?: Uint8Array | null }, outputSizes: readonly number[]): boolean[] {
  const missing = b.missing;
  if (missing === undefined || missing === null) return flags;
  const rows = tailRowIndices(b.series.sizes, outputSizes);
  return flags.map((flag, r) => flag && missing[rows[r]!] !== 1);
}

/** Window's share of a request's missing-value mask: each series' first points, laid out as the window's series. */
function windowMask(missing: Uint8Array, sizes: readonly number[], win: SeriesData): Uint8Array {
  const out = new Uint8Array(win.y.length);
  const starts = seriesOffsets(sizes);
  for (let i = 0; i < win.sizes.length; i++) out.set(missing.subarray(starts[i]!, starts[i]! + win.sizes[i]!), win.offsets[i]!);
  return out;
}

/** Tokens a result charges: input + output + fine-tune. */
function tokensUsed(result: TokenCounts): number {
  return result.input_tokens + result.output_tokens + result.finetune_tokens;
}
