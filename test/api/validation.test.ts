import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import type { ErrorItem } from "../../src/api/errors.js";
import { echoInput, locateJsonError, readJsonBody } from "../../src/api/json.js";
import { Type } from "typebox";
import { ErrorCollector, INVALID, expectedLiteralText, validateAgainst, type ApiSchema } from "../../src/api/schema-validator.js";
import { SERIES_SCHEMA } from "../../src/api/schemas.js";
import { checkRequestLimits, DEFAULT_SERVICE_LIMITS, resolveLimits, UNLIMITED, validateEndpointBody, toForecastRequest } from "../../src/api/requests.js";
import { validationDetail as detailOf } from "./helpers.js";

function errorsOf(schema: ApiSchema, value: unknown): ErrorItem[] {
  const c = new ErrorCollector();
  validateAgainst(schema, value, ["body", "x"], c);
  return c.items;
}

const base = { series: { y: [1, 2, 3, 4, 5, 6], sizes: [3, 3] }, freq: "D", h: 2 };
const forecastBody = (extra: Record<string, unknown>) => ({ ...base, ...extra });
const validate = (body: unknown) => validateEndpointBody("forecast", body, { core: false, limits: DEFAULT_SERVICE_LIMITS });

describe("strict types, as pydantic v2 strict mode", () => {
  const int: ApiSchema = Type.Integer({ exclusiveMinimum: 0 });
  it.each([
    ["3", "int_type"],
    [1.5, "int_type"],
    [true, "int_type"],
    [null, "int_type"],
    [2 ** 60, "int_type"],
    [0, "greater_than"],
  ])("integer field given %j gives %s", (input, type) => {
    const errs = errorsOf(int, input);
    expect(errs).toHaveLength(1);
    expect(errs[0]?.type).toBe(type);
    expect(errs[0]?.input).toEqual(input);
    expect(errs[0]?.loc).toEqual(["body", "x"]);
  });

  it("greater_than carries ctx {gt} and pydantic's message", () => {
    expect(errorsOf(int, -2)[0]).toEqual({ type: "greater_than", loc: ["body", "x"], msg: "Input should be greater than 0", input: -2, ctx: { gt: 0 } });
  });

  it.each([
    ["1", "float_type"],
    [true, "float_type"],
    [null, "float_type"],
    [[1], "float_type"],
    [NaN, "finite_number"],
    [Infinity, "finite_number"],
  ])("number field given %j gives %s", (input, type) => {
    expect(errorsOf(Type.Number(), input)[0]?.type).toBe(type);
  });

  it("non-finite inputs are echoed as strings so the body stays JSON", () => {
    expect(errorsOf(Type.Number(), -Infinity)[0]?.input).toBe("-Infinity");
  });

  it("booleans: 'true' and 1 are not booleans", () => {
    expect(errorsOf(Type.Boolean(), "true")[0]?.type).toBe("bool_type");
    expect(errorsOf(Type.Boolean(), 1)[0]?.type).toBe("bool_type");
    expect(errorsOf(Type.Boolean(), false)).toEqual([]);
  });

  it("strings, patterns, literals, lists, dicts", () => {
    expect(errorsOf(Type.String(), 5)[0]?.type).toBe("string_type");
    const p = errorsOf(Type.String({ pattern: "^[a-z]{1,3}$" }), "abcd")[0];
    expect(p).toMatchObject({ type: "string_pattern_mismatch", msg: "String should match pattern '^[a-z]{1,3}$'", ctx: { pattern: "^[a-z]{1,3}$" } });
    const l = errorsOf(Type.Enum(["D", "M", "H", "W"]), "Q")[0];
    expect(l).toMatchObject({ type: "literal_error", msg: "Input should be 'D', 'M', 'H' or 'W'", ctx: { expected: "'D', 'M', 'H' or 'W'" } });
    expect(errorsOf(Type.Enum([1, 2, 3, 4, 5]), "1")[0]?.type).toBe("literal_error");
    expect(errorsOf(Type.Array(Type.Number()), { 0: 1 })[0]?.type).toBe("list_type");
    expect(errorsOf(Type.Record(Type.String(), Type.Unknown()), [1])[0]?.type).toBe("dict_type");
    expect(errorsOf(Type.Object({}, { title: "M" }), "x")[0]?.type).toBe("model_attributes_type");
  });

  it("too_short carries pydantic's ctx", () => {
    expect(errorsOf(Type.Array(Type.Number(), { minItems: 1 }), [])[0]).toEqual({
      type: "too_short",
      loc: ["body", "x"],
      msg: "List should have at least 1 item after validation, not 0",
      input: [],
      ctx: { field_type: "List", min_length: 1, actual_length: 0 },
    });
  });

  it("literal text reads like pydantic's", () => {
    expect(expectedLiteralText(["a"])).toBe("'a'");
    expect(expectedLiteralText(["a", "b"])).toBe("'a' or 'b'");
    expect(expectedLiteralText([1, 2, 3])).toBe("1, 2 or 3");
  });
});

