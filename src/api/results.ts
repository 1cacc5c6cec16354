/**
 * Results as the API returns them. The core pipelines return typed results
 * (`ForecastOutput`, `AnomalyOutput`, `HistoricOutput`, `FinetuneOutput` of
 * src/types.ts: `Float64Array`s, camelCase, `finetuneWork`); this module is
 * the one place that turns them into JSON bodies (snake_case fields in a fixed
 * order, plain arrays, warnings kept apart) and the one place that counts
 * tokens ({@link countTokens}, docs/contract.md §4).
 *
 * Field mapping: `weightsX` → `weights_x`, `contributions` →
 * `feature_contributions`, `anomalyScore` → `anomaly_score`,
 * `accumulatedAnomalyScore` → `accumulated_anomaly_score`, `anomaly` 1/0 →
 * true/false, `finetuneWork` → `finetune_tokens`.
 * @module
 */
import { plainNumbers } from "./schema-validator.js";
import type { AnomalyOutput, FinetuneOutput, FinetunedWeights, ForecastOutput, IntervalBounds, Intervals, SeriesData } from "../types.js";

/**
 * Token counts every JSON result carries.
 * @category Types
 */
export interface TokenCounts {
  /** Numbers received: y plus every X and X_future value. */
  input_tokens: number;
  /** Numbers returned in per-row arrays. */
  output_tokens: number;
  /** finetune_steps × number of series (0 without fine-tuning). */
  finetune_tokens: number;
}

/**
 * JSON body of a forecast (POST /v2/forecast), built by {@link forecastResultJson}
 * from the core's `ForecastOutput` (`warnings` go to the `warning` header at the API).
 * @category Types
 */
export interface ForecastResult<I extends Intervals | null = Intervals | null> extends TokenCounts {
  /** Point forecasts, h per series, series after series. */
  mean: number[];
  /** Rows per series (h each). */
  sizes: number[];
  /** Conformal intervals per requested level (keys `lo-80`, `hi-80`, …: see `LevelIntervals`), or null without levels. */
  intervals: I;
  /** Fitted coefficient of each exogenous feature, or null without features. */
  weights_x: number[] | null;
  /** Contribution arrays (features + 1), or null. */
  feature_contributions: number[][] | null;
  /** Notes such as the horizon warning (the API moves them to headers). */
  warnings: string[];
}

/**
 * JSON body of online anomaly detection, built by {@link anomalyResultJson} from the core's `AnomalyOutput`.
 * @category Types
 */
export interface AnomalyResult<I extends Intervals | null = Intervals | null> extends TokenCounts {
  /** Forecast ŷ of each output row. */
  mean: number[];
  /** Output rows per series. */
  sizes: number[];
  /** Position of each output row in the request's concatenated y. */
  idxs: number[];
  /** Whether each row is flagged. */
  anomaly: boolean[];
  /** Signed calibrated z-score of each row (|z| > Φ⁻¹(0.5 + level/200) exactly when y is outside the interval). */
  anomaly_score: number[];
  /** max(z², z_c²) (univariate, z_c from a CUSUM of the scored points, reset after alarms) or Σ over series of z² at the row's step (multivariate), z the calibrated z-score. */
  accumulated_anomaly_score: number[];
  /** The interval used for the decision (univariate, keys `lo-<level>` and `hi-<level>`), or null (multivariate). */
  intervals: I;
  /** Notes such as the horizon warning. */
  warnings: string[];
}

/**
 * JSON body of the historic (in-sample) forecast: the fields of a forecast,
 * where `mean` holds the in-sample fitted values of the output rows.
 * @category Types
 */
export type HistoricResult<I extends Intervals | null = Intervals | null> = ForecastResult<I>;

/**
 * Result of a fine-tune as the API reports it before the model is stored
 * (the service and `finetune` add the stored model's id).
 * @category Types
 */
export interface FinetuneResult extends TokenCounts {
  /** The parameters to store (only what changed). */
  weights: FinetunedWeights;
  /** Notes for the caller. */
  warnings: string[];
}

/**
 * What a request received, for the token count: its series (y and every X
 * feature) and, for a forecast, its future exogenous values. Every typed
 * request (`ForecastInput`, `AnomalyInput`, `HistoricInput`, `FinetuneInput`) is one.
 * @category API rules
 */
