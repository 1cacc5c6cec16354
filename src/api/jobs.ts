/**
 * Asynchronous jobs: submitting one under a fresh id, finding an account's
 * job, cancelling a pending one and running the pending ones, each state
 * change a compare-and-set on the store so that concurrent hosts never run
 * or finish a job twice.
 * @module
 */
import type { Progress } from "../progress.js";
import { ValidationError } from "./errors.js";
import { toHex32 } from "./ids.js";
import type { ValidatedBodies } from "./requests.js";
import { HttpError, notFoundJob } from "./responses.js";
import { ASYNC_JOB_ID_PATTERN, type ApiEndpoint } from "./schemas.js";
import type { JobReservation, PendingJobQuota, ServiceStore, StoredJob } from "./store.js";

/** Job id prefixes: fine-tune, forecast, cross-validation. */
export type JobTask = "ft" | "fc" | "cv";

const JOB_ID_REGEX = new RegExp(ASYNC_JOB_ID_PATTERN);

/** Fresh ids tried for a new job (or model) before giving up (a repeating `ids` function). */
export const JOB_ID_ATTEMPTS = 8;

/**
 * What a service holds for its jobs and for how long (option `jobLimits`
 * of `createService`; defaults `DEFAULT_JOB_LIMITS`).
 * @category API rules
 */
export interface JobLimits {
  /** Most pending jobs (accepted, not yet claimed by a runner) of one account; the next submission is a 429. */
  readonly maxPendingJobs: number;
  /** Most numbers held by one account's pending jobs (every number of their requests); past it a submission is a 429. */
  readonly maxPendingValues: number;
  /** Milliseconds a finished job (succeeded, failed or cancelled) and its result are kept after it finished; then its id is 404. */
  readonly resultTtlMs: number;
  /**
   * Milliseconds a reservation of tokens, and a running job, live without
   * renewal while their work runs (renewed every third of it while the work
   * awaits), so the credits of a process that died come back after at most
   * this long, and its job is then answered failed rather than running for ever.
   */
  readonly leaseMs: number;
}

/**
 * Defaults of `JobLimits`: 20 pending jobs and 10,000,000 pending values
 * per account (two requests of `limits.maxValues`), results kept 24 hours,
 * leases of 60 seconds (six times the longest request the work budget
 * admits, bench/budget-bench.ts).
 * @category API rules
 */
export const DEFAULT_JOB_LIMITS: JobLimits = Object.freeze({
  maxPendingJobs: 20,
  maxPendingValues: 10_000_000,
  resultTtlMs: 24 * 3600 * 1000,
  leaseMs: 60_000,
});

/** `DEFAULT_JOB_LIMITS` with the given values; RangeError for a value that is not a number > 0 (Infinity allowed but for `leaseMs`). */
export function resolveJobLimits(given: Partial<JobLimits> | undefined): JobLimits {
  const out = { ...DEFAULT_JOB_LIMITS, ...given };
  for (const key of ["maxPendingJobs", "maxPendingValues", "resultTtlMs", "leaseMs"] as const) {
    const v = out[key];
    if (typeof v !== "number" || !(v > 0) || (key === "leaseMs" && !Number.isFinite(v))) {
      throw new RangeError(`createService: jobLimits.${key} must be a number > 0${key === "leaseMs" ? " and finite" : ""}, got ${String(v)}`);
    }
  }
  return out;
}

/**
 * How many numbers a JSON value holds (a job's request), walked without
 * recursion; typed arrays count their length.
 */
export function countNumbers(value: unknown): number {
  let count = 0;
  // only objects and arrays go on the stack: a request's millions of y values are counted where they are read
  const stack: unknown[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === "number") count++;
    else if (typeof v === "object" && v !== null) stack.push(v);
  };
  visit(value);
  while (stack.length > 0) {
    const v = stack.pop();
    if (ArrayBuffer.isView(v)) count += (v as unknown as { length?: number }).length ?? 0;
    else if (Array.isArray(v)) for (const e of v) visit(e);
    else for (const e of Object.values(v as object)) visit(e);
  }
  return count;
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

/** The clock of a job runner, how long finished jobs are kept and how long a running job lives without renewal. */
export interface JobClock {
  /** The service's clock. */
  readonly clock: () => Date;
  /** `JobLimits.resultTtlMs`. */
  readonly resultTtlMs: number;
  /** `JobLimits.leaseMs`. */
  readonly leaseMs: number;
}

