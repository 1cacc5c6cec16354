/**
 * A job's progress in the store: while an async job runs, its status shows
 * the latest `{ stage, done, total }` of its work, growing and ending at
 * total; the store is written at a bounded rate of the service's clock; a
 * store without `setJobProgress` runs jobs as before, without progress.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { crossValidationProgress, JOB_PROGRESS_INTERVAL_MS, jobProgressWriter, throttleProgress } from "../../src/api/job-progress.js";
import { ErrorCollector, INVALID, validateAgainst } from "../../src/api/schema-validator.js";
import { JOB_STATUS_SCHEMA } from "../../src/api/schemas.js";
import { createService, type ServiceOptions } from "../../src/api/service.js";
import { createMemoryStore, type ServiceStore } from "../../src/api/store.js";
import type { Progress } from "../../src/progress.js";
import { steppingRunner } from "../support/stepping-runner.js";
import { get, KEY_A, post, smallSeries } from "./helpers.js";

const account = { id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true };

/** A memory store whose `setJobProgress` calls are recorded (what was written, and when on the test's clock). */
function recordingStore(now: () => number): { store: ServiceStore; writes: { progress: Progress; at: number }[] } {
  const inner = createMemoryStore();
  const writes: { progress: Progress; at: number }[] = [];
  const store: ServiceStore = {
    ...inner,
    setJobProgress: async (jobId, progress, nowMs) => {
      writes.push({ progress, at: now() });
      return inner.setJobProgress!(jobId, progress, nowMs);
    },
  };
  return { store, writes };
}

/** The memory store without the optional progress methods (a store written before them). */
function storeWithoutProgress(): ServiceStore {
  const { setJobProgress: _set, getJobProgress: _get, ...rest } = createMemoryStore();
  return rest;
}

function conformsToStatusSchema(body: unknown): void {
  const errors = new ErrorCollector();
  expect(validateAgainst(JOB_STATUS_SCHEMA, body, ["response"], errors)).not.toBe(INVALID);
  expect(errors.items).toEqual([]);
}

/** Fields of a job status body. */
type StatusBody = { status: string; progress?: Progress };

/** Submits a fine-tune job and answers its id. */
async function submitFinetune(service: ReturnType<typeof createService>, path = "/v2/finetune/async"): Promise<string> {
  const res = await service.handle(post(path, { series: smallSeries, freq: "D", finetune_steps: 3 }));
  expect(res.status).toBe(200);
  return (res.body as { job_id: string }).job_id;
}

