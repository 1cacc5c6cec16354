/**
 * Fine-tune jobs (state machine, ownership, cross-task ids) and fine-tuned
 * models (records, ownership, the per-account limit, chaining) at the API.
 */
import { describe, expect, it } from "vitest";
import type { ServiceRequest, SubmittedJob } from "../../src/api/service.js";
import { createMemoryStore, type ServiceStore } from "../../src/api/store.js";
import { KEY_A, KEY_B, bearer, get, post, smallSeries, testService } from "./helpers.js";

const ftBody = (extra: Record<string, unknown> = {}) => ({ series: smallSeries, freq: "D", finetune_steps: 3, ...extra });

type Job = { job_id: string; status: string; result: unknown; error: string | null; created_at: string; updated_at: string };

/** A store that records every job write, to see each transition. */
function recordingStore(): { store: ServiceStore; writes: { status: string; updatedAt: string }[] } {
  const inner = createMemoryStore();
  const writes: { status: string; updatedAt: string }[] = [];
  return {
    writes,
    store: {
      ...inner,
      insertJob: async (job, quota) => {
        const done = await inner.insertJob(job, quota);
        if (done === "ok") writes.push({ status: job.status, updatedAt: job.updatedAt });
        return done;
      },
      updateJob: async (jobId, expected, next, expiry) => {
        const done = await inner.updateJob(jobId, expected, next, expiry);
        if (done) writes.push({ status: next.status, updatedAt: next.updatedAt });
        return done;
      },
    },
  };
}

async function submit(s: ReturnType<typeof testService>, body: unknown = ftBody(), key = KEY_A): Promise<string> {
  const res = await s.handle(post("/v2/finetune/async", body, key));
  expect(res.status).toBe(200);
  return (res.body as { job_id: string }).job_id;
}

async function status(s: ReturnType<typeof testService>, jobId: string, key = KEY_A): Promise<Job> {
  const res = await s.handle(get(`/v2/finetune/jobs/${jobId}`, key));
  expect(res.status).toBe(200);
  return res.body as Job;
}

