/**
 * The request and response shapes of every route, written once as TypeBox
 * types (docs/contract.md §3, §5 and §6): each is the TypeScript type (`Infer`,
 * `Static`), the JSON Schema that GET /openapi.json shows, and the schema ajv
 * compiles to validate requests (`validateAgainst`).
 * @module
 */
import { Type, type TSchema } from "typebox";
import type { Freq, ModelFreq } from "../types.js";
import { acceptedFreqText, freqPattern, freqRefusalAmong, readFreq } from "./freq.js";
import { ALIAS, float64, type ApiAlias, type ApiAliasSchema } from "./schema-validator.js";
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
 * Its JSON Schema is a string with a pattern every alias matches (it may match more).
 *
 * @example
 * ```ts
 * const errors = new ErrorCollector();
 * validateAgainst(freqSchema(["D", "M"]), "MS", ["body", "freq"], errors);
 * // => "M"
 * ```
 * @category API rules
 */
export function freqSchema(freqs: readonly ModelFreq[], description?: string): ApiAliasSchema<Freq> {
  const alias: ApiAlias = {
    what: "frequency",
    read: (text) => readFreq(text, freqs),
    refusal: (value) => freqRefusalAmong(value, freqs),
    expected: acceptedFreqText(freqs),
  };
  const text = Type.Unsafe<Freq>(Type.String(description === undefined ? { pattern: freqPattern(freqs) } : { pattern: freqPattern(freqs), description }));
  return Object.assign(
    Type.Decode(text, (t) => readFreq(t, freqs) as Freq),
    { [ALIAS]: alias },
  );
}
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

/** A nullable schema: `anyOf: [inner, {type: "null"}]`. */
function nullable<T extends TSchema>(inner: T, description: string) {
  return Type.Optional(Type.Union([inner, Type.Null()], { description, default: null }));
}
/** A model (a titled object) as a property, with what it is there: the document shows `{$ref, description}`. */
function modelAs<T extends TSchema>(model: T, description: string) {
  return Type.Union([model], { description });
}
/** A list of finite numbers, validated into a Float64Array. */
const floatArray = () => Type.Decode(Type.Array(Type.Number()), float64);
const featureMatrix = () => Type.Array(floatArray());

/**
 * A feature-major matrix of finite numbers (`X`, `X_future`): a list of lists (validated into Float64Arrays).
 * @category API rules
 */
export const FEATURE_MATRIX_SCHEMA = featureMatrix();
const positiveInt = (description: string) => Type.Integer({ exclusiveMinimum: 0, description });
const modelId = (description: string) => Type.String({ pattern: MODEL_ID_PATTERN, description });
const levelNumber = (options: { description?: string; default?: number } = {}) => Type.Number({ minimum: 0, exclusiveMaximum: 100, ...options });
/** A free-form JSON object (pydantic's `dict`). */
const dict = () => Type.Unsafe<Record<string, unknown>>({ type: "object", additionalProperties: true });

/**
 * A path's fine-tuned model id (`{finetuned_model_id}`): a string of {@link MODEL_ID_PATTERN}.
 * @category API rules
 */
export const MODEL_ID_SCHEMA = Type.String({ pattern: MODEL_ID_PATTERN });
/**
 * A pretrained model's name (the query of GET /model_params).
 * @category API rules
 */
export const MODEL_NAME_SCHEMA = Type.Enum(MODEL_NAMES);
/**
 * A forecast horizon: an integer > 0.
 * @category API rules
 */
export const HORIZON_SCHEMA = Type.Integer({ exclusiveMinimum: 0 });

/**
 * Series of the anomaly, historic and fine-tune requests: `{y, sizes, X?}`.
 * @category API rules
 */
export const SERIES_SCHEMA = Type.Object(
  {
    /** Observations of all series, concatenated in order (finite numbers). */
    y: Type.Decode(Type.Array(Type.Number(), { description: "Observations of all series, concatenated in order (finite numbers)." }), float64),
    /** Length of each series (integers ≥ 1, summing to `y.length`). */
    sizes: Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
      minItems: 1,
      description: "Length of each series; the series are concatenated in y. A single series has one entry equal to its number of observations.",
    }),
    /** Exogenous features, feature-major: `X[k]` holds feature k for every row of `y`. */
    X: nullable(featureMatrix(), "Exogenous features, feature-major: X[k] is feature k for every row of y (X[k].length === y.length)."),
  },
  { title: "Series", description: "Many series concatenated in y with their lengths in sizes, optionally with exogenous features X." },
);

