/**
 * Validation of request bodies against their TypeBox schemas (`schemas.ts`):
 * ajv compiles each schema's JSON Schema once, on first use, and its error
 * list is mapped to pydantic v2 strict-mode items (`loc`, `msg`, `type`,
 * `input`, `ctx`) in the order pydantic reports them (properties in schema
 * order, depth first). A valid value is then decoded: defaults filled in,
 * the schema's codecs applied (`series.y` into a `Float64Array`, a frequency
 * alias into its canonical name).
 * @module
 */
import { Ajv, _, type ErrorObject, type KeywordCxt, type ValidateFunction } from "ajv";
import { IsCodec, type StaticDecode, type TCodec, type TObject, type TSchema, type TUnsafe } from "typebox";
import { NOT_AN_OBJECT, type ErrorItem } from "./errors.js";
import { echoInput } from "./json.js";

/**
 * Any schema of the API: a TypeBox type, that is a JSON Schema object.
 * @category API rules
 */
export type ApiSchema = TSchema;
/**
 * A model: a TypeBox object type with a `title` (its component name in the OpenAPI document).
 * @category API rules
 */
export type ApiObjectSchema = TObject;

/**
 * A string read through a table of aliases (the frequency: `"15T"` is
 * `"15min"`, `"MS"` is `"M"`), attached to a string schema under {@link ALIAS}.
 * A value `read` refuses, or one that is not a string, is a `literal_error`
 * whose message says why (`refusal`) and lists what is accepted (`expected`, also its `ctx`).
 * @category API rules
 */
export interface ApiAlias {
  /** What the value names, for the message (`"frequency"`: "Input should be a supported frequency: …"). */
  readonly what: string;
  /** The canonical value of an accepted string, or null. */
  readonly read: (text: string) => string | null;
  /** Why a value is refused, one clause. */
  readonly refusal: (value: unknown) => string;
  /** What is accepted, in words. */
  readonly expected: string;
}

/**
 * Key of a string schema's {@link ApiAlias} (a symbol: it is not part of the JSON Schema).
 * @category API rules
 */
export const ALIAS: unique symbol = Symbol("alias");

/**
 * A string schema read through an alias table: validated into `T`, the canonical value.
 * @category API rules
 */
export type ApiAliasSchema<T extends string> = TCodec<TUnsafe<T>, T> & { readonly [ALIAS]: ApiAlias };

/**
 * The value a schema validates into: TypeBox's decoded type, with every
 * optional property present (its default, or null). The validated request
 * types are derived from the schemas with it, so the two cannot disagree.
 *
 * @example
 * ```ts
 * // (types only) Infer<TObject<{ h: TInteger; X: TOptional<TUnion<[TArray<TNumber>, TNull]>> }>> is { readonly h: number; readonly X: number[] | null }
 * const nothing = null;
 * nothing;
 * // => null
 * ```
 * @category API rules
 */
export type Infer<S extends TSchema> = Filled<StaticDecode<S>>;

/** Optional properties made present (absent ones are filled), recursively through plain objects. */
type Filled<T> = T extends ArrayBufferView | readonly unknown[] | ((...args: never[]) => unknown)
  ? T
  : T extends object
    ? string extends keyof T
      ? T
      : { readonly [K in keyof T]-?: Filled<Exclude<T[K], undefined>> }
    : T;

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
type Node = Record<string, unknown> & { readonly [ALIAS]?: ApiAlias };

/**
 * "'a', 'b' or 'c'" as pydantic writes the expected values of a literal.
 * @category API rules
 */
export function expectedLiteralText(values: readonly (string | number)[]): string {
  const parts = values.map((v) => (typeof v === "string" ? `'${v}'` : String(v)));
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

/** A typed array of numbers (accepted where a list is, as already-parsed bodies may hold them). */
function isNumericView(v: unknown): v is ArrayLike<number> {
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array);
}

/**
 * A plain-array copy of typed values (a preallocated loop: about five times faster than `Array.from` on a typed
 * array, which walks its iterator).
 *
 * @example
 * ```ts
 * plainNumbers(Float64Array.of(1, 2.5));
 * // => [1, 2.5]
 * ```
 * @category API rules
 */
export function plainNumbers(values: ArrayLike<number>): number[] {
  const n = values.length;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = values[i] as number;
  return out;
}

