import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { networkShape, WindowFeaturizer, type WindowScale } from "../../src/model/index.js";

const shape = networkShape("forecastmodel-1");
const H = shape.outputLength;
const NAMES = ["naive", "snaive", "ses", "theta", "damped", "drift"] as const;

/** The six projections of `window`, back on the data's scale. */
function projections(window: number[], m: number): Record<(typeof NAMES)[number], number[]> {
  const f = new WindowFeaturizer(shape);
  const row = new Float64Array(f.layout.size);
  const scale: WindowScale = { location: 0, scale: 0, constant: true };
  f.featurize(Float64Array.from(window), m, row, 0, scale);
  const out = {} as Record<(typeof NAMES)[number], number[]>;
  NAMES.forEach((name, p) => {
    out[name] = Array.from({ length: H }, (_, k) => scale.location + scale.scale * row[f.layout.projections + p * H + k]!);
  });
  return out;
}

describe("classical projections", () => {
  it("continue a purely multiplicative seasonal pattern exactly (ratio-to-moving-average factors)", () => {
    const factors = [0.6, 1.4, 1.1, 0.9];
    const y = Array.from({ length: 40 }, (_, t) => 50 * factors[t % 4]!);
    const p = projections(y, 4);
    for (const name of ["ses", "theta", "damped", "drift", "snaive"] as const) {
      p[name].forEach((v, k) => expect(v).toBeCloseTo(50 * factors[(40 + k) % 4]!, 8));
    }
  });

  it("scale the seasonal swing with the level when the series grows (multiplicative) but not when it is additive", () => {
    const factors = [0.7, 1.3, 1.2, 0.8];
    // Level grows 3 % a quarter: the swing of the last year is about 30 % of its level.
    const grow = Array.from({ length: 60 }, (_, t) => 100 * Math.pow(1.03, t) * factors[t % 4]!);
    const p = projections(grow, 4);
    const level = 100 * Math.pow(1.03, 60);
    // Next quarter (position 0, factor 0.7) against the one after (1.3): the gap is a share of the level.
    const gap = p.drift[1]! - p.drift[0]!;
    expect(gap / level).toBeGreaterThan(0.5);
    expect(gap / level).toBeLessThan(0.7);
  });

  it("the damped-trend grid includes an undamped trend: a straight line continues exactly", () => {
    const y = Array.from({ length: 30 }, (_, t) => 3 + 2 * t);
    const p = projections(y, 1);
    p.damped.forEach((v, k) => expect(v).toBeCloseTo(3 + 2 * (30 + k), 8));
    p.drift.forEach((v, k) => expect(v).toBeCloseTo(3 + 2 * (30 + k), 8));
  });

  it("a series with non-positive values is adjusted additively: an additive pattern continues exactly", () => {
    const season = [-2, 3, 1, -2];
    const y = Array.from({ length: 40 }, (_, t) => season[t % 4]!);
    const p = projections(y, 4);
    for (const name of ["ses", "damped", "drift"] as const) p[name].forEach((v, k) => expect(v).toBeCloseTo(season[(40 + k) % 4]!, 8));
  });

  test.prop([
    fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 120 }),
    fc.constantFrom(1, 4, 7, 12, 24, 52),
    fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
  ])("are finite and scale with the data (c > 0), positive or not", (y, m, c) => {
    const a = projections(y, m);
    const b = projections(y.map((v) => v * c), m);
    for (const name of NAMES) {
      a[name].forEach((v, k) => {
        expect(Number.isFinite(v)).toBe(true);
        expect(Math.abs(b[name][k]! - c * v)).toBeLessThanOrEqual(1e-6 * (Math.abs(c * v) + c * Math.max(...y.map(Math.abs))) + 1e-300);
      });
    }
  });

  test.prop([
    fc.array(fc.double({ min: 1e-300, max: 1e300, noNaN: true }), { minLength: 8, maxLength: 120 }),
    fc.constantFrom(4, 7, 12),
  ])("stay finite and within the clip on strictly positive windows of any magnitude (multiplicative path)", (y, m) => {
    const f = new WindowFeaturizer(shape);
    const row = new Float64Array(f.layout.size);
    const scale: WindowScale = { location: 0, scale: 0, constant: true };
    f.featurize(Float64Array.from(y), m, row, 0, scale);
    for (let i = 0; i < f.layout.size; i++) expect(Number.isFinite(row[i]!)).toBe(true);
    for (let i = 0; i < 6 * H; i++) expect(Math.abs(row[f.layout.projections + i]!)).toBeLessThanOrEqual(20);
  });
});
