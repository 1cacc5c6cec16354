import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import seedrandom from "seedrandom";
import { combineJudges, detectAnomalies, judgedInterval, judgeLag, JUDGES_AGREE_Z, judgesOnLogScale, levelJudge, LOG_SCALE_MIN_POINTS, SEASONAL_JUDGE_WINDOW, seasonalJudge } from "../../src/anomaly/index.js";
import { JudgeWindows } from "../../src/anomaly/seasonal-judge.js";
import { rangeBoost, rangeOpinion } from "../../src/anomaly/range-judge.js";
import { momentsKernel } from "../../src/anomaly/kernel/moments.js";
import { MOMENTS_WASM_SOURCE_SHA256 } from "../../src/anomaly/kernel/moments-wasm.js";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { seasonalNaiveForecaster } from "../../src/cv/index.js";
import { fixedModelSource } from "../../src/finetune/index.js";
import { gaussianMultiplier } from "../../src/intervals/index.js";
import { anomalyRequestForTest, packForTest } from "./helpers.js";
import { seasonal } from "../series/helpers.js";

/** The level of an hourly metric busy by day: 100 · e^{1.2 sin(2πt/24)}, about 11 times as high at noon as at midnight. */
const busyByDay = (t: number): number => 100 * Math.exp(1.2 * Math.sin((2 * Math.PI * t) / 24));

/** A daily-cycle hourly series with seeded Gaussian noise (sd 1). */
const hourly = (n: number, seed: number, amplitude = 10): Float64Array => seasonal(n, 24, amplitude, 1, seed);

const level = fc.constantFrom(80, 90, 95, 99, 99.9);

describe("seasonalJudge", () => {
  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 5, max: 60 }), level], { numRuns: 100 })(
    "z, lo and hi are the seasonal difference against the mean and sd of the differences before it, and z > q exactly above hi",
    (seed, m, window, L) => {
      const y = hourly(m + window + 40, seed);
      const q = gaussianMultiplier(L);
      const out = new Float64Array(3);
      for (let t = 0; t < y.length; t++) {
        const spoke = seasonalJudge(y, t, m, q, out, window);
        expect(spoke).toBe(t >= m + window);
        if (!spoke) continue;
        const r = Array.from({ length: window }, (_, k) => y[t - window + k]! - y[t - window + k - m]!);
        const mean = r.reduce((a, v) => a + v, 0) / window;
        const sd = Math.sqrt(r.reduce((a, v) => a + (v - mean) ** 2, 0) / (window - 1));
        expect(out[0]).toBeCloseTo((y[t]! - y[t - m]! - mean) / sd, 9);
        expect(out[1]).toBeCloseTo(y[t - m]! + mean - q * sd, 9);
        expect(out[2]).toBeCloseTo(y[t - m]! + mean + q * sd, 9);
        if (Math.abs(Math.abs(out[0]!) - q) > 1e-9) {
          expect(out[0]! > q).toBe(y[t]! > out[2]!);
          expect(out[0]! < -q).toBe(y[t]! < out[1]!);
        }
      }
    },
  );

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: -40, max: 40 })], { numRuns: 100 })(
    "a shift and a power-of-two scale of the series leave z unchanged and move the interval with it (huge and tiny magnitudes)",
    (seed, shift, exponent) => {
      const y = hourly(24 + 60 + 1, seed);
      const k = 2 ** exponent;
      const moved = y.map((v) => v * k + shift * k);
      const a = new Float64Array(3);
      const b = new Float64Array(3);
      expect(seasonalJudge(y, y.length - 1, 24, 2.576, a, 60)).toBe(true);
      expect(seasonalJudge(moved, y.length - 1, 24, 2.576, b, 60)).toBe(true);
      expect(b[0]).toBeCloseTo(a[0]!, 6);
      expect(b[1]! / k - shift).toBeCloseTo(a[1]!, 4);
      expect(b[2]! / k - shift).toBeCloseTo(a[2]!, 4);
    },
  );

  it("a constant history of differences makes a certain judge (z 0 where the season repeats, far out where it does not); it cannot speak before it has its differences", () => {
    const out = Float64Array.of(7, 7, 7);
    const y = Float64Array.from({ length: 300 }, (_, t) => t % 24);
    expect(seasonalJudge(y, 299, 24, 2.576, out)).toBe(true);
    expect(out[0]).toBe(0);
    y[299] = 24;
    expect(seasonalJudge(y, 299, 24, 2.576, out)).toBe(true);
    expect(out[0]).toBeGreaterThan(1e6);
    const noisy = hourly(300, 1);
    out.fill(7);
    expect(seasonalJudge(noisy, 24 + SEASONAL_JUDGE_WINDOW - 1, 24, 2.576, out)).toBe(false);
    expect(Array.from(out)).toEqual([7, 7, 7]);
    expect(seasonalJudge(noisy, 24 + SEASONAL_JUDGE_WINDOW, 24, 2.576, out)).toBe(true);
    // differences ending earlier (the window rule): the judge reads none at or after `end`
    const a = new Float64Array(5);
    const b = new Float64Array(5);
    const moved = noisy.slice();
    moved[290] = 1e6;
    expect(seasonalJudge(noisy, 295, 48, 2.576, a, 100, 280)).toBe(true);
    expect(seasonalJudge(moved, 295, 48, 2.576, b, 100, 280)).toBe(true);
    expect(Array.from(b)).toEqual(Array.from(a));
  });
});

