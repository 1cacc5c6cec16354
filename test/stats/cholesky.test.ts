import { describe, expect } from "vitest";
import { test, fc } from "@fast-check/vitest";
import { choleskyInPlace, choleskySolve } from "../../src/stats/index.js";

/** A = Mᵀ M + δ I for a random m × m matrix M: symmetric positive definite. */
const spd = fc.integer({ min: 1, max: 12 }).chain((m) =>
  fc.record({
    m: fc.constant(m),
    entries: fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: m * m, maxLength: m * m }),
    b: fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: m, maxLength: m }),
    delta: fc.double({ min: 0.1, max: 10, noNaN: true }),
  }),
);

function gramOf(m: number, entries: readonly number[], delta: number): Float64Array {
  const a = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let k = 0; k < m; k++) s += entries[k * m + i]! * entries[k * m + j]!;
      a[i * m + j] = s + (i === j ? delta : 0);
    }
  }
  return a;
}

describe("choleskyInPlace / choleskySolve", () => {
  test.prop([spd])("L Lᵀ reproduces A, and the solve gives A x = b (relative to the scale of A and x)", ({ m, entries, b, delta }) => {
    const a = gramOf(m, entries, delta);
    const l = a.slice();
    choleskyInPlace(l, m);
    let scale = 0;
    for (const v of a) scale = Math.max(scale, Math.abs(v));
    for (let i = 0; i < m; i++) {
      for (let j = 0; j <= i; j++) {
        let s = 0;
        for (let k = 0; k <= j; k++) s += l[i * m + k]! * l[j * m + k]!;
        expect(Math.abs(s - a[i * m + j]!)).toBeLessThanOrEqual(1e-10 * scale);
      }
    }
    const x = Float64Array.from(b);
    choleskySolve(l, m, x);
    let xScale = 0;
    for (const v of x) xScale = Math.max(xScale, Math.abs(v));
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let j = 0; j < m; j++) s += a[i * m + j]! * x[j]!;
      expect(Math.abs(s - b[i]!)).toBeLessThanOrEqual(1e-8 * (scale * xScale + Math.abs(b[i]!) + 1));
    }
  });

  test.prop([fc.integer({ min: 2, max: 8 }), fc.integer({ min: 0, max: 7 })])("a column equal to an earlier one is dropped, the others are not", (m, at) => {
    const copy = Math.max(1, at % m);
    // columns of a design: e_k, except column `copy` repeats column 0
    const design = Array.from({ length: m }, (_, c) => Array.from({ length: m }, (_, r) => (c === copy ? (r === 0 ? 1 : 0) : r === c ? 1 : 0) + (r === m - 1 ? 0.5 : 0)));
    const a = new Float64Array(m * m);
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) a[i * m + j] = design[i]!.reduce((s, v, r) => s + v * design[j]![r]!, 0);
    const dropped = new Uint8Array(m);
    choleskyInPlace(a, m, dropped, 1e-9);
    expect(Array.from(dropped)).toEqual(Array.from({ length: m }, (_, j) => (j === copy ? 1 : 0)));
  });
});
