/**
 * Exact linear recurrences (src/model/recurrence.ts): a noise-free sine, ramp or short
 * pattern is forecast by extending its recurrence; anything with measured noise, a NaN
 * or too few points goes to the network unchanged.
 */
import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import seedrandom from "seedrandom";
import { findRecurrence, findSeasonalRepeat, RecurrenceFit, RECURRENCE_MAX_ORDER, RECURRENCE_MIN_POINTS, RECURRENCE_MIN_VARIATION, SEASONAL_REPEAT_MIN_CYCLES, withRecurrences } from "../../src/model/recurrence.js";
import { createNetworkForecaster } from "../../src/model/index.js";
import type { ForecastDistribution, Forecaster } from "../../src/types.js";

const orderOf = (y: ArrayLike<number>, from = 0, to = y.length): number => {
  const fit = new RecurrenceFit();
  findRecurrence(Float64Array.from(y), from, to, fit);
  return fit.order;
};

/** A forecaster that answers 7 for every step, with spreads 1 below and 2 above, reading at most `reach` points. */
function sevens(reach?: number): Forecaster & { seen: number[] } {
  const seen: number[] = [];
  const distribution = (contexts: readonly Float64Array[], h: number): ForecastDistribution => {
    for (const c of contexts) seen.push(c.length);
    return { levels: [80], mean: new Float64Array(contexts.length * h).fill(7), below: new Float64Array(contexts.length * h).fill(1), above: new Float64Array(contexts.length * h).fill(2) };
  };
  return {
    name: "sevens",
    seasonLength: 1,
    seen,
    forecast: (contexts, h) => distribution(contexts, h).mean,
    forecastDistribution: distribution,
    ...(reach === undefined ? {} : { contextReach: reach }),
  };
}

/** y_t = level + Σ amplitude·sin(ω t + phase) + slope·t, exactly as the closed form gives it. */
const waves = (parts: readonly { amplitude: number; omega: number; phase: number }[], level: number, slope: number) => (t: number) =>
  level + slope * t + parts.reduce((sum, p) => sum + p.amplitude * Math.sin(p.omega * t + p.phase), 0);