const FREQ_TEXT =
  "Series frequency, a pandas offset alias: sub-daily steps <k>s, <k>min (or <k>T), <k>h (or <k>H) whose step divides a day (30s, min, 5min, 15min, H, 2h, 12h), D daily, W weekly (W-SUN, …), M monthly (MS, ME); the core functions also take Q quarterly (QS-DEC, …) and Y yearly (YS, A, …). It sets the season length and native horizon (GET /model_params).";

// Each field is written once below, with its TSDoc (the wire types of bodies.ts show it) and its OpenAPI description.

/** `series` (described as `seriesText`) and `freq`, the first fields of every body. */
function seriesFields(core: boolean, seriesText: string) {
  return {
    /** The series. */
    series: modelAs(SERIES_SCHEMA, seriesText),
    /**
     * Frequency, a pandas offset alias: sub-daily steps that divide a day
     * (`"30s"`, `"min"`, `"5min"`, `"15T"`, `"H"`, `"2h"`, …), `"D"`, `"W"`
     * (`"W-SUN"`, …), `"M"` (`"MS"`, `"ME"`) at the HTTP API; the core functions
     * also take quarterly and yearly ones (`"Q"`, `"QS-DEC"`, `"YS"`, …). It sets
     * the season length and native horizon (`modelParams`).
     */
    freq: freqSchema(core ? CORE_FREQS : API_FREQS, FREQ_TEXT),
  };
}

const MODEL_FIELD = {
  /** Model name (default `"forecastmodel-1"`). */
  model: Type.Optional(Type.Enum(MODEL_NAMES, { default: "forecastmodel-1", description: "Model name. The long-horizon model is recommended to predict more than one seasonal period." })),
};
const CLEAN_EX_FIELD = {
  /** true (default): y is regressed on X first; false: X explains the model's residuals. */
  clean_ex_first: Type.Optional(
    Type.Boolean({
      default: true,
      description: "true: y is regressed on X first and the model works on what X does not explain; false: the model runs on y and X explains its residuals.",
    }),
  ),
};

/** The fine-tune fields; `finetune_steps` defaults to `defaultSteps`. */
function finetuneFields(defaultSteps: number) {
  return {
    /** Fine-tune steps (default 0: zero-shot; 10 for `finetune`). */
    finetune_steps: Type.Optional(Type.Integer({ minimum: 0, default: defaultSteps, description: "Number of fine-tune steps; 0 means zero-shot inference." })),
    /** Fine-tune loss (default `"default"`). */
    finetune_loss: Type.Optional(Type.Enum(LOSS_NAMES, { default: "default", description: "Fine-tune loss; default is a robust loss that outliers cannot dominate." })),
    /** Fine-tune depth 1–5 (default 1). */
    finetune_depth: Type.Optional(Type.Enum([1, 2, 3, 4, 5] as const, { default: 1, description: "1 fine-tunes only the output end of the network, 5 the whole model." })),
  };
}

const FINETUNED_ID_FIELD = {
  /** A stored fine-tuned model to use. */
  finetuned_model_id: nullable(Type.String({ pattern: MODEL_ID_PATTERN }), "Id of a fine-tuned model of this account to use (its base model is used when model is not given)."),
};
const HIST_EXOG_FIELD = {
  /**
   * Indices of features known only up to the forecast origin. Absent or null
   * with fewer `X_future` arrays than features (or `X_future: null`), the
   * features without future values are historical (the SDK's form, see `sdkHistoricalFeatures`).
   */
  hist_exog: nullable(Type.Array(Type.Integer({ minimum: 0 })), "Zero-based indices of exogenous features known only up to the forecast origin."),
};
const JOINT_FIELDS = {
  /** forecastmodel-2.1 only: forecast a batch of equal-length series jointly. */
  multivariate: Type.Optional(Type.Boolean({ default: false, description: "forecastmodel-2.1 only: forecast a batch of equal-length series jointly." })),
  /** Optional settings of the model. */
  model_parameters: nullable(dict(), "Optional dictionary customising model behaviour."),
};
const LEVEL_LIST_FIELD = {
  /** Interval levels in percent, each 0 ≤ L < 100 (e.g. `[80, 95]`; `0.95` is 0.95 %). */
  level: nullable(Type.Array(levelNumber(), { minItems: 1 }), "Prediction interval levels in percent, each 0 <= x < 100; intervals are keyed lo-<L> and hi-<L>."),
};
const FEATURE_CONTRIBUTIONS_FIELD = {
  /** Return each feature's contribution (and a base value) per row (default false). */
  feature_contributions: Type.Optional(Type.Boolean({ default: false, description: "Return the contribution of every exogenous feature (and a base value) per row." })),
};

