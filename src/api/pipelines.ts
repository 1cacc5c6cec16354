/**
 * The typed pipelines the API calls, behind one interface so a service can be
 * given stand-ins (tests, benchmarks) and the real ones are looked up in one
 * place.
 * @module
 */
import type {
  AnomalyInput,
  AnomalyResult,
  FinetuneInput,
  FinetuneResult,
  ForecastInput,
  ForecastResult,
  HistoricInput,
  HistoricResult,
} from "../types.js";
import { runForecast } from "../forecast/index.js";
import { detectAnomalies } from "../anomaly/index.js";
import { runHistoricForecast } from "../historic/index.js";
import { finetuneModel, modelSource } from "../finetune/index.js";

/**
 * The four typed pipelines behind the endpoints.
 * @category API rules
 */
export interface ApiPipelines {
  /** `runForecast` of src/forecast. */
  readonly forecast: (request: ForecastInput) => ForecastResult;
  /** `detectAnomalies` of src/anomaly. */
  readonly anomaly: (request: AnomalyInput) => AnomalyResult;
  /** `runHistoricForecast` of src/historic. */
  readonly historic: (request: HistoricInput) => HistoricResult;
  /** `finetuneModel` of src/finetune. */
  readonly finetune: (request: FinetuneInput) => FinetuneResult;
}

/**
 * The library's own pipelines.
 * @category API rules
 */
export const DEFAULT_PIPELINES: ApiPipelines = {
  forecast: (r) => runForecast(r, modelSource(r)),
  anomaly: (r) => detectAnomalies(r, modelSource(r)),
  historic: (r) => runHistoricForecast(r, modelSource(r)),
  finetune: (r) => finetuneModel(r),
};
