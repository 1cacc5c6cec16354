import { describe, expect, test } from "vitest";
import fc from "fast-check";
import {
  bestProjection,
  seasonalNaiveProjection,
  seasonalProfileProjection,
  seasonalThetaProjection,
  type ProjectionMethod,
} from "../../src/series/projections.js";
import { seasonal } from "./helpers.js";

const project = (method: ProjectionMethod, y: ArrayLike<number>, m: number, h: number): Float64Array =>
  method === "seasonal-naive" ? seasonalNaiveProjection(y, m, h) : method === "seasonal-profile" ? seasonalProfileProjection(y, m, h) : seasonalThetaProjection(y, m, h);
const METHODS: ProjectionMethod[] = ["seasonal-naive", "seasonal-profile", "seasonal-theta"];
const finiteSeries = (minLength: number) => fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength, maxLength: 120 });

describe("seasonalNaiveProjection", () => {
  test("repeats the last season; shorter than a season or season 1: the last value", () => {
    expect(Array.from(seasonalNaiveProjection([1, 2, 3, 4, 5, 6, 7], 3, 7))).toEqual([5, 6, 7, 5, 6, 7, 5]);
    expect(Array.from(seasonalNaiveProjection([8, 9], 3, 2))).toEqual([9, 9]);
    expect(Array.from(seasonalNaiveProjection([1, 5, 2], 1, 3))).toEqual([2, 2, 2]);
  });
});

describe("seasonalProfileProjection", () => {
  test("each phase's median over the last cycles (known values)", () => {
    // phases over 3 cycles: [1, 5, 3] -> 3, [2, 2, 8] -> 2; cycles 2 takes the last two: [5, 3] -> 4, [2, 8] -> 5
    const y = [1, 2, 5, 2, 3, 8];
    expect(Array.from(seasonalProfileProjection(y, 2, 3))).toEqual([3, 2, 3]);
    expect(Array.from(seasonalProfileProjection(y, 2, 2, { cycles: 2 }))).toEqual([4, 5]);
    // a history that does not start on a cycle boundary: phases are counted back from the last point
    expect(Array.from(seasonalProfileProjection([9, 1, 2, 1, 2, 1, 2], 2, 2))).toEqual([1, 2]);
    expect(Array.from(seasonalProfileProjection([4, 6], 3, 2))).toEqual([6, 6]);
  });

  test("with one cycle it is seasonal naive", () => {
    fc.assert(
      fc.property(finiteSeries(1), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 50 }), (y, m, h) => {
        expect(Array.from(seasonalProfileProjection(y, m, h, { cycles: 1 }))).toEqual(Array.from(seasonalNaiveProjection(y, m, h)));
      }),
      { numRuns: 100 },
    );
  });

  test("a spike in fewer than half of the cycles does not move it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 24 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 23 }), fc.double({ min: 1e3, max: 1e9, noNaN: true }), (m, cycle, phase, spike) => {
        const y = Array.from({ length: 5 * m }, (_, t) => (t % m) * 1.5 - 2);
        const spiked = y.slice();
        spiked[cycle * m + (phase % m)]! += spike;
        expect(Array.from(seasonalProfileProjection(spiked, m, 2 * m))).toEqual(Array.from(seasonalProfileProjection(y, m, 2 * m)));
      }),
      { numRuns: 100 },
    );
  });
});

describe("seasonalThetaProjection", () => {
  test("a line: SES with alpha 1 plus half the slope (known value)", () => {
    // y = 2t + 1: alpha 1 has the least one-step error (every error 2), level 39; slope 2; shift (1 - 0^20)/1 = 1
    const y = Array.from({ length: 20 }, (_, t) => 2 * t + 1);
    expect(Array.from(seasonalThetaProjection(y, 1, 3))).toEqual([40, 41, 42]);
  });

  test("a noise-free season on a level continues, additive (signs mixed) and multiplicative (positive)", () => {
    const pattern = [3, -1, -3, 1, 0, 5, -5];
    const additive = Array.from({ length: 70 }, (_, t) => pattern[t % 7]!);
    const f = seasonalThetaProjection(additive, 7, 14);
    for (let k = 0; k < 14; k++) expect(f[k]).toBeCloseTo(pattern[(70 + k) % 7]!, 9);
    const positive = Array.from({ length: 70 }, (_, t) => 100 * (1 + pattern[t % 7]! / 10));
    const g = seasonalThetaProjection(positive, 7, 14);
    for (let k = 0; k < 14; k++) expect(g[k]).toBeCloseTo(positive[(70 + k) % 7]!, 7);
  });

  test("a history shorter than two seasons is not adjusted: it is the Theta forecast at season 1", () => {
    const y = [5, 7, 6, 8, 7, 9];
    expect(Array.from(seasonalThetaProjection(y, 4, 3))).toEqual(Array.from(seasonalThetaProjection(y, 1, 3)));
  });
});

