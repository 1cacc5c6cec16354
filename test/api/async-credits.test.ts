/**
 * Async work is paid for when it is submitted (issue 27): an account without
 * a payment method reserves the estimated tokens at submission, exactly as a
 * sync request does (429 on the spot when its credits are used up by what is
 * charged and reserved); the reservation is settled with the tokens used when
 * the job succeeds and released when it fails or is cancelled.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStore, type ServiceStore } from "../../src/api/store.js";
import { fakePipelines, get, post, testService } from "./helpers.js";

const KEY = "key-free-0123";
const y10 = Array.from({ length: 10 }, (_, t) => 5 + (t % 4));
const forecastBody = { series: { y: y10, sizes: [10] }, freq: "D", h: 2 };
const cvBody = { ...forecastBody, n_windows: 2, step_size: 1 };
const finetuneBody = { series: { y: y10, sizes: [10] }, freq: "D", finetune_steps: 1 };

function freeService(credits: number, store: ServiceStore = createMemoryStore()) {
  const service = testService({ accounts: [{ id: "free", apiKeys: [KEY], credits, hasPaymentMethod: false }], store, pipelines: fakePipelines });
  const send = (path: string, body: unknown) => service.handle(post(path, body, KEY));
  return { service, store, send };
}

describe("async submissions reserve their tokens", () => {
  it("an account with 30 credits gets 3 async forecasts of 10 tokens' estimate accepted, the 4th is 429 at once", async () => {
    const { send } = freeService(30);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await send("/v2/forecast/async", forecastBody)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // and a sync request sees the reservations too
    expect((await send("/v2/forecast", forecastBody)).status).toBe(429);
  });

  it("every async route reserves: forecast (y), cross-validation (y × n_windows), fine-tune (y)", async () => {
    for (const [path, body, accepted] of [
      ["/v2/forecast/async", forecastBody, 3],
      ["/v2/cross_validation/async", cvBody, 2], // 20 tokens each: 20, 40
      ["/v2/finetune/async", finetuneBody, 3],
    ] as const) {
      const { send } = freeService(30);
      let ok = 0;
      for (let i = 0; i < 6; i++) if ((await send(path, body)).status === 200) ok++;
      expect([path, ok]).toEqual([path, accepted]);
    }
  });

  it("a job that succeeds is charged its tokens used, and its reservation ends", async () => {
    const { service, store, send } = freeService(1000);
    const sync = await freeService(1000).send("/v2/forecast", forecastBody);
    const used = (sync.body as { input_tokens: number; output_tokens: number }).input_tokens + (sync.body as { output_tokens: number }).output_tokens;
    const { job_id } = (await send("/v2/forecast/async", forecastBody)).body as { job_id: string };
    expect(await store.spentTokens("free")).toBe(0);
    expect(await service.runJobs()).toEqual({ ran: 1, succeeded: 1, failed: 0 });
    expect(await store.spentTokens("free")).toBe(used);
    expect(((await service.handle(get(`/v2/forecast/jobs/${job_id}`, KEY))).body as { status: string }).status).toBe("succeeded");
    // nothing is left reserved: an account of exactly the credits charged plus one more request's worth is served
    const tight = freeService(used + 1, store);
    expect((await tight.send("/v2/forecast/async", forecastBody)).status).toBe(200);
    expect((await tight.send("/v2/forecast/async", forecastBody)).status).toBe(429);
  });

  it("a job that fails is charged nothing and its reservation is released", async () => {
    const { service, store, send } = freeService(10);
    const failing = { ...finetuneBody, series: { y: [666, ...y10.slice(1)], sizes: [10] } };
    expect((await send("/v2/finetune/async", failing)).status).toBe(200);
    expect((await send("/v2/finetune/async", finetuneBody)).status).toBe(429);
    expect(await service.runJobs()).toEqual({ ran: 1, succeeded: 0, failed: 1 });
    expect(await store.spentTokens("free")).toBe(0);
    expect((await send("/v2/finetune/async", finetuneBody)).status).toBe(200);
  });

  it("a cancelled job's reservation is released once; a second cancel (409) releases nothing", async () => {
    const { store, send } = freeService(10);
    const { job_id } = (await send("/v2/forecast/async", forecastBody)).body as { job_id: string };
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(429);
    expect((await send(`/v2/async/jobs/${job_id}/cancel`, undefined)).status).toBe(200);
    expect((await send(`/v2/async/jobs/${job_id}/cancel`, undefined)).status).toBe(409);
    expect(await store.spentTokens("free")).toBe(0);
    // exactly one reservation's worth is free again: one submission, not two
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(200);
    expect((await send("/v2/forecast/async", forecastBody)).status).toBe(429);
  });

  it("an account with a payment method reserves nothing and is charged when the job ends", async () => {
    const store = createMemoryStore();
    const service = testService({ accounts: [{ id: "paying", apiKeys: [KEY], credits: 1, hasPaymentMethod: true }], store, pipelines: fakePipelines });
    for (let i = 0; i < 5; i++) expect((await service.handle(post("/v2/forecast/async", forecastBody, KEY))).status).toBe(200);
    expect(await store.spentTokens("paying")).toBe(0);
    await service.runJobs();
    expect(await store.spentTokens("paying")).toBeGreaterThan(0);
  });
});
