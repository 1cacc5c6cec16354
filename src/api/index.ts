/**
 * The API layer: JSON request bodies validated in the style of a
 * FastAPI/pydantic v2 server into the typed requests of the core, the public
 * entry points (`forecast`, `detectAnomaliesOnline`, `historicForecast`,
 * `finetune`), and `createService`, whose `handle` answers every route of the
 * contract with keys, credits, tokens, fine-tuned models, fine-tune jobs, the
 * older request form and GET /openapi.json.
 * @module
 */
export { forecast, detectAnomaliesOnline, historicForecast, finetune, fractionLevelWarning } from "./entry-points.js";
export type { CoreCallOptions, FinetuneCallResult } from "./entry-points.js";
export type { AnomalyRequest, FinetuneRequest, ForecastRequest, HistoricRequest, JsonBody, SeriesBody } from "./bodies.js";
export { createService } from "./service.js";
export { SDK_MODEL_ALIASES, modelAliasTable, canonicalModelName, withCanonicalModel, modelItemsWithAliases } from "./model-aliases.js";
export type { ModelAliases } from "./model-aliases.js";
export { SUPPORT_TEXT } from "./responses.js";
export { seededIdSequence } from "./ids.js";
export { freqFromAlias, readFreq, acceptedFreqAliases, acceptedFreqText } from "./freq.js";
export { decodeContent, BodyDecodeError, CONTENT_ENCODINGS } from "./encoding.js";
export type { ServiceAccount, ServiceOptions, ServiceRequest, ServiceResponse, RunJobsSummary, ForecastService, SubmittedJob, JobRunOutcome } from "./service.js";
export { checkSeriesInput, validateSeriesInput } from "./series-input.js";
export type { SeriesInputOptions, SeriesInputCheck } from "./series-input.js";
export { createMemoryStore } from "./store.js";
export type { CallCounts, ServiceStore, StoredJob, StoredFinetunedModel, FinetunedModelRecord, ApiJobStatus, ModelInsertOutcome, JobInsertOutcome, JobReservation, PendingJobQuota, TokenReservation } from "./store.js";
export { DEFAULT_JOB_LIMITS } from "./jobs.js";
export { JOB_PROGRESS_INTERVAL_MS, throttleProgress } from "./job-progress.js";
export { DEFAULT_SERVICE_LIMITS, UNLIMITED, finetuneTrainingCost, mostFinetuneSteps, FINETUNE_STEP_OVERHEAD_WINDOWS } from "./requests.js";
export type { ServiceLimits } from "./requests.js";
export type { ApiPipelines } from "./pipelines.js";
export { memoPipelines } from "./pipelines.js";
export type { JobTask, JobLimits } from "./jobs.js";
export { forecastResultJson, anomalyResultJson, finetuneResultJson, countTokens } from "./results.js";
export type { TokenCounts, TokenSource, ForecastResult, AnomalyResult, HistoricResult, FinetuneResult } from "./results.js";
export { API_VERSION } from "./openapi.js";
export { openApiDocument } from "./routes.js";
export { detectAnomaliesRecords, finetuneRecords, forecastRecords, historicForecastRecords } from "./records.js";
export type {
  AnomalyRecord,
  AnomalyRecordFields,
  ForecastRecord,
  ForecastRecordOptions,
  FutureRecordRow,
  HistoricRecord,
  LevelBounds,
  RecordFreq,
  RecordOptions,
  RecordRow,
  RecordRowFields,
  RecordsResult,
  ResultDs,
  ResultRecord,
  ResultRecordKey,
} from "./records.js";