describe("every projection", () => {
  test("forecasts a constant history as that constant, exactly (0, negative, positive, huge, tiny)", () => {
    fc.assert(
      fc.property(fc.constantFrom(0, -3, 7.25, 1e300, -1e-300, 5e-324), fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 12 }), fc.constantFrom(...METHODS), (c, n, m, method) => {
        const f = project(method, new Float64Array(n).fill(c), m, 10);
        expect(Array.from(f)).toEqual(new Array(10).fill(c));
      }),
      { numRuns: 150 },
    );
  });

  test("a single point forecasts that point", () => {
    for (const method of METHODS) expect(Array.from(project(method, [4.5], 24, 3))).toEqual([4.5, 4.5, 4.5]);
  });

  test("scale with the data, 1e-300 to 1e300, and stay finite", () => {
    const y = seasonal(24 * 12, 24, 5, 1, 11, 0.01);
    for (const method of METHODS) {
      const base = project(method, y, 24, 48);
      for (const c of [1e-300, 1e-150, 1e150, 1e300]) {
        const scaled = project(method, y.map((v) => v * c), 24, 48);
        for (let k = 0; k < 48; k++) {
          expect(Number.isFinite(scaled[k])).toBe(true);
          expect(scaled[k]! / c).toBeCloseTo(base[k]!, 6);
        }
      }
    }
  });

  test("never mutate the history and give the same bits twice", () => {
    fc.assert(
      fc.property(finiteSeries(1), fc.integer({ min: 1, max: 20 }), fc.constantFrom(...METHODS), (values, m, method) => {
        const y = Object.freeze(values.slice());
        const a = project(method, y, m, 30);
        const b = project(method, y, m, 30);
        expect(y).toEqual(values);
        expect(Array.from(a)).toEqual(Array.from(b));
        expect(a.every(Number.isFinite)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  test("refuse bad arguments with a message naming them", () => {
    for (const method of METHODS) {
      expect(() => project(method, [], 2, 1)).toThrow(/y must hold at least one point/);
      expect(() => project(method, [1, NaN], 2, 1)).toThrow(/y\[1\] is NaN/);
      expect(() => project(method, [1, Infinity], 2, 1)).toThrow(/y\[1\] is Infinity/);
      expect(() => project(method, [1, 2], 0, 1)).toThrow(/season must be an integer >= 1/);
      expect(() => project(method, [1, 2], 1.5, 1)).toThrow(/season must be an integer >= 1/);
      expect(() => project(method, [1, 2], 2, 0)).toThrow(/h must be an integer >= 1/);
    }
    expect(() => seasonalProfileProjection([1, 2], 1, 1, { cycles: 0 })).toThrow(/cycles must be an integer >= 1/);
    expect(() => seasonalThetaProjection([1, 2], 1, 1, { cycles: 2.5 })).toThrow(/cycles must be an integer >= 1/);
  });
});

describe("bestProjection", () => {
  /** Mean absolute error of one candidate on the rolling origins n − h, n − 2h, … (rounds of them). */
  const rollingMae = (y: Float64Array, method: ProjectionMethod, m: number, h: number, rounds: number): number => {
    let sum = 0;
    for (let r = 1; r <= rounds; r++) {
      const origin = y.length - r * h;
      const f = project(method, y.subarray(0, origin), m, h);
      for (let k = 0; k < h; k++) sum += Math.abs(y[origin + k]! - f[k]!);
    }
    return sum / (rounds * h);
  };

  test("chooses the candidate of least rolling error and forecasts with it from the whole history", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 6, max: 14 }), fc.constantFrom(6, 12), (seed, cycles, h) => {
        const y = seasonal(24 * cycles, 24, 5, 2, seed);
        for (let t = 0; t < y.length; t++) if (Math.floor(t / 24) % 7 >= 5) y[t]! -= 8;
        const chosen = bestProjection(y, [24, 72], h);
        // rounds: origins with two cycles of the longest scored season (72) before them, at most 3
        const longest = y.length >= h + 144 ? 72 : 24;
        const rounds = Math.min(3, Math.floor((y.length - 2 * longest) / h));
        const seasons = y.length >= h + 144 ? [24, 72] : [24];
        const maes = seasons.flatMap((m) => METHODS.map((method) => ({ method, m, mae: rollingMae(y, method, m, h, rounds) })));
        const least = Math.min(...maes.map((c) => c.mae));
        expect(chosen.rollingMae).toBeCloseTo(least, 12);
        expect(chosen.rollingOrigins).toBe(rounds);
        const first = maes.find((c) => c.mae === least)!;
        expect([chosen.method, chosen.season]).toEqual([first.method, first.m]);
        expect(Array.from(chosen.forecast)).toEqual(Array.from(project(chosen.method, y, chosen.season, h)));
      }),
      { numRuns: 25 },
    );
  });

  test("a week-long pattern: the weekly seasonal naive has no error and is chosen", () => {
    const y = Float64Array.from({ length: 24 * 7 * 4 }, (_, t) => (Math.floor(t / 24) % 7 >= 5 ? 2 : 10) + (t % 24 < 12 ? 0 : 3));
    const chosen = bestProjection(y, [24, 168], 24);
    expect([chosen.method, chosen.season, chosen.rollingMae]).toEqual(["seasonal-naive", 168, 0]);
  });

  test("without room for an origin: the first season's seasonal naive, unscored; without any season: naive", () => {
    const y = seasonal(60, 24, 5, 1, 3);
    const short = bestProjection(y, [24], 24);
    expect([short.method, short.season, Number.isNaN(short.rollingMae), short.rollingOrigins]).toEqual(["seasonal-naive", 24, true, 0]);
    const none = bestProjection(y, [], 5);
    expect([none.method, none.season]).toEqual(["seasonal-naive", 1]);
    expect(Array.from(none.forecast)).toEqual(new Array(5).fill(y[59]));
    expect(bestProjection([3], [24], 2).forecast).toEqual(new Float64Array([3, 3]));
  });

  test("refuses a season below 2 or a bad origins count", () => {
    expect(() => bestProjection([1, 2, 3], [1], 2)).toThrow(/every season must be an integer >= 2/);
    expect(() => bestProjection([1, 2, 3], [24], 2, { origins: 0 })).toThrow(/origins must be an integer >= 1/);
    expect(() => bestProjection([1, NaN], [24], 2)).toThrow(/y\[1\] is NaN/);
  });
});
