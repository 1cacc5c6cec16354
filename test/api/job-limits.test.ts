/**
 * What the service holds for jobs and for how long (issue 27): an account's
 * pending jobs are bounded in count and values (429 past either), finished
 * jobs are forgotten `resultTtlMs` after they end, and a reservation of
 * tokens carries a lease renewed while its work runs, so the credits of a
 * worker that stopped come back after the lease. Times come from the
 * injected clock.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_JOB_LIMITS } from "../../src/api/jobs.js";
import { createService, type ServiceOptions } from "../../src/api/service.js";
import { createMemoryStore, type ServiceStore } from "../../src/api/store.js";
import { fakePipelines, get, post } from "./helpers.js";

const KEY = "key-jobs-0123";
const KEY_OTHER = "key-jobs-4567";
const y10 = Array.from({ length: 10 }, (_, t) => 5 + (t % 4));
const forecastBody = { series: { y: y10, sizes: [10] }, freq: "D", h: 2 };
const finetuneBody = { series: { y: y10, sizes: [10] }, freq: "D", finetune_steps: 1 };

/** A service on a clock the test moves (`advance`), one paying and one free account. */
function clockedService(extra: Partial<ServiceOptions> = {}, credits = 1e9) {
  let t = Date.UTC(2026, 0, 1);
  const store = extra.store ?? createMemoryStore();
  let n = 0;
  const service = createService({
    accounts: [
      { id: "acct", apiKeys: [KEY], credits, hasPaymentMethod: credits >= 1e9 },
      { id: "other", apiKeys: [KEY_OTHER], credits: 1e9, hasPaymentMethod: true },
    ],
    clock: () => new Date(t),
    ids: () => `id-${n++}`,
    pipelines: fakePipelines,
    ...extra,
    store,
  });
  return {
    service,
    store,
    send: (path: string, body: unknown, key = KEY) => service.handle(post(path, body, key)),
    read: (path: string, key = KEY) => service.handle(get(path, key)),
    advance: (ms: number) => void (t += ms),
  };
}

/** A service on the wall clock with a 60 ms lease (renewals run in real time), one unpaid account holding `credits`. */
function liveService(store: ServiceStore, credits: number) {
  return createService({
    accounts: [{ id: "acct", apiKeys: [KEY], credits, hasPaymentMethod: false }],
    clock: () => new Date(),
    pipelines: fakePipelines,
    store,
    jobLimits: { leaseMs: 60 },
  });
}

const jobId = (res: { body: unknown }): string => (res.body as { job_id: string }).job_id;

