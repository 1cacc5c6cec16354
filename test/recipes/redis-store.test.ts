/**
 * The Redis store recipe (docs/recipes/redis-store.ts) against a real
 * redis-server started for this file: the store contract, the races the
 * service relies on, two services sharing one Redis, and a Redis restart
 * between submit and poll.
 *
 * Without redis-server these tests are skipped with a message naming the
 * Debian package; with REQUIRE_REDIS=1 (set by .ci/run) a missing server is a
 * failure instead.
 */
import { expect, it } from "vitest";
import { createRedisStore } from "../../docs/recipes/redis-store.js";
import { createService } from "../../src/api/service.js";
import type { ServiceStore, StoredJob } from "../../src/api/store.js";
import { countingPipelines, fakePipelines, get, KEY_A, KEY_B, post, smallSeries } from "../api/helpers.js";
import { redisForSuite, redisSuite } from "./redis-gate.js";
import { steppingRunner } from "../support/stepping-runner.js";

const { binary, suite } = redisSuite("the Redis store tests");

let prefixCount = 0;

function job(jobId: string, status: StoredJob["status"] = "pending"): StoredJob {
  return { jobId, task: "ft", accountId: "acme", status, request: { a: [1, 2] }, result: null, error: null, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" };
}

suite("Redis store", () => {
  const redis = redisForSuite(binary);

  /** A store on a new connection, under a fresh key prefix (tests do not see each other's keys). */
  function freshStore(prefix = `t${prefixCount++}:`): { store: ServiceStore; prefix: string } {
    return { store: createRedisStore(redis.server().connect(), prefix), prefix };
  }

  it("jobs: insert never overwrites, update is a compare-and-set, pending jobs in arrival order", async () => {
    const { store } = freshStore();
    expect(await store.insertJob(job("ft-a"))).toBe("ok");
    expect(await store.insertJob({ ...job("ft-a"), request: "other" })).toBe("exists");
    expect((await store.getJob("ft-a"))!.request).toEqual({ a: [1, 2] });
    expect(await store.insertJob(job("ft-b"))).toBe("ok");
    expect((await store.pendingJobs()).map((j) => j.jobId)).toEqual(["ft-a", "ft-b"]);
    expect(await store.updateJob("ft-a", "running", job("ft-a", "succeeded"))).toBe(false);
    expect(await store.updateJob("ft-a", "pending", job("ft-a", "running"))).toBe(true);
    expect(await store.updateJob("ft-a", "pending", job("ft-a", "cancelled"))).toBe(false);
    expect((await store.getJob("ft-a"))!.status).toBe("running");
    expect((await store.pendingJobs()).map((j) => j.jobId)).toEqual(["ft-b"]);
    expect(await store.getJob("ft-none")).toBeUndefined();
  });

  it("fine-tuned models: per account, oldest first, exact weights, the per-account limit, delete", async () => {
    const { store } = freshStore();
    const values = Float64Array.of(0.1, -1e-300, 1e300, Math.PI, -0);
    const model = (id: string, accountId = "acme") => ({
      accountId,
      record: { id, created_at: "2026-01-01T00:00:00.000Z", base_model_id: "None", steps: 2, depth: 1 as const, loss: "default" as const, model: "forecastmodel-1" as const, freq: "D" as const, created_by: "user" as const },
      weights: { model: "forecastmodel-1" as const, start: 7, values },
    });
    expect(await store.insertModel(model("m1"), 2)).toBe("ok");
    expect(await store.insertModel(model("m1"), 2)).toBe("exists");
    expect(await store.insertModel(model("m2"), 2)).toBe("ok");
    expect(await store.insertModel(model("m3"), 2)).toBe("limit");
    expect(await store.insertModel(model("m1", "globex"), 2)).toBe("ok");
    expect((await store.listModels("acme")).map((m) => m.record.id)).toEqual(["m1", "m2"]);
    const back = (await store.getModel("acme", "m1"))!;
    expect(Array.from(back.weights.values)).toEqual(Array.from(values));
    expect(Object.is(back.weights.values[4], -0)).toBe(true);
    expect(await store.getModel("globex", "m2")).toBeUndefined();
    expect(await store.deleteModel("acme", "m1")).toBe(true);
    expect(await store.deleteModel("acme", "m1")).toBe(false);
    expect((await store.listModels("acme")).map((m) => m.record.id)).toEqual(["m2"]);
  });

  it("tokens: reservations see each other, settling moves them to spent; call counts by minute and month", async () => {
    const { store } = freshStore();
    const grants = await Promise.all(Array.from({ length: 20 }, (_, i) => store.reserveTokens("acme", { id: `r${i}`, tokens: 5, leaseMs: null }, 1, 0)));
    expect(grants.filter(Boolean)).toHaveLength(1);
    await store.settleTokens("acme", `r${grants.indexOf(true)}`, 3);
    expect(await store.spentTokens("acme")).toBe(3);
    await store.chargeTokens("acme", 4);
    expect(await store.spentTokens("acme")).toBe(7);
    await Promise.all(Array.from({ length: 5 }, () => store.countCall!("acme", "2026-01-01T00:00", "2026-01")));
    await store.countCall!("acme", "2026-01-01T00:01", "2026-01");
    expect(await store.callCounts!("acme", "2026-01-01T00:01", "2026-01")).toEqual({ minute: 1, month: 6 });
  });

  it("pending quota: insertJob refuses past the account's pending jobs or values; leaving pending frees the slot", async () => {
    const { store } = freshStore();
    const quota = { maxJobs: 2, maxValues: 25 };
    const sized = (id: string, values: number, accountId = "acme"): StoredJob => ({ ...job(id), accountId, values });
    expect(await store.insertJob(sized("ft-q1", 10), quota)).toBe("ok");
    expect(await store.insertJob(sized("ft-q2", 16), quota)).toBe("limit");
    expect(await store.insertJob(sized("ft-q2", 15), quota)).toBe("ok");
    expect(await store.insertJob(sized("ft-q3", 0), quota)).toBe("limit");
    expect(await store.insertJob(sized("ft-q3", 0, "globex"), quota)).toBe("ok");
    expect(await store.getJob("ft-q2")).toBeDefined();
    expect(await store.updateJob("ft-q1", "pending", { ...sized("ft-q1", 10), status: "running" })).toBe(true);
    expect(await store.insertJob(sized("ft-q4", 10), quota)).toBe("ok");
    expect(await store.insertJob(sized("ft-q5", 0), quota)).toBe("limit");
    // unbounded quotas and an infinite expiry
    expect(await store.insertJob(sized("ft-q6", 1e9), { maxJobs: Infinity, maxValues: Infinity })).toBe("ok");
    expect(await store.updateJob("ft-q6", "pending", { ...sized("ft-q6", 1e9), status: "cancelled" }, { ttlMs: Infinity, nowMs: 0 })).toBe(true);
    expect((await store.getJob("ft-q6"))!.status).toBe("cancelled");
  });

  it("finished jobs expire: updateJob with a ttl sets the job's keys to expire (SET PX)", async () => {
    const { store } = freshStore();
    expect(await store.insertJob(job("ft-e"))).toBe("ok");
    expect(await store.updateJob("ft-e", "pending", job("ft-e", "running"))).toBe(true);
    expect(await store.updateJob("ft-e", "running", { ...job("ft-e", "succeeded"), request: null, result: { ok: 1 } }, { ttlMs: 200, nowMs: 0 })).toBe(true);
    expect((await store.getJob("ft-e"))!.result).toEqual({ ok: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await store.getJob("ft-e")).toBeUndefined();
  });

  it("reservations: a lease lapses unless renewed (PEXPIRE); null holds until settled; settling a lapsed one only charges", async () => {
    const { store } = freshStore();
    expect(await store.reserveTokens("acme", { id: "a", tokens: 10, leaseMs: 200 }, 10, 0)).toBe(true);
    expect(await store.reserveTokens("acme", { id: "b", tokens: 1, leaseMs: 200 }, 10, 0)).toBe(false);
    await new Promise((r) => setTimeout(r, 120));
    expect(await store.renewReservation("acme", "a", 200, 0)).toBe(true);
    await new Promise((r) => setTimeout(r, 120));
    expect(await store.reserveTokens("acme", { id: "b", tokens: 1, leaseMs: 200 }, 10, 0)).toBe(false);
    await new Promise((r) => setTimeout(r, 150));
    expect(await store.renewReservation("acme", "a", 200, 0)).toBe(false);
    expect(await store.reserveTokens("acme", { id: "c", tokens: 10, leaseMs: null }, 10, 0)).toBe(true);
    await new Promise((r) => setTimeout(r, 250));
    expect(await store.reserveTokens("acme", { id: "d", tokens: 1, leaseMs: 200 }, 10, 0)).toBe(false);
    await store.settleTokens("acme", "a", 3);
    await store.settleTokens("acme", "c", 4);
    expect(await store.spentTokens("acme")).toBe(7);
    expect(await store.reserveTokens("acme", { id: "e", tokens: 1, leaseMs: 200 }, 10, 0)).toBe(true);
  });

  it("two runJobs at once (two services, two connections) run each job once and charge it once", async () => {
    const { store: first, prefix } = freshStore();
    const second = createRedisStore(redis.server().connect(), prefix);
    const account = { id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true };
    const { pipelines, finetunes } = countingPipelines();
    let n = 0;
    const a = createService({ accounts: [account], store: first, pipelines, ids: () => `a-${n++}` });
    const b = createService({ accounts: [account], store: second, pipelines, ids: () => `b-${n++}` });
    for (let j = 0; j < 6; j++) expect((await a.handle(post("/v2/finetune/async", { series: smallSeries, freq: "D", finetune_steps: 2 }))).status).toBe(200);
    const [ra, rb] = await Promise.all([a.runJobs(), b.runJobs()]);
    expect(ra.ran + rb.ran).toBe(6);
    expect(finetunes()).toBe(6);
    // input 10 values + finetune 2 steps × 2 series per job
    expect(await first.spentTokens("acme")).toBe(6 * 14);
    expect((await first.listModels("acme")).length).toBe(6);
  });

  it("200 concurrent requests from 2 accounts on 2 services: only 200 or 429, credits charged = tokens reported, accounts kept apart", async () => {
    const { store: first, prefix } = freshStore();
    const second = createRedisStore(redis.server().connect(), prefix);
    const accounts = [
      { id: "acme", apiKeys: [KEY_A], credits: 600, hasPaymentMethod: false },
      { id: "globex", apiKeys: [KEY_B], credits: 400, hasPaymentMethod: false },
    ];
    let n = 0;
    const services = [createService({ accounts, store: first, pipelines: fakePipelines, ids: () => `x-${n++}` }), createService({ accounts, store: second, pipelines: fakePipelines, ids: () => `y-${n++}` })];
    const requests = Array.from({ length: 200 }, (_, i) => {
      const key = i % 2 === 0 ? KEY_A : KEY_B;
      return services[Math.floor(i / 2) % 2]!.handle(post("/v2/forecast", { series: smallSeries, freq: "D", h: 2 }, key)).then((r) => ({ key, r }));
    });
    const done = await Promise.all(requests);
    const reported: Record<string, number> = { [KEY_A]: 0, [KEY_B]: 0 };
    for (const { key, r } of done) {
      expect([200, 429]).toContain(r.status);
      if (r.status === 200) {
        const body = r.body as { input_tokens: number; output_tokens: number; finetune_tokens: number };
        reported[key] = reported[key]! + body.input_tokens + body.output_tokens + body.finetune_tokens;
      }
    }
    expect(await first.spentTokens("acme")).toBe(reported[KEY_A]);
    expect(await second.spentTokens("globex")).toBe(reported[KEY_B]);
    expect(reported[KEY_A]).toBeGreaterThan(0);
    // a fine-tuned model and a job of one account are invisible to the other
    const made = await services[0]!.handle(post("/v2/finetune", { series: smallSeries, freq: "D", finetune_steps: 1, output_model_id: "mine" }, KEY_A));
    if (made.status === 200) {
      expect((await services[1]!.handle(get("/v2/finetuned_models/mine", KEY_B))).status).toBe(404);
      expect((await services[1]!.handle(get("/v2/finetuned_models/mine", KEY_A))).status).toBe(200);
    }
  });

  it("job progress: written only while the job runs, read back, gone once it finished; a service's running job shows it", async () => {
    const { store } = freshStore();
    expect(await store.insertJob(job("ft-p"))).toBe("ok");
    expect(await store.setJobProgress!("ft-p", { stage: "finetune", done: 1, total: 5 }, 0)).toBe(false);
    expect(await store.getJobProgress!("ft-p")).toBeUndefined();
    expect(await store.updateJob("ft-p", "pending", job("ft-p", "running"))).toBe(true);
    expect(await store.setJobProgress!("ft-p", { stage: "finetune", done: 2, total: 5 }, 0)).toBe(true);
    expect(await store.getJobProgress!("ft-p")).toEqual({ stage: "finetune", done: 2, total: 5 });
    // a lease renewal (running → running) keeps it
    expect(await store.updateJob("ft-p", "running", job("ft-p", "running"))).toBe(true);
    expect(await store.getJobProgress!("ft-p")).toEqual({ stage: "finetune", done: 2, total: 5 });
    expect(await store.updateJob("ft-p", "running", job("ft-p", "succeeded"), { ttlMs: 60_000, nowMs: 0 })).toBe(true);
    expect(await store.getJobProgress!("ft-p")).toBeUndefined();
    expect(await store.setJobProgress!("ft-p", { stage: "finetune", done: 5, total: 5 }, 0)).toBe(false);
    expect(await store.setJobProgress!("ft-none", { stage: "finetune", done: 5, total: 5 }, 0)).toBe(false);

    // a service on this store, its job's work on a stand-in pool of 300 steps, 10 ms of the clock each, polled after every step
    const { store: shared } = freshStore();
    let t = Date.UTC(2026, 0, 1);
    let jobId = "";
    const polled: number[] = [];
    const runner = steppingRunner(300, () => (t += 10), async () => {
      const body = (await service.handle(get(`/v2/finetune/jobs/${jobId}`))).body as { status: string; progress?: { done: number; total: number } };
      expect(body.status).toBe("running");
      if (body.progress !== undefined) polled.push(body.progress.done);
    });
    const service = createService({ accounts: [{ id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true }], clock: () => new Date(t), store: shared, pool: runner });
    jobId = ((await service.handle(post("/v2/finetune/async", { series: smallSeries, freq: "D", finetune_steps: 2 }))).body as { job_id: string }).job_id;
    expect(await service.runJob(jobId)).toEqual({ jobId, status: "succeeded" });
    expect(polled.length).toBeGreaterThan(250);
    for (let k = 1; k < polled.length; k++) expect(polled[k]).toBeGreaterThanOrEqual(polled[k - 1]!);
    expect(polled.at(-1)).toBe(300);
    expect((await service.handle(get(`/v2/finetune/jobs/${jobId}`))).body).not.toHaveProperty("progress");
  });

  it("Redis restarted between submit and poll: the job and the fine-tuned model are still there", async () => {
    const { prefix } = freshStore();
    const account = { id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true };
    let n = 0;
    const ids = () => `restart-${n++}`;
    const before = createService({ accounts: [account], store: createRedisStore(redis.server().connect(), prefix), pipelines: fakePipelines, ids });
    const model = await before.handle(post("/v2/finetune", { series: smallSeries, freq: "D", finetune_steps: 1, output_model_id: "kept" }));
    expect(model.status).toBe(200);
    const submitted = await before.handle(post("/v2/finetune/async", { series: smallSeries, freq: "D", finetune_steps: 2 }));
    const jobId = (submitted.body as { job_id: string }).job_id;
    await redis.server().restart();
    const after = createService({ accounts: [account], store: createRedisStore(redis.server().connect(), prefix), pipelines: fakePipelines, ids });
    const polled = await after.handle(get(`/v2/finetune/jobs/${jobId}`));
    expect(polled.status).toBe(200);
    expect((polled.body as { status: string }).status).toBe("pending");
    expect((await after.runJobs()).succeeded).toBe(1);
    expect((await after.handle(get("/v2/finetuned_models/kept"))).status).toBe(200);
  }, 30_000);
});
