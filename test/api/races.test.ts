/**
 * Concurrency of the service over a store that answers after 1 ms (as a
 * database does): jobs claimed by compare-and-set run exactly once and are
 * charged once, a cancelled job never runs, credits are reserved atomically,
 * a repeating id never overwrites a job, and a 500 carries its request id.
 */
import { describe, expect, it } from "vitest";
import { createService } from "../../src/api/service.js";
import { createMemoryStore, type ServiceStore } from "../../src/api/store.js";
import { countingPipelines, fakePipelines, KEY_A, post, smallSeries } from "./helpers.js";

const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/** The memory store, each call answered after 1 ms (the operation itself stays atomic, as in a database). */
function slowStore(): ServiceStore {
  const inner = createMemoryStore();
  const slow = {} as Record<string, unknown>;
  for (const [name, fn] of Object.entries(inner)) {
    slow[name] = async (...args: unknown[]) => {
      await pause();
      return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
    };
  }
  return slow as unknown as ServiceStore;
}

describe("races over a 1 ms store", () => {
  it("100 rounds: two runJobs at once run each job exactly once and charge its tokens once", async () => {
    for (let round = 0; round < 100; round++) {
      const store = slowStore();
      const { pipelines, finetunes } = countingPipelines();
      let n = 0;
      const service = createService({
        accounts: [{ id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true }],
        store,
        pipelines,
        ids: () => `r${round}-${n++}`,
      });
      const jobs = 3;
      for (let j = 0; j < jobs; j++) expect((await service.handle(post("/v2/finetune/async", { series: smallSeries, freq: "D", finetune_steps: 2 }))).status).toBe(200);
      const [a, b] = await Promise.all([service.runJobs(), service.runJobs()]);
      expect(a.ran + b.ran).toBe(jobs);
      expect(finetunes()).toBe(jobs);
      // each job charges once: input 10 values + finetune 2 steps × 2 series
      expect(await store.spentTokens("acme")).toBe(jobs * 14);
      expect((await service.runJobs()).ran).toBe(0);
    }
  });

  it("a job cancelled with 200 never runs; a job that runs cannot be cancelled", async () => {
    for (let round = 0; round < 50; round++) {
      const store = slowStore();
      const { pipelines, finetunes } = countingPipelines();
      const service = createService({ accounts: [{ id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true }], store, pipelines, ids: () => `c${round}` });
      const submitted = await service.handle(post("/v2/finetune/async", { series: smallSeries, freq: "D", finetune_steps: 2 }));
      const jobId = (submitted.body as { job_id: string }).job_id;
      const [cancel] = await Promise.all([service.handle(post(`/v2/finetune/jobs/${jobId}/cancel`, undefined)), service.runJobs()]);
      const final = (await store.getJob(jobId))!;
      if (cancel.status === 200) {
        expect(finetunes()).toBe(0);
        expect(final.status).toBe("cancelled");
      } else {
        expect(cancel.status).toBe(409);
        expect(finetunes()).toBe(1);
        expect(final.status).toBe("succeeded");
      }
    }
  });

  it("20 concurrent requests on an account with 1 credit: one is served, the others get 429", async () => {
    const store = slowStore();
    const service = createService({ accounts: [{ id: "poor", apiKeys: [KEY_A], credits: 1, hasPaymentMethod: false }], store, pipelines: fakePipelines });
    const responses = await Promise.all(Array.from({ length: 20 }, () => service.handle(post("/v2/forecast", { series: smallSeries, freq: "D", h: 2 }))));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(1);
    expect(statuses.filter((s) => s === 429).length).toBe(19);
  });

  it("a repeating ids function never overwrites a queued job; the 500 carries its x-request-id", async () => {
    const store = createMemoryStore();
    const service = createService({ accounts: [{ id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true }], store, pipelines: fakePipelines, ids: () => "same" });
    const first = await service.handle(post("/v2/finetune/async", { series: smallSeries, freq: "D", finetune_steps: 2, output_model_id: "first" }));
    expect(first.status).toBe(200);
    const jobId = (first.body as { job_id: string }).job_id;
    const second = await service.handle(post("/v2/finetune/async", { series: smallSeries, freq: "D", finetune_steps: 3, output_model_id: "second" }));
    expect(second.status).toBe(500);
    expect(second.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await store.getJob(jobId))!.request as { output_model_id: string }).output_model_id).toBe("first");
  });

  it("a generated model id that collides is drawn again, never overwriting a model", async () => {
    const sequence = ["dup", "dup", "dup", "fresh"];
    let i = 0;
    const store = createMemoryStore();
    const service = createService({ accounts: [{ id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true }], store, pipelines: fakePipelines, ids: () => sequence[Math.min(i++, sequence.length - 1)]! });
    const a = await service.handle(post("/v2/finetune", { series: smallSeries, freq: "D", finetune_steps: 2 }));
    const b = await service.handle(post("/v2/finetune", { series: smallSeries, freq: "D", finetune_steps: 3 }));
    expect([a.status, b.status]).toEqual([200, 200]);
    const ids = [(a.body as { finetuned_model_id: string }).finetuned_model_id, (b.body as { finetuned_model_id: string }).finetuned_model_id];
    expect(new Set(ids).size).toBe(2);
    expect((await store.listModels("acme")).map((m) => m.record.steps)).toEqual([2, 3]);
  });
});
