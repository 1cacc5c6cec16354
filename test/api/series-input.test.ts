import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { ValidationError, type ErrorItem } from "../../src/api/errors.js";
import { packSeries } from "../../src/series/index.js";
import { checkSeriesInput, validateSeriesInput } from "../../src/api/series-input.js";
import { UNLIMITED, validateEndpointBody } from "../../src/api/requests.js";
import { validationDetail } from "./helpers.js";

/** The errors of an input, as "type loc" strings. */
function problems(input: unknown, options?: Parameters<typeof checkSeriesInput>[1]): string[] {
  return checkSeriesInput(input, options).errors.map((e) => `${e.type} ${e.loc.join(".")}`);
}
function errorsOf(input: unknown, options?: Parameters<typeof checkSeriesInput>[1]): ErrorItem[] {
  return validationDetail(() => validateSeriesInput(input, options));
}

describe("validateSeriesInput: valid input", () => {
  it("builds SeriesData with offsets and feature-major X", () => {
    const s = validateSeriesInput({ y: [1, 2, 3, 4, 5], sizes: [2, 3], X: [[0, 1, 0, 1, 0], [5, 5, 5, 5, 5]] });
    expect(s.y).toBeInstanceOf(Float64Array);
    expect(Array.from(s.y)).toEqual([1, 2, 3, 4, 5]);
    expect(Array.from(s.sizes)).toEqual([2, 3]);
    expect(Array.from(s.offsets)).toEqual([0, 2, 5]);
    expect(s.X.map((f) => Array.from(f))).toEqual([[0, 1, 0, 1, 0], [5, 5, 5, 5, 5]]);
  });

  it("treats X: null or absent as no features, ignores unknown properties, accepts typed arrays", () => {
    expect(validateSeriesInput({ y: [1], sizes: [1], X: null }).X).toEqual([]);
    expect(validateSeriesInput({ y: [1], sizes: [1], extra: "ignored" }).X).toEqual([]);
    expect(Array.from(validateSeriesInput({ y: new Float64Array([1, 2]), sizes: new Int32Array([2]) }).y)).toEqual([1, 2]);
  });

  it("returns typed X_future when it is valid", () => {
    const check = checkSeriesInput({ y: [1, 2, 3], sizes: [1, 2], X: [[1, 2, 3]] }, { XFuture: [[7, 8, 9, 10]], h: 2 });
    expect(check.errors).toEqual([]);
    expect(check.Xfuture.map((f) => Array.from(f))).toEqual([[7, 8, 9, 10]]);
  });

  test.prop([fc.array(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 6 })], { numRuns: 100 })(
    "accepts any packed list of series, and never mutates the input",
    (list) => {
      const { y, sizes } = packSeries(list);
      const input = Object.freeze({ y: Object.freeze(Array.from(y)), sizes: Object.freeze(Array.from(sizes)), X: Object.freeze([Object.freeze(Array.from(y))]) });
      const snapshot = JSON.stringify(input);
      const s = validateSeriesInput(input);
      expect(JSON.stringify(input)).toBe(snapshot);
      expect(Array.from(s.y)).toEqual(Array.from(y));
      expect(s.offsets[s.sizes.length]).toBe(y.length);
    },
  );
});