describe("a running job's progress in its status", () => {
  it("shows the latest progress while the job runs, growing to done = total; the finished job has none", async () => {
    let t = Date.UTC(2026, 0, 1);
    const polled: StatusBody[] = [];
    let jobId = "";
    const steps = 2000;
    // one step every 5 ms of the clock, the status polled after each step
    const runner = steppingRunner(steps, () => (t += 5), async () => {
      const res = await service.handle(get(`/v2/finetune/jobs/${jobId}`));
      expect(res.status).toBe(200);
      conformsToStatusSchema(res.body);
      polled.push(res.body as StatusBody);
    });
    const service = createService({ accounts: [account], clock: () => new Date(t), pool: runner });
    jobId = await submitFinetune(service);
    expect((await service.handle(get(`/v2/finetune/jobs/${jobId}`))).body).not.toHaveProperty("progress");
    expect(await service.runJob(jobId)).toEqual({ jobId, status: "succeeded" });
    expect(runner.calls).toEqual([{ endpoint: "finetune", withProgress: true }]);
    expect(polled).toHaveLength(steps);
    expect(polled.every((b) => b.status === "running" && b.progress !== undefined && b.progress.stage === "finetune" && b.progress.total === steps)).toBe(true);
    const done = polled.map((b) => b.progress!.done);
    for (let k = 1; k < done.length; k++) expect(done[k]).toBeGreaterThanOrEqual(done[k - 1]!);
    expect(done[0]).toBe(1);
    expect(done.at(-1)).toBe(steps);
    // a write every 250 ms = 50 steps: what a poll sees is never more than 50 steps behind
    for (let k = 0; k < done.length; k++) expect(k + 1 - done[k]!).toBeLessThanOrEqual(JOB_PROGRESS_INTERVAL_MS / 5);
    const finished = await service.handle(get(`/v2/finetune/jobs/${jobId}`));
    expect(finished.body).toMatchObject({ status: "succeeded", error: null });
    expect(finished.body).not.toHaveProperty("progress");
  });

  it("writes the store at most every 250 ms of the service's clock, besides a stage's first and last report", async () => {
    let t = 0;
    const steps = 10_000;
    // 10,000 reports, one per 1 ms of the clock: 10 s of work
    const { store, writes } = recordingStore(() => t);
    const service = createService({ accounts: [account], clock: () => new Date(t), store, pool: steppingRunner(steps, () => (t += 1)) });
    const jobId = await submitFinetune(service);
    const start = t;
    await service.runJob(jobId);
    const elapsed = t - start;
    expect(elapsed).toBe(steps);
    // done = 1 (t = 1), then every 250 ms (done = 251, 501, …, 9751), then done = 10,000: 41 writes
    expect(writes.map((w) => w.progress.done)).toEqual([...Array.from({ length: 40 }, (_, k) => 1 + 250 * k), steps]);
    expect(writes.length).toBeLessThanOrEqual(Math.floor(elapsed / JOB_PROGRESS_INTERVAL_MS) + 1 + 2);
    for (let k = 1; k < writes.length - 1; k++) expect(writes[k]!.at - writes[k - 1]!.at).toBeGreaterThanOrEqual(JOB_PROGRESS_INTERVAL_MS);
  });

  it("with the default clock (it does not move): only the first and last report of the stage are written", async () => {
    const { store, writes } = recordingStore(() => 0);
    const service = createService({ accounts: [account], store, pool: steppingRunner(500, () => undefined) });
    await service.runJob(await submitFinetune(service));
    expect(writes.map((w) => w.progress)).toEqual([
      { stage: "finetune", done: 1, total: 500 },
      { stage: "finetune", done: 500, total: 500 },
    ]);
  });

  it("a store without setJobProgress runs the job as before: no callback for the work, no progress in its status", async () => {
    let t = Date.UTC(2026, 0, 1);
    const seen: StatusBody[] = [];
    let jobId = "";
    const runner = steppingRunner(20, () => (t += 100), async () => {
      seen.push((await service.handle(get(`/v2/finetune/jobs/${jobId}`))).body as StatusBody);
    });
    const service = createService({ accounts: [account], clock: () => new Date(t), store: storeWithoutProgress(), pool: runner });
    jobId = await submitFinetune(service);
    expect(await service.runJob(jobId)).toEqual({ jobId, status: "succeeded" });
    expect(runner.calls).toEqual([{ endpoint: "finetune", withProgress: false }]);
    expect(seen).toHaveLength(20);
    for (const body of seen) {
      expect(body.status).toBe("running");
      expect(Object.keys(body)).toEqual(["job_id", "status", "result", "error", "created_at", "updated_at"]);
    }
  });

  it("a store whose setJobProgress fails: the job still succeeds, its status has no progress", async () => {
    const failing: ServiceStore = { ...createMemoryStore(), setJobProgress: async () => Promise.reject(new Error("store down")) };
    let t = 0;
    const service = createService({ accounts: [account], clock: () => new Date(t), store: failing, pool: steppingRunner(50, () => (t += 100)) });
    const jobId = await submitFinetune(service);
    expect(await service.runJob(jobId)).toEqual({ jobId, status: "succeeded" });
  });

  it("a real fine-tune job (no pool): the writes are its steps, increasing, ending at done = total; the result is as without progress", async () => {
    const y = Array.from({ length: 120 }, (_, t) => 10 + (t % 7) + Math.sin(t / 3));
    const body = { series: { y, sizes: [120] }, freq: "D", finetune_steps: 12, output_model_id: "tuned" };
    const run = async (options: Partial<ServiceOptions>) => {
      let t = 0;
      const service = createService({ accounts: [account], clock: () => new Date((t += 100)), ...options });
      const jobId = ((await service.handle(post("/v2/finetune/async", body))).body as { job_id: string }).job_id;
      await service.runJobs();
      return (await service.handle(get(`/v2/finetune/jobs/${jobId}`))).body as { result: unknown };
    };
    let clockMs = 0;
    const { store, writes } = recordingStore(() => clockMs);
    const withProgress = await run({ store });
    const without = await run({ store: storeWithoutProgress() });
    expect(withProgress.result).toEqual(without.result);
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.every((w) => w.progress.stage === "finetune" && w.progress.total === 12)).toBe(true);
    const done = writes.map((w) => w.progress.done);
    expect(done[0]).toBe(1);
    expect(done.at(-1)).toBe(12);
    for (let k = 1; k < done.length; k++) expect(done[k]).toBeGreaterThan(done[k - 1]!);
  });

  it("a cross-validation job counts its windows; with refit and fine-tuning, the steps of every window", async () => {
    const y = Array.from({ length: 80 }, (_, t) => 20 + (t % 7) + Math.cos(t / 4));
    const series = { y: [...y, ...y], sizes: [80, 80] };
    const writesOf = async (body: Record<string, unknown>) => {
      let t = 0;
      const { store, writes } = recordingStore(() => t);
      // each read of the clock moves it 1 s: every report is written
      const service = createService({ accounts: [account], clock: () => new Date((t += 1000)), store });
      const res = await service.handle(post("/v2/cross_validation/async", body));
      expect(res.status).toBe(200);
      expect((await service.runJobs()).succeeded).toBe(1);
      return writes.map((w) => `${w.progress.stage} ${w.progress.done}/${w.progress.total}`);
    };
    /** The writes are the reports in order (one waiting while a write is in flight may be replaced by a newer one): the job's first report and each stage's last are there. */
    const expectWritesOf = (writes: string[], reports: string[]) => {
      let k = 0;
      for (const w of writes) {
        k = reports.indexOf(w, k);
        expect(k).toBeGreaterThanOrEqual(0);
      }
      for (const stage of new Set(reports.map((r) => r.split(" ")[0]))) {
        expect(writes).toContain(reports.filter((r) => r.startsWith(`${stage} `)).at(-1));
      }
      expect(writes[0]).toBe(reports[0]);
    };
    expectWritesOf(await writesOf({ series, freq: "D", h: 3, n_windows: 4 }), ["windows 1/4", "windows 2/4", "windows 3/4", "windows 4/4"]);
    expectWritesOf(await writesOf({ series, freq: "D", h: 3, n_windows: 2, finetune_steps: 3 }), ["finetune 1/6", "finetune 2/6", "finetune 3/6", "finetune 4/6", "finetune 5/6", "finetune 6/6"]);
    // refit false: one fine-tuning on the oldest window, then the windows
    expectWritesOf(await writesOf({ series, freq: "D", h: 3, n_windows: 2, finetune_steps: 2, refit: false }), ["finetune 1/2", "finetune 2/2", "windows 1/2", "windows 2/2"]);
  });

  it("a forecast job on a pool that does not take a progress callback still runs (the runner's third argument is optional)", async () => {
    const plain = { runEndpoint: (endpoint: "forecast" | "anomaly" | "historic" | "finetune", request: unknown) => steppingRunner(3, () => undefined).runEndpoint(endpoint, request) };
    const service = createService({ accounts: [account], pool: plain });
    const res = await service.handle(post("/v2/forecast/async", { series: smallSeries, freq: "D", h: 2 }));
    expect((await service.runJob((res.body as { job_id: string }).job_id))?.status).toBe("succeeded");
  });
});

