/**
 * Stand-in pipelines for API tests: cheap, deterministic, with the shapes of
 * the real results, so the API layer is tested apart from the models.
 */
import { expect } from "vitest";
import { ValidationError, type ErrorItem } from "../../src/errors.js";
import type { ApiPipelines } from "../../src/api/pipelines.js";
import { seededIdSequence } from "../../src/api/ids.js";
import { createService, type ServiceOptions } from "../../src/api/service.js";

export const HORIZON_WARNING = "The specified horizon h exceeds the model horizon (14 for freq D with forecastmodel-1). This may lead to less accurate forecasts.";

function lastValues(y: Float64Array, offsets: Int32Array, i: number): number {
  return y[(offsets[i + 1] as number) - 1] as number;
}

export const fakePipelines: ApiPipelines = {
  forecast: (r) => {
    const k = r.series.sizes.length;
    const mean: number[] = [];
    for (let i = 0; i < k; i++) for (let s = 0; s < r.h; s++) mean.push(lastValues(r.series.y, r.series.offsets, i) + (r.finetuned?.values[0] ?? 0));
    const intervals: Record<string, number[]> | null = r.levels.length === 0 ? null : {};
    for (const L of r.levels) {
      intervals![`lo-${L}`] = mean.map((m) => m - L / 10);
      intervals![`hi-${L}`] = mean.map((m) => m + L / 10);
    }
    return {
      input_tokens: -1,
      output_tokens: -1,
      finetune_tokens: r.finetune.steps * k,
      mean,
      sizes: Array.from(r.series.sizes, () => r.h),
      intervals,
      weights_x: r.series.X.length > 0 ? r.series.X.map(() => 0.5) : null,
      feature_contributions: null,
      warnings: r.h > 14 ? [HORIZON_WARNING] : [],
    };
  },
  anomaly: (r) => {
    const k = r.series.sizes.length;
    const mean: number[] = [];
    const idxs: number[] = [];
    const sizes: number[] = [];
    for (let i = 0; i < k; i++) {
      const end = r.series.offsets[i + 1] as number;
      const start = Math.max(r.series.offsets[i] as number, end - r.detectionSize);
      sizes.push(end - start);
      for (let t = start; t < end; t++) {
        idxs.push(t);
        mean.push(r.series.y[t] as number);
      }
    }
    const L = r.level;
    return {
      input_tokens: 0,
      output_tokens: 0,
      finetune_tokens: r.finetune.steps * k,
      mean,
      sizes,
      idxs,
      anomaly: mean.map(() => false),
      anomaly_score: mean.map(() => 0),
      accumulated_anomaly_score: mean.map(() => 0),
      intervals: r.thresholdMethod === "multivariate" ? null : { [`lo-${L}`]: mean.map((m) => m - 1), [`hi-${L}`]: mean.map((m) => m + 1) },
      warnings: [],
    };
  },
  historic: (r) => {
    const mean = Array.from(r.series.y);
    return {
      input_tokens: 0,
      output_tokens: 0,
      finetune_tokens: 0,
      mean,
      sizes: Array.from(r.series.sizes),
      intervals: null,
      weights_x: null,
      feature_contributions: null,
      warnings: [],
    };
  },
  finetune: (r) => {
    if (r.series.y[0] === 666) throw new Error("boom");
    return {
      input_tokens: 0,
      output_tokens: 0,
      finetune_tokens: r.finetune.steps * r.series.sizes.length,
      weights: { model: r.model, start: 0, values: Float64Array.of(r.finetune.steps + (r.finetuned?.values[0] ?? 0), r.finetune.depth) },
      warnings: [],
    };
  },
};

export const KEY_A = "key-a-0123456789";
export const KEY_B = "key-b-9876543210";
export const KEY_POOR = "key-poor-555";

export function testService(extra: Partial<ServiceOptions> = {}) {
  let t = Date.UTC(2026, 0, 1);
  return createService({
    accounts: [
      { id: "acme", apiKeys: [KEY_A], credits: 1e9, hasPaymentMethod: true },
      { id: "globex", apiKeys: [KEY_B], credits: 1e9, hasPaymentMethod: false },
      { id: "poor", apiKeys: [KEY_POOR], credits: 30, hasPaymentMethod: false },
    ],
    clock: () => new Date((t += 1000)),
    ids: seededIdSequence("test-service"),
    pipelines: fakePipelines,
    ...extra,
  });
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export const smallSeries = { y: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], sizes: [4, 6] };

/** The 422 items `run` throws as a ValidationError (fails the test when it throws anything else or nothing). */
export function validationDetail(run: () => unknown): ErrorItem[] {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).detail;
  }
  throw new Error("expected a ValidationError");
}
