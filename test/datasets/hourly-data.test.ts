import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { loadHourly, MAX_HORIZON, ORIGINS_PER_PART, originsOf, type HourlySeries } from "../../tools/datasets/hourly-data.js";

const series = (n: number, day: number): HourlySeries => {
  const heldOut = Math.floor(n / 4 / day) * day;
  return { id: "s", group: "cloud, hourly", freq: "H", day, y: new Float64Array(n), heldOutStart: n - heldOut };
};

describe("hourly development data", () => {
  test("origins: targets inside their part, two days of history, 1.5 days apart, the last ending at the part's end", () => {
    fc.assert(
      fc.property(fc.integer({ min: 50, max: 5000 }), fc.constantFrom(24, 48), (n, day) => {
        const s = series(n, day);
        const origins = originsOf(s, 0);
        for (const part of ["development", "held-out"] as const) {
          const [from, to] = part === "development" ? [0, s.heldOutStart] : [s.heldOutStart, n];
          const own = origins.filter((o) => o.part === part).map((o) => o.origin);
          expect(own.length).toBeLessThanOrEqual(ORIGINS_PER_PART);
          for (const o of own) {
            expect(o).toBeGreaterThanOrEqual(Math.max(from, 2 * day));
            expect(o + MAX_HORIZON).toBeLessThanOrEqual(to);
          }
          for (let i = 1; i < own.length; i++) expect(own[i]! - own[i - 1]!).toBe((3 * day) / 2);
          if (own.length > 0) expect(own[own.length - 1]! + MAX_HORIZON).toBe(to);
        }
      }),
      { numRuns: 200 },
    );
  });

  test("the committed files load as 35 series with origins in both parts; the held-out part is the last quarter in whole days", () => {
    const { series: all, origins, dropped } = loadHourly();
    expect(all.length).toBe(35);
    expect(dropped).toEqual(["application-crash-rate-1/app1-09 (168 points)"]);
    expect(all.filter((s) => s.group === "ETT (hourly)").map((s) => [s.y.length, s.heldOutStart])[0]).toEqual([2016, 1512]);
    const taylor = all.find((s) => s.id === "taylor")!;
    expect([taylor.y.length, taylor.heldOutStart, taylor.freq]).toEqual([4032, 3024, "30min"]);
    for (const [i, s] of all.entries()) {
      const held = s.y.length - s.heldOutStart;
      expect(held % s.day).toBe(0);
      expect(held).toBeLessThanOrEqual(s.y.length / 4);
      expect(held + s.day).toBeGreaterThan(s.y.length / 4);
      expect(origins.some((o) => o.series === i && o.part === "held-out")).toBe(true);
      expect(origins.some((o) => o.series === i && o.part === "development")).toBe(true);
    }
    expect(origins.length).toBe(375);
  });
});
