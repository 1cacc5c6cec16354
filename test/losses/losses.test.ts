import { describe, expect } from "vitest";
import { test, fc } from "@fast-check/vitest";
import {
  createScaledHuberLoss,
  defaultRobustLoss,
  finetuneLossNames,
  getLoss,
  mapeLoss,
  maeLoss,
  mseLoss,
  poissonLoss,
  POISSON_LOSS_LINEAR_FRACTION,
  rmseLoss,
  smapeLoss,
  type FinetuneLossFunction,
} from "../../src/losses/index.js";
import type { LossName } from "../../src/types.js";

const value = fc.double({ min: -100, max: 100, noNaN: true, noDefaultInfinity: true });
const anyFinite = fc.double({ noNaN: true, noDefaultInfinity: true });

/** Pairs of equal-length arrays. */
function pairs(elem: fc.Arbitrary<number>, actualElem: fc.Arbitrary<number> = elem, maxLength = 8) {
  return fc
    .integer({ min: 1, max: maxLength })
    .chain((n) =>
      fc.tuple(fc.array(elem, { minLength: n, maxLength: n }), fc.array(actualElem, { minLength: n, maxLength: n })),
    );
}

function evalLoss(loss: FinetuneLossFunction, pred: number[], actual: number[]): { value: number; grad: number[] } {
  const g = new Float64Array(pred.length);
  const v = loss(Float64Array.from(pred), Float64Array.from(actual), g);
  return { value: v, grad: Array.from(g) };
}

/** "Nice" values (hundredths in [-100, 100]): no subnormals, so finite differences are meaningful. */
const niceValue = fc.integer({ min: -10000, max: 10000 }).map((k) => k / 100);

/** Whether an element (p, a) is at least `margin` away from the loss's kinks. */
function elementAwayFromKinks(name: LossName, p: number, a: number, margin: number): boolean {
  if (Math.abs(p - a) < margin) return false; // mae, mape, smape, rmse (all at 0), poisson (a < 0)
  if (name === "smape" && Math.abs(p) < margin) return false;
  if (name === "poisson") {
    if (Math.abs(p) < margin) return false;
    if (Math.abs(p - POISSON_LOSS_LINEAR_FRACTION * a) < margin) return false;
    if (Math.abs(a) < 10 * margin) return false; // a log(p / a) has large curvature for tiny a
  }
  return true;
}

/** Arrays of (pred, actual) pairs whose elements avoid the loss's kinks. */
function kinkFreePairs(name: LossName) {
  const element = fc.tuple(niceValue, niceValue).filter(([p, a]) => elementAwayFromKinks(name, p, a, 0.05));
  return fc
    .array(element, { minLength: 1, maxLength: 8 })
    .map((els) => [els.map((e) => e[0]), els.map((e) => e[1])] as [number[], number[]]);
}

/** The default loss's second-derivative jump at |error| / scale = delta: stay a little away from it. */
function awayFromHuberKnee(pred: number[], actual: number[]): boolean {
  let s = 0;
  for (const x of actual) s += Math.abs(x) / actual.length;
  if (s === 0) s = 1;
  return pred.every((p, i) => Math.abs(Math.abs(p - (actual[i] as number)) / s - 0.1) > 1e-3);
}

