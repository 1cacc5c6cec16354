import fc from "fast-check";
import seedrandom from "seedrandom";
import { describe, expect, test } from "vitest";
import {
  calibratedIntervals,
  calibratedZ,
  calibratedZOfRank,
  collectCalibrationScores,
  conformalMultiplier,
  gaussianMultiplier,
  SPREAD_SCORE_CAP,
  SPREAD_TRIM,
  spreadHalfWidth,
  spreadKnots,
  spreadScaleRatio,
  spreadScore,
  withSpread,
} from "../../src/intervals/index.js";
import { seasonalNaiveForecaster } from "../../src/cv/index.js";
import { SPREAD_LEVELS } from "../../src/model/index.js";
import { normalQuantile } from "../../src/stats/index.js";
import { gaussian } from "../../tools/datasets/monitoring-data.js";

const G = SPREAD_LEVELS.length;
const knots = spreadKnots(SPREAD_LEVELS);

/** Non-decreasing positive half-widths of one point. */
const widthsArb = fc
  .array(fc.double({ min: 1e-6, max: 1e3, noNaN: true }), { minLength: G, maxLength: G })
  .map((steps) => {
    let sum = 0;
    return Float64Array.from(steps, (s) => (sum += s));
  });
const levelArb = fc.double({ min: 0, max: 99.99, noNaN: true });
const sortedScoresArb = fc
  .array(fc.double({ min: 0, max: 50, noNaN: true }), { maxLength: 80 })
  .map((a) => Float64Array.from(a).sort());

