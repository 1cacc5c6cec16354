import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import seedrandom from "seedrandom";
import { RANGE_JUDGE_MIN_POINTS, rangeBoost, rangeOpinion } from "../../src/anomaly/range-judge.js";
import { seriesCalibratedScores } from "../../src/anomaly/scores.js";
import { detectAnomalies } from "../../src/anomaly/index.js";
import { seasonalNaiveForecaster } from "../../src/cv/index.js";
import { fixedModelSource } from "../../src/finetune/index.js";
import { gaussianMultiplier, spreadKnots } from "../../src/intervals/index.js";
import { SPREAD_LEVELS } from "../../src/model/index.js";
import { anomalyRequestForTest, packForTest } from "./helpers.js";

const z = fc.double({ min: -50, max: 50, noNaN: true });

/** R's type-7 quantile of the sorted values. */
function quantile7(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const k = Math.floor(h);
  return k + 1 < sorted.length ? sorted[k]! + (h - k) * (sorted[k + 1]! - sorted[k]!) : sorted[k]!;
}

/** The opinion of one point from its history, computed directly. */
function direct(history: number[]): { centre: number; scale: number } {
  const sorted = history.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { centre: Number.NaN, scale: Number.NaN };
  const iqr = quantile7(sorted, 0.75) - quantile7(sorted, 0.25);
  const scale = sorted.length >= RANGE_JUDGE_MIN_POINTS && iqr > 0 ? iqr / 1.3489795003921634 : Number.NaN;
  return { centre: quantile7(sorted, 0.5), scale };
}

describe("rangeBoost", () => {
  test.prop([z, z])("never smaller than z, on z's side; z itself unless r is on its side and further out (property)", (zf, r) => {
    const s = rangeBoost(zf, r);
    expect(Math.abs(s)).toBeGreaterThanOrEqual(Math.abs(zf));
    if (zf !== 0) expect(Math.sign(s)).toBe(Math.sign(zf));
    const further = ((zf > 0 && r > 0) || (zf < 0 && r < 0)) && Math.abs(r) > Math.abs(zf);
    if (!further) expect(s).toBe(zf);
    else expect(s).toBeCloseTo(Math.sign(zf) * Math.sqrt(Math.abs(zf * r)), 10);
  });

  test.prop([z, z, fc.double({ min: 0, max: 20, noNaN: true }), fc.double({ min: 0, max: 20, noNaN: true })])(
    "nondecreasing in each judge's z on each side (property)",
    (zf, r, more, moreR) => {
      const side = zf >= 0 ? 1 : -1;
      expect(side * rangeBoost(zf + side * more, r)).toBeGreaterThanOrEqual(side * rangeBoost(zf, r));
      expect(side * rangeBoost(zf, r + side * moreR)).toBeGreaterThanOrEqual(side * rangeBoost(zf, r));
    },
  );

  it("a range judge that does not speak (NaN) changes nothing; a huge r stays finite", () => {
    expect(rangeBoost(3, Number.NaN)).toBe(3);
    expect(rangeBoost(0, 1e9)).toBe(0);
    expect(rangeBoost(2, 1.7e308)).toBeCloseTo(Math.sqrt(2) * Math.sqrt(1.7e308), -290);
    expect(Number.isFinite(rangeBoost(2, 1.7e308))).toBe(true);
  });
});

describe("rangeOpinion", () => {
  const values = fc.array(fc.oneof({ weight: 9, arbitrary: fc.double({ min: -1e3, max: 1e3, noNaN: true }) }, fc.constant(Number.NaN), fc.constantFrom(0, 1)), { minLength: 1, maxLength: 120 });

  test.prop([values, fc.integer({ min: 1, max: 120 }), fc.boolean()], { numRuns: 200 })(
    "the median and IQR / 1.349 of the finite values before each point (the window's start when it is left out), as computed directly (property)",
    (list, dRaw, leftOut) => {
      const d = Math.min(dRaw, list.length);
      const centre = new Float64Array(d);
      const scale = new Float64Array(d);
      rangeOpinion(Float64Array.from(list), d, leftOut, centre, scale);
      const start = list.length - d;
      for (let j = 0; j < d; j++) {
        const expected = direct(list.slice(0, leftOut ? start : start + j));
        if (Number.isNaN(expected.centre)) expect(centre[j]).toBeNaN();
        else expect(centre[j]).toBeCloseTo(expected.centre, 9);
        if (Number.isNaN(expected.scale)) expect(scale[j]).toBeNaN();
        else expect(scale[j]).toBeCloseTo(expected.scale, 9);
      }
    },
  );

  it("does not speak with fewer than 20 values before a point, nor on a stream that is mostly one value", () => {
    const centre = new Float64Array(1);
    const scale = new Float64Array(1);
    rangeOpinion(Float64Array.from({ length: 20 }, (_, t) => t), 1, true, centre, scale);
    expect(scale[0]).toBeNaN();
    rangeOpinion(Float64Array.from({ length: 100 }, (_, t) => (t % 10 === 0 ? 5 : 1)), 1, true, centre, scale);
    expect(centre[0]).toBe(1);
    expect(scale[0]).toBeNaN();
  });
});

