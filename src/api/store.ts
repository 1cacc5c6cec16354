/**
 * Where a service keeps what outlives a request: fine-tune jobs, fine-tuned
 * models and tokens spent per account. Async, so a host can back it with a
 * database; the default keeps everything in memory.
 * @module
 */
import type { Progress } from "../progress.js";
import type { FinetunedWeights, FinetuneDepth, Freq, LossName, ModelName } from "../types.js";

/**
 * Lifecycle states of a job (terminal: succeeded, failed, cancelled).
 * @category API rules
 */
export type ApiJobStatus = "pending" | "running" | "succeeded" | "failed" | "cancelled";

/**
 * A job as stored. `request` is the validated request body as plain JSON.
 * @category API rules
 */
export interface StoredJob {
  /** `<task prefix>-<32 hex>`, e.g. `ft-…`. */
  readonly jobId: string;
  /** Task prefix: `ft` (fine-tune). */
  readonly task: string;
  /** Owner. */
  readonly accountId: string;
  /** Current state. */
  readonly status: ApiJobStatus;
  /** The request to run (JSON). */
  readonly request: unknown;
  /** The task output; only when succeeded. */
  readonly result: unknown;
  /** Failure detail; only when failed. */
  readonly error: string | null;
  /** ISO-8601 time the job was accepted. */
  readonly createdAt: string;
  /** ISO-8601 time of the last state transition. */
  readonly updatedAt: string;
  /**
   * The reservation made at submission for an account without a payment
   * method (`reserveTokens`): its id and tokens. Held without a lease while
   * the job is pending, leased while it runs, settled with the tokens used
   * when the job succeeds, released when it fails or is cancelled. Absent:
   * nothing reserved (the tokens are charged when the job ends).
   */
  readonly reservation?: JobReservation;
  /**
   * While the job runs: the ISO-8601 time by which its runner must renew
   * the job (it does, every third of `JobLimits.leaseMs`, while the work
   * runs). A running job read after this time is answered failed: the
   * process running it stopped. Absent: no lease (a job stored by an older
   * release, or not running).
   */
  readonly leaseUntil?: string;
  /**
   * Numbers the job's request holds, counted against the account's pending
   * values (`PendingJobQuota.maxValues`) while the job is pending. Absent: 0.
   */
  readonly values?: number;
}

/**
 * A job's reservation of tokens: its id and the tokens it holds.
 * @category Service
 */
export interface JobReservation {
  /** Reservation id (`TokenReservation.id`). */
  readonly id: string;
  /** Tokens reserved. */
  readonly tokens: number;
}

/**
 * What an account may have pending (jobs accepted and not yet claimed by a
 * runner), checked by `insertJob` atomically with the insert.
 * @category Service
 */
export interface PendingJobQuota {
  /** Most pending jobs of one account. */
  readonly maxJobs: number;
  /** Most numbers held by one account's pending jobs (the sum of their `values`). */
  readonly maxValues: number;
}

/**
 * Outcome of inserting a job: stored, an id that exists (nothing written),
 * or the account's pending quota would be passed (nothing written).
 * @category Service
 */
export type JobInsertOutcome = "ok" | "exists" | "limit";

/**
 * A reservation of tokens (see `ServiceStore.reserveTokens`).
 * @category Service
 */
export interface TokenReservation {
  /** Unique id of the reservation (settled and renewed by it). */
  readonly id: string;
  /** Tokens held. */
  readonly tokens: number;
  /**
   * Lease in milliseconds: the reservation lapses (its tokens are free
   * again) `leaseMs` after it was made or last renewed; null: held until
   * settled.
   */
  readonly leaseMs: number | null;
}

/**
 * A fine-tuned model record as the API returns it (docs/contract.md §5).
 * @category API rules
 */
export interface FinetunedModelRecord {
  /** Model id (`^[a-zA-Z0-9\-_]{1,36}$`). */
  readonly id: string;
  /** ISO-8601 creation time. */
  readonly created_at: string;
  /** The fine-tuned model it started from, or the string "None". */
  readonly base_model_id: string;
  /** Fine-tune steps. */
  readonly steps: number;
  /** Fine-tune depth. */
  readonly depth: FinetuneDepth;
  /** Loss. */
  readonly loss: LossName;
  /** Base model name. */
  readonly model: ModelName;
  /** Frequency of the training series. */
  readonly freq: Freq;
  /** Always "user". */
  readonly created_by: "user";
}

