/**
 * From a JSON body to the typed requests of `src/types.ts`, in three phases:
 * limits on the raw JSON (before anything is allocated), field validation
 * against the schemas (every field error at once), then the rules across
 * fields as `value_error` items.
 * @module
 */
import { ValidationError, valueError, type ErrorItem } from "./errors.js";
import { expandCategorical, type FeatureGroup } from "./categorical.js";
import { fillMissing, parseFreq, seriesOffsets } from "../series/index.js";
import type {
  AnomalyInput,
  FinetunedWeights,
  FinetuneInput,
  ForecastInput,
  Freq,
  HistoricInput,
  ModelName,
  ModelSpec,
  SeriesData,
} from "../types.js";
import { anomalyMinimumLength, anomalyWindowPlan, ANOMALY_MIN_CONTEXT } from "../anomaly/index.js";
import { plannedWindowCount } from "../cv/index.js";
import { calibrationPlan } from "../forecast/index.js";
import { finetuneBatchSize, READOUT_MAX_FIT_WINDOWS, READOUT_MAX_VALIDATION_WINDOWS } from "../finetune/index.js";
import { historicWindowCount, historicWindowsWithShort } from "../historic/index.js";
import { defaultModel, isModelName, modelParams, MODELS, requestModelParams } from "../model/index.js";
import { ErrorCollector, INVALID, isArrayLike, isJsonObject, ownProperty, validateAgainst, type ApiObjectSchema, type Infer } from "./schema-validator.js";
import { API_FREQS, API_REQUEST_SCHEMAS, CORE_FREQS, CORE_REQUEST_SCHEMAS, SERIES_SCHEMA, type ApiEndpoint } from "./schemas.js";
import { readFreq } from "./freq.js";

/**
 * Size limits of a request, checked on the raw JSON before anything is
 * allocated; exceeding one is a 422 `value_error` naming the limit.
 * @category Service
 */
export interface ServiceLimits {
  /** Most numbers a request may send (y plus every X and X_future value) or make the service return. */
  readonly maxValues: number;
  /** Largest `h`. */
  readonly maxHorizon: number;
  /** Most series (`sizes.length`) in one request. */
  readonly maxSeries: number;
  /** Longest body, in bytes (or UTF-16 code units for a string body). */
  readonly maxBodyBytes: number;
  /**
   * Work budget: most windows the network forecasts for one request (the
   * forecast and its calibration windows, the anomaly windows, twice
   * without features or per-window tuning since the windows after a spike
   * are forecast again on the cleaned series, the historic windows; each
   * pass beyond the native horizon counts again).
   */
  readonly maxNetworkWindows: number;
  /**
   * Work budget: most training windows of fine-tuning, weighted by what a
   * step really costs (`finetuneTrainingCost`: steps × (batch + 16) × the
   * depth's weight, plus the output end's refit, × the model's weight, ×
   * windows with `refit`).
   */
  readonly maxFinetuneWindows: number;
  /** Work budget: most exogenous features (the regression's cost grows with their cube). */
  readonly maxFeatures: number;
}

/**
 * The limits `createService` and the core functions use when none are given:
 * 2,500,000 numbers per request (received or returned), h up to 10,000,
 * 100,000 series, 256 MiB of body, and the work budget: 60,000 network
 * windows, 50,000 fine-tuning windows, 500 exogenous features (each within
 * about 10 s of one core of the 2-core reference machine; see
 * docs/api-decisions.md).
 *
 * @example
 * ```ts
 * DEFAULT_SERVICE_LIMITS.maxHorizon; // => 10000
 * ```
 * @category Service
 */
export const DEFAULT_SERVICE_LIMITS: ServiceLimits = Object.freeze({
  maxValues: 2_500_000,
  maxHorizon: 10_000,
  maxSeries: 100_000,
  maxBodyBytes: 256 * 1024 * 1024,
  maxNetworkWindows: 60_000,
  maxFinetuneWindows: 50_000,
  maxFeatures: 500,
});

/**
 * No limits and no work budget: pass it as `limits` to lift the defaults (trusted callers only).
 * @category API rules
 */
export const UNLIMITED: ServiceLimits = Object.freeze({
  maxValues: Infinity,
  maxHorizon: Infinity,
  maxSeries: Infinity,
  maxBodyBytes: Infinity,
  maxNetworkWindows: Infinity,
  maxFinetuneWindows: Infinity,
  maxFeatures: Infinity,
});

/**
 * Fills the limits not given from `base`.
 * @category API rules
 */
export function resolveLimits(given: Partial<ServiceLimits> | undefined, base: ServiceLimits): ServiceLimits {
  const out = { ...base };
  if (given !== undefined && given !== null) {
    for (const key of ["maxValues", "maxHorizon", "maxSeries", "maxBodyBytes", "maxNetworkWindows", "maxFinetuneWindows", "maxFeatures"] as const) {
      const v = given[key];
      if (v === undefined) continue;
      if (typeof v !== "number" || Number.isNaN(v) || v < 0) throw new RangeError(`limits.${key} must be a number >= 0, got ${String(v)}`);
      out[key] = v;
    }
  }
  return Object.freeze(out);
}

/**
 * Validated series, still as plain values: the type `SERIES_SCHEMA` validates into.
 * @category API rules
 */
export interface ValidatedSeries extends Infer<typeof SERIES_SCHEMA> {}

/** What the validator adds to every body. */
interface ModelGiven {
  /** Whether `model` was in the body (a fine-tuned model's base model is used otherwise). */
  readonly modelGiven: boolean;
}

/**
 * Validated POST /v2/forecast body: the type its schema validates into (`Infer`), plus `modelGiven`.
 * @category API rules
 */
export interface ValidatedForecastBody extends Infer<typeof CORE_REQUEST_SCHEMAS.forecast>, ModelGiven {
  /** 1 where `series.y` was missing (null or NaN) and was filled (`fillMissing`); null when nothing was missing. */
  missing?: Uint8Array | null;
  /** Where each feature sent went in `series.X` when some were categorical (`expandCategorical`); absent otherwise. */
  featureGroups?: FeatureGroup[];
}

/**
 * Validated POST /v2/online_anomaly_detection body: the type its schema validates into (`Infer`), plus `modelGiven`.
 * @category API rules
 */
