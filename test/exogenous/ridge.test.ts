import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fc, test as fcTest } from "@fast-check/vitest";
import { EXOGENOUS_DEFAULT_PENALTY, fitRidgeRegression } from "../../src/exogenous/index.js";

interface LmCase {
  name: string;
  y: number[];
  X: number[][];
  intercept: number;
  coefficients: (number | null)[];
  fitted: number[];
}
const fixture = JSON.parse(readFileSync(new URL("../fixtures/r-lm/lm-fixture.json", import.meta.url), "utf8")) as { cases: LmCase[] };

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), 1e-300);

describe("penalty 0 equals R's lm (test/fixtures/r-lm, made by make-lm-fixture.R)", () => {
  it("has the fixture cases", () => expect(fixture.cases.length).toBeGreaterThanOrEqual(6));
  for (const c of fixture.cases) {
    it(`${c.name}: coefficients, intercept and fitted values`, () => {
      const fit = fitRidgeRegression(c.X.map((f) => Float64Array.from(f)), Float64Array.from(c.y), { penalty: 0 });
      c.coefficients.forEach((expected, k) => {
        if (expected === null) {
          // lm's NA (aliased or constant): not identified, coefficient 0
          expect(fit.identified[k]).toBe(0);
          expect(fit.coefficients[k]).toBe(0);
        } else {
          expect(fit.identified[k]).toBe(1);
          expect(rel(fit.coefficients[k] as number, expected)).toBeLessThan(1e-9);
        }
      });
      expect(rel(fit.intercept, c.intercept)).toBeLessThan(1e-9);
      const yScale = Math.max(...c.y.map(Math.abs));
      c.fitted.forEach((expected, r) => {
        let value = fit.intercept;
        c.X.forEach((f, k) => (value += (fit.coefficients[k] as number) * (f[r] as number)));
        expect(Math.abs(value - expected)).toBeLessThan(1e-10 * yScale);
      });
    });
  }
});

describe("fitRidgeRegression", () => {
  it("doc example: y = 1 + 2x", () => {
    const fit = fitRidgeRegression([Float64Array.of(1, 2, 3, 4)], Float64Array.of(3, 5, 7, 9), { penalty: 0 });
    expect([fit.intercept, fit.coefficients[0]]).toEqual([1, 2]);
  });

  it("the default penalty shrinks an uncorrelated coefficient by 1 / (1 + penalty)", () => {
    // x centred with population sd 1 and y = 2x exactly
    const x = Float64Array.of(-1, 1, -1, 1);
    const y = x.map((v) => 2 * v);
    const fit = fitRidgeRegression([x], y);
    expect(rel(fit.coefficients[0] as number, 2 / (1 + EXOGENOUS_DEFAULT_PENALTY))).toBeLessThan(1e-14);
  });

  it("a large penalty shrinks coefficients towards 0 and the intercept towards mean(y)", () => {
    const x = Float64Array.of(1, 2, 3, 4, 5);
    const y = Float64Array.of(2, 4, 7, 8, 11);
    const fit = fitRidgeRegression([x], y, { penalty: 1e9 });
    expect(Math.abs(fit.coefficients[0] as number)).toBeLessThan(1e-8);
    expect(fit.intercept).toBeCloseTo(6.4, 6);
  });

  it("degenerate data: no rows, one row, constant response, no features", () => {
    const empty = fitRidgeRegression([new Float64Array(0)], new Float64Array(0));
    expect([empty.intercept, empty.coefficients[0], empty.identified[0]]).toEqual([0, 0, 0]);
    const one = fitRidgeRegression([Float64Array.of(3)], Float64Array.of(5));
    expect([one.intercept, one.coefficients[0]]).toEqual([5, 0]);
    const flat = fitRidgeRegression([Float64Array.of(1, 2, 3)], Float64Array.of(4, 4, 4));
    expect([flat.intercept, flat.coefficients[0]]).toEqual([4, 0]);
    const none = fitRidgeRegression([], Float64Array.of(1, 2, 6));
    expect(none.intercept).toBe(3);
  });

  it("huge and tiny scales stay finite and exact", () => {
    for (const scale of [1e-150, 1e150, 1e300]) {
      const x = Float64Array.of(1, 2, 3, 4).map((v) => v * scale);
      const y = Float64Array.of(3, 5, 7, 9).map((v) => v * scale);
      const fit = fitRidgeRegression([x], y, { penalty: 0 });
      expect(rel(fit.coefficients[0] as number, 2)).toBeLessThan(1e-12);
      expect(rel(fit.intercept, scale)).toBeLessThan(1e-12);
    }
  });

  it("rejects a bad penalty and mismatched lengths (RangeError)", () => {
    expect(() => fitRidgeRegression([], Float64Array.of(1), { penalty: -1 })).toThrow(RangeError);
    expect(() => fitRidgeRegression([], Float64Array.of(1), { penalty: NaN })).toThrow(RangeError);
    expect(() => fitRidgeRegression([Float64Array.of(1)], Float64Array.of(1, 2))).toThrow(/X\[0\] must have length 2/);
  });

  it("does not mutate its inputs", () => {
    const x = Float64Array.of(1, 5, 2, 8);
    const y = Float64Array.of(1, 2, 3, 5);
    fitRidgeRegression([x], y);
    expect(Array.from(x)).toEqual([1, 5, 2, 8]);
    expect(Array.from(y)).toEqual([1, 2, 3, 5]);
  });

  const small = fc.double({ min: -100, max: 100, noNaN: true });
  fcTest.prop([fc.integer({ min: 6, max: 30 }).chain((n) => fc.tuple(fc.array(small, { minLength: n, maxLength: n }), fc.array(small, { minLength: n, maxLength: n }), fc.array(small, { minLength: n, maxLength: n })))], { numRuns: 50 })(
    "penalty 0: residuals are orthogonal to every identified feature and sum to 0",
    ([x1, x2, y]) => {
      const X = [Float64Array.from(x1), Float64Array.from(x2)];
      const fit = fitRidgeRegression(X, Float64Array.from(y), { penalty: 0 });
      const residual = y.map((v, r) => v - fit.intercept - (fit.coefficients[0] as number) * (x1[r] as number) - (fit.coefficients[1] as number) * (x2[r] as number));
      const yScale = Math.max(1, ...y.map(Math.abs));
      expect(Math.abs(residual.reduce((a, b) => a + b, 0))).toBeLessThan(1e-8 * yScale * y.length);
      X.forEach((f, k) => {
        if (fit.identified[k] !== 1) return;
        const fScale = Math.max(...Array.from(f, Math.abs));
        const dot = residual.reduce((a, e, r) => a + e * (f[r] as number), 0);
        expect(Math.abs(dot)).toBeLessThan(1e-7 * yScale * fScale * y.length);
      });
    },
  );
});
