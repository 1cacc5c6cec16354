/**
 * The public entry points of docs/contract.md §1: a JSON request body in, its
 * JSON result out (with the core's `warnings` list), `ValidationError` on bad
 * input. The service (`createService`) runs the same steps with accounts,
 * stores and headers around them.
 * @module
 */
import { foldFeatureArrays, type FeatureGroup } from "./categorical.js";
import { ValidationError, valueError } from "./errors.js";
import type { ProgressCallback } from "../progress.js";
import type { AnomalyInput, AnomalyIntervals, FinetuneInput, FinetunedWeights, ForecastInput, HistoricInput, LevelIntervals } from "../types.js";
import { hashValues, uuidLayout } from "./ids.js";
import type { AnomalyRequest, FinetuneRequest, ForecastRequest, HistoricRequest, JsonBody } from "./bodies.js";
import { readJsonBody } from "./json.js";
import { callPipelines, type ApiPipelines } from "./pipelines.js";
import type { ForecastMemo } from "../model/index.js";
import {
  resolveLimits,
  toAnomalyRequest,
  toFinetuneRequest,
  toForecastRequest,
  toHistoricRequest,
  DEFAULT_SERVICE_LIMITS,
  validateEndpointBody,
  type ServiceLimits,
  type ValidatedBodies,
} from "./requests.js";
import { anomalyResultJson, finetuneResultJson, forecastResultJson, type AnomalyResult, type FinetuneResult, type ForecastResult, type HistoricResult } from "./results.js";
import { CORE_REQUEST_SCHEMAS, type ApiEndpoint } from "./schemas.js";

/**
 * Options of the core entry points (`forecast`, `detectAnomaliesOnline`, `historicForecast`, `finetune`).
 * @category Types
 */
export interface CoreCallOptions {
  /** Looks up a fine-tuned model named by `finetuned_model_id`; an unknown id is a 422. */
  readonly finetunedModels?: (id: string) => FinetunedWeights | undefined;
  /** Size limits and work budget to enforce (default: `DEFAULT_SERVICE_LIMITS`, as the service; `UNLIMITED` lifts them). */
  readonly limits?: Partial<ServiceLimits>;
  /**
   * Progress of the long parts of the call, `{ stage, done, total }`:
   * fine-tuning steps (`"finetune"`) and rolling forecast windows
   * (`"windows"`: a forecast's calibration windows, anomaly detection's
   * windows), at most `PROGRESS_MAX_CALLS` reports per stage run plus the
   * last. Called synchronously; it never changes the result.
   *
   * @example
   * ```ts
   * const y = Array.from({ length: 120 }, (_, t) => 10 + (t % 7));
   * const reports: string[] = [];
   * finetune({ series: { y, sizes: [120] }, freq: "D", finetune_steps: 3 }, { onProgress: (p) => reports.push(`${p.stage} ${p.done}/${p.total}`) });
   * reports; // => ["finetune 1/3", "finetune 2/3", "finetune 3/3"]
   * ```
   */
  readonly onProgress?: ProgressCallback;
  /**
   * Forecasts kept between calls (`createForecastMemo`): contexts forecast
   * by an earlier call with the same memo are answered from it, for callers
   * that send overlapping histories (a monitor calling every few points).
   * The answer is byte-identical with and without it (docs/anomaly-detection.md,
   * "A monitor that calls every few points"). Not taken by the pool: a memo
   * lives in one thread.
   *
   * @example
   * ```ts
   * const memo = createForecastMemo();
   * const y = Array.from({ length: 300 }, (_, t) => 10 + 5 * Math.sin((2 * Math.PI * t) / 24) + ((t * 7919) % 11) / 11);
   * const call = (end: number) => detectAnomaliesOnline({ series: { y: y.slice(end - 250, end), sizes: [250] }, freq: "H", h: 1, detection_size: 10, step_size: 1, level: 99 }, { memo });
   * call(280);
   * call(290).anomaly.length; // => 10
   * memo.hits > 0; // => true
   * ```
   */
  readonly memo?: ForecastMemo;
}

/**
 * Result of the core `finetune`: tokens, the model's id and its weights (store them to use the id later).
 * @category Types
 */
export interface FinetuneCallResult extends FinetuneResult {
  /** `output_model_id` of the request, or an id derived from the request's content. */
  finetuned_model_id: string;
}

/**
 * Reads a body (string, bytes or value) or throws the 422 items of a malformed or missing one.
 * @category API rules
 */
