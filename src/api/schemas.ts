/**
 * The request and response shapes of every route, written once as data
 * (docs/contract.md §3, §5 and §6). Validation and GET /openapi.json both read
 * these.
 * @module
 */
import type { Freq, ModelFreq } from "../types.js";
import { acceptedFreqText, freqPattern, freqRefusalAmong, readFreq } from "./freq.js";
import type { ApiAliasSchema, ApiObjectSchema, ApiProperty, ApiSchema } from "./schema-validator.js";
import { MODEL_NAMES as CONFIG_MODEL_NAMES } from "../model/config.js";
import { finetuneLossNames } from "../losses/index.js";
import { FREQUENCIES, MODEL_FREQS } from "../series/frequencies.js";

/**
 * Ids of fine-tuned models (docs/contract.md §3).
 * @category API rules
 */
export const MODEL_ID_PATTERN = "^[a-zA-Z0-9\\-_]{1,36}$";

/**
 * Pattern of fine-tune job ids: `ft-` and 32 lowercase hex digits.
 * @category API rules
 */
export const FINETUNE_JOB_ID_PATTERN = "^ft-[0-9a-f]{32}$";

/** Ids of async jobs: `ft-` (fine-tune), `fc-` (forecast) or `cv-` (cross-validation) and 32 hex digits. */
export const ASYNC_JOB_ID_PATTERN = "^(ft|fc|cv)-[0-9a-f]{32}$";

/**
 * Frequency classes accepted at the HTTP API, read from the frequencies table
 * (`httpApi`): every alias `parseFreq` reads whose class is one of these
 * (hourly and every other sub-daily step, daily, weekly, monthly).
 * @category API rules
 */
export const API_FREQS: readonly ModelFreq[] = Object.freeze(MODEL_FREQS.filter((f) => FREQUENCIES[f].httpApi));
/**
 * Frequency classes the core functions accept: every class of the frequencies table (the API's, quarterly and yearly).
 * @category API rules
 */
export const CORE_FREQS: readonly ModelFreq[] = MODEL_FREQS;

/**
 * The schema of a `freq` field accepting the aliases of the classes `freqs`:
 * it validates into the canonical name (`"15T"` → `"15min"`, `"MS"` → `"M"`);
 * anything else is a `literal_error` that says why and lists what is accepted.
 * @category API rules
 */
export function freqSchema(freqs: readonly ModelFreq[]): ApiAliasSchema<Freq> {
  return {
    kind: "alias",
    what: "frequency",
    read: (text) => readFreq(text, freqs),
    refusal: (value) => freqRefusalAmong(value, freqs),
    expected: acceptedFreqText(freqs),
    pattern: freqPattern(freqs),
  };
}

const API_FREQ_SCHEMA = freqSchema(API_FREQS);
const CORE_FREQ_SCHEMA = freqSchema(CORE_FREQS);
/**
 * Pretrained model names: the model registry's list (`src/model/config.ts`), written once.
 * @category API rules
 */
export const MODEL_NAMES = CONFIG_MODEL_NAMES;
/**
 * Fine-tune losses: the losses table's names (`LOSSES` in src/losses/losses.ts), written once.
 * @category API rules
 */
export const LOSS_NAMES = finetuneLossNames;

const finite = { kind: "number" } as const satisfies ApiSchema;
const floatArray = { kind: "array", items: finite, packed: "float64" } as const satisfies ApiSchema;
const featureMatrix = { kind: "array", items: floatArray } as const satisfies ApiSchema;

/**
 * A feature-major matrix of finite numbers (`X`, `X_future`): a list of lists.
 * @category API rules
 */
export const FEATURE_MATRIX_SCHEMA: ApiSchema = featureMatrix;
const positiveInt = { kind: "integer", gt: 0 } as const satisfies ApiSchema;
const levelNumber = { kind: "number", ge: 0, lt: 100 } as const satisfies ApiSchema;
const modelId = { kind: "string", pattern: MODEL_ID_PATTERN } as const satisfies ApiSchema;

/** A required property; its name and schema keep their literal types, so the validated types can be derived (`Infer`). */
function prop<const N extends string, const S extends ApiSchema>(name: N, schema: S, description: string): { readonly name: N; readonly schema: S; readonly required: true; readonly description: string } {
  return { name, schema, required: true, description };
}
/** An optional property with its default. */
function opt<const N extends string, const S extends ApiSchema, const D>(
  name: N,
  schema: S,
  defaultValue: D,
  description: string,
): { readonly name: N; readonly schema: S; readonly required: false; readonly default: D; readonly description: string } {
  return { name, schema, required: false, default: defaultValue, description };
}

