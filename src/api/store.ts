/**
 * Where a service keeps what outlives a request: fine-tune jobs, fine-tuned
 * models and tokens spent per account. Async, so a host can back it with a
 * database; the default keeps everything in memory.
 * @module
 */
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
   * Tokens reserved at submission for an account without a payment method
   * (`reserveTokens`): settled with the tokens used when the job succeeds,
   * released when it fails or is cancelled. Absent: nothing reserved (the
   * tokens are charged when the job ends).
   */
  readonly reservedTokens?: number;
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
  /** A job by id (any account), or undefined. */
  getJob(jobId: string): Promise<StoredJob | undefined>;
  /** Creates a job; false (nothing written) when a job with its id exists. Atomic. */
  insertJob(job: StoredJob): Promise<boolean>;
  /**
   * Replaces a job only if its stored status is still `expected`
   * (compare-and-set; false, nothing written, otherwise). Atomic: of two
   * concurrent claims of one pending job exactly one succeeds.
   */
  updateJob(jobId: string, expected: ApiJobStatus, next: StoredJob): Promise<boolean>;
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
   * Reserves `tokens` for a request if the account's credits are not used up
   * by what is charged and reserved: true when credits − spent − reserved > 0
   * (then reserved grows by `tokens`), false otherwise. Atomic: concurrent
   * requests see each other's reservations.
   */
  reserveTokens(accountId: string, tokens: number, credits: number): Promise<boolean>;
  /** Ends a reservation: reserved shrinks by `reserved`, spent grows by `used` (0 when the request failed). Atomic. */
  settleTokens(accountId: string, reserved: number, used: number): Promise<void>;
  /**
   * Counts one call of an account (a model request accepted) in its minute
   * (`YYYY-MM-DDTHH:MM`) and month (`YYYY-MM`), for GET /usage. Optional: a
   * store without it reports 0 calls. Atomic.
   */
  countCall?(accountId: string, minute: string, month: string): Promise<void>;
  /** Calls counted for an account in the given minute and month (0 for a period it has not seen). Optional, with `countCall`. */
  callCounts?(accountId: string, minute: string, month: string): Promise<CallCounts>;
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
  const models = new Map<string, Map<string, StoredFinetunedModel>>();
  const spent = new Map<string, number>();
  const reserved = new Map<string, number>();
  // Only the latest minute and month of each account are kept: memory stays one entry per account.
  const calls = new Map<string, { minute: string; minuteCount: number; month: string; monthCount: number }>();
  const accountModels = (accountId: string): Map<string, StoredFinetunedModel> => {
    let m = models.get(accountId);
    if (m === undefined) {
      m = new Map();
      models.set(accountId, m);
    }
    return m;
  };
  return {
    getJob: async (jobId) => jobs.get(jobId),
    insertJob: async (job) => {
      if (jobs.has(job.jobId)) return false;
      jobs.set(job.jobId, job);
      return true;
    },
    updateJob: async (jobId, expected, next) => {
      const current = jobs.get(jobId);
      if (current === undefined || current.status !== expected || next.jobId !== jobId) return false;
      jobs.set(jobId, next);
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
    spentTokens: async (accountId) => spent.get(accountId) ?? 0,
    chargeTokens: async (accountId, tokens) => {
      spent.set(accountId, (spent.get(accountId) ?? 0) + tokens);
    },
    reserveTokens: async (accountId, tokens, credits) => {
      const held = reserved.get(accountId) ?? 0;
      if (!(credits - (spent.get(accountId) ?? 0) - held > 0)) return false;
      reserved.set(accountId, held + tokens);
      return true;
    },
    settleTokens: async (accountId, held, used) => {
      reserved.set(accountId, (reserved.get(accountId) ?? 0) - held);
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