describe("request bodies", () => {
  it("reports every field error at once, in schema order", () => {
    const items = detailOf(() => validate({ series: { y: [1, "2"], sizes: [2.5] }, freq: "X", h: "3", level: [100], multivariate: "true" }));
    expect(items.map((i) => [i.type, i.loc.join(".")])).toEqual([
      ["float_type", "body.series.y.1"],
      ["int_type", "body.series.sizes.0"],
      ["literal_error", "body.freq"],
      ["int_type", "body.h"],
      ["less_than", "body.level.0"],
      ["bool_type", "body.multivariate"],
    ]);
  });

  it("missing fields echo the parent object as input, like FastAPI", () => {
    const items = detailOf(() => validate({ series: { y: [1] }, h: 1 }));
    expect(items).toEqual([
      { type: "missing", loc: ["body", "series", "sizes"], msg: "Field required", input: { y: [1] } },
      { type: "missing", loc: ["body", "freq"], msg: "Field required", input: { series: { y: [1] }, h: 1 } },
    ]);
  });

  it("a body that is not an object is model_attributes_type at ['body']", () => {
    for (const body of [[1, 2], 3, "x", true]) {
      expect(detailOf(() => validate(body))[0]).toMatchObject({ type: "model_attributes_type", loc: ["body"] });
    }
  });

  it("cross-field rules run only after the fields are valid, as value_error", () => {
    const items = detailOf(() => validate(forecastBody({ series: { y: [1, 2, 3], sizes: [2, 2], X: [[1, 2]] } })));
    expect(items).toEqual([
      { type: "value_error", loc: ["body", "series", "sizes"], msg: "Value error, sizes must sum to len(y) = 3, got 4" },
      { type: "value_error", loc: ["body", "series", "X", 0], msg: "Value error, X[0] must have len(y) = 3 values, got 2" },
      expect.objectContaining({ type: "value_error", loc: ["body", "X_future"] }),
    ]);
  });

  it("X_future: one array of len(sizes) * h per feature", () => {
    const ok = validate(forecastBody({ series: { y: [1, 2, 3, 4], sizes: [2, 2], X: [[1, 2, 3, 4]] }, X_future: [[1, 2, 3, 4]] }));
    expect(ok.X_future?.[0]).toEqual(Float64Array.of(1, 2, 3, 4));
    const bad = detailOf(() => validate(forecastBody({ series: { y: [1, 2, 3, 4], sizes: [2, 2], X: [[1, 2, 3, 4]] }, X_future: [[1, 2, 3]] })));
    expect(bad[0]).toMatchObject({ loc: ["body", "X_future", 0], msg: "Value error, X_future[0] must have len(sizes) * h = 4 values, got 3" });
    // every feature historical: no future values needed
    expect(() => validate(forecastBody({ series: { y: [1, 2, 3, 4], sizes: [2, 2], X: [[1, 2, 3, 4]] }, hist_exog: [0] }))).not.toThrow();
    expect(detailOf(() => validate(forecastBody({ X_future: [[1, 2, 3, 4]] })))[0]?.loc).toEqual(["body", "X_future"]);
  });

  it("hist_exog indices must name features, once each", () => {
    const items = detailOf(() => validate(forecastBody({ series: { y: [1, 2], sizes: [2], X: [[1, 2]] }, hist_exog: [0, 0, 3] })));
    expect(items.map((i) => i.loc.join("."))).toEqual(["body.hist_exog.1", "body.hist_exog.2"]);
  });

  it("multivariate threshold needs equal series lengths", () => {
    const body = { series: { y: [1, 2, 3, 4, 5], sizes: [2, 3] }, freq: "D", h: 1, detection_size: 1, threshold_method: "multivariate" };
    const items = detailOf(() => validateEndpointBody("anomaly", body, { core: false, limits: UNLIMITED }));
    expect(items[0]).toMatchObject({ type: "value_error", loc: ["body", "series", "sizes"] });
  });

  it("fills defaults and converts y to a Float64Array", () => {
    const v = validate(base);
    expect(v.series.y).toBeInstanceOf(Float64Array);
    expect(v.model).toBe("forecastmodel-1");
    expect(v.level).toBeNull();
    expect(v.finetune_steps).toBe(0);
    const r = toForecastRequest(v, null);
    expect(Array.from(r.series.offsets)).toEqual([0, 3, 6]);
    expect(r.levels).toEqual([]);
    expect(r.finetune).toEqual({ steps: 0, loss: "default", depth: 1 });
  });

  it("freq Q and Y: core yes, API no", () => {
    expect(() => validateEndpointBody("forecast", { ...base, freq: "Q" }, { core: true, limits: UNLIMITED })).not.toThrow();
    expect(detailOf(() => validate({ ...base, freq: "Y" }))[0]?.type).toBe("literal_error");
  });

  it("unknown properties are ignored", () => {
    expect(() => validate({ ...base, whatever: { deep: [1, 2] }, __proto__x: 1 })).not.toThrow();
  });

  it("a fine-tuned model fixes the model; a different explicit model is a 422", () => {
    const w = { model: "forecastmodel-1-long-horizon" as const, start: 0, values: new Float64Array(1) };
    expect(toForecastRequest(validate({ ...base, finetuned_model_id: "m1" }), w).model).toBe("forecastmodel-1-long-horizon");
    const items = detailOf(() => toForecastRequest(validate({ ...base, finetuned_model_id: "m1", model: "forecastmodel-1" }), w));
    expect(items[0]?.loc).toEqual(["body", "model"]);
  });

  it("multivariate is effective only for forecastmodel-2.1", () => {
    expect(toForecastRequest(validate({ ...base, multivariate: true }), null).multivariate).toBe(false);
    expect(toForecastRequest(validate({ ...base, multivariate: true, model: "forecastmodel-2.1" }), null).multivariate).toBe(true);
  });
});