/**
 * What a job's work produced: its value, and how to settle its tokens once
 * the runner knows whether the result was kept (false: the job had been
 * declared failed meanwhile, its lease lapsed, so nothing is charged).
 */
export interface JobWork {
  /** The job's result. */
  readonly value: unknown;
  /** Charges the tokens used when `kept`, releases what was reserved otherwise. */
  settle(kept: boolean): Promise<void>;
}

/**
 * The job status record the API answers: the specification's six fields,
 * and `progress` (an addition, docs/api-decisions.md) when the job is
 * running and `progress` is given.
 */
export function jobRecord(job: StoredJob, progress?: Progress): Record<string, unknown> {
  return {
    job_id: job.jobId,
    status: job.status,
    result: job.status === "succeeded" ? job.result : null,
    error: job.status === "failed" ? job.error : null,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    ...(job.status === "running" && progress !== undefined ? { progress: { stage: progress.stage, done: progress.done, total: progress.total } } : {}),
  };
}

/**
 * A job of the account (404 otherwise, and once it expired); `task` null
 * accepts any task (the cross-task cancel route). A running job whose lease
 * lapsed (its runner stopped renewing it: the process died) is moved to
 * failed here, its reservation released, and answered so.
 */
export async function ownJob(store: ServiceStore, accountId: string, jobId: string, task: JobTask | null, time: JobClock): Promise<StoredJob> {
  if (!JOB_ID_REGEX.test(jobId)) throw notFoundJob();
  const at = time.clock();
  const job = await store.getJob(jobId, at.getTime());
  if (job === undefined || (task !== null && job.task !== task) || job.accountId !== accountId) throw notFoundJob();
  return job.status === "running" && leaseLapsed(job, at.getTime()) ? failLapsedJob(store, job, time) : job;
}

/** True when a running job's lease ended before `nowMs`. */
export function leaseLapsed(job: StoredJob, nowMs: number): boolean {
  return job.leaseUntil !== undefined && Date.parse(job.leaseUntil) < nowMs;
}

/**
 * Moves a running job whose lease lapsed to failed (compare-and-set: if its
 * runner finished meanwhile, the stored job wins) and releases its
 * reservation; answers the job as stored afterwards.
 */
async function failLapsedJob(store: ServiceStore, job: StoredJob, time: JobClock): Promise<StoredJob> {
  const at = time.clock();
  const failed: StoredJob = {
    ...job,
    status: "failed",
    request: null,
    error: `the process running this job stopped: its lease ended at ${job.leaseUntil} without renewal; nothing was charged, submit the job again`,
    updatedAt: at.toISOString(),
  };
  if (await store.updateJob(job.jobId, "running", failed, { ttlMs: time.resultTtlMs, nowMs: at.getTime() })) {
    if (job.reservation !== undefined) await store.settleTokens(job.accountId, job.reservation.id, 0);
    return failed;
  }
  return (await store.getJob(job.jobId, at.getTime())) ?? failed;
}

/**
 * Stores a pending job under a fresh `<task>-<32 hex>` id and answers its id;
 * an existing job is never overwritten. `reservation` is what the submission
 * reserved, recorded on the job for its end; `quota` bounds the account's
 * pending jobs ("limit" when the job would pass it: nothing stored).
 */
export async function submitJob(
  store: ServiceStore,
  ids: () => unknown,
  at: string,
  task: JobTask,
  accountId: string,
  request: unknown,
  reservation: JobReservation | null,
  quota: PendingJobQuota,
): Promise<{ job_id: string } | "limit"> {
  const values = countNumbers(request);
  for (let attempt = 0; attempt < JOB_ID_ATTEMPTS; attempt++) {
    const jobId = `${task}-${toHex32(String(ids()))}`;
    const job: StoredJob = { jobId, task, accountId, status: "pending", request, result: null, error: null, createdAt: at, updatedAt: at, values, ...(reservation !== null ? { reservation } : {}) };
    const outcome = await store.insertJob(job, quota);
    if (outcome === "ok") return { job_id: jobId };
    if (outcome === "limit") return "limit";
  }
  throw new Error(`no fresh job id after ${JOB_ID_ATTEMPTS} attempts: the ids function repeats itself`);
}

