import fc from "fast-check";
import { describe, expect, test } from "vitest";
import seedrandom from "seedrandom";
import {
  multivariateAccumulatedScores,
  multivariateThreshold,
  seriesCalibratedScores,
  univariateAnomalyFlags,
} from "../../src/anomaly/index.js";
import { calibratedZ, conformalMultiplier, gaussianMultiplier, SPREAD_SCORE_CAP, spreadKnots, spreadScaleRatio } from "../../src/intervals/index.js";
import { SPREAD_LEVELS } from "../../src/model/index.js";
import { normalQuantile } from "../../src/stats/index.js";
import { gaussian } from "../../tools/datasets/monitoring-data.js";

const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true });
const moderate = fc.double({ min: -1e3, max: 1e3, noNaN: true });
const level = fc.double({ min: 0, max: 99.999, noNaN: true });

/** A spread whose half-widths are the grid's normal multipliers times `unit`: the score is (y − ŷ)/unit. */
function unitSpread(n: number, unit: number): Float64Array {
  const knots = spreadKnots(SPREAD_LEVELS);
  return Float64Array.from({ length: n * SPREAD_LEVELS.length }, (_, i) => knots[i % SPREAD_LEVELS.length]! * unit);
}

function scoresOf(y: ArrayLike<number>, forecast: ArrayLike<number>, d: number, level: number, widths = unitSpread(y.length, 1)) {
  const out = { z: new Float64Array(d), lo: new Float64Array(d), hi: new Float64Array(d) };
  const summary = seriesCalibratedScores(y, forecast, widths, widths, SPREAD_LEVELS, d, level, out);
  return { ...out, ...summary };
}

