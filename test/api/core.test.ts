/**
 * The public entry points (docs/contract.md §1) over the real pipelines, and
 * the service over the real pipelines agreeing with them.
 */
import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { createService, detectAnomaliesOnline, finetune, forecast, historicForecast, ValidationError } from "../../src/index.js";
import type { FinetunedWeights } from "../../src/types.js";
import { createMemoryStore } from "../../src/api/store.js";
import { validationDetail as detailOf } from "./helpers.js";

const seasonal = (n: number, phase = 0) => Array.from({ length: n }, (_, t) => 50 + 10 * Math.sin((2 * Math.PI * (t + phase)) / 7) + (t % 3));
const twoSeries = { y: [...seasonal(120), ...seasonal(100, 2)], sizes: [120, 100] };

describe("core entry points", () => {
  it("forecast: JSON body in, the forecast result with warnings out", () => {
    const r = forecast({ series: twoSeries, freq: "D", h: 5, level: [80] });
    expect(r.mean).toHaveLength(10);
    expect(r.sizes).toEqual([5, 5]);
    expect(Object.keys(r.intervals ?? {})).toEqual(["lo-80", "hi-80"]);
    expect(r.input_tokens).toBe(220);
    expect(r.output_tokens).toBe(30);
    expect(r.finetune_tokens).toBe(0);
    expect(r.warnings).toEqual([]);
    for (const v of r.mean) expect(Number.isFinite(v)).toBe(true);
  });

  it("forecast: h beyond the model horizon returns the warning in `warnings`", () => {
    const r = forecast({ series: twoSeries, freq: "D", h: 20 });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^The specified horizon h exceeds the model horizon/);
  });

  it("forecast accepts a JSON string and freq Q / Y (core only)", () => {
    const text = JSON.stringify({ series: { y: seasonal(40), sizes: [40] }, freq: "Q", h: 4 });
    expect(forecast(text).mean).toHaveLength(4);
    expect(forecast({ series: { y: seasonal(30), sizes: [30] }, freq: "Y", h: 2 }).mean).toHaveLength(2);
  });

  it("bad input throws ValidationError whose .detail is the 422 item list", () => {
    // deliberately wrong bodies (the types would refuse them): cast past the compiler
    const detail = detailOf(() => forecast({ series: { y: [1, "x"], sizes: [2] }, freq: "D", h: 0 } as never));
    expect(detail.map((d) => d.type)).toEqual(["float_type", "greater_than"]);
    expect(detailOf(() => forecast("{oops"))[0]?.type).toBe("json_invalid");
    expect(detailOf(() => detectAnomaliesOnline({} as never))[0]?.type).toBe("missing");
  });

  it("detectAnomaliesOnline: rows are the last detection_size points of each series", () => {
    const r = detectAnomaliesOnline({ series: twoSeries, freq: "D", h: 7, detection_size: 7, level: 95 });
    expect(r.sizes).toEqual([7, 7]);
    expect(r.idxs).toEqual([...Array.from({ length: 7 }, (_, i) => 113 + i), ...Array.from({ length: 7 }, (_, i) => 213 + i)]);
    expect(Object.keys(r.intervals ?? {})).toEqual(["lo-95", "hi-95"]);
    expect(r.output_tokens).toBe(14 * 6);
  });

  it("historicForecast: fitted values with tokens", () => {
    const r = historicForecast({ series: { y: seasonal(300), sizes: [300] }, freq: "D", level: [90] });
    expect(r.mean.length).toBe(r.sizes[0]);
    expect(r.mean.length).toBeGreaterThan(0);
    expect(r.output_tokens).toBe(3 * r.mean.length);
  });

  it("finetune returns weights and an id; the id is usable through finetunedModels", () => {
    const body = { series: twoSeries, freq: "D", finetune_steps: 2 } as const;
    const a = finetune(body);
    const b = finetune(body);
    expect(a.finetuned_model_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.finetuned_model_id).toBe(a.finetuned_model_id); // derived from the request's content
    expect(Array.from(b.weights.values)).toEqual(Array.from(a.weights.values));
    expect(a.finetune_tokens).toBe(4);
    expect(a.input_tokens).toBe(220);
    expect(finetune({ ...body, output_model_id: "named" }).finetuned_model_id).toBe("named");
    const models = new Map<string, FinetunedWeights>([[a.finetuned_model_id, a.weights]]);
    const tuned = forecast({ series: twoSeries, freq: "D", h: 3, finetuned_model_id: a.finetuned_model_id }, { finetunedModels: (id) => models.get(id) });
    expect(tuned.mean).toHaveLength(6);
    const unknown = detailOf(() => forecast({ series: twoSeries, freq: "D", h: 3, finetuned_model_id: "nope" }));
    expect(unknown[0]).toMatchObject({ type: "value_error", loc: ["body", "finetuned_model_id"] });
  }, 60_000);

  it("limits apply to the core functions only when given", () => {
    expect(detailOf(() => forecast({ series: twoSeries, freq: "D", h: 3 }, { limits: { maxValues: 100 } }))[0]?.msg).toContain("limits.maxValues");
  });

  it("never mutates the body", () => {
    const body = { series: { y: seasonal(60), sizes: [60] }, freq: "D", h: 3, level: [50] } as const;
    const before = JSON.stringify(body);
    forecast(body);
    detectAnomaliesOnline({ ...body, level: 50, detection_size: 3 });
    expect(JSON.stringify(body)).toBe(before);
  });
});

