/**
 * Recipe: the async jobs of the service (POST /v2/finetune/async,
 * /v2/forecast/async, /v2/cross_validation/async) run by BullMQ workers
 * instead of a timer calling `runJobs`. The service tells the host about
 * each job it stores (`onJobSubmitted`); the host adds a BullMQ job with the
 * same id; a worker, in any process, calls `service.runJob(id)`, which
 * claims the stored job by compare-and-set, runs it and records the outcome.
 * So the job status record follows the queue: pending while the BullMQ job
 * waits, running while a worker has it, then succeeded or failed; a job
 * cancelled while it waits is never run (the worker's `runJob` finds it
 * cancelled and does nothing). Use it with a shared store (the Redis recipe)
 * when the workers are in other processes. Type-checked and run against a
 * real redis-server by test/recipes/bullmq-jobs.test.ts.
 *
 *   const queue = new Queue(JOBS_QUEUE, { connection });
 *   const service = createService({ accounts, store, onJobSubmitted: enqueueJob(queue) });
 *   jobsWorker(connection, service); // in each worker process (with its own service on the same store)
 */
import { Worker, type ConnectionOptions, type Queue } from "bullmq";
import type { ForecastService, JobRunOutcome, SubmittedJob } from "../../src/index.js";

/** The queue of service jobs. */
export const JOBS_QUEUE = "forecastmodel-jobs";

/** An `onJobSubmitted` hook adding one BullMQ job per service job, under the same id. */
export function enqueueJob(queue: Queue): (job: SubmittedJob) => Promise<void> {
  return async (job) => {
    await queue.add(job.task, { accountId: job.accountId }, { jobId: job.jobId, removeOnComplete: 1000, removeOnFail: 1000 });
  };
}

/** A worker running the service's jobs by id; its return value is null for a job that was no longer pending (e.g. cancelled). */
export function jobsWorker(connection: ConnectionOptions, service: ForecastService, concurrency = 1): Worker<unknown, JobRunOutcome | null> {
  return new Worker<unknown, JobRunOutcome | null>(JOBS_QUEUE, (job) => service.runJob(job.id!), { connection, concurrency });
}