/**
 * True for a JSON array or a numeric typed array (accepted from already-parsed bodies).
 * @category API rules
 */
export function isArrayLike(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || isNumericView(v);
}

/**
 * Own property lookup (never reads the prototype chain); `undefined` when absent.
 * @category API rules
 */
export function ownProperty(obj: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

// ---------------------------------------------------------------- the schema's shape, as the mapping reads it

/** The non-null member of a nullable schema (`anyOf: [inner, {type: "null"}]`), or the schema itself. */
function nonNull(node: Node): Node {
  const anyOf = node.anyOf as Node[] | undefined;
  return anyOf === undefined ? node : (anyOf.find((s) => s.type !== "null") as Node);
}
const isNullable = (node: Node): boolean => Array.isArray(node.anyOf) && (node.anyOf as Node[]).some((s) => s.type === "null");
const propertiesOf = (node: Node): Record<string, Node> | undefined => node.properties as Record<string, Node> | undefined;

// ---------------------------------------------------------------- ajv: the compiled validators

/** Readers of the alias schemas compiled so far, by the index the compiled schema names. */
const aliasReaders: ((text: string) => string | null)[] = [];

/** A list of finite numbers validated into a Float64Array (the codec {@link float64}). */
function isPacked(node: Node): boolean {
  return IsCodec(node) && node["~codec"].decode === float64;
}

/**
 * The JSON Schema ajv compiles: the schema's own, plus the rules of pydantic's
 * strict mode that JSON Schema leaves open (finite numbers, safe integers,
 * objects that are not typed arrays, aliases read by their table). `packedItems:
 * false` leaves the items of a packed list to the loop that packs them.
 */
function forAjv(node: Node, packedItems: boolean): Record<string, unknown> {
  // a packed list's items are left to the packing loop, which also reads a numeric typed array
  if (!packedItems && isPacked(node)) return { "x-list": true };
  const out: Record<string, unknown> = { ...node };
  if (node.type === "number") out["x-finite"] = true;
  if (node.type === "integer") out["x-safe-integer"] = true;
  if (node.type === "object") out["x-plain-object"] = true;
  const alias = node[ALIAS];
  if (alias !== undefined) out["x-alias"] = aliasReaders.push(alias.read) - 1;
  if (node.items !== undefined) out.items = forAjv(node.items as Node, packedItems);
  if (node.anyOf !== undefined) out.anyOf = (node.anyOf as Node[]).map((s) => forAjv(s, packedItems));
  const properties = propertiesOf(node);
  if (properties !== undefined) out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, forAjv(v, packedItems)]));
  return out;
}

const ajvInstances: { fast?: Ajv; full?: Ajv } = {};
/** ajv with pydantic's rules as keywords: `full` reports every error, `fast` only says whether there is one. */
function ajv(kind: "fast" | "full"): Ajv {
  const made = ajvInstances[kind];
  if (made !== undefined) return made;
  // patterns without the u flag, as the RegExp of JavaScript (and of the validator before ajv) reads them
  const a = new Ajv({ allErrors: kind === "full", strict: false, validateSchema: false, addUsedSchema: false, unicodeRegExp: false, logger: false });
  const inline = (keyword: string, type: "number" | "object", failWhen: (cxt: KeywordCxt) => ReturnType<typeof _>): void => {
    a.addKeyword({ keyword, type, schemaType: "boolean", code: (cxt: KeywordCxt) => cxt.fail(failWhen(cxt)) });
  };
  inline("x-finite", "number", (cxt) => _`!isFinite(${cxt.data})`);
  inline("x-safe-integer", "number", (cxt) => _`!Number.isSafeInteger(${cxt.data})`);
  inline("x-plain-object", "object", (cxt) => _`ArrayBuffer.isView(${cxt.data})`);
  // a list, or a numeric typed array (isNumericView) where a packed list is read
  a.addKeyword({
    keyword: "x-list",
    schemaType: "boolean",
    code: (cxt: KeywordCxt) =>
      cxt.fail(
        _`!(Array.isArray(${cxt.data}) || (ArrayBuffer.isView(${cxt.data}) && !(${cxt.data} instanceof DataView) && !(${cxt.data} instanceof BigInt64Array) && !(${cxt.data} instanceof BigUint64Array)))`,
      ),
  });
  a.addKeyword({ keyword: "x-alias", type: "string", schemaType: "number", validate: (index: number, data: string) => aliasReaders[index]!(data) !== null });
  return (ajvInstances[kind] = a);
}