describe("limits, checked on the raw JSON", () => {
  const limits = resolveLimits({ maxValues: 10, maxHorizon: 5, maxSeries: 2 }, DEFAULT_SERVICE_LIMITS);
  it("names each limit that is exceeded", () => {
    const items = checkRequestLimits("forecast", { series: { y: new Array(11).fill(0), sizes: [1, 1, 9] }, h: 6 }, limits);
    expect(items.map((i) => i.msg)).toEqual([
      expect.stringContaining("limits.maxValues = 10"),
      expect.stringContaining("limits.maxSeries = 2"),
      expect.stringContaining("limits.maxHorizon = 5"),
    ]);
    expect(items.every((i) => i.type === "value_error")).toBe(true);
  });
  it("counts X and X_future values, and the response size", () => {
    expect(checkRequestLimits("forecast", { series: { y: [1, 2], sizes: [2], X: [[1, 2], [1, 2]] }, h: 1, X_future: [[1, 2, 3, 4, 5]] }, limits)).toHaveLength(1);
    expect(checkRequestLimits("forecast", { series: { y: [1], sizes: [1] }, h: 4, level: [50, 80] }, limits)[0]?.msg).toContain("response would hold 20 numbers");
  });
  it("limits come before field validation (a huge y of strings is not walked)", () => {
    const items = detailOf(() => validateEndpointBody("forecast", { series: { y: new Array(1000).fill("x"), sizes: [1] }, freq: "D", h: 1 }, { core: false, limits }));
    expect(items).toHaveLength(1);
    expect(items[0]?.msg).toContain("limits.maxValues");
  });
  it("rejects nonsense limits", () => {
    expect(() => resolveLimits({ maxValues: -1 }, UNLIMITED)).toThrow(RangeError);
  });
});

