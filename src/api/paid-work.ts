/**
 * Paid work and its tokens: a request's work run now (reserved, then
 * settled with the tokens used) or submitted as a job (reserved until the
 * job ends), and the work of a stored job when a runner claims it.
 * @module
 */
import { submitJob, withLease, type JobTask, type JobWork } from "./jobs.js";
import { jobProgressWriter } from "./job-progress.js";
import { HttpError } from "./responses.js";
import { prepareWork, runFinetune, validateFinetune, type PreparedWork, type WorkOutcome } from "./route-work.js";
import { apiError, nowMs, nowText, reservationId, type ServiceContext } from "./service-context.js";
import type { ServiceAccount } from "./service-types.js";
import type { JobReservation, StoredJob } from "./store.js";

/**
 * Runs paid work: for an account without a payment method, reserves
 * `estimate` tokens atomically first (429 when its credits are used up by
 * what is charged and reserved, concurrent requests included) and settles
 * the reservation with the tokens used; otherwise charges after the work.
 * A failed request charges nothing.
 */
export async function paid<T>(ctx: ServiceContext, account: ServiceAccount, requestID: string, estimate: number, work: () => Promise<{ value: T; used: number }>): Promise<T> {
  const store = ctx.store;
  if (account.hasPaymentMethod) {
    const done = await work();
    await store.chargeTokens(account.id, done.used);
    return done.value;
  }
  const id = reservationId(ctx, requestID);
  if (!(await store.reserveTokens(account.id, { id, tokens: Math.max(1, estimate), leaseMs: ctx.jobLimits.leaseMs }, account.credits, nowMs(ctx)))) throw apiError(429, requestID);
  let used = 0;
  try {
    const done = await withLease(store, account.id, id, ctx.jobLimits.leaseMs, ctx.clock, work);
    used = done.used;
    return done.value;
  } finally {
    await store.settleTokens(account.id, id, used);
  }
}

/** Runs prepared work as paid work (see `paid`). */
export function runPaid(ctx: ServiceContext, account: ServiceAccount, requestID: string, work: PreparedWork): Promise<WorkOutcome> {
  return paid(ctx, account, requestID, work.estimate, async () => {
    const done = await work.run();
    return { value: done, used: done.used };
  });
}

function pendingLimitError(ctx: ServiceContext, requestID: string): HttpError {
  const { maxPendingJobs, maxPendingValues } = ctx.jobLimits;
  return new HttpError(429, {
    detail: `this account already has the most pending jobs allowed (jobLimits: at most ${maxPendingJobs} jobs holding at most ${maxPendingValues} values); wait for one to finish or cancel one (POST /v2/async/jobs/{job_id}/cancel)`,
    requestID,
  });
}

/**
 * Stores a pending job under a fresh id (429 when the account's pending
 * jobs would pass `jobLimits`), tells the host (`onJobSubmitted`), and
 * answers its id. A reservation is released when the job is not stored.
 */
async function submit(ctx: ServiceContext, task: JobTask, account: ServiceAccount, requestID: string, request: unknown, reservation: JobReservation | null): Promise<{ job_id: string }> {
  const store = ctx.store;
  let answer: { job_id: string } | "limit";
  try {
    answer = await submitJob(store, ctx.ids, nowText(ctx), task, account.id, request, reservation, ctx.pendingQuota);
  } catch (e) {
    // not stored: its reservation is released here (a stored job's at its end)
    if (reservation !== null) await store.settleTokens(account.id, reservation.id, 0);
    throw e;
  }
  if (answer === "limit") {
    if (reservation !== null) await store.settleTokens(account.id, reservation.id, 0);
    throw pendingLimitError(ctx, requestID);
  }
  // stored: a pending job's reservation is held until the job ends (leased again when it runs). A runner
  // that claimed the job before this line has its lease undone here until its next renewal (leaseMs / 3)
  if (reservation !== null) await store.renewReservation(account.id, reservation.id, null, nowMs(ctx));
  if (ctx.onJobSubmitted !== undefined) await ctx.onJobSubmitted({ jobId: answer.job_id, task, accountId: account.id });
  return answer;
}

/**
 * Submits a job as paid work (see `paid`): for an account without a
 * payment method, `estimate` tokens are reserved first (429 on the spot
 * when its credits are used up by what is charged and reserved) and
 * recorded on the job, to be settled when it ends.
 */
export async function submitPaid(ctx: ServiceContext, account: ServiceAccount, requestID: string, task: JobTask, request: unknown, estimate: number): Promise<{ job_id: string }> {
  if (account.hasPaymentMethod) return submit(ctx, task, account, requestID, request, null);
  const reservation = { id: reservationId(ctx, requestID), tokens: Math.max(1, estimate) };
  if (!(await ctx.store.reserveTokens(account.id, { ...reservation, leaseMs: ctx.jobLimits.leaseMs }, account.credits, nowMs(ctx)))) throw apiError(429, requestID);
  return submit(ctx, task, account, requestID, request, reservation);
}

/**
 * The work of a stored job: forecast and cross-validation as their routes,
 * fine-tune with storing the model. Its reservation is leased while it
 * runs and released when the work fails; once the runner has recorded the
 * result, `settle` charges the tokens used (nothing when the job had been
 * declared failed meanwhile: its lease lapsed).
 */
export async function runStoredJob(ctx: ServiceContext, job: StoredJob): Promise<JobWork> {
  const store = ctx.store;
  const reservation = job.reservation ?? null;
  // the job's progress, written to the store at a bounded rate (a store without setJobProgress: none)
  const progress = jobProgressWriter(store, job.jobId, () => nowMs(ctx));
  const work = async (): Promise<{ value: unknown; used: number }> => {
    try {
      if (job.task === "fc" || job.task === "cv") return await (await prepareWork(ctx, job.task, job.accountId, job.request)).run(progress?.report);
      return await runFinetune(ctx, job.accountId, await validateFinetune(ctx, job.accountId, job.request, false, false), progress?.report);
    } finally {
      await progress?.settled();
    }
  };
  if (reservation === null) {
    const done = await work();
    return { value: done.value, settle: async (kept) => (kept ? store.chargeTokens(job.accountId, done.used) : undefined) };
  }
  // claimed: from now on the reservation lapses unless this process keeps renewing it
  await store.renewReservation(job.accountId, reservation.id, ctx.jobLimits.leaseMs, nowMs(ctx));
  let done: { value: unknown; used: number };
  try {
    done = await withLease(store, job.accountId, reservation.id, ctx.jobLimits.leaseMs, ctx.clock, work);
  } catch (e) {
    await store.settleTokens(job.accountId, reservation.id, 0);
    throw e;
  }
  return { value: done.value, settle: (kept) => store.settleTokens(job.accountId, reservation.id, kept ? done.used : 0) };
}
