/**
 * Recipe: a worker process of the parts flow (docs/recipes/bullmq-parts.ts):
 * computes parts and merges, until it is stopped (SIGTERM closes the workers
 * after the part in hand). Start as many as you have cores, on any machine
 * that reaches Redis:
 *
 *   REDIS_HOST=127.0.0.1 REDIS_PORT=6379 node parts-worker-process.js
 *
 * A process killed mid-part (SIGKILL, a crash, a lost machine) leaves its part
 * to BullMQ's stalled-job check: once the lock it held expires
 * (LOCK_MS, default 30 s) the part goes back to the queue and another worker
 * computes it again, with the same result.
 *
 * Test hooks (environment): SLOW_PART_MS waits that long at the start of each
 * part, after printing `part <index> started`.
 */
import { mergeWorker, partsWorker } from "./bullmq-parts.js";

const connection = { host: process.env.REDIS_HOST ?? "127.0.0.1", port: Number(process.env.REDIS_PORT ?? 6379), maxRetriesPerRequest: null };
const lockDuration = Number(process.env.LOCK_MS ?? 30_000);
const slow = Number(process.env.SLOW_PART_MS ?? 0);

const parts = partsWorker(connection, {
  worker: { lockDuration, stalledInterval: lockDuration, maxStalledCount: 3 },
  beforePart: async (job) => {
    if (slow > 0) {
      process.stdout.write(`part ${job.data.part.index} started\n`);
      await new Promise((resolve) => setTimeout(resolve, slow));
    }
  },
});
const merges = mergeWorker(connection);
process.stdout.write("ready\n");

process.on("SIGTERM", () => {
  void Promise.all([parts.close(), merges.close()]).then(() => process.exit(0));
});
