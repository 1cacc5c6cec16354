/**
 * Historical anomaly detection (POST /v2/anomaly_detection, as the hosted
 * API's dataframe SDK calls it): the historic (in-sample) forecast at one
 * level, and every fitted point whose actual value lies outside its interval
 * flagged as an anomaly.
 * @module
 */
import type { ErrorItem } from "./errors.js";
import { echoedValueError } from "./json.js";
import { isJsonObject, ownProperty } from "./schema-validator.js";

/** The fields of a historical anomaly detection body that the historic forecast reads. */
const PASSED_ON = ["series", "model", "freq", "finetuned_model_id", "clean_ex_first", "finetune_steps", "finetune_loss", "finetune_depth"] as const;

/** Default level of historical anomaly detection (as in the SDK). */
export const HISTORIC_ANOMALY_DEFAULT_LEVEL = 99;

/**
 * The historic forecast body of a historical anomaly detection body: the
 * fields the historic forecast reads, and `level` as a one-element list
 * (a number, a one-element list, or absent/null for 99). A list of several
 * levels is an error item (one level decides the flags). `scalarLevel` says
 * the level came as a number: the historic forecast's items about
 * `level[0]` are then about `level` itself (see `scalarLevelItems`).
 *
 * @example
 * ```ts
 * historicAnomalyBody({ series: { y: [1, 2], sizes: [2] }, freq: "D", level: 95, multivariate: false }).body;
 * // => { series: { y: [1, 2], sizes: [2] }, freq: "D", level: [95] }
 * ```
 * @category API rules
 */
export function historicAnomalyBody(raw: unknown): { body: unknown; errors: ErrorItem[]; scalarLevel: boolean } {
  if (!isJsonObject(raw)) return { body: raw, errors: [], scalarLevel: false };
  const body: Record<string, unknown> = {};
  for (const key of PASSED_ON) {
    const v = ownProperty(raw, key);
    if (v !== undefined) body[key] = v;
  }
  const level = ownProperty(raw, "level");
  if (level === undefined || level === null) {
    body.level = [HISTORIC_ANOMALY_DEFAULT_LEVEL];
    return { body, errors: [], scalarLevel: false };
  }
  if (Array.isArray(level)) {
    if (level.length !== 1) {
      return { body, errors: [echoedValueError(["body", "level"], "anomaly detection takes one level (a number, e.g. 99)", level)], scalarLevel: false };
    }
    body.level = level;
    return { body, errors: [], scalarLevel: false };
  }
  body.level = [level];
  return { body, errors: [], scalarLevel: true };
}

/**
 * The 422 items of a historical anomaly detection whose `level` was sent as
 * a number: what the historic forecast says at `["body", "level", 0]` is
 * said at `["body", "level"]`, where the client put the number; other items
 * are unchanged.
 *
 * @example
 * ```ts
 * scalarLevelItems([{ type: "less_than", loc: ["body", "level", 0], msg: "Input should be less than 100", input: 100 }])[0]!.loc;
 * // => ["body", "level"]
 * ```
 * @category API rules
 */
export function scalarLevelItems(items: readonly ErrorItem[]): ErrorItem[] {
  return items.map((item) => (item.loc.length >= 3 && item.loc[0] === "body" && item.loc[1] === "level" && item.loc[2] === 0 ? { ...item, loc: ["body", "level", ...item.loc.slice(3)] } : item));
}
