/**
 * The paid work of the routes, validated now and run now or later: the
 * endpoints (forecast, anomaly, historic), fine-tuning with storing the
 * model, and cross-validation over windows of one validated body.
 * @module
 */
import type { FinetunedWeights, SeriesData } from "../types.js";
import { isMissingValuesWarning, missingCount, missingValuesWarning } from "../series/missing.js";
import { expandCategorical } from "./categorical.js";
import { crossValidationFields, crossValidationShape, crossValidationSizeErrors, crossValidationWindowSeries, crossValidationWindowShapeBody, futureFeatureFlags, mergeCrossValidation, type CrossValidationShape } from "./cross-validation.js";
import { endpointRequest, type runEndpoint } from "./entry-points.js";
import { ValidationError, valueError, type ErrorItem } from "./errors.js";
import { tailRowIndices } from "../historic/anomaly.js";
import { JOB_ID_ATTEMPTS } from "./jobs.js";
import { crossValidationProgress } from "./job-progress.js";
import type { ProgressCallback } from "../progress.js";
import { checkRequestLimits, validateEndpointBody, type ServiceLimits, type ValidatedBodies } from "./requests.js";
import { splitWarnings, type TokenCounts } from "./results.js";
import { isJsonObject, ownProperty } from "./schema-validator.js";
import { freshUuid, nowText, resolveFinetuned, runOn, type ServiceContext } from "./service-context.js";
import type { FinetunedModelRecord } from "./store.js";

/** What a prepared request answers: the body without warnings, the warnings, the tokens used. */
export interface WorkOutcome {
  /** The answer's body, warnings taken out. */
  readonly value: Record<string, unknown>;
  /** The warnings (the `warning` header). */
  readonly warnings: string[];
  /** Tokens to charge. */
  readonly used: number;
}

/** A request validated now and run later: its token estimate and its run. */
export interface PreparedWork {
  /** Tokens reserved before the work runs (for an account without a payment method). */
  readonly estimate: number;
  /** Runs the work; `onProgress` gets its progress (an async job's). */
  readonly run: (onProgress?: ProgressCallback) => Promise<WorkOutcome>;
}

/** Tokens a result charges: input + output + fine-tune. */
export function tokensUsed(result: TokenCounts): number {
  return result.input_tokens + result.output_tokens + result.finetune_tokens;
}

/** The options of `validateEndpointBody` for this service. */
function bodyOptions(
  ctx: ServiceContext,
  missingValues: boolean,
  limits: ServiceLimits = ctx.limits,
  shortSeriesWindow = false,
): { core: boolean; limits: ServiceLimits; missingValues: boolean; shortSeriesWindow: boolean } {
  return { core: ctx.coreFreqs, limits, missingValues, shortSeriesWindow };
}

/**
 * Validates the body of an endpoint (422 on the spot) and resolves its
 * fine-tuned model; the returned work runs the endpoint, now (sync routes)
 * or later (async jobs). `extend` adds fields to the answer from the
 * validated body; `sdkInSample` marks the SDK's in-sample routes, where a
 * short series has one window (`HistoricInput.shortSeriesWindow`).
 */
export async function endpointWork<E extends "forecast" | "anomaly" | "historic">(
  ctx: ServiceContext,
  endpoint: E,
  accountId: string,
  raw: unknown,
  extend?: (value: Record<string, unknown>, b: ValidatedBodies[E]) => Record<string, unknown>,
  missingValues = false,
  sdkInSample = false,
): Promise<PreparedWork> {
  return validatedWork(ctx, endpoint, accountId, validateEndpointBody(endpoint, raw, bodyOptions(ctx, missingValues, ctx.limits, sdkInSample)), extend);
}

/**
 * The work of a validated body of an endpoint (`endpointWork` after
 * validation, or a body composed from checked values, as the older form's):
 * its fine-tuned model resolved and its typed request built now (422 on the
 * spot), run now or later.
 */
export async function validatedWork<E extends "forecast" | "anomaly" | "historic">(
  ctx: ServiceContext,
  endpoint: E,
  accountId: string,
  b: ValidatedBodies[E],
  extend?: (value: Record<string, unknown>, b: ValidatedBodies[E]) => Record<string, unknown>,
): Promise<PreparedWork> {
  const finetuned = await resolveFinetuned(ctx, accountId, b.finetuned_model_id);
  // the typed request now: its rules (a series too short) are 422 items on the spot, also for async jobs
  const request = endpointRequest(endpoint, b, finetuned);
  return {
    estimate: b.series.y.length,
    run: async (onProgress) => {
      const r = (await runOn(ctx, endpoint, request, onProgress)) as TokenCounts & { warnings: string[] };
      const { body, warnings } = splitWarnings(r);
      const value = body as Record<string, unknown>;
      return { value: extend === undefined ? value : extend(value, b), warnings, used: tokensUsed(r) };
    },
  };
}

/** A validated fine-tune body and the weights it starts from. */
export interface FinetuneWork {
  /** The validated body. */
  readonly body: ValidatedBodies["finetune"];
  /** The fine-tuned model it starts from, if any. */
  readonly finetuned: FinetunedWeights | null;
}

