/**
 * partition + merge against the real pipelines (public entry points, real
 * pretrained network): the merged result must be byte-identical to the
 * single call. Sizes are kept tiny so the network calls stay fast.
 */
import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { seriesArb } from "../support/series-arbitrary.js";
import { merge, partition } from "../../src/api/partition.js";
import { detectAnomaliesOnline, forecast, historicForecast } from "../../src/api/index.js";


/** A JSON body built from parts (its fields come from the property's draws, so the typed bodies cannot check it). */
function body(list: number[][], extra: Record<string, unknown>): never {
  return { series: { y: list.flat(), sizes: list.map((s) => s.length) }, ...extra } as never;
}

const json = (v: unknown) => JSON.stringify(v);

describe("partition/merge with the real pipelines", () => {
  test.prop(
    [
      fc.array(seriesArb(20, 48), { minLength: 2, maxLength: 5 }),
      fc.integer({ min: 2, max: 4 }),
      fc.record({ h: fc.integer({ min: 1, max: 6 }), detection: fc.integer({ min: 1, max: 4 }), level: fc.constantFrom(80, 95, 99, 99.5) }),
    ],
    { numRuns: 8 },
  )("online anomaly detection: merge of the parts is byte-identical to the single call", (list, k, { h, detection, level }) => {
    const request = body(list, { freq: "M", h, detection_size: detection, level });
    const parts = partition(request, k);
    const merged = merge(parts, parts.map((p) => detectAnomaliesOnline(p.body as never)));
    expect(json(merged)).toBe(json(detectAnomaliesOnline(request)));
  });

  test.prop([fc.array(seriesArb(6, 40), { minLength: 2, maxLength: 5 }), fc.integer({ min: 2, max: 4 }), fc.integer({ min: 1, max: 20 })], {
    numRuns: 8,
  })("forecast with levels (h may exceed the model horizon): byte-identical", (list, k, h) => {
    const request = body(list, { freq: "M", h, level: [80, 95] });
    const parts = partition(request, k);
    const merged = merge(parts, parts.map((p) => forecast(p.body as never)));
    expect(json(merged)).toBe(json(forecast(request)));
  });

  it("forecast with exogenous X and X_future: every per-row number byte-identical, weights_x to rounding", () => {
    const list = [
      Array.from({ length: 30 }, (_, t) => 10 + (t % 5) + 2 * Math.cos(t)),
      Array.from({ length: 24 }, (_, t) => 50 - t / 3 + 4 * Math.cos(t)),
      Array.from({ length: 36 }, (_, t) => 3 + Math.sin(t) * 2 + 3 * Math.cos(t)),
    ];
    const y = list.flat();
    const h = 4;
    const request = {
      series: { y, sizes: list.map((s) => s.length), X: [y.map((_, r) => Math.cos(r)), y.map((_, r) => r % 2)] },
      X_future: [Array.from({ length: 3 * h }, (_, r) => Math.cos(r + 0.5)), Array.from({ length: 3 * h }, (_, r) => r % 2)],
      freq: "D",
      h,
      level: [90],
    } as const;
    const single = forecast(request);
    const parts = partition(request, 3);
    const merged = merge(parts, parts.map((p) => forecast(p.body as never)));
    expect(json({ ...merged, weights_x: null })).toBe(json({ ...single, weights_x: null }));
    expect(merged.weights_x).toHaveLength(2);
    single.weights_x?.forEach((w, i) => expect(merged.weights_x?.[i]).toBeCloseTo(w, 9));
  });

  it("historic forecast with X and feature contributions: per-row numbers byte-identical", () => {
    const list = [110, 125, 140].map((n, i) => Array.from({ length: n }, (_, t) => 20 * (i + 1) + 5 * Math.sin(t / 2) + (t % 3)));
    const y = list.flat();
    const request = {
      series: { y, sizes: list.map((s) => s.length), X: [y.map((_, r) => Math.sin(r / 2))] },
      freq: "D",
      level: [95],
      feature_contributions: true,
    } as const;
    const single = historicForecast(request);
    const parts = partition(request, 2);
    expect(parts).toHaveLength(2);
    const merged = merge(parts, parts.map((p) => historicForecast(p.body as never)));
    expect(json({ ...merged, weights_x: null })).toBe(json({ ...single, weights_x: null }));
    single.weights_x?.forEach((w, i) => expect(merged.weights_x?.[i]).toBeCloseTo(w, 9));
  });

  it("a multivariate anomaly request is refused, not silently changed", () => {
    const request = body([[1, 2, 3, 4, 5, 6, 7, 8], [2, 3, 4, 5, 6, 7, 8, 9]], { freq: "D", h: 2, detection_size: 2, threshold_method: "multivariate" });
    expect(() => partition(request, 2)).toThrow(/threshold_method = "multivariate"/);
    // and indeed splitting it would change the answer: the accumulated score sums over series
    const whole = detectAnomaliesOnline(request);
    const alone = detectAnomaliesOnline(body([[1, 2, 3, 4, 5, 6, 7, 8]], { freq: "D", h: 2, detection_size: 2, threshold_method: "multivariate" }));
    expect(alone.accumulated_anomaly_score).not.toEqual(whole.accumulated_anomaly_score.slice(0, 2));
  });
});