describe("findRecurrence", () => {
  it("finds the sine of the anomaly issue's fixture at order 2, with a_1 = 2·cos 0.1 and a_2 = −1", () => {
    const fit = new RecurrenceFit();
    findRecurrence(Float64Array.from({ length: 60 }, (_, t) => 10 * Math.sin(0.1 * t) + 12), 0, 60, fit);
    expect(fit.order).toBe(2);
    expect(fit.coefficients[1]).toBeCloseTo(2 * Math.cos(0.1), 9);
    expect(fit.coefficients[2]).toBeCloseTo(-1, 9);
    expect(fit.coefficients[0]).toBeCloseTo(12 * (2 - 2 * Math.cos(0.1)), 9);
  });

  it("a ramp and geometric growth are order 1; a pattern of period s is order s − 1 with a level", () => {
    expect(orderOf(Array.from({ length: 40 }, (_, t) => 5 - 0.25 * t))).toBe(1);
    expect(orderOf(Array.from({ length: 40 }, (_, t) => 3 * 1.05 ** t))).toBe(1);
    expect(orderOf(Array.from({ length: 40 }, (_, t) => (t % 2 ? 4 : -1)))).toBe(1);
    expect(orderOf(Array.from({ length: 40 }, (_, t) => [1, 5, 2][t % 3]!))).toBe(2);
    expect(orderOf(Array.from({ length: 40 }, (_, t) => [1, 5, 2, 9][t % 4]!))).toBe(3);
  });

  it("nothing for a constant, a NaN or Infinity anywhere in the span, fewer than RECURRENCE_MIN_POINTS points, or a pattern of period 6 (order 5 > 4)", () => {
    const sine = Array.from({ length: 60 }, (_, t) => Math.sin(0.3 * t));
    expect(orderOf(sine)).toBe(2);
    expect(orderOf(Array(60).fill(3))).toBe(0);
    for (const bad of [NaN, Infinity, -Infinity]) {
      const y = sine.slice();
      y[3] = bad;
      expect(orderOf(y)).toBe(0);
      expect(orderOf(y, 4)).toBe(2); // outside the span it is not read
    }
    expect(orderOf(sine.slice(0, RECURRENCE_MIN_POINTS - 1))).toBe(0);
    expect(orderOf(sine.slice(0, RECURRENCE_MIN_POINTS))).toBe(2);
    expect(orderOf(Array.from({ length: 60 }, (_, t) => [1, 5, 2, 9, 4][t % 5]!))).toBe(4);
    expect(orderOf(Array.from({ length: 60 }, (_, t) => [1, 5, 2, 9, 4, 6][t % 6]!))).toBe(0);
    expect(RECURRENCE_MAX_ORDER).toBe(4);
  });

  it("an end that is constant (the values the probe fits do not vary) is not a recurrence", () => {
    expect(orderOf([...Array.from({ length: 30 }, (_, t) => Math.sin(t)), ...Array(20).fill(2)])).toBe(0);
  });

  it("a sine whose end is exact but whose start is not fails on the whole span", () => {
    const y = Array.from({ length: 60 }, (_, t) => Math.sin(0.2 * t) + (t < 20 ? 0.01 * ((t * 7) % 5) : 0));
    expect(orderOf(y)).toBe(0);
    expect(orderOf(y, 20)).toBe(2);
  });

  test.prop(
    [
      fc.array(fc.record({ amplitude: fc.double({ min: 0.5, max: 50, noNaN: true }), omega: fc.double({ min: 0.05, max: 3, noNaN: true }), phase: fc.double({ min: 0, max: 6.28, noNaN: true }) }), { minLength: 1, maxLength: 2 }),
      fc.double({ min: -1e3, max: 1e3, noNaN: true }),
      fc.integer({ min: 24, max: 200 }),
    ],
    { numRuns: 200 },
  )("one or two noise-free sines on a level are found at order 2 per sine (or less) and their extension follows the closed form", (parts, level, n) => {
    // sines closer than 0.05 in frequency, or near 0 and π, are too alike to tell apart in 16 values: keep them apart
    const omegas = parts.map((p) => p.omega).sort((a, b) => a - b);
    fc.pre(omegas.every((w, i) => i === 0 || w - omegas[i - 1]! > 0.2));
    const f = waves(parts, level, 0);
    const y = Float64Array.from({ length: n }, (_, t) => f(t));
    // the rule looks only where the last 16 values vary by RECURRENCE_MIN_VARIATION of their magnitude (with room here)
    const end = Array.from(y.subarray(n - 16));
    const endMean = end.reduce((a, v) => a + v, 0) / 16;
    fc.pre(Math.sqrt(end.reduce((a, v) => a + (v - endMean) ** 2, 0) / 16) >= 2 * RECURRENCE_MIN_VARIATION * Math.max(...end.map(Math.abs)));
    const fit = new RecurrenceFit();
    findRecurrence(y, 0, n, fit);
    expect(fit.order).toBeGreaterThan(0);
    expect(fit.order).toBeLessThanOrEqual(2 * parts.length);
    const out = withRecurrences(sevens(), 1000).forecast([y], 20);
    const scale = parts.reduce((s, p) => s + p.amplitude, 0) + Math.abs(level);
    for (let k = 0; k < 20; k++) expect(Math.abs(out[k]! - f(n + k))).toBeLessThan(1e-6 * scale);
  });

  it("values rounded to float32 (as the hosted API's Python SDK sends them) still follow their recurrence; values that vary by less than RECURRENCE_MIN_VARIATION of their magnitude are not looked at", () => {
    const sine = (t: number) => 10 * Math.sin(0.1 * t) + 12;
    const single = Float64Array.from({ length: 60 }, (_, t) => Math.fround(sine(t)));
    expect(orderOf(single)).toBe(2);
    const out = withRecurrences(sevens(), 96).forecast([single], 20);
    for (let k = 0; k < 20; k++) expect(Math.abs(out[k]! - sine(60 + k))).toBeLessThan(1e-4);
    expect(RECURRENCE_MIN_VARIATION).toBe(1e-4);
    expect(orderOf(Array.from({ length: 60 }, (_, t) => 1 + 1e-5 * Math.sin(0.3 * t)))).toBe(0);
    expect(orderOf(Array.from({ length: 60 }, (_, t) => 1 + 1e-3 * Math.sin(0.3 * t)))).toBe(2);
  });

  test.prop([fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.double({ min: 1e-5, max: 1, noNaN: true }), fc.integer({ min: 24, max: 200 })], { numRuns: 200 })(
    "a sine with noise of 1e-5 of its amplitude or more is never a recurrence (float32 rounding is 6e-8 of the magnitude)",
    (seed, noise, n) => {
      const rng = seedrandom(String(seed));
      expect(orderOf(Array.from({ length: n }, (_, t) => 10 * Math.sin(0.1 * t) + 12 + 10 * noise * (rng() - 0.5)))).toBe(0);
    },
  );

  test.prop([fc.double({ min: 1e-250, max: 1e250, noNaN: true }), fc.integer({ min: 24, max: 120 })], { numRuns: 100 })(
    "scale does not matter: c·y is found at the order of y, at huge and tiny magnitudes",
    (c, n) => {
      expect(orderOf(Array.from({ length: n }, (_, t) => c * (3 + Math.sin(0.7 * t))))).toBe(2);
    },
  );
});