const yProp = prop("y", floatArray, "Observations of all series, concatenated in order (finite numbers).");
const sizesProp = prop(
  "sizes",
  { kind: "array", items: { kind: "integer", ge: 1, le: 2147483647 }, minItems: 1 },
  "Length of each series; the series are concatenated in y. A single series has one entry equal to its number of observations.",
);
const xProp = opt(
  "X",
  { kind: "nullable", inner: featureMatrix },
  null,
  "Exogenous features, feature-major: X[k] is feature k for every row of y (X[k].length === y.length).",
);

/**
 * Series of the anomaly, historic and fine-tune requests: `{y, sizes, X?}`.
 * @category API rules
 */
export const SERIES_SCHEMA = {
  kind: "object",
  name: "Series",
  description: "Many series concatenated in y with their lengths in sizes, optionally with exogenous features X.",
  properties: [yProp, sizesProp, xProp],
} as const satisfies ApiObjectSchema;

const xFutureProp = opt(
  "X_future",
  { kind: "nullable", inner: featureMatrix },
  null,
  "Future values of the exogenous features (top level of the body): X_future[k] has sizes.length * h values, series after series.",
);

function freqProp(core: boolean) {
  return prop(
    "freq",
    core ? CORE_FREQ_SCHEMA : API_FREQ_SCHEMA,
    "Series frequency, a pandas offset alias: sub-daily steps <k>s, <k>min (or <k>T), <k>h (or <k>H) whose step divides a day (30s, min, 5min, 15min, H, 2h, 12h), D daily, W weekly (W-SUN, …), M monthly (MS, ME); the core functions also take Q quarterly (QS-DEC, …) and Y yearly (YS, A, …). It sets the season length and native horizon (GET /model_params).",
  );
}

const modelProp = opt("model", { kind: "literal", values: MODEL_NAMES }, "forecastmodel-1", "Model name. The long-horizon model is recommended to predict more than one seasonal period.");
const cleanExProp = opt(
  "clean_ex_first",
  { kind: "boolean" },
  true,
  "true: y is regressed on X first and the model works on what X does not explain; false: the model runs on y and X explains its residuals.",
);
function finetuneStepsProp(defaultSteps: number) {
  return opt("finetune_steps", { kind: "integer", ge: 0 }, defaultSteps, "Number of fine-tune steps; 0 means zero-shot inference.");
}
const finetuneLossProp = opt("finetune_loss", { kind: "literal", values: LOSS_NAMES }, "default", "Fine-tune loss; default is a robust loss that outliers cannot dominate.");
const finetuneDepthProp = opt("finetune_depth", { kind: "literal", values: [1, 2, 3, 4, 5] }, 1, "1 fine-tunes only the output end of the network, 5 the whole model.");
const finetunedIdProp = opt(
  "finetuned_model_id",
  { kind: "nullable", inner: modelId },
  null,
  "Id of a fine-tuned model of this account to use (its base model is used when model is not given).",
);
const histExogProp = opt(
  "hist_exog",
  { kind: "nullable", inner: { kind: "array", items: { kind: "integer", ge: 0 } } },
  null,
  "Zero-based indices of exogenous features known only up to the forecast origin.",
);
const multivariateProp = opt("multivariate", { kind: "boolean" }, false, "forecastmodel-2.1 only: forecast a batch of equal-length series jointly.");
const modelParametersProp = opt("model_parameters", { kind: "nullable", inner: { kind: "dict" } }, null, "Optional dictionary customising model behaviour.");
const levelListProp = opt(
  "level",
  { kind: "nullable", inner: { kind: "array", items: levelNumber, minItems: 1 } },
  null,
  "Prediction interval levels in percent, each 0 <= x < 100; intervals are keyed lo-<L> and hi-<L>.",
);