export interface ValidatedAnomalyBody extends Infer<typeof CORE_REQUEST_SCHEMAS.anomaly>, ModelGiven {
  /** As in {@link ValidatedForecastBody.missing}. */
  missing?: Uint8Array | null;
  /** As in {@link ValidatedForecastBody.featureGroups}. */
  featureGroups?: FeatureGroup[];
}

/**
 * Validated POST /v2/historic_forecast body: the type its schema validates into (`Infer`), plus `modelGiven`.
 * @category API rules
 */
export interface ValidatedHistoricBody extends Infer<typeof CORE_REQUEST_SCHEMAS.historic>, ModelGiven {
  /** As in {@link ValidatedForecastBody.missing}. */
  missing?: Uint8Array | null;
  /** As in {@link ValidatedForecastBody.featureGroups}. */
  featureGroups?: FeatureGroup[];
  /** Set by `validateEndpointBody`'s `shortSeriesWindow` option (the SDK's in-sample routes): see `HistoricInput.shortSeriesWindow`. */
  shortSeriesWindow?: boolean;
}

/**
 * Validated POST /v2/finetune body: the type its schema validates into (`Infer`), plus `modelGiven`.
 * @category API rules
 */
export interface ValidatedFinetuneBody extends Infer<typeof CORE_REQUEST_SCHEMAS.finetune>, ModelGiven {}

/** Fields every validated body shares. */
type ValidatedCommon = Pick<
  ValidatedFinetuneBody,
  "series" | "freq" | "model" | "modelGiven" | "finetune_steps" | "finetune_loss" | "finetune_depth" | "finetuned_model_id"
>;

/**
 * Validated body by endpoint.
 * @category API rules
 */
export interface ValidatedBodies {
  forecast: ValidatedForecastBody;
  anomaly: ValidatedAnomalyBody;
  historic: ValidatedHistoricBody;
  finetune: ValidatedFinetuneBody;
}

function rawLength(v: unknown): number {
  return isArrayLike(v) ? v.length : 0;
}

/** Numbers in a raw feature matrix, each feature counted as at least one (an empty feature still costs an array). */
function rawMatrixValues(v: unknown): number {
  if (!isArrayLike(v)) return 0;
  let total = 0;
  for (let k = 0; k < v.length; k++) total += Math.max(1, rawLength(v[k]));
  return total;
}

/**
 * Limit items for a raw body (empty when within limits). Reads only lengths
 * and a few scalars of the raw JSON; allocates nothing proportional to it.
 * `shortSeriesWindow`: a historic body of the SDK's in-sample routes, whose
 * short series get one window each (counted as the run makes them).
 * @category API rules
 */
export function checkRequestLimits(endpoint: ApiEndpoint, raw: unknown, limits: ServiceLimits, shortSeriesWindow = false): ErrorItem[] {
  const out: ErrorItem[] = [];
  if (!isJsonObject(raw)) return out;
  const series = ownProperty(raw, "series");
  const s = isJsonObject(series) ? series : null;
  const yLen = s === null ? 0 : rawLength(ownProperty(s, "y"));
  const xValues = s === null ? 0 : rawMatrixValues(ownProperty(s, "X"));
  const xfValues = endpoint === "forecast" ? rawMatrixValues(ownProperty(raw, "X_future")) : 0;
  const received = yLen + xValues + xfValues;
  if (received > limits.maxValues) {
    out.push(valueError(["body", "series"], `the request sends ${received} numbers (y, X and X_future), more than limits.maxValues = ${limits.maxValues}`));
  }
  const nSeries = s === null ? 0 : rawLength(ownProperty(s, "sizes"));
  if (nSeries > limits.maxSeries) {
    out.push(valueError(["body", "series", "sizes"], `the request has ${nSeries} series, more than limits.maxSeries = ${limits.maxSeries}`));
  }
  const hRaw = ownProperty(raw, "h");
  const h = typeof hRaw === "number" && Number.isFinite(hRaw) && hRaw > 0 ? hRaw : 0;
  if ((endpoint === "forecast" || endpoint === "anomaly") && h > limits.maxHorizon) {
    out.push(valueError(["body", "h"], `h = ${h} is more than limits.maxHorizon = ${limits.maxHorizon}`));
  }
  const levelRaw = ownProperty(raw, "level");
  const intervalArrays = 2 * (endpoint === "anomaly" ? 1 : rawLength(levelRaw));
  let output = 0;
  const contributionArrays = ownProperty(raw, "feature_contributions") === true ? (s === null ? 0 : rawLength(ownProperty(s, "X"))) + 1 : 0;
  if (endpoint === "forecast") output = Math.max(1, nSeries) * h * (1 + intervalArrays + (contributionArrays > 1 ? contributionArrays : 0));
  else if (endpoint === "historic") {
    output = yLen * (1 + intervalArrays + contributionArrays);
  }
  if (output > limits.maxValues && out.every((e) => e.loc[1] !== "h")) {
    out.push(valueError(["body", endpoint === "forecast" ? "h" : "level"], `the response would hold ${output} numbers, more than limits.maxValues = ${limits.maxValues}`));
  }
  if (out.length === 0) out.push(...checkWorkBudget(endpoint, raw, s, limits, shortSeriesWindow));
  return out;
}

/**
 * Fixed cost of one fine-tune step (the optimiser's update and the
 * gradient's set-up), in training windows of `finetuneTrainingCost`.
 * @category API rules
 */
export const FINETUNE_STEP_OVERHEAD_WINDOWS = 16;

/**
 * What fine-tuning costs, in training windows of `forecastmodel-1` at depth
 * 1, the unit of `limits.maxFinetuneWindows`.
 *
 * Formula: steps × (batch + FINETUNE_STEP_OVERHEAD_WINDOWS) × (3 + depth) / 4
 * plus the output end's refit, min(steps × batch, READOUT_MAX_FIT_WINDOWS) +
 * READOUT_MAX_VALIDATION_WINDOWS windows (its forward passes, counted whole
 * for its solves; at most 768), all × the model's weight (1.5 for
 * `forecastmodel-1-long-horizon`, 1 for the others), with batch =
 * clamp(series, 32, 128) and the depth `forecastmodel-2.1` really uses (1);
 * 0 without steps. Measured (bench/budget-bench.ts, one core,
 * `forecastmodel-1`, hourly series of 500 points): a window costs about
 * twice as much at depth 5 as at depth 1, and a step of one series (batch 32)
 * 2.4 times a 32nd of a step of 128 series, the step's fixed cost being 5 to
 * 20 windows; the refit of ten series' ten steps cost about what 630
 * training windows do (scratch measurement, 4a45a29: +85 ms on 65 ms).
 *
 * @param steps - fine-tune steps (0: no cost).
 * @param seriesCount - series sent.
 * @param depth - `finetune_depth` (1 to 5).
 * @param model - the model fine-tuned.
 * @returns the cost in training windows.
 *
 * @example
 * ```ts
 * finetuneTrainingCost(390, 128, 1, "forecastmodel-1"); // => 56928
 * finetuneTrainingCost(1562, 1, 5, "forecastmodel-1"); // => 150720
 * finetuneTrainingCost(0, 1, 1, "forecastmodel-1"); // => 0
 * ```
 * @category API rules
 */