/**
 * Cancels a pending job (compare-and-set: a job claimed meanwhile runs to its
 * end, 409). The cancelled job keeps no request and is kept `resultTtlMs`.
 */
export async function cancelJob(store: ServiceStore, job: StoredJob, time: JobClock): Promise<StoredJob> {
  const at = time.clock();
  const cancelled: StoredJob = { ...job, status: "cancelled", request: null, updatedAt: at.toISOString() };
  if (job.status !== "pending" || !(await store.updateJob(job.jobId, "pending", cancelled, { ttlMs: time.resultTtlMs, nowMs: at.getTime() }))) {
    const current = (await store.getJob(job.jobId, at.getTime())) ?? job;
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
export async function runPendingJobs(store: ServiceStore, time: JobClock, run: (job: StoredJob) => Promise<JobWork>): Promise<RunJobsSummary> {
  const summary: RunJobsSummary = { ran: 0, succeeded: 0, failed: 0 };
  for (const queued of await store.pendingJobs()) {
    const outcome = await runOneJob(store, time, queued.jobId, run);
    if (outcome === null) continue;
    summary.ran++;
    summary[outcome]++;
  }
  return summary;
}

/**
 * Runs one job if it is still pending: claims it by compare-and-set with a
 * lease of `time.leaseMs` (renewed every third of it while the work runs),
 * runs it, records succeeded or failed and returns which; then settles the
 * work's tokens, charged only when the result was recorded (a job declared
 * failed meanwhile, because its lease lapsed, is not charged). Null when it
 * was not pending (unknown, cancelled, or claimed by another runner):
 * nothing was done. The finished job keeps its result or error, not its
 * request, and is kept `resultTtlMs` from its end.
 */
export async function runOneJob(store: ServiceStore, time: JobClock, jobId: string, run: (job: StoredJob) => Promise<JobWork>): Promise<"succeeded" | "failed" | null> {
  const current = await store.getJob(jobId, time.clock().getTime());
  if (current === undefined || current.status !== "pending") return null;
  const leased = (): StoredJob => ({ ...current, status: "running", updatedAt: time.clock().toISOString(), leaseUntil: new Date(time.clock().getTime() + time.leaseMs).toISOString() });
  const running = leased();
  if (!(await store.updateJob(current.jobId, "pending", running))) return null;
  let finished: StoredJob & { status: "succeeded" | "failed" };
  let work: JobWork | null = null;
  const { leaseUntil: _lease, ...unleased } = running;
  try {
    // renewed by compare-and-set: once the job is no longer running here (declared failed), renewing stops changing it
    work = await renewing(time.leaseMs, () => store.updateJob(jobId, "running", { ...leased(), updatedAt: running.updatedAt }), () => run(running));
    finished = { ...unleased, status: "succeeded", request: null, result: work.value, updatedAt: time.clock().toISOString() };
  } catch (e) {
    let message: string;
    if (e instanceof ValidationError) message = validationMessage(e);
    else if (e instanceof HttpError) message = String((e.body as { detail?: unknown }).detail ?? `HTTP ${e.status}`);
    else message = `internal error: ${e instanceof Error ? e.message : String(e)}`;
    finished = { ...unleased, status: "failed", request: null, error: message, updatedAt: time.clock().toISOString() };
  }
  // Terminal states are final: only the claimer moves its running job on, and only while it is still running.
  const kept = await store.updateJob(running.jobId, "running", finished, { ttlMs: time.resultTtlMs, nowMs: time.clock().getTime() });
  if (work !== null) await work.settle(kept);
  return kept ? finished.status : "failed";
}

/** Runs `work`, calling `renew` every third of `leaseMs` while it awaits (a timer that never keeps the process alive). */
async function renewing<T>(leaseMs: number, renew: () => Promise<unknown>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    renew().catch(() => undefined);
  }, Math.max(1, Math.floor(leaseMs / 3)));
  (timer as { unref?: () => void }).unref?.();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Runs `work` under a lease on a reservation: renews it to `leaseMs` every
 * third of the lease while the work runs (a timer, firing whenever the work
 * awaits), so it lapses only when the process stops renewing (it died).
 */
export async function withLease<T>(store: ServiceStore, accountId: string, reservationId: string, leaseMs: number, clock: () => Date, work: () => Promise<T>): Promise<T> {
  return renewing(leaseMs, () => store.renewReservation(accountId, reservationId, leaseMs, clock().getTime()), work);
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
