/**
 * The work budget (DEFAULT_SERVICE_LIMITS.maxNetworkWindows, maxFinetuneWindows,
 * maxFeatures): hostile requests that are small on the wire but would run for
 * minutes or days are a 422 naming the limit, before any work, through the
 * service and through the core functions; UNLIMITED lifts it.
 */
import { describe, expect, test } from "vitest";
import { fc, test as ptest } from "@fast-check/vitest";
import { DEFAULT_SERVICE_LIMITS, finetuneTrainingCost, mostFinetuneSteps, UNLIMITED } from "../../src/api/index.js";
import { checkRequestLimits } from "../../src/api/requests.js";
import { detectAnomaliesOnline, forecast, historicForecast } from "../../src/api/entry-points.js";
import { ValidationError } from "../../src/api/errors.js";
import { createService } from "../../src/api/service.js";
import { MAX_ERROR_ITEMS } from "../../src/api/errors.js";
import { bearer, KEY_A, testService, validationDetail as detail } from "./helpers.js";

const daily = (n: number): number[] => Array.from({ length: n }, (_, t) => 10 + (t % 7));

describe("work budget", () => {
  test("finetune_steps of 1e9 in a small body: 422 on every route that fine-tunes, sync or async", async () => {
    const service = testService();
    const series = { y: daily(40), sizes: [40] };
    for (const [path, body] of [
      ["/v2/forecast", { series, freq: "D", h: 3, finetune_steps: 1e9 }],
      ["/v2/finetune", { series, freq: "D", finetune_steps: 1e9 }],
      ["/v2/finetune/async", { series, freq: "D", finetune_steps: 1e9 }],
      ["/v2/online_anomaly_detection", { series, freq: "D", h: 3, detection_size: 3, finetune_steps: 1e9 }],
    ] as const) {
      const res = await service.handle({ method: "POST", path, headers: bearer(KEY_A), body });
      expect(res.status, path).toBe(422);
      const text = typeof res.body === "string" ? res.body : JSON.stringify(res.body);
      expect(text).toContain("limits.maxFinetuneWindows");
      expect(text).toContain("finetune_steps");
    }
  });

  test("refit multiplies fine-tuning by the windows", () => {
    const body = { series: { y: daily(400), sizes: [400] }, freq: "D", h: 1, detection_size: 50, step_size: 1, finetune_steps: 200, refit: true } as const;
    const items = detail(() => detectAnomaliesOnline(body));
    expect(items[0]!.loc).toEqual(["body", "finetune_steps"]);
    expect(items[0]!.msg).toMatch(/× \d+ windows \(refit\)/);
    // the same steps without refit fit the budget (checked, not run)
    expect(200 * 32).toBeLessThanOrEqual(DEFAULT_SERVICE_LIMITS.maxFinetuneWindows);
  });

  test("too many exogenous features", () => {
    const n = 20;
    const X = Array.from({ length: 5000 }, (_, k) => Array.from({ length: n }, (_, t) => (t * (k + 1)) % 7));
    const items = detail(() => historicForecast({ series: { y: daily(n), sizes: [n], X }, freq: "D" }));
    expect(items.map((i) => i.loc.join("."))).toContain("body.series.X");
    expect(items.find((i) => i.loc.join(".") === "body.series.X")!.msg).toContain("limits.maxFeatures = 500");
  });

  test("h of 10,000 on 200 series and step_size 1 over 300,000 points: too many network windows", () => {
    // 200 series (2,000,000 output values, within maxValues): 715 recursive passes each
    const y = new Array<number>(200 * 30).fill(1).map((v, i) => v + (i % 5));
    const items = detail(() => forecast({ series: { y, sizes: new Array(200).fill(30) }, freq: "D", h: 10000 }));
    expect(items[0]!.msg).toContain("limits.maxNetworkWindows");
    const long = daily(300_000);
    const more = detail(() => detectAnomaliesOnline({ series: { y: long, sizes: [300_000] }, freq: "D", h: 1, step_size: 1, detection_size: 150_000 }));
    expect(more[0]!.msg).toContain("limits.maxNetworkWindows");
  });

  test("UNLIMITED lifts the budget (the check passes; the request then runs as asked)", () => {
    const series = { y: daily(40), sizes: [40] };
    const res = forecast({ series, freq: "D", h: 3, finetune_steps: 1 }, { limits: UNLIMITED });
    expect(res.mean.length).toBe(3);
    expect(Object.isFrozen(UNLIMITED)).toBe(true);
  });
});

