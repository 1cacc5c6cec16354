/**
 * Asynchronous jobs: submitting one under a fresh id, finding an account's
 * job, cancelling a pending one and running the pending ones, each state
 * change a compare-and-set on the store so that concurrent hosts never run
 * or finish a job twice.
 * @module
 */
import { ValidationError } from "../errors.js";
import { toHex32 } from "./ids.js";
import type { ValidatedBodies } from "./requests.js";
import { HttpError, notFoundJob } from "./responses.js";
import { ASYNC_JOB_ID_PATTERN, type ApiEndpoint } from "./schemas.js";
import type { ServiceStore, StoredJob } from "./store.js";

/** Job id prefixes: fine-tune, forecast, cross-validation. */
export type JobTask = "ft" | "fc" | "cv";

const JOB_ID_REGEX = new RegExp(ASYNC_JOB_ID_PATTERN);

/** Fresh ids tried for a new job (or model) before giving up (a repeating `ids` function). */
export const JOB_ID_ATTEMPTS = 8;

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

/** The job status record the API answers. */
export function jobRecord(job: StoredJob): Record<string, unknown> {
  return {
    job_id: job.jobId,
    status: job.status,
    result: job.status === "succeeded" ? job.result : null,
    error: job.status === "failed" ? job.error : null,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}

/** A job of the account (404 otherwise); `task` null accepts any task (the cross-task cancel route). */
export async function ownJob(store: ServiceStore, accountId: string, jobId: string, task: JobTask | null = "ft"): Promise<StoredJob> {
  if (!JOB_ID_REGEX.test(jobId)) throw notFoundJob();
  const job = await store.getJob(jobId);
  if (job === undefined || (task !== null && job.task !== task) || job.accountId !== accountId) throw notFoundJob();
  return job;
}

/**
 * Stores a pending job under a fresh `<task>-<32 hex>` id and answers its id;
 * an existing job is never overwritten. `reservedTokens` (> 0) is what the
 * submission reserved, recorded on the job for its end.
 */
export async function submitJob(store: ServiceStore, ids: () => unknown, at: string, task: JobTask, accountId: string, request: unknown, reservedTokens = 0): Promise<{ job_id: string }> {
  for (let attempt = 0; attempt < JOB_ID_ATTEMPTS; attempt++) {
    const jobId = `${task}-${toHex32(String(ids()))}`;
    const job: StoredJob = { jobId, task, accountId, status: "pending", request, result: null, error: null, createdAt: at, updatedAt: at, ...(reservedTokens > 0 ? { reservedTokens } : {}) };
    if (await store.insertJob(job)) return { job_id: jobId };
  }
  throw new Error(`no fresh job id after ${JOB_ID_ATTEMPTS} attempts: the ids function repeats itself`);
}

/** Cancels a pending job (compare-and-set: a job claimed meanwhile runs to its end, 409). */
export async function cancelJob(store: ServiceStore, job: StoredJob, at: string): Promise<StoredJob> {
  const cancelled: StoredJob = { ...job, status: "cancelled", updatedAt: at };
  if (job.status !== "pending" || !(await store.updateJob(job.jobId, "pending", cancelled))) {
    const current = (await store.getJob(job.jobId)) ?? job;
    throw new HttpError(409, { detail: `job ${job.jobId} is ${current.status}; only a pending job can be cancelled` });
  }
  return cancelled;
}

/**
 * Runs every pending job: claims it by compare-and-set (of concurrent runners
 * exactly one moves a pending job to running; a cancelled job is never
 * claimed), runs it with `run`, and moves it to succeeded or failed (terminal
 * states are final: only the claimer moves its running job on).
 */
export async function runPendingJobs(store: ServiceStore, now: () => string, run: (job: StoredJob) => Promise<unknown>): Promise<RunJobsSummary> {
  const summary: RunJobsSummary = { ran: 0, succeeded: 0, failed: 0 };
  for (const queued of await store.pendingJobs()) {
    const outcome = await runOneJob(store, now, queued.jobId, run);
    if (outcome === null) continue;
    summary.ran++;
    summary[outcome]++;
  }
  return summary;
}

/**
 * Runs one job if it is still pending: claims it by compare-and-set, runs it,
 * records succeeded or failed and returns which. Null when it was not pending
 * (unknown, cancelled, or claimed by another runner): nothing was done.
 */
export async function runOneJob(store: ServiceStore, now: () => string, jobId: string, run: (job: StoredJob) => Promise<unknown>): Promise<"succeeded" | "failed" | null> {
  const current = await store.getJob(jobId);
  if (current === undefined || current.status !== "pending") return null;
  const running: StoredJob = { ...current, status: "running", updatedAt: now() };
  if (!(await store.updateJob(current.jobId, "pending", running))) return null;
  let finished: StoredJob & { status: "succeeded" | "failed" };
  try {
    const result = await run(running);
    finished = { ...running, status: "succeeded", result, updatedAt: now() };
  } catch (e) {
    let message: string;
    if (e instanceof ValidationError) message = validationMessage(e);
    else if (e instanceof HttpError) message = String((e.body as { detail?: unknown }).detail ?? `HTTP ${e.status}`);
    else message = `internal error: ${e instanceof Error ? e.message : String(e)}`;
    finished = { ...running, status: "failed", error: message, updatedAt: now() };
  }
  // Terminal states are final: only the claimer moves its running job on.
  await store.updateJob(running.jobId, "running", finished);
  return finished.status;
}

/** A validated body as the JSON a job stores (typed arrays as lists; `model` only when the caller gave it). */
export function toJsonRequest(v: ValidatedBodies[ApiEndpoint]): Record<string, unknown> {
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