describe("pending jobs are bounded per account", () => {
  it(`by count: ${DEFAULT_JOB_LIMITS.maxPendingJobs} by default, the next submission is 429 naming jobLimits; a claimed or cancelled job frees its slot`, async () => {
    const { service, send } = clockedService();
    const statuses: number[] = [];
    for (let i = 0; i <= DEFAULT_JOB_LIMITS.maxPendingJobs; i++) statuses.push((await send("/v2/forecast/async", forecastBody)).status);
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    const refused = await send("/v2/cross_validation/async", { ...forecastBody, n_windows: 2 });
    expect(refused.status).toBe(429);
    expect((refused.body as { detail: string }).detail).toMatch(/jobLimits/);
    expect(statuses.at(-1)).toBe(429);
    // another account is not concerned
    expect((await send("/v2/forecast/async", forecastBody, KEY_OTHER)).status).toBe(200);
    // the runner claims them all (both accounts): the slots are free again
    expect((await service.runJobs()).ran).toBe(DEFAULT_JOB_LIMITS.maxPendingJobs + 1);
    for (let i = 0; i < 3; i++) expect((await send("/v2/finetune/async", finetuneBody)).status).toBe(200);
  });

  it("by count, configured: maxPendingJobs 2; cancel frees exactly one slot", async () => {
    const { send } = clockedService({ jobLimits: { maxPendingJobs: 2 } });
    const a = await send("/v2/forecast/async", forecastBody);
    expect((await send("/v2/finetune/async", finetuneBody)).status).toBe(200);
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(429);
    expect((await send(`/v2/async/jobs/${jobId(a)}/cancel`, undefined)).status).toBe(200);
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(200);
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(429);
  });

  it("by values: the numbers of the pending requests (y 10 + sizes 1 + h 1 = 12 per forecast) against maxPendingValues", async () => {
    const { service, send } = clockedService({ jobLimits: { maxPendingValues: 30 } });
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(200);
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(200);
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(429);
    // a smaller job still fits: y 3 + sizes 1 + h 1 = 5, 29 of 30
    expect((await send("/v2/forecast/async", { ...forecastBody, series: { y: [1, 2, 3], sizes: [3] } })).status).toBe(200);
    await service.runJobs();
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(200);
  });

  it("a submission refused for the pending limit holds no credits", async () => {
    const { send } = clockedService({ jobLimits: { maxPendingJobs: 1 } }, 25);
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(200);
    // 15 credits left: the refused submission's 10-token reservation is released at once
    for (let i = 0; i < 3; i++) expect((await send("/v2/forecast/async", forecastBody)).status).toBe(429);
    expect((await send("/v2/forecast", forecastBody)).status).toBe(200);
  });

  it("options are checked: a limit that is not a number > 0 (or a lease that is not finite) is a RangeError", () => {
    for (const jobLimits of [{ maxPendingJobs: 0 }, { maxPendingValues: -1 }, { resultTtlMs: Number.NaN }, { leaseMs: Infinity }]) {
      expect(() => createService({ accounts: [], jobLimits })).toThrow(RangeError);
    }
    expect(() => createService({ accounts: [], jobLimits: { maxPendingJobs: Infinity } })).not.toThrow();
  });
});

describe("finished jobs expire", () => {
  it(`succeeded, failed and cancelled jobs answer 404 ${DEFAULT_JOB_LIMITS.resultTtlMs / 3_600_000} h after they ended (default), not before; a pending job never expires`, async () => {
    const { service, store, send, read, advance } = clockedService();
    const done = jobId(await send("/v2/forecast/async", forecastBody));
    const failed = jobId(await send("/v2/finetune/async", { ...finetuneBody, series: { y: [666, ...y10.slice(1)], sizes: [10] } }));
    expect(await service.runJobs()).toEqual({ ran: 2, succeeded: 1, failed: 1 });
    const cancelled = jobId(await send("/v2/forecast/async", forecastBody));
    expect((await send(`/v2/async/jobs/${cancelled}/cancel`, undefined)).status).toBe(200);
    const pending = jobId(await send("/v2/forecast/async", forecastBody));
    // a finished job keeps its answer, not its request
    expect((await store.getJob(done))!.request).toBeNull();
    advance(DEFAULT_JOB_LIMITS.resultTtlMs - 1);
    expect((await read(`/v2/forecast/jobs/${done}`)).status).toBe(200);
    expect((await read(`/v2/finetune/jobs/${failed}`)).status).toBe(200);
    expect((await read(`/v2/forecast/jobs/${cancelled}`)).status).toBe(200);
    advance(1);
    expect((await read(`/v2/forecast/jobs/${done}`)).status).toBe(404);
    expect((await read(`/v2/finetune/jobs/${failed}`)).status).toBe(404);
    expect((await read(`/v2/forecast/jobs/${cancelled}`)).status).toBe(404);
    // and the memory is freed: the store no longer has them at all
    expect(await store.getJob(done)).toBeUndefined();
    expect(await store.getJob(cancelled)).toBeUndefined();
    advance(100 * DEFAULT_JOB_LIMITS.resultTtlMs);
    const stillPending = await read(`/v2/forecast/jobs/${pending}`);
    expect(stillPending.status).toBe(200);
    expect((stillPending.body as { status: string }).status).toBe("pending");
    expect((await service.runJobs()).succeeded).toBe(1);
  });

  it("resultTtlMs Infinity keeps finished jobs for ever; maxPendingJobs Infinity bounds nothing", async () => {
    const { service, send, read, advance } = clockedService({ jobLimits: { resultTtlMs: Infinity, maxPendingJobs: Infinity } });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(jobId(await send("/v2/forecast/async", forecastBody)));
    expect(new Set(ids).size).toBe(30);
    await service.runJobs();
    advance(1e15);
    expect((await read(`/v2/forecast/jobs/${ids[0]}`)).status).toBe(200);
  });

  it("configured: resultTtlMs 5000", async () => {
    const { service, send, read, advance } = clockedService({ jobLimits: { resultTtlMs: 5000 } });
    const id = jobId(await send("/v2/forecast/async", forecastBody));
    await service.runJobs();
    advance(4999);
    expect((await read(`/v2/forecast/jobs/${id}`)).status).toBe(200);
    advance(1);
    expect((await read(`/v2/forecast/jobs/${id}`)).status).toBe(404);
  });
});