describe("spread scores and half-widths", () => {
  test("the score inverts the half-width function on each side (property)", () => {
    fc.assert(
      fc.property(widthsArb, widthsArb, fc.double({ min: 0, max: 30, noNaN: true }), fc.boolean(), (below, above, m, up) => {
        const width = spreadHalfWidth(up ? above : below, 0, knots, m);
        const y = up ? 100 + width : 100 - width;
        const u = spreadScore(y, 100, below, above, 0, knots);
        if (width > 1e-9) {
          expect(Math.abs(Math.abs(u) - m)).toBeLessThanOrEqual(1e-6 * Math.max(1, m));
          expect(Math.sign(u)).toBe(up ? 1 : -1);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("half-widths grow with the multiplier and go through the knots", () => {
    const w = Float64Array.from({ length: G }, (_, j) => j + 1);
    for (let j = 0; j < G; j++) expect(spreadHalfWidth(w, 0, knots, knots[j]!)).toBeCloseTo(j + 1, 12);
    expect(spreadHalfWidth(w, 0, knots, 0)).toBe(0);
    expect(spreadHalfWidth(w, 0, knots, 2 * knots[G - 1]!)).toBeCloseTo(2 * G, 12);
    let previous = -1;
    for (let m = 0; m < 10; m += 0.01) {
      const v = spreadHalfWidth(w, 0, knots, m);
      expect(v).toBeGreaterThanOrEqual(previous);
      previous = v;
    }
  });

  test("a certain forecast scores 0 when met, the cap when missed; scores stay finite for extreme values", () => {
    const zero = new Float64Array(G);
    expect(spreadScore(5, 5, zero, zero, 0, knots)).toBe(0);
    expect(spreadScore(6, 5, zero, zero, 0, knots)).toBe(SPREAD_SCORE_CAP);
    expect(spreadScore(4, 5, zero, zero, 0, knots)).toBe(-SPREAD_SCORE_CAP);
    const tiny = new Float64Array(G).fill(5e-324);
    for (const [y, m] of [[1.7e308, -1.7e308], [5e-324, 0], [-1e300, 1e300]] as const) {
      expect(Number.isFinite(spreadScore(y, m, tiny, tiny, 0, knots))).toBe(true);
    }
  });
});

describe("conformalMultiplier and calibratedZ", () => {
  test("the multiplier never decreases with the level, and n = 0 gives the forecaster's own quantile (property)", () => {
    fc.assert(
      fc.property(sortedScoresArb, levelArb, levelArb, (s, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(conformalMultiplier(s, 0, s.length, high)).toBeGreaterThanOrEqual(conformalMultiplier(s, 0, s.length, low));
        expect(conformalMultiplier(s, 0, 0, low)).toBe(gaussianMultiplier(low));
      }),
      { numRuns: 300 },
    );
  });

  test("resolved levels take the ⌊(n + 1)·L/100⌋ + 1-th smallest score (known values)", () => {
    const s = Float64Array.from({ length: 99 }, (_, i) => i + 1);
    expect(conformalMultiplier(s, 0, 99, 50)).toBe(51);
    expect(conformalMultiplier(s, 0, 99, 90)).toBe(91);
    expect(conformalMultiplier(s, 0, 99, 96.9)).toBe(97); // k = 97 = n − 2
    // k = 98 > n − 2: the rescaled quantile, never below the highest resolved score
    expect(conformalMultiplier(s, 0, 99, 97)).toBeGreaterThanOrEqual(97);
    expect(SPREAD_TRIM).toBe(2);
  });

  test("|z| > Φ⁻¹(0.5 + L/200) exactly when |u| exceeds the level's multiplier (property)", () => {
    fc.assert(
      fc.property(sortedScoresArb, fc.double({ min: -60, max: 60, noNaN: true }), levelArb, (s, u, level) => {
        const z = calibratedZ(u, s, 0, s.length);
        const m = conformalMultiplier(s, 0, s.length, level);
        const q = gaussianMultiplier(level);
        // away from rounding at the boundaries
        if (Math.abs(Math.abs(u) - m) > 1e-9 * Math.max(1, m) && Math.abs(Math.abs(z) - q) > 1e-9) {
          expect(Math.abs(z) > q).toBe(Math.abs(u) > m);
        }
        if (z !== 0) expect(Math.sign(z)).toBe(Math.sign(u));
      }),
      { numRuns: 500 },
    );
  });

  test("z is non-decreasing in |u| (ranks are kept)", () => {
    const random = seedrandom("z-monotone");
    const s = Float64Array.from({ length: 40 }, () => Math.abs(random() * 3)).sort();
    let previous = -Infinity;
    for (let v = 0; v < 20; v += 0.01) {
      const z = calibratedZ(v, s, 0, 40);
      expect(z).toBeGreaterThanOrEqual(previous);
      previous = z;
    }
  });

  test("finite-sample coverage on exchangeable scores: a new point falls inside level L at least L % of the time (Monte Carlo)", () => {
    const random = seedrandom("conformal-coverage");
    const gauss = (): number => gaussian(random);
    for (const [n, level] of [[30, 80], [60, 95], [20, 50]] as const) {
      let inside = 0;
      const runs = 4000;
      for (let run = 0; run < runs; run++) {
        // a forecaster twice too confident: scores are |2·N(0, 1)|
        const s = Float64Array.from({ length: n }, () => Math.abs(2 * gauss())).sort();
        if (Math.abs(2 * gauss()) <= conformalMultiplier(s, 0, n, level)) inside++;
      }
      // the guarantee is ≥ L; allow 3 Monte Carlo standard errors
      const se = Math.sqrt((level / 100) * (1 - level / 100) / runs);
      expect(inside / runs).toBeGreaterThanOrEqual(level / 100 - 3 * se);
      expect(inside / runs).toBeLessThanOrEqual(level / 100 + 0.06);
    }
  });

  test("the scale ratio follows the scores and is shrunk towards 1", () => {
    expect(spreadScaleRatio(new Float64Array(0), 0, 0)).toBe(1);
    const wide = Float64Array.from({ length: 100 }, (_, i) => 2 * normalQuantile(0.5 + (i + 1) / 202));
    const c = spreadScaleRatio(wide, 0, 100);
    expect(c).toBeGreaterThan(1.6);
    expect(c).toBeLessThan(2);
  });
});

describe("calibratedZOfRank", () => {
  test("given the count of scores below |u|, is calibratedZ bit for bit (every n up to 450, past the kept rank quantiles)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 450 }), fc.integer({ min: 0, max: 3 }), fc.double({ min: -12, max: 12, noNaN: true }), fc.integer(), (n, from, u, seed) => {
        const random = seedrandom(String(seed));
        const sorted = Float64Array.from({ length: from + n }, () => 4 * random() ** 2);
        sorted.subarray(from).sort();
        let below = 0;
        while (below < n && sorted[from + below]! < Math.abs(u)) below++;
        expect(Object.is(calibratedZOfRank(u, below, sorted, from, n), calibratedZ(u, sorted, from, n))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("calibratedIntervals and withSpread", () => {
  test("intervals nest, contain the centre, and keys keep the given order (property)", () => {
    fc.assert(
      fc.property(widthsArb, widthsArb, sortedScoresArb, fc.uniqueArray(levelArb, { minLength: 1, maxLength: 4 }), (below, above, s, levels) => {
        const dist = { levels: SPREAD_LEVELS, mean: Float64Array.of(7), below, above };
        const calibration = { scores: s, offsets: Int32Array.of(0, s.length) };
        const iv = calibratedIntervals(dist, Int32Array.of(0), calibration, levels);
        expect(Object.keys(iv)).toEqual(levels.flatMap((l) => [`lo-${l}`, `hi-${l}`]));
        const sorted = [...levels].sort((a, b) => a - b);
        for (let i = 0; i < sorted.length; i++) {
          const lo = iv[`lo-${sorted[i]}`]![0]!;
          const hi = iv[`hi-${sorted[i]}`]![0]!;
          expect(lo).toBeLessThanOrEqual(7);
          expect(hi).toBeGreaterThanOrEqual(7);
          if (i > 0) {
            expect(lo).toBeLessThanOrEqual(iv[`lo-${sorted[i - 1]}`]![0]!);
            expect(hi).toBeGreaterThanOrEqual(iv[`hi-${sorted[i - 1]}`]![0]!);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  test("collectCalibrationScores sorts each series' scores and leaves certain points out", () => {
    const w = Float64Array.from(knots);
    const zero = new Float64Array(G);
    const c = collectCalibrationScores(2, SPREAD_LEVELS, (i, add) => {
      if (i === 0) {
        add(3, 0, w, w, 0);
        add(-1, 0, w, w, 0);
        add(9, 9, zero, zero, 0);
      } else add(2, 0, w, w, 0);
    });
    expect(Array.from(c.offsets)).toEqual([0, 2, 3]);
    expect(Array.from(c.scores).map((v) => Number(v.toFixed(12)))).toEqual([1, 3, 2]);
  });

  test("withSpread gives a forecaster without spread the random-walk spread q·σ₁·√k", () => {
    const f = withSpread(seasonalNaiveForecaster(1));
    const context = Float64Array.from([1, 3, 2, 5, 4]);
    const d = f.forecastDistribution!([context], 4);
    const diffs = [2, -1, 3, -1];
    const mean = diffs.reduce((a, b) => a + b) / 4;
    const sigma = Math.sqrt(diffs.reduce((a, b) => a + (b - mean) ** 2, 0) / 3);
    for (let k = 0; k < 4; k++) {
      for (let j = 0; j < G; j++) expect(d.above[k * G + j]).toBeCloseTo(knots[j]! * sigma * Math.sqrt(k + 1), 12);
    }
    expect(Array.from(d.below)).toEqual(Array.from(d.above));
    // a forecaster with its own spread is returned as it is
    expect(withSpread(f)).toBe(f);
  });
});
