/** The real monitoring data's loader (the fixed split, the NAB window rule) and the robust baseline's z. */
import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { CLOUD_MONITORING_SPLIT, cloudMonitoringStreams, labelWindows, realWarmup } from "../../tools/datasets/cloud-monitoring-data.js";
import { trailingMedianMadZ } from "../../tools/datasets/monitoring-data.js";

describe("cloudMonitoringStreams", () => {
  const development = cloudMonitoringStreams("development");
  const heldOut = cloudMonitoringStreams("held-out");

  it("splits the 60 series by domain folder: 21 development, 39 held out", () => {
    expect(development).toHaveLength(21);
    expect(heldOut).toHaveLength(39);
    expect(new Set(development.map((s) => s.domain))).toEqual(new Set(CLOUD_MONITORING_SPLIT.development));
    expect(new Set(heldOut.map((s) => s.domain))).toEqual(new Set(CLOUD_MONITORING_SPLIT.heldOut));
    expect(development.every((s) => s.development) && heldOut.every((s) => !s.development)).toBe(true);
  });

  it("alternates the nine folders in alphabetical order", () => {
    const all = [...CLOUD_MONITORING_SPLIT.development, ...CLOUD_MONITORING_SPLIT.heldOut].sort();
    expect(all.filter((_, i) => i % 2 === 0)).toEqual([...CLOUD_MONITORING_SPLIT.development]);
    expect(all.filter((_, i) => i % 2 === 1)).toEqual([...CLOUD_MONITORING_SPLIT.heldOut]);
  });

  it("gives each stream its step, finite values, the rule's windows and no window inside the warm-up", () => {
    for (const s of [...development, ...heldOut]) {
      expect([60, 3600]).toContain(s.stepSeconds);
      expect(s.values.every(Number.isFinite)).toBe(true);
      expect(s.warmup).toBe(realWarmup(s.values.length));
      expect(s.allWindows).toEqual(labelWindows(s.values.length, s.labelRuns));
      expect(s.windows.map(({ start, end }) => ({ start, end }))).toEqual(s.allWindows.filter((w) => w.end > s.warmup));
    }
    const unlabelled = development.find((s) => s.domain === "service-unavailable")!;
    expect(unlabelled.labelRuns).toEqual([]);
    expect(unlabelled.windows).toEqual([]);
  });
});

describe("labelWindows", () => {
  it("centres a window of round(0.1 · n / k) points on each run, the odd slack point after it", () => {
    expect(labelWindows(100, [[50, 50]])).toEqual([{ start: 46, end: 56 }]);
    expect(labelWindows(101, [[50, 51]])).toEqual([{ start: 46, end: 56 }]);
    expect(labelWindows(200, [[20, 20], [150, 152]])).toEqual([{ start: 16, end: 26 }, { start: 147, end: 157 }]);
  });

  it("keeps a run longer than the window whole, clips at the ends and merges overlaps", () => {
    expect(labelWindows(100, [[30, 49]])).toEqual([{ start: 30, end: 50 }]);
    expect(labelWindows(100, [[0, 0]])).toEqual([{ start: 0, end: 6 }]);
    expect(labelWindows(100, [[99, 99]])).toEqual([{ start: 95, end: 100 }]);
    expect(labelWindows(100, [[10, 10], [12, 13]])).toEqual([{ start: 8, end: 16 }]);
    expect(labelWindows(100, [[10, 10], [14, 15]])).toEqual([{ start: 8, end: 13 }, { start: 13, end: 18 }]);
  });

  it("gives no windows without labels and rejects runs outside the stream", () => {
    expect(labelWindows(50, [])).toEqual([]);
    expect(() => labelWindows(50, [[40, 50]])).toThrow(/run \[40, 50\]/);
    expect(() => labelWindows(50, [[5, 4]])).toThrow(RangeError);
    expect(() => labelWindows(0, [])).toThrow(/n must be/);
  });

  const runs = fc.integer({ min: 1, max: 3000 }).chain((n) =>
    fc.tuple(fc.constant(n), fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 30 }).map((points) => {
      const sorted = [...points].sort((a, b) => a - b);
      const out: [number, number][] = [];
      for (const t of sorted) {
        const last = out[out.length - 1];
        if (last !== undefined && last[1] === t - 1) last[1] = t;
        else out.push([t, t]);
      }
      return out;
    })),
  );

  test.prop([runs])("windows are sorted, disjoint, inside the stream, cover every run and never exceed the rule's length unless merged", ([n, list]) => {
    const windows = labelWindows(n, list);
    const length = list.length === 0 ? 0 : Math.round((0.1 * n) / list.length);
    windows.forEach((w, i) => {
      expect(w.start).toBeGreaterThanOrEqual(i === 0 ? 0 : windows[i - 1]!.end);
      expect(w.end).toBeGreaterThan(w.start);
      expect(w.end).toBeLessThanOrEqual(n);
    });
    for (const [first, last] of list) {
      const w = windows.find((x) => x.start <= first && last < x.end);
      expect(w).toBeDefined();
      const inside = list.filter(([f]) => f >= w!.start && f < w!.end);
      if (inside.length === 1) expect(w!.end - w!.start).toBeLessThanOrEqual(Math.max(length, last - first + 1));
    }
  });
});

describe("trailingMedianMadZ", () => {
  it("scores |x − median| / (1.4826 · MAD) of the previous w values, NaN before", () => {
    // window 1..5: median 3, absolute deviations 2, 1, 0, 1, 2, MAD 1
    const z = trailingMedianMadZ(Float64Array.of(1, 2, 3, 4, 5, 100, 3), 5);
    expect(Array.from(z.subarray(0, 5)).every(Number.isNaN)).toBe(true);
    expect(z[5]).toBeCloseTo(97 / 1.4826, 12);
    // window 2, 3, 4, 5, 100: median 4, deviations 2, 1, 0, 1, 96, MAD 1
    expect(z[6]).toBeCloseTo(1 / 1.4826, 12);
  });

  it("falls back to the mean absolute deviation, then to a tiny scale, where the MAD is 0", () => {
    // window 0, 0, 0, 0, 10: median 0, MAD 0, mean absolute deviation 2
    expect(trailingMedianMadZ(Float64Array.of(0, 0, 0, 0, 10, 5), 5)[5]).toBeCloseTo(5 / (1.2533 * 2), 12);
    const flat = trailingMedianMadZ(Float64Array.of(7, 7, 7, 7, 7, 8), 5);
    expect(trailingMedianMadZ(Float64Array.of(7, 7, 7, 7, 7, 7), 5)[5]).toBe(0);
    expect(flat[5]).toBeGreaterThan(1e6);
    expect(Number.isFinite(flat[5]!)).toBe(true);
  });
});
