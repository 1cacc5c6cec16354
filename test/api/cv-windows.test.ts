/**
 * Cross-validation (issue 27): the budget is checked from the sizes alone,
 * before any window is built, and the windows' series are views of the
 * request's arrays, not copies; the answers are those of the window bodies
 * sent to /v2/forecast one by one.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import * as cv from "../../src/api/cross-validation.js";
import type { ApiPipelines } from "../../src/api/pipelines.js";
import { fakePipelines, post, testService } from "./helpers.js";

vi.mock("../../src/api/cross-validation.js", async (importOriginal) => {
  const real = await importOriginal<typeof cv>();
  return { ...real, crossValidationWindowBody: vi.fn(real.crossValidationWindowBody) };
});
const windowBodies = vi.mocked(cv.crossValidationWindowBody);

/** A stand-in forecast that reads every input value: mean = (sum of the series' y, X and X_future) × (step + 1). */
function readingPipelines(seen: Float64Array[] = []): ApiPipelines {
  return {
    ...fakePipelines,
    forecast: (r) => {
      seen.push(r.series.y);
      const base = fakePipelines.forecast(r);
      const k = r.series.sizes.length;
      const mean = new Float64Array(k * r.h);
      for (let i = 0; i < k; i++) {
        let total = 0;
        for (let t = r.series.offsets[i]!; t < r.series.offsets[i + 1]!; t++) {
          total += r.series.y[t]! * (t - r.series.offsets[i]! + 1);
          for (const x of r.series.X) total += 0.5 * x[t]!;
        }
        for (const x of r.Xfuture) for (let s = 0; s < x.length / k; s++) total += 0.25 * x[i * (x.length / k) + s]! * (s + 1);
        for (let s = 0; s < r.h; s++) mean[i * r.h + s] = total * (s + 1);
      }
      return { ...base, mean, intervals: null };
    },
  };
}

describe("cross-validation budget and windows", () => {
  it("a request past the work budget is refused from the sizes: no window is built", async () => {
    const service = testService({ limits: { maxNetworkWindows: 1000 } });
    // 20 series × 100 windows = 2,000 network windows: each window's share is 10, a window forecasts 20 series
    const body = { series: { y: Array.from({ length: 20 * 150 }, (_, t) => t % 11), sizes: new Array(20).fill(150) }, freq: "D", h: 1, n_windows: 100, step_size: 1 };
    windowBodies.mockClear();
    const answer = await service.handle(post("/v2/cross_validation", body));
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toContain("more than limits.maxNetworkWindows = 10");
    expect(windowBodies).not.toHaveBeenCalled();
    const viaAsync = await service.handle(post("/v2/cross_validation/async", body));
    expect(viaAsync.status).toBe(422);
    expect(windowBodies).not.toHaveBeenCalled();
    // within the budget: no window body is built either (the fields every window shares are validated from the body once)
    expect((await service.handle(post("/v2/cross_validation", { ...body, n_windows: 40 }))).status).toBe(200);
    expect(windowBodies).not.toHaveBeenCalled();
  });

  it("with one series every window's y is a view of one array (no copy per window)", async () => {
    const seen: Float64Array[] = [];
    const service = testService({ pipelines: readingPipelines(seen) });
    const answer = await service.handle(post("/v2/cross_validation", { series: { y: Array.from({ length: 500 }, (_, t) => t % 13), sizes: [500] }, freq: "D", h: 2, n_windows: 30, step_size: 3 }));
    expect(answer.status).toBe(200);
    expect(seen).toHaveLength(30);
    expect(new Set(seen.map((y) => y.buffer)).size).toBe(1);
    expect(seen.map((y) => y.length)).toEqual(Array.from({ length: 30 }, (_, w) => 500 - 2 - (29 - w) * 3));
  });

  it("every window's answer is the forecast of its body sent to /v2/forecast (any sizes, features, hist_exog, shapes)", async () => {
    const service = testService({ pipelines: readingPipelines() });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          sizes: fc.array(fc.integer({ min: 14, max: 40 }), { minLength: 1, maxLength: 4 }),
          h: fc.integer({ min: 1, max: 3 }),
          nWindows: fc.integer({ min: 1, max: 4 }),
          stepSize: fc.integer({ min: 1, max: 3 }),
          features: fc.integer({ min: 0, max: 2 }),
          hist: fc.boolean(),
          seed: fc.integer({ min: 1, max: 1000 }),
        }),
        async ({ sizes, h, nWindows, stepSize, features, hist, seed }) => {
          const n = sizes.reduce((a, b) => a + b, 0);
          const y = Array.from({ length: n }, (_, t) => ((t * seed) % 17) - 4);
          const X = Array.from({ length: features }, (_, f) => Array.from({ length: n }, (_, t) => ((t + f * seed) % 5) / 2));
          const histExog = hist && features > 0 ? [features - 1] : null;
          const body = { series: { y, sizes, X: features > 0 ? X : null }, freq: "D", h, n_windows: nWindows, step_size: stepSize, hist_exog: histExog };
          const answer = await service.handle(post("/v2/cross_validation", body));
          expect([answer.status, answer.body]).toEqual([200, expect.anything()]);
          const got = answer.body as { mean: number[]; idxs: number[] };
          const expected: number[] = [];
          const perWindow: number[][] = [];
          for (let w = 0; w < nWindows; w++) {
            const win = cv.crossValidationWindowBody(body, { y: Float64Array.from(y), sizes, X: features > 0 ? X.map((x) => Float64Array.from(x)) : null }, { h, nWindows, stepSize }, w);
            const direct = await service.handle(post("/v2/forecast", win.body));
            expect(direct.status).toBe(200);
            perWindow.push((direct.body as { mean: number[] }).mean);
          }
          sizes.forEach((_, i) => perWindow.forEach((m) => expected.push(...m.slice(i * h, (i + 1) * h))));
          expect(got.mean).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });
});