export function finetuneTrainingCost(steps: number, seriesCount: number, depth: number, model: ModelName): number {
  if (!(steps > 0)) return 0;
  const batch = finetuneBatchSize(seriesCount);
  const { fixedFinetuneDepth, finetuneCostWeight } = MODELS[model];
  const effectiveDepth = fixedFinetuneDepth ?? depth;
  const readout = Math.min(steps * batch, READOUT_MAX_FIT_WINDOWS) + READOUT_MAX_VALIDATION_WINDOWS;
  return (steps * (batch + FINETUNE_STEP_OVERHEAD_WINDOWS) * ((3 + effectiveDepth) / 4) + readout) * finetuneCostWeight;
}

/**
 * The most fine-tune steps whose {@link finetuneTrainingCost} fits in
 * `budget` training windows (0 when not even one does): what a caller can
 * clamp `finetune_steps` to under `limits.maxFinetuneWindows`.
 *
 * @example
 * ```ts
 * mostFinetuneSteps(50_000, 1, 1, "forecastmodel-1"); // => 1025
 * finetuneTrainingCost(1025, 1, 1, "forecastmodel-1") <= 50_000; // => true
 * finetuneTrainingCost(1026, 1, 1, "forecastmodel-1") > 50_000; // => true
 * ```
 * @category API rules
 */