describe("fine-tune jobs", () => {
  it("pending → running → succeeded, updated_at set on each transition", async () => {
    const { store, writes } = recordingStore();
    const s = testService({ store });
    const id = await submit(s, ftBody({ output_model_id: "job-model" }));
    const pending = await status(s, id);
    expect(pending).toEqual({ job_id: id, status: "pending", result: null, error: null, created_at: pending.created_at, updated_at: pending.created_at });
    await s.runJobs();
    expect(writes.map((w) => w.status)).toEqual(["pending", "running", "succeeded"]);
    const times = writes.map((w) => Date.parse(w.updatedAt));
    expect(times[1]).toBeGreaterThan(times[0] as number);
    expect(times[2]).toBeGreaterThan(times[1] as number);
    const done = await status(s, id);
    expect(done.status).toBe("succeeded");
    expect(done.error).toBeNull();
    expect(done.result).toEqual({ input_tokens: 10, output_tokens: 0, finetune_tokens: 6, finetuned_model_id: "job-model" });
    expect(done.created_at).toBe(pending.created_at);
    expect(done.updated_at).toBe(writes[2]?.updatedAt);
    expect((await s.handle(get("/v2/finetuned_models/job-model"))).status).toBe(200);
  });

  it("pending → running → failed: error only when failed, result stays null", async () => {
    const { store, writes } = recordingStore();
    const s = testService({ store });
    const id = await submit(s, ftBody({ series: { y: [666, 1, 2], sizes: [3] } })); // the stand-in pipeline throws on 666
    expect(await s.runJobs()).toEqual({ ran: 1, succeeded: 0, failed: 1 });
    expect(writes.map((w) => w.status)).toEqual(["pending", "running", "failed"]);
    const failed = await status(s, id);
    expect(failed.status).toBe("failed");
    expect(failed.result).toBeNull();
    expect(failed.error).toBe("internal error: boom");
  });

  it("a job whose base model was deleted meanwhile fails with the reason", async () => {
    const s = testService();
    await s.handle(post("/v2/finetune", ftBody({ output_model_id: "base" })));
    const id = await submit(s, ftBody({ finetuned_model_id: "base" }));
    await s.handle({ method: "DELETE", path: "/v2/finetuned_models/base", headers: bearer(KEY_A) });
    await s.runJobs();
    expect(await status(s, id)).toMatchObject({ status: "failed", error: "Finetuned model not found", result: null });
  });

  it("pending → cancelled; runJobs skips it; a second cancel is 409", async () => {
    const { store, writes } = recordingStore();
    const s = testService({ store });
    const id = await submit(s);
    const res = await s.handle(post(`/v2/finetune/jobs/${id}/cancel`, undefined));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ job_id: id, status: "cancelled", result: null, error: null });
    expect(await s.runJobs()).toEqual({ ran: 0, succeeded: 0, failed: 0 });
    expect(writes.map((w) => w.status)).toEqual(["pending", "cancelled"]);
    const again = await s.handle(post(`/v2/finetune/jobs/${id}/cancel`, undefined));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: `job ${id} is cancelled; only a pending job can be cancelled` });
  });

  it("a finished job cannot be cancelled", async () => {
    const s = testService();
    const id = await submit(s);
    await s.runJobs();
    expect((await s.handle(post(`/v2/finetune/jobs/${id}/cancel`, undefined))).status).toBe(409);
    expect((await status(s, id)).status).toBe("succeeded");
  });

  it("runJobs runs pending jobs oldest first, once", async () => {
    const s = testService();
    const a = await submit(s, ftBody({ output_model_id: "first" }));
    const b = await submit(s, ftBody({ output_model_id: "second" }));
    expect(await s.runJobs()).toEqual({ ran: 2, succeeded: 2, failed: 0 });
    expect(await s.runJobs()).toEqual({ ran: 0, succeeded: 0, failed: 0 });
    expect(Date.parse((await status(s, a)).updated_at)).toBeLessThan(Date.parse((await status(s, b)).updated_at));
    const list = (await s.handle(get("/v2/finetuned_models"))).body as { finetuned_models: { id: string }[] };
    expect(list.finetuned_models.map((m) => m.id)).toEqual(["first", "second"]);
  });

  it("404 job not found: unknown id, another task's id, another account's job", async () => {
    const s = testService();
    const id = await submit(s);
    const hex = id.slice(3);
    const notFound = { detail: "job not found" };
    for (const req of [
      get(`/v2/finetune/jobs/ft-${"0".repeat(32)}`),
      get(`/v2/finetune/jobs/ad-${hex}`),
      get(`/v2/finetune/jobs/fc-${hex}`),
      get(`/v2/finetune/jobs/cv-${hex}`),
      get(`/v2/finetune/jobs/${hex}`),
      get(`/v2/finetune/jobs/${id}`, KEY_B),
      post(`/v2/finetune/jobs/${id}/cancel`, undefined, KEY_B),
    ]) {
      const res = await s.handle(req);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound);
    }
    expect((await status(s, id)).status).toBe("pending");
  });

  it("an invalid async request is a 422 at once, and no job is made", async () => {
    const s = testService();
    const res = await s.handle(post("/v2/finetune/async", { series: smallSeries }));
    expect(res.status).toBe(422);
    expect(await s.runJobs()).toEqual({ ran: 0, succeeded: 0, failed: 0 });
  });

  it("determinism: the same job twice gives the same result and the same weights", async () => {
    const store = createMemoryStore();
    const s = testService({ store });
    const a = await submit(s, ftBody({ output_model_id: "one" }));
    const b = await submit(s, ftBody({ output_model_id: "two" }));
    await s.runJobs();
    const ra = (await status(s, a)).result as Record<string, unknown>;
    const rb = (await status(s, b)).result as Record<string, unknown>;
    expect({ ...ra, finetuned_model_id: "" }).toEqual({ ...rb, finetuned_model_id: "" });
    const wa = (await store.getModel("acme", "one"))?.weights;
    const wb = (await store.getModel("acme", "two"))?.weights;
    expect(Array.from(wa?.values ?? [])).toEqual(Array.from(wb?.values ?? []));
  });

  it("two services with the same options give the same job ids (seeded ids)", async () => {
    const ids = await Promise.all([testService(), testService()].map((s) => submit(s)));
    expect(ids[0]).toBe(ids[1]);
  });

  it("job tokens are charged when the job runs", async () => {
    const s = testService({ accounts: [{ id: "small", apiKeys: ["k-small"], credits: 20, hasPaymentMethod: false }] });
    await submit(s, ftBody(), "k-small");
    await s.runJobs(); // 10 input + 6 fine-tune tokens
    await submit(s, ftBody(), "k-small");
    await s.runJobs(); // 32 > 20
    expect((await s.handle(post("/v2/finetune/async", ftBody(), "k-small"))).status).toBe(429);
  });
});