describe("levelJudge", () => {
  test.prop([fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 30, maxLength: 80 }), fc.integer({ min: 2, max: 20 })])(
    "z, lo and hi are y(t) against the mean and sd of the window values before end, and the values at or after end are never read",
    (list, window) => {
      const y = Float64Array.from(list);
      const end = y.length - 5;
      const t = y.length - 1;
      const out = new Float64Array(5);
      if (!levelJudge(y, t, 2.576, out, window, end)) return;
      const part = Array.from(y.subarray(end - window, end));
      const mean = part.reduce((a, v) => a + v, 0) / window;
      expect(out[3]!).toBeCloseTo(mean, 6);
      expect(out[1]!).toBeCloseTo(out[3]! - 2.576 * out[4]!, 6);
      const moved = y.slice();
      moved[end] = moved[end]! + 1e5;
      const again = new Float64Array(5);
      levelJudge(moved, t, 2.576, again, window, end);
      expect(Array.from(again)).toEqual(Array.from(out));
    },
  );
});

describe("judgesOnLogScale", () => {
  /**
   * An hourly metric busy by day (about 9–11 times its night level): multiplicative, its cycle and its noise (±`noise`)
   * proportional to its level; additive, a sine cycle of its mean level ± 400 and noise of ±`noise` · 750.
   */
  const metric = (n: number, seed: number, multiplicative: boolean, noise = 0.05): Float64Array => {
    const rng = seedrandom(String(seed));
    return Float64Array.from({ length: n }, (_, t) =>
      multiplicative ? busyByDay(t) * (1 + 2 * noise * (rng() - 0.5)) : 500 + 400 * Math.sin((2 * Math.PI * t) / 24) + 1500 * noise * (rng() - 0.5),
    );
  };

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 100, max: 600 })], { numRuns: 40 })(
    "a metric whose noise grows with its level is read on the log scale; the same cycle with noise of one size is not",
    (seed, n) => {
      expect(judgesOnLogScale(metric(n, seed, true), n)).toBe(true);
      expect(judgesOnLogScale(metric(n, seed, false), n)).toBe(false);
    },
  );

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.boolean(), fc.integer({ min: -60, max: 60 }), fc.integer({ min: 30, max: 300 })], { numRuns: 100 })(
    "multiplying the series by a positive power of two never changes the answer (property)",
    (seed, multiplicative, exponent, n) => {
      const y = metric(n, seed, multiplicative, 0.2);
      const scaled = y.map((v) => v * 2 ** exponent);
      expect(judgesOnLogScale(scaled, n)).toBe(judgesOnLogScale(y, n));
    },
  );

  it("reads only the first `end` values, and says no with a value at or below 0, a missing one, or too few", () => {
    const y = metric(300, 7, true);
    expect(judgesOnLogScale(y, 300)).toBe(true);
    for (const bad of [0, -1, Number.NaN]) {
      const z = y.slice();
      z[150] = bad;
      expect(judgesOnLogScale(z, 300)).toBe(false);
      expect(judgesOnLogScale(z, 150)).toBe(true); // the bad value lies after what is read
    }
    expect(judgesOnLogScale(y, LOG_SCALE_MIN_POINTS)).toBe(judgesOnLogScale(y.subarray(0, LOG_SCALE_MIN_POINTS), LOG_SCALE_MIN_POINTS));
    expect(judgesOnLogScale(y, LOG_SCALE_MIN_POINTS - 1)).toBe(false);
    expect(judgesOnLogScale(new Float64Array(100).fill(5), 100)).toBe(false); // no change on either side
  });
});