describe("throttleProgress", () => {
  /** Stage runs: each a stage, a total and the clock's step before each report. */
  const runsArb = fc.array(
    fc.record({ stage: fc.constantFrom("finetune" as const, "windows" as const), total: fc.integer({ min: 1, max: 300 }), stepMs: fc.integer({ min: 0, max: 120 }) }),
    { minLength: 1, maxLength: 4 },
  );

  test.prop([runsArb, fc.integer({ min: 1, max: 1000 })])(
    "writes a subsequence holding each run's first and last report, at most ⌊elapsed / interval⌋ + 1 + 2 per run, others ≥ interval apart",
    (runs, intervalMs) => {
      let t = 0;
      const written: { p: Progress; at: number }[] = [];
      const report = throttleProgress((p) => written.push({ p, at: t }), () => t, intervalMs);
      const all: Progress[] = [];
      for (const run of runs) {
        for (let done = 1; done <= run.total; done++) {
          t += run.stepMs;
          const p = { stage: run.stage, done, total: run.total };
          all.push(p);
          report(p);
        }
      }
      // a subsequence of the reports, in order
      let k = 0;
      for (const w of written) {
        while (k < all.length && JSON.stringify(all[k]) !== JSON.stringify(w.p)) k++;
        expect(k).toBeLessThan(all.length);
        k++;
      }
      const key = (p: Progress) => `${p.stage} ${p.done}/${p.total}`;
      const writtenKeys = written.map((w) => key(w.p));
      for (const run of runs) {
        expect(writtenKeys).toContain(`${run.stage} 1/${run.total}`);
        expect(writtenKeys).toContain(`${run.stage} ${run.total}/${run.total}`);
      }
      expect(written.length).toBeLessThanOrEqual(Math.floor(t / intervalMs) + 1 + 2 * runs.length);
      for (let i = 1; i < written.length; i++) {
        const { p } = written[i]!;
        const boundary = p.done === 1 || p.done === p.total;
        if (!boundary) expect(written[i]!.at - written[i - 1]!.at).toBeGreaterThanOrEqual(intervalMs);
      }
    },
  );
});