describe("the service over the real pipelines", () => {
  const service = () => createService({ accounts: [{ id: "acme", apiKeys: ["k"], credits: 1e12, hasPaymentMethod: true }] });
  const headers = { authorization: "Bearer k" };

  it("handle gives the core result minus warnings, with the warning in the header", async () => {
    const body = { series: twoSeries, freq: "D", h: 20, level: [80] } as const;
    const res = await service().handle({ method: "POST", path: "/v2/forecast", headers, body });
    expect(res.status).toBe(200);
    const { warnings, ...core } = forecast(body);
    expect(res.body).toEqual(core);
    expect(res.headers.warning).toBe(`299 - "${warnings[0]}"`);
  });

  it("identical requests give byte-identical bodies", async () => {
    const s = service();
    const body = JSON.stringify({ series: twoSeries, freq: "D", h: 7, detection_size: 7 });
    const a = await s.handle({ method: "POST", path: "/v2/online_anomaly_detection", headers, body });
    const b = await s.handle({ method: "POST", path: "/v2/online_anomaly_detection", headers, body });
    expect(a.status).toBe(200);
    expect(JSON.stringify(a.body)).toBe(JSON.stringify(b.body));
  });

  it("fine-tune through the service, then forecast with the stored model", async () => {
    const s = service();
    const ft = await s.handle({ method: "POST", path: "/v2/finetune", headers, body: { series: twoSeries, freq: "D", finetune_steps: 2, output_model_id: "wk" } });
    expect(ft.status).toBe(200);
    const res = await s.handle({ method: "POST", path: "/v2/forecast", headers, body: { series: twoSeries, freq: "D", h: 3, finetuned_model_id: "wk" } });
    expect(res.status).toBe(200);
    const models = new Map<string, FinetunedWeights>([["wk", finetune({ series: twoSeries, freq: "D", finetune_steps: 2 }).weights]]);
    expect(res.body).toEqual((({ warnings: _w, ...rest }) => rest)(forecast({ series: twoSeries, freq: "D", h: 3, finetuned_model_id: "wk" }, { finetunedModels: (id) => models.get(id) })));
  }, 60_000);

  it("an async fine-tune job stores exactly the weights of the synchronous fine-tune", async () => {
    const store = createMemoryStore();
    const s = createService({ accounts: [{ id: "acme", apiKeys: ["k"], credits: 1e12, hasPaymentMethod: true }], store });
    const body = { series: twoSeries, freq: "D", finetune_steps: 2, finetune_depth: 2, finetune_loss: "mae" } as const;
    const job = await s.handle({ method: "POST", path: "/v2/finetune/async", headers, body: { ...body, output_model_id: "async" } });
    const sync = await s.handle({ method: "POST", path: "/v2/finetune", headers, body: { ...body, output_model_id: "sync" } });
    expect(sync.status).toBe(200);
    expect(await s.runJobs()).toEqual({ ran: 1, succeeded: 1, failed: 0 });
    const status = await s.handle({ method: "GET", path: `/v2/finetune/jobs/${(job.body as { job_id: string }).job_id}`, headers });
    expect(status.body).toMatchObject({ status: "succeeded", result: { ...(sync.body as object), finetuned_model_id: "async" } });
    const a = await store.getModel("acme", "async");
    const b = await store.getModel("acme", "sync");
    expect(a?.weights.start).toBe(b?.weights.start);
    expect(Array.from(a?.weights.values ?? [])).toEqual(Array.from(b?.weights.values ?? []));
    expect(Array.from(a?.weights.values ?? [])).toEqual(Array.from(finetune(body).weights.values));
  }, 60_000);
});

