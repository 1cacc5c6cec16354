/**
 * The typed pipelines the API calls, behind one interface so a service can be
 * given stand-ins (tests, benchmarks) and the real ones are looked up in one
 * place.
 * @module
 */
import type {
  AnomalyInput,
  AnomalyOutput,
  FinetuneInput,
  FinetuneOutput,
  ForecastInput,
  ForecastOutput,
  HistoricInput,
  HistoricOutput,
  ModelSource,
  ModelSpec,
} from "../types.js";
import { runForecast } from "../forecast/index.js";
import { detectAnomalies } from "../anomaly/index.js";
import { runHistoricForecast } from "../historic/index.js";
import { finetuneModel, modelSource } from "../finetune/index.js";
import type { ForecastMemo } from "../model/index.js";

/**
 * The four typed pipelines behind the endpoints: typed requests in, typed
 * results out (no token counts, no JSON); `src/api/results.ts` turns their
 * results into the JSON bodies.
 * @category API rules
 */
export interface ApiPipelines {
  /** `runForecast` of src/forecast. */
  readonly forecast: (request: ForecastInput) => ForecastOutput;
  /** `detectAnomalies` of src/anomaly. */
  readonly anomaly: (request: AnomalyInput) => AnomalyOutput;
  /** `runHistoricForecast` of src/historic. */
  readonly historic: (request: HistoricInput) => HistoricOutput;
  /** `finetuneModel` of src/finetune. */
  readonly finetune: (request: FinetuneInput) => FinetuneOutput;
}

/** The library's pipelines, each taking its model from `source` (`modelSource` with or without a memo). */
function libraryPipelines(source: (spec: ModelSpec) => ModelSource): ApiPipelines {
  return {
    forecast: (r) => runForecast(r, source(r)),
    anomaly: (r) => detectAnomalies(r, source(r)),
    historic: (r) => runHistoricForecast(r, source(r)),
    finetune: (r) => finetuneModel(r),
  };
}

/**
 * The library's own pipelines.
 * @category API rules
 */
export const DEFAULT_PIPELINES: ApiPipelines = libraryPipelines((r) => modelSource(r));

/**
 * The library's pipelines with forecasts kept in `memo` between calls
 * (`createForecastMemo`): for a host whose callers send overlapping
 * histories, such as a monitor that sends the recent history with every few
 * new points to online anomaly detection. Answers are byte-identical to
 * the default pipelines'; only zero-shot forecasts of the pretrained
 * weights are kept (see `withMemo`).
 *
 * @example
 * ```ts
 * const memo = createForecastMemo();
 * const service = createService({ accounts: [{ id: "a", apiKeys: ["k-1234567890"], credits: 1e9 }], pipelines: memoPipelines(memo) });
 * typeof service.handle; // => "function"
 * ```
 * @category API rules
 */
export function memoPipelines(memo: ForecastMemo): ApiPipelines {
  return libraryPipelines((r) => modelSource(r, { memo }));
}

/** The pipelines a one-thread call runs: the library's, with the call's memo when it gives one. */
export function callPipelines(options: { readonly memo?: ForecastMemo }): ApiPipelines {
  return options.memo === undefined ? DEFAULT_PIPELINES : memoPipelines(options.memo);
}