describe("crossValidationProgress", () => {
  test.prop([fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 40 }), fc.array(fc.nat(), { maxLength: 400 })])(
    "with refit: windows' steps interleaved in any order add up, never decrease, and end at steps × windows",
    (windows, steps, order) => {
      const seen: Progress[] = [];
      const parts = crossValidationProgress((p) => seen.push(p), windows, steps)!;
      const callbacks = Array.from({ length: windows }, (_, w) => parts.window(w)!);
      const next = new Array<number>(windows).fill(1);
      // the windows report their steps in an arbitrary interleaving, then every remaining step
      for (const pick of order) {
        const w = pick % windows;
        if (next[w]! <= steps) callbacks[w]!({ stage: "finetune", done: next[w]!++, total: steps });
      }
      for (let w = 0; w < windows; w++) while (next[w]! <= steps) callbacks[w]!({ stage: "finetune", done: next[w]!++, total: steps });
      // a window's calibration windows are not the job's count
      callbacks[0]!({ stage: "windows", done: 1, total: 1 });
      expect(seen.every((p) => p.stage === "finetune" && p.total === steps * windows)).toBe(true);
      for (let k = 1; k < seen.length; k++) expect(seen[k]!.done).toBe(seen[k - 1]!.done + 1);
      expect(seen.at(-1)!.done).toBe(steps * windows);
    },
  );

  it("without a callback there is nothing to count", () => {
    expect(crossValidationProgress(undefined, 3, 0)).toBeUndefined();
  });
});

describe("jobProgressWriter", () => {
  it("one write in flight at a time: reports passed on meanwhile are coalesced to the newest, but for a stage run's last; settled waits for the last", async () => {
    const order: number[] = [];
    let release: () => void = () => undefined;
    const store: ServiceStore = {
      ...createMemoryStore(),
      setJobProgress: (_jobId, p) =>
        new Promise<boolean>((resolve) => {
          order.push(p.done);
          release = () => resolve(true);
        }),
    };
    let t = 0;
    const writer = jobProgressWriter(store, "ft-x", () => (t += 1000))!;
    writer.report({ stage: "finetune", done: 1, total: 10 });
    writer.report({ stage: "finetune", done: 2, total: 10 });
    writer.report({ stage: "finetune", done: 3, total: 10 });
    expect(order).toEqual([1]);
    release();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(order).toEqual([1, 3]);
    // while 3 is written: the stage's last report, then the next stage's reports
    writer.report({ stage: "finetune", done: 10, total: 10 });
    writer.report({ stage: "windows", done: 1, total: 4 });
    writer.report({ stage: "windows", done: 2, total: 4 });
    const settled = writer.settled();
    for (let k = 0; k < 3; k++) {
      release();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await settled;
    expect(order).toEqual([1, 3, 10, 2]);
  });

  it("is undefined for a store without setJobProgress", () => {
    expect(jobProgressWriter(storeWithoutProgress(), "ft-x", () => 0)).toBeUndefined();
  });

  it("the memory store keeps progress only while the job runs", async () => {
    const store = createMemoryStore();
    const job = { jobId: "ft-m", task: "ft", accountId: "acme", status: "pending", request: null, result: null, error: null, createdAt: "", updatedAt: "" } as const;
    await store.insertJob(job);
    expect(await store.setJobProgress!("ft-m", { stage: "finetune", done: 1, total: 2 }, 0)).toBe(false);
    await store.updateJob("ft-m", "pending", { ...job, status: "running" });
    expect(await store.setJobProgress!("ft-m", { stage: "finetune", done: 1, total: 2 }, 0)).toBe(true);
    expect(await store.getJobProgress!("ft-m")).toEqual({ stage: "finetune", done: 1, total: 2 });
    await store.updateJob("ft-m", "running", { ...job, status: "succeeded" });
    expect(await store.getJobProgress!("ft-m")).toBeUndefined();
    expect(await store.setJobProgress!("ft-m", { stage: "finetune", done: 2, total: 2 }, 0)).toBe(false);
    expect(await store.setJobProgress!("ft-none", { stage: "finetune", done: 2, total: 2 }, 0)).toBe(false);
  });
});
