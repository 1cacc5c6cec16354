/**
 * Model aliases chosen by the host: other names a service accepts for the
 * library's models (`createService({ modelAliases })`), e.g. the names the
 * hosted API's Python SDK sends (`SDK_MODEL_ALIASES`). An alias is resolved
 * to its model at the edge, before validation, wherever a request names a
 * model; everything after (the base-model check of a fine-tuned model, the
 * stored records, the answers) sees the library's own name.
 * @module
 */
import type { ErrorItem } from "./errors.js";
import type { ModelName } from "../types.js";
import { isModelName, MODEL_NAMES } from "../model/config.js";
import { expectedLiteralText, isJsonObject, ownProperty } from "./schema-validator.js";

/**
 * Other names for the library's models: alias → model.
 * @category Service
 */
export type ModelAliases = Readonly<Record<string, ModelName>>;

/**
 * The model names of the hosted API's Python SDK (`NixtlaClient`, whose
 * default is `timegpt-2.1`) mapped onto the library's models, for a host
 * that serves that SDK's users: pass it as `createService({ modelAliases:
 * SDK_MODEL_ALIASES })`, or spread it into a table of your own.
 *
 * The mapping, by role (docs/api-decisions.md, "Model aliases"):
 * - `timegpt-1` → `forecastmodel-1`: the first-generation general model, the
 *   library's default.
 * - `timegpt-1-long-horizon` → `forecastmodel-1-long-horizon`: the model for
 *   horizons past one season.
 * - `timegpt-2`, `timegpt-2-mini`, `timegpt-2-pro`, `timegpt-2.1` →
 *   `forecastmodel-2.1`: the second generation. `forecastmodel-2.1` is the
 *   library's only second-generation network (forecastmodel-1's network
 *   trained further on groups of related series), and the only one for which
 *   the SDK's `multivariate: true` changes anything; the library has no
 *   smaller or larger variants (every network has the same size), so the
 *   mini and pro tiers have no counterpart of their own.
 *
 * @example
 * ```ts
 * SDK_MODEL_ALIASES["timegpt-2.1"]; // => "forecastmodel-2.1"
 * SDK_MODEL_ALIASES["timegpt-1-long-horizon"]; // => "forecastmodel-1-long-horizon"
 * ```
 * @category Service
 */
export const SDK_MODEL_ALIASES: ModelAliases = Object.freeze({
  "timegpt-1": "forecastmodel-1",
  "timegpt-1-long-horizon": "forecastmodel-1-long-horizon",
  "timegpt-2": "forecastmodel-2.1",
  "timegpt-2-mini": "forecastmodel-2.1",
  "timegpt-2-pro": "forecastmodel-2.1",
  "timegpt-2.1": "forecastmodel-2.1",
});

/**
 * A checked alias table as the service uses it: a `Map` (no prototype keys)
 * from alias to model.
 *
 * @param aliases - alias → model; may be undefined (no aliases).
 * @returns the table as a Map (empty without aliases).
 * @throws RangeError when an alias is empty, is one of the library's model
 *   names (those keep their meaning), or maps to a name that is not a model.
 *
 * @example
 * ```ts
 * modelAliasTable({ "timegpt-1": "forecastmodel-1" }).get("timegpt-1"); // => "forecastmodel-1"
 * modelAliasTable(undefined).size; // => 0
 * ```
 * @category Service
 */
export function modelAliasTable(aliases: ModelAliases | undefined): ReadonlyMap<string, ModelName> {
  const table = new Map<string, ModelName>();
  if (aliases === undefined || aliases === null) return table;
  if (typeof aliases !== "object") throw new RangeError("createService: modelAliases must be an object mapping alias to model name");
  for (const [alias, model] of Object.entries(aliases)) {
    if (alias.length === 0) throw new RangeError("createService: modelAliases has an empty alias");
    if (isModelName(alias)) throw new RangeError(`createService: modelAliases: '${alias}' is a model name of the library and cannot be an alias`);
    if (!isModelName(model)) {
      throw new RangeError(`createService: modelAliases['${alias}'] = ${JSON.stringify(model)} is not a model; models: ${MODEL_NAMES.join(", ")}`);
    }
    table.set(alias, model);
  }
  return table;
}

/**
 * The model a name stands for: an alias's model, else the name as given
 * (a model name, an unknown name or a non-string, left for validation).
 *
 * @example
 * ```ts
 * const table = modelAliasTable(SDK_MODEL_ALIASES);
 * [canonicalModelName("timegpt-2", table), canonicalModelName("forecastmodel-1", table), canonicalModelName("gpt", table)];
 * // => ["forecastmodel-2.1", "forecastmodel-1", "gpt"]
 * ```
 * @category Service
 */
export function canonicalModelName(name: unknown, table: ReadonlyMap<string, ModelName>): unknown {
  return typeof name === "string" ? (table.get(name) ?? name) : name;
}

/**
 * A request body with its `model` (when an alias) replaced by the model it
 * stands for; the body is not modified (a shallow copy is made when
 * something changes).
 *
 * @example
 * ```ts
 * const table = modelAliasTable(SDK_MODEL_ALIASES);
 * withCanonicalModel({ model: "timegpt-1", h: 2 }, table); // => { model: "forecastmodel-1", h: 2 }
 * ```
 * @category Service
 */
export function withCanonicalModel(body: unknown, table: ReadonlyMap<string, ModelName>): unknown {
  if (table.size === 0 || !isJsonObject(body)) return body;
  const model = ownProperty(body, "model");
  const canonical = canonicalModelName(model, table);
  return canonical === model ? body : { ...(body as Record<string, unknown>), model: canonical };
}

/**
 * The 422 items with every `literal_error` at a `model` field (`["body",
 * "model"]`, `["query", "model"]`) listing the aliases as accepted too:
 * "Input should be 'forecastmodel-1', … or one of this service's aliases
 * 'timegpt-1', …". Other items are returned as they are.
 *
 * @example
 * ```ts
 * const table = modelAliasTable({ fast: "forecastmodel-1" });
 * const item = { type: "literal_error", loc: ["body", "model"], msg: "Input should be …", input: "gpt" };
 * modelItemsWithAliases([item], table)[0]!.msg;
 * // => "Input should be 'forecastmodel-1', 'forecastmodel-1-long-horizon', 'forecastmodel-2.1' or 'forecastmodel-1-high-frequency', or one of this service's aliases: 'fast'"
 * ```
 * @category Service
 */
export function modelItemsWithAliases(items: readonly ErrorItem[], table: ReadonlyMap<string, ModelName>): ErrorItem[] {
  if (table.size === 0) return [...items];
  const models = expectedLiteralText(MODEL_NAMES);
  const aliases = expectedLiteralText([...table.keys()]);
  const expected = `${models}, or one of this service's aliases: ${aliases}`;
  return items.map((item) =>
    item.type === "literal_error" && item.loc.length === 2 && (item.loc[0] === "body" || item.loc[0] === "query") && item.loc[1] === "model"
      ? { ...item, msg: `Input should be ${expected}`, ctx: { ...item.ctx, expected } }
      : item,
  );
}
