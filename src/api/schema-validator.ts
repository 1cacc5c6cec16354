/**
 * A small schema language for request bodies, with a validator in the style of
 * pydantic v2 strict mode and an emitter of JSON Schema (OpenAPI 3.1). The
 * request shapes are written once, as data, in `schemas.ts`; both the 422
 * items and GET /openapi.json come from them.
 * @module
 */
import { NOT_AN_OBJECT, type ErrorItem } from "./errors.js";
import { echoInput } from "./json.js";

/**
 * Bounds of a numeric field (pydantic `gt`, `ge`, `lt`, `le`).
 * @category API rules
 */
export interface ApiNumericBounds {
  /** Exclusive lower bound. */
  readonly gt?: number;
  /** Inclusive lower bound. */
  readonly ge?: number;
  /** Exclusive upper bound. */
  readonly lt?: number;
  /** Inclusive upper bound. */
  readonly le?: number;
}

/**
 * An integer: a JSON number with no fractional part inside ±(2^53 − 1); booleans and strings are refused.
 * @category API rules
 */
export interface ApiIntegerSchema extends ApiNumericBounds {
  /** Discriminant. */
  readonly kind: "integer";
}

/**
 * A finite JSON number (NaN and ±Infinity are refused with `finite_number`).
 * @category API rules
 */
export interface ApiNumberSchema extends ApiNumericBounds {
  /** Discriminant. */
  readonly kind: "number";
}

/**
 * `true` or `false` only.
 * @category API rules
 */
export interface ApiBooleanSchema {
  /** Discriminant. */
  readonly kind: "boolean";
}

/**
 * A string, optionally matching a regular expression (whole string, as pydantic).
 * @category API rules
 */
export interface ApiStringSchema {
  /** Discriminant. */
  readonly kind: "string";
  /** Regular expression source the value must match. */
  readonly pattern?: string;
}

/**
 * One of a fixed set of strings or numbers (compared with `===`).
 * @category API rules
 */
export interface ApiLiteralSchema {
  /** Discriminant. */
  readonly kind: "literal";
  /** Allowed values. */
  readonly values: readonly (string | number)[];
}

/**
 * A string read through a table of aliases (the frequency: `"15T"` is
 * `"15min"`, `"MS"` is `"M"`): it validates into the canonical value `read`
 * gives. A value `read` refuses, or one that is not a string, is a
 * `literal_error` whose message says why (`refusal`) and lists what is
 * accepted (`expected`, also its `ctx`).
 * @category API rules
 */
export interface ApiAliasSchema<T extends string = string> {
  /** Discriminant. */
  readonly kind: "alias";
  /** What the value names, for the message (`"frequency"`: "Input should be a supported frequency: …"). */
  readonly what: string;
  /** The canonical value of an accepted string, or null. */
  readonly read: (text: string) => T | null;
  /** Why a value is refused, one clause (e.g. `'7min' is a step of 420 s, which does not divide a day (86400 s) evenly`). */
  readonly refusal: (value: unknown) => string;
  /** What is accepted, in words. */
  readonly expected: string;
  /** A regular expression every accepted string matches (the OpenAPI document's `pattern`; it may match more). */
  readonly pattern: string;
}

/**
 * A JSON array. `packed: "float64"` (items must be numbers) validates into a `Float64Array`.
 * @category API rules
 */
export interface ApiArraySchema {
  /** Discriminant. */
  readonly kind: "array";
  /** Schema of every item. */
  readonly items: ApiSchema;
  /** Minimum number of items (`too_short` below it). */
  readonly minItems?: number;
  /** Validate straight into a typed array (items must be an `ApiNumberSchema`). */
  readonly packed?: "float64";
}

/**
 * A model: an object with named properties; unknown properties are ignored.
 * @category API rules
 */
export interface ApiObjectSchema {
  /** Discriminant. */
  readonly kind: "object";
  /** Component name in the OpenAPI document. */
  readonly name: string;
  /** What the object is, for the OpenAPI document. */
  readonly description: string;
  /** Properties, in the order errors are reported. */
  readonly properties: readonly ApiProperty[];
}

/**
 * A free-form JSON object (`dict`).
 * @category API rules
 */
export interface ApiDictSchema {
  /** Discriminant. */
  readonly kind: "dict";
}

/**
 * `null` or the inner schema (errors are those of the inner schema, as pydantic reports them).
 * @category API rules
 */
export interface ApiNullableSchema {
  /** Discriminant. */
  readonly kind: "nullable";
  /** Schema of a non-null value. */
  readonly inner: ApiSchema;
}

/**
 * Any schema of the language.
 * @category API rules
 */