// The bodies: their fields in the order pydantic reports their errors.

const WITH_X = "The series, with optional exogenous features X.";

function anomalySchema(core: boolean) {
  return Type.Object(
    {
      ...seriesFields(core, "The series."),
      /** Points at the end of each series to judge. */
      detection_size: positiveInt("Points at the end of each series in which anomalies are detected."),
      /** Length of each rolling forecast window. */
      h: positiveInt("Forecast horizon of each cross-validation window."),
      /** `"univariate"` (default) or `"multivariate"`. */
      threshold_method: Type.Optional(Type.Enum(["univariate", "multivariate"], { default: "univariate", description: "How anomalies are detected." })),
      ...MODEL_FIELD,
      ...CLEAN_EX_FIELD,
      /** Level in percent, 0 ≤ L < 100 (default 99). */
      level: Type.Optional(levelNumber({ default: 99, description: "Confidence level of the prediction interval in percent, 0 <= x < 100." })),
      ...finetuneFields(0),
      ...FINETUNED_ID_FIELD,
      /** Step between windows (default h). */
      step_size: nullable(Type.Integer({ exclusiveMinimum: 0 }), "Step between cross-validation windows; null means h."),
      ...HIST_EXOG_FIELD,
      /** Fine-tune once (false, default) or in every window (true). */
      refit: Type.Optional(Type.Boolean({ default: false, description: "Fine-tune in each window (true) or only on the first window (false)." })),
      ...JOINT_FIELDS,
    },
    { title: "OnlineAnomalyDetectionRequest", description: "Online multi-series anomaly detection by rolling-window forecasts." },
  );
}

function historicSchema(core: boolean) {
  return Type.Object(
    { ...seriesFields(core, WITH_X), ...MODEL_FIELD, ...CLEAN_EX_FIELD, ...FINETUNED_ID_FIELD, ...LEVEL_LIST_FIELD, ...FEATURE_CONTRIBUTIONS_FIELD, ...finetuneFields(0) },
    { title: "HistoricForecastRequest", description: "In-sample (historic) forecast of many series, with optional exogenous features. Deprecated." },
  );
}

function forecastSchema(core: boolean) {
  return Type.Object(
    {
      ...seriesFields(core, WITH_X),
      /** Steps to forecast after each series. */
      h: positiveInt("Forecast horizon: number of future steps."),
      /** Future values of the exogenous features: `X_future[k]` has `sizes.length × h` values. */
      X_future: nullable(
        featureMatrix(),
        "Future values of the exogenous features (top level of the body): X_future[k] has sizes.length * h values, series after series.",
      ),
      ...LEVEL_LIST_FIELD,
      ...MODEL_FIELD,
      ...CLEAN_EX_FIELD,
      ...finetuneFields(0),
      ...FINETUNED_ID_FIELD,
      ...HIST_EXOG_FIELD,
      ...JOINT_FIELDS,
      ...FEATURE_CONTRIBUTIONS_FIELD,
    },
    { title: "ForecastRequest", description: "Forecast h steps after the end of every series, with conformal prediction intervals." },
  );
}

function finetuneSchema(core: boolean) {
  return Type.Object(
    {
      ...seriesFields(core, "The training series."),
      ...MODEL_FIELD,
      ...finetuneFields(10),
      /** Id of the new model (generated when absent). */
      output_model_id: nullable(Type.String({ pattern: MODEL_ID_PATTERN }), "Id of the new fine-tuned model; null generates one."),
      /** The earlier fine-tuned model to start from. */
      finetuned_model_id: nullable(Type.String({ pattern: MODEL_ID_PATTERN }), "Start from this earlier fine-tuned model of the account."),
    },
    { title: "FinetuneRequest", description: "Fine-tune a model on the series and store it as a fine-tuned model of the account." },
  );
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
} as const;

/**
 * Request schemas of the core functions (freq also quarterly and yearly aliases).
 * @category API rules
 */
export const CORE_REQUEST_SCHEMAS = {
  forecast: forecastSchema(true),
  anomaly: anomalySchema(true),
  historic: historicSchema(true),
  finetune: finetuneSchema(true),
} as const;