describe("fine-tuned models", () => {
  it("records carry every field of the contract", async () => {
    const s = testService();
    await s.handle(post("/v2/finetune", ftBody({ output_model_id: "base", finetune_loss: "mae", finetune_depth: 3 })));
    await s.handle(post("/v2/finetune", ftBody({ output_model_id: "child", finetuned_model_id: "base", freq: "W" })));
    const base = (await s.handle(get("/v2/finetuned_models/base"))).body;
    expect(base).toEqual({
      id: "base",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      base_model_id: "None",
      steps: 3,
      depth: 3,
      loss: "mae",
      model: "forecastmodel-1",
      freq: "D",
      created_by: "user",
    });
    expect((await s.handle(get("/v2/finetuned_models/child"))).body).toMatchObject({ base_model_id: "base", freq: "W", loss: "default", depth: 1 });
  });

  it("a fine-tune may start from an earlier fine-tuned model (its weights are passed on)", async () => {
    const store = createMemoryStore();
    const s = testService({ store });
    await s.handle(post("/v2/finetune", ftBody({ output_model_id: "base" })));
    await s.handle(post("/v2/finetune", ftBody({ output_model_id: "child", finetuned_model_id: "base" })));
    expect((await store.getModel("acme", "child"))?.weights.values[0]).toBe(6); // 3 steps on top of the base's 3
  });

  it("a fine-tuned model is used by finetuned_model_id in forecasts", async () => {
    const s = testService();
    await s.handle(post("/v2/finetune", ftBody({ output_model_id: "tuned" })));
    const plain = (await s.handle(post("/v2/forecast", { series: smallSeries, freq: "D", h: 1 }))).body as { mean: number[] };
    const tuned = (await s.handle(post("/v2/forecast", { series: smallSeries, freq: "D", h: 1, finetuned_model_id: "tuned" }))).body as { mean: number[] };
    expect(tuned.mean.map((v, i) => v - (plain.mean[i] as number))).toEqual([3, 3]);
  });

  it("at most 50 per account: the 51st is a clear 422; other accounts are not affected", async () => {
    const s = testService();
    for (let i = 0; i < 50; i++) expect((await s.handle(post("/v2/finetune", ftBody({ output_model_id: `m${i}` })))).status).toBe(200);
    for (const path of ["/v2/finetune", "/v2/finetune/async"]) {
      const res = await s.handle(post(path, ftBody({ output_model_id: "m50" })));
      expect(res.status).toBe(422);
      expect((res.body as { detail: { type: string; msg: string }[] }).detail[0]).toMatchObject({ type: "value_error", msg: expect.stringContaining("50 fine-tuned models") });
    }
    expect((await s.handle(post("/v2/finetune", ftBody({ output_model_id: "m0" }), KEY_B))).status).toBe(200);
    await s.handle({ method: "DELETE", path: "/v2/finetuned_models/m7", headers: bearer(KEY_A) });
    expect((await s.handle(post("/v2/finetune", ftBody({ output_model_id: "m50" })))).status).toBe(200);
  });

  it("an output_model_id already used in the account is a 422", async () => {
    const s = testService();
    await s.handle(post("/v2/finetune", ftBody({ output_model_id: "dup" })));
    const res = await s.handle(post("/v2/finetune", ftBody({ output_model_id: "dup" })));
    expect(res.status).toBe(422);
    expect((res.body as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["body", "output_model_id"]);
  });

  it("an explicit model different from the fine-tuned model's base model is a 422", async () => {
    const s = testService();
    await s.handle(post("/v2/finetune", ftBody({ output_model_id: "lh", model: "forecastmodel-1-long-horizon" })));
    const res = await s.handle(post("/v2/forecast", { series: smallSeries, freq: "D", h: 1, finetuned_model_id: "lh", model: "forecastmodel-1" }));
    expect(res.status).toBe(422);
    expect((await s.handle(post("/v2/forecast", { series: smallSeries, freq: "D", h: 1, finetuned_model_id: "lh" }))).status).toBe(200);
  });
});

describe("runJob and onJobSubmitted (for a host's own queue)", () => {
  const body = { series: smallSeries, freq: "D", finetune_steps: 2 };
  const submitReq: ServiceRequest = { method: "POST", path: "/v2/finetune/async", headers: bearer(KEY_A), body };

  it("the hook gets every stored job; runJob runs a pending job once, and nothing else", async () => {
    const seen: SubmittedJob[] = [];
    const s = testService({ onJobSubmitted: (job) => void seen.push(job) });
    const res = await s.handle(submitReq);
    const jobId = (res.body as { job_id: string }).job_id;
    expect(seen).toEqual([{ jobId, task: "ft", accountId: "acme" }]);
    expect(await s.runJob(jobId)).toEqual({ jobId, status: "succeeded" });
    expect(await s.runJob(jobId)).toBeNull(); // done already
    expect(await s.runJob("ft-0123456789abcdef0123456789abcdef")).toBeNull(); // unknown
    const second = ((await s.handle(submitReq)).body as { job_id: string }).job_id;
    expect((await s.handle({ method: "POST", path: `/v2/finetune/jobs/${second}/cancel`, headers: bearer(KEY_A) })).status).toBe(200);
    expect(await s.runJob(second)).toBeNull(); // cancelled while it waited
    expect((await s.runJobs()).ran).toBe(0);
  });

  it("a hook that throws: 500, and the job stays pending for runJobs", async () => {
    const s = testService({
      onJobSubmitted: () => {
        throw new Error("queue down");
      },
    });
    const res = await s.handle(submitReq);
    expect(res.status).toBe(500);
    expect((await s.runJobs()).succeeded).toBe(1);
  });
});