describe("combineJudges and judgedInterval", () => {
  // each judge as z = (y − c) / s with interval c ± q·s
  const judge = fc.record({ c: fc.double({ min: -100, max: 100, noNaN: true }), s: fc.double({ min: 0.01, max: 50, noNaN: true }) });
  const zValue = fc.double({ min: -50, max: 50, noNaN: true });

  test.prop([zValue, zValue])("sign of the network, 0 across sides; the smaller |z| up to 2.576, the average beyond; never above the larger (property)", (zn, zs) => {
    const z = combineJudges(zn, zs);
    const [a, b] = [Math.abs(zn), Math.abs(zs)];
    if (!((zn > 0 && zs > 0) || (zn < 0 && zs < 0))) expect(z).toBe(0);
    else {
      expect(Math.sign(z)).toBe(Math.sign(zn));
      expect(Math.abs(z)).toBe(Math.min(a, b) > JUDGES_AGREE_Z ? 0.5 * (a + b) : Math.min(a, b));
      expect(Math.abs(z)).toBeLessThanOrEqual(Math.max(a, b));
      expect(Math.abs(z)).toBeGreaterThanOrEqual(Math.min(a, b));
    }
    expect(combineJudges(-zn, -zs)).toBe(-z || 0);
  });

  test.prop([zValue, zValue, fc.double({ min: 0, max: 5, noNaN: true })])("nondecreasing in each judge's |z| on one side (property)", (zn, zs, more) => {
    const [a, b] = [Math.abs(zn), Math.abs(zs)];
    expect(combineJudges(a + more, b)).toBeGreaterThanOrEqual(combineJudges(a, b));
    expect(combineJudges(a, b + more)).toBeGreaterThanOrEqual(combineJudges(a, b));
  });

  test.prop([judge, judge, fc.double({ min: -400, max: 400, noNaN: true }), level], { numRuns: 500 })(
    "|combined z| > q exactly when y is outside judgedInterval; the interval holds the network's forecast (property, every level)",
    (n, s, y, L) => {
      const q = gaussianMultiplier(L);
      const zNet = (v: number) => (v - n.c) / n.s;
      const out = new Float64Array(2);
      const network = { forecast: n.c, lo: n.c - q * n.s, hi: n.c + q * n.s, loAgree: n.c - JUDGES_AGREE_Z * n.s, hiAgree: n.c + JUDGES_AGREE_Z * n.s };
      judgedInterval(zNet, network, s.c, s.s, q, out);
      const [lo, hi] = [out[0]!, out[1]!];
      expect(lo).toBeLessThanOrEqual(n.c);
      expect(hi).toBeGreaterThanOrEqual(n.c);
      const z = combineJudges(zNet(y), (y - s.c) / s.s);
      // away from the boundaries (where the judges' own rounding decides), the flag is "outside the interval"
      const margin = 1e-9 * (1 + Math.abs(y));
      if (Math.abs(y - lo) > margin && Math.abs(y - hi) > margin && Math.abs(Math.abs(zNet(y)) - q) > 1e-9 && Math.abs(Math.abs((y - s.c) / s.s) - q) > 1e-9) {
        expect(Math.abs(z) > q).toBe(y < lo || y > hi);
      }
      // the bisected bounds are exact: just inside is not beyond, the next double outside is
      if (q > JUDGES_AGREE_Z && Math.abs(hi) < 1e300) {
        expect(Math.abs(combineJudges(zNet(hi), (hi - s.c) / s.s))).toBeLessThanOrEqual(q);
        const next = hi + Math.max(Math.abs(hi), 1e-300) * 2 ** -51;
        expect(Math.abs(combineJudges(zNet(next), (next - s.c) / s.s))).toBeGreaterThan(q);
      }
    },
  );
});