function modelLimitItem(ctx: ServiceContext): ErrorItem {
  return valueError(["body"], `this account already has ${ctx.maxModels} fine-tuned models, the most allowed; delete one (DELETE /v2/finetuned_models/{id}) first`);
}

function modelExistsItem(id: string): ErrorItem {
  return valueError(["body", "output_model_id"], `a fine-tuned model '${id}' already exists in this account`, id);
}

/**
 * Validates a fine-tune body, resolves the model it starts from, and with
 * `newModel` checks that the account may store one more model under the
 * body's id (422 when the id is taken or the account is full).
 */
export async function validateFinetune(ctx: ServiceContext, accountId: string, raw: unknown, missingValues: boolean, newModel: boolean): Promise<FinetuneWork> {
  const body = validateEndpointBody("finetune", raw, bodyOptions(ctx, missingValues));
  const finetuned = await resolveFinetuned(ctx, accountId, body.finetuned_model_id);
  if (newModel) {
    const models = await ctx.store.listModels(accountId);
    if (body.output_model_id !== null && models.some((m) => m.record.id === body.output_model_id)) throw new ValidationError([modelExistsItem(body.output_model_id)]);
    if (models.length >= ctx.maxModels) throw new ValidationError([modelLimitItem(ctx)]);
  }
  return { body, finetuned };
}

/** Fine-tunes and stores the model; returns the response body and the tokens used. */
export async function runFinetune(ctx: ServiceContext, accountId: string, work: FinetuneWork, onProgress?: ProgressCallback): Promise<{ value: Record<string, unknown>; used: number }> {
  const b = work.body;
  const result = await runOn(ctx, "finetune", endpointRequest("finetune", b, work.finetuned), onProgress);
  const created = nowText(ctx);
  // A generated id that collides with a model of the account (a repeating `ids`) is drawn again.
  let id = "";
  for (let attempt = 0; ; attempt++) {
    id = b.output_model_id ?? freshUuid(ctx);
    const record: FinetunedModelRecord = {
      id,
      created_at: created,
      base_model_id: b.finetuned_model_id ?? "None",
      steps: b.finetune_steps,
      depth: b.finetune_depth,
      loss: b.finetune_loss,
      model: result.weights.model,
      freq: b.freq,
      created_by: "user",
    };
    const outcome = await ctx.store.insertModel({ accountId, record, weights: result.weights }, ctx.maxModels);
    if (outcome === "ok") break;
    if (outcome === "limit") throw new ValidationError([modelLimitItem(ctx)]);
    if (b.output_model_id !== null) throw new ValidationError([modelExistsItem(id)]);
    if (attempt + 1 >= JOB_ID_ATTEMPTS) throw new Error(`no fresh model id after ${JOB_ID_ATTEMPTS} attempts: the ids function repeats itself`);
  }
  const response = { input_tokens: result.input_tokens, output_tokens: result.output_tokens, finetune_tokens: result.finetune_tokens, finetuned_model_id: id };
  return { value: response, used: tokensUsed(result) };
}

/**
 * Validates a forecast or cross-validation body (422 on the spot) and
 * returns its work, so the same body runs now (sync routes) or later
 * (async jobs).
 */
export async function prepareWork(ctx: ServiceContext, task: "fc" | "cv", accountId: string, raw: unknown): Promise<PreparedWork> {
  if (task === "fc") return endpointWork(ctx, "forecast", accountId, raw);
  if (isJsonObject(raw) && ownProperty(raw, "full_history") === true) {
    // The SDK's add_history: "the server derives the horizon and number of windows", i.e. the historic forecast.
    const { h: _h, n_windows: _n, step_size: _s, refit: _r, X_future: _xf, full_history: _f, hist_exog: _he, ...rest } = raw;
    return endpointWork(ctx, "historic", accountId, rest, (value, b) => ({ idxs: tailRowIndices(b.series.sizes, value.sizes as number[]), ...value }), false, true);
  }
  return crossValidationWork(ctx, accountId, raw);
}

/** A cross-validation body checked once: its series, window shape, the fields every window shares. */
interface CrossValidationPlan {
  readonly shape: CrossValidationShape;
  readonly base: ValidatedBodies["historic"];
  readonly fields: ReturnType<typeof crossValidationFields>;
  /** Per feature, whether the windows pass its future values (`futureFeatureFlags` of the body's hist_exog). */
  readonly future: readonly boolean[];
  readonly tuneOnce: boolean;
}