describe("validateSeriesInput: every rule names the field and the index", () => {
  it("sizes not summing to len(y) → value_error at series.sizes, message with both numbers", () => {
    const [e, ...rest] = errorsOf({ y: [1, 2, 3], sizes: [1, 1] });
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ type: "value_error", loc: ["body", "series", "sizes"] });
    expect(e!.msg).toBe("Value error, sizes must sum to len(y) = 3, got 2");
  });

  it("a size < 1 → greater_than_equal at series.sizes.<i>", () => {
    const errors = errorsOf({ y: [1, 2], sizes: [2, 0] });
    expect(errors[0]).toMatchObject({ type: "greater_than_equal", loc: ["body", "series", "sizes", 1], input: 0, ctx: { ge: 1 } });
    expect(problems({ y: [1, 2], sizes: [-3, 5] })).toEqual(["greater_than_equal body.series.sizes.0"]);
  });

  it("a size that is not an integer (1.5, \"2\", true, null) → int_type at series.sizes.<i> (strict, no coercion)", () => {
    expect(problems({ y: [1, 2, 3, 4], sizes: [1.5, "2", true, null] })).toEqual([
      "int_type body.series.sizes.0",
      "int_type body.series.sizes.1",
      "int_type body.series.sizes.2",
      "int_type body.series.sizes.3",
    ]);
  });

  it("empty sizes → too_short at series.sizes", () => {
    expect(errorsOf({ y: [], sizes: [] })[0]).toMatchObject({ type: "too_short", loc: ["body", "series", "sizes"], ctx: { min_length: 1 } });
  });

  it("null / string / boolean in y → float_type at series.y.<i>; NaN / ±Infinity → finite_number", () => {
    const errors = errorsOf({ y: [1, null, "3", true, NaN, Infinity, -Infinity, 8], sizes: [8] });
    expect(errors.map((e) => `${e.type} ${e.loc.join(".")}`)).toEqual([
      "float_type body.series.y.1",
      "float_type body.series.y.2",
      "float_type body.series.y.3",
      "finite_number body.series.y.4",
      "finite_number body.series.y.5",
      "finite_number body.series.y.6",
    ]);
    expect(errors[0]!.msg).toBe("Input should be a valid number");
    expect(errors[3]!.msg).toBe("Input should be a finite number");
    expect(errors[1]!.input).toBe("3");
  });

  it("a non-finite or missing value in X → its feature and row index", () => {
    expect(problems({ y: [1, 2, 3], sizes: [3], X: [[0, 0, 0], [0, null, NaN]] })).toEqual([
      "float_type body.series.X.1.1",
      "finite_number body.series.X.1.2",
    ]);
  });

  it("an X[k] of the wrong length → value_error at series.X.<k> naming len(y)", () => {
    const errors = errorsOf({ y: [1, 2, 3], sizes: [3], X: [[1, 2, 3], [1, 2]] });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ type: "value_error", loc: ["body", "series", "X", 1] });
    expect(errors[0]!.msg).toContain("X[1] must have len(y) = 3 values");
    expect(errors[0]!.msg).toContain("got 2");
  });

  it("X or X[k] that is not a list → list_type at its position", () => {
    expect(problems({ y: [1], sizes: [1], X: 5 })).toEqual(["list_type body.series.X"]);
    expect(problems({ y: [1], sizes: [1], X: [[1], "a", [2, 3]] })).toEqual(["list_type body.series.X.1", "value_error body.series.X.2"]);
  });

  it("X_future of the wrong length → value_error at X_future.<k> naming len(sizes) * h", () => {
    const options = { XFuture: [[1, 2, 3, 4], [1, 2, 3]], h: 2 };
    const errors = errorsOf({ y: [1, 2, 3], sizes: [1, 2], X: [[1, 2, 3], [4, 5, 6]] }, options);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ type: "value_error", loc: ["body", "X_future", 1] });
    expect(errors[0]!.msg).toContain("len(sizes) * h = 4");
  });

  it("X_future with a different number of features than X, or bad values → named", () => {
    expect(problems({ y: [1, 2], sizes: [2], X: [[1, 2]] }, { XFuture: [[1], [2]], h: 1 })).toEqual(["value_error body.X_future"]);
    expect(problems({ y: [1, 2], sizes: [2], X: [[1, 2]] }, { XFuture: [[1, null]], h: 2 })).toEqual(["float_type body.X_future.0.1"]);
    expect(problems({ y: [1, 2], sizes: [2] }, { XFuture: "x", h: 2 })).toEqual(["list_type body.X_future"]);
    expect(problems({ y: [1, 2], sizes: [2] }, { XFuture: [[1, 2]], h: 2, XFutureLoc: ["body", "series", "X_future"] })).toEqual([
      "value_error body.series.X_future",
    ]);
  });

  it("missing or mistyped series, y, sizes → missing / model_attributes_type / list_type", () => {
    expect(problems(undefined)).toEqual(["missing body.series"]);
    expect(problems([1, 2])).toEqual(["model_attributes_type body.series"]);
    expect(problems(null)).toEqual(["model_attributes_type body.series"]);
    expect(problems({})).toEqual(["missing body.series.y", "missing body.series.sizes"]);
    expect(problems({ y: "1,2", sizes: 2 })).toEqual(["list_type body.series.y", "list_type body.series.sizes"]);
  });

  it("collects all problems at once, in field order", () => {
    const errors = errorsOf({ y: [1, null, 3, 4], sizes: [2, 0, 3], X: [[1, 2], [1, 2, 3, Infinity]] }, { XFuture: [[1]], h: 2 });
    expect(errors.map((e) => `${e.type} ${e.loc.join(".")}`)).toEqual([
      "float_type body.series.y.1",
      "greater_than_equal body.series.sizes.1",
      "finite_number body.series.X.1.3",
      "value_error body.series.X.0",
      "value_error body.X_future",
    ]);
    expect(new ValidationError(errors).message).toContain("body.series.y.1");
  });

  it("uses the location given by the caller", () => {
    expect(problems({ y: [1], sizes: [2] }, { loc: ["body", "df"] })).toEqual(["value_error body.df.sizes"]);
  });

  test.prop([fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 30 }), fc.nat(), fc.constantFrom(null, NaN, Infinity, "1", undefined)], {
    numRuns: 100,
  })("a single bad value anywhere in y is reported at exactly its index", (values, at, bad) => {
    const index = at % values.length;
    const y: unknown[] = [...values];
    y[index] = bad;
    const errors = errorsOf({ y, sizes: [values.length] });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.loc).toEqual(["body", "series", "y", index]);
  });
});

