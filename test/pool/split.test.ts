import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { DEFAULT_SERVICE_LIMITS } from "../../src/api/index.js";
import { lazyMovableParts, movableParts, splitRequest, typedPart, typedSplitBounds, type SplitTypedRequest } from "../../src/pool/split.js";
import { nextTurn } from "../../src/pool/pool.js";
import { seriesArb } from "../support/series-arbitrary.js";

const endpoints = ["forecast", "anomaly", "historic"] as const;

function body(y: (number | null)[] | Float64Array): Record<string, unknown> {
  return { series: { y, sizes: [3, 3] }, freq: "D", h: 1 };
}

describe("splitRequest: what the pool sends whole", () => {
  it("a body without missing values is split", () => {
    for (const endpoint of endpoints) expect(splitRequest(endpoint, body([1, 2, 3, 4, 5, 6]), 2, DEFAULT_SERVICE_LIMITS)).toHaveLength(2);
  });

  test.prop([fc.integer({ min: 0, max: 5 }), fc.constantFrom(null, Number.NaN), fc.constantFrom(...endpoints), fc.boolean()])(
    "a missing value (null or NaN, in a list or a Float64Array) anywhere in y: the body runs whole, on every endpoint",
    (at, gap, endpoint, typed) => {
      const y: (number | null)[] = [1, 2, 3, 4, 5, 6];
      y[at] = gap;
      const raw = body(typed ? Float64Array.from(y, (v) => (v === null ? Number.NaN : v)) : y);
      expect(splitRequest(endpoint, raw, 2, DEFAULT_SERVICE_LIMITS)).toBeNull();
      expect(movableParts(endpoint, raw, 2, DEFAULT_SERVICE_LIMITS)).toBeNull();
      // the lazy split: the structure passes, and the part holding the gap is null (the other part is cut)
      const lazy = lazyMovableParts(endpoint, raw, 2, DEFAULT_SERVICE_LIMITS)!;
      expect(lazy.count).toBe(2);
      expect(lazy.part(at < 3 ? 0 : 1)).toBeNull();
      expect(lazy.part(at < 3 ? 1 : 0)?.body).toBeDefined();
    },
  );
});