describe("JSON bodies", () => {
  it.each([
    ['{"a": }', 6, "Expecting value"],
    ['{"a" 1}', 5, "Expecting ':' delimiter"],
    ['{"a": 1,}', 8, "Expecting property name enclosed in double quotes"],
    ["[1, 2", 5, "Expecting ',' delimiter"],
    ["[1,]", 3, "Expecting value"],
    ['{"a": 1} x', 9, "Extra data"],
    ['"abc', 0, "Unterminated string starting at"],
    ['"a\\qb"', 2, "Invalid \\escape"],
    ["NaN", 0, "Expecting value"],
    ["01", 1, "Extra data"],
    ["", 0, "Expecting value"],
  ])("%j: error at %i (%s), as Python's json", (text, position, message) => {
    expect(locateJsonError(text)).toEqual({ position, message });
  });

  test.prop([fc.json()], { numRuns: 300 })("valid JSON has no error", (text) => {
    expect(locateJsonError(text)).toBeNull();
  });

  test.prop([fc.json(), fc.nat(), fc.constantFrom("}", "]", ",", ":", "x", '"')], { numRuns: 300 })(
    "agrees with JSON.parse on whether a text is valid",
    (text, cut, junk) => {
      const t = text.slice(0, cut % (text.length + 1)) + junk;
      let valid = true;
      try {
        JSON.parse(t);
      } catch {
        valid = false;
      }
      expect(locateJsonError(t) === null).toBe(valid);
    },
  );

  it("handles any nesting depth", () => {
    expect(locateJsonError("[".repeat(200_000))).toEqual({ position: 200_000, message: "Expecting value" });
  });

  it("reads strings, bytes and parsed values alike", () => {
    const text = '{"a": [1, 2]}';
    const bytes = new TextEncoder().encode(text);
    expect(readJsonBody(text)).toEqual({ kind: "value", value: { a: [1, 2] } });
    expect(readJsonBody(bytes)).toEqual({ kind: "value", value: { a: [1, 2] } });
    expect(readJsonBody(bytes.buffer)).toEqual({ kind: "value", value: { a: [1, 2] } });
    expect(readJsonBody({ a: 1 })).toEqual({ kind: "value", value: { a: 1 } });
    for (const missing of [undefined, null, "", "null", new Uint8Array(0)]) expect(readJsonBody(missing)).toEqual({ kind: "missing" });
    expect(readJsonBody(Uint8Array.of(0xff, 0xfe))).toMatchObject({ kind: "invalid", item: { type: "json_invalid", loc: ["body", 0] } });
  });

  it("a malformed body is one json_invalid item in FastAPI's shape", () => {
    expect(readJsonBody('{"series": ')).toEqual({
      kind: "invalid",
      item: { type: "json_invalid", loc: ["body", 11], msg: "JSON decode error", input: {}, ctx: { error: "Expecting value" } },
    });
  });
});

