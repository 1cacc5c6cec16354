/**
 * Stand-in pipelines for API tests: cheap, deterministic, with the shapes of
 * the real results, so the API layer is tested apart from the models.
 */
import { expect } from "vitest";
import { ValidationError, type ErrorItem } from "../../src/api/errors.js";
import type { ApiPipelines } from "../../src/api/pipelines.js";
import { seededIdSequence } from "../../src/api/ids.js";
import { createService, type ServiceOptions, type ServiceRequest } from "../../src/api/service.js";

export const HORIZON_WARNING = "The specified horizon h exceeds the model horizon (14 for freq D with forecastmodel-1). This may lead to less accurate forecasts.";

function lastValues(y: Float64Array, offsets: Int32Array, i: number): number {
  return y[(offsets[i + 1] as number) - 1] as number;
}

export const fakePipelines: ApiPipelines = {
  forecast: (r) => {
    const k = r.series.sizes.length;
    const mean = new Float64Array(k * r.h);
    for (let i = 0; i < k; i++) for (let s = 0; s < r.h; s++) mean[i * r.h + s] = lastValues(r.series.y, r.series.offsets, i) + (r.finetuned?.values[0] ?? 0);
    const intervals: Record<string, Float64Array> | null = r.levels.length === 0 ? null : {};
    for (const L of r.levels) {
      intervals![`lo-${L}`] = mean.map((m) => m - L / 10);
      intervals![`hi-${L}`] = mean.map((m) => m + L / 10);
    }
    return {
      mean,
      sizes: new Int32Array(k).fill(r.h),
      intervals,
      weightsX: r.series.X.length > 0 ? new Float64Array(r.series.X.length).fill(0.5) : null,
      contributions: null,
      finetuneWork: r.finetune.steps * k,
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
      mean: Float64Array.from(mean),
      sizes: Int32Array.from(sizes),
      idxs: Int32Array.from(idxs),
      anomaly: new Uint8Array(mean.length),
      anomalyScore: new Float64Array(mean.length),
      accumulatedAnomalyScore: new Float64Array(mean.length),
      intervals: r.thresholdMethod === "multivariate" ? null : { [`lo-${L}`]: Float64Array.from(mean, (m) => m - 1), [`hi-${L}`]: Float64Array.from(mean, (m) => m + 1) },
      finetuneWork: r.finetune.steps * k,
      warnings: [],
    };
  },
  historic: (r) => {
    return {
      mean: Float64Array.from(r.series.y),
      sizes: Int32Array.from(r.series.sizes),
      intervals: null,
      weightsX: null,
      contributions: null,
      finetuneWork: 0,
      warnings: [],
    };
  },
  finetune: (r) => {
    if (r.series.y[0] === 666) throw new Error("boom");
    return {
      finetuneWork: r.finetune.steps * r.series.sizes.length,
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

/** A POST / GET request to the service, authorised with `key` (KEY_A by default). */
export const post = (path: string, body: unknown, key = KEY_A): ServiceRequest => ({ method: "POST", path, headers: bearer(key), body });
export const get = (path: string, key = KEY_A): ServiceRequest => ({ method: "GET", path, headers: bearer(key) });

/** `fakePipelines` whose `finetune` counts its calls (`finetunes()` is the count so far). */
export function countingPipelines(): { pipelines: ApiPipelines; finetunes: () => number } {
  let count = 0;
  return {
    pipelines: {
      ...fakePipelines,
      finetune: (r) => {
        count++;
        return fakePipelines.finetune(r);
      },
    },
    finetunes: () => count,
  };
}

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

/**
 * The forecast payload of the hosted API's Python SDK (`_prepare_forecast`):
 * every field present, nulls for "none", no hist_exog; `extra` overrides.
 */
export function sdkForecastBody(series: Record<string, unknown>, fields: { model: string; h: number; freq: string }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    series,
    model: fields.model,
    h: fields.h,
    freq: fields.freq,
    clean_ex_first: true,
    level: null,
    finetune_steps: 0,
    finetune_depth: 1,
    finetune_loss: "default",
    finetuned_model_id: null,
    feature_contributions: false,
    multivariate: false,
    ...extra,
  };
}
