/**
 * How the pool splits a request body by series: {@link partition} when the
 * parts' merge is exactly the single call's answer, `null` (send it whole)
 * otherwise. Runs on the main thread for object bodies and on a worker for
 * JSON text and bytes.
 * @module
 */
import { cutBounds, cutCount, partition, partitionBlocker, partOf, partPlan, partRows, type PartCut, type RequestPart } from "../api/partition.js";
import type { AnomalyInput, ForecastInput, HistoricInput } from "../types.js";
import { checkRequestLimits, sdkBodyForms, sdkHistoricalFeatures, type ServiceLimits } from "../api/requests.js";
import { finiteSlice, isArrayLike, isJsonObject, ownProperty } from "../api/schema-validator.js";
import { checkSeriesInput } from "../api/series-input.js";
import { CORE_FREQS } from "../api/schemas.js";

/**
 * The endpoints whose bodies the pool splits by series.
 * @category Scaling
 */
export type SplitEndpoint = "forecast" | "anomaly" | "historic";

/**
 * Splits a parsed request body into at most `parts` bodies whose results
 * {@link merge} joins into exactly the single call's result, or returns
 * `null` when the body must be computed whole:
 * - fewer than 2 parts wanted, or the body is not an object with a series object;
 * - exogenous features (`series.X`, `X_future`): the merged `weights_x` is
 *   only the series-weighted mean of the parts' means, not the single call's number;
 * - missing values in a forecast's `y`: their warning counts the request's values;
 * - the whole body breaks a limit (`checkRequestLimits` after the SDK forms,
 *   as the single call reads it), which no smaller part would;
 * - {@link partition} refuses it (invalid series, or series coupled by fine-tuning or multivariate rules).
 *
 * Cost: the limit check reads lengths; `partition`'s series check reads
 * every value once (and refuses missing values).
 *
 * @param endpoint - the body's endpoint.
 * @param raw - the parsed body.
 * @param parts - the wanted number of parts, or a guided cut (partition's `k`).
 * @param limits - the limits of the call (resolved).
 * @returns the parts, or `null`.
 *
 * @example
 * ```ts
 * const body = { series: { y: [1, 2, 3, 4, 5, 6], sizes: [3, 3] }, freq: "D", h: 1 };
 * splitRequest("forecast", body, 2, DEFAULT_SERVICE_LIMITS)?.length; // => 2
 * splitRequest("forecast", { ...body, series: { ...body.series, X: [[0, 0, 0, 0, 0, 0]] } }, 2, DEFAULT_SERVICE_LIMITS); // => null
 * ```
 * @category Scaling
 */
export function splitRequest(endpoint: SplitEndpoint, raw: unknown, parts: PartCut, limits: ServiceLimits): RequestPart[] | null {
  return splitWith(endpoint, raw, parts, limits, false);
}

/** {@link splitRequest}; with `typedY`, every part's `y` a `Float64Array` of its own or a view of `into` (partition's `typedY` and `into`). */
function splitWith(endpoint: SplitEndpoint, raw: unknown, parts: PartCut, limits: ServiceLimits, typedY: boolean, into?: Float64Array): RequestPart[] | null {
  if (!splittable(endpoint, raw, parts, limits)) return null;
  try {
    const split = partition(raw, parts, { kind: endpoint, typedY, ...(into !== undefined ? { into } : {}) });
    return split.length > 1 ? split : null;
  } catch {
    return null;
  }
}

/** The checks of {@link splitRequest} before partition's own: false when the body must run whole. */
function splittable(endpoint: SplitEndpoint, raw: unknown, parts: PartCut, limits: ServiceLimits): raw is Record<string, unknown> {
  if (cutCount(parts) < 2 || !isJsonObject(raw)) return false;
  const series = ownProperty(raw, "series");
  if (!isJsonObject(series)) return false;
  const X = ownProperty(series, "X");
  if (X !== undefined && X !== null && !(isArrayLike(X) && X.length === 0)) return false;
  const future = ownProperty(raw, "X_future");
  const innerFuture = ownProperty(series, "X_future");
  if ((future !== undefined && future !== null) || (innerFuture !== undefined && innerFuture !== null)) return false;
  // Missing values (null or NaN in y) need no scan of their own: partition's validation refuses them (below), and the
  // body runs whole. (Without X and X_future, the SDK's historical-feature form changes nothing.)
  const forms = sdkBodyForms(endpoint === "forecast" ? sdkHistoricalFeatures(raw) : raw, CORE_FREQS);
  return forms.errors.length === 0 && checkRequestLimits(endpoint, forms.raw, limits).length === 0;
}

