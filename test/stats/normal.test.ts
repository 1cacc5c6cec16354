import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { normalCdf, normalQuantile } from "../../src/stats/index.js";
import { relativeError, rFixtures } from "./fixtures.js";

describe("normalQuantile (AS241)", () => {
  it(`matches R qnorm to 1e-13 relative for ${rFixtures.qnorm.p.length} p from 1e-300 to 1 - 1e-16`, () => {
    const { p, q } = rFixtures.qnorm;
    expect(p[0]).toBe(1e-300);
    expect(p[p.length - 1]).toBeGreaterThanOrEqual(1 - 1e-16);
    let worst = 0;
    p.forEach((pk, k) => {
      const err = relativeError(normalQuantile(pk), q[k] as number);
      worst = Math.max(worst, err);
      expect(err, `p=${pk}`).toBeLessThan(1e-13);
    });
    expect(worst).toBeLessThan(1e-13);
  });

  it("edge values: 0 → -Infinity, 1 → Infinity, 0.5 → 0; RangeError outside [0, 1]", () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(0.5)).toBe(0);
    expect(() => normalQuantile(-1e-20)).toThrow(RangeError);
    expect(() => normalQuantile(1.0000001)).toThrow(RangeError);
    expect(() => normalQuantile(NaN)).toThrow(/probability/);
  });

  test.prop([fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })], { numRuns: 300 })(
    "is monotone in p",
    (a, b) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      expect(normalQuantile(lo)).toBeLessThanOrEqual(normalQuantile(hi));
    },
  );

  test.prop([fc.double({ min: 0.5, max: 1, noNaN: true, maxExcluded: true })], { numRuns: 200 })(
    "is antisymmetric: Φ⁻¹(1 − p) = −Φ⁻¹(p) (1 − p exact for p ≥ 0.5)",
    (p) => {
      expect(normalQuantile(1 - p) + 0).toBe(-normalQuantile(p) + 0); // + 0 folds -0 into 0
    },
  );

  test.prop([fc.double({ min: -37.5, max: 8, noNaN: true })], { numRuns: 500 })(
    "inverts normalCdf to 1e-12: Φ⁻¹(Φ(x)) = x",
    (x) => {
      const back = normalQuantile(normalCdf(x));
      // Φ rounds to 1 − 2^-53 granularity near 1: the achievable accuracy there is eps·Φ/φ.
      const conditioning = (Number.EPSILON * Math.max(1e-300, normalCdf(x))) / Math.exp(-0.5 * x * x) * 2.5066282746310002;
      expect(Math.abs(back - x)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(x)) + 4 * conditioning);
    },
  );

  test.prop([fc.double({ min: 1e-300, max: 0.5, noNaN: true })], { numRuns: 500 })(
    "Φ(Φ⁻¹(p)) = p to 1e-12 relative",
    (p) => {
      expect(relativeError(normalCdf(normalQuantile(p)), p)).toBeLessThan(1e-12);
      const upper = 1 - p;
      expect(relativeError(normalCdf(normalQuantile(upper)), upper)).toBeLessThan(1e-12);
    },
  );

  test.prop([fc.integer({ min: 1, max: 300 })], { numRuns: 100 })("Φ(Φ⁻¹(10^-k)) = 10^-k in the far tail", (k) => {
    const p = 10 ** -k;
    expect(relativeError(normalCdf(normalQuantile(p)), p)).toBeLessThan(1e-12);
  });
});

describe("normalCdf (Cody)", () => {
  it("matches R pnorm to 1e-14 relative from x = -38 to 9", () => {
    const { x, p } = rFixtures.pnorm;
    x.forEach((xk, k) => expect(relativeError(normalCdf(xk), p[k] as number), `x=${xk}`).toBeLessThan(1e-14));
  });

  it("edge values", () => {
    expect(normalCdf(-Infinity)).toBe(0);
    expect(normalCdf(Infinity)).toBe(1);
    expect(normalCdf(NaN)).toBeNaN();
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(-40)).toBe(0);
    expect(normalCdf(40)).toBe(1);
  });

  test.prop([fc.double({ min: -40, max: 40, noNaN: true }), fc.double({ min: -40, max: 40, noNaN: true })], { numRuns: 300 })(
    "is monotone and within [0, 1]",
    (a, b) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      expect(normalCdf(lo)).toBeLessThanOrEqual(normalCdf(hi));
      expect(normalCdf(lo)).toBeGreaterThanOrEqual(0);
      expect(normalCdf(hi)).toBeLessThanOrEqual(1);
    },
  );
});