describe("losses: gradients", () => {
  for (const name of finetuneLossNames) {
    test.prop([kinkFreePairs(name)], { numRuns: 150 })(
      `${name}: gradient matches central finite differences away from kinks`,
      ([pred, actual]) => {
        if (name === "default") fc.pre(awayFromHuberKnee(pred, actual));
        const loss = getLoss(name);
        const { grad } = evalLoss(loss, pred, actual);
        for (let i = 0; i < pred.length; i++) {
          const p = pred[i] as number;
          const h = 1e-6 * Math.max(1, Math.abs(p));
          const up = pred.slice();
          up[i] = p + h;
          const down = pred.slice();
          down[i] = p - h;
          const fd = (evalLoss(loss, up, actual).value - evalLoss(loss, down, actual).value) / (2 * h);
          expect(Math.abs(fd - (grad[i] as number))).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(fd)));
        }
      },
    );
  }

  test("finite differences do catch a wrong gradient (the check can fail)", () => {
    const wrong: FinetuneLossFunction = (p, a, g) => {
      const v = mseLoss(p, a, g);
      g[0] = (g[0] as number) * 1.01;
      return v;
    };
    const pred = [3, 1];
    const actual = [1, 2];
    const { grad } = evalLoss(wrong, pred, actual);
    const h = 1e-6;
    const fd = (evalLoss(wrong, [3 + h, 1], actual).value - evalLoss(wrong, [3 - h, 1], actual).value) / (2 * h);
    expect(Math.abs(fd - (grad[0] as number))).toBeGreaterThan(1e-4 * (1 + Math.abs(fd)));
  });
});

describe("losses: non-negative and zero at a perfect prediction", () => {
  for (const name of finetuneLossNames) {
    test.prop([pairs(anyFinite, anyFinite, 12)], { numRuns: 100 })(`${name}: loss >= 0 for any finite input`, ([pred, actual]) => {
      const { value: v } = evalLoss(getLoss(name), pred, actual);
      // huge values may overflow to Infinity (mse), which is still >= 0; never negative, never NaN
      expect(Number.isNaN(v)).toBe(false);
      expect(v).toBeGreaterThanOrEqual(0);
    });
    test.prop([fc.array(anyFinite, { minLength: 1, maxLength: 12 })], { numRuns: 100 })(
      `${name}: loss is 0 with a zero gradient at a perfect prediction`,
      (actual) => {
        const { value: v, grad } = evalLoss(getLoss(name), actual, actual);
        expect(v).toBe(0);
        for (const g of grad) expect(g === 0).toBe(true);
      },
    );
    test.prop([pairs(niceValue)], { numRuns: 50 })(`${name}: loss > 0 when some prediction is wrong`, ([pred, actual]) => {
      // each loss is strictly positive when an element with a non-zero actual is mispredicted
      const j = actual.findIndex((a, i) => a !== 0 && a !== pred[i]);
      fc.pre(j >= 0);
      if (name === "poisson") fc.pre((actual[j] as number) > 0);
      expect(evalLoss(getLoss(name), pred, actual).value).toBeGreaterThan(0);
    });
  }
});

describe("default loss: robust to one outlier", () => {
  test.prop([pairs(value), fc.nat(), fc.double({ min: -1e12, max: 1e12, noNaN: true })], { numRuns: 200 })(
    "grows at most linearly in one outlier's error: L(p + t e_j) <= L(p) + |t| / (n s)",
    ([pred, actual], jRaw, t) => {
      const n = pred.length;
      const j = jRaw % n;
      let s = 0;
      for (const a of actual) s += Math.abs(a) / n;
      if (s === 0) s = 1;
      const base = evalLoss(defaultRobustLoss, pred, actual).value;
      const moved = pred.slice();
      moved[j] = (moved[j] as number) + t;
      const after = evalLoss(defaultRobustLoss, moved, actual).value;
      expect(after).toBeLessThanOrEqual(base + Math.abs(t) / (n * s) + 1e-9 * (1 + base + Math.abs(t) / (n * s)));
    },
  );

  test("the same linear bound fails for mse (so the check discriminates)", () => {
    const pred = [10, 10];
    const actual = [10, 10];
    const t = 1000;
    const bound = (x: number) => x / (2 * 10);
    expect(evalLoss(defaultRobustLoss, [10 + t, 10], actual).value).toBeLessThanOrEqual(bound(t));
    expect(evalLoss(mseLoss, [10 + t, 10], actual).value).toBeGreaterThan(bound(t));
    expect(evalLoss(mseLoss, pred, actual).value).toBe(0);
  });

  test("an outlier's loss is linear far out: doubling a huge error about doubles its term", () => {
    const actual = [5, 5, 5, 5];
    const l1 = evalLoss(defaultRobustLoss, [5 + 1e6, 5, 5, 5], actual).value;
    const l2 = evalLoss(defaultRobustLoss, [5 + 2e6, 5, 5, 5], actual).value;
    expect(l2 / l1).toBeCloseTo(2, 6);
  });
});

