import { describe, expect, test, vi } from "vitest";
import { seasonalNaiveForecaster } from "../../src/cv/index.js";
import type { ModelSpec, SeriesData } from "../../src/types.js";
import { anomalyRequestForTest, packForTest } from "./helpers.js";

const calls: { trainLengths: number[]; steps: number }[] = [];

// Record what the pipeline asks fine-tuning for; forecast with seasonal naive.
vi.mock("../../src/finetune/index.js", () => ({
  prepareForecaster: (spec: ModelSpec, series: SeriesData, options: { trainLengths?: Int32Array } = {}) => {
    calls.push({ trainLengths: Array.from(options.trainLengths ?? []), steps: spec.finetune.steps });
    return {
      forecaster: seasonalNaiveForecaster(1),
      finetuneTokens: spec.finetune.steps * series.sizes.length,
      weights: null,
      warnings: spec.finetune.steps > 0 ? ["note from fine-tuning"] : [],
    };
  },
}));

const { detectAnomalies } = await import("../../src/anomaly/index.js");

describe("how the pipeline prepares its model", () => {
  // lengths 40 and 30, h 5, detection 2: 3 windows (cutoffs 25, 30, 35 and 15, 20, 25)
  const series = packForTest([Array.from({ length: 40 }, (_, t) => t % 3), Array.from({ length: 30 }, (_, t) => t % 5)]);
  const fields = { h: 5, detectionSize: 2, freq: "D" as const };

  test("zero-shot: one preparation", () => {
    calls.length = 0;
    const result = detectAnomalies(anomalyRequestForTest(series, fields));
    expect(calls).toEqual([{ trainLengths: [25, 15], steps: 0 }]);
    expect(result.finetune_tokens).toBe(0);
    expect(result.warnings).toEqual([]);
  });

  test("refit false: fine-tuned once on the points before each series' first window", () => {
    calls.length = 0;
    const result = detectAnomalies(anomalyRequestForTest(series, { ...fields, finetune: { steps: 3, loss: "default", depth: 1 } }));
    expect(calls).toEqual([{ trainLengths: [25, 15], steps: 3 }]);
    expect(result.finetune_tokens).toBe(6);
    expect(result.warnings).toEqual(["note from fine-tuning"]);
  });

  test("refit true: fine-tuned per window on the points before that window's cutoffs", () => {
    calls.length = 0;
    const result = detectAnomalies(
      anomalyRequestForTest(series, { ...fields, refit: true, finetune: { steps: 3, loss: "default", depth: 1 } }),
    );
    expect(calls.map((c) => c.trainLengths)).toEqual([
      [35, 25],
      [30, 20],
      [25, 15],
    ]);
    // three tunings (one per window), each steps × series = 6: the work done
    expect(result.finetune_tokens).toBe(18);
    expect(result.warnings).toEqual(["note from fine-tuning"]);
  });

  test("an injected forecaster skips preparation", () => {
    calls.length = 0;
    const result = detectAnomalies(anomalyRequestForTest(series, { ...fields, finetune: { steps: 3, loss: "default", depth: 1 } }), {
      forecaster: seasonalNaiveForecaster(2),
    });
    expect(calls).toEqual([]);
    expect(result.finetune_tokens).toBe(0);
  });
});