/**
 * The older request form, POST /forecastmodel (docs/contract.md §6).
 * @category API rules
 */
export const LEGACY_REQUEST_SCHEMA = Type.Object(
  {
    df: Type.Array(
      Type.Object(
        {
          ds: Type.String({ description: "Timestamp, YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (one format for all rows)." }),
          y: Type.Number({ description: "Observed value." }),
        },
        { title: "LegacyRecord", description: "One observation." },
      ),
      {
        minItems: 1,
        description:
          "Observations, regularly spaced: a step that divides a day (30 s, 5 min, 1 h, 2 h, …), one day, one week or one month; the frequency is inferred from the spacing.",
      },
    ),
    h: positiveInt("Forecast horizon: number of future steps."),
  },
  { title: "LegacyForecastRequest", description: "The older request form: one series as records of timestamp and value." },
);

// ---------------------------------------------------------------- responses

const int0 = (description: string) => Type.Integer({ minimum: 0, description });
const numbers = (description?: string) => Type.Array(Type.Number(), description === undefined ? {} : { description });
const int0s = (description: string) => Type.Array(Type.Integer({ minimum: 0 }), { description });
const intervals = (description: string) => Type.Union([dict(), Type.Null()], { description });
const tokenProps = () => ({
  input_tokens: int0("Numbers received (y plus every X and X_future value)."),
  output_tokens: int0("Numbers returned in per-row arrays."),
  finetune_tokens: int0("finetune_steps × number of series (0 without fine-tuning)."),
});

/**
 * Response of POST /v2/forecast and POST /v2/historic_forecast.
 * @category API rules
 */
export const FORECAST_RESPONSE_SCHEMA = Type.Object(
  {
    ...tokenProps(),
    mean: numbers("Point values, series after series."),
    sizes: int0s("Rows of each series."),
    intervals: intervals("Intervals keyed lo-<L> and hi-<L>, or null."),
    weights_x: Type.Union([numbers(), Type.Null()], { description: "Fitted coefficient of each exogenous feature, or null." }),
    feature_contributions: Type.Union([Type.Array(numbers()), Type.Null()], { description: "(features + 1) arrays summing to mean, or null." }),
  },
  { title: "ForecastResponse", description: "Point forecasts per row with optional intervals and exogenous weights." },
);

/**
 * Response of POST /v2/online_anomaly_detection.
 * @category API rules
 */
export const ANOMALY_RESPONSE_SCHEMA = Type.Object(
  {
    ...tokenProps(),
    mean: numbers("Forecast of each output row."),
    sizes: int0s("Output rows of each series."),
    idxs: int0s("0-based position of each output row in the request's y."),
    anomaly: Type.Array(Type.Boolean(), { description: "true where the point is flagged." }),
    anomaly_score: numbers("Calibrated z-score: the signed normal quantile of the highest level whose calibrated interval the point lies outside."),
    accumulated_anomaly_score: numbers(
      "max(z², z_c²) with z_c the z-equivalent of a two-sided CUSUM of the scored points, reset after every alarm (univariate), or the sum of z² over series (multivariate).",
    ),
    intervals: intervals("Interval used for the decision (lo-<L>, hi-<L>), null for multivariate."),
  },
  { title: "OnlineAnomalyDetectionResponse", description: "The last detection_size points of each series with their forecast, score and flag." },
);

/**
 * Response of POST /v2/finetune (and the result of a succeeded fine-tune job).
 * @category API rules
 */
export const FINETUNE_RESPONSE_SCHEMA = Type.Object(
  { ...tokenProps(), finetuned_model_id: modelId("Id of the new fine-tuned model.") },
  { title: "FinetuneResponse", description: "Tokens used and the id of the stored fine-tuned model." },
);

/**
 * Response of POST /v2/finetune/async.
 * @category API rules
 */
export const ASYNC_JOB_RESPONSE_SCHEMA = Type.Object(
  { job_id: Type.String({ pattern: FINETUNE_JOB_ID_PATTERN, description: "Job id: ft- followed by 32 hex digits." }) },
  { title: "AsyncJobResponse", description: "The id of the job that will run the request." },
);

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/**
 * A running job's progress (`progress` of the job status record, an
 * addition to the specification): `done` of `total` units of `stage`.
 * @category API rules
 */
