/**
 * The seam between the pipelines and the model: `modelSource` resolves a
 * request's model settings in one place; `fixedModelSource` hands any
 * forecaster through the same seam.
 * @module
 */
import type { Forecaster, ModelSource, ModelSpec } from "../types.js";
import { prepareForecaster } from "./finetune.js";
import type { ForecastMemo } from "../model/index.js";

/**
 * The model a request asks for, as a {@link ModelSource}: the pretrained
 * network of `spec.model`, with the stored fine-tuned weights `spec.finetuned`
 * applied, fine-tuned further for `spec.finetune.steps` steps (depth, loss) on
 * the points the pipeline offers (`prepareForecaster`). Every call prepares
 * afresh, so a pipeline that refits per window calls it once per window.
 *
 * @param spec - The request's model settings.
 * @param options - `memo`: forecasts kept between calls (`createForecastMemo`), used by the zero-shot pretrained forecaster.
 * @returns The source.
 *
 * @example
 * ```ts
 * const spec = { model: "forecastmodel-1", freq: "D", finetune: { steps: 0, loss: "default", depth: 1 },
 *   finetuned: null, multivariate: false, modelParameters: null } as const;
 * const series = { y: new Float64Array([1, 2, 3]), sizes: Int32Array.of(3), offsets: Int32Array.of(0, 3), X: [] };
 * const prepared = modelSource(spec)(series);
 * [prepared.forecaster.name, prepared.finetuneWork];
 * // => ["forecastmodel-1", 0]
 * ```
 * @category Models
 */
export function modelSource(spec: ModelSpec, options: { readonly memo?: ForecastMemo } = {}): ModelSource {
  const memo = options.memo === undefined ? {} : { memo: options.memo };
  return (train, trainLengths) => prepareForecaster(spec, train, trainLengths === undefined ? memo : { ...memo, trainLengths });
}

/**
 * A {@link ModelSource} that always gives `forecaster`, untuned and free
 * (a baseline such as seasonal naive, or a stand-in in tests); the request's
 * fine-tune settings are then ignored.
 *
 * @param forecaster - The forecaster to hand to the pipeline.
 * @returns The source.
 *
 * @example
 * ```ts
 * const series = { y: new Float64Array([1, 2, 3]), sizes: Int32Array.of(3), offsets: Int32Array.of(0, 3), X: [] };
 * fixedModelSource(seasonalNaiveForecaster(1))(series).forecaster.name;
 * // => "seasonal-naive"
 * ```
 * @category Models
 */
export function fixedModelSource(forecaster: Forecaster): ModelSource {
  return () => ({ forecaster, finetuneWork: 0, warnings: [] });
}