function anomalySchema(core: boolean) {
  return {
    kind: "object",
    name: "OnlineAnomalyDetectionRequest",
    description: "Online multi-series anomaly detection by rolling-window forecasts.",
    properties: [
      prop("series", SERIES_SCHEMA, "The series."),
      freqProp(core),
      prop("detection_size", positiveInt, "Points at the end of each series in which anomalies are detected."),
      prop("h", positiveInt, "Forecast horizon of each cross-validation window."),
      opt("threshold_method", { kind: "literal", values: ["univariate", "multivariate"] }, "univariate", "How anomalies are detected."),
      modelProp,
      cleanExProp,
      opt("level", levelNumber, 99, "Confidence level of the prediction interval in percent, 0 <= x < 100."),
      finetuneStepsProp(0),
      finetuneLossProp,
      finetuneDepthProp,
      finetunedIdProp,
      opt("step_size", { kind: "nullable", inner: positiveInt }, null, "Step between cross-validation windows; null means h."),
      histExogProp,
      opt("refit", { kind: "boolean" }, false, "Fine-tune in each window (true) or only on the first window (false)."),
      multivariateProp,
      modelParametersProp,
    ],
  } satisfies ApiObjectSchema;
}

function historicSchema(core: boolean) {
  return {
    kind: "object",
    name: "HistoricForecastRequest",
    description: "In-sample (historic) forecast of many series, with optional exogenous features. Deprecated.",
    properties: [
      prop("series", SERIES_SCHEMA, "The series, with optional exogenous features X."),
      freqProp(core),
      modelProp,
      cleanExProp,
      finetunedIdProp,
      levelListProp,
      featureContributionsProp,
      finetuneStepsProp(0),
      finetuneLossProp,
      finetuneDepthProp,
    ],
  } satisfies ApiObjectSchema;
}

const featureContributionsProp = opt("feature_contributions", { kind: "boolean" }, false, "Return the contribution of every exogenous feature (and a base value) per row.");

function forecastSchema(core: boolean) {
  return {
    kind: "object",
    name: "ForecastRequest",
    description: "Forecast h steps after the end of every series, with conformal prediction intervals.",
    properties: [
      prop("series", SERIES_SCHEMA, "The series, with optional exogenous features X."),
      freqProp(core),
      prop("h", positiveInt, "Forecast horizon: number of future steps."),
      xFutureProp,
      levelListProp,
      modelProp,
      cleanExProp,
      finetuneStepsProp(0),
      finetuneLossProp,
      finetuneDepthProp,
      finetunedIdProp,
      histExogProp,
      multivariateProp,
      modelParametersProp,
      featureContributionsProp,
    ],
  } satisfies ApiObjectSchema;
}

function finetuneSchema(core: boolean) {
  return {
    kind: "object",
    name: "FinetuneRequest",
    description: "Fine-tune a model on the series and store it as a fine-tuned model of the account.",
    properties: [
      prop("series", SERIES_SCHEMA, "The training series."),
      freqProp(core),
      modelProp,
      finetuneStepsProp(10),
      finetuneLossProp,
      finetuneDepthProp,
      opt("output_model_id", { kind: "nullable", inner: modelId }, null, "Id of the new fine-tuned model; null generates one."),
      opt("finetuned_model_id", { kind: "nullable", inner: modelId }, null, "Start from this earlier fine-tuned model of the account."),
    ],
  } satisfies ApiObjectSchema;
}

/**
 * Which endpoint a body is for.
 * @category API rules
 */
export type ApiEndpoint = "forecast" | "anomaly" | "historic" | "finetune";

/**
 * Request schemas at the HTTP API (freq: the aliases of classes D, M, H and every sub-daily step, W).
 * @category API rules
 */
export const API_REQUEST_SCHEMAS = {
  forecast: forecastSchema(false),
  anomaly: anomalySchema(false),
  historic: historicSchema(false),
  finetune: finetuneSchema(false),
} as const satisfies Readonly<Record<ApiEndpoint, ApiObjectSchema>>;

/**
 * Request schemas of the core functions (freq also quarterly and yearly aliases).
 * @category API rules
 */
export const CORE_REQUEST_SCHEMAS = {
  forecast: forecastSchema(true),
  anomaly: anomalySchema(true),
  historic: historicSchema(true),
  finetune: finetuneSchema(true),
} as const satisfies Readonly<Record<ApiEndpoint, ApiObjectSchema>>;

/**
 * The older request form, POST /forecastmodel (docs/contract.md §6).
 * @category API rules
 */