describe("the range judge in the scores", () => {
  /** A forecaster that says ±1 at the 68 % level (the score is y − ŷ). */
  const unitSpread = (n: number) => {
    const knots = spreadKnots(SPREAD_LEVELS);
    return Float64Array.from({ length: n * SPREAD_LEVELS.length }, (_, i) => knots[i % SPREAD_LEVELS.length]!);
  };
  const scores = (y: Float64Array, forecast: Float64Array, d: number, level: number, ranged: boolean) => {
    const out = { z: new Float64Array(d), lo: new Float64Array(d), hi: new Float64Array(d) };
    const w = unitSpread(y.length);
    seriesCalibratedScores(y, forecast, w, w, SPREAD_LEVELS, d, level, out, undefined, undefined, undefined, ranged ? y : undefined);
    return out;
  };

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 48 }), fc.constantFrom(80, 95, 99, 99.9, 99.99), fc.double({ min: 0.05, max: 5, noNaN: true })], { numRuns: 60 })(
    "|score| at least the forecast judges'; flags exactly 'outside the interval'; the interval inside theirs and holding the forecast (property)",
    (seed, d, L, rangeWidth) => {
      const rng = seedrandom(String(seed));
      const n = 200 + d;
      // a forecaster that is off by a noise of sd 1 around a series whose own range is rangeWidth wide
      const forecast = Float64Array.from({ length: n }, () => rangeWidth * (rng() - 0.5));
      const y = Float64Array.from(forecast, (f) => f + (rng() - 0.5) * 4 + (rng() < 0.05 ? 30 * (rng() - 0.5) : 0));
      const plain = scores(y, forecast, d, L, false);
      const ranged = scores(y, forecast, d, L, true);
      const q = gaussianMultiplier(L);
      for (let j = 0; j < d; j++) {
        const t = n - d + j;
        expect(Math.abs(ranged.z[j]!)).toBeGreaterThanOrEqual(Math.abs(plain.z[j]!));
        expect(ranged.lo[j]!).toBeGreaterThanOrEqual(plain.lo[j]!);
        expect(ranged.hi[j]!).toBeLessThanOrEqual(plain.hi[j]!);
        expect(ranged.lo[j]!).toBeLessThanOrEqual(forecast[t]!);
        expect(ranged.hi[j]!).toBeGreaterThanOrEqual(forecast[t]!);
        expect(Math.abs(ranged.z[j]!) > q).toBe(y[t]! < ranged.lo[j]! || y[t]! > ranged.hi[j]!);
      }
    },
  );

  it("sub-daily data is judged by range too, daily data not: on a stream with no season (no seasonal judge), each 30-minute score is rangeBoost of the daily one", () => {
    const rng = seedrandom("range");
    const n = 300;
    const d = 24;
    const y = Array.from({ length: n }, () => 100 + 6 * (rng() - 0.5));
    y[n - 3] = 140; // far outside the stream's range
    y[n - 10] = 96; // inside it, though the last-value forecaster may be surprised
    const lastValue = fixedModelSource(seasonalNaiveForecaster(1));
    const request = (freq: string) => anomalyRequestForTest(packForTest([y]), { freq: freq as never, h: 1, stepSize: 1, detectionSize: d, level: 99 });
    const daily = detectAnomalies(request("D"), lastValue);
    const halfHourly = detectAnomalies(request("30min"), lastValue);
    const centre = new Float64Array(d);
    const scale = new Float64Array(d);
    rangeOpinion(Float64Array.from(y), d, true, centre, scale);
    let raised = 0;
    for (let j = 0; j < d; j++) {
      const t = n - d + j;
      const expected = Math.max(-10, Math.min(10, rangeBoost(daily.anomalyScore[j]!, (y[t]! - centre[j]!) / scale[j]!)));
      expect(halfHourly.anomalyScore[j]).toBe(expected);
      if (expected !== daily.anomalyScore[j]) raised++;
    }
    expect(raised).toBeGreaterThan(0);
    expect(halfHourly.anomaly[d - 3]).toBe(1);
});
});