export function parseRequestBody(body: unknown): unknown {
  const read = readJsonBody(body);
  if (read.kind === "invalid") throw new ValidationError([read.item]);
  if (read.kind === "missing") throw new ValidationError([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
  return read.value;
}

/**
 * The 422 item of a `finetuned_model_id` that names no model the caller may use.
 * @category API rules
 */
export function unknownFinetunedModel(id: string): ValidationError {
  return new ValidationError([valueError(["body", "finetuned_model_id"], `fine-tuned model '${id}' was not found`, id)]);
}

/**
 * The warning for levels that look like fractions: when every level given is
 * in (0, 1], e.g. `[0.8, 0.95]`, which asks for 0.8 % and 0.95 % intervals.
 *
 * @example
 * ```ts
 * fractionLevelWarning([0.8, 0.95])?.startsWith("level is in percent"); // => true
 * fractionLevelWarning([80, 0.5]); // => null
 * ```
 * @category API rules
 */
export function fractionLevelWarning(levels: readonly number[]): string | null {
  if (levels.length === 0 || !levels.every((l) => l > 0 && l <= 1)) return null;
  return `level is in percent: ${levels.join(", ")} asks for ${levels.map((l) => `${l} %`).join(", ")} intervals; for ${levels.map((l) => `${Math.round(l * 1e6) / 1e4} %`).join(", ")} write ${levels.map((l) => Math.round(l * 1e6) / 1e4).join(", ")}`;
}

/** Appends the fraction-level warning to a result's warnings when it applies. */
function withLevelWarning<R extends { warnings: string[] }>(result: R, levels: readonly number[]): R {
  const warning = fractionLevelWarning(levels);
  if (warning !== null) result.warnings.push(warning);
  return result;
}

/** The typed request of each endpoint's pipeline (as `ApiPipelines` takes it). */
type TypedRequests = { [E in ApiEndpoint]: Parameters<ApiPipelines[E]>[0] };

/** The JSON result of each endpoint. */
type EndpointResult<E extends ApiEndpoint> = E extends "anomaly" ? AnomalyResult : E extends "finetune" ? FinetuneResult : ForecastResult;

/**
 * The typed request of a validated body of `endpoint`. The rules that need
 * the typed data (a series too short for anomaly detection or the historic
 * forecast) are judged here: a `ValidationError` with their 422 items, before
 * any work is done or paid for.
 * @category API rules
 */
export function endpointRequest<E extends ApiEndpoint>(endpoint: E, body: ValidatedBodies[E], finetuned: FinetunedWeights | null): TypedRequests[E] {
  const typed = typedRequest(endpoint, body, finetuned);
  // categorical features: the answer's per-row feature arrays are folded back to the features sent (runEndpoint)
  const groups = (body as WithFeatureGroups).featureGroups;
  return groups === undefined ? typed : ({ ...typed, featureGroups: groups } as TypedRequests[E]);
}

/** A typed request that remembers where its features went (`expandCategorical`), so that its answer is folded back. */
interface WithFeatureGroups {
  readonly featureGroups?: readonly FeatureGroup[];
}

function typedRequest<E extends ApiEndpoint>(endpoint: E, body: ValidatedBodies[E], finetuned: FinetunedWeights | null): TypedRequests[E] {
  switch (endpoint) {
    case "forecast":
      return toForecastRequest(body as ValidatedBodies["forecast"], finetuned) as TypedRequests[E];
    case "anomaly":
      return toAnomalyRequest(body as ValidatedBodies["anomaly"], finetuned) as TypedRequests[E];
    case "historic":
      return toHistoricRequest(body as ValidatedBodies["historic"], finetuned) as TypedRequests[E];
    default:
      return toFinetuneRequest(body as ValidatedBodies["finetune"], finetuned) as TypedRequests[E];
  }
}

/**
 * Runs a typed request of `endpoint` through its pipeline, returning the JSON result (tokens set here).
 * @category API rules
 */
export function runEndpoint<E extends ApiEndpoint>(endpoint: E, request: TypedRequests[E], pipelines: ApiPipelines): EndpointResult<E> {
  const result = runTyped(endpoint, request, pipelines);
  const groups = (request as WithFeatureGroups).featureGroups;
  return groups === undefined ? result : (foldFeatureArrays(result as never, groups) as EndpointResult<E>);
}

function runTyped<E extends ApiEndpoint>(endpoint: E, request: TypedRequests[E], pipelines: ApiPipelines): EndpointResult<E> {
  type Out = EndpointResult<E>;
  switch (endpoint) {
    case "forecast": {
      const r = request as ForecastInput;
      return withLevelWarning(forecastResultJson(pipelines.forecast(r), r), r.levels) as Out;
    }
    case "anomaly": {
      const r = request as AnomalyInput;
      return withLevelWarning(anomalyResultJson(pipelines.anomaly(r), r), [r.level]) as Out;
    }
    case "historic": {
      const r = request as HistoricInput;
      return withLevelWarning(forecastResultJson(pipelines.historic(r), r), r.levels) as Out;
    }
    default: {
      const r = request as FinetuneInput;
      return finetuneResultJson(pipelines.finetune(r), r) as Out;
    }
  }
}

/**
 * Runs a validated body of `endpoint` through its pipeline, returning the JSON
 * result: {@link runEndpoint} of {@link endpointRequest}.
 * @category API rules
 */
export function executeEndpoint<E extends ApiEndpoint>(endpoint: E, body: ValidatedBodies[E], finetuned: FinetunedWeights | null, pipelines: ApiPipelines): EndpointResult<E> {
  return runEndpoint(endpoint, endpointRequest(endpoint, body, finetuned), pipelines);
}

/**
 * What a core entry point does with a body of `endpoint`: parse, validate,
 * resolve the fine-tuned model, run the pipeline; the validated body, the
 * fine-tuned model and the JSON result. `checkedSeries: true` (the records
 * entry points) takes the body's series as checked and typed where they came
 * from (see `validateEndpointBody`).
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 8 }, (_, t) => t + 1);
 * runCore("forecast", { series: { y, sizes: [8], X: null }, freq: "D", h: 2 }, {}, DEFAULT_PIPELINES, true).result.mean.length; // => 2
 * ```
 * @category API rules
 */
export function runCore<E extends ApiEndpoint>(endpoint: E, body: unknown, options: CoreCallOptions, pipelines: ApiPipelines, checkedSeries = false) {
  const limits = resolveLimits(options.limits, DEFAULT_SERVICE_LIMITS);
  const raw = parseRequestBody(body);
  const validated = validateEndpointBody(endpoint, raw, { core: true, limits, checkedSeries });
  const unknown = unknownFieldsWarning(endpoint, raw);
  let finetuned: FinetunedWeights | null = null;
  const id = validated.finetuned_model_id;
  if (id !== null) {
    const found = options.finetunedModels?.(id);
    if (found === undefined || found === null) throw unknownFinetunedModel(id);
    finetuned = found;
  }
  const request = endpointRequest(endpoint, validated, finetuned);
  const result = runEndpoint(endpoint, options.onProgress === undefined ? request : { ...request, onProgress: options.onProgress }, pipelines);
  if (unknown !== null) result.warnings.push(unknown);
  return { validated, finetuned, result };
}

/**
 * The warning for fields of a body that its endpoint does not know (they are
 * ignored, as the API ignores them; a warning says so, since it is most
 * often a typo such as `levle`), or null.
 */
function unknownFieldsWarning(endpoint: ApiEndpoint, raw: unknown): string | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const known = new Set<string>(Object.keys(CORE_REQUEST_SCHEMAS[endpoint].properties));
  const unknown = Object.keys(raw).filter((k) => !known.has(k)).sort();
  if (unknown.length === 0) return null;
  return `unknown field${unknown.length === 1 ? "" : "s"} ignored: ${unknown.map((k) => `'${k}'`).join(", ")} (known fields: ${[...known].sort().join(", ")})`;
}

/**
 * Forecasts `h` steps after every series of a POST /v2/forecast body, with
 * conformal intervals at each requested level.
 *
 * Validates the body like the API (all field errors at once, then the rules
 * across fields), accepting also freq Q and Y, and runs `runForecast`. Token
 * counts follow docs/contract.md §4. A horizon beyond the model's native one
 * adds a sentence to `warnings`.
 *
 * @param body - the request body: a JSON string, UTF-8 bytes or a parsed object.
 * @param options - fine-tuned model lookup and limits.
 * @returns the forecast result (`mean` series after series, `h` values each).
 * @throws ValidationError with the 422 items when the body is invalid.
 *
 * @example
 * ```ts
 * const r = forecast({ series: { y: [1, 2, 3, 4, 5, 6, 7, 8], sizes: [8] }, freq: "D", h: 2 });
 * r.mean.length; // => 2
 * r.input_tokens; // => 8
 * ```
 * @category Entry points
 */
export function forecast<L extends number = number>(body: JsonBody<ForecastRequest<L>>, options: CoreCallOptions = {}): ForecastResult<LevelIntervals<L>> {
  return runCore("forecast", body, options, callPipelines(options)).result as ForecastResult<LevelIntervals<L>>;
}

/**
 * Online anomaly detection on a POST /v2/online_anomaly_detection body: rolling
 * forecasts for past points with the model's spread, calibrated z-scores on the
 * series' own errors, flags outside the calibrated interval (univariate) or above the chi-square threshold
 * (multivariate), for the last `detection_size` points of each series.
 *
 * @param body - the request body: a JSON string, UTF-8 bytes or a parsed object.
 * @param options - fine-tuned model lookup and limits.
 * @returns the anomaly result.
 * @throws ValidationError with the 422 items when the body is invalid.
 *
 * @example
 * ```ts
 * const y = Array.from({ length: 60 }, (_, t) => Math.sin(t / 2));
 * const r = detectAnomaliesOnline({ series: { y, sizes: [60] }, freq: "D", h: 7, detection_size: 7 });
 * r.sizes; // => [7]
 * ```
 * @category Entry points
 */
export function detectAnomaliesOnline<L extends number = number, M extends "univariate" | "multivariate" = "univariate" | "multivariate">(
  body: JsonBody<AnomalyRequest<L, M>>,
  options: CoreCallOptions = {},
): AnomalyResult<AnomalyIntervals<L, M>> {
  return runCore("anomaly", body, options, callPipelines(options)).result as AnomalyResult<AnomalyIntervals<L, M>>;
}

/**
 * In-sample (historic) forecast of a POST /v2/historic_forecast body: fitted
 * values for the last ⌊(n − inputSize)/horizon⌋·horizon points of each
 * series, with Gaussian intervals from the in-sample residuals.
 *
 * @param body - the request body: a JSON string, UTF-8 bytes or a parsed object.
 * @param options - fine-tuned model lookup and limits.
 * @returns the historic forecast result.
 * @throws ValidationError with the 422 items when the body is invalid or a series is too short.
 *
 * @example
 * ```ts
 * const y = Array.from({ length: 200 }, (_, t) => 10 + Math.sin(t / 3));
 * const r = historicForecast({ series: { y, sizes: [200] }, freq: "D" });
 * r.mean.length === r.sizes[0]; // => true
 * ```
 * @category Entry points
 */
export function historicForecast<L extends number = number>(body: JsonBody<HistoricRequest<L>>, options: CoreCallOptions = {}): HistoricResult<LevelIntervals<L>> {
  return runCore("historic", body, options, callPipelines(options)).result as HistoricResult<LevelIntervals<L>>;
}

/**
 * Fine-tunes a model on the series of a POST /v2/finetune body and returns
 * its weights with an id: `output_model_id` when given, otherwise one derived
 * from the request's content (the same request gives the same id). Pass the
 * weights back through `options.finetunedModels` to use the id.
 *
 * @param body - the request body: a JSON string, UTF-8 bytes or a parsed object.
 * @param options - fine-tuned model lookup (to start from an earlier model) and limits.
 * @returns tokens, `finetuned_model_id` and `weights`.
 * @throws ValidationError with the 422 items when the body is invalid.
 *
 * @example
 * ```ts
 * const y = Array.from({ length: 120 }, (_, t) => t % 7);
 * const r = finetune({ series: { y, sizes: [120] }, freq: "D", finetune_steps: 2, output_model_id: "weekly" });
 * r.finetuned_model_id; // => "weekly"
 * r.finetune_tokens; // => 2
 * ```
 * @category Entry points
 */
export function finetune(body: JsonBody<FinetuneRequest>, options: CoreCallOptions = {}): FinetuneCallResult {
  return finetuneCallResult(runCore("finetune", body, options, callPipelines(options)));
}

/**
 * The result of the core `finetune` from its validated body and the pipeline's
 * result: the tokens, the weights, and `output_model_id` or an id derived from
 * the request's content.
 *
 * @example
 * ```ts
 * const y = Array.from({ length: 120 }, (_, t) => t % 7);
 * const call = runCore("finetune", { series: { y, sizes: [120] }, freq: "D", finetune_steps: 1, output_model_id: "weekly" }, {}, DEFAULT_PIPELINES);
 * [finetuneCallResult(call).finetuned_model_id, finetuneCallResult(call).finetune_tokens]; // => ["weekly", 1]
 * ```
 * @category API rules
 */
export function finetuneCallResult({ validated, result }: { readonly validated: ValidatedBodies["finetune"]; readonly result: FinetuneResult }): FinetuneCallResult {
  const id = validated.output_model_id ?? generatedModelId(validated);
  return {
    input_tokens: result.input_tokens,
    output_tokens: result.output_tokens,
    finetune_tokens: result.finetune_tokens,
    finetuned_model_id: id,
    weights: result.weights,
    warnings: result.warnings,
  };
}

/**
 * A model id derived from a fine-tune request's content, in UUID layout.
 * @category API rules
 */
export function generatedModelId(b: ValidatedBodies["finetune"]): string {
  const labels = [b.model, b.freq, String(b.finetune_steps), b.finetune_loss, String(b.finetune_depth), String(b.finetuned_model_id), b.series.sizes.join(",")];
  return uuidLayout(hashValues(labels, [b.series.y, ...(b.series.X ?? [])]));
}