export interface TokenSource {
  /** The request's series. */
  readonly series: SeriesData;
  /** Future exogenous values (forecasts only). */
  readonly Xfuture?: readonly Float64Array[];
}

/**
 * The token counts of a call, the only place they are computed:
 * `input_tokens` = every number received (the y values, each X value and each
 * X_future value), `output_tokens` = the values of the per-row arrays
 * returned (their total length), `finetune_tokens` = the core's fine-tune work
 * (steps × series for every tuning).
 *
 * @param received - The typed request (its series and, for a forecast, `Xfuture`).
 * @param rowArrays - The per-row arrays of the JSON body (mean, each interval bound, …).
 * @param finetuneWork - The core result's `finetuneWork`.
 * @returns The three counts, in contract order.
 *
 * @example
 * ```ts
 * const series = { y: Float64Array.of(1, 2, 3), sizes: Int32Array.of(3), offsets: Int32Array.of(0, 3), X: [Float64Array.of(0, 1, 0)] };
 * countTokens({ series, Xfuture: [Float64Array.of(1, 1)] }, [[4, 5], [3, 4], [5, 6]], 0);
 * // => { input_tokens: 8, output_tokens: 6, finetune_tokens: 0 }
 * ```
 * @category API rules
 */
export function countTokens(received: TokenSource, rowArrays: readonly ArrayLike<unknown>[], finetuneWork: number): TokenCounts {
  let input = received.series.y.length;
  for (const f of received.series.X) input += f.length;
  for (const f of received.Xfuture ?? []) input += f.length;
  let output = 0;
  for (const a of rowArrays) output += a.length;
  return { input_tokens: input, output_tokens: output, finetune_tokens: finetuneWork };
}

/** Flags 1/0 as true/false. */
function plainFlags(flags: Uint8Array): boolean[] {
  const n = flags.length;
  const out = new Array<boolean>(n);
  for (let i = 0; i < n; i++) out[i] = flags[i] !== 0;
  return out;
}

/** Plain-array copies of the interval bounds, keys in their order. */
function intervalsJson(intervals: IntervalBounds | null): Intervals | null {
  if (intervals === null) return null;
  const out: Intervals = {};
  for (const key of Object.keys(intervals)) out[key] = plainNumbers(intervals[key] as Float64Array);
  return out;
}

/** The per-row arrays of the JSON intervals (for the token count). */
function intervalRows(intervals: Intervals | null): number[][] {
  return intervals === null ? [] : Object.values(intervals);
}

/**
 * The JSON body of a forecast or historic forecast: a typed `ForecastOutput`
 * (or `HistoricOutput`) as plain arrays with snake_case fields in contract
 * order (`input_tokens`, `output_tokens`, `finetune_tokens`, `mean`, `sizes`,
 * `intervals`, `weights_x`, `feature_contributions`, `warnings`); tokens from
 * {@link countTokens} with mean, every interval bound and every contribution
 * array as the per-row arrays.
 *
 * @param output - The pipeline's result.
 * @param received - The typed request it answered (for `input_tokens`).
 * @returns The JSON result (new arrays; the output is not kept).
 *
 * @example
 * ```ts
 * const series = { y: Float64Array.of(1, 2, 3), sizes: Int32Array.of(3), offsets: Int32Array.of(0, 3), X: [] };
 * const output = { mean: Float64Array.of(3, 3), sizes: Int32Array.of(2), intervals: null, weightsX: null,
 *   contributions: null, finetuneWork: 0, warnings: [] };
 * forecastResultJson(output, { series });
 * // => { input_tokens: 3, output_tokens: 2, finetune_tokens: 0, mean: [3, 3], sizes: [2], intervals: null, weights_x: null, feature_contributions: null, warnings: [] }
 * ```
 * @category API rules
 */
