/**
 * The public types of `createService`: its accounts, options, requests,
 * responses, jobs and the service itself.
 * @module
 */
import type { JobLimits, JobTask, RunJobsSummary } from "./jobs.js";
import type { ProgressCallback } from "../progress.js";
import type { ModelAliases } from "./model-aliases.js";
import type { ApiPipelines } from "./pipelines.js";
import type { ServiceLimits } from "./requests.js";
import type { ServiceStore } from "./store.js";

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
  /**
   * Report `weights_x`, the fitted coefficient of each exogenous feature, on
   * answers with features (default true, as the contract defines it). A host
   * serving the hosted API's Python SDK sets false: the hosted service no
   * longer returns the weights, and that SDK's own test suite checks that a
   * forecast with features leaves its client without them. The field is
   * then null; means, intervals and feature contributions are unchanged.
   */
  readonly featureWeights?: boolean;
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

