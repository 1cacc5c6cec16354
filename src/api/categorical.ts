/**
 * Categorical exogenous features as the hosted API's newest SDK sends them:
 * `series.categorical_exog` lists the X rows that hold labels (strings,
 * numbers, booleans or null); each such row is read as 0/1 rows, one per
 * label but the first, before validation, and the answer's per-feature
 * arrays are folded back to one entry per feature sent.
 * @module
 */
import { valueError, type ErrorItem } from "./errors.js";
import { isJsonObject, ownProperty } from "./schema-validator.js";

/**
 * Where one feature of the request went in the model's X: `count` rows from
 * `start` (a numeric feature: one row; a categorical one: one per label but
 * its first, in label order).
 * @category API rules
 */
export interface FeatureGroup {
  /** First row of the feature in the expanded X. */
  readonly start: number;
  /** Rows it became (0 for a categorical feature with one label). */
  readonly count: number;
  /** Whether it was sent as labels (`series.categorical_exog`). */
  readonly categorical: boolean;
}

/** A label's identity: its type and value (so "1" and 1 are different labels); null is a label too. */
function labelKey(label: unknown): string | null {
  if (label === null) return "null";
  if (typeof label === "string") return `s:${label}`;
  if (typeof label === "number" && Number.isFinite(label)) return `n:${label}`;
  if (typeof label === "boolean") return `b:${label}`;
  return null;
}

/**
 * Reads `series.categorical_exog` of a raw body (before validation): each
 * listed row of `series.X` becomes one 0/1 row per label but the first (the
 * labels sorted by type and value; the first is the baseline every other is
 * measured against), the matching `X_future` arrays likewise (a label not
 * seen in `X` is all zeros: the baseline), and `hist_exog` indices follow
 * the rows. Returns the body to validate, where each feature went (null when
 * nothing is categorical) and the 422 items of a bad list or label. The
 * input is never modified.
 *
 * @example
 * ```ts
 * const read = expandCategorical({ series: { y: [1, 2, 3], sizes: [3], X: [["a", "b", "a"]], categorical_exog: [0] } });
 * (read.raw as { series: { X: number[][] } }).series.X; // => [[0, 1, 0]]
 * read.groups; // => [{ start: 0, count: 1, categorical: true }]
 * ```
 * @category API rules
 */