export const LEGACY_REQUEST_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "LegacyForecastRequest",
  description: "The older request form: one series as records of timestamp and value.",
  properties: [
    prop(
      "df",
      {
        kind: "array",
        minItems: 1,
        items: {
          kind: "object",
          name: "LegacyRecord",
          description: "One observation.",
          properties: [
            prop("ds", { kind: "string" }, "Timestamp, YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (one format for all rows)."),
            prop("y", finite, "Observed value."),
          ],
        },
      },
      "Observations, regularly spaced: a step that divides a day (30 s, 5 min, 1 h, 2 h, …), one day, one week or one month; the frequency is inferred from the spacing.",
    ),
    prop("h", positiveInt, "Forecast horizon: number of future steps."),
  ],
};

// ---------------------------------------------------------------- responses

const int0: ApiSchema = { kind: "integer", ge: 0 };
const numbers: ApiSchema = { kind: "array", items: finite };
const intervalsSchema: ApiSchema = { kind: "nullable", inner: { kind: "dict" } };
const tokenProps: ApiProperty[] = [
  prop("input_tokens", int0, "Numbers received (y plus every X and X_future value)."),
  prop("output_tokens", int0, "Numbers returned in per-row arrays."),
  prop("finetune_tokens", int0, "finetune_steps × number of series (0 without fine-tuning)."),
];

/**
 * Response of POST /v2/forecast and POST /v2/historic_forecast.
 * @category API rules
 */
export const FORECAST_RESPONSE_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "ForecastResponse",
  description: "Point forecasts per row with optional intervals and exogenous weights.",
  properties: [
    ...tokenProps,
    prop("mean", numbers, "Point values, series after series."),
    prop("sizes", { kind: "array", items: int0 }, "Rows of each series."),
    prop("intervals", intervalsSchema, "Intervals keyed lo-<L> and hi-<L>, or null."),
    prop("weights_x", { kind: "nullable", inner: numbers }, "Fitted coefficient of each exogenous feature, or null."),
    prop("feature_contributions", { kind: "nullable", inner: { kind: "array", items: numbers } }, "(features + 1) arrays summing to mean, or null."),
  ],
};

/**
 * Response of POST /v2/online_anomaly_detection.
 * @category API rules
 */
export const ANOMALY_RESPONSE_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "OnlineAnomalyDetectionResponse",
  description: "The last detection_size points of each series with their forecast, score and flag.",
  properties: [
    ...tokenProps,
    prop("mean", numbers, "Forecast of each output row."),
    prop("sizes", { kind: "array", items: int0 }, "Output rows of each series."),
    prop("idxs", { kind: "array", items: int0 }, "0-based position of each output row in the request's y."),
    prop("anomaly", { kind: "array", items: { kind: "boolean" } }, "true where the point is flagged."),
    prop("anomaly_score", numbers, "Calibrated z-score: the signed normal quantile of the highest level whose calibrated interval the point lies outside."),
    prop("accumulated_anomaly_score", numbers, "max(z², z_c²) with z_c the z-equivalent of a two-sided CUSUM of the scored points, reset after every alarm (univariate), or the sum of z² over series (multivariate)."),
    prop("intervals", intervalsSchema, "Interval used for the decision (lo-<L>, hi-<L>), null for multivariate."),
  ],
};

/**
 * Response of POST /v2/finetune (and the result of a succeeded fine-tune job).
 * @category API rules
 */
export const FINETUNE_RESPONSE_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "FinetuneResponse",
  description: "Tokens used and the id of the stored fine-tuned model.",
  properties: [...tokenProps, prop("finetuned_model_id", modelId, "Id of the new fine-tuned model.")],
};

/**
 * Response of POST /v2/finetune/async.
 * @category API rules
 */
export const ASYNC_JOB_RESPONSE_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "AsyncJobResponse",
  description: "The id of the job that will run the request.",
  properties: [prop("job_id", { kind: "string", pattern: FINETUNE_JOB_ID_PATTERN }, "Job id: ft- followed by 32 hex digits.")],
};

const nullableString: ApiSchema = { kind: "nullable", inner: { kind: "string" } };

/**
 * A running job's progress (`progress` of the job status record, an
 * addition to the specification): `done` of `total` units of `stage`.
 * @category API rules
 */
export const JOB_PROGRESS_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "JobProgress",
  description: "Progress of a running job's work, written at most every 250 ms of the service's clock besides each stage's first and last report.",
  properties: [
    prop("stage", { kind: "literal", values: ["finetune", "windows"] }, "What is being done: fine-tuning steps, or rolling forecast windows."),
    prop("done", { kind: "integer", ge: 1 }, "Units finished so far."),
    prop("total", { kind: "integer", ge: 1 }, "Units of this stage (done <= total)."),
  ],
};