describe("withRecurrences", () => {
  it("a context with no recurrence keeps the inner forecaster's forecast, spreads and contextReach, bit for bit", () => {
    const rng = seedrandom("noisy");
    const noisy = Float64Array.from({ length: 50 }, () => rng());
    const inner = sevens(96);
    const f = withRecurrences(inner, 96);
    expect(f.contextReach).toBe(96);
    expect(f.name).toBe("sevens");
    const got = f.forecastDistribution!([noisy], 3);
    expect(Array.from(got.mean)).toEqual([7, 7, 7]);
    expect(Array.from(got.below)).toEqual([1, 1, 1]);
    expect(withRecurrences(sevens(), 96).contextReach).toBeUndefined();
  });

  it("a recurrence changes the point forecast only: the spreads stay the inner forecaster's", () => {
    const f = withRecurrences(sevens(), 96);
    const ramp = Float64Array.from({ length: 30 }, (_, t) => 2 * t + 1);
    const got = f.forecastDistribution!([ramp, Float64Array.from([1, 2, 3])], 2);
    expect(got.mean[0]).toBeCloseTo(61, 10);
    expect(got.mean[1]).toBeCloseTo(63, 10);
    expect(Array.from(got.mean.subarray(2))).toEqual([7, 7]);
    expect(Array.from(got.above)).toEqual([2, 2, 2, 2]);
  });

  test.prop([fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 50 }), fc.integer({ min: 24, max: 80 })], { numRuns: 100 })(
    "reads no more than `reach` points: what lies before them never changes the forecast",
    (junk, reach) => {
      const tail = Array.from({ length: reach }, (_, t) => 4 * Math.cos(0.4 * t) - 1);
      const f = withRecurrences(sevens(reach), reach);
      const a = f.forecast([Float64Array.from(tail)], 5);
      const b = f.forecast([Float64Array.from([...junk, ...tail])], 5);
      expect(Array.from(b)).toEqual(Array.from(a));
    },
  );

  it("an extension that leaves the float64 range keeps the inner forecast", () => {
    const growth = Float64Array.from({ length: 40 }, (_, t) => 1e260 * 10 ** t); // the last is 1e299
    expect(orderOf(growth)).toBe(1);
    const f = withRecurrences(sevens(), 96);
    expect(Math.abs(f.forecast([growth], 4)[3]! / 1e303 - 1)).toBeLessThan(1e-9); // 1e300 … 1e303 still fit
    expect(Array.from(f.forecast([growth], 12))).toEqual(Array(12).fill(7));
  });

  it("the network forecasts a noise-free sine exactly, beyond its native horizon too; a noisy one is left to it", () => {
    const f = createNetworkForecaster("forecastmodel-1", "W");
    const sine = (t: number) => 10 * Math.sin(0.1 * t) + 12;
    const y = Float64Array.from({ length: 60 }, (_, t) => sine(t));
    const out = f.forecast([y], 40);
    for (let k = 0; k < 40; k++) expect(out[k]).toBeCloseTo(sine(60 + k), 8);
    const rng = seedrandom("sine");
    const noisy = y.map((v) => v + 0.1 * (rng() - 0.5));
    const network = f.forecast([noisy], 40);
    expect(Math.max(...Array.from(network, (v, k) => Math.abs(v - sine(60 + k))))).toBeGreaterThan(0.5);
  });
});

