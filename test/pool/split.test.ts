import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { DEFAULT_SERVICE_LIMITS } from "../../src/api/index.js";
import { movableParts, splitRequest } from "../../src/pool/split.js";

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
    },
  );
});