describe("losses: known values (the TSDoc examples)", () => {
  test("scaled Huber with delta 1, scale 2", () => {
    const r = evalLoss(createScaledHuberLoss({ delta: 1, scale: 2 }), [3, 10], [1, 2]);
    expect(r.value).toBeCloseTo(2, 14);
    expect(r.grad).toEqual([0.25, 0.25]);
  });
  test("default", () => {
    expect(evalLoss(defaultRobustLoss, [12, 10], [10, 10]).value).toBeCloseTo(0.075, 14);
    // all-zero actuals: scale 1 (raw units); error 0.05 < delta is quadratic: 0.05^2 / 0.2 / 1
    expect(evalLoss(defaultRobustLoss, [0.05], [0]).value).toBeCloseTo(0.0125, 14);
  });
  test("mae, mse, rmse", () => {
    expect(evalLoss(maeLoss, [1, 5], [2, 2])).toEqual({ value: 2, grad: [-0.5, 0.5] });
    expect(evalLoss(mseLoss, [1, 5], [2, 2])).toEqual({ value: 5, grad: [-1, 3] });
    const r = evalLoss(rmseLoss, [3, 6], [0, 2]);
    expect(r.value).toBeCloseTo(Math.sqrt(12.5), 14);
    expect(r.grad[0]).toBeCloseTo(3 / (2 * Math.sqrt(12.5)), 14);
    expect(r.grad[1]).toBeCloseTo(4 / (2 * Math.sqrt(12.5)), 14);
  });
  test("mape skips zero actuals; all-zero actuals give 0", () => {
    const r = evalLoss(mapeLoss, [11, 3, 7], [10, 4, 0]);
    expect(r.value).toBeCloseTo(0.175, 14);
    expect(r.grad).toEqual([0.05, -0.125, 0]);
    expect(evalLoss(mapeLoss, [3, -2], [0, 0])).toEqual({ value: 0, grad: [0, 0] });
  });
  test("smape: 0/0 := 0 and the subgradient at p = 0 points towards the actual", () => {
    const r = evalLoss(smapeLoss, [3, 0], [1, 0]);
    expect(r.value).toBeCloseTo(0.5, 14);
    expect(r.grad).toEqual([0.125, 0]);
    const z = evalLoss(smapeLoss, [0], [4]);
    expect(z.value).toBe(2);
    expect(z.grad[0]).toBeCloseTo(-2 / 4, 14);
    expect(evalLoss(smapeLoss, [-4], [4]).value).toBe(2);
  });
  test("poisson: log branch, linear tail for negative predictions, zero actuals, negative actuals", () => {
    const r = evalLoss(poissonLoss, [1, -1], [2, 0]);
    expect(r.value).toBeCloseTo((1 - 2 - 2 * Math.log(0.5) + 9) / 2, 14);
    expect(r.grad).toEqual([-0.5, -4.5]);
    // continuity at the threshold t = c a (a = 10, t = 1)
    const below = evalLoss(poissonLoss, [1 - 1e-9], [10]).value;
    const above = evalLoss(poissonLoss, [1 + 1e-9], [10]).value;
    expect(Math.abs(below - above)).toBeLessThan(1e-7);
    // more negative predictions cost more
    expect(evalLoss(poissonLoss, [-5], [3]).value).toBeGreaterThan(evalLoss(poissonLoss, [-1], [3]).value);
    // negative actuals fall back to absolute error
    expect(evalLoss(poissonLoss, [1], [-2])).toEqual({ value: 3, grad: [1] });
    // tiny relative errors stay accurate (series branch) and positive
    const x = 1 + 1e-9 - 1; // the representable relative error
    const tiny = evalLoss(poissonLoss, [1 + 1e-9], [1]).value;
    expect(Math.abs(tiny / ((x * x) / 2 - (x * x * x) / 3) - 1)).toBeLessThan(1e-12);
    expect(tiny).toBeGreaterThan(0);
  });
  test("getLoss maps every name and rejects unknown ones", () => {
    expect(getLoss("default")).toBe(defaultRobustLoss);
    expect(getLoss("mae")).toBe(maeLoss);
    expect(getLoss("poisson")).toBe(poissonLoss);
    expect(() => getLoss("huber" as LossName)).toThrow(RangeError);
    expect(() => getLoss("huber" as LossName)).toThrow(/unknown loss "huber"/);
  });
});