/**
 * The memory store whose `insertModel` waits for `release()` (or for ever):
 * a fine-tune whose worker stopped mid-job. After `kill()` no renewal
 * reaches the store any more, as from a process that died.
 */
function stallingStore(): { store: ServiceStore; release: () => void; entered: () => boolean; untilEntered: () => Promise<void>; kill: () => void } {
  const inner = createMemoryStore();
  let release = (): void => undefined;
  let entered = false;
  let killed = false;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    store: {
      ...inner,
      insertModel: async (model, max) => {
        entered = true;
        await gate;
        return inner.insertModel(model, max);
      },
      renewReservation: async (...args) => (killed ? false : inner.renewReservation(...args)),
      // a running job's lease renewal (running to running, no expiry) is lost too; its final update is not
      updateJob: async (jobId, expected, next, expiry) => (killed && expected === "running" && next.status === "running" ? false : inner.updateJob(jobId, expected, next, expiry)),
    },
    release: () => release(),
    entered: () => entered,
    /** Waits (up to 50 ticks of 1 ms) for the work to reach the gate. */
    untilEntered: async () => {
      for (let i = 0; i < 50 && !entered; i++) await new Promise((r) => setTimeout(r, 1));
    },
    kill: () => void (killed = true),
  };
}

describe("reservations carry a lease", () => {
  it(`a job whose worker stopped mid-run gives its credits back ${DEFAULT_JOB_LIMITS.leaseMs / 1000} s after its last renewal; a pending job keeps them`, async () => {
    const { store, entered, untilEntered, kill } = stallingStore();
    const { service, send, advance } = clockedService({ store }, 10);
    const id = jobId(await send("/v2/finetune/async", finetuneBody));
    expect((await send("/v2/forecast", forecastBody)).status).toBe(429);
    // queued for a long time: the reservation is held while the job is pending
    advance(10 * DEFAULT_JOB_LIMITS.leaseMs);
    expect((await send("/v2/forecast", forecastBody)).status).toBe(429);
    // the worker claims it and stops for good in the middle (never awaited)
    void service.runJob(id);
    await untilEntered();
    expect(entered()).toBe(true);
    kill();
    advance(DEFAULT_JOB_LIMITS.leaseMs - 1);
    expect((await send("/v2/forecast", forecastBody)).status).toBe(429);
    advance(1);
    expect((await send("/v2/forecast", forecastBody)).status).toBe(200);
  });

  it("a sync request stopped mid-work frees its reservation after leaseMs (configured: 2000)", async () => {
    const { store, entered, untilEntered, kill } = stallingStore();
    const { send, advance } = clockedService({ store, jobLimits: { leaseMs: 2000 } }, 10);
    void send("/v2/finetune", finetuneBody);
    await untilEntered();
    expect(entered()).toBe(true);
    kill();
    expect((await send("/v2/forecast", forecastBody)).status).toBe(429);
    advance(2000);
    expect((await send("/v2/forecast", forecastBody)).status).toBe(200);
  });

  it("the lease is renewed while the work runs: a 60 ms lease holds through 300 ms of awaited work, and ends with it", async () => {
    const { store, release, untilEntered } = stallingStore();
    const service = liveService(store, 10);
    const running = service.handle(post("/v2/finetune", finetuneBody, KEY));
    await untilEntered();
    await new Promise((r) => setTimeout(r, 300));
    expect((await service.handle(post("/v2/forecast", forecastBody, KEY))).status).toBe(429);
    release();
    expect((await running).status).toBe(200);
    expect(await store.spentTokens("acct")).toBeGreaterThan(0);
  });
});

