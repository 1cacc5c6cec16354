import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { defaultModel, networkShape, SeasonsFeaturizer, type WindowScale } from "../../src/model/index.js";
import { zeroMedianRule } from "../../src/model/features-seasons.js";
import { forecast } from "../../src/index.js";

const shape = networkShape("forecastmodel-1-high-frequency");
const H = shape.outputLength;
const NAMES = ["naive", "snaiveDay", "snaiveWeek", "profileDay", "profileWeek", "sesDay", "sesWeek", "theta"] as const;
type Name = (typeof NAMES)[number];

function featurize(y: ArrayLike<number>, day: number, week: number): { row: Float64Array; scale: WindowScale; f: SeasonsFeaturizer } {
  const f = new SeasonsFeaturizer(shape);
  const row = new Float64Array(f.layout.size);
  const scale: WindowScale = { location: 0, scale: 0, constant: true };
  f.featurize(Float64Array.from(y), day, row, 0, scale, week);
  return { row, scale, f };
}

/** The eight projections of `y`, back on the data's scale. */
function projections(y: ArrayLike<number>, day: number, week: number): Record<Name, number[]> {
  const { row, scale, f } = featurize(y, day, week);
  const out = {} as Record<Name, number[]>;
  NAMES.forEach((name, p) => {
    out[name] = Array.from({ length: H }, (_, k) => scale.location + scale.scale * row[f.layout.projections + p * H + k]!);
  });
  return out;
}

/** Hourly values with a daily wave, weekends 3 lower (days 5 and 6 of each week) and a slow trend. */
function weekly(n: number, trend = 0): number[] {
  return Array.from({ length: n }, (_, t) => 10 + Math.sin((2 * Math.PI * t) / 24) + (Math.floor(t / 24) % 7 >= 5 ? -3 : 0) + trend * t);
}

describe("the seasons view (forecastmodel-1-high-frequency)", () => {
  it("a week's seasonal naive and profile continue a repeating week exactly, across a weekend boundary the day's lag gets wrong", () => {
    const all = weekly(5 * 168 + H);
    const n = 5 * 168; // the forecast starts on a Monday after a weekend
    const p = projections(all.slice(0, n), 24, 168);
    const target = all.slice(n);
    p.snaiveWeek.forEach((v, k) => expect(v).toBeCloseTo(target[k]!, 8));
    p.profileWeek.forEach((v, k) => expect(v).toBeCloseTo(target[k]!, 8));
    p.sesWeek.forEach((v, k) => expect(v).toBeCloseTo(target[k]!, 6));
    expect(Math.abs(p.snaiveDay[0]! - target[0]!)).toBeCloseTo(3, 6);
  });

  it("a history shorter than a week falls back to the day's projections", () => {
    const y = weekly(100);
    const p = projections(y, 24, 168);
    expect(p.snaiveWeek).toEqual(p.snaiveDay);
    expect(p.profileWeek).toEqual(p.profileDay);
    expect(p.sesWeek).toEqual(p.sesDay);
  });

  it("a constant history is constant: the forecast is its value exactly", () => {
    const { scale } = featurize(new Array(400).fill(7.5), 24, 168);
    expect(scale.constant).toBe(true);
    expect(scale.location).toBe(7.5);
  });

  it("a one-point history and huge or tiny magnitudes give finite inputs", () => {
    for (const y of [[3], weekly(400).map((v) => v * 1e300), weekly(400).map((v) => v * 1e-300)]) {
      const { row } = featurize(y, 24, 168);
      expect(row.every(Number.isFinite)).toBe(true);
    }
  });

  test.prop([
    // values on a grid of 1/8 (no subnormal near-constants, whose constant test may flip with the scaling's rounding)
    fc.array(fc.integer({ min: -8e6, max: 8e6 }).map((v) => v / 8), { minLength: 1, maxLength: 700 }),
    fc.constantFrom(12, 24, 48),
    fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
  ], { numRuns: 40 })("inputs are finite and do not change when the series is scaled by c > 0", (y, day, c) => {
    const a = featurize(y, day, 7 * day);
    const b = featurize(y.map((v) => v * c), day, 7 * day);
    expect(a.row.every(Number.isFinite)).toBe(true);
    expect(b.scale.constant).toBe(a.scale.constant);
    if (a.scale.constant) return;
    for (let i = 0; i < a.row.length; i++) expect(b.row[i]!).toBeCloseTo(a.row[i]!, 6);
    expect(b.scale.scale / c).toBeCloseTo(a.scale.scale, 6);
  });

  test.prop([fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 2, maxLength: 400 })], { numRuns: 30 })(
    "featurising reuses its buffers: the same history gives the same row after any other history",
    (y) => {
      const f = new SeasonsFeaturizer(shape);
      const row1 = new Float64Array(f.layout.size);
      const row2 = new Float64Array(f.layout.size);
      const s: WindowScale = { location: 0, scale: 0, constant: true };
      f.featurize(Float64Array.from(y), 24, row1, 0, s, 168);
      f.featurize(Float64Array.from(weekly(900)), 24, row2, 0, s, 168);
      f.featurize(Float64Array.from(y), 24, row2, 0, s, 168);
      expect(Array.from(row2)).toEqual(Array.from(row1));
    },
  );
});

