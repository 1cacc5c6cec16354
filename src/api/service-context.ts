/**
 * What every route of a service shares: its accounts and keys, clock, ids,
 * limits, store, pipelines and model aliases, resolved once from
 * `ServiceOptions` by `createContext`, and the steps of the request pipeline
 * that need them (key, credits, body).
 * @module
 */
import type { FinetunedWeights, ModelFreq } from "../types.js";
import { bearerToken, findAccountByKey, headerValue, keyIndex, type KeyEntry, type KeyIndex } from "./auth.js";
import { BodyDecodeError, CONTENT_ENCODINGS, decodeContent } from "./encoding.js";
import { runEndpoint } from "./entry-points.js";
import type { ProgressCallback } from "../progress.js";
import { ValidationError, valueError } from "./errors.js";
import { seededIdSequence, toHex32, uuidLayout } from "./ids.js";
import { resolveJobLimits, type JobClock, type JobLimits } from "./jobs.js";
import { bodyBytes, readJsonBody } from "./json.js";
import { modelAliasTable, withCanonicalModel } from "./model-aliases.js";
import { DEFAULT_PIPELINES, type ApiPipelines } from "./pipelines.js";
import { DEFAULT_SERVICE_LIMITS, resolveLimits, type ServiceLimits } from "./requests.js";
import { HttpError, notFoundModel, SUPPORT_TEXT } from "./responses.js";
import { API_FREQS, CORE_FREQS } from "./schemas.js";
import type { ServiceAccount, ServiceOptions, ServiceRequest } from "./service-types.js";
import { createMemoryStore, type PendingJobQuota, type ServiceStore } from "./store.js";

/** The endpoints whose paid work runs on a pipeline (here or on a pool). */
export type PipelineEndpoint = "forecast" | "anomaly" | "historic" | "finetune";

/** A service's shared state, made once by `createContext`. */
export interface ServiceContext {
  /** Accounts by id. */
  readonly accounts: ReadonlyMap<string, ServiceAccount>;
  /** The accounts' keys, hashed. */
  readonly keysByHash: KeyIndex;
  /** Current time. */
  readonly clock: () => Date;
  /** Fresh ids. */
  readonly ids: () => string;
  /** Size limits and work budget. */
  readonly limits: ServiceLimits;
  /** Jobs, fine-tuned models and tokens. */
  readonly store: ServiceStore;
  /** The pipelines run on this thread when there is no pool. */
  readonly pipelines: ApiPipelines;
  /** Runs the paid work elsewhere when given. */
  readonly pool: ServiceOptions["pool"];
  /** Most fine-tuned models per account. */
  readonly maxModels: number;
  /** Bounds of jobs and reservations. */
  readonly jobLimits: JobLimits;
  /** The job runner's clock and lease. */
  readonly jobClock: JobClock;
  /** Most pending jobs and values per account. */
  readonly pendingQuota: PendingJobQuota;
  /** Model aliases, alias → model. */
  readonly aliasTable: ReturnType<typeof modelAliasTable>;
  /** Whether bodies may use the core functions' frequencies (quarterly, yearly). */
  readonly coreFreqs: boolean;
  /** The frequency classes bodies and `GET /model_params` accept. */
  readonly freqClasses: readonly ModelFreq[];
  /** Whether answers report `weights_x` (`ServiceOptions.featureWeights`). */
  readonly featureWeights: boolean;
  /** Called after an async route stored a pending job. */
  readonly onJobSubmitted: ServiceOptions["onJobSubmitted"];
  /** Reservations made so far by this service (the counter of `reservationId`). */
  reservations: number;
}

/**
 * Resolves a service's options: accounts and keys checked, defaults filled.
 *
 * @throws RangeError for invalid options (a key used twice, an empty key, negative credits, pool with pipelines).
 */
