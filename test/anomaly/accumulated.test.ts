import { describe, expect } from "vitest";
import { fc, test } from "@fast-check/vitest";
import seedrandom from "seedrandom";
import { ANOMALY_CUSUM_ALLOWANCE, accumulatedAnomalyScores, cusumEquivalentZ, cusumRunLength, scoreCorrelation } from "../../src/anomaly/index.js";
import { gaussianMultiplier } from "../../src/intervals/index.js";
import { gaussian } from "../../tools/datasets/monitoring-data.js";

function gaussians(seed: string, n: number): Float64Array {
  const random = seedrandom(seed);
  return Float64Array.from({ length: n }, () => gaussian(random));
}

function alarmRate(z: Float64Array, level: number, rho = 0): number {
  const out = new Float64Array(z.length);
  accumulatedAnomalyScores(z, level, out, rho);
  const q2 = gaussianMultiplier(level) ** 2;
  let alarms = 0;
  for (const a of out) alarms += a > q2 ? 1 : 0;
  return alarms / z.length;
}

const zScore = fc.oneof(fc.double({ min: -8, max: 8, noNaN: true }), fc.constant(Number.NaN));

describe("cusumRunLength and cusumEquivalentZ", () => {
  test("Siegmund's run length matches a simulated one-sided CUSUM (h = 4, k = 0.5: about 336, Montgomery)", () => {
    const z = gaussians("cusum-arl", 2_000_000);
    let s = 0;
    let start = 0;
    let runs = 0;
    let total = 0;
    for (let t = 0; t < z.length; t++) {
      s = Math.max(0, s + z[t]! - 0.5);
      if (s > 4) {
        total += t + 1 - start;
        runs++;
        start = t + 1;
        s = 0;
      }
    }
    const simulated = total / runs;
    expect(simulated).toBeGreaterThan(300);
    expect(simulated).toBeLessThan(375);
    expect(Math.abs(cusumRunLength(4, 0.5) - simulated) / simulated).toBeLessThan(0.1);
  });

  test.prop([fc.double({ min: 0, max: 20, noNaN: true }), fc.double({ min: 0, max: 20, noNaN: true })])("z_c grows with the sum and is >= 0 (property)", (a, b) => {
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    expect(cusumEquivalentZ(lo, ANOMALY_CUSUM_ALLOWANCE)).toBeGreaterThanOrEqual(0);
    expect(cusumEquivalentZ(hi, ANOMALY_CUSUM_ALLOWANCE)).toBeGreaterThanOrEqual(cusumEquivalentZ(lo, ANOMALY_CUSUM_ALLOWANCE));
  });

  test("the level's threshold has the level's run length: 2 / ARL(b) = 1 − L/100 where z_c crosses q", () => {
    for (const level of [90, 99, 99.9]) {
      const q = gaussianMultiplier(level);
      let lo = 0;
      let hi = 50;
      for (let i = 0; i < 200; i++) {
        const mid = (lo + hi) / 2;
        if (cusumEquivalentZ(mid, 1) > q) hi = mid;
        else lo = mid;
      }
      expect(2 / cusumRunLength(hi, 1)).toBeCloseTo(1 - level / 100, 9);
    }
  });
});