/**
 * A schema's two compiled checks, each made on first use (compiling costs
 * milliseconds that an import should not pay): `fast` (the first error only;
 * the items of packed lists left to the packing loop) says whether a value is
 * valid, `full` gives every error of an invalid one.
 */
const compiled = { fast: new WeakMap<TSchema, ValidateFunction>(), full: new WeakMap<TSchema, ValidateFunction>() };

/**
 * Whether this runtime lets ajv generate its checks as code: edge runtimes
 * and pages with a strict content security policy refuse `new Function`
 * (so does Node with `--disallow-code-generation-from-strings`). Probed on
 * the first check; where refused, {@link interpretedErrors} finds the same
 * places by walking the schema.
 */
let codeGeneration: boolean | undefined;
function canGenerateCode(): boolean {
  if (codeGeneration === undefined) {
    try {
      codeGeneration = new Function("return true")() === true;
    } catch {
      codeGeneration = false;
    }
  }
  return codeGeneration;
}

/** A schema's compiled check of `kind`, or null where the runtime refuses generated code. */
function compiledCheck(schema: TSchema, kind: "fast" | "full"): ValidateFunction | null {
  if (!canGenerateCode()) return null;
  let check = compiled[kind].get(schema);
  if (check === undefined) {
    check = ajv(kind).compile(forAjv(schema as Node, kind === "full"));
    compiled[kind].set(schema, check);
  }
  return check;
}

/**
 * Compiles the checks of valid values of `schemas` now, so that a service
 * does not compile them in the middle of its first requests (where the event
 * loop would stall for the milliseconds it takes, delaying lease renewals).
 *
 * @example
 * ```ts
 * precompileSchemas([HORIZON_SCHEMA]);
 * validateAgainst(HORIZON_SCHEMA, 3, ["body", "h"], new ErrorCollector());
 * // => 3
 * ```
 * @category API rules
 */
export function precompileSchemas(schemas: readonly TSchema[]): void {
  for (const schema of schemas) compiledCheck(schema, "fast");
}

// ---------------------------------------------------------------- ajv's errors as pydantic items

function item(type: string, loc: Loc, msg: string, input: unknown, ctx?: Record<string, unknown>): ErrorItem {
  const out: ErrorItem = { type, loc: [...loc], msg };
  const echoed = echoInput(input);
  if (echoed.ok) out.input = echoed.value;
  if (ctx !== undefined) out.ctx = ctx;
  return out;
}

/** The first bound `v` breaks, in pydantic's order (gt, ge, lt, le), as an item. */
function boundItem(node: Node, v: number, loc: Loc): ErrorItem | null {
  const { exclusiveMinimum: gt, minimum: ge, exclusiveMaximum: lt, maximum: le } = node as Record<string, number | undefined>;
  if (gt !== undefined && !(v > gt)) return item("greater_than", loc, `Input should be greater than ${gt}`, v, { gt });
  if (ge !== undefined && !(v >= ge)) return item("greater_than_equal", loc, `Input should be greater than or equal to ${ge}`, v, { ge });
  if (lt !== undefined && !(v < lt)) return item("less_than", loc, `Input should be less than ${lt}`, v, { lt });
  if (le !== undefined && !(v <= le)) return item("less_than_equal", loc, `Input should be less than or equal to ${le}`, v, { le });
  return null;
}