/** Validates a cross-validation body once: shape, series, each window's share of the work budget, the oldest window's fields. */
async function crossValidationPlan(ctx: ServiceContext, accountId: string, raw: unknown): Promise<CrossValidationPlan> {
  const { shape, errors: shapeErrors } = crossValidationShape(raw);
  if (shapeErrors.length > 0) throw new ValidationError(shapeErrors);
  // categorical features become 0/1 rows once, for the whole request (the labels of every window), hist_exog following them
  const categorical = expandCategorical(raw);
  if (categorical.errors.length > 0) throw new ValidationError(categorical.errors);
  const rawBody = categorical.raw as Record<string, unknown>;
  // the series and the model fields, checked once (the windows' budget is checked below)
  const { h: _h, n_windows: _n, step_size: _s, refit: _r, X_future: _xf, ...rest } = rawBody;
  const limits = ctx.limits;
  const base = validateEndpointBody("historic", { ...rest, level: null, hist_exog: undefined }, bodyOptions(ctx, true, { ...limits, maxNetworkWindows: Infinity, maxFinetuneWindows: Infinity }));
  const finetuned = await resolveFinetuned(ctx, accountId, base.finetuned_model_id);
  const windowLimits = { ...limits, maxNetworkWindows: limits.maxNetworkWindows / shape.nWindows, maxFinetuneWindows: limits.maxFinetuneWindows / shape.nWindows };
  // from sizes alone, before a window is built: too short a series, the size limits and each window's share of the work budget
  const tooShort = crossValidationSizeErrors(base.series.sizes, shape);
  if (tooShort.length > 0) throw new ValidationError(tooShort);
  for (let w = 0; w < shape.nWindows; w++) {
    const items = checkRequestLimits("forecast", crossValidationWindowShapeBody(rawBody, base.series, shape, w), windowLimits);
    if (items.length > 0) throw new ValidationError(items);
  }
  // every window shares the fields of the oldest: validated once, the windows' series are views made when the work runs
  const fields = crossValidationFields(rawBody, base, shape, finetuned);
  // refit false: fine-tuned once, on the oldest window's history, and every window forecasts with those weights
  const tuneOnce = ownProperty(rawBody, "refit") === false && fields.finetune.steps > 0;
  return { shape, base, fields, future: futureFeatureFlags(fields.histExog, base.series.X?.length ?? 0), tuneOnce };
}

/** Cross-validation: the body validated once, then each window forecast on views of its series. */
async function crossValidationWork(ctx: ServiceContext, accountId: string, raw: unknown): Promise<PreparedWork> {
  const plan = await crossValidationPlan(ctx, accountId, raw);
  const { shape, base, fields, future } = plan;
  // null or NaN in y: filled in base.series.y; each window's calibration skips them (its slice of the mask)
  const missing = base.missing ?? null;
  return {
    estimate: base.series.y.length * shape.nWindows,
    run: async (onProgress) => {
      // the job's progress: the windows finished, or the steps of every window's fine-tuning (refit)
      const progress = crossValidationProgress(onProgress, shape.nWindows, plan.tuneOnce ? 0 : fields.finetune.steps);
      let shared = fields;
      let tuned: ReturnType<typeof runEndpoint<"finetune">> | null = null;
      if (plan.tuneOnce) {
        const oldest = crossValidationWindowSeries(future, base.series, shape, 0);
        tuned = await runOn(ctx, "finetune", { ...fields, series: oldest.series }, progress?.tune);
        shared = { ...fields, finetuned: tuned.weights, finetune: { ...fields.finetune, steps: 0 } };
      }
      const pending: Promise<ReturnType<typeof runEndpoint<"forecast">>>[] = [];
      const origins: number[][] = [];
      for (let w = 0; w < shape.nWindows; w++) {
        const win = crossValidationWindowSeries(future, base.series, shape, w);
        const windowMissing = missing === null ? {} : { missing: windowMask(missing, win) };
        // on a pool the windows run in parallel; here one after the other
        const result = runOn(ctx, "forecast", { ...shared, ...windowMissing, series: win.series, Xfuture: win.Xfuture }, progress?.window(w));
        if (progress !== undefined) void result.then(progress.windowDone, () => undefined);
        if (ctx.pool === undefined) await result;
        pending.push(result);
        origins.push(win.origins);
      }
      const results = await Promise.all(pending);
      const merged = mergeCrossValidation(results, origins, shape.h);
      // (the cross-validation answer has no per-feature arrays to fold back)
      const { warnings: windowWarnings, ...body } = merged;
      // one warning for the request's missing values instead of one per window
      const warnings = missing === null ? windowWarnings : [missingValuesWarning(missingCount(missing), missing.length), ...windowWarnings.filter((x) => !isMissingValuesWarning(x))];
      if (tuned !== null) {
        body.finetune_tokens += tuned.finetune_tokens;
        warnings.unshift(...tuned.warnings.filter((x) => !warnings.includes(x)));
      }
      return { value: body, warnings, used: tokensUsed(body) };
    },
  };
}

/** Window's share of a request's missing-value mask: each series' first points (up to its origin in the request), laid out as the window's series. */
function windowMask(missing: Uint8Array, win: { readonly series: SeriesData; readonly origins: readonly number[] }): Uint8Array {
  const { sizes, offsets, y } = win.series;
  const out = new Uint8Array(y.length);
  for (let i = 0; i < sizes.length; i++) out.set(missing.subarray(win.origins[i]! - sizes[i]!, win.origins[i]!), offsets[i]!);
  return out;
}