export function mostFinetuneSteps(budget: number, seriesCount: number, depth: number, model: ModelName): number {
  if (!(finetuneTrainingCost(1, seriesCount, depth, model) <= budget)) return 0;
  let lo = 1; // fits
  let hi = 2;
  while (finetuneTrainingCost(hi, seriesCount, depth, model) <= budget) {
    lo = hi;
    hi *= 2;
    if (hi > 2 ** 40) return lo;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (finetuneTrainingCost(mid, seriesCount, depth, model) <= budget) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** A positive integer field of the raw body, or `fallback`. */
function rawPositiveInteger(raw: Record<string, unknown>, key: string, fallback: number): number {
  const v = ownProperty(raw, key);
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : fallback;
}

/**
 * The work budget of a raw body (after the size limits): how many windows the
 * network forecasts and fine-tuning trains on, and how many features the
 * regression sees, from the request alone. Invalid fields count as their
 * defaults (the schema refuses them next).
 */
/**
 * The model a body is served by: the one it names, else the endpoint's
 * default. Forecasts (and cross-validation) of hourly to 5-minute data, and
 * of per-minute data beyond 48 steps, default to the high-frequency network,
 * where it was measured to win (`defaultModel`); everything else to
 * forecastmodel-1 (the schemas' default). The work budget (from the raw
 * body) and the validated body read it alike.
 */
function servedModel(endpoint: ApiEndpoint, named: ModelName | null, freq: string, h: unknown): ModelName {
  if (named !== null) return named;
  return endpoint === "forecast" ? defaultModel(freq, typeof h === "number" ? h : undefined) : "forecastmodel-1";
}

function checkWorkBudget(endpoint: ApiEndpoint, raw: Record<string, unknown>, s: Record<string, unknown> | null, limits: ServiceLimits, shortSeriesWindow: boolean): ErrorItem[] {
  const out: ErrorItem[] = [];
  const sizesRaw = s === null ? undefined : ownProperty(s, "sizes");
  const sizes: number[] = [];
  if (isArrayLike(sizesRaw)) {
    for (let i = 0; i < sizesRaw.length; i++) {
      const v = sizesRaw[i];
      // whole points: the window counts of a size and of its floor are the same
      sizes.push(typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(Math.min(v, 2 ** 31)) : 0);
    }
  }
  const features = s === null ? 0 : rawLength(ownProperty(s, "X"));
  if (features > limits.maxFeatures) {
    out.push(valueError(["body", "series", "X"], `the request has ${features} exogenous features, more than limits.maxFeatures = ${limits.maxFeatures}`));
  }
  const modelRaw = ownProperty(raw, "model");
  const freqRaw = ownProperty(raw, "freq");
  const freq = (typeof freqRaw === "string" ? parseFreq(freqRaw)?.name : undefined) ?? "D";
  const model = servedModel(endpoint, isModelName(modelRaw) ? modelRaw : null, freq, ownProperty(raw, "h"));
  const { horizon, inputSize } = modelParams(model, freq);
  let windows = 0;
  let trainingPasses = 1;
  if (endpoint === "forecast") {
    const h = rawPositiveInteger(raw, "h", 1);
    const passes = Math.ceil(h / horizon);
    const calibrates = rawLength(ownProperty(raw, "level")) > 0 || (features > 0 && ownProperty(raw, "clean_ex_first") === false);
    // the forecast and its calibration windows (calibrationPlan, as runForecast runs them)
    const plan = calibrates ? calibrationPlan(h) : null;
    for (const n of sizes) windows += passes * (1 + (plan === null ? 0 : plannedWindowCount(plan, n)));
  } else if (endpoint === "anomaly") {
    const h = rawPositiveInteger(raw, "h", 1);
    const d = rawPositiveInteger(raw, "detection_size", 1);
    const step = rawPositiveInteger(raw, "step_size", h);
    const passes = Math.ceil(h / horizon);
    const plan = anomalyWindowPlan(d, h, step);
    const refit = ownProperty(raw, "refit") === true && rawPositiveInteger(raw, "finetune_steps", 0) > 0;
    // without features or per-window tuning, the windows after a series' first spike are forecast
    // again on the cleaned series: up to every window twice
    const cleaningPasses = features === 0 && !refit ? 2 : 1;
    let most = 0;
    for (const n of sizes) {
      const fit = plannedWindowCount(plan, n);
      windows += cleaningPasses * passes * fit;
      most = Math.max(most, fit);
    }
    if (ownProperty(raw, "refit") === true) trainingPasses = Math.max(1, most);
  } else if (endpoint === "historic") {
    // the windows runHistoricForecast makes
    const count = shortSeriesWindow ? historicWindowsWithShort : historicWindowCount;
    for (const n of sizes) windows += count(n, inputSize, horizon);
  }
  if (windows > limits.maxNetworkWindows) {
    out.push(valueError(["body", "series"], `the model would forecast ${windows} windows for this request, more than limits.maxNetworkWindows = ${limits.maxNetworkWindows} (send fewer or shorter series, a smaller h, detection_size or level list, or split the request)`));
  }
  const steps = rawPositiveInteger(raw, "finetune_steps", endpoint === "finetune" ? 10 : 0);
  const stepsGiven = ownProperty(raw, "finetune_steps");
  const effectiveSteps = typeof stepsGiven === "number" && Number.isInteger(stepsGiven) && stepsGiven >= 0 ? stepsGiven : steps;
  if (effectiveSteps > 0) {
    const batch = finetuneBatchSize(sizes.length);
    const depthRaw = ownProperty(raw, "finetune_depth");
    const depth = typeof depthRaw === "number" && Number.isInteger(depthRaw) && depthRaw >= 1 && depthRaw <= 5 ? depthRaw : 1;
    const training = finetuneTrainingCost(effectiveSteps, sizes.length, depth, model) * trainingPasses;
    if (training > limits.maxFinetuneWindows) {
      const refit = trainingPasses > 1 ? ` × ${trainingPasses} windows (refit)` : "";
      out.push(
        valueError(
          ["body", "finetune_steps"],
          `fine-tuning would cost ${Math.ceil(training)} training windows (finetune_steps ${effectiveSteps} × (batch ${batch} + ${FINETUNE_STEP_OVERHEAD_WINDOWS} per step) × depth, plus the output end's refit, × model weight${refit}), more than limits.maxFinetuneWindows = ${limits.maxFinetuneWindows}`,
        ),
      );
    }
  }
  return out;
}

function sumOf(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/**
 * The rules across the fields of a series object at `loc`: `sizes` sum to
 * len(y) (when the sizes could be read) and every feature of `X` that is a
 * list has len(y) values. Shared by the request validation and
 * `checkSeriesInput`, so both say the same.
 */
export function seriesLengthRules(yLength: number, sizes: readonly number[] | null, featureLengths: readonly (number | null)[], loc: readonly (string | number)[], out: ErrorItem[]): void {
  if (sizes !== null) {
    const total = sumOf(sizes);
    if (total !== yLength) out.push(valueError([...loc, "sizes"], `sizes must sum to len(y) = ${yLength}, got ${total}`));
  }
  featureLengths.forEach((length, k) => {
    if (length !== null && length !== yLength) out.push(valueError([...loc, "X", k], `X[${k}] must have len(y) = ${yLength} values, got ${length}`));
  });
}

function seriesRules(series: ValidatedSeries, out: ErrorItem[]): void {
  seriesLengthRules(series.y.length, series.sizes, series.X === null ? [] : series.X.map((f) => f.length), ["body", "series"], out);
}

function histExogRules(histExog: number[] | null, features: number, out: ErrorItem[]): void {
  if (histExog === null) return;
  const seen = new Set<number>();
  histExog.forEach((index, i) => {
    if (index >= features) {
      out.push(valueError(["body", "hist_exog", i], `hist_exog[${i}] = ${index} is not a feature index: series.X has ${features} feature${features === 1 ? "" : "s"}`));
    } else if (seen.has(index)) out.push(valueError(["body", "hist_exog", i], `hist_exog[${i}] = ${index} is listed twice`));
    seen.add(index);
  });
}

/**
 * The rules of a forecast's `X_future` against `series.X` and `hist_exog`:
 * one array per feature, or one per feature not in `hist_exog`; each of
 * len(sizes) · h values (an empty array for a `hist_exog` feature when one is
 * given per feature); required when some feature is not in `hist_exog`.
 * `future` holds the length of each given array (null: not a list; the
 * whole null: no `X_future`), `need` is len(sizes) · h (null: unknown, the
 * lengths are then not judged). Shared by the request validation and
 * `checkSeriesInput`, so both say the same; `loc` is where `X_future` sits
 * (["body", "X_future"] in a request body).
 */
export function xFutureRules(
  features: number,
  histExog: readonly number[] | null,
  future: readonly (number | null)[] | null,
  need: number | null,
  loc: readonly (string | number)[],
  out: ErrorItem[],
): void {
  const hist = new Set(histExog ?? []);
  let futureFeatures = 0;
  for (let k = 0; k < features; k++) if (!hist.has(k)) futureFeatures++;
  if (future !== null) {
    const perFeature = future.length === features;
    if (features === 0) out.push(valueError([...loc], "X_future is given but series.X is not: future values need the features' history"));
    else if (!perFeature && future.length !== futureFeatures) {
      out.push(
        valueError(
          [...loc],
          `X_future must have one array per feature of series.X (${features}) or per feature not in hist_exog (${futureFeatures}), got ${future.length}`,
        ),
      );
    } else if (need !== null) {
      future.forEach((length, k) => {
        if (length === null || length === need || (perFeature && hist.has(k) && length === 0)) return;
        out.push(valueError([...loc, k], `X_future[${k}] must have len(sizes) * h = ${need} values, got ${length}`));
      });
    }
  } else if (futureFeatures > 0 && need !== null) {
    out.push(valueError([...loc], `X_future is required when series.X is given (one array of len(sizes) * h = ${need} values per feature), unless every feature is listed in hist_exog`));
  }
}

function equalSizesRule(sizes: readonly number[], why: string, out: ErrorItem[]): void {
  const first = sizes[0];
  const i = sizes.findIndex((s) => s !== first);
  if (i >= 0) out.push(valueError(["body", "series", "sizes"], `${why} needs all series of the same length; sizes[0] = ${String(first)} but sizes[${i}] = ${String(sizes[i])}`));
}

function crossFieldRules(endpoint: ApiEndpoint, v: Record<string, unknown>): ErrorItem[] {
  const out: ErrorItem[] = [];
  const series = v.series as ValidatedSeries;
  seriesRules(series, out);
  const features = series.X === null ? 0 : series.X.length;
  if (endpoint === "forecast") {
    const b = v as unknown as ValidatedForecastBody;
    histExogRules(b.hist_exog, features, out);
    xFutureRules(features, b.hist_exog, b.X_future === null ? null : b.X_future.map((f) => f.length), series.sizes.length * b.h, ["body", "X_future"], out);
  } else if (endpoint === "anomaly") {
    const b = v as unknown as ValidatedAnomalyBody;
    histExogRules(b.hist_exog, features, out);
    if (b.threshold_method === "multivariate") equalSizesRule(series.sizes, "threshold_method 'multivariate'", out);
  }
  return out;
}

/**
 * Validates a raw JSON body of `endpoint`: limits first, then every field
 * (pydantic-style items), then the rules across fields. Throws
 * `ValidationError` with all items of the first phase that fails.
 * `core: true` accepts quarterly and yearly freq aliases as the core functions do. Null and
 * NaN in `series.y` are missing values of a forecast, an anomaly detection or a historic
 * forecast (`missingObservations`, filled by `fillMissing`, marked in `missing`);
 * `missingValues: true` reads them so for a fine-tune body too.
 * `shortSeriesWindow: true` (historic bodies of the SDK's in-sample routes)
 * lets a series shorter than inputSize + horizon have one window (see
 * `HistoricInput.shortSeriesWindow`). The forms dataframe SDKs send are read
 * first (see `sdkBodyForms`). `checkedSeries: true` (the records entry
 * points, whose rows were checked and packed into typed arrays) takes the
 * body's `series` as it is ({@link ValidatedSeries}: `y` and each `X` a
 * `Float64Array` of finite numbers, `sizes` positive integers) and validates
 * every other field; the limits and the rules across fields are judged as
 * for any body.
 * @category API rules
 */
export function validateEndpointBody<E extends ApiEndpoint>(
  endpoint: E,
  body: unknown,
  options: { readonly core: boolean; readonly limits: ServiceLimits; readonly missingValues?: boolean; readonly shortSeriesWindow?: boolean; readonly checkedSeries?: boolean },
): ValidatedBodies[E] {
  const gaps = endpoint === "forecast" || endpoint === "anomaly" || endpoint === "historic" || options.missingValues === true ? missingObservations(endpoint === "forecast" ? sdkHistoricalFeatures(body) : body) : { raw: body, missing: null };
  const forms = sdkBodyForms(gaps.raw, options.core ? CORE_FREQS : API_FREQS);
  if (forms.errors.length > 0) throw new ValidationError(forms.errors);
  // categorical features become 0/1 rows here (after X_future moved to the top level, hist_exog known)
  const categorical = expandCategorical(forms.raw);
  if (categorical.errors.length > 0) throw new ValidationError(categorical.errors);
  const raw = categorical.raw;
  const limitItems = checkRequestLimits(endpoint, raw, options.limits, options.shortSeriesWindow === true);
  if (limitItems.length > 0) throw new ValidationError(limitItems);
  const schema = (options.core ? CORE_REQUEST_SCHEMAS : API_REQUEST_SCHEMAS)[endpoint];
  const errors = new ErrorCollector();
  const checked = options.checkedSeries === true && isJsonObject(raw);
  const value = validateAgainst(checked ? besideSeries(schema) : schema, raw, ["body"], errors);
  if (value === INVALID) throw new ValidationError(errors.items);
  const v = checked ? { series: ownProperty(raw, "series"), ...(value as Record<string, unknown>) } : (value as Record<string, unknown>);
  const cross = crossFieldRules(endpoint, v);
  if (cross.length > 0) throw new ValidationError(cross);
  if (gaps.missing !== null) v.missing = fillValidatedGaps(v.series as ValidatedSeries, gaps.missing);
  if (categorical.groups !== null) v.featureGroups = categorical.groups;
  v.modelGiven = isJsonObject(raw) && ownProperty(raw, "model") !== undefined;
  if (endpoint === "historic" && options.shortSeriesWindow === true) v.shortSeriesWindow = true;
  if (!v.modelGiven && typeof v.freq === "string") v.model = servedModel(endpoint, null, v.freq, v.h);
  return v as unknown as ValidatedBodies[E];
}

/**
 * Rewrites the request forms that the hosted API's dataframe SDKs send into
 * the specification's, before validation: a pandas frequency alias whose
 * class is one of `freqs` (`MS`, `h`, `W-SUN`, `15T`, …; see `parseFreq`)
 * becomes its canonical name (`M`, `H`, `W`, `15min`), and `X_future` given inside `series` moves to the top level
 * (`null` there means none). `X_future` both inside `series` and at the top
 * level is an error item. Anything else is left for validation; the input is
 * never modified (a shallow copy is made when something changes).
 *
 * @example
 * ```ts
 * sdkBodyForms({ series: { y: [1, 2], sizes: [2], X: [[0, 1]], X_future: [[2]] }, freq: "MS", h: 1 }, ["D", "M", "H", "W"]).raw;
 * // => { series: { y: [1, 2], sizes: [2], X: [[0, 1]] }, freq: "M", h: 1, X_future: [[2]] }
 * ```
 * @category API rules
 */
export function sdkBodyForms(raw: unknown, freqs: readonly string[]): { raw: unknown; errors: ErrorItem[] } {
  if (!isJsonObject(raw)) return { raw, errors: [] };
  let out: Record<string, unknown> | null = null;
  const edit = (): Record<string, unknown> => (out ??= { ...(raw as Record<string, unknown>) });
  const freq = ownProperty(raw, "freq");
  if (typeof freq === "string") {
    const name = readFreq(freq, freqs);
    if (name !== null && name !== freq) edit().freq = name;
  }
  const series = ownProperty(raw, "series");
  if (isJsonObject(series)) {
    const inner = ownProperty(series, "X_future");
    if (inner !== undefined) {
      const { X_future: _moved, ...rest } = series as Record<string, unknown>;
      edit().series = rest;
      if (inner !== null) {
        const top = ownProperty(raw, "X_future");
        if (top !== undefined && top !== null) {
          return { raw, errors: [valueError(["body", "series", "X_future"], "X_future is given both inside series and at the top level; give it once")] };
        }
        edit().X_future = inner;
      }
    }
  }
  return { raw: out ?? raw, errors: [] };
}

/**
 * The forecast body's historical features as the hosted API's dataframe SDK
 * marks them: it sends no `hist_exog` on POST /v2/forecast but orders
 * `series.X` future features first, and sends future values (`X_future`,
 * inside `series` or at the top level) only for those. So, when `hist_exog`
 * is absent or null and `series.X` has F features: `X_future` with 0 < k < F
 * arrays makes features k … F − 1 historical, and an explicit `X_future:
 * null` makes every feature historical; `hist_exog` is then set to those
 * indices. Anything else is left as it is: with `hist_exog` given the rules
 * are those of `xFutureRules`, and a body with `X` and no `X_future` key at
 * all, or an empty `X_future` list, is still the 422 that asks for it. The input is never modified (a
 * shallow copy is made when something changes).
 *
 * @example
 * ```ts
 * const series = { y: [1, 2], sizes: [2], X: [[0, 1], [5, 6], [7, 8]], X_future: [[2]] };
 * (sdkHistoricalFeatures({ series, h: 1 }) as { hist_exog: number[] }).hist_exog; // => [1, 2]
 * (sdkHistoricalFeatures({ series: { ...series, X_future: null }, h: 1 }) as { hist_exog: number[] }).hist_exog; // => [0, 1, 2]
 * const plain = { series: { y: [1, 2], sizes: [2], X: [[0, 1]] }, X_future: [[2]], h: 1 };
 * sdkHistoricalFeatures(plain) === plain; // => true
 * ```
 * @category API rules
 */
export function sdkHistoricalFeatures(raw: unknown): unknown {
  if (!isJsonObject(raw)) return raw;
  const given = ownProperty(raw, "hist_exog");
  if (given !== undefined && given !== null) return raw;
  const series = ownProperty(raw, "series");
  if (!isJsonObject(series)) return raw;
  const X = ownProperty(series, "X");
  if (!isArrayLike(X) || X.length === 0) return raw;
  const inner = ownProperty(series, "X_future");
  const top = ownProperty(raw, "X_future");
  // the values given (inside series first, as the SDK sends them); both given is sdkBodyForms' 422
  let future: unknown;
  if (inner !== undefined && inner !== null) future = inner;
  else if (top !== undefined && top !== null) future = top;
  else future = inner === null || top === null ? null : undefined;
  if (future === undefined) return raw;
  // an empty list stays the 422 (the SDK sends null, not [], when no feature has future values)
  if (future !== null && (!isArrayLike(future) || future.length === 0 || future.length >= X.length)) return raw;
  const first = future === null ? 0 : future.length;
  return { ...(raw as Record<string, unknown>), hist_exog: Array.from({ length: X.length - first }, (_, j) => first + j) };
}

/**
 * The missing observations of a forecast body: the positions of `null` (what
 * JSON encoders write for NaN) and NaN in `series.y`, and the body with 0 in
 * their place for validation (filled by {@link fillValidatedGaps} after it).
 * Other values (strings, ±Infinity) are left for validation to refuse. The
 * input is never modified.
 *
 * @example
 * ```ts
 * const read = missingObservations({ series: { y: [1, null, 3, NaN], sizes: [4] }, h: 1 });
 * [read.raw, Array.from(read.missing!)];
 * // => [{ series: { y: [1, 0, 3, 0], sizes: [4] }, h: 1 }, [0, 1, 0, 1]]
 * ```
 * @category API rules
 */
export function missingObservations(raw: unknown): { raw: unknown; missing: Uint8Array | null } {
  const none = { raw, missing: null };
  if (!isJsonObject(raw)) return none;
  const series = ownProperty(raw, "series");
  if (!isJsonObject(series)) return none;
  const y = ownProperty(series, "y");
  if (!isArrayLike(y)) return none;
  const missing = ArrayBuffer.isView(y) ? missingTyped(y as unknown as ArrayLike<number>) : missingInList(y);
  if (missing === null) return none;
  const mask = missing;
  // y with 0 at every missing point, so the schema validates; `mask` keeps which points were missing
  const yZeroFilled = Array.from(y as ArrayLike<unknown>, (v, t) => (mask[t] === 1 ? 0 : v));
  return { raw: { ...(raw as Record<string, unknown>), series: { ...(series as Record<string, unknown>), y: yZeroFilled } }, missing: mask };
}

/**
 * The missing points (null or NaN) of a plain list, or null when there are none. Lists and typed arrays take loops
 * of their own: one loop reading both kinds is polymorphic and about twice as slow.
 */
function missingInList(y: ArrayLike<unknown>): Uint8Array | null {
  let missing: Uint8Array | null = null;
  for (let t = 0; t < y.length; t++) {
    const v = y[t];
    if (v === null || (typeof v === "number" && v !== v)) (missing ??= new Uint8Array(y.length))[t] = 1;
  }
  return missing;
}

/** {@link missingInList} of a numeric typed array (NaN is its only missing value). */
function missingTyped(y: ArrayLike<number>): Uint8Array | null {
  let missing: Uint8Array | null = null;
  for (let t = 0; t < y.length; t++) {
    const v = y[t] as number;
    if (v !== v) (missing ??= new Uint8Array(y.length))[t] = 1;
  }
  return missing;
}

/**
 * Fills the missing points of validated series in place (`fillMissing`: linear
 * between observed neighbours, the nearest observed value at either end) and
 * returns the mask; a series with no observed point is a 422 at its size.
 */
function fillValidatedGaps(series: ValidatedSeries, missing: Uint8Array): Uint8Array {
  const empty = fillMissing(series.y, seriesOffsets(series.sizes), missing);
  if (empty.length > 0) {
    throw new ValidationError(
      empty.map((i) => valueError(["body", "series", "sizes", i], `series ${i} has no observed value (every y of it is null or NaN); a series needs at least one to forecast from`, series.sizes[i])),
    );
  }
  return missing;
}

/**
 * Packs validated series into `SeriesData` (offsets from sizes).
 * @category API rules
 */
export function toSeriesData(series: ValidatedSeries): SeriesData {
  const sizes = Int32Array.from(series.sizes);
  return { y: series.y, sizes, offsets: seriesOffsets(sizes), X: series.X ?? [] };
}

/**
 * The model spec of a validated body with its fine-tuned model resolved
 * (`finetuned` null when the body names none). A fine-tuned model fixes the
 * model: its base model is used when `model` is absent, and a different
 * `model` is a 422.
 */
function modelSpec(
  b: ValidatedCommon & { readonly multivariate?: boolean; readonly model_parameters?: Record<string, unknown> | null },
  finetuned: FinetunedWeights | null,
  out: ErrorItem[],
): ModelSpec {
  let model = b.model;
  if (finetuned !== null) {
    if (!b.modelGiven) model = finetuned.model;
    else if (finetuned.model !== b.model) {
      out.push(valueError(["body", "model"], `model '${b.model}' differs from the base model '${finetuned.model}' of fine-tuned model '${String(b.finetuned_model_id)}'`));
    }
  }
  const multivariate = (b.multivariate ?? false) && isModelName(model) && MODELS[model].shape.crossSeries;
  if (multivariate) equalSizesRule(b.series.sizes, "multivariate", out);
  return {
    model,
    freq: b.freq,
    finetune: { steps: b.finetune_steps, loss: b.finetune_loss, depth: b.finetune_depth },
    finetuned,
    multivariate,
    modelParameters: b.model_parameters ?? null,
    params: modelParams(model, b.freq),
  };
}

function finish<T>(request: T, out: ErrorItem[]): T {
  if (out.length > 0) throw new ValidationError(out);
  return request;
}

/**
 * Typed forecast request.
 * @category API rules
 */
export function toForecastRequest(b: ValidatedForecastBody, finetuned: FinetunedWeights | null): ForecastInput {
  const out: ErrorItem[] = [];
  const spec = modelSpec(b, finetuned, out);
  return finish(
    {
      ...spec,
      series: toSeriesData(b.series),
      h: b.h,
      levels: b.level ?? [],
      Xfuture: b.X_future ?? [],
      cleanExFirst: b.clean_ex_first,
      histExog: b.hist_exog ?? [],
      featureContributions: b.feature_contributions,
      ...(b.missing !== undefined && b.missing !== null ? { missing: b.missing } : {}),
    },
    out,
  );
}

/**
 * The lengths online anomaly detection needs: with step_size > h the windows
 * leave gaps, so detection_size must be <= h; every series needs at least
 * `anomalyMinimumLength(detection_size, h, step_size)` points.
 */
function anomalyLengthRules(sizes: readonly number[], h: number, detectionSize: number, stepSize: number, out: ErrorItem[]): void {
  const minimum = anomalyMinimumLength(detectionSize, h, stepSize);
  if (minimum === null) {
    out.push(
      valueError(
        ["body", "detection_size"],
        `detection_size (${detectionSize}) must be <= h (${h}) when step_size (${stepSize}) > h: the forecast windows then leave gaps, so at most ${h} final points have forecasts`,
        detectionSize,
      ),
    );
    return;
  }
  const needs = detectionSize > h ? ` so that forecast windows cover detection_size = ${detectionSize} points` : "";
  sizes.forEach((n, i) => {
    if (n >= minimum) return;
    out.push(
      valueError(
        ["body", "series", "sizes", i],
        `series ${i} has ${n} points; online anomaly detection with h = ${h}, step_size = ${stepSize} and detection_size = ${detectionSize} needs at least ${minimum} points per series (${ANOMALY_MIN_CONTEXT} context point before the first forecast window${needs})`,
        n,
      ),
    );
  });
}

/**
 * Typed anomaly detection request (`stepSize` defaults to `h`).
 * @category API rules
 */
export function toAnomalyRequest(b: ValidatedAnomalyBody, finetuned: FinetunedWeights | null): AnomalyInput {
  const out: ErrorItem[] = [];
  const spec = modelSpec(b, finetuned, out);
  anomalyLengthRules(b.series.sizes, b.h, b.detection_size, b.step_size ?? b.h, out);
  return finish(
    {
      ...spec,
      series: toSeriesData(b.series),
      h: b.h,
      detectionSize: b.detection_size,
      level: b.level,
      thresholdMethod: b.threshold_method,
      stepSize: b.step_size ?? b.h,
      cleanExFirst: b.clean_ex_first,
      histExog: b.hist_exog ?? [],
      refit: b.refit,
      ...(b.missing !== undefined && b.missing !== null ? { missing: b.missing } : {}),
    },
    out,
  );
}

/**
 * The historic forecast needs one window per series: at least inputSize + horizon points (`historicWindowCount` > 0),
 * or, on the SDK's in-sample routes (`shortSeries`), more than horizon points (`historicWindowsWithShort` > 0),
 * with the hosted API's words for that minimum.
 */
function historicLengthRules(sizes: readonly number[], spec: ModelSpec, shortSeries: boolean, out: ErrorItem[]): void {
  const { model, freq } = spec;
  const { inputSize, horizon } = requestModelParams(spec);
  sizes.forEach((n, i) => {
    if (shortSeries) {
      if (historicWindowsWithShort(n, inputSize, horizon) > 0) return;
      out.push(
        valueError(
          ["body", "series", "sizes", i],
          `series ${i} has ${n} observation(s); Minimum required ${horizon + 1} samples for computing prediction intervals and in-sample values: the in-sample forecast of ${model} at freq ${freq} fits the last horizon (${horizon}) points from at least one point before them`,
          n,
        ),
      );
      return;
    }
    if (historicWindowCount(n, inputSize, horizon) > 0) return;
    out.push(
      valueError(
        ["body", "series", "sizes", i],
        `series ${i} has ${n} observation(s); the historic forecast with ${model} at freq ${freq} needs at least inputSize + horizon = ${inputSize} + ${horizon} = ${inputSize + horizon} per series`,
        n,
      ),
    );
  });
}

/**
 * Typed historic forecast request.
 * @category API rules
 */
export function toHistoricRequest(b: ValidatedHistoricBody, finetuned: FinetunedWeights | null): HistoricInput {
  const out: ErrorItem[] = [];
  const spec = modelSpec(b, finetuned, out);
  const shortSeries = b.shortSeriesWindow === true;
  historicLengthRules(b.series.sizes, spec, shortSeries, out);
  return finish(
    {
      ...spec,
      series: toSeriesData(b.series),
      levels: b.level ?? [],
      cleanExFirst: b.clean_ex_first,
      featureContributions: b.feature_contributions,
      ...(b.missing !== undefined && b.missing !== null ? { missing: b.missing } : {}),
      ...(shortSeries ? { shortSeriesWindow: true } : {}),
    },
    out,
  );
}

/**
 * Typed fine-tune request.
 * @category API rules
 */
export function toFinetuneRequest(b: ValidatedFinetuneBody, finetuned: FinetunedWeights | null): FinetuneInput {
  const out: ErrorItem[] = [];
  const spec = modelSpec(b, finetuned, out);
  return finish({ ...spec, series: toSeriesData(b.series) }, out);
}

/**
 * The forecast fields of a cross-validation body that the validation of its
 * series and model fields (as a historic body) does not read: validated
 * against the forecast schema's properties of the same names.
 * @category API rules
 */
export type CrossValidationWindowFields = Pick<ValidatedForecastBody, "level" | "hist_exog" | "multivariate" | "model_parameters">;

/**
 * The typed forecast fields every cross-validation window shares (all of a
 * `ForecastInput` but its series and `Xfuture`), composed from the body's
 * validated values: `base`, its series and model fields validated as a
 * historic body; `window`, its {@link CrossValidationWindowFields}; the
 * oldest window's `sizes` and `h`. The forecast's rules across fields are
 * judged here, as for a forecast body of the oldest window: `hist_exog`
 * against the features, then the model spec's (a fine-tuned model of
 * another base model, `multivariate` with series of unequal lengths). The
 * model is the one a forecast body of the window is served by
 * (`servedModel`); no `feature_contributions` (the answer has none).
 *
 * @example
 * ```ts
 * const base = validateEndpointBody("historic", { series: { y: [1, 2, 3, 4], sizes: [4] }, freq: "D" }, { core: false, limits: UNLIMITED });
 * const window = { level: [80], hist_exog: null, multivariate: false, model_parameters: null };
 * const fields = toCrossValidationFields(base, window, [2], 2, null);
 * [fields.model, fields.levels, fields.histExog, fields.featureContributions];
 * // => ["forecastmodel-1", [80], [], false]
 * ```
 * @category API rules
 */
export function toCrossValidationFields(
  base: ValidatedHistoricBody,
  window: CrossValidationWindowFields,
  oldestSizes: readonly number[],
  h: number,
  finetuned: FinetunedWeights | null,
): Omit<ForecastInput, "series" | "Xfuture"> {
  const out: ErrorItem[] = [];
  histExogRules(window.hist_exog, base.series.X === null ? 0 : base.series.X.length, out);
  if (out.length > 0) throw new ValidationError(out);
  const body: ValidatedForecastBody = {
    series: { y: new Float64Array(0), sizes: [...oldestSizes], X: null },
    freq: base.freq,
    h,
    X_future: null,
    level: window.level,
    model: base.modelGiven ? base.model : servedModel("forecast", null, base.freq, h),
    modelGiven: base.modelGiven,
    clean_ex_first: base.clean_ex_first,
    finetune_steps: base.finetune_steps,
    finetune_loss: base.finetune_loss,
    finetune_depth: base.finetune_depth,
    finetuned_model_id: base.finetuned_model_id,
    hist_exog: window.hist_exog,
    multivariate: window.multivariate,
    model_parameters: window.model_parameters,
    feature_contributions: false,
  };
  const { series: _series, Xfuture: _future, ...fields } = toForecastRequest(body, finetuned);
  return fields;
}

/**
 * An object schema with only the properties whose names `keep` keeps (in
 * their order, each the same schema, with its default): what validates part
 * of a body, its other fields being composed from values validated elsewhere.
 *
 * @example
 * ```ts
 * Object.keys(schemaWith(API_REQUEST_SCHEMAS.forecast, (name) => name === "h" || name === "level").properties);
 * // => ["h", "level"]
 * ```
 * @category API rules
 */
export function schemaWith(schema: ApiObjectSchema, keep: (name: string) => boolean): ApiObjectSchema {
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([name]) => keep(name)));
  const required: readonly string[] | undefined = schema.required;
  return (required === undefined ? { ...schema, properties } : { ...schema, properties, required: required.filter(keep) }) as ApiObjectSchema;
}

const besideSeriesSchemas = new Map<ApiObjectSchema, ApiObjectSchema>();

/** The schema of a body's fields but its series (made once per schema). */
function besideSeries(schema: ApiObjectSchema): ApiObjectSchema {
  let out = besideSeriesSchemas.get(schema);
  if (out === undefined) {
    out = schemaWith(schema, (name) => name !== "series");
    besideSeriesSchemas.set(schema, out);
  }
  return out;
}

type ForecastDefaults = Omit<ValidatedForecastBody, "series" | "freq" | "h" | "modelGiven">;
let forecastDefaults: ForecastDefaults | null = null;

/** The forecast schema's optional properties' defaults (validating `{}` against them), found once on first use. */
function forecastBodyDefaults(): ForecastDefaults {
  if (forecastDefaults === null) {
    const required: readonly string[] = API_REQUEST_SCHEMAS.forecast.required ?? [];
    const optional = schemaWith(API_REQUEST_SCHEMAS.forecast, (name) => !required.includes(name));
    forecastDefaults = Object.freeze(validateAgainst(optional, {}, ["body"], new ErrorCollector()) as ForecastDefaults);
  }
  return forecastDefaults;
}

/**
 * A validated forecast body of one series whose values were checked where
 * they came from (the older form's rows, read by `readLegacyBody`), composed
 * rather than written as JSON and validated again: the limits and the work
 * budget judged as for the body `{series: {y, sizes: [y.length]}, freq, h}`
 * (422 items at its places), every other field its schema default, and the
 * model the body is served by.
 *
 * @example
 * ```ts
 * const b = forecastBodyOfSeries(Float64Array.of(1, 2, 3), "H", 2, DEFAULT_SERVICE_LIMITS);
 * [b.series.sizes, b.h, b.level, b.model, b.modelGiven];
 * // => [[3], 2, null, "forecastmodel-1-high-frequency", false]
 * ```
 * @category API rules
 */
export function forecastBodyOfSeries(y: Float64Array, freq: Freq, h: number, limits: ServiceLimits): ValidatedForecastBody {
  const series = { y, sizes: [y.length], X: null };
  const limitItems = checkRequestLimits("forecast", { series, freq, h }, limits);
  if (limitItems.length > 0) throw new ValidationError(limitItems);
  return { ...forecastBodyDefaults(), series, freq, h, model: servedModel("forecast", null, freq, h), modelGiven: false };
}