describe("bounded answers and validated options", () => {
  test("every 422 carries at most 1,000 items: 100,000 hist_exog entries, 30,000 bad rows of the older form", async () => {
    const service = testService();
    const hist = await service.handle({
      method: "POST", path: "/v2/forecast", headers: bearer(KEY_A),
      body: { series: { y: daily(10), sizes: [10], X: [daily(10)] }, X_future: [[1, 2]], freq: "D", h: 2, hist_exog: Array.from({ length: 100_000 }, (_, i) => i + 5) },
    });
    expect(hist.status).toBe(422);
    expect((hist.body as { detail: unknown[] }).detail.length).toBeLessThanOrEqual(MAX_ERROR_ITEMS);
    const df = Array.from({ length: 30_000 }, (_, i) => ({ ds: `bad-${i}`, y: 1 }));
    const legacy = await service.handle({ method: "POST", path: "/forecastmodel", headers: { "x-api-key": KEY_A }, body: { df, h: 2 } });
    expect(legacy.status).toBe(422);
    expect(JSON.stringify(legacy.body).length).toBeLessThan(1_000_000);
    expect(new ValidationError(Array.from({ length: 5000 }, () => ({ type: "missing", loc: ["body"], msg: "Field required" }))).detail.length).toBe(MAX_ERROR_ITEMS);
  });

  test("credits must be a finite number >= 0", () => {
    for (const credits of [Number.NaN, Infinity, -1]) {
      expect(() => createService({ accounts: [{ id: "a", apiKeys: ["k"], credits, hasPaymentMethod: true }] })).toThrow(/credits must be a finite number >= 0/);
    }
  });

  test("the older form refuses a horizon whose dates would pass the year 9999", async () => {
    const service = testService();
    const df = [{ ds: "9999-10-01", y: 1 }, { ds: "9999-11-01", y: 2 }, { ds: "9999-12-01", y: 3 }];
    const res = await service.handle({ method: "POST", path: "/forecastmodel", headers: { "x-api-key": KEY_A }, body: { df, h: 2 } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain("year 9999");
  });

  test("fine-tuning counts a step's fixed cost, the depth and the model: one series × 1,562 steps at depth 5 (admitted before, 19-23 s) is refused", () => {
    const limits = DEFAULT_SERVICE_LIMITS;
    const body = (steps: number, depth: number, count = 1, model = "forecastmodel-1") => ({
      series: { y: daily(500 * count), sizes: new Array<number>(count).fill(500) },
      freq: "H",
      model,
      finetune_steps: steps,
      finetune_depth: depth,
    });
    const items = checkRequestLimits("finetune", body(1562, 5), limits);
    expect(items.map((i) => i.loc)).toEqual([["body", "finetune_steps"]]);
    expect(items[0]!.msg).toMatch(/150720 training windows .*limits\.maxFinetuneWindows = 50000/);
    // the most steps admitted: depth 5 about half of depth 1's; one series pays its 16-window step cost; long horizon
    // 1.5 times; every tuning also pays the output end's refit (at most 768 windows): (50000 − 768) / 144 → 341, …
    const most = (depth: number, count: number, model: "forecastmodel-1" | "forecastmodel-1-long-horizon" | "forecastmodel-2.1") => mostFinetuneSteps(limits.maxFinetuneWindows, count, depth, model);
    expect([most(1, 128, "forecastmodel-1"), most(5, 128, "forecastmodel-1"), most(1, 1, "forecastmodel-1"), most(5, 1, "forecastmodel-1"), most(5, 1, "forecastmodel-1-long-horizon")]).toEqual([341, 170, 1025, 512, 339]);
    // forecastmodel-2.1 fine-tunes at depth 1 whatever is asked: counted at depth 1
    expect(most(5, 1, "forecastmodel-2.1")).toBe(1025);
    for (const [steps, depth, count, model] of [
      [341, 1, 128, "forecastmodel-1"],
      [170, 5, 128, "forecastmodel-1"],
      [512, 5, 1, "forecastmodel-1"],
      [339, 5, 1, "forecastmodel-1-long-horizon"],
      [1025, 5, 1, "forecastmodel-2.1"],
    ] as const) {
      expect(checkRequestLimits("finetune", body(steps, depth, count, model), limits), `${steps} steps admitted`).toEqual([]);
      expect(checkRequestLimits("finetune", body(steps + 1, depth, count, model), limits).map((i) => i.loc), `${steps + 1} steps refused`).toEqual([["body", "finetune_steps"]]);
    }
  });

  test("online anomaly detection counts its windows twice (the cleaning pass forecasts the windows after a spike again), once with features or per-window tuning", () => {
    const limits = { ...DEFAULT_SERVICE_LIMITS, maxNetworkWindows: 1000 };
    // h 24, detection 48: 14 windows per series of 400 points
    const body = (count: number, extra: Record<string, unknown> = {}) => ({ series: { y: daily(400 * count), sizes: new Array<number>(count).fill(400), ...extra }, freq: "H", h: 24, detection_size: 48 });
    expect(checkRequestLimits("anomaly", body(35), limits)).toEqual([]); // 35 × 14 × 2 = 980
    const refused = checkRequestLimits("anomaly", body(36), limits); // 1,008
    expect(refused.map((i) => i.loc)).toEqual([["body", "series"]]);
    expect(refused[0]!.msg).toMatch(/1008 windows/);
    // with exogenous features no window is forecast again: 71 × 14 = 994
    expect(checkRequestLimits("anomaly", body(71, { X: [daily(400 * 71)] }), limits)).toEqual([]);
  });

  ptest.prop([
    fc.integer({ min: 0, max: 200_000 }),
    fc.integer({ min: 1, max: 2000 }),
    fc.integer({ min: 1, max: 5 }),
    fc.constantFrom("forecastmodel-1", "forecastmodel-1-long-horizon", "forecastmodel-2.1", "forecastmodel-1-high-frequency"),
  ])("mostFinetuneSteps is the largest step count whose cost fits the budget", (budget, count, depth, model) => {
    const most = mostFinetuneSteps(budget, count, depth, model);
    if (most > 0) expect(finetuneTrainingCost(most, count, depth, model)).toBeLessThanOrEqual(budget);
    expect(finetuneTrainingCost(most + 1, count, depth, model)).toBeGreaterThan(budget);
  });
});