describe("forecastmodel-1-high-frequency through forecast", () => {
  // fmhf-v1 forecast the weekend on (mean error 2.2 of the 3 drop); fmhf-v2, trained with more weekly
  // patterns, has 1.3: it starts near the weekend's level and reaches the weekday's in about 6 hours.
  it("knows Monday from Sunday: after a weekend its error is less than half of a day's lag, which repeats the weekend", () => {
    const all = weekly(5 * 168 + 48);
    const n = 5 * 168;
    const r = forecast({ series: { y: all.slice(0, n), sizes: [n] }, freq: "H", h: 48, model: "forecastmodel-1-high-frequency" });
    let net = 0;
    let dayLag = 0;
    for (let k = 0; k < 48; k++) {
      net += Math.abs(r.mean[k]! - all[n + k]!) / 48;
      dayLag += Math.abs(all[n - 24 + (k % 24)]! - all[n + k]!) / 48;
    }
    expect(dayLag).toBeCloseTo(3, 6);
    expect(net).toBeLessThan(dayLag / 2);
  });

  it("is the default for forecasts of hourly to 5-minute data, and of per-minute data beyond 48 steps; a named model is kept", () => {
    expect([defaultModel("H"), defaultModel("h"), defaultModel("30min"), defaultModel("15min"), defaultModel("10min"), defaultModel("5min")]).toEqual(Array(6).fill("forecastmodel-1-high-frequency"));
    expect([defaultModel("min"), defaultModel("min", 48), defaultModel("2h"), defaultModel("D"), defaultModel("M"), defaultModel("s", 1440)]).toEqual(Array(6).fill("forecastmodel-1"));
    expect([defaultModel("min", 49), defaultModel("T", 1440)]).toEqual(["forecastmodel-1-high-frequency", "forecastmodel-1-high-frequency"]);
    // through the API: a per-minute forecast a day ahead is the high-frequency network's, 24 minutes ahead forecastmodel-1's
    const minutes = Array.from({ length: 3 * 1440 }, (_, t) => 50 + 10 * Math.sin((2 * Math.PI * t) / 1440) + (t % 7) / 7);
    const day = forecast({ series: { y: minutes, sizes: [minutes.length] }, freq: "min", h: 1440 });
    expect(day.mean).toEqual(forecast({ series: { y: minutes, sizes: [minutes.length] }, freq: "min", h: 1440, model: "forecastmodel-1-high-frequency" }).mean);
    expect(day.warnings ?? []).toEqual([]);
    const soon = forecast({ series: { y: minutes, sizes: [minutes.length] }, freq: "min", h: 24 });
    expect(soon.mean).toEqual(forecast({ series: { y: minutes, sizes: [minutes.length] }, freq: "min", h: 24, model: "forecastmodel-1" }).mean);
    const y = weekly(400);
    const byDefault = forecast({ series: { y, sizes: [400] }, freq: "H", h: 30 });
    const named = forecast({ series: { y, sizes: [400] }, freq: "H", h: 30, model: "forecastmodel-1-high-frequency" });
    const fm1 = forecast({ series: { y, sizes: [400] }, freq: "H", h: 30, model: "forecastmodel-1" });
    expect(byDefault.mean).toEqual(named.mean);
    expect(byDefault.mean).not.toEqual(fm1.mean);
    // 30 steps are within its native 48: no horizon warning
    expect(byDefault.warnings ?? []).toEqual([]);
  });
});

describe("zeroMedianRule", () => {
  test.prop([
    fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 200 }),
    fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 1, maxLength: 60 }),
    fc.constantFrom(1, 4, 24),
  ])("a non-negative history gets no negative forecast, and a phase zero on most days is forecast 0", (history, raw, day) => {
    const y = Float64Array.from(history);
    const f = Float64Array.from(raw);
    zeroMedianRule(y, day, f, 0, f.length);
    const cycles = Math.min(8, Math.floor(y.length / day));
    f.forEach((v, k) => {
      expect(v).toBeGreaterThanOrEqual(0);
      if (cycles < 2) return;
      let zeros = 0;
      for (let c = 0; c < cycles; c++) if (y[y.length - day + (k % day) - c * day] === 0) zeros++;
      if (2 * zeros > cycles) expect(v).toBe(0);
      else expect(v).toBe(Math.max(0, raw[k]!));
    });
  });

  it("leaves a series with a negative value in its last days untouched", () => {
    const f = Float64Array.of(-1, 0.5);
    zeroMedianRule(Float64Array.of(0, 0, -1, 0, 0, 0), 2, f, 0, 2);
    expect(Array.from(f)).toEqual([-1, 0.5]);
  });
});