/**
 * A fine-tuned model as stored: its record, owner and weights.
 * @category API rules
 */
export interface StoredFinetunedModel {
  /** Owner. */
  readonly accountId: string;
  /** Public record. */
  readonly record: FinetunedModelRecord;
  /** Parameters (only what changed). */
  readonly weights: FinetunedWeights;
}

/**
 * Outcome of inserting a fine-tuned model.
 * @category API rules
 */
export type ModelInsertOutcome = "ok" | "exists" | "limit";

/**
 * Calls of an account in one minute and one month (GET /usage).
 * @category Service
 */
export interface CallCounts {
  /** Calls in the minute asked for. */
  readonly minute: number;
  /** Calls in the month asked for. */
  readonly month: number;
}

/**
 * Persistence of a service. Every method may be async; a host implements it
 * over its own database. Ids of models are per account.
 * @category Service
 */
export interface ServiceStore {
  /**
   * A job by id (any account), or undefined: unknown, or finished and past
   * its expiry (`updateJob`'s `ttlMs`) at `nowMs` (ms since the epoch, from
   * the service's clock; a store on a server with its own clock, such as
   * Redis key expiry, may ignore it).
   */
  getJob(jobId: string, nowMs?: number): Promise<StoredJob | undefined>;
  /**
   * Creates a job: "exists" (nothing written) when a job with its id exists;
   * "limit" (nothing written) when the job is pending and its account's
   * pending jobs, with it, would be more than `quota.maxJobs` or hold more
   * than `quota.maxValues` values (`StoredJob.values`); "ok" otherwise.
   * Atomic. A job counts as pending for the quota until `updateJob` moves it
   * from pending.
   */
  insertJob(job: StoredJob, quota?: PendingJobQuota): Promise<JobInsertOutcome>;
  /**
   * Replaces a job only if its stored status is still `expected`
   * (compare-and-set; false, nothing written, otherwise). Atomic: of two
   * concurrent claims of one pending job exactly one succeeds. With
   * `expiry`, the job is forgotten (`getJob` answers undefined, its memory
   * is freed) `expiry.ttlMs` after `expiry.nowMs`.
   */
  updateJob(jobId: string, expected: ApiJobStatus, next: StoredJob, expiry?: { readonly ttlMs: number; readonly nowMs: number }): Promise<boolean>;
  /** Pending jobs, oldest first. */
  pendingJobs(): Promise<StoredJob[]>;
  /** A model of an account, or undefined. */
  getModel(accountId: string, modelId: string): Promise<StoredFinetunedModel | undefined>;
  /** Models of an account, oldest first. */
  listModels(accountId: string): Promise<StoredFinetunedModel[]>;
  /** Inserts unless the id exists in the account ("exists") or the account already has `maxPerAccount` models ("limit"); atomic. */
  insertModel(model: StoredFinetunedModel, maxPerAccount: number): Promise<ModelInsertOutcome>;
  /** Deletes; false when there was no such model. */
  deleteModel(accountId: string, modelId: string): Promise<boolean>;
  /** Tokens charged to an account so far. */
  spentTokens(accountId: string): Promise<number>;
  /** Adds to the tokens charged to an account. */
  chargeTokens(accountId: string, tokens: number): Promise<void>;
  /**
   * Reserves tokens for a request if the account's credits are not used up
   * by what is charged and held by its live reservations (those not lapsed
   * at `nowMs`): true when credits − spent − reserved > 0 (then the
   * reservation is held), false otherwise. Atomic: concurrent requests see
   * each other's reservations.
   */
  reserveTokens(accountId: string, reservation: TokenReservation, credits: number, nowMs: number): Promise<boolean>;
  /**
   * Renews a reservation's lease: it now lapses `leaseMs` after `nowMs`
   * (null: held until settled). False when it is not held (settled or
   * lapsed): nothing changes.
   */
  renewReservation(accountId: string, reservationId: string, leaseMs: number | null, nowMs: number): Promise<boolean>;
  /**
   * Ends a reservation (if it is still held) and adds `used` to the tokens
   * charged (0 when the request failed). Atomic.
   */
  settleTokens(accountId: string, reservationId: string, used: number): Promise<void>;
  /**
   * Counts one call of an account (a model request accepted) in its minute
   * (`YYYY-MM-DDTHH:MM`) and month (`YYYY-MM`), for GET /usage. Optional: a
   * store without it reports 0 calls. Atomic.
   */
  countCall?(accountId: string, minute: string, month: string): Promise<void>;
  /** Calls counted for an account in the given minute and month (0 for a period it has not seen). Optional, with `countCall`. */
  callCounts?(accountId: string, minute: string, month: string): Promise<CallCounts>;
  /**
   * Records the latest progress `{ stage, done, total }` of a job, only
   * while its status is running: true when written, false (nothing written)
   * when the job is unknown or not running. The runner calls it at a bounded
   * rate (`JOB_PROGRESS_INTERVAL_MS`), one call at a time per job, with
   * `nowMs` from the service's clock. The progress is forgotten when
   * `updateJob` moves the job from running. Optional: a store without it
   * runs jobs the same, and their status shows no progress. Atomic with
   * `updateJob` (a write never lands on a finished job).
   */
  setJobProgress?(jobId: string, progress: Progress, nowMs: number): Promise<boolean>;
  /** The latest progress recorded for a running job, or undefined (none yet, or not running). Optional, with `setJobProgress`. */
  getJobProgress?(jobId: string): Promise<Progress | undefined>;
}

