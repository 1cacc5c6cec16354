/**
 * Results as the API returns them: token counts computed in one place
 * (docs/contract.md §4), fields in a fixed order, warnings kept apart.
 * @module
 */
import type { AnomalyResult, ForecastResult, HistoricResult, Intervals, SeriesData } from "../types.js";

/**
 * `input_tokens`: every number received (y, each X value and each X_future value).
 * @category API rules
 */
export function countInputTokens(series: SeriesData, Xfuture: readonly Float64Array[] = []): number {
  let n = series.y.length;
  for (const f of series.X) n += f.length;
  for (const f of Xfuture) n += f.length;
  return n;
}

function plain<T>(v: readonly T[] | ArrayLike<T>): T[] {
  return Array.isArray(v) ? (v as T[]) : Array.from(v as ArrayLike<T>);
}

function intervalsCopy(intervals: Intervals | null | undefined): Intervals | null {
  if (intervals === null || intervals === undefined) return null;
  const out: Intervals = {};
  for (const key of Object.keys(intervals)) out[key] = plain(intervals[key] as number[]);
  return out;
}

function intervalValues(intervals: Intervals | null): number {
  if (intervals === null) return 0;
  let n = 0;
  for (const key of Object.keys(intervals)) n += (intervals[key] as number[]).length;
  return n;
}

/**
 * The forecast (or historic) result with API token counts and fields in contract order.
 * @category API rules
 */
export function forecastResultJson<R extends ForecastResult | HistoricResult>(result: R, inputTokens: number): R {
  const mean = plain(result.mean);
  const intervals = intervalsCopy(result.intervals);
  const contributions = result.feature_contributions === null || result.feature_contributions === undefined ? null : result.feature_contributions.map((c) => plain(c));
  let output = mean.length + intervalValues(intervals);
  if (contributions !== null) for (const c of contributions) output += c.length;
  return {
    input_tokens: inputTokens,
    output_tokens: output,
    finetune_tokens: result.finetune_tokens,
    mean,
    sizes: plain(result.sizes),
    intervals,
    weights_x: result.weights_x === null || result.weights_x === undefined ? null : plain(result.weights_x),
    feature_contributions: contributions,
    warnings: [...(result.warnings ?? [])],
  } as R;
}

/**
 * The anomaly result with API token counts and fields in contract order.
 * @category API rules
 */
export function anomalyResultJson(result: AnomalyResult, inputTokens: number): AnomalyResult {
  const mean = plain(result.mean);
  const anomaly = plain(result.anomaly);
  const score = plain(result.anomaly_score);
  const accumulated = plain(result.accumulated_anomaly_score);
  const intervals = intervalsCopy(result.intervals);
  return {
    input_tokens: inputTokens,
    output_tokens: mean.length + anomaly.length + score.length + accumulated.length + intervalValues(intervals),
    finetune_tokens: result.finetune_tokens,
    mean,
    sizes: plain(result.sizes),
    idxs: plain(result.idxs),
    anomaly,
    anomaly_score: score,
    accumulated_anomaly_score: accumulated,
    intervals,
    warnings: [...(result.warnings ?? [])],
  };
}

/**
 * A result without its `warnings` (the HTTP body) and the warnings apart (the `warning` header).
 * @category API rules
 */
export function splitWarnings<R extends { warnings: string[] }>(result: R): { body: Omit<R, "warnings">; warnings: string[] } {
  const { warnings, ...body } = result;
  return { body, warnings };
}