/**
 * {@link splitRequest}, with each part's body ready to move to a worker:
 * its `series.y` a `Float64Array` of its own (a copy of the validated
 * values, never a view of the caller's array: partition's `typedY`), whose
 * buffer is the part's `transfer`. Each value is read once, by the
 * validation, and each part's values are one block copy.
 *
 * Cost: {@link splitRequest}'s.
 *
 * @param endpoint - the body's endpoint.
 * @param raw - the parsed body (not changed).
 * @param parts - the wanted number of parts, or a guided cut (partition's `k`).
 * @param limits - the limits of the call (resolved).
 * @param into - a shared buffer for all parts' values: when they fit (8 bytes
 *   each), each part's `y` is a view of it at the part's rows and its transfer
 *   list is empty (the buffer is shared, not moved); else as without it.
 * @returns the parts with their transfer lists, or `null` (send the body whole).
 *
 * @example
 * ```ts
 * const body = { series: { y: [1, 2, 3, 4, 5, 6], sizes: [3, 3] }, freq: "D", h: 1 };
 * const parts = movableParts("forecast", body, 2, DEFAULT_SERVICE_LIMITS)!;
 * [parts[1]!.body.series, parts[1]!.transfer.length];
 * // => [{ y: Float64Array.of(4, 5, 6), sizes: [3] }, 1]
 * ```
 * @category Scaling
 */
export function movableParts(endpoint: SplitEndpoint, raw: unknown, parts: PartCut, limits: ServiceLimits, into?: SharedArrayBuffer): (RequestPart & { readonly transfer: ArrayBuffer[] })[] | null {
  const split = splitWith(endpoint, raw, parts, limits, true, into === undefined ? undefined : new Float64Array(into, 0, Math.floor(into.byteLength / 8)));
  if (split === null) return null;
  return split.map((part) => {
    const { buffer } = ((part.body as Record<string, unknown>).series as Record<string, unknown>).y as Float64Array;
    // a part of its own moves; a view of the shared buffer is shared
    return { ...part, transfer: buffer instanceof ArrayBuffer ? [buffer] : [] };
  });
}

/**
 * {@link movableParts} one part at a time: the body's structure (the series
 * object with its `y` read as a list of that length, `sizes`, the limits,
 * the rules that couple series) is checked at once, and each part's values
 * only when {@link LazySplit.part} cuts it, so the first part can be on a
 * worker before the last value is read, and each value is read once (into
 * its part's `Float64Array`). `null` when the body must run whole.
 *
 * A body this accepts and whose every part has only finite numbers is one
 * that {@link splitRequest} splits into the same parts; a part holding
 * anything else (null, NaN, a string…) is `null`, and the body must then
 * run whole (its answer is the one-thread call's: the API's 422, or its
 * rule for missing values).
 *
 * With `into` (at least `y`'s length, typically over a `SharedArrayBuffer`),
 * each part's values are written at their place in it and the part's `y` is
 * a view of it, with nothing to transfer: no new buffer per part.
 *
 * Cost: a read of the structure (the series check without `y`'s items);
 * each part, one pass over its values.
 *
 * @param endpoint - the body's endpoint.
 * @param raw - the parsed body (not changed).
 * @param parts - the wanted number of parts, or a guided cut (partition's `k`).
 * @param limits - the limits of the call (resolved).
 * @param into - where the parts' values go (a view each), instead of a buffer of their own each.
 * @returns the split, or `null` (send the body whole).
 *
 * @example
 * ```ts
 * const split = lazyMovableParts("forecast", { series: { y: [1, 2, 3, 4, 5, null], sizes: [3, 3] }, freq: "D", h: 1 }, 2, DEFAULT_SERVICE_LIMITS)!;
 * [split.count, split.part(0)?.body.series, split.part(1)];
 * // => [2, { y: Float64Array.of(1, 2, 3), sizes: [3] }, null]
 * ```
 * @category Scaling
 */
export function lazyMovableParts(endpoint: SplitEndpoint, raw: unknown, parts: PartCut, limits: ServiceLimits, into?: Float64Array): LazySplit | null {
  if (!splittable(endpoint, raw, parts, limits) || partitionBlocker(raw) !== null) return null;
  const series = raw.series as Record<string, unknown>;
  const y = series.y;
  if (!isArrayLike(y)) return null;
  // the series object checked as the API reads it, all but y's items: its values are checked part by part
  // (X_future is absent here: partition's check of a body is then the series reader's alone)
  if (checkSeriesInput(series, { structureOnly: true }).errors.length > 0) return null;
  const plan = partPlan(series.sizes as number[], parts);
  if (plan.count < 2) return null;
  return {
    count: plan.count,
    part: (p) => {
      const rowStart = plan.rows[p] as number;
      const rowCount = (plan.rows[p + 1] as number) - rowStart;
      const values = finiteSlice(y, rowStart, rowCount, into?.subarray(rowStart, rowStart + rowCount));
      if (values === null) return null;
      return { ...partOf(raw, endpoint, plan, p, values), transfer: into === undefined ? [values.buffer as ArrayBuffer] : [] };
    },
  };
}

/**
 * A split of {@link lazyMovableParts}: `count` parts, cut one at a time.
 * @category Scaling
 */
