/**
 * The BullMQ jobs recipe (docs/recipes/bullmq-jobs.ts) against a real
 * redis-server, with the Redis store: async fine-tunes run by BullMQ workers
 * through `runJob`, the status record following the queue, a job cancelled
 * while it waits never run. Skipped (or, with REQUIRE_REDIS=1, failed)
 * without redis-server.
 */
import { beforeAll, expect, it } from "vitest";
import { Queue, QueueEvents, type Worker } from "bullmq";
import { enqueueJob, JOBS_QUEUE, jobsWorker } from "../../docs/recipes/bullmq-jobs.js";
import { createRedisStore } from "../../docs/recipes/redis-store.js";
import { createService } from "../../src/api/service.js";
import { countingPipelines, get, KEY_A, post, smallSeries } from "../api/helpers.js";
import { redisForSuite, redisSuite } from "./redis-gate.js";

const { binary, suite } = redisSuite("the BullMQ jobs tests");

suite("async jobs on BullMQ workers", () => {
  const redis = redisForSuite(binary);
  let queue: Queue;
  let events: QueueEvents;
  const workers: Worker[] = [];

  beforeAll(async () => {
    queue = new Queue(JOBS_QUEUE, { connection: redis.connection() });
    events = new QueueEvents(JOBS_QUEUE, { connection: redis.connection() });
    await events.waitUntilReady();
    redis.onStop(() => queue.close());
    redis.onStop(() => events.close());
    redis.onStop(() => Promise.all(workers.map((w) => w.close())));
  });

  it("the API's service enqueues, two worker services run; statuses follow the queue; a cancelled waiting job never runs", async () => {
    const account = { id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true };
    let n = 0;
    const ids = () => `bullmq-${n++}`;
    const { pipelines, finetunes } = countingPipelines();
    // the service answering HTTP, and two worker services (other processes in production) on the same store
    const api = createService({ accounts: [account], store: createRedisStore(redis.server().connect(), "jobs:"), pipelines, ids, onJobSubmitted: enqueueJob(queue) });
    const workerServices = [0, 1].map(() => createService({ accounts: [account], store: createRedisStore(redis.server().connect(), "jobs:"), pipelines }));

    const jobIds: string[] = [];
    for (let j = 0; j < 4; j++) {
      const res = await api.handle(post("/v2/finetune/async", { series: smallSeries, freq: "D", finetune_steps: 2 }));
      expect(res.status).toBe(200);
      jobIds.push((res.body as { job_id: string }).job_id);
    }
    // waiting in the queue: pending
    expect(((await api.handle(get(`/v2/finetune/jobs/${jobIds[0]}`))).body as { status: string }).status).toBe("pending");
    expect(await queue.getWaitingCount()).toBe(4);
    // cancelled while it waits
    expect((await api.handle(post(`/v2/finetune/jobs/${jobIds[3]}/cancel`, undefined))).status).toBe(200);

    const finished = jobIds.map((id) => queue.getJob(id).then((job) => job!.waitUntilFinished(events, 30_000)));
    workers.push(...workerServices.map((s) => jobsWorker(redis.connection(), s)));
    const outcomes = await Promise.all(finished);
    expect(outcomes.slice(0, 3).map((o) => (o as { status: string }).status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(outcomes[3]).toBeNull();
    expect(finetunes()).toBe(3);
    const statuses = [];
    for (const id of jobIds) statuses.push(((await api.handle(get(`/v2/finetune/jobs/${id}`))).body as { status: string }).status);
    expect(statuses).toEqual(["succeeded", "succeeded", "succeeded", "cancelled"]);
    expect(((await api.handle(get("/v2/finetuned_models"))).body as { finetuned_models: unknown[] }).finetuned_models).toHaveLength(3);
  }, 60_000);
});