export function createContext(options: ServiceOptions): ServiceContext {
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
  if (options.pool !== undefined && options.pipelines !== undefined) throw new RangeError("createService: give pool or pipelines, not both (the pool runs the library's pipelines)");
  const clock = options.clock ?? ((): Date => new Date(0));
  const jobLimits = resolveJobLimits(options.jobLimits);
  // the core functions' frequency classes (quarterly and yearly too) when the host asks for them
  const coreFreqs = options.quarterlyAndYearly === true;
  return {
    accounts,
    keysByHash: keyIndex(keys),
    clock,
    ids: options.ids ?? randomIds(),
    limits: resolveLimits(options.limits, DEFAULT_SERVICE_LIMITS),
    store: options.store ?? createMemoryStore(),
    pipelines: options.pipelines ?? DEFAULT_PIPELINES,
    pool: options.pool,
    maxModels: options.maxFinetunedModels ?? 50,
    jobLimits,
    jobClock: { clock, resultTtlMs: jobLimits.resultTtlMs, leaseMs: jobLimits.leaseMs },
    pendingQuota: { maxJobs: jobLimits.maxPendingJobs, maxValues: jobLimits.maxPendingValues },
    aliasTable: modelAliasTable(options.modelAliases),
    coreFreqs,
    freqClasses: coreFreqs ? CORE_FREQS : API_FREQS,
    featureWeights: options.featureWeights !== false,
    onJobSubmitted: options.onJobSubmitted,
    reservations: 0,
  };
}

/** Random UUIDs where the runtime has `crypto.randomUUID`, else the fixed seeded sequence (such a runtime should inject `ids`). */
function randomIds(): () => string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto !== undefined && typeof crypto.randomUUID === "function") return () => crypto.randomUUID!();
  return seededIdSequence("forecastmodel-service");
}

/** A fresh UUID (request ids, generated model ids) from the service's ids. */
export function freshUuid(ctx: ServiceContext): string {
  return uuidLayout(toHex32(String(ctx.ids())));
}

/** Now, as an ISO text. */
export function nowText(ctx: ServiceContext): string {
  return ctx.clock().toISOString();
}

/** Now, in milliseconds since the epoch. */
export function nowMs(ctx: ServiceContext): number {
  return ctx.clock().getTime();
}

/** A reservation id: the request's id (random across processes) and a counter (unique in this one, whatever `ids` repeats). */
export function reservationId(ctx: ServiceContext, requestID: string): string {
  return `${requestID}.${ctx.reservations++}`;
}

/** The paid work of one typed request: on the pool when there is one, else here; `onProgress` gets its progress. */
export async function runOn<E extends PipelineEndpoint>(
  ctx: ServiceContext,
  endpoint: E,
  request: Parameters<typeof runEndpoint<E>>[1],
  onProgress?: ProgressCallback,
): Promise<ReturnType<typeof runEndpoint<E>>> {
  const result =
    ctx.pool === undefined
      ? await runEndpoint(endpoint, onProgress === undefined ? request : { ...request, onProgress }, ctx.pipelines)
      : ((await (onProgress === undefined ? ctx.pool.runEndpoint(endpoint, request) : ctx.pool.runEndpoint(endpoint, request, { onProgress }))) as ReturnType<typeof runEndpoint<E>>);
  return ctx.featureWeights ? result : withoutFeatureWeights(result);
}

/** A result whose `weights_x` (when it has one) is null: the host does not report the features' weights (`ServiceOptions.featureWeights`). */
function withoutFeatureWeights<T>(result: T): T {
  const r = result as { weights_x?: unknown };
  return r !== null && typeof r === "object" && r.weights_x !== undefined && r.weights_x !== null ? ({ ...r, weights_x: null } as T) : result;
}

/** The 401 (no such key) or 429 (credits used up) of the API. */
export function apiError(status: 401 | 429, requestID: string): HttpError {
  return status === 401
    ? new HttpError(401, { data: null, message: "Invalid API key", details: "Key not found", code: "A12", requestID, support: SUPPORT_TEXT }, { "www-authenticate": "Bearer" })
    : new HttpError(429, {
        data: null,
        message: "Too many requests",
        details: "Free credits exhausted: add a payment method to continue",
        code: "A21",
        requestID,
        support: SUPPORT_TEXT,
      });
}