/** The item of a scalar (number, integer, boolean, string, enum, alias) that its schema refuses, or null. */
function scalarItem(node: Node, value: unknown, loc: Loc): ErrorItem | null {
  const alias = node[ALIAS];
  if (alias !== undefined) {
    if (typeof value === "string" && alias.read(value) !== null) return null;
    return item("literal_error", loc, `Input should be a supported ${alias.what}: ${alias.refusal(value)}; accepted: ${alias.expected}`, value, { expected: alias.expected });
  }
  if (Array.isArray(node.enum)) {
    const values = node.enum as (string | number)[];
    if ((typeof value === "string" || typeof value === "number") && values.includes(value)) return null;
    const expected = expectedLiteralText(values);
    return item("literal_error", loc, `Input should be ${expected}`, value, { expected });
  }
  switch (node.type) {
    case "integer":
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return item("int_type", loc, "Input should be a valid integer", value);
      return boundItem(node, value, loc);
    case "number":
      if (typeof value !== "number") return item("float_type", loc, "Input should be a valid number", value);
      if (!Number.isFinite(value)) return item("finite_number", loc, "Input should be a finite number", value);
      return boundItem(node, value, loc);
    case "boolean":
      return typeof value === "boolean" ? null : item("bool_type", loc, "Input should be a valid boolean", value);
    case "string": {
      if (typeof value !== "string") return item("string_type", loc, "Input should be a valid string", value);
      const pattern = node.pattern as string | undefined;
      if (pattern === undefined || new RegExp(pattern).test(value)) return null;
      return item("string_pattern_mismatch", loc, `String should match pattern '${pattern}'`, value, { pattern });
    }
  }
  return null;
}

/**
 * The item of the value at `loc` itself (not of what it contains), as
 * pydantic words it, or null when the value is right at this level.
 */
function itemAt(schema: Node, value: unknown, loc: Loc): ErrorItem | null {
  if (value === null && isNullable(schema)) return null;
  const node = nonNull(schema);
  if (node.type === "object") {
    if (isJsonObject(value)) return null;
    if (propertiesOf(node) === undefined) return item("dict_type", loc, "Input should be a valid dictionary", value);
    return item(NOT_AN_OBJECT.type, loc, NOT_AN_OBJECT.msg, value);
  }
  if (node.type === "array") {
    if (!Array.isArray(value)) return item("list_type", loc, "Input should be a valid list", value);
    const min = node.minItems as number | undefined;
    if (min === undefined || value.length >= min) return null;
    return item("too_short", loc, `List should have at least ${min} item${min === 1 ? "" : "s"} after validation, not ${value.length}`, value, {
      field_type: "List",
      min_length: min,
      actual_length: value.length,
    });
  }
  return scalarItem(node, value, loc);
}

/** Where an ajv error points: the schema and value there, its `loc`, and its position in pydantic's order (property index or item index per level). */
interface Place {
  readonly node: Node;
  readonly value: unknown;
  readonly loc: (string | number)[];
  readonly order: number[];
}

/** Follows a JSON pointer (ajv's `instancePath`) down the schema and the value. */
function placeOf(schema: Node, value: unknown, loc: Loc, pointer: string): Place {
  const place = { node: schema, value, loc: [...loc], order: [] as number[] };
  if (pointer === "") return place;
  for (const raw of pointer.slice(1).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const node = nonNull(place.node);
    const properties = propertiesOf(node);
    if (node.type === "array") {
      const index = Number(segment);
      place.node = node.items as Node;
      place.value = (place.value as unknown[])[index];
      place.loc.push(index);
      place.order.push(index);
    } else {
      place.node = (properties?.[segment] ?? {}) as Node;
      place.value = ownProperty(place.value as Record<string, unknown>, segment);
      place.loc.push(segment);
      place.order.push(properties === undefined ? 0 : Object.keys(properties).indexOf(segment));
    }
  }
  return place;
}

/** pydantic's order: depth first in schema order; what a value contains before the value's own item. */
function compareOrder(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return b.length - a.length;
}

/** Where a check found an error: ajv's `ErrorObject`, or its three fields the mapping reads. */
type PlaceError = Pick<ErrorObject, "instancePath" | "keyword" | "params">;

/**
 * The places of `value`'s errors without generated code (see
 * {@link canGenerateCode}), as the compiled checks report them: each place
 * whose own item `itemAt` gives, each required property missing, and, inside
 * a list or object of the right kind, the places below it (a packed list's
 * items only when `packedItems`). The mapping then words each place.
 */
