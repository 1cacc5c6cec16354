import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import seedrandom from "seedrandom";
import { cleanSpikes, packSeries, seriesOffsets } from "../../src/series/index.js";
import { seasonal } from "./helpers.js";

const one = (y: Float64Array): Int32Array => Int32Array.of(0, y.length);

const shape = fc.record({
  n: fc.integer({ min: 30, max: 400 }),
  m: fc.constantFrom(1, 4, 7, 12, 24),
  amplitude: fc.double({ min: 0, max: 5, noNaN: true }),
  trend: fc.double({ min: -0.5, max: 0.5, noNaN: true }),
  seed: fc.integer({ min: 0, max: 1_000_000 }),
});

describe("cleanSpikes", () => {
  test.prop([shape], { numRuns: 150 })("a series of season, trend and Gaussian noise has no spike, and comes back as the same array", ({ n, m, amplitude, trend, seed }) => {
    const y = seasonal(n, m, amplitude, 1, seed, trend);
    const cleaned = cleanSpikes(y, one(y), m);
    expect(cleaned.positions.length).toBe(0);
    expect(cleaned.y).toBe(y);
  });

  test.prop([shape, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 30, max: 500, noNaN: true }), fc.boolean()], { numRuns: 200 })(
    "one injected spike of 30 noise sds or more is found and replaced near the value it hid; nothing else changes",
    ({ n, m, amplitude, trend, seed }, where, size, up) => {
      const clean = seasonal(n, m, amplitude, 1, seed, trend);
      const at = 1 + Math.floor(where * (n - 2)) - (where === 1 ? 1 : 0);
      const y = Float64Array.from(clean);
      y[at] = clean[at]! + (up ? size : -size);
      const cleaned = cleanSpikes(y, one(y), m);
      expect(Array.from(cleaned.positions)).toEqual([at]);
      expect(Math.abs(cleaned.y[at]! - clean[at]!)).toBeLessThan(10);
      for (let t = 0; t < n; t++) if (t !== at) expect(cleaned.y[t]).toBe(y[t]);
      expect(y[at]).toBe(clean[at]! + (up ? size : -size)); // the input is not mutated
    },
  );

  test.prop([shape, fc.double({ min: 0.1, max: 0.9, noNaN: true }), fc.double({ min: 20, max: 500, noNaN: true })], { numRuns: 150 })(
    "a level shift is not a spike (the points after it stay away)",
    ({ n, m, amplitude, trend, seed }, where, size) => {
      const y = seasonal(n, m, amplitude, 1, seed, trend);
      const at = Math.floor(where * n);
      for (let t = at; t < n; t++) y[t] = y[t]! + size;
      expect(cleanSpikes(y, one(y), m).positions.length).toBe(0);
    },
  );

  test.prop([fc.integer({ min: 3, max: 12 }), fc.double({ min: 20, max: 500, noNaN: true }), fc.integer({ min: 0, max: 1_000_000 })], { numRuns: 100 })(
    "a peak that comes back every season is not a spike",
    (seasons, size, seed) => {
      const m = 12;
      const y = seasonal(seasons * m, m, 3, 1, seed);
      for (let t = 5; t < y.length; t += m) y[t] = y[t]! + size;
      expect(cleanSpikes(y, one(y), m).positions.length).toBe(0);
    },
  );

  test.prop([fc.integer({ min: 40, max: 300 }), fc.double({ min: 0.05, max: 0.4, noNaN: true }), fc.integer({ min: 0, max: 1_000_000 })], { numRuns: 150 })(
    "an intermittent series (its demands are its signal) is left unchanged",
    (n, share, seed) => {
      const rng = seedrandom(String(seed));
      const y = Float64Array.from({ length: n }, () => (rng() < share ? 1 + Math.floor(rng() * 200) : 0));
      expect(cleanSpikes(y, one(y), 7).positions.length).toBe(0);
    },
  );

  test.prop([fc.array(fc.tuple(shape, fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined })), { minLength: 1, maxLength: 5 }), fc.constantFrom(1, 7, 12)], { numRuns: 60 })(
    "packed series are cleaned one by one: packed positions are each series' own, shifted by its offset",
    (parts, m) => {
      const list = parts.map(([s, where]) => {
        const y = seasonal(s.n, m, s.amplitude, 1, s.seed, s.trend);
        if (where !== undefined) {
          const at = 1 + Math.floor(where * (s.n - 3));
          y[at] = y[at]! + 80;
        }
        return y;
      });
      const { y: packed, sizes } = packSeries(list);
      const offsets = seriesOffsets(sizes);
      const together = cleanSpikes(packed, offsets, m);
      const alone = list.flatMap((y, i) => Array.from(cleanSpikes(y, one(y), m).positions, (p) => p + offsets[i]!));
      expect(Array.from(together.positions)).toEqual(alone);
      list.forEach((y, i) => expect(Array.from(together.y.subarray(offsets[i]!, offsets[i + 1]!))).toEqual(Array.from(cleanSpikes(y, one(y), m).y)));
    },
  );

  test.prop([shape, fc.integer({ min: -200, max: 200 }), fc.double({ min: 0, max: 1, noNaN: true })], { numRuns: 100 })(
    "scaling by a power of two (huge and tiny magnitudes) finds the same spikes and scales the replacements exactly",
    ({ n, m, amplitude, trend, seed }, exponent, where) => {
      const y = seasonal(n, m, amplitude, 1, seed, trend);
      const at = 1 + Math.floor(where * (n - 3));
      y[at] = y[at]! + 60;
      const k = 2 ** exponent;
      const scaled = y.map((v) => v * k);
      const a = cleanSpikes(y, one(y), m);
      const b = cleanSpikes(scaled, one(scaled), m);
      expect(Array.from(b.positions)).toEqual(Array.from(a.positions));
      for (const p of a.positions) expect(b.y[p]).toBe(a.y[p]! * k);
    },
  );

  it("constant, linear, short and empty series are unchanged", () => {
    for (const y of [new Float64Array(50).fill(3), Float64Array.from({ length: 50 }, (_, t) => 2 * t - 7), Float64Array.of(1, 50, 1, 1), new Float64Array(0), Float64Array.of(9)]) {
      const cleaned = cleanSpikes(y, one(y), 7);
      expect(cleaned.positions.length).toBe(0);
      expect(cleaned.y).toBe(y);
    }
  });

  it("the first and last points are never replaced (a spike there cannot be told from a level shift starting)", () => {
    const y = seasonal(60, 1, 0, 1, 3);
    y[0] = 500;
    y[59] = 500;
    expect(cleanSpikes(y, one(y), 1).positions.length).toBe(0);
  });

  it("checks the season length", () => {
    expect(() => cleanSpikes(Float64Array.of(1, 2, 3), one(Float64Array.of(1, 2, 3)), 0)).toThrow(/seasonLength must be an integer >= 1/);
  });
});