describe("echoed inputs", () => {
  it("copies own properties only, keeps __proto__ as a plain key", () => {
    const v = JSON.parse('{"__proto__": {"polluted": 1}, "a": 2}');
    const e = echoInput(v);
    expect(e.ok).toBe(true);
    if (e.ok) {
      expect(Object.keys(e.value as object)).toEqual(["__proto__", "a"]);
      expect(Object.getPrototypeOf(e.value)).toBe(Object.prototype);
      expect(JSON.stringify(e.value)).toBe('{"__proto__":{"polluted":1},"a":2}');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it("leaves out deep, huge, cyclic and non-JSON values", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const v of [deep, new Array(20_000).fill(0), cyclic, () => 1, 10n, Symbol("s"), undefined]) expect(echoInput(v).ok).toBe(false);
  });
  it("validation never mutates its input", () => {
    const body = { series: { y: [1, "a"], sizes: [2] }, freq: "D", h: 1 };
    const before = JSON.stringify(body);
    detailOf(() => validate(body));
    expect(JSON.stringify(body)).toBe(before);
  });
  it("INVALID is a unique marker", () => {
    expect(validateAgainst(Type.Boolean(), 1, [], new ErrorCollector())).toBe(INVALID);
  });
  it("stops after 1000 items", () => {
    const c = new ErrorCollector();
    validateAgainst(SERIES_SCHEMA.properties.y, new Array(5000).fill("x"), ["body"], c);
    expect(c.items).toHaveLength(1000);
  });
});

describe("the compiled validator (TypeBox schema, ajv) gives the items of pydantic's strict mode", () => {
  const y = SERIES_SCHEMA.properties.y;
  it("a packed list is a Float64Array; NaN, ±Infinity or a non-number at i is an item at i, in index order", () => {
    const ok = validateAgainst(y, [1, 2.5, -3], ["body", "y"], new ErrorCollector());
    expect(ok).toBeInstanceOf(Float64Array);
    expect(Array.from(ok as Float64Array)).toEqual([1, 2.5, -3]);
    const c = new ErrorCollector();
    expect(validateAgainst(y, [1, NaN, 3, "4", Infinity], ["body", "y"], c)).toBe(INVALID);
    expect(c.items.map((i) => [i.type, i.loc.join(".")])).toEqual([
      ["finite_number", "body.y.1"],
      ["float_type", "body.y.3"],
      ["finite_number", "body.y.4"],
    ]);
  });

  it("typed arrays are read as lists, and their items checked like a list's", () => {
    const c = new ErrorCollector();
    validateAgainst(SERIES_SCHEMA, { y: Float64Array.of(1, NaN), sizes: Int32Array.of(0, 2), X: [Float64Array.of(1, Infinity)] }, ["s"], c);
    expect(c.items.map((i) => [i.type, i.loc.join(".")])).toEqual([
      ["finite_number", "s.y.1"],
      ["greater_than_equal", "s.sizes.0"],
      ["finite_number", "s.X.0.1"],
    ]);
  });

  test.prop([
    fc.array(fc.oneof(fc.double(), fc.constantFrom(0, -0, 1e-300, -1e300)), { maxLength: 30 }),
    fc.constantFrom("Float64Array", "Float32Array", "Int32Array", "Uint8Array"),
    fc.array(fc.integer({ min: -2, max: 40 }), { maxLength: 4 }),
  ])("a packed list given as a typed array: the same answer and items as the list of its values, in a copy of its own", (values, kind, sizes) => {
    const typed = new (globalThis as unknown as Record<string, new (v: number[]) => ArrayLike<number>>)[kind]!(values);
    const listed = Array.from(typed);
    const a = new ErrorCollector();
    const b = new ErrorCollector();
    const fromTyped = validateAgainst(SERIES_SCHEMA, { y: typed, sizes }, ["s"], a);
    const fromList = validateAgainst(SERIES_SCHEMA, { y: listed, sizes }, ["s"], b);
    expect(a.items).toEqual(b.items);
    expect(fromTyped === INVALID).toBe(fromList === INVALID);
    if (fromList !== INVALID) {
      const y = (fromTyped as { y: Float64Array }).y;
      expect(y).toEqual((fromList as { y: Float64Array }).y);
      expect(y.buffer).not.toBe((typed as Float64Array).buffer);
    }
  });

  test.prop([fc.array(fc.oneof(fc.double(), fc.string(), fc.constant(null), fc.boolean()), { maxLength: 30 })])(
    "a list of numbers: one item per bad index, in index order, and valid iff every item is a finite number",
    (values) => {
      const c = new ErrorCollector();
      const r = validateAgainst(y, values, ["y"], c);
      const bad = values.flatMap((v, i) => (typeof v === "number" && Number.isFinite(v) ? [] : [i]));
      expect(c.items.map((i) => i.loc[1])).toEqual(bad);
      expect(r === INVALID).toBe(bad.length > 0);
    },
  );
});