describe("seriesCalibratedScores", () => {
  test("calibration leaves the detection window out when at least 6·detectionSize forecast points lie before it", () => {
    // 13 forecast points: 12 before the window (= 6·2), 2 in it; scores = |y − 0| / 1.
    const y = Float64Array.from([0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 50, -3.5]);
    const forecast = Float64Array.from(y, (_, t) => (t === 0 ? NaN : 0));
    const r = scoresOf(y, forecast, 2, 90);
    expect(r.calibrationPoints).toBe(12);
    // 6 of the 12 calibration scores (1, 1, 2, 2, 3, 3, …) lie below 3.5: level 6/13
    expect(r.z[1]).toBeCloseTo(-normalQuantile(0.5 + 6 / 26), 12);
    // 50 lies beyond the resolved scores: z is the inverse of the multiplier's tail
    const calibration = Float64Array.from([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    expect(r.z[0]!).toBeCloseTo(calibratedZ(50, calibration, 0, 12), 12);
    expect(r.z[0]!).toBeGreaterThan(normalQuantile(0.5 + 10 / 26));
    expect(spreadScaleRatio(calibration, 0, 12)).toBeGreaterThan(1);
    // level 50: k = ⌊13 · 0.5⌋ + 1 = 7 ≤ 12 − 2, the 7th smallest score (4)
    const half = scoresOf(y, forecast, 2, 50);
    expect(half.multiplier).toBe(4);
    expect(half.hi[0]).toBeCloseTo(4, 12);
    expect(half.lo[1]).toBeCloseTo(-4, 12);
  });

  test("a point the seasonal judges put beyond |z| 4 (history) is left out of later calibrations, though the network's own z is moderate", () => {
    // the network's scores are a spread of ±1 around 0 (|u| up to 1); point 30 scores 0.9: moderate for the network
    const n = 60;
    const y = Float64Array.from({ length: n }, (_, t) => (((t * 7919) % 23) / 11.5 - 1) * 0.95);
    y[30] = 0.9;
    const forecast = Float64Array.from(y, (_, t) => (t < 2 ? NaN : 0));
    const widths = unitSpread(n, 1);
    const run = (history?: { centre: Float64Array; sd: Float64Array; second: { centre: Float64Array; sd: Float64Array } }) => {
      const out = { z: new Float64Array(1), lo: new Float64Array(1), hi: new Float64Array(1), pointZ: new Float64Array(n), extreme: new Uint8Array(n) };
      seriesCalibratedScores(y, forecast, widths, widths, SPREAD_LEVELS, 1, 99, out, undefined, undefined, history);
      return out;
    };
    const alone = run();
    expect(Math.abs(alone.pointZ[30]!)).toBeLessThan(4);
    expect(alone.extreme[30]).toBe(0);
    // the daily and weekly judges both see point 30 at z = 90 (σ 0.01 around 0); elsewhere they do not speak
    const sd = new Float64Array(n).fill(Number.NaN);
    sd[30] = 0.01;
    const judged = run({ centre: new Float64Array(n), sd, second: { centre: new Float64Array(n), sd: sd.slice() } });
    expect(judged.extreme[30]).toBe(1);
    expect(Array.from(judged.extreme).reduce((a, b) => a + b, 0)).toBe(1);
    // the network's own z is what pointZ keeps, and points before 30 are calibrated as without the judges
    expect(judged.pointZ[30]).toBe(alone.pointZ[30]);
    expect(Array.from(judged.pointZ.subarray(0, 31))).toEqual(Array.from(alone.pointZ.subarray(0, 31)));
    // history must cover every point of y
    expect(() => run({ centre: new Float64Array(n - 1), sd: sd.subarray(1), second: { centre: new Float64Array(n), sd } })).toThrow(/history/);
  });

  test("calibration uses every forecast point when fewer than 6·detectionSize lie before the window", () => {
    const y = Float64Array.from([0, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, 50, -50]);
    const forecast = Float64Array.from(y, (_, t) => (t === 0 ? NaN : 0));
    expect(scoresOf(y, forecast, 2, 99).calibrationPoints).toBe(13);
  });

  test("a certain forecast (zero spread) is left out of calibration; met exactly it scores 0, missed it is far outside", () => {
    const y = [5, 5, 5, 5, 5, 9];
    const f = [NaN, 5, 5, 5, 5, 5];
    const r = scoresOf(y, f, 2, 99, new Float64Array(6 * SPREAD_LEVELS.length));
    expect(r.calibrationPoints).toBe(0);
    expect(r.z[0]).toBe(0);
    expect(r.z[1]).toBe(SPREAD_SCORE_CAP);
    expect([r.lo[1], r.hi[1]]).toEqual([5, 5]);
    // rounding noise around a constant is not an error
    const noisy = scoresOf([1e6, 1e6, 1e6 + 1e-9], [NaN, 1e6, 1e6], 1, 99, new Float64Array(3 * SPREAD_LEVELS.length));
    expect(noisy.z[0]).toBe(0);
  });

  test("no NaN or Infinity for huge, tiny and mixed finite values", () => {
    for (const [y, f] of [
      [[1e308, -1e308, 1e308, -1.7e308], [NaN, 1.7e308, -1.7e308, 1e308]],
      [[5e-324, 0, 5e-324, 1e-320], [NaN, 0, 0, 0]],
      [[0, 0, 0, 0], [NaN, 0, 0, 0]],
    ] as const) {
      for (const unit of [1e300, 1, 1e-300, 5e-324]) {
        const r = scoresOf(y, f, 2, 99, unitSpread(4, unit));
        for (const v of [...r.z, ...r.lo, ...r.hi]) expect(Number.isFinite(v)).toBe(true);
      }
    }
  });

  test("flags (|z| > q) are exactly the points outside the interval; lo ≤ ŷ ≤ hi; z has the sign of y − ŷ (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(moderate, moderate), { minLength: 2, maxLength: 60 }),
        fc.integer({ min: 1, max: 10 }),
        level,
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        (rows, d, lv, unit) => {
          fc.pre(d <= rows.length);
          const y = rows.map((r) => r[0]);
          const f = rows.map((r) => r[1]);
          const r = scoresOf(y, f, d, lv, unitSpread(rows.length, unit));
          const flags = univariateAnomalyFlags(r.z, lv);
          for (let j = 0; j < d; j++) {
            const t = rows.length - d + j;
            expect(r.lo[j]!).toBeLessThanOrEqual(f[t]!);
            expect(r.hi[j]!).toBeGreaterThanOrEqual(f[t]!);
            const outside = y[t]! < r.lo[j]! || y[t]! > r.hi[j]!;
            // away from the boundary (rounding), the flag and "outside" agree
            const margin = 1e-9 * Math.max(1, Math.abs(r.hi[j]! - f[t]!), Math.abs(y[t]! - f[t]!));
            const q = gaussianMultiplier(lv);
            const clear = Math.abs(y[t]! - r.lo[j]!) > margin && Math.abs(y[t]! - r.hi[j]!) > margin && Math.abs(Math.abs(r.z[j]!) - q) > 1e-9;
            if (clear) expect(flags[j] === 1).toBe(outside);
            if (r.z[j] !== 0) expect(Math.sign(r.z[j]!)).toBe(Math.sign(y[t]! - f[t]!));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test("on exchangeable scores, level L flags at most about (100 − L) % of points (Monte Carlo, seeded)", () => {
    const random = seedrandom("calibrated-flags");
    const gauss = (): number => gaussian(random);
    for (const lv of [80, 95, 99]) {
      let flagged = 0;
      let total = 0;
      for (let run = 0; run < 400; run++) {
        // heavy-tailed errors (Student t, 3 df) against a forecaster that believes in a unit normal law
        const n = 120;
        const y = Float64Array.from({ length: n }, () => {
          const g = gauss();
          const chi = gauss() ** 2 + gauss() ** 2 + gauss() ** 2;
          return (2 * g) / Math.sqrt(chi / 3);
        });
        const r = scoresOf(y, new Float64Array(n), 20, lv);
        for (const flag of univariateAnomalyFlags(r.z, lv)) flagged += flag;
        total += 20;
      }
      // 80 and 95 are resolved by the 120 scores (finite-sample guarantee, up to Monte Carlo noise);
      // 99 is not: the rescaled normal quantile then meets Student-t tails, a bounded excess
      expect(flagged / total).toBeLessThanOrEqual(lv === 99 ? 0.02 : (1 - lv / 100) * 1.1 + 0.003);
    }
  });

  test("sliding: every detection point is calibrated on the last C kept scores before the window, never on the window's own (the seed's rule)", () => {
    // d = 2, so C = 12; 30 forecast points before the window: sliding mode
    const y = Float64Array.from({ length: 33 }, (_, t) => (t === 0 ? 0 : ((t * 37) % 11) - 5 + (t % 2) * 0.25));
    const forecast = Float64Array.from(y, (_, t) => (t === 0 ? NaN : 0));
    const r = scoresOf(y, forecast, 2, 90);
    expect(r.sliding).toBe(true);
    expect(r.calibrationPoints).toBe(12);
    const last = (end: number) => Float64Array.from(Array.from(y.subarray(end - 12, end), Math.abs)).sort();
    expect(r.z[0]).toBe(calibratedZ(y[31]!, last(31), 0, 12));
    expect(r.z[1]).toBe(calibratedZ(y[32]!, last(31), 0, 12));
    expect(r.multiplier).toBe(conformalMultiplier(last(31), 0, 12, 90));
  });

  test("sliding: changing y inside the window changes no other window point's z or interval (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 120, maxLength: 160 }), fc.integer({ min: 2, max: 12 }), fc.nat(), fc.double({ min: -1e3, max: 1e3, noNaN: true }), (noise, d, at, value) => {
        const n = noise.length;
        const y = Float64Array.from(noise);
        const forecast = new Float64Array(n);
        forecast[0] = NaN;
        const before = scoresOf(y, forecast, d, 99);
        const j = at % d;
        y[n - d + j] = value;
        const after = scoresOf(y, forecast, d, 99);
        for (let k = 0; k < d; k++) {
          if (k === j) continue;
          expect(after.z[k]).toBe(before.z[k]);
          expect(after.lo[k]).toBe(before.lo[k]);
          expect(after.hi[k]).toBe(before.hi[k]);
        }
      }),
      { numRuns: 60 },
    );
  });

  test("sliding: the scale follows the series' recent behaviour", () => {
    // errors of ±10 for a long stretch, then ±1 for the last 150 points; a 6 lies far outside the recent scale
    const n = 600;
    const y = Float64Array.from({ length: n }, (_, t) => (t < n - 150 ? 10 : 1) * (t % 2 === 0 ? 1 : -1) * (0.5 + ((t * 7) % 5) / 10));
    y[n - 1] = 6;
    const forecast = Float64Array.from(y, (_, t) => (t === 0 ? NaN : 0));
    const r = scoresOf(y, forecast, 10, 99);
    expect(r.sliding).toBe(true);
    expect(Math.abs(r.z[9]!)).toBeGreaterThan(gaussianMultiplier(99));
    expect(r.hi[9]!).toBeLessThan(6);
  });

  test("a window longer than the points before it slides through itself: a quiet stretch is judged by its own recent scale", () => {
    // 40 forecast points before a window of 800: errors of ±10 for the window's first 300 points, then ±1; a 6 near the
    // end lies far outside the recent scale (one static set of 840 scores, 340 of them ±10, would hide it)
    const n = 841;
    const y = Float64Array.from({ length: n }, (_, t) => (t < 341 ? 10 : 1) * (t % 2 === 0 ? 1 : -1) * (0.5 + ((t * 7) % 5) / 10));
    y[n - 5] = 6;
    const forecast = Float64Array.from(y, (_, t) => (t === 0 ? NaN : 0));
    const r = scoresOf(y, forecast, 800, 99);
    expect(r.sliding).toBe(true);
    expect(r.calibrationPoints).toBe(40);
    expect(Math.abs(r.z[795]!)).toBeGreaterThan(gaussianMultiplier(99));
    expect(r.hi[795]!).toBeLessThan(6);
    // the ±10 stretch itself is not flagged wholesale: at most a few of its points lie outside
    let flagged = 0;
    for (let j = 0; j < 300; j++) flagged += Math.abs(r.z[j]!) > gaussianMultiplier(99) ? 1 : 0;
    expect(flagged).toBeLessThan(30);
    // with fewer than 20 scores before it, a long window keeps the static rule
    const short = scoresOf(y.subarray(n - 819), forecast.subarray(n - 819), 800, 99);
    expect(short.sliding).toBe(false);
  });

  test("sliding: anomalies among the calibration points are left out, as if they had no forecast (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 200, maxLength: 260 }),
        fc.uniqueArray(fc.integer({ min: 40, max: 150 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 20 }),
        (noise, spikes, d) => {
          const n = noise.length;
          const y = Float64Array.from(noise);
          const forecast = new Float64Array(n);
          forecast[0] = NaN;
          const without = forecast.slice();
          for (const t of spikes) {
            y[t] = 1e6;
            without[t] = NaN;
          }
          const a = scoresOf(y, forecast, d, 99);
          const b = scoresOf(y, without, d, 99);
          fc.pre(a.sliding);
          expect(Array.from(a.z)).toEqual(Array.from(b.z));
          expect(Array.from(a.hi)).toEqual(Array.from(b.hi));
          expect(a.calibrationPoints).toBe(b.calibrationPoints);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("sliding: on exchangeable scores, level L flags about (100 − L) % of points (Monte Carlo, seeded)", () => {
    const random = seedrandom("sliding-flags");
    const gauss = (): number => gaussian(random);
    const rates: number[] = [];
    for (const lv of [80, 95, 99]) {
      let flagged = 0;
      let total = 0;
      for (let run = 0; run < 100; run++) {
        const n = 600;
        const y = Float64Array.from({ length: n }, () => 2 * gauss());
        const r = scoresOf(y, new Float64Array(n), 100, lv); // C = 336
        expect(r.sliding).toBe(true);
        for (const flag of univariateAnomalyFlags(r.z, lv)) flagged += flag;
        total += 100;
      }
      rates.push(flagged / total);
    }
    expect(rates[0]!).toBeGreaterThan(0.17);
    expect(rates[0]!).toBeLessThan(0.23);
    expect(rates[1]!).toBeGreaterThan(0.035);
    expect(rates[1]!).toBeLessThan(0.065);
    expect(rates[2]!).toBeGreaterThan(0.004);
    expect(rates[2]!).toBeLessThan(0.02);
  });

  test("pointZ: every scored point's own z, the detection points' equal to out.z (property)", () => {
    fc.assert(
      fc.property(fc.array(moderate, { minLength: 2, maxLength: 400 }), fc.integer({ min: 1, max: 30 }), (values, d) => {
        fc.pre(d < values.length); // point 0 has no forecast
        const n = values.length;
        const out = { z: new Float64Array(d), lo: new Float64Array(d), hi: new Float64Array(d), pointZ: new Float64Array(n).fill(7) };
        const forecast = new Float64Array(n);
        forecast[0] = NaN;
        const summary = seriesCalibratedScores(values, forecast, unitSpread(n, 1), unitSpread(n, 1), SPREAD_LEVELS, d, 99, out);
        expect(out.pointZ[0]).toBeNaN(); // no forecast
        for (let j = 0; j < d; j++) expect(out.pointZ[n - d + j]).toBe(out.z[j]);
        // static mode scores the detection points only; sliding mode also the earlier points once 20 (or C/2) scores precede them
        if (!summary.sliding) for (let t = 0; t < n - d; t++) expect(out.pointZ[t]).toBeNaN();
        else expect(out.pointZ.subarray(0, n - d).some((v) => !Number.isNaN(v))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  test("rejects a detection point without forecast and bad sizes", () => {
    const out = { z: new Float64Array(2), lo: new Float64Array(2), hi: new Float64Array(2) };
    const w = unitSpread(3, 1);
    expect(() => seriesCalibratedScores([1, 2, 3], [NaN, NaN, 1], w, w, SPREAD_LEVELS, 2, 99, out)).toThrow(/no forecast/);
    expect(() => seriesCalibratedScores([1, 2, 3], [1, 1, 1], w, w, SPREAD_LEVELS, 4, 99, out)).toThrow(RangeError);
    expect(() => seriesCalibratedScores([1, 2, 3], [1, 1], w, w, SPREAD_LEVELS, 1, 99, out)).toThrow(RangeError);
    expect(() => seriesCalibratedScores([1, 2, 3], [1, 1, 1], w.subarray(1), w, SPREAD_LEVELS, 1, 99, out)).toThrow(/below and above/);
    expect(() => seriesCalibratedScores([1, 2, 3], [1, 1, 1], w, w, SPREAD_LEVELS, 3, 99, out)).toThrow(/out.z/);
  });
});

describe("univariateAnomalyFlags", () => {
  test("flags a point iff |z| exceeds the level quantile (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { maxLength: 30 }), level, (z, lv) => {
        const flags = univariateAnomalyFlags(z, lv);
        const q = gaussianMultiplier(lv);
        z.forEach((v, r) => expect(flags[r] === 1).toBe(Math.abs(v) > q));
      }),
      { numRuns: 200 },
    );
  });

  test("raising the level never adds a flag (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { maxLength: 30 }), level, level, (z, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const lowFlags = univariateAnomalyFlags(z, low);
        const highFlags = univariateAnomalyFlags(z, high);
        highFlags.forEach((f, r) => expect(f).toBeLessThanOrEqual(lowFlags[r]!));
      }),
      { numRuns: 200 },
    );
  });

  test("known values at level 99 (q = 2.5758…)", () => {
    expect(Array.from(univariateAnomalyFlags([0.5, -3, 2.6, 2.5, 0], 99))).toEqual([0, 1, 1, 0, 0]);
    expect(Array.from(univariateAnomalyFlags([0, 1e-9], 0))).toEqual([0, 1]);
  });
});

describe("multivariate scores", () => {
  test("accumulated score is Σ z² per step", () => {
    expect(Array.from(multivariateAccumulatedScores([1, 2, 3, 4], 2, 2))).toEqual([10, 20]);
    expect(Array.from(multivariateAccumulatedScores([-3], 1, 1))).toEqual([9]);
    expect(multivariateAccumulatedScores([], 3, 0).length).toBe(0);
  });

  test("does not depend on the order of the series, to the bit (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 30, maxLength: 30 }),
        fc.nat(),
        (series, steps, pool, seed) => {
          const z = pool.slice(0, series * steps);
          fc.pre(z.length === series * steps);
          const order = Array.from({ length: series }, (_, i) => i).sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13));
          const permuted = order.flatMap((i) => z.slice(i * steps, i * steps + steps));
          const a = multivariateAccumulatedScores(z, series, steps);
          const b = multivariateAccumulatedScores(permuted, series, steps);
          expect(Array.from(b)).toEqual(Array.from(a));
          for (let t = 0; t < steps; t++) {
            let sum = 0;
            for (let i = 0; i < series; i++) sum += z[i * steps + t]! ** 2;
            expect(a[t]).toBeCloseTo(sum, 6);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  test("threshold never decreases as the level rises (property)", () => {
    fc.assert(
      fc.property(level, level, fc.integer({ min: 1, max: 6 }), (a, b, n) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(multivariateThreshold(low, n)).toBeLessThanOrEqual(multivariateThreshold(high, n));
      }),
      { numRuns: 300 },
    );
  });

  test("threshold is the chi-square quantile with one degree of freedom per series (R qchisq)", () => {
    expect(multivariateThreshold(99, 2)).toBeCloseTo(9.21034037197618, 10); // qchisq(0.99, 2)
    expect(multivariateThreshold(99, 3)).toBeCloseTo(11.34486673014437, 9); // qchisq(0.99, 3)
    // one series: the χ²(1) quantile is the squared two-sided normal quantile
    expect(multivariateThreshold(95, 1)).toBeCloseTo(3.841458820694124, 12); // qchisq(0.95, 1)
    expect(multivariateThreshold(99, 1)).toBeCloseTo(6.634896601021214, 12); // qchisq(0.99, 1)
    expect(multivariateThreshold(99.9, 2)).toBeCloseTo(13.81551055796427, 11); // qchisq(0.999, 2)
    expect(multivariateThreshold(0, 3)).toBe(0);
    expect(() => multivariateThreshold(99, 0)).toThrow(RangeError);
    expect(() => multivariateThreshold(100, 2)).toThrow(RangeError);
    expect(() => multivariateAccumulatedScores([1, 2, 3], 2, 2)).toThrow(RangeError);
  });
});