function interpretedErrors(schema: Node, value: unknown, pointer: string, packedItems: boolean, out: PlaceError[]): PlaceError[] {
  if (value === null && isNullable(schema)) return out;
  const node = nonNull(schema);
  if (itemAt(schema, value, []) !== null) out.push({ instancePath: pointer, keyword: "item", params: {} });
  if (node.type === "array" && Array.isArray(value)) {
    const items = node.items as Node | undefined;
    if (items === undefined || (!packedItems && isPacked(node))) return out;
    for (let i = 0; i < value.length; i++) interpretedErrors(items, value[i], `${pointer}/${i}`, packedItems, out);
    return out;
  }
  const properties = propertiesOf(node);
  if (node.type !== "object" || properties === undefined || !isJsonObject(value)) return out;
  const required = (node.required as readonly string[] | undefined) ?? [];
  for (const [name, inner] of Object.entries(properties)) {
    const v = ownProperty(value, name);
    if (v !== undefined) interpretedErrors(inner, v, `${pointer}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`, packedItems, out);
    else if (required.includes(name)) out.push({ instancePath: pointer, keyword: "required", params: { missingProperty: name } });
  }
  return out;
}

/** ajv's errors of `value` as pydantic items, one per place, in pydantic's order. */
function pydanticItems(schema: Node, value: unknown, loc: Loc, errors: readonly PlaceError[]): ErrorItem[] {
  const found = new Map<string, { item: ErrorItem; order: number[] }>();
  for (const error of errors) {
    const place = placeOf(schema, value, loc, error.instancePath);
    if (error.keyword === "required") {
      const name = (error.params as { missingProperty: string }).missingProperty;
      const properties = propertiesOf(nonNull(place.node)) ?? {};
      const order = [...place.order, Object.keys(properties).indexOf(name)];
      found.set(JSON.stringify(order), { item: item("missing", [...place.loc, name], "Field required", place.value), order });
      continue;
    }
    const key = JSON.stringify(place.order);
    if (found.has(key)) continue;
    const at = itemAt(place.node, place.value, place.loc);
    if (at !== null) found.set(key, { item: at, order: place.order });
  }
  return [...found.values()].sort((a, b) => compareOrder(a.order, b.order)).map((f) => f.item);
}

// ---------------------------------------------------------------- a valid value, decoded

/**
 * Typed arrays where the schema has lists, read as lists (copying only what holds one); the value otherwise. With
 * `keepPacked`, a numeric typed array where the schema packs a list stays as it is (the fast check and the packing
 * loop read it as the list of its values).
 */
