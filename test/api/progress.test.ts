/**
 * onProgress: the entry points report fine-tuning steps and rolling windows
 * as `{ stage, done, total }`, at a bounded rate, ending at done = total, and
 * the result is the same with and without a callback.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { detectAnomaliesOnline, finetune, forecast, forecastRecords } from "../../src/api/index.js";
import { calibrationWindowCount } from "../../src/forecast/index.js";
import { boundedProgress, PROGRESS_MAX_CALLS, type Progress } from "../../src/progress.js";

const y = Array.from({ length: 120 }, (_, t) => 50 + 10 * Math.sin((2 * Math.PI * t) / 12) + (t % 5));

function collect(): { reports: Progress[]; onProgress: (p: Progress) => void } {
  const reports: Progress[] = [];
  return { reports, onProgress: (p) => reports.push(p) };
}

/** The reports of one stage run are increasing, within 1..total, and end at total. */
function expectWellFormed(reports: readonly Progress[]): void {
  expect(reports.length).toBeGreaterThan(0);
  for (let k = 0; k < reports.length; k++) {
    const p = reports[k]!;
    expect(p.done).toBeGreaterThanOrEqual(1);
    expect(p.done).toBeLessThanOrEqual(p.total);
    if (k > 0 && reports[k - 1]!.stage === p.stage && reports[k - 1]!.total === p.total && reports[k - 1]!.done < p.total) expect(p.done).toBeGreaterThan(reports[k - 1]!.done);
  }
  expect(reports.at(-1)!.done).toBe(reports.at(-1)!.total);
}

describe("boundedProgress", () => {
  test.prop([fc.integer({ min: 1, max: 20_000 })])("reports the first unit, at most PROGRESS_MAX_CALLS more, and the last", (total) => {
    const seen: number[] = [];
    const tick = boundedProgress((p) => seen.push(p.done), "windows")!;
    for (let done = 1; done <= total; done++) tick(done, total);
    expect(seen[0]).toBe(1);
    expect(seen.at(-1)).toBe(total);
    expect(seen.length).toBeLessThanOrEqual(PROGRESS_MAX_CALLS + 1);
    // evenly spaced: no two reports further apart than ceil(total / PROGRESS_MAX_CALLS) units
    for (let k = 1; k < seen.length; k++) expect(seen[k]! - seen[k - 1]!).toBeLessThanOrEqual(Math.ceil(total / PROGRESS_MAX_CALLS));
  });
});

describe("onProgress on the entry points", () => {
  it("forecast with levels: one report per calibration window, and the same result as without", () => {
    const body = { series: { y: [...y, ...y.slice(0, 90)], sizes: [120, 90] }, freq: "M", h: 6, level: [80] } as const;
    const { reports, onProgress } = collect();
    const withProgress = forecast(body, { onProgress });
    expect(withProgress).toEqual(forecast(body));
    expect(reports.every((p) => p.stage === "windows")).toBe(true);
    expectWellFormed(reports);
    expect(reports.at(-1)!.total).toBeLessThanOrEqual(calibrationWindowCount(6));
    expect(reports.map((p) => p.done)).toEqual(Array.from({ length: reports.at(-1)!.total }, (_, k) => k + 1));
  });

  it("a point forecast without levels has no windows: no report", () => {
    const { reports, onProgress } = collect();
    forecast({ series: { y, sizes: [120] }, freq: "M", h: 6 }, { onProgress });
    expect(reports).toEqual([]);
  });

  it("finetune: one report per step; fine-tuning inside a forecast reports its steps before the windows", () => {
    const { reports, onProgress } = collect();
    const tuned = finetune({ series: { y, sizes: [120] }, freq: "M", finetune_steps: 4 }, { onProgress });
    expect(reports).toEqual([1, 2, 3, 4].map((done) => ({ stage: "finetune", done, total: 4 })));
    expect(tuned).toEqual(finetune({ series: { y, sizes: [120] }, freq: "M", finetune_steps: 4 }));
    const inForecast = collect();
    forecast({ series: { y, sizes: [120] }, freq: "M", h: 6, level: [90], finetune_steps: 2 }, { onProgress: inForecast.onProgress });
    const stages = inForecast.reports.map((p) => p.stage);
    expect(stages.slice(0, 2)).toEqual(["finetune", "finetune"]);
    expect(stages.slice(2).every((s) => s === "windows")).toBe(true);
    expectWellFormed(inForecast.reports.slice(2));
  });

  it("anomaly detection reports its windows (and with refit, fine-tuning in each window)", () => {
    const body = { series: { y, sizes: [120] }, freq: "M", h: 6, detection_size: 12 } as const;
    const plain = collect();
    expect(detectAnomaliesOnline(body, { onProgress: plain.onProgress })).toEqual(detectAnomaliesOnline(body));
    expect(plain.reports.length).toBeGreaterThan(0);
    expect(plain.reports.every((p) => p.stage === "windows")).toBe(true);
    const refit = collect();
    detectAnomaliesOnline({ ...body, finetune_steps: 1, refit: true }, { onProgress: refit.onProgress });
    const tunes = refit.reports.filter((p) => p.stage === "finetune");
    expect(tunes.length).toBeGreaterThan(1);
    expect(tunes.every((p) => p.done === 1 && p.total === 1)).toBe(true);
  });

  it("the records functions pass it through; a throwing callback ends the call with its error", () => {
    const rows = y.map((v, t) => ({ unique_id: "a", ds: new Date(Date.UTC(2010, t, 1)), y: v }));
    const { reports, onProgress } = collect();
    forecastRecords(rows, { h: 3, level: [95] }, { onProgress });
    expectWellFormed(reports);
    expect(() =>
      forecast(
        { series: { y, sizes: [120] }, freq: "M", h: 6, level: [80] },
        {
          onProgress: () => {
            throw new Error("stop here");
          },
        },
      ),
    ).toThrow("stop here");
  });
});