describe("findSeasonalRepeat", () => {
  const repeatOf = (y: ArrayLike<number>, period: number, from = 0, to = y.length): [number, number] => {
    const fit = new RecurrenceFit();
    findSeasonalRepeat(Float64Array.from(y), from, to, period, fit);
    return [fit.period, fit.drift];
  };

  it("a square wave, a pattern on a ramp (drift) and float32-rounded values repeat; noise, a NaN, fewer than three cycles or another period do not", () => {
    const square: number[] = Array.from({ length: 96 }, (_, t) => (t % 24 < 12 ? 10 : 0));
    expect(repeatOf(square, 24)).toEqual([24, 0]);
    const [period, drift] = repeatOf(Array.from({ length: 60 }, (_, t) => [5, 3, 8, 1, 9, 2, 7][t % 7]! + 0.5 * Math.floor(t / 7)), 7);
    expect(period).toBe(7);
    expect(drift).toBeCloseTo(0.5, 12);
    expect(repeatOf(Array.from({ length: 60 }, (_, t) => Math.fround(100 + 17.3 * Math.sin((2 * Math.PI * t) / 12))), 12)[0]).toBe(12);
    const rng = seedrandom("repeat");
    expect(repeatOf(square.map((v) => v + 1e-4 * rng()), 24)[0]).toBe(0);
    const gap = square.slice();
    gap[50] = NaN;
    expect(repeatOf(gap, 24)[0]).toBe(0);
    expect(SEASONAL_REPEAT_MIN_CYCLES).toBe(3);
    expect(repeatOf(square.slice(0, 71), 24)[0]).toBe(0);
    expect(repeatOf(square.slice(0, 72), 24)[0]).toBe(24);
    expect(repeatOf(square, 12)[0]).toBe(0);
    expect(repeatOf(Array(96).fill(4), 24)[0]).toBe(0); // no variation
  });

  test.prop([fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 7, maxLength: 7 }), fc.integer({ min: RECURRENCE_MIN_POINTS, max: 96 })], { numRuns: 100 })(
    "the network's forecaster extends any exactly repeating week of daily values (unless a recurrence of order ≤ 4 explains it first): every forecast value is the one a week before",
    (week, n) => {
      const values = Float64Array.from({ length: n }, (_, t) => week[t % 7]!);
      fc.pre(Math.max(...week) - Math.min(...week) > 1e-3 * Math.max(1, ...week.map(Math.abs)));
      const out = forecaster.forecast([values], 14);
      for (let k = 0; k < 14; k++) expect(Math.abs(out[k]! - week[(n + k) % 7]!)).toBeLessThanOrEqual(1e-6 * Math.max(1, ...week.map(Math.abs)));
    },
  );
});

const forecaster = createNetworkForecaster("forecastmodel-1", "D");