describe("a running job carries a lease", () => {
  const status = async (read: (path: string) => Promise<{ status: number; body: unknown }>, id: string) => {
    const res = await read(`/v2/finetune/jobs/${id}`);
    expect(res.status).toBe(200);
    return res.body as { status: string; error: string | null };
  };

  it("a job whose runner died is answered failed once its lease ends, not running for ever; its credits are back and it expires like any failed job", async () => {
    const { store, entered, untilEntered, kill } = stallingStore();
    const { service, send, read, advance } = clockedService({ store }, 10);
    const id = jobId(await send("/v2/finetune/async", finetuneBody));
    void service.runJob(id);
    await untilEntered();
    expect(entered()).toBe(true);
    kill();
    advance(DEFAULT_JOB_LIMITS.leaseMs);
    expect((await status(read, id)).status).toBe("running");
    advance(1);
    const failed = await status(read, id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/process running this job stopped.*nothing was charged/);
    expect((await store.getJob(id))!.status).toBe("failed");
    expect(await store.spentTokens("acct")).toBe(0);
    expect((await send("/v2/forecast", forecastBody)).status).toBe(200);
    // a failed job cannot be cancelled, and it is forgotten resultTtlMs after it was declared failed
    expect((await send(`/v2/async/jobs/${id}/cancel`, undefined)).status).toBe(409);
    advance(DEFAULT_JOB_LIMITS.resultTtlMs);
    expect((await read(`/v2/finetune/jobs/${id}`)).status).toBe(404);
  });

  it("a runner that comes back after its job was declared failed keeps it failed and charges nothing", async () => {
    const { store, release, untilEntered, kill } = stallingStore();
    const { service, send, read, advance } = clockedService({ store }, 1000);
    const id = jobId(await send("/v2/finetune/async", finetuneBody));
    const run = service.runJob(id);
    await untilEntered();
    kill(); // its renewals stop reaching the store (a frozen process), its work goes on
    advance(DEFAULT_JOB_LIMITS.leaseMs + 1);
    expect((await status(read, id)).status).toBe("failed");
    release();
    expect(await run).toEqual({ jobId: id, status: "failed" });
    expect((await status(read, id)).status).toBe("failed");
    expect(await store.spentTokens("acct")).toBe(0);
  });

  it("a live runner renews its job: a 60 ms lease holds through 300 ms of awaited work, and the job succeeds", async () => {
    const { store, release, untilEntered } = stallingStore();
    const service = liveService(store, 1000);
    const read = (path: string) => service.handle(get(path, KEY));
    const id = jobId(await service.handle(post("/v2/finetune/async", finetuneBody, KEY)));
    const run = service.runJob(id);
    await untilEntered();
    await new Promise((r) => setTimeout(r, 300));
    expect((await status(read, id)).status).toBe("running");
    release();
    expect(await run).toEqual({ jobId: id, status: "succeeded" });
    expect((await status(read, id)).status).toBe("succeeded");
    expect(await store.spentTokens("acct")).toBeGreaterThan(0);
  });
});