export function forecastResultJson(output: ForecastOutput, received: TokenSource): ForecastResult {
  const mean = plainNumbers(output.mean);
  const intervals = intervalsJson(output.intervals);
  const contributions = output.contributions === null ? null : output.contributions.map(plainNumbers);
  return {
    ...countTokens(received, [mean, ...intervalRows(intervals), ...(contributions ?? [])], output.finetuneWork),
    mean,
    sizes: plainNumbers(output.sizes),
    intervals,
    weights_x: output.weightsX === null ? null : plainNumbers(output.weightsX),
    feature_contributions: contributions,
    warnings: [...output.warnings],
  };
}

/**
 * The JSON body of online anomaly detection: a typed `AnomalyOutput` as plain
 * arrays with snake_case fields in contract order (`input_tokens`,
 * `output_tokens`, `finetune_tokens`, `mean`, `sizes`, `idxs`, `anomaly`
 * (flags 1/0 as true/false), `anomaly_score`, `accumulated_anomaly_score`,
 * `intervals`, `warnings`); tokens from {@link countTokens} with mean,
 * anomaly, both scores and every interval bound as the per-row arrays.
 *
 * @param output - The pipeline's result.
 * @param received - The typed request it answered (for `input_tokens`).
 * @returns The JSON result.
 *
 * @example
 * ```ts
 * const series = { y: Float64Array.of(1, 2, 9), sizes: Int32Array.of(3), offsets: Int32Array.of(0, 3), X: [] };
 * const output = { mean: Float64Array.of(3), sizes: Int32Array.of(1), idxs: Int32Array.of(2), anomaly: Uint8Array.of(1),
 *   anomalyScore: Float64Array.of(3), accumulatedAnomalyScore: Float64Array.of(9), intervals: null, finetuneWork: 0, warnings: [] };
 * const json = anomalyResultJson(output, { series });
 * [json.output_tokens, json.anomaly, json.anomaly_score]; // => [4, [true], [3]]
 * ```
 * @category API rules
 */
export function anomalyResultJson(output: AnomalyOutput, received: TokenSource): AnomalyResult {
  const mean = plainNumbers(output.mean);
  const anomaly = plainFlags(output.anomaly);
  const score = plainNumbers(output.anomalyScore);
  const accumulated = plainNumbers(output.accumulatedAnomalyScore);
  const intervals = intervalsJson(output.intervals);
  return {
    ...countTokens(received, [mean, anomaly, score, accumulated, ...intervalRows(intervals)], output.finetuneWork),
    mean,
    sizes: plainNumbers(output.sizes),
    idxs: plainNumbers(output.idxs),
    anomaly,
    anomaly_score: score,
    accumulated_anomaly_score: accumulated,
    intervals,
    warnings: [...output.warnings],
  };
}

/**
 * The fine-tune result as the API reports it: token counts from
 * {@link countTokens} (no per-row arrays, so `output_tokens` is 0), the
 * weights to store and the warnings.
 *
 * @param output - The pipeline's result.
 * @param received - The typed request it answered (for `input_tokens`).
 * @returns Tokens, weights and warnings.
 *
 * @example
 * ```ts
 * const series = { y: Float64Array.of(1, 2, 3, 4), sizes: Int32Array.of(2, 2), offsets: Int32Array.of(0, 2, 4), X: [] };
 * const weights = { model: "forecastmodel-1", start: 0, values: Float64Array.of(0.5) } as const;
 * const r = finetuneResultJson({ weights, finetuneWork: 6, warnings: [] }, { series });
 * [r.input_tokens, r.output_tokens, r.finetune_tokens]; // => [4, 0, 6]
 * ```
 * @category API rules
 */
export function finetuneResultJson(output: FinetuneOutput, received: TokenSource): FinetuneResult {
  return { ...countTokens(received, [], output.finetuneWork), weights: output.weights, warnings: [...output.warnings] };
}

/**
 * A result without its `warnings` (the HTTP body) and the warnings apart (the `warning` header).
 *
 * @example
 * ```ts
 * splitWarnings({ input_tokens: 3, mean: [1], warnings: ["note"] });
 * // => { body: { input_tokens: 3, mean: [1] }, warnings: ["note"] }
 * ```
 * @category API rules
 */
export function splitWarnings<R extends { warnings: string[] }>(result: R): { body: Omit<R, "warnings">; warnings: string[] } {
  const { warnings, ...body } = result;
  return { body, warnings };
}
