/**
 * The typed pipelines the API calls, behind one interface so a service can be
 * given stand-ins (tests, benchmarks) and the real ones are looked up in one
 * place.
 * @module
 */
import type {
  AnomalyRequest,
  AnomalyResult,
  FinetuneRequest,
  FinetuneResult,
  ForecastRequest,
  ForecastResult,
  HistoricRequest,
  HistoricResult,
} from "../types.js";
import * as forecastModule from "../forecast/index.js";
import * as anomalyModule from "../anomaly/index.js";
import * as historicModule from "../historic/index.js";
import * as finetuneModule from "../finetune/index.js";

/** The four typed pipelines behind the endpoints. */
export interface ApiPipelines {
  /** `runForecast` of src/forecast. */
  readonly forecast: (request: ForecastRequest) => ForecastResult;
  /** `detectAnomalies` of src/anomaly. */
  readonly anomaly: (request: AnomalyRequest) => AnomalyResult;
  /** `runHistoricForecast` of src/historic. */
  readonly historic: (request: HistoricRequest) => HistoricResult;
  /** `finetuneModel` of src/finetune. */
  readonly finetune: (request: FinetuneRequest) => FinetuneResult;
}

function lookup<F>(module: object, name: string, where: string): F {
  const f = (module as Record<string, unknown>)[name];
  if (typeof f !== "function") {
    return ((): never => {
      throw new Error(`${where}: ${name} is not available`);
    }) as F;
  }
  return f as F;
}

/** The library's own pipelines. */
export const DEFAULT_PIPELINES: ApiPipelines = {
  forecast: (r) => lookup<ApiPipelines["forecast"]>(forecastModule, "runForecast", "src/forecast")(r),
  anomaly: (r) => lookup<ApiPipelines["anomaly"]>(anomalyModule, "detectAnomalies", "src/anomaly")(r),
  historic: (r) => lookup<ApiPipelines["historic"]>(historicModule, "runHistoricForecast", "src/historic")(r),
  finetune: (r) => lookup<ApiPipelines["finetune"]>(finetuneModule, "finetuneModel", "src/finetune")(r),
};