export const JOB_PROGRESS_SCHEMA = Type.Object(
  {
    stage: Type.Enum(["finetune", "windows"], { description: "What is being done: fine-tuning steps, or rolling forecast windows." }),
    done: Type.Integer({ minimum: 1, description: "Units finished so far." }),
    total: Type.Integer({ minimum: 1, description: "Units of this stage (done <= total)." }),
  },
  {
    title: "JobProgress",
    description: "Progress of a running job's work, written at most every 250 ms of the service's clock besides each stage's first and last report.",
  },
);

/**
 * The job status record (AsyncJobStatusResponse).
 * @category API rules
 */
export const JOB_STATUS_SCHEMA = Type.Object(
  {
    job_id: Type.String({ description: "The job this status describes." }),
    status: Type.Enum(["pending", "running", "succeeded", "failed", "cancelled"], { description: "Lifecycle state." }),
    result: Type.Union([FINETUNE_RESPONSE_SCHEMA, Type.Null()], { description: "The task output; only when succeeded." }),
    error: nullableString("Failure detail; only when failed."),
    created_at: nullableString("ISO-8601 time the job was accepted."),
    updated_at: nullableString("ISO-8601 time of the last state transition."),
    progress: Type.Optional(
      modelAs(JOB_PROGRESS_SCHEMA, "Only while the job runs and its store records progress (an addition to the specification): the latest progress of its work."),
    ),
  },
  { title: "AsyncJobStatusResponse", description: "State of an asynchronous job." },
);

/**
 * A fine-tuned model record (docs/contract.md §5).
 * @category API rules
 */
export const FINETUNED_MODEL_SCHEMA = Type.Object(
  {
    id: modelId("Model id."),
    created_at: Type.String({ description: "ISO-8601 creation time." }),
    base_model_id: modelId("The fine-tuned model it started from, or \"None\"."),
    steps: int0("Fine-tune steps used."),
    depth: Type.Enum([1, 2, 3, 4, 5] as const, { description: "Fine-tune depth used." }),
    loss: Type.Enum(LOSS_NAMES, { description: "Loss used in fine-tuning." }),
    model: Type.Enum(MODEL_NAMES, { description: "Model name used." }),
    freq: freqSchema(CORE_FREQS, "Series frequency (its canonical name, e.g. M for MS, 15min for 15T)."),
    created_by: Type.Enum(["user"], { description: "Who created the model." }),
  },
  { title: "FinetunedModel", description: "Metadata of a fine-tuned model of the account." },
);

/**
 * Response of GET /v2/finetuned_models.
 * @category API rules
 */
export const FINETUNED_MODEL_LIST_SCHEMA = Type.Object(
  { finetuned_models: Type.Array(FINETUNED_MODEL_SCHEMA, { description: "Records, oldest first." }) },
  { title: "FinetunedModelList", description: "The fine-tuned models of the account, oldest first." },
);

const text = (description: string) => Type.String({ description });

/**
 * Response of the older form.
 * @category API rules
 */
export const LEGACY_RESPONSE_SCHEMA = Type.Object(
  {
    status: Type.Integer({ description: "200." }),
    data: modelAs(
      Type.Object(
        { timestamp: Type.Array(Type.String(), { description: "Future timestamps." }), value: numbers("Point forecasts."), ...tokenProps() },
        { title: "LegacyForecastData", description: "Future timestamps (in the input's format) and point forecasts." },
      ),
      "The forecast.",
    ),
    message: text("\"success\"."),
    details: text("\"request successful\"."),
    code: text("\"B10\"."),
    requestID: text("Id of this request."),
    support: text("Where to get help."),
  },
  { title: "LegacyForecastResponse", description: "Envelope of the older request form." },
);

/**
 * 401 / 429 body.
 * @category API rules
 */
export const API_ERROR_SCHEMA = Type.Object(
  {
    data: Type.Union([dict(), Type.Null()], { description: "Always null." }),
    message: text("\"Invalid API key\" or \"Too many requests\"."),
    details: text("What went wrong."),
    code: text("A12 (key) or A21 (credits)."),
    requestID: text("Id of this request."),
    support: text("Where to get help."),
  },
  { title: "APIErrorResponse", description: "Authentication (401, code A12) or credit (429, code A21) error." },
);

/**
 * `{"detail": "<text>"}` (404, 405, 409, 500).
 * @category API rules
 */
export const DETAIL_MESSAGE_SCHEMA = Type.Object({ detail: text("What went wrong.") }, { title: "DetailMessage", description: "An error described by one sentence." });
