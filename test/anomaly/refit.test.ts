import { describe, expect, test } from "vitest";
import { detectAnomalies } from "../../src/anomaly/index.js";
import { seasonalNaiveForecaster } from "../../src/cv/index.js";
import { fixedModelSource } from "../../src/finetune/index.js";
import type { AnomalyInput, ModelSource } from "../../src/types.js";
import { anomalyRequestForTest, packForTest } from "./helpers.js";

/**
 * A model source that records what the pipeline asks it for and forecasts
 * with seasonal naive, reporting steps × series of work like fine-tuning: the seam
 * the real model comes through, with a stand-in behind it.
 */
function recordingSource(request: AnomalyInput, calls: number[][]): ModelSource {
  return (train, trainLengths) => {
    calls.push(Array.from(trainLengths ?? []));
    const steps = request.finetune.steps;
    return { forecaster: seasonalNaiveForecaster(1), finetuneWork: steps * train.sizes.length, warnings: steps > 0 ? ["note from fine-tuning"] : [] };
  };
}

describe("how the pipeline asks its model source", () => {
  // lengths 40 and 30, h 5, detection 2: 3 windows (cutoffs 25, 30, 35 and 15, 20, 25)
  const series = packForTest([Array.from({ length: 40 }, (_, t) => t % 3), Array.from({ length: 30 }, (_, t) => t % 5)]);
  const fields = { h: 5, detectionSize: 2, freq: "D" as const };
  const tuned = { steps: 3, loss: "default", depth: 1 } as const;

  test("zero-shot: one preparation, on the points before each series' first window", () => {
    const calls: number[][] = [];
    const request = anomalyRequestForTest(series, fields);
    const result = detectAnomalies(request, recordingSource(request, calls));
    expect(calls).toEqual([[25, 15]]);
    expect(result.finetuneWork).toBe(0);
    expect(result.warnings).toEqual([]);
  });

  test("refit false: fine-tuned once on the points before each series' first window", () => {
    const calls: number[][] = [];
    const request = anomalyRequestForTest(series, { ...fields, finetune: tuned });
    const result = detectAnomalies(request, recordingSource(request, calls));
    expect(calls).toEqual([[25, 15]]);
    expect(result.finetuneWork).toBe(6);
    expect(result.warnings).toEqual(["note from fine-tuning"]);
  });

  test("refit true: fine-tuned per window on the points before that window's cutoffs", () => {
    const calls: number[][] = [];
    const request = anomalyRequestForTest(series, { ...fields, refit: true, finetune: tuned });
    const result = detectAnomalies(request, recordingSource(request, calls));
    expect(calls).toEqual([
      [35, 25],
      [30, 20],
      [25, 15],
    ]);
    // three tunings (one per window), each steps × series = 6: the work done
    expect(result.finetuneWork).toBe(18);
    expect(result.warnings).toEqual(["note from fine-tuning"]);
  });

  test("a fixed forecaster (seasonal naive) through the same seam: no tuning, no tokens", () => {
    const request = anomalyRequestForTest(series, { ...fields, finetune: tuned });
    const result = detectAnomalies(request, fixedModelSource(seasonalNaiveForecaster(2)));
    expect(result.finetuneWork).toBe(0);
    expect(result.idxs).toHaveLength(4);
  });
});