export type ApiSchema =
  | ApiIntegerSchema
  | ApiNumberSchema
  | ApiBooleanSchema
  | ApiStringSchema
  | ApiLiteralSchema
  | ApiAliasSchema
  | ApiArraySchema
  | ApiObjectSchema
  | ApiDictSchema
  | ApiNullableSchema;

/**
 * One property of a model.
 * @category API rules
 */
export interface ApiProperty {
  /** JSON property name. */
  readonly name: string;
  /** Its schema. */
  readonly schema: ApiSchema;
  /** Whether it must be present (`missing` otherwise). */
  readonly required: boolean;
  /** Value used when absent (only for optional properties). */
  readonly default?: unknown;
  /** What it means, for the OpenAPI document. */
  readonly description: string;
}

/**
 * The value {@link validateAgainst} gives for a schema, as a type: numbers
 * for `integer` and `number`, the listed values for `literal`, what `read`
 * returns for `alias`, a
 * `Float64Array` for a packed array, an object of the properties (an absent
 * optional property has its default, or null without one) for `object`, and
 * `| null` for `nullable` (`unknown` below 8 levels of nesting, where no
 * request reaches). The validated request types are derived from the schema
 * data with it, so the data and the types cannot disagree.
 *
 * @example
 * ```ts
 * // (types only) Infer<{ kind: "nullable"; inner: { kind: "array"; items: { kind: "integer" } } }> is number[] | null
 * const nothing = null;
 * nothing;
 * // => null
 * ```
 * @category API rules
 */
export type Infer<S, Depth extends unknown[] = []> = Depth["length"] extends 8
  ? unknown
  : S extends { readonly kind: "integer" | "number" }
    ? number
    : S extends { readonly kind: "boolean" }
      ? boolean
      : S extends { readonly kind: "string" }
        ? string
        : S extends { readonly kind: "literal"; readonly values: readonly (infer V)[] }
          ? V
          : S extends { readonly kind: "alias"; readonly read: (text: string) => infer A }
            ? Exclude<A, null>
          : S extends { readonly kind: "array"; readonly packed: "float64" }
            ? Float64Array
            : S extends { readonly kind: "array"; readonly items: infer I }
              ? Infer<I, [...Depth, 1]>[]
              : S extends { readonly kind: "object"; readonly properties: readonly (infer P)[] }
                ? { readonly [Q in P as Q extends { readonly name: infer N extends string } ? N : never]: InferProperty<Q, [...Depth, 1]> }
                : S extends { readonly kind: "dict" }
                  ? Record<string, unknown>
                  : S extends { readonly kind: "nullable"; readonly inner: infer I }
                    ? Infer<I, [...Depth, 1]> | null
                    : never;

/**
 * The validated value of one property: required or with a default, its
 * schema's value; optional without a default, that or null.
 * @category API rules
 */
type InferProperty<P, Depth extends unknown[] = []> = P extends { readonly schema: infer S; readonly required: true }
  ? Infer<S, Depth>
  : P extends { readonly schema: infer S; readonly default: unknown }
    ? Infer<S, Depth>
    : P extends { readonly schema: infer S }
      ? Infer<S, Depth> | null
      : never;

/**
 * Marker returned by the validator for an invalid value.
 * @category API rules
 */
export const INVALID: unique symbol = Symbol("invalid");

/**
 * Where validation errors accumulate; stops recording after `max` items.
 * @category API rules
 */
export class ErrorCollector {
  readonly items: ErrorItem[] = [];
  constructor(readonly max = 1000) {}
  get full(): boolean {
    return this.items.length >= this.max;
  }
  add(item: ErrorItem): void {
    if (this.items.length < this.max) this.items.push(item);
  }
}

type Loc = readonly (string | number)[];

function item(type: string, loc: Loc, msg: string, input: unknown, ctx?: Record<string, unknown>): ErrorItem {
  const out: ErrorItem = { type, loc: [...loc], msg };
  const echoed = echoInput(input);
  if (echoed.ok) out.input = echoed.value;
  if (ctx !== undefined) out.ctx = ctx;
  return out;
}

/** Python-like rendering of a literal value inside a message: strings quoted with '. */
function reprLiteral(v: string | number): string {
  return typeof v === "string" ? `'${v}'` : String(v);
}

/**
 * "'a', 'b' or 'c'" as pydantic writes the expected values of a literal.
 * @category API rules
 */