/**
 * The job status record (AsyncJobStatusResponse).
 * @category API rules
 */
export const JOB_STATUS_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "AsyncJobStatusResponse",
  description: "State of an asynchronous job.",
  properties: [
    prop("job_id", { kind: "string" }, "The job this status describes."),
    prop("status", { kind: "literal", values: ["pending", "running", "succeeded", "failed", "cancelled"] }, "Lifecycle state."),
    prop("result", { kind: "nullable", inner: FINETUNE_RESPONSE_SCHEMA }, "The task output; only when succeeded."),
    prop("error", nullableString, "Failure detail; only when failed."),
    prop("created_at", nullableString, "ISO-8601 time the job was accepted."),
    prop("updated_at", nullableString, "ISO-8601 time of the last state transition."),
    opt("progress", JOB_PROGRESS_SCHEMA, undefined, "Only while the job runs and its store records progress (an addition to the specification): the latest progress of its work."),
  ],
};

/**
 * A fine-tuned model record (docs/contract.md §5).
 * @category API rules
 */
export const FINETUNED_MODEL_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "FinetunedModel",
  description: "Metadata of a fine-tuned model of the account.",
  properties: [
    prop("id", modelId, "Model id."),
    prop("created_at", { kind: "string" }, "ISO-8601 creation time."),
    prop("base_model_id", { kind: "string", pattern: MODEL_ID_PATTERN }, "The fine-tuned model it started from, or \"None\"."),
    prop("steps", int0, "Fine-tune steps used."),
    prop("depth", { kind: "literal", values: [1, 2, 3, 4, 5] }, "Fine-tune depth used."),
    prop("loss", { kind: "literal", values: LOSS_NAMES }, "Loss used in fine-tuning."),
    prop("model", { kind: "literal", values: MODEL_NAMES }, "Model name used."),
    prop("freq", CORE_FREQ_SCHEMA, "Series frequency (its canonical name, e.g. M for MS, 15min for 15T)."),
    prop("created_by", { kind: "literal", values: ["user"] }, "Who created the model."),
  ],
};

/**
 * Response of GET /v2/finetuned_models.
 * @category API rules
 */
export const FINETUNED_MODEL_LIST_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "FinetunedModelList",
  description: "The fine-tuned models of the account, oldest first.",
  properties: [prop("finetuned_models", { kind: "array", items: FINETUNED_MODEL_SCHEMA }, "Records, oldest first.")],
};

/**
 * Response of the older form.
 * @category API rules
 */
export const LEGACY_RESPONSE_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "LegacyForecastResponse",
  description: "Envelope of the older request form.",
  properties: [
    prop("status", { kind: "integer" }, "200."),
    prop(
      "data",
      {
        kind: "object",
        name: "LegacyForecastData",
        description: "Future timestamps (in the input's format) and point forecasts.",
        properties: [prop("timestamp", { kind: "array", items: { kind: "string" } }, "Future timestamps."), prop("value", numbers, "Point forecasts."), ...tokenProps],
      },
      "The forecast.",
    ),
    prop("message", { kind: "string" }, "\"success\"."),
    prop("details", { kind: "string" }, "\"request successful\"."),
    prop("code", { kind: "string" }, "\"B10\"."),
    prop("requestID", { kind: "string" }, "Id of this request."),
    prop("support", { kind: "string" }, "Where to get help."),
  ],
};

/**
 * 401 / 429 body.
 * @category API rules
 */
export const API_ERROR_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "APIErrorResponse",
  description: "Authentication (401, code A12) or credit (429, code A21) error.",
  properties: [
    prop("data", { kind: "nullable", inner: { kind: "dict" } }, "Always null."),
    prop("message", { kind: "string" }, "\"Invalid API key\" or \"Too many requests\"."),
    prop("details", { kind: "string" }, "What went wrong."),
    prop("code", { kind: "string" }, "A12 (key) or A21 (credits)."),
    prop("requestID", { kind: "string" }, "Id of this request."),
    prop("support", { kind: "string" }, "Where to get help."),
  ],
};

/**
 * `{"detail": "<text>"}` (404, 405, 409, 500).
 * @category API rules
 */
export const DETAIL_MESSAGE_SCHEMA: ApiObjectSchema = {
  kind: "object",
  name: "DetailMessage",
  description: "An error described by one sentence.",
  properties: [prop("detail", { kind: "string" }, "What went wrong.")],
};