describe("detectAnomalies with the seasonal judge", () => {
  const forecaster = fixedModelSource(seasonalNaiveForecaster(24));
  const request = (list: number[][], detectionSize: number) =>
    anomalyRequestForTest(packForTest(list), { freq: "H", h: 1, stepSize: 1, detectionSize, level: 99 });

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 200, max: 320 }), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -60, max: 60, noNaN: true })), { maxLength: 4 }), fc.constantFrom(95, 99, 99.5, 99.9, 99.99)], {
    numRuns: 40,
  })("flags are exactly 'outside the interval' and |score| > q at every level (bisected bounds above 99); with one seasonal judge the interval holds the mean", (seed, n, anomalies, L) => {
    const y = Array.from(hourly(n, seed));
    for (const [where, size] of anomalies) {
      const at = Math.floor(where * (n - 1));
      y[at] = y[at]! + size;
    }
    const result = detectAnomalies({ ...request([y], 24), level: L }, forecaster);
    const q = gaussianMultiplier(L);
    const lo = result.intervals![`lo-${L}`]!;
    const hi = result.intervals![`hi-${L}`]!;
    for (let r = 0; r < 24; r++) {
      const value = y[result.idxs[r]!]!;
      expect(lo[r]!).toBeLessThanOrEqual(hi[r]!);
      // under three weeks of history no weekly season counts: the interval is the network's and the daily judge's
      expect(lo[r]!).toBeLessThanOrEqual(result.mean[r]!);
      expect(hi[r]!).toBeGreaterThanOrEqual(result.mean[r]!);
      expect(result.anomaly[r]).toBe(value < lo[r]! || value > hi[r]! ? 1 : 0);
      expect(result.anomaly[r]).toBe(Math.abs(result.anomalyScore[r]!) > q ? 1 : 0);
    }
  });

  test.prop([fc.constantFrom(1e-300, 1e-150, 1, 1e150, 1e300, 4e305), fc.constantFrom(99, 99.9, 99.999), fc.integer({ min: 0, max: 1_000_000 })], { numRuns: 30 })(
    "huge and tiny magnitudes: flags are 'outside the interval', every score and bound finite, at levels above 99 too",
    (scale, L, seed) => {
      const rng = seedrandom(String(seed));
      const y = Array.from({ length: 300 }, (_, t) => scale * (100 + 10 * Math.sin((2 * Math.PI * t) / 24) + 2 * (rng() - 0.5) + (rng() < 0.02 ? 40 * (rng() - 0.5) : 0)));
      const result = detectAnomalies({ ...request([y], 48), level: L }, forecaster);
      const lo = result.intervals![`lo-${L}`]!;
      const hi = result.intervals![`hi-${L}`]!;
      for (let r = 0; r < 48; r++) {
        const value = y[result.idxs[r]!]!;
        expect(result.anomaly[r]).toBe(value < lo[r]! || value > hi[r]! ? 1 : 0);
        for (const v of [lo[r]!, hi[r]!, result.anomalyScore[r]!, result.accumulatedAnomalyScore[r]!]) expect(Number.isFinite(v)).toBe(true);
      }
    },
  );

  // the network's side played by a naive last-value forecaster, which judges differently from the seasonal difference
  const lastValue = fixedModelSource(seasonalNaiveForecaster(1));
  const judgedAndAlone = (y: number[], detectionSize: number) => {
    const plain = request([y], detectionSize);
    // a feature of zeros keeps the forecasts and turns the judge off (it cannot see features)
    const alone = detectAnomalies({ ...plain, series: { ...plain.series, X: [new Float64Array(y.length)] } }, lastValue);
    return { judged: detectAnomalies(plain, lastValue), alone };
  };

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -60, max: 60, noNaN: true })), { maxLength: 4 })], { numRuns: 15, examples: [[0, [[0.9128856624319419, -13.243993546154593]]]] })(
    "where a day and a week are both found (hourly, three weeks of history, weekends lower), the network abstains: the score is the daily and the weekly judge's combination (each comparing the point with the same phase of the last season before the window), raised by the range judge",
    (seed, shifts) => {
      const y = shiftedSeries(24 * 7 * 3 + 48, seed, shifts, true);
      // (the network abstains: its forecasts, which spike cleaning may change in one run and not the other, do not matter here)
      const { judged } = judgedAndAlone(y, 48);
      const q = gaussianMultiplier(99);
      const values = Float64Array.from(y);
      const out = new Float64Array(3);
      const windowStart = y.length - 48;
      const judgeAt = (t: number, m: number): number => {
        const lag = judgeLag(t, m, windowStart);
        return windowStart - lag >= SEASONAL_JUDGE_WINDOW && seasonalJudge(values, t, lag, q, out, SEASONAL_JUDGE_WINDOW, windowStart) ? out[0]! : Number.NaN;
      };
      // the range judge (hourly data): the values before the window
      const centre = new Float64Array(48);
      const scale = new Float64Array(48);
      rangeOpinion(values, 48, true, centre, scale);
      for (let r = 0; r < 48; r++) {
        const t = judged.idxs[r]!;
        const daily = judgeAt(t, 24);
        const weekly = judgeAt(t, 168);
        expect(Number.isNaN(weekly)).toBe(false);
        const score = Math.max(-10, Math.min(10, rangeBoost(combineJudges(daily, weekly), (y[t]! - centre[r]!) / scale[r]!)));
        // away from the edges, where rounding decides
        if ([daily, weekly, score].some((v) => Math.abs(Math.abs(v) - q) < 1e-9)) continue;
        expect(judged.anomaly[r]).toBe(Math.abs(score) > q ? 1 : 0);
        expect(judged.anomalyScore[r]).toBe(score); // within ±ANOMALY_Z_CAP
        // the rule before the range judge, where it still holds: the range judge never lowers a score, so a point both
        // seasonal judges reject on one side is flagged; where it does not raise the score, the score is their combination
        if ((daily > q && weekly > q) || (daily < -q && weekly < -q)) expect(judged.anomaly[r]).toBe(1);
        if (rangeBoost(combineJudges(daily, weekly), (y[t]! - centre[r]!) / scale[r]!) === combineJudges(daily, weekly)) {
          expect(judged.anomaly[r]).toBe((daily > q && weekly > q) || (daily < -q && weekly < -q) ? 1 : 0);
          expect(judged.anomalyScore[r]).toBe(Math.max(-10, Math.min(10, combineJudges(daily, weekly)))); // within ±ANOMALY_Z_CAP
        }
        // the interval holds the mean, which is the daily judge's centre where the network abstains
        expect(judged.intervals!["lo-99"]![r]!).toBeLessThanOrEqual(judged.mean[r]!);
        expect(judged.intervals!["hi-99"]![r]!).toBeGreaterThanOrEqual(judged.mean[r]!);
      }
    },
  );

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.double({ min: 1.3, max: 3, noNaN: true })], { numRuns: 10 })(
    "a metric whose noise grows with its level is judged on the log scale: each seasonal judge's centre is e^c and its σ e^c · s (c, s: the judge of the log values), and a night spike of 30 % is flagged",
    (seed, spike) => {
      const rng = seedrandom(String(seed));
      const n = 24 * 7 * 3 + 48;
      // lower at weekends: a day and a week to find
      const y = Array.from({ length: n }, (_, t) => busyByDay(t) * (Math.floor(t / 24) % 7 >= 5 ? 0.8 : 1) * (1 + 0.04 * (rng() - 0.5)));
      // the quietest hour of the window's first day
      const night = n - 48 + 18;
      y[night] = y[night]! * spike;
      const values = Float64Array.from(y);
      expect(judgesOnLogScale(values, n - 48)).toBe(true);
      const { judged } = judgedAndAlone(y, 48);
      const q = gaussianMultiplier(99);
      const logs = values.map(Math.log);
      const out = new Float64Array(3);
      const windowStart = n - 48;
      const judgeAt = (t: number, m: number): number => {
        const lag = judgeLag(t, m, windowStart);
        if (!seasonalJudge(logs, t, lag, q, out, SEASONAL_JUDGE_WINDOW, windowStart)) return Number.NaN;
        const centre = Math.exp((out[1]! + out[2]!) / 2);
        return (y[t]! - centre) / ((centre * (out[2]! - out[1]!)) / (2 * q));
      };
      const centre = new Float64Array(48);
      const scale = new Float64Array(48);
      rangeOpinion(values, 48, true, centre, scale);
      for (let r = 0; r < 48; r++) {
        const t = judged.idxs[r]!;
        const score = Math.max(-10, Math.min(10, rangeBoost(combineJudges(judgeAt(t, 24), judgeAt(t, 168)), (y[t]! - centre[r]!) / scale[r]!)));
        expect(judged.anomalyScore[r]).toBeCloseTo(score, 6);
        expect(judged.intervals!["lo-99"]![r]!).toBeLessThanOrEqual(judged.mean[r]!);
        expect(judged.intervals!["hi-99"]![r]!).toBeGreaterThanOrEqual(judged.mean[r]!);
      }
      // the spike of 30 % or more at night is flagged
      expect(judged.anomaly[18]).toBe(1);
    },
  );

  /**
   * A daily cycle with bounded noise and level shifts at the given places: no point is a spike, which the run without
   * features would clean from the contexts and the run with the feature of zeros would not (the two runs would then
   * forecast from different contexts before any judge speaks).
   */
  const shiftedSeries = (n: number, seed: number, shifts: readonly (readonly [number, number])[], weekends = false): number[] => {
    const rng = seedrandom(String(seed));
    const y = Array.from({ length: n }, (_, t) => 100 + 10 * Math.sin((2 * Math.PI * t) / 24) + 2 * (rng() - 0.5) - (weekends && Math.floor(t / 24) % 7 >= 5 ? 15 : 0));
    for (const [where, size] of shifts) {
      for (let t = Math.floor(where * (n - 1)); t < n; t++) y[t] = y[t]! + size;
    }
    return y;
  };

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -60, max: 60, noNaN: true })), { maxLength: 4 })], { numRuns: 15 })(
    "a series without a season is judged by the network and the level judge (the 168 values before the window): the combined z is combineJudges of the two, raised by the range judge",
    (seed, shifts) => {
      const rng = seedrandom(String(seed));
      const y = Array.from({ length: 400 }, () => 100 + 4 * (rng() - 0.5));
      for (const [where, size] of shifts) for (let t = Math.floor(where * 399); t < 400; t++) y[t] = y[t]! + size;
      const { judged, alone } = judgedAndAlone(y, 24);
      const values = Float64Array.from(y);
      const out = new Float64Array(3);
      const centre = new Float64Array(24);
      const scale = new Float64Array(24);
      rangeOpinion(values, 24, true, centre, scale);
      for (let r = 0; r < 24; r++) {
        expect(levelJudge(values, 376 + r, gaussianMultiplier(99), out, SEASONAL_JUDGE_WINDOW, 376)).toBe(true);
        const range = (values[376 + r]! - centre[r]!) / scale[r]!;
        expect(judged.anomalyScore[r]).toBe(Math.max(-10, Math.min(10, rangeBoost(combineJudges(alone.anomalyScore[r]!, out[0]!), range))));
        // the rule before the range judge, where the range judge does not raise the score
        if (rangeBoost(combineJudges(alone.anomalyScore[r]!, out[0]!), range) === combineJudges(alone.anomalyScore[r]!, out[0]!)) {
          expect(judged.anomalyScore[r]).toBe(Math.max(-10, Math.min(10, combineJudges(alone.anomalyScore[r]!, out[0]!))));
        }
      }
    },
  );

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -60, max: 60, noNaN: true })), { maxLength: 4 }), fc.constantFrom(90, 99, 99.9, 99.99)], { numRuns: 12 })(
    "with two seasonal judges, at every level: the interval holds the mean and flags are exactly the points outside it",
    (seed, shifts, L) => {
      const y = shiftedSeries(24 * 7 * 3 + 48, seed, shifts, true);
      const result = detectAnomalies({ ...request([y], 48), level: L }, forecaster);
      const lo = result.intervals![`lo-${L}`]!;
      const hi = result.intervals![`hi-${L}`]!;
      for (let r = 0; r < 48; r++) {
        expect(lo[r]!).toBeLessThanOrEqual(result.mean[r]!);
        expect(hi[r]!).toBeGreaterThanOrEqual(result.mean[r]!);
        const value = y[result.idxs[r]!]!;
        expect(result.anomaly[r]).toBe(value < lo[r]! || value > hi[r]! ? 1 : 0);
      }
    },
  );

  it("a level shift is flagged by both judges at its first point", () => {
    const n = 300;
    const y = Array.from(hourly(n, 7));
    for (let t = n - 3; t < n; t++) y[t] = y[t]! + 25;
    const { judged } = judgedAndAlone(y, 24);
    expect(judged.anomaly[24 - 3]).toBe(1);
  });

  it("normal points the last-value judge rejects and the seasonal judge accepts are not anomalies", () => {
    // 600 hours, the last 48 scored (strict window rule: 6 · 48 forecast points precede them), so the seasonal judge compares
    // each with the same phase of the last day before the window. Seed 18 (from a scan of seeds 0-39, about a third of which
    // show such points): the last-value judge alone flags two normal points, the two judges neither
    const y = Array.from(hourly(600, 18));
    const { judged, alone } = judgedAndAlone(y, 48);
    const rejectedAlone = [...Array(48).keys()].filter((r) => alone.anomaly[r] === 1 && judged.anomaly[r] === 0);
    expect(rejectedAlone).toEqual([3, 46]);
    for (const r of rejectedAlone) {
      expect(judged.intervals!["lo-99"]![r]!).toBeLessThanOrEqual(y[552 + r]!);
      expect(judged.intervals!["hi-99"]![r]!).toBeGreaterThanOrEqual(y[552 + r]!);
    }
  });

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -60, max: 60, noNaN: true })), { maxLength: 6 })], { numRuns: 15, examples: [[820132, []]] })(
    "with one seasonal judge, the judge only takes flags away: its flags are among the network's alone (a feature of zeros keeps the network's forecasts and turns the judge off; 215 points: no weekly season can count)",
    (seed, shifts) => {
      const y = shiftedSeries(215, seed, shifts);
      const { judged, alone } = judgedAndAlone(y, 48);
      expect(Array.from(alone.mean)).toEqual(Array.from(judged.mean));
      for (let r = 0; r < 48; r++) {
        // at level 99 a judged flag needs both judges beyond 2.576 (the score is their average only then)
        // A = max(z², z_c²) over the combined z: never below z²
        expect(judged.accumulatedAnomalyScore[r]!).toBeGreaterThanOrEqual(judged.anomalyScore[r]! ** 2);
        if (judged.anomaly[r] === 1) expect(alone.anomaly[r]).toBe(1);
      }
    },
  );
});