/**
 * An in-memory `ServiceStore` (the default of `createService`).
 *
 * @returns a fresh empty store.
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * await store.spentTokens("acme"); // => 0
 * ```
 * @category Service
 */
export function createMemoryStore(): ServiceStore {
  const jobs = new Map<string, StoredJob>();
  // the latest progress of running jobs (dropped when a job leaves running)
  const progress = new Map<string, Progress>();
  // finished jobs' expiry times, and the order they were set in (swept from the head as time passes)
  const jobExpiry = new Map<string, number>();
  const expiryQueue: { jobId: string; at: number }[] = [];
  let expiryHead = 0;
  const pendingLoad = new Map<string, { jobs: number; values: number }>();
  const models = new Map<string, Map<string, StoredFinetunedModel>>();
  const accountModels = (accountId: string): Map<string, StoredFinetunedModel> => {
    let m = models.get(accountId);
    if (m === undefined) {
      m = new Map();
      models.set(accountId, m);
    }
    return m;
  };
  /** Forgets every job whose expiry is at or before `nowMs`. */
  const sweep = (nowMs: number): void => {
    while (expiryHead < expiryQueue.length && expiryQueue[expiryHead]!.at <= nowMs) {
      const { jobId, at } = expiryQueue[expiryHead++]!;
      // a later expiry set for the same job (or none) keeps it
      if (jobExpiry.get(jobId) === at) {
        jobExpiry.delete(jobId);
        jobs.delete(jobId);
      }
    }
    if (expiryHead > 1024 && expiryHead * 2 > expiryQueue.length) {
      expiryQueue.splice(0, expiryHead);
      expiryHead = 0;
    }
  };
  const lapsed = (jobId: string, nowMs: number | undefined): boolean => nowMs !== undefined && (jobExpiry.get(jobId) ?? Infinity) <= nowMs;
  const addLoad = (job: StoredJob, sign: 1 | -1): void => {
    const load = pendingLoad.get(job.accountId) ?? { jobs: 0, values: 0 };
    load.jobs += sign;
    load.values += sign * (job.values ?? 0);
    if (load.jobs <= 0) pendingLoad.delete(job.accountId);
    else pendingLoad.set(job.accountId, load);
  };
  return {
    getJob: async (jobId, nowMs) => {
      if (nowMs !== undefined) sweep(nowMs);
      return lapsed(jobId, nowMs) ? undefined : jobs.get(jobId);
    },
    insertJob: async (job, quota) => {
      if (jobs.has(job.jobId)) return "exists";
      if (job.status === "pending" && quota !== undefined) {
        const load = pendingLoad.get(job.accountId) ?? { jobs: 0, values: 0 };
        if (load.jobs + 1 > quota.maxJobs || load.values + (job.values ?? 0) > quota.maxValues) return "limit";
      }
      jobs.set(job.jobId, job);
      if (job.status === "pending") addLoad(job, 1);
      return "ok";
    },
    updateJob: async (jobId, expected, next, expiry) => {
      if (expiry !== undefined) sweep(expiry.nowMs);
      const current = jobs.get(jobId);
      if (current === undefined || current.status !== expected || next.jobId !== jobId) return false;
      jobs.set(jobId, next);
      if (next.status !== "running") progress.delete(jobId);
      if (expected === "pending" && next.status !== "pending") addLoad(current, -1);
      const at = expiry === undefined ? Infinity : expiry.nowMs + expiry.ttlMs;
      if (at < Infinity) {
        jobExpiry.set(jobId, at);
        expiryQueue.push({ jobId, at });
      } else jobExpiry.delete(jobId);
      return true;
    },
    pendingJobs: async () => [...jobs.values()].filter((j) => j.status === "pending"),
    getModel: async (accountId, modelId) => models.get(accountId)?.get(modelId),
    listModels: async (accountId) => [...(models.get(accountId)?.values() ?? [])],
    insertModel: async (model, maxPerAccount) => {
      const m = accountModels(model.accountId);
      if (m.has(model.record.id)) return "exists";
      if (m.size >= maxPerAccount) return "limit";
      m.set(model.record.id, model);
      return "ok";
    },
    deleteModel: async (accountId, modelId) => models.get(accountId)?.delete(modelId) ?? false,
    setJobProgress: async (jobId, p) => {
      if (jobs.get(jobId)?.status !== "running") return false;
      progress.set(jobId, { stage: p.stage, done: p.done, total: p.total });
      return true;
    },
    getJobProgress: async (jobId) => (jobs.get(jobId)?.status === "running" ? progress.get(jobId) : undefined),
    ...memoryTokens(),
  };
}