describe("lazyMovableParts: the pool's split of an object body, one part at a time", () => {
  const requestArb = fc.record({
    series: fc.array(seriesArb(1, 40), { minLength: 1, maxLength: 9 }),
    endpoint: fc.constantFrom(...endpoints),
    parts: fc.integer({ min: 2, max: 6 }),
    typed: fc.boolean(),
    extra: fc.constantFrom<Record<string, unknown>>({}, { level: [80, 95] }, { model: "forecastmodel-1", clean_ex_first: true }),
  });

  test.prop([requestArb])("the same parts as movableParts (bodies, key order, rows, transfer), or null exactly when it gives null", ({ series, endpoint, parts, typed, extra }) => {
    const flat = series.flat();
    const y = typed ? Float64Array.from(flat) : flat;
    const raw = { series: { y, sizes: series.map((s) => s.length) }, freq: "D", h: 2, ...(endpoint === "anomaly" ? { detection_size: 1 } : {}), ...extra };
    const eager = movableParts(endpoint, raw, parts, DEFAULT_SERVICE_LIMITS);
    const lazy = lazyMovableParts(endpoint, raw, parts, DEFAULT_SERVICE_LIMITS);
    if (eager === null) {
      expect(lazy === null || Array.from({ length: lazy.count }, (_, p) => lazy.part(p)).some((part) => part === null)).toBe(true);
      return;
    }
    expect(lazy).not.toBeNull();
    expect(lazy!.count).toBe(eager.length);
    eager.forEach((part, p) => {
      const cut = lazy!.part(p)!;
      expect(JSON.stringify(cut.body)).toBe(JSON.stringify(part.body));
      expect(Object.keys(cut.body)).toEqual(Object.keys(part.body));
      expect(cut.body.series).toEqual(part.body.series);
      expect([cut.index, cut.count, cut.seriesStart, cut.seriesCount, cut.rowStart, cut.rowCount]).toEqual([part.index, part.count, part.seriesStart, part.seriesCount, part.rowStart, part.rowCount]);
      expect(cut.transfer).toEqual([((cut.body.series as { y: Float64Array }).y).buffer]);
    });
    // the caller's y is never a part's: the parts' buffers can move
    expect(lazy!.part(0)!.body.series).not.toHaveProperty("y", y);
  });

  test.prop([requestArb, fc.integer({ min: 0, max: 16 })])(
    "into one shared buffer (lazy: a Float64Array over it; eager: the buffer, when it has room): the same bodies, each y a view at its rows, nothing to move",
    ({ series, endpoint, parts, typed, extra }, spare) => {
      const flat = series.flat();
      const y = typed ? Float64Array.from(flat) : flat;
      const raw = { series: { y, sizes: series.map((s) => s.length) }, freq: "D", h: 2, ...(endpoint === "anomaly" ? { detection_size: 1 } : {}), ...extra };
      const own = movableParts(endpoint, raw, parts, DEFAULT_SERVICE_LIMITS);
      // a buffer with room to spare, stale values in it (a buffer lent again)
      const buffer = new SharedArrayBuffer(8 * (flat.length + spare));
      new Float64Array(buffer).fill(-7);
      const shared = movableParts(endpoint, raw, parts, DEFAULT_SERVICE_LIMITS, buffer);
      const lazy = lazyMovableParts(endpoint, raw, parts, DEFAULT_SERVICE_LIMITS, new Float64Array(buffer, 0, flat.length));
      if (own === null) {
        expect(shared).toBeNull();
        return;
      }
      own.forEach((part, p) => {
        for (const cut of [shared![p]!, lazy!.part(p)!]) {
          expect(JSON.stringify(cut.body)).toBe(JSON.stringify(part.body));
          expect(Object.keys(cut.body)).toEqual(Object.keys(part.body));
          expect(Object.keys(cut.body.series as object)).toEqual(Object.keys(part.body.series as object));
          const view = (cut.body.series as { y: Float64Array }).y;
          expect(view.buffer).toBe(buffer);
          expect([view.byteOffset, view.length]).toEqual([8 * part.rowStart, part.rowCount]);
          expect(cut.transfer).toEqual([]);
        }
      });
      // no room: each part has a buffer of its own again
      if (flat.length > 0) {
        const small = movableParts(endpoint, raw, parts, DEFAULT_SERVICE_LIMITS, new SharedArrayBuffer(8 * flat.length - 8))!;
        small.forEach((part) => expect(part.transfer).toEqual([(part.body.series as { y: Float64Array }).y.buffer]));
      }
    },
  );

  it("a body the API refuses in its structure (sizes not summing to len(y), a string in sizes) or one that couples its series: null", () => {
    expect(lazyMovableParts("forecast", { series: { y: [1, 2, 3, 4], sizes: [2, 3] }, freq: "D", h: 1 }, 2, DEFAULT_SERVICE_LIMITS)).toBeNull();
    expect(lazyMovableParts("forecast", { series: { y: [1, 2, 3, 4], sizes: [2, "2"] }, freq: "D", h: 1 }, 2, DEFAULT_SERVICE_LIMITS)).toBeNull();
    expect(lazyMovableParts("forecast", { series: { y: [1, 2, 3, 4], sizes: [2, 2] }, freq: "D", h: 1, finetune_steps: 3 }, 2, DEFAULT_SERVICE_LIMITS)).toBeNull();
    expect(lazyMovableParts("anomaly", { series: { y: [1, 2, 3, 4], sizes: [2, 2] }, freq: "D", h: 1, detection_size: 1, threshold_method: "multivariate" }, 2, DEFAULT_SERVICE_LIMITS)).toBeNull();
    expect(lazyMovableParts("forecast", { series: { y: [1, 2, 3, 4], sizes: [4] }, freq: "D", h: 1 }, 2, DEFAULT_SERVICE_LIMITS)).toBeNull();
  });
});

describe("typedPart into a shared buffer", () => {
  test.prop([fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 2, maxLength: 8 }), fc.integer({ min: 2, max: 5 })])(
    "the same part as without it, its y a view of the buffer at the part's rows",
    (sizes, parts) => {
      const offsets = Int32Array.from({ length: sizes.length + 1 }, (_, i) => sizes.slice(0, i).reduce((a, b) => a + b, 0));
      const n = offsets[sizes.length] as number;
      const request = {
        series: { y: Float64Array.from({ length: n }, (_, t) => Math.sin(t) * 10), sizes: Int32Array.from(sizes), offsets, X: [] },
        h: 1, levels: [], model: "forecastmodel-1", freq: "D", finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null,
        multivariate: false, modelParameters: null, Xfuture: [], cleanExFirst: true, histExog: [],
      } as unknown as SplitTypedRequest;
      const bounds = typedSplitBounds(request, parts);
      if (bounds === null) return;
      const into = new Float64Array(new SharedArrayBuffer(8 * n)).fill(-1);
      for (let p = 0; p + 1 < bounds.length; p++) {
        const own = typedPart("forecast", request, bounds, p);
        const shared = typedPart("forecast", request, bounds, p, into);
        expect(Array.from(shared.body.series.y)).toEqual(Array.from(own.body.series.y));
        expect(Array.from(shared.body.series.offsets)).toEqual(Array.from(own.body.series.offsets));
        expect([shared.rowStart, shared.rowCount]).toEqual([own.rowStart, own.rowCount]);
        expect(shared.body.series.y.buffer).toBe(into.buffer);
        expect(shared.body.series.y.byteOffset).toBe(8 * own.rowStart);
      }
    },
  );
});

describe("nextTurn: callers waiting at once come back in rounds of their own", () => {
  it("three callers, three rounds of the event loop (a split's work never runs back to back with another's)", async () => {
    let rounds = 0;
    const tick = (): void => {
      rounds++;
      if (rounds < 20) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: number[] = [];
    await Promise.all([1, 2, 3].map(() => nextTurn().then(() => seen.push(rounds))));
    expect(new Set(seen).size).toBe(3);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });
});