describe("accumulatedAnomalyScores", () => {
  test.prop([fc.array(zScore, { maxLength: 200 }), fc.double({ min: 0, max: 99.99, noNaN: true }), fc.double({ min: 0, max: 0.5, noNaN: true })])(
    "A >= z², NaN stays NaN, and out may be z itself (property)",
    (values, level, rho) => {
      const z = Float64Array.from(values);
      const out = new Float64Array(z.length);
      accumulatedAnomalyScores(z, level, out, rho);
      z.forEach((v, t) => {
        if (Number.isNaN(v)) expect(out[t]).toBeNaN();
        else expect(out[t]!).toBeGreaterThanOrEqual(v * v);
      });
      const inPlace = Float64Array.from(z);
      accumulatedAnomalyScores(inPlace, level, inPlace, rho);
      expect(Array.from(inPlace)).toEqual(Array.from(out));
    },
  );

  test.prop([fc.array(zScore, { maxLength: 100 }), fc.double({ min: 50, max: 99.99, noNaN: true })])("the sign of every z flipped gives the same A (two-sided, property)", (values, level) => {
    const z = Float64Array.from(values);
    const a = new Float64Array(z.length);
    const b = new Float64Array(z.length);
    accumulatedAnomalyScores(z, level, a);
    accumulatedAnomalyScores(z.map((v) => -v), level, b);
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  test("independent standard normal z: alarms (A > q²) on about (100 − L) % of points, the single-point rule included", () => {
    const z = gaussians("cusum-rate", 400_000);
    const rate99 = alarmRate(z, 99);
    const rate999 = alarmRate(z, 99.9);
    // the CUSUM's 1 % plus the points whose own |z| > q that the CUSUM does not already flag
    expect(rate99).toBeGreaterThan(0.008);
    expect(rate99).toBeLessThan(0.02);
    expect(rate999).toBeGreaterThan(0.0006);
    expect(rate999).toBeLessThan(0.0025);
  });

  test("correlated scores: without the correction an AR(1) sequence (ρ = 0.4) alarms far above the level; with ρ estimated it comes back near it", () => {
    const e = gaussians("cusum-ar", 200_000);
    const z = new Float64Array(e.length);
    const rho = 0.4;
    for (let t = 0; t < z.length; t++) z[t] = (t > 0 ? rho * z[t - 1]! : 0) + Math.sqrt(1 - rho * rho) * e[t]!; // unit variance
    const estimated = scoreCorrelation(z, 5000);
    expect(estimated).toBeGreaterThan(0.35);
    expect(estimated).toBeLessThan(0.45);
    const raw = alarmRate(z, 99);
    const corrected = alarmRate(z, 99, estimated);
    expect(raw).toBeGreaterThan(0.02);
    expect(corrected).toBeLessThan(0.6 * raw);
    expect(corrected).toBeLessThan(0.016);
  });

  test("a shift of 2 kept up is caught at its second point; the sums restart after the alarm and drain when the shift ends", () => {
    const z = [0.3, -0.5, 0.1, 2, 2, 2, 2, 0, 0, 0];
    const out = new Float64Array(z.length);
    accumulatedAnomalyScores(z, 99, out);
    const q2 = gaussianMultiplier(99) ** 2;
    expect(Array.from(out, (a) => a > q2)).toEqual([false, false, false, false, true, false, true, false, false, false]);
    expect(out[4]!).toBeGreaterThan(z[4]! ** 2); // the alarm comes from the evidence, not from the point's own z
  });

  test("a drift (z rising by 0.25 per point) alarms before any single point reaches q", () => {
    const z = Array.from({ length: 16 }, (_, t) => 0.25 * t);
    const out = new Float64Array(z.length);
    accumulatedAnomalyScores(z, 99, out);
    const q = gaussianMultiplier(99);
    const firstAlarm = Array.from(out).findIndex((a) => a > q * q);
    const firstPoint = z.findIndex((v) => v > q);
    expect(firstAlarm).toBeGreaterThan(0);
    expect(firstAlarm).toBeLessThan(firstPoint);
  });

  test("rejects a short out, a bad level or rho", () => {
    expect(() => accumulatedAnomalyScores([1, 2], 99, new Float64Array(1))).toThrow(/out needs 2/);
    expect(() => accumulatedAnomalyScores([1], 100, new Float64Array(1))).toThrow(RangeError);
    expect(() => accumulatedAnomalyScores([1], 99, new Float64Array(1), 0.9)).toThrow(/rho/);
    expect(() => accumulatedAnomalyScores([1], 99, new Float64Array(1), Number.NaN)).toThrow(/rho/);
  });
});

describe("scoreCorrelation", () => {
  test.prop([fc.array(zScore, { maxLength: 300 }), fc.nat({ max: 400 })])("in [0, 0.5], and 0 with fewer than 20 consecutive pairs (property)", (values, end) => {
    const rho = scoreCorrelation(values, end);
    expect(rho).toBeGreaterThanOrEqual(0);
    expect(rho).toBeLessThanOrEqual(0.5);
    if (Math.min(end, values.length) <= 20) expect(rho).toBe(0);
  });

  test("independent scores: about 0", () => {
    expect(scoreCorrelation(gaussians("independent", 5000), 5000)).toBeLessThan(0.05);
  });
});