export function expectedLiteralText(values: readonly (string | number)[]): string {
  const parts = values.map(reprLiteral);
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} or ${parts[parts.length - 1]}`;
}

/**
 * True for a JSON-object-like value (not null, not an array, not a typed array).
 * @category API rules
 */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/**
 * True for a JSON array or a numeric typed array (accepted from already-parsed bodies).
 * @category API rules
 */
export function isArrayLike(v: unknown): v is ArrayLike<unknown> {
  if (Array.isArray(v)) return true;
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array);
}

/**
 * Own property lookup (never reads the prototype chain); `undefined` when absent.
 * @category API rules
 */
export function ownProperty(obj: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

function checkBounds(b: ApiNumericBounds, v: number, loc: Loc, errors: ErrorCollector): boolean {
  if (b.gt !== undefined && !(v > b.gt)) {
    errors.add(item("greater_than", loc, `Input should be greater than ${b.gt}`, v, { gt: b.gt }));
    return false;
  }
  if (b.ge !== undefined && !(v >= b.ge)) {
    errors.add(item("greater_than_equal", loc, `Input should be greater than or equal to ${b.ge}`, v, { ge: b.ge }));
    return false;
  }
  if (b.lt !== undefined && !(v < b.lt)) {
    errors.add(item("less_than", loc, `Input should be less than ${b.lt}`, v, { lt: b.lt }));
    return false;
  }
  if (b.le !== undefined && !(v <= b.le)) {
    errors.add(item("less_than_equal", loc, `Input should be less than or equal to ${b.le}`, v, { le: b.le }));
    return false;
  }
  return true;
}

const patternCache = new Map<string, RegExp>();
function compiled(pattern: string): RegExp {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    re = new RegExp(pattern);
    patternCache.set(pattern, re);
  }
  return re;
}

function validateNumber(schema: ApiNumberSchema, v: unknown, loc: Loc, errors: ErrorCollector): number | typeof INVALID {
  if (typeof v !== "number") {
    errors.add(item("float_type", loc, "Input should be a valid number", v));
    return INVALID;
  }
  if (!Number.isFinite(v)) {
    errors.add(item("finite_number", loc, "Input should be a finite number", v));
    return INVALID;
  }
  return checkBounds(schema, v, loc, errors) ? v : INVALID;
}

function validatePackedFloat64(schema: ApiArraySchema, v: ArrayLike<unknown>, loc: Loc, errors: ErrorCollector): Float64Array | typeof INVALID {
  const itemSchema = schema.items as ApiNumberSchema;
  const n = v.length;
  const out = new Float64Array(n);
  const hasBounds = itemSchema.gt !== undefined || itemSchema.ge !== undefined || itemSchema.lt !== undefined || itemSchema.le !== undefined;
  let ok = true;
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (typeof x === "number" && Number.isFinite(x) && !hasBounds) {
      out[i] = x;
      continue;
    }
    const r = validateNumber(itemSchema, x, [...loc, i], errors);
    if (r === INVALID) {
      ok = false;
      if (errors.full) return INVALID;
    } else out[i] = r;
  }
  return ok ? out : INVALID;
}

/**
 * Validates `value` against `schema`, adding pydantic-style items to `errors`;
 * returns the validated value (defaults filled in, packed arrays as
 * `Float64Array`) or `INVALID`. Never mutates `value`.
 * @category API rules
 */
export function validateAgainst(schema: ApiSchema, value: unknown, loc: Loc, errors: ErrorCollector): unknown {
  switch (schema.kind) {
    case "integer": {
      if (typeof value !== "number" || !Number.isSafeInteger(value)) {
        errors.add(item("int_type", loc, "Input should be a valid integer", value));
        return INVALID;
      }
      return checkBounds(schema, value, loc, errors) ? value : INVALID;
    }
    case "number":
      return validateNumber(schema, value, loc, errors);
    case "boolean":
      if (typeof value !== "boolean") {
        errors.add(item("bool_type", loc, "Input should be a valid boolean", value));
        return INVALID;
      }
      return value;
    case "string":
      if (typeof value !== "string") {
        errors.add(item("string_type", loc, "Input should be a valid string", value));
        return INVALID;
      }
      if (schema.pattern !== undefined && !compiled(schema.pattern).test(value)) {
        errors.add(item("string_pattern_mismatch", loc, `String should match pattern '${schema.pattern}'`, value, { pattern: schema.pattern }));
        return INVALID;
      }
      return value;
    case "literal": {
      if ((typeof value === "string" || typeof value === "number") && schema.values.includes(value)) return value;
      const expected = expectedLiteralText(schema.values);
      errors.add(item("literal_error", loc, `Input should be ${expected}`, value, { expected }));
      return INVALID;
    }
    case "alias": {
      const read = typeof value === "string" ? schema.read(value) : null;
      if (read !== null) return read;
      errors.add(item("literal_error", loc, `Input should be a supported ${schema.what}: ${schema.refusal(value)}; accepted: ${schema.expected}`, value, { expected: schema.expected }));
      return INVALID;
    }
    case "array": {
      if (!isArrayLike(value)) {
        errors.add(item("list_type", loc, "Input should be a valid list", value));
        return INVALID;
      }
      let result: unknown;
      if (schema.packed === "float64") result = validatePackedFloat64(schema, value, loc, errors);
      else {
        const out: unknown[] = new Array(value.length);
        let ok = true;
        for (let i = 0; i < value.length; i++) {
          const r = validateAgainst(schema.items, value[i], [...loc, i], errors);
          if (r === INVALID) {
            ok = false;
            if (errors.full) return INVALID;
          } else out[i] = r;
        }
        result = ok ? out : INVALID;
      }
      if (schema.minItems !== undefined && value.length < schema.minItems) {
        const min = schema.minItems;
        errors.add(
          item("too_short", loc, `List should have at least ${min} item${min === 1 ? "" : "s"} after validation, not ${value.length}`, value, {
            field_type: "List",
            min_length: min,
            actual_length: value.length,
          }),
        );
        return INVALID;
      }
      return result;
    }
    case "object": {
      if (!isJsonObject(value)) {
        errors.add(item(NOT_AN_OBJECT.type, loc, NOT_AN_OBJECT.msg, value));
        return INVALID;
      }
      const out: Record<string, unknown> = {};
      let ok = true;
      for (const prop of schema.properties) {
        const raw = ownProperty(value, prop.name);
        if (raw === undefined) {
          if (prop.required) {
            errors.add(item("missing", [...loc, prop.name], "Field required", value));
            ok = false;
          } else out[prop.name] = prop.default === undefined ? null : structuredClone(prop.default);
          continue;
        }
        const r = validateAgainst(prop.schema, raw, [...loc, prop.name], errors);
        if (r === INVALID) ok = false;
        else out[prop.name] = r;
        if (errors.full) return INVALID;
      }
      return ok ? out : INVALID;
    }
    case "dict":
      if (!isJsonObject(value)) {
        errors.add(item("dict_type", loc, "Input should be a valid dictionary", value));
        return INVALID;
      }
      return value;
    case "nullable":
      if (value === null) return null;
      return validateAgainst(schema.inner, value, loc, errors);
  }
}

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) of a schema; models become `$ref`s collected into `components`.
 * @category API rules
 */
export function toJsonSchema(schema: ApiSchema, components: Record<string, unknown>): Record<string, unknown> {
  switch (schema.kind) {
    case "integer":
    case "number": {
      const out: Record<string, unknown> = { type: schema.kind };
      if (schema.gt !== undefined) out.exclusiveMinimum = schema.gt;
      if (schema.ge !== undefined) out.minimum = schema.ge;
      if (schema.lt !== undefined) out.exclusiveMaximum = schema.lt;
      if (schema.le !== undefined) out.maximum = schema.le;
      return out;
    }
    case "boolean":
      return { type: "boolean" };
    case "string":
      return schema.pattern === undefined ? { type: "string" } : { type: "string", pattern: schema.pattern };
    case "literal": {
      const allStrings = schema.values.every((v) => typeof v === "string");
      const allInts = schema.values.every((v) => typeof v === "number" && Number.isInteger(v));
      const out: Record<string, unknown> = { enum: [...schema.values] };
      if (allStrings) out.type = "string";
      else if (allInts) out.type = "integer";
      return out;
    }
    case "alias":
      return { type: "string", pattern: schema.pattern };
    case "array": {
      const out: Record<string, unknown> = { type: "array", items: toJsonSchema(schema.items, components) };
      if (schema.minItems !== undefined) out.minItems = schema.minItems;
      return out;
    }
    case "object": {
      if (!Object.prototype.hasOwnProperty.call(components, schema.name)) {
        components[schema.name] = {}; // reserve the name first so a self-referencing schema terminates
        const properties: Record<string, unknown> = {};
        const required: string[] = [];
        for (const p of schema.properties) {
          const s: Record<string, unknown> = { ...toJsonSchema(p.schema, components), description: p.description };
          if (!p.required && p.default !== undefined) s.default = p.default;
          properties[p.name] = s;
          if (p.required) required.push(p.name);
        }
        const def: Record<string, unknown> = { type: "object", title: schema.name, description: schema.description, properties };
        if (required.length > 0) def.required = required;
        components[schema.name] = def;
      }
      return { $ref: `#/components/schemas/${schema.name}` };
    }
    case "dict":
      return { type: "object", additionalProperties: true };
    case "nullable":
      return { anyOf: [toJsonSchema(schema.inner, components), { type: "null" }] };
  }
}
