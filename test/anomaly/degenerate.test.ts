/**
 * Degenerate streams with the network (issue 26, item 4): a noise-free season, a square wave and a flat line
 * get no flag at level 99 while nothing changes; a step in a flat line is flagged at the step and not by the
 * calls after it; every z-score is finite and within ±ANOMALY_Z_CAP.
 */
import { describe, expect, test } from "vitest";
import { detectAnomaliesOnline } from "../../src/api/index.js";
import { ANOMALY_Z_CAP } from "../../src/anomaly/index.js";
import { gaussianMultiplier } from "../../src/intervals/index.js";

const HOURS = 24 * 21;

function detect(y: readonly number[], detectionSize = 24, h = 24, level = 99) {
  return detectAnomaliesOnline({ series: { y: [...y], sizes: [y.length] }, freq: "H", h, detection_size: detectionSize, level });
}

function flaggedRows(result: ReturnType<typeof detect>): number[] {
  return result.anomaly.flatMap((a, row) => (a ? [row] : []));
}

/** Streaming: every `d` new points one call with the `history` points before them; the positions flagged. */
function streamFlags(y: readonly number[], d: number, h: number, history: number, from: number): number[] {
  const flagged: number[] = [];
  for (let end = from; end <= y.length; end += d) {
    const result = detect(y.slice(Math.max(0, end - history), end), d, h);
    for (const row of flaggedRows(result)) flagged.push(end - d + row);
  }
  return flagged;
}

describe("degenerate streams (forecastmodel-1, hourly, level 99)", () => {
  const periodic = Array.from({ length: HOURS }, (_, t) => 10 + 5 * Math.sin((2 * Math.PI * t) / 24));
  const square = Array.from({ length: HOURS }, (_, t) => (t % 24 < 12 ? 20 : 5));
  const flat = Array.from({ length: HOURS }, () => 7);

  test.each([
    ["a noise-free season", periodic],
    ["a square wave", square],
    ["a flat line", flat],
  ])("%s: no flag, in one call and streaming", (_name, y) => {
    expect(flaggedRows(detect(y))).toEqual([]);
    expect(flaggedRows(detect(y, 5, 20))).toEqual([]);
    expect(streamFlags(y, 24, 24, 24 * 14, 24 * 15)).toEqual([]);
  });

  test("a step in a flat line: flagged at the step; the calls after it flag nothing", () => {
    const at = HOURS - 60;
    const y = flat.map((v, t) => (t >= at ? v + 2 : v));
    const flagged = streamFlags(y, 12, 12, 24 * 14, 24 * 15);
    expect(flagged, JSON.stringify(flagged)).toContain(at);
    // the call whose window holds the step judges its window by intervals made before it (the seed's rule), so
    // its points after the step are flagged too; no later call flags anything
    const callOfStep = Math.floor((at - 24 * 15) / 12);
    const lastOfThatCall = 24 * 15 + (callOfStep + 1) * 12 - 1;
    expect(flagged.filter((t) => t < at || t > lastOfThatCall), JSON.stringify({ flagged, at, lastOfThatCall })).toEqual([]);
  });

  test("a periodic stream that goes flat: finite scores within the cap", () => {
    const y = periodic.map((v, t) => (t >= HOURS - 100 && t < HOURS - 10 ? 10 : v));
    for (const [d, h] of [
      [24, 24],
      [5, 20],
      [48, 1],
    ] as const) {
      const result = detect(y, d, h);
      for (const z of result.anomaly_score) {
        expect(Number.isFinite(z)).toBe(true);
        expect(Math.abs(z)).toBeLessThanOrEqual(ANOMALY_Z_CAP);
      }
    }
  });

  test("the cap changes no flag: every level below 100 has q below it", () => {
    // the largest finite multiplier: 0.5 + level/200 one double below 1 (levels closer to 100 round to 1: q is infinite, nothing is flagged)
    expect(gaussianMultiplier(100 - 3e-14)).toBeLessThan(ANOMALY_Z_CAP);
    expect(gaussianMultiplier(100 - 3e-14)).toBeGreaterThan(8);
    const y = flat.map((v, t) => (t === HOURS - 3 ? 1e12 : v));
    const result = detect(y);
    expect(result.anomaly_score[21]).toBe(ANOMALY_Z_CAP);
    expect(result.anomaly[21]).toBe(true);
  });
});