export interface LazySplit {
  /** How many parts. */
  readonly count: number;
  /** Part p (0 ≤ p < count) with its `y` a `Float64Array` of its own to move (or a view of `into`, nothing to move); `null` when one of its values is not a finite number (the body runs whole). */
  part(p: number): (RequestPart & { readonly transfer: ArrayBuffer[] }) | null;
}

/**
 * A typed request of the service's pipelines (`runEndpoint`'s forecast,
 * anomaly or historic request), the form {@link typedSplitBounds} cuts.
 * @category Scaling
 */
export type SplitTypedRequest = ForecastInput | AnomalyInput | HistoricInput;

/**
 * Where a typed request (as `createService` hands its paid work to
 * `runEndpoint`) is cut into requests of consecutive series (`parts` of
 * about equal values, or a guided cut): the series boundaries of
 * {@link cutBounds}, whose parts' results {@link merge} joins into exactly
 * the whole request's result; or `null` when it must run whole, by the rules
 * of {@link splitRequest}: fewer than 2 parts or series; exogenous features
 * (`series.X`, `Xfuture`, `histExog`, categorical groups); missing values
 * (`missing` marks one); fine-tuning or a fine-tuned model; the multivariate
 * model or threshold. The parts themselves are made one at a time by
 * {@link typedPart} (a pool posts each before copying the next).
 *
 * Cost: one pass over the sizes.
 *
 * @param request - the typed request (its progress callback left out: it cannot cross threads).
 * @param parts - the wanted number of parts, or a guided cut (partition's `k`).
 * @returns the boundaries (parts + 1 series indices), or `null`.
 *
 * @example
 * ```ts
 * const request = { series: { y: new Float64Array(9), sizes: Int32Array.of(3, 3, 3), offsets: Int32Array.of(0, 3, 6, 9), X: [] },
 *   h: 1, levels: [], model: "forecastmodel-1", freq: "D", finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null,
 *   multivariate: false, modelParameters: null, Xfuture: [], cleanExFirst: true, histExog: [] } as const;
 * typedSplitBounds(request, 2); // => [0, 2, 3]
 * typedSplitBounds({ ...request, multivariate: true }, 2); // => null
 * ```
 * @category Scaling
 */
export function typedSplitBounds(request: SplitTypedRequest, parts: PartCut): number[] | null {
  const { series } = request;
  const count = Math.min(cutCount(parts), series.sizes.length);
  if (count < 2 || series.X.length > 0 || request.finetune.steps > 0 || request.finetuned !== null || request.multivariate) return null;
  if ("featureGroups" in request || (request.missing !== undefined && request.missing.includes(1))) return null;
  if (("histExog" in request && request.histExog.length > 0) || ("Xfuture" in request && request.Xfuture.length > 0)) return null;
  if ("thresholdMethod" in request && request.thresholdMethod === "multivariate") return null;
  const bounds = cutBounds(series.sizes, parts);
  return bounds.length > 2 ? bounds : null;
}

/**
 * Part p of a typed request cut at `bounds` ({@link typedSplitBounds}): its series copied out (`y` into a new array,
 * or, with `into` (at least `y`'s length), into its rows of `into` and viewed there; `offsets` from 0, no `missing`),
 * the rest of the request shared.
 *
 * Cost: one copy of the part's values.
 *
 * @example
 * ```ts
 * const request = { series: { y: Float64Array.of(1, 2, 3, 4, 5, 6), sizes: Int32Array.of(2, 4), offsets: Int32Array.of(0, 2, 6), X: [] },
 *   h: 1, levels: [], model: "forecastmodel-1", freq: "D", finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null,
 *   multivariate: false, modelParameters: null, Xfuture: [], cleanExFirst: true, histExog: [] } as const;
 * const part = typedPart("forecast", request, [0, 1, 2], 1);
 * [Array.from(part.body.series.y), Array.from(part.body.series.offsets), part.rowStart];
 * // => [[3, 4, 5, 6], [0, 4], 2]
 * ```
 * @category Scaling
 */
export function typedPart<R extends SplitTypedRequest>(endpoint: SplitEndpoint, request: R, bounds: readonly number[], p: number, into?: Float64Array): RequestPart<R> {
  const { series } = request;
  const s0 = bounds[p] as number;
  const s1 = bounds[p + 1] as number;
  const rowStart = series.offsets[s0] as number;
  const rowCount = (series.offsets[s1] as number) - rowStart;
  const offsets = new Int32Array(s1 - s0 + 1);
  for (let i = s0; i <= s1; i++) offsets[i - s0] = (series.offsets[i] as number) - rowStart;
  const part = { ...request, series: { y: partRows(series.y, rowStart, rowCount, into), sizes: series.sizes.slice(s0, s1), offsets, X: [] } } as R & { missing?: Uint8Array };
  delete part.missing;
  return { kind: endpoint, index: p, count: bounds.length - 1, seriesStart: s0, seriesCount: s1 - s0, rowStart, rowCount, body: part };
}