/** The tokens and call counts of `createMemoryStore`: spent tokens, reservations, and each account's latest minute and month of calls. */
function memoryTokens(): Pick<ServiceStore, "spentTokens" | "chargeTokens" | "reserveTokens" | "renewReservation" | "settleTokens" | "countCall" | "callCounts"> {
  const spent = new Map<string, number>();
  // reservations per account: tokens and the time they lapse (Infinity: held until settled)
  const reservations = new Map<string, Map<string, { tokens: number; until: number }>>();
  // Only the latest minute and month of each account are kept: memory stays one entry per account.
  const calls = new Map<string, { minute: string; minuteCount: number; month: string; monthCount: number }>();
  /** An account's live reservations (lapsed ones removed) and the tokens they hold. */
  const held = (accountId: string, nowMs: number): { live: Map<string, { tokens: number; until: number }>; tokens: number } => {
    const live = reservations.get(accountId) ?? new Map<string, { tokens: number; until: number }>();
    let tokens = 0;
    for (const [id, r] of live) {
      if (r.until <= nowMs) live.delete(id);
      else tokens += r.tokens;
    }
    return { live, tokens };
  };
  return {
    spentTokens: async (accountId) => spent.get(accountId) ?? 0,
    chargeTokens: async (accountId, tokens) => {
      spent.set(accountId, (spent.get(accountId) ?? 0) + tokens);
    },
    reserveTokens: async (accountId, reservation, credits, nowMs) => {
      const { live, tokens } = held(accountId, nowMs);
      if (!(credits - (spent.get(accountId) ?? 0) - tokens > 0)) return false;
      live.set(reservation.id, { tokens: reservation.tokens, until: reservation.leaseMs === null ? Infinity : nowMs + reservation.leaseMs });
      reservations.set(accountId, live);
      return true;
    },
    renewReservation: async (accountId, reservationId, leaseMs, nowMs) => {
      const r = held(accountId, nowMs).live.get(reservationId);
      if (r === undefined) return false;
      r.until = leaseMs === null ? Infinity : nowMs + leaseMs;
      return true;
    },
    settleTokens: async (accountId, reservationId, used) => {
      const live = reservations.get(accountId);
      live?.delete(reservationId);
      if (live !== undefined && live.size === 0) reservations.delete(accountId);
      spent.set(accountId, (spent.get(accountId) ?? 0) + used);
    },
    countCall: async (accountId, minute, month) => {
      const c = calls.get(accountId) ?? { minute, minuteCount: 0, month, monthCount: 0 };
      if (c.minute !== minute) {
        c.minute = minute;
        c.minuteCount = 0;
      }
      if (c.month !== month) {
        c.month = month;
        c.monthCount = 0;
      }
      c.minuteCount++;
      c.monthCount++;
      calls.set(accountId, c);
    },
    callCounts: async (accountId, minute, month) => {
      const c = calls.get(accountId);
      return { minute: c !== undefined && c.minute === minute ? c.minuteCount : 0, month: c !== undefined && c.month === month ? c.monthCount : 0 };
    },
  };
}
