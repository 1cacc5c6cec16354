import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { ArrayCache } from "../../src/stats/array-cache.js";

describe("ArrayCache", () => {
  test.prop([fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 })), { maxLength: 60 }), fc.integer({ min: 0, max: 100 })])(
    "take gives an array of the length asked, never one handed out and not given back; the values kept stay within the bound",
    (ops, maxValues) => {
      const cache = new ArrayCache(maxValues);
      const out = new Set<Float64Array>();
      for (const [isTake, n] of ops) {
        if (isTake || out.size === 0) {
          const a = cache.take(n);
          expect(a.length).toBe(n);
          expect(out.has(a)).toBe(false);
          out.add(a);
        } else {
          const a = [...out][n % out.size]!;
          out.delete(a);
          cache.give(a);
        }
        let kept = 0;
        for (const list of (cache as unknown as { kept: Map<number, Float64Array[]> }).kept.values()) for (const a of list) kept += a.length;
        expect(kept).toBeLessThanOrEqual(maxValues);
      }
    },
  );

  it("a view of a larger buffer is not kept (its buffer may be somebody else's); giving one array twice keeps it once", () => {
    const cache = new ArrayCache(1000);
    const view = new Float64Array(20).subarray(5, 15);
    cache.give(view);
    expect(cache.take(10)).not.toBe(view);
    const a = new Float64Array(10);
    cache.give(a, a);
    expect(cache.take(10)).toBe(a);
    expect(cache.take(10)).not.toBe(a);
  });

  it("refuses a bound that is not a whole number", () => {
    expect(() => new ArrayCache(-1)).toThrow(RangeError);
    expect(() => new ArrayCache(1.5)).toThrow(/maxValues/);
  });
});