function plainArrays(schema: Node, value: unknown, keepPacked = false): unknown {
  const node = nonNull(schema);
  if (isNumericView(value)) return node.type === "array" && !(keepPacked && isPacked(node)) ? plainNumbers(value) : value;
  const descend = (inner: Node, v: unknown): unknown => (v !== null && typeof v === "object" ? plainArrays(inner, v, keepPacked) : v);
  if (Array.isArray(value) && node.type === "array") {
    const items = nonNull(node.items as Node);
    if (items.type !== "array" && items.type !== "object") return value;
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = descend(items, value[i]);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  const properties = propertiesOf(node);
  if (!isJsonObject(value) || properties === undefined) return value;
  let out: Record<string, unknown> | null = null;
  for (const [name, inner] of Object.entries(properties)) {
    const raw = ownProperty(value, name);
    const v = descend(inner, raw);
    if (v !== raw) (out ??= { ...value })[name] = v;
  }
  return out ?? value;
}

/**
 * A numeric list as a Float64Array: the codec of `series.y` and the feature rows.
 *
 * @example
 * ```ts
 * float64([1, 2.5]);
 * // => Float64Array(2) [1, 2.5]
 * ```
 * @category API rules
 */
export function float64(values: readonly number[]): Float64Array {
  return Float64Array.from(values);
}

/** Thrown inside {@link decode} when a packed list holds something other than a finite number. */
const NOT_FINITE = new Error("a packed list holds something other than a finite number");

/** The list as a Float64Array, checking each item is a finite number (the check ajv's fast pass leaves to this loop). */
function packFinite(values: ArrayLike<unknown>): Float64Array {
  const out = finiteSlice(values, 0, values.length);
  if (out === null) throw NOT_FINITE;
  return out;
}

/**
 * values[from, from + n) copied into a Float64Array of its own (or into
 * `into`, whose first n places they fill), or `null` when one of them is
 * not a finite number: the validator's reading of a packed list, and the
 * pool's reading of one part of it. Plain arrays and numeric typed arrays
 * take loops of their own: one loop reading both kinds is polymorphic and
 * about twice as slow (500,000 values of a list: 2.6 ms against 1.4 ms).
 *
 * @example
 * ```ts
 * finiteSlice([1, 2, 3, 4], 1, 2); // => Float64Array(2) [2, 3]
 * finiteSlice([1, "2", 3], 0, 3); // => null
 * const into = new Float64Array(3);
 * finiteSlice([5, 6, 7], 1, 2, into) === into; // => true
 * into; // => Float64Array(3) [6, 7, 0]
 * ```
 * @category API rules
 */
export function finiteSlice(values: ArrayLike<unknown>, from: number, n: number, into?: Float64Array): Float64Array | null {
  const out = into ?? new Float64Array(n);
  return ArrayBuffer.isView(values) ? finiteTypedSlice(values as unknown as Float64Array, from, n, out) : finiteListSlice(values, from, n, out);
}

/** {@link finiteSlice} of a plain array. */
function finiteListSlice(values: ArrayLike<unknown>, from: number, n: number, out: Float64Array): Float64Array | null {
  for (let i = 0; i < n; i++) {
    const x = values[from + i];
    if (typeof x !== "number" || x - x !== 0) return null;
    out[i] = x;
  }
  return out;
}

/** {@link finiteSlice} of a numeric typed array: a block copy, then the check on the copy. */
function finiteTypedSlice(values: Float64Array, from: number, n: number, out: Float64Array): Float64Array | null {
  out.set(values.subarray(from, from + n));
  for (let i = 0; i < n; i++) {
    const x = out[i] as number;
    if (x - x !== 0) return null;
  }
  return out;
}

/** The validated value: lists and objects copied, absent optional properties filled (default, or null), codecs applied. */
function decode(schema: Node, value: unknown): unknown {
  if (value === null) return null;
  const node = nonNull(schema);
  if (isPacked(node)) return packFinite(value as ArrayLike<unknown>);
  let out = value;
  const properties = propertiesOf(node);
  if (properties !== undefined) {
    const object: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(properties)) {
      const raw = ownProperty(value as Record<string, unknown>, name);
      object[name] = raw !== undefined ? decode(inner, raw) : inner.default === undefined ? null : structuredClone(inner.default);
    }
    out = object;
  } else if (node.type === "array" && !IsCodec(node)) out = (value as unknown[]).map((v) => decode(node.items as Node, v));
  const alias = node[ALIAS];
  if (alias !== undefined) return alias.read(out as string);
  return IsCodec(node) ? node["~codec"].decode(out) : out;
}

/**
 * Validates `value` against `schema`, adding pydantic-style items to `errors`
 * (at `loc` and below, in pydantic's order); returns the validated value
 * (defaults filled in, codecs applied) or `INVALID`. Never mutates `value`.
 *
 * @example
 * ```ts
 * const errors = new ErrorCollector();
 * validateAgainst(HORIZON_SCHEMA, 0, ["body", "h"], errors); // HORIZON_SCHEMA is Type.Integer({ exclusiveMinimum: 0 })
 * errors.items;
 * // => [{ type: "greater_than", loc: ["body", "h"], msg: "Input should be greater than 0", input: 0, ctx: { gt: 0 } }]
 * ```
 * @category API rules
 */
export function validateAgainst<S extends TSchema>(schema: S, value: unknown, loc: Loc, errors: ErrorCollector): Infer<S> | typeof INVALID {
  const fast = compiledCheck(schema, "fast");
  // a valid value: its packed lists may stay typed arrays (their values are read once, by the packing loop)
  const first = fast !== null ? plainArrays(schema as Node, value, true) : plainArrays(schema as Node, value);
  if (fast !== null ? fast(first) : interpretedErrors(schema as Node, first, "", false, []).length === 0) {
    try {
      return decode(schema as Node, first) as Infer<S>;
    } catch (e) {
      if (e !== NOT_FINITE) throw e;
    }
  }
  // an invalid one: its errors are found on lists, as the body's JSON would have them
  const plain = fast !== null ? plainArrays(schema as Node, value) : first;
  const full = compiledCheck(schema, "full");
  const places = full !== null ? (full(plain), full.errors ?? []) : interpretedErrors(schema as Node, plain, "", true, []);
  for (const e of pydanticItems(schema as Node, plain, loc, places)) errors.add(e);
  return INVALID;
}