export function expandCategorical(raw: unknown): { raw: unknown; groups: FeatureGroup[] | null; errors: ErrorItem[] } {
  const none = { raw, groups: null, errors: [] };
  if (!isJsonObject(raw)) return none;
  const series = ownProperty(raw, "series");
  if (!isJsonObject(series)) return none;
  const list = ownProperty(series, "categorical_exog");
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) return none;
  const X = ownProperty(series, "X");
  const features = Array.isArray(X) ? X.length : 0;
  const errors: ErrorItem[] = [];
  if (!Array.isArray(list)) return { raw, groups: null, errors: [valueError(["body", "series", "categorical_exog"], "categorical_exog must be a list of X row indices")] };
  const categorical = new Set<number>();
  list.forEach((index, i) => {
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= features) {
      errors.push(valueError(["body", "series", "categorical_exog", i], `categorical_exog[${i}] = ${JSON.stringify(index)} is not a feature index: series.X has ${features} feature${features === 1 ? "" : "s"}`));
    } else if (categorical.has(index as number)) errors.push(valueError(["body", "series", "categorical_exog", i], `categorical_exog[${i}] = ${index} is listed twice`));
    else categorical.add(index as number);
  });
  if (errors.length > 0) return { raw, groups: null, errors };
  const rows = X as unknown[];
  // the labels of each categorical feature, sorted, from its X row
  const levels = new Map<number, string[]>();
  for (const c of categorical) {
    const row = rows[c];
    if (!Array.isArray(row)) return none; // the schema reports it
    const seen = new Set<string>();
    row.forEach((label, t) => {
      const key = labelKey(label);
      if (key === null) errors.push(valueError(["body", "series", "X", c, t], `a label of categorical feature ${c} must be a string, a finite number, a boolean or null, got ${JSON.stringify(label) ?? String(label)}`));
      else seen.add(key);
    });
    levels.set(c, [...seen].sort());
  }
  if (errors.length > 0) return { raw, groups: null, errors };
  // each label's key once, then one 0/1 row per label but the first
  const dummies = (row: unknown[], c: number): number[][] => {
    const keys = row.map(labelKey);
    return levels.get(c)!.slice(1).map((level) => keys.map((key) => (key === level ? 1 : 0)));
  };
  const groups: FeatureGroup[] = [];
  const expanded: unknown[] = [];
  rows.forEach((row, i) => {
    if (categorical.has(i)) {
      const made = dummies(row as unknown[], i);
      groups.push({ start: expanded.length, count: made.length, categorical: true });
      expanded.push(...made);
    } else {
      groups.push({ start: expanded.length, count: 1, categorical: false });
      expanded.push(row);
    }
  });
  const { categorical_exog: _read, ...rest } = series as Record<string, unknown>;
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>), series: { ...rest, X: expanded } };
  // X_future: array j is feature j's future values (the future features come first)
  const future = ownProperty(raw, "X_future");
  if (Array.isArray(future)) {
    out.X_future = future.flatMap((values, j) => {
      if (!categorical.has(j)) return [values];
      if (!Array.isArray(values)) return [values];
      // an empty array stands for a historical feature: one per row it became
      return values.length === 0 ? Array.from({ length: groups[j]!.count }, () => []) : dummies(values, j);
    });
  }
  const hist = ownProperty(raw, "hist_exog");
  if (Array.isArray(hist) && hist.every((i) => Number.isInteger(i) && i >= 0 && i < features)) {
    out.hist_exog = hist.flatMap((i: number) => Array.from({ length: groups[i]!.count }, (_, k) => groups[i]!.start + k));
  }
  return { raw: out, groups, errors: [] };
}

/**
 * Folds an answer's per-row feature arrays back to one entry per feature
 * sent: `weights_x` keeps a numeric feature's weight and gives a categorical
 * one the range of its labels' effects (the largest less the smallest of 0,
 * the baseline's, and its rows' weights: how far the forecast moves between
 * its labels); `feature_contributions` (one array per row, then the base)
 * sums a categorical feature's rows (zeros when it had one label). Any other
 * field is kept.
 *
 * @example
 * ```ts
 * const groups = [{ start: 0, count: 1, categorical: false }, { start: 1, count: 2, categorical: true }];
 * foldFeatureArrays({ weights_x: [0.5, 2, -1], feature_contributions: [[1], [2], [3], [10]] }, groups);
 * // => { weights_x: [0.5, 3], feature_contributions: [[1], [5], [10]] }
 * ```
 * @category API rules
 */
export function foldFeatureArrays<R extends { weights_x?: number[] | null; feature_contributions?: number[][] | null }>(result: R, groups: readonly FeatureGroup[]): R {
  const out = { ...result };
  const weights = result.weights_x;
  if (Array.isArray(weights)) {
    out.weights_x = groups.map((g) => {
      if (!g.categorical) return weights[g.start]!;
      const effects = [0, ...weights.slice(g.start, g.start + g.count)];
      return Math.max(...effects) - Math.min(...effects);
    });
  }
  const contributions = result.feature_contributions;
  if (Array.isArray(contributions) && contributions.length > 0) {
    const rows = contributions[0]!.length;
    const base = contributions[contributions.length - 1]!;
    out.feature_contributions = [
      ...groups.map((g) => {
        if (!g.categorical) return contributions[g.start]!;
        const sum = new Array<number>(rows).fill(0);
        for (let k = g.start; k < g.start + g.count; k++) contributions[k]!.forEach((v, r) => (sum[r] = sum[r]! + v));
        return sum;
      }),
      base,
    ];
  }
  return out;
}