describe("losses: edge cases", () => {
  for (const name of finetuneLossNames) {
    test(`${name}: empty input gives 0; mismatched lengths throw RangeError; inputs are not mutated`, () => {
      const loss = getLoss(name);
      expect(loss(new Float64Array(0), new Float64Array(0), new Float64Array(0))).toBe(0);
      expect(() => loss(new Float64Array(2), new Float64Array(3), new Float64Array(2))).toThrow(RangeError);
      expect(() => loss(new Float64Array(2), new Float64Array(2), new Float64Array(1))).toThrow(/gradOut/);
      const p = Float64Array.from([1, -2, 3]);
      const a = Float64Array.from([2, 2, 0]);
      const g = new Float64Array(3);
      loss(p, a, g);
      expect(Array.from(p)).toEqual([1, -2, 3]);
      expect(Array.from(a)).toEqual([2, 2, 0]);
    });
    test(`${name}: NaN in a prediction or an actual gives a NaN loss (never a silent number)`, () => {
      const v = getLoss(name)(Float64Array.from([NaN, 1]), Float64Array.from([1, 1]), new Float64Array(2));
      expect(Number.isNaN(v)).toBe(true);
      const w = getLoss(name)(Float64Array.from([1, 1]), Float64Array.from([1, NaN]), new Float64Array(2));
      expect(Number.isNaN(w)).toBe(true);
    });
    test(`${name}: constant and one-point inputs`, () => {
      const g = new Float64Array(1);
      expect(getLoss(name)(Float64Array.from([7]), Float64Array.from([7]), g)).toBe(0);
      const gc = new Float64Array(5);
      const v = getLoss(name)(new Float64Array(5).fill(3), new Float64Array(5).fill(4), gc);
      expect(v).toBeGreaterThan(0);
      // every element is alike, so the gradient is too
      for (const x of gc) expect(x).toBe(gc[0]);
    });
  }
  test("huge and tiny values: rmse does not overflow, default is scale-free", () => {
    const r = evalLoss(rmseLoss, [1e300, -1e300], [-1e300, 1e300]);
    expect(r.value / 1e300).toBeCloseTo(2, 12);
    const small = evalLoss(defaultRobustLoss, [1.2e-200, 1e-200], [1e-200, 1e-200]).value;
    const big = evalLoss(defaultRobustLoss, [1.2e200, 1e200], [1e200, 1e200]).value;
    expect(small).toBeCloseTo(0.075, 10);
    expect(big).toBeCloseTo(0.075, 10);
    expect(evalLoss(defaultRobustLoss, [1.7e308, 1.7e308], [1.7e308, 1.7e308]).value).toBe(0);
  });
  test("createScaledHuberLoss rejects a bad delta or scale", () => {
    expect(() => createScaledHuberLoss({ delta: 0 })).toThrow(/delta/);
    expect(() => createScaledHuberLoss({ scale: -1 })).toThrow(/scale/);
    expect(() => createScaledHuberLoss({ scale: NaN })).toThrow(/scale/);
  });
});