describe("checkSeriesInput agrees with the API's validation of body.series", () => {
  /** The API's items about `series` for a forecast body carrying it (empty when it passes). */
  function apiItems(series: unknown): string[] {
    try {
      // the strict form (forecasts, anomaly detection and the historic forecast also take null and NaN in y as missing values,
      // which checkSeriesInput refuses; a fine-tune body reads them so only when asked): the fine-tune body's series
      validateEndpointBody("finetune", { series, freq: "D" }, { core: true, limits: UNLIMITED }); // no work budget, which checkSeriesInput does not judge
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      return (e as ValidationError).detail.filter((d) => d.loc[1] === "series").map((d) => `${d.type}|${d.loc.join(".")}|${d.msg}`);
    }
  }
  const element = fc.oneof(
    fc.double({ noNaN: false }), fc.integer({ min: -3, max: 5 }), fc.constant(null), fc.string({ maxLength: 2 }), fc.boolean(),
  );
  const list = (item: fc.Arbitrary<unknown>) => fc.oneof({ weight: 5, arbitrary: fc.array(item, { maxLength: 6 }) }, fc.constant(undefined), fc.constant("1,2"), fc.integer());
  const seriesArb = fc.oneof(
    { weight: 8, arbitrary: fc.record({ y: list(element), sizes: list(fc.oneof(fc.integer({ min: -1, max: 6 }), fc.double(), fc.string({ maxLength: 1 }))), X: fc.oneof(fc.constant(undefined), fc.constant(null), fc.array(list(element), { maxLength: 2 })) }, { requiredKeys: [] }) },
    fc.constant(null), fc.integer(), fc.array(fc.integer(), { maxLength: 2 }), fc.string({ maxLength: 3 }),
  );

  test.prop([seriesArb], { numRuns: 500 })("every API item about series is one of the validator's (same type, loc and message); both pass or both fail", (series) => {
    const mine = checkSeriesInput(series).errors.map((d) => `${d.type}|${d.loc.join(".")}|${d.msg}`);
    const api = apiItems(series);
    for (const a of api) expect(mine).toContain(a);
    // The API stops after field errors before checking rules across fields, so it may report fewer items, never none when there are some.
    if (api.length === 0) expect(mine.filter((m) => !m.includes("X_future"))).toEqual([]);
    else expect(mine.length).toBeGreaterThan(0);
  });

  test.prop([seriesArb], { numRuns: 500 })("structureOnly: the same items but those about y's own items, no series; y's items never read", (series) => {
    const key = (d: ErrorItem) => `${d.type}|${d.loc.join(".")}|${d.msg}`;
    const full = checkSeriesInput(series).errors.map(key);
    const aboutYItems = (k: string) => /^[^|]*\|body\.series\.y\.\d+\|/.test(k);
    const structure = checkSeriesInput(series, { structureOnly: true });
    expect(structure.errors.map(key)).toEqual(full.filter((k) => !aboutYItems(k)));
    expect(structure.series).toBeNull();
    // a y whose items throw when read: the structure check does not touch them (it reads the length)
    const y = (series as { y?: unknown } | null)?.y;
    if (Array.isArray(y)) {
      const trap = new Proxy(y, { get: (t, p) => (typeof p === "string" && /^\d+$/.test(p) ? (() => { throw new Error("read"); })() : Reflect.get(t, p)) });
      expect(checkSeriesInput({ ...(series as object), y: trap }, { structureOnly: true }).errors.map(key)).toEqual(full.filter((k) => !aboutYItems(k)));
    }
  });
});