describe("JudgeWindows", () => {
  const values = fc.oneof(
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.constantFrom(0, -0, 1e300, -1e300, 1e-300, 5),
  );
  test.prop(
    [fc.array(values, { minLength: 3, maxLength: 120 }), fc.integer({ min: 2, max: 40 }), fc.integer({ min: 0, max: 130 }), fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 4 }), level],
    { numRuns: 150 },
  )("gives seasonalJudge's and levelJudge's answers bit for bit, at every point, lag and window end (both implementations)", (list, window, windowStart, lags, L) => {
    const y = Float64Array.from(list);
    const q = gaussianMultiplier(L);
    for (const kind of ["wasm-simd", "js"] as const) {
      const judges = new JudgeWindows(y.length + 5, kind);
      judges.start(y, windowStart);
      const a = new Float64Array(5);
      const b = new Float64Array(5);
      for (let t = 0; t < y.length + 2; t++) {
        const end = Math.min(t, windowStart);
        for (const lag of lags) {
          a.fill(7);
          b.fill(7);
          const got = judges.judge(t, lag, q, a, window, end);
          const want = lag > 0 ? seasonalJudge(y, t, lag, q, b, window, end) : levelJudge(y, t, q, b, window, end);
          expect(got).toBe(want);
          expect(Array.from(a, (v) => Object.is(v, -0) ? "-0" : String(v))).toEqual(Array.from(b, (v) => Object.is(v, -0) ? "-0" : String(v)));
        }
      }
    }
  });

  it("the shipped window-moments module was assembled from the WebAssembly text in the repository (npm run build:kernel)", () => {
    const text = readFileSync("src/anomaly/kernel/moments.wat", "utf8");
    expect(createHash("sha256").update(text).digest("hex").slice(0, 16)).toBe(MOMENTS_WASM_SOURCE_SHA256);
    expect(momentsKernel()).not.toBeNull();
  });

  test.prop([fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 2, max: 200 }), fc.integer({ min: 1, max: 3000 })], { numRuns: 40 })(
    "the WebAssembly kernel's window moments are the TypeScript loop's bits, for any number of windows (past one page of memory: it grows) and parity",
    (seed, window, count) => {
      const u = seedrandom(String(seed));
      const scale = 10 ** Math.floor(8 * u() - 4);
      const d = Float64Array.from({ length: window + count + 3 }, () => scale * (u() - 0.5) + (u() < 0.05 ? 1e3 * scale : 0));
      const mean = new Float64Array(d.length + 1);
      const squares = new Float64Array(d.length + 1);
      const end = window + 2;
      const n = Math.min(count, d.length - end + 1);
      momentsKernel()!.moments(d, end, window, n, mean, squares);
      for (let j = 0; j < n; j++) {
        let m = 0;
        for (let k = end + j - window; k < end + j; k++) m += d[k]!;
        m /= window;
        let s = 0;
        for (let k = end + j - window; k < end + j; k++) {
          const e = d[k]! - m;
          s += e * e;
        }
        expect(Object.is(mean[end + j], m) && Object.is(squares[end + j], s)).toBe(true);
      }
    },
  );

  it("a long series judged at every point (more window ends than one kernel call sums) gives the same bits with both implementations and with seasonalJudge", () => {
    const y = hourly(5000, 7);
    const simd = new JudgeWindows(y.length, "wasm-simd");
    const js = new JudgeWindows(y.length, "js");
    simd.start(y, 4900);
    js.start(y, 4900);
    const a = new Float64Array(5);
    const b = new Float64Array(5);
    const c = new Float64Array(5);
    for (let t = 0; t < y.length; t++) {
      const end = Math.min(t, 4900);
      for (const lag of [24, 168, 0]) {
        const got = simd.judge(t, lag, 2.576, a, SEASONAL_JUDGE_WINDOW, end);
        expect(js.judge(t, lag, 2.576, b, SEASONAL_JUDGE_WINDOW, end)).toBe(got);
        expect(lag > 0 ? seasonalJudge(y, t, lag, 2.576, c, SEASONAL_JUDGE_WINDOW, end) : levelJudge(y, t, 2.576, c, SEASONAL_JUDGE_WINDOW, end)).toBe(got);
        if (!got) continue;
        expect(Array.from(a)).toEqual(Array.from(b));
        expect(Array.from(a)).toEqual(Array.from(c));
      }
    }
  });

  it("starts afresh for each series", () => {
    const judges = new JudgeWindows(300);
    const out = new Float64Array(5);
    const want = new Float64Array(5);
    for (const seed of [1, 2, 3]) {
      const y = hourly(300, seed);
      judges.start(y, 300);
      expect(judges.judge(250, 24, 2.576, out, SEASONAL_JUDGE_WINDOW, 250)).toBe(seasonalJudge(y, 250, 24, 2.576, want, SEASONAL_JUDGE_WINDOW, 250));
      expect(Array.from(out)).toEqual(Array.from(want));
    }
  });
});