describe("valid requests over the real pipelines", () => {
  const service = createService({ accounts: [{ id: "acme", apiKeys: ["k"], credits: 1e15, hasPaymentMethod: true }] });
  const seriesArb = fc
    .array(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 60 }), { minLength: 1, maxLength: 3 })
    .chain((list) =>
      fc.record({
        list: fc.constant(list),
        features: fc.integer({ min: 0, max: 2 }),
        freq: fc.constantFrom("H", "D", "W", "M"),
        h: fc.integer({ min: 1, max: 30 }),
        level: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 99 }), { minLength: 1, maxLength: 2 }), { nil: undefined }),
        detection: fc.integer({ min: 1, max: 10 }),
        route: fc.constantFrom("/v2/forecast", "/v2/online_anomaly_detection", "/v2/historic_forecast"),
      }),
    );
  test.prop([seriesArb], { numRuns: 80 })("answer 200 or a 422 naming the problem, never 500, with consistent shapes", async (c) => {
    const y = c.list.flat();
    const X = Array.from({ length: c.features }, (_, k) => y.map((_, t) => ((t + k) % 3) - 1));
    const series = { y, sizes: c.list.map((s) => s.length), ...(c.features > 0 ? { X } : {}) };
    const body: Record<string, unknown> = { series, freq: c.freq };
    if (c.route === "/v2/forecast") {
      Object.assign(body, { h: c.h, level: c.level ?? null });
      if (c.features > 0) body.X_future = X.map(() => Array.from({ length: c.list.length * c.h }, (_, t) => t % 2));
    } else if (c.route === "/v2/online_anomaly_detection") Object.assign(body, { h: c.h, detection_size: c.detection, level: c.level?.[0] ?? 99 });
    else Object.assign(body, { level: c.level ?? null });
    const res = await service.handle({ method: "POST", path: c.route, headers: { authorization: "Bearer k" }, body });
    expect([200, 422]).toContain(res.status);
    if (res.status === 422) {
      const detail = (res.body as { detail: { type: string; loc: unknown[] }[] }).detail;
      expect(detail.length).toBeGreaterThan(0);
      for (const d of detail) expect(d.loc[0]).toBe("body");
      return;
    }
    const r = res.body as { mean: number[]; sizes: number[]; input_tokens: number; output_tokens: number };
    expect(r.mean.length).toBe(r.sizes.reduce((a, b) => a + b, 0));
    expect(r.input_tokens).toBe(y.length * (1 + c.features) + (c.route === "/v2/forecast" ? c.features * c.list.length * c.h : 0));
    expect(r.output_tokens).toBeGreaterThanOrEqual(r.mean.length);
    for (const v of r.mean) expect(Number.isFinite(v)).toBe(true);
  });
});