/** How a route reads its key: the bearer token, or the older form's `x-api-key` header. */
export type KeyHeader = "bearer" | "x-api-key";

/** The account of the presented key (401 when there is none). */
export function authenticate(ctx: ServiceContext, keyHeader: KeyHeader, headers: unknown, requestID: string): ServiceAccount {
  const presented = keyHeader === "x-api-key" ? headerValue(headers, "x-api-key") : bearerToken(headers);
  const accountId = presented === null ? null : findAccountByKey(ctx.keysByHash, presented);
  const account = accountId === null ? undefined : ctx.accounts.get(accountId);
  if (account === undefined) throw apiError(401, requestID);
  return account;
}

/** Whether the bearer token of `headers` is a key of the service. */
export function isKnownBearer(ctx: ServiceContext, headers: unknown): boolean {
  const presented = bearerToken(headers);
  return presented !== null && findAccountByKey(ctx.keysByHash, presented) !== null;
}

/** 429 when an account without a payment method has used up its credits. */
export async function checkCredits(ctx: ServiceContext, account: ServiceAccount, requestID: string): Promise<void> {
  if (account.hasPaymentMethod) return;
  const spent = await ctx.store.spentTokens(account.id);
  if (account.credits - spent <= 0) throw apiError(429, requestID);
}

function bodyByteLength(body: unknown): number {
  if (typeof body === "string") return body.length;
  if (body instanceof ArrayBuffer) return body.byteLength;
  if (ArrayBuffer.isView(body)) return body.byteLength;
  return 0;
}

function bodyTooLong(size: number, limits: ServiceLimits): ValidationError {
  return new ValidationError([valueError(["body"], `the body has ${size} bytes, more than limits.maxBodyBytes = ${limits.maxBodyBytes}`)]);
}

/** The body decoded by its content-encoding (415 for an unknown one, 422 for a corrupt or too long one). */
function decodedBody(req: ServiceRequest, limits: ServiceLimits): unknown {
  const body = req.body;
  const encoding = headerValue(req.headers, "content-encoding");
  if (encoding === null || ["", "identity"].includes(encoding.trim().toLowerCase())) return body;
  const size = bodyByteLength(body);
  if (size > limits.maxBodyBytes) throw bodyTooLong(size, limits);
  const bytes = bodyBytes(body);
  try {
    if (bytes === null) throw new BodyDecodeError(CONTENT_ENCODINGS.some((e) => e === encoding.trim().toLowerCase()) ? "corrupt" : "unsupported", `a body with content-encoding '${encoding}' must be given as bytes (Uint8Array or ArrayBuffer)`);
    return decodeContent(bytes, encoding, limits.maxBodyBytes);
  } catch (e) {
    if (!(e instanceof BodyDecodeError)) throw e;
    if (e.reason === "unsupported") throw new HttpError(415, { detail: e.message });
    throw new ValidationError([valueError(["body"], e.message)]);
  }
}

/** The request's JSON body, decoded and parsed (422 when missing, too long or not JSON). */
export function readBody(ctx: ServiceContext, req: ServiceRequest): unknown {
  const body = decodedBody(req, ctx.limits);
  const size = bodyByteLength(body);
  if (size > ctx.limits.maxBodyBytes) throw bodyTooLong(size, ctx.limits);
  const read = readJsonBody(body);
  if (read.kind === "invalid") throw new ValidationError([read.item]);
  if (read.kind === "missing") throw new ValidationError([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
  return read.value;
}

/** The JSON body with an aliased `model` replaced by its model (see `ServiceOptions.modelAliases`). */
export function readModelBody(ctx: ServiceContext, req: ServiceRequest): unknown {
  return withCanonicalModel(readBody(ctx, req), ctx.aliasTable);
}

/** The weights of a named fine-tuned model of the account (404 when there is none), null when none is named. */
export async function resolveFinetuned(ctx: ServiceContext, accountId: string, id: string | null): Promise<FinetunedWeights | null> {
  if (id === null) return null;
  const found = await ctx.store.getModel(accountId, id);
  if (found === undefined) throw notFoundModel();
  return found.weights;
}
