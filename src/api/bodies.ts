/**
 * TypeScript types of the JSON request bodies, as on the wire (snake_case),
 * for the JSON entry points (`forecast`, `detectAnomaliesOnline`,
 * `historicForecast`, `finetune`): a misspelt field, a string where a number
 * belongs or an unknown frequency fails at compile time. They are derived
 * from the request schemas of `schemas.ts` (TypeBox's `StaticEncode`, lists
 * read-only), the same schemas that validate at run time and describe the
 * bodies in GET /openapi.json. The validated internal forms the pipelines
 * take are `ForecastInput`, `AnomalyInput`, `HistoricInput` and `FinetuneInput`.
 * @module
 */
import type { StaticEncode, TSchema } from "typebox";
import type { CORE_REQUEST_SCHEMAS, SERIES_SCHEMA } from "./schemas.js";

/** A schema's wire type with read-only lists, so a caller's `as const` data is accepted. */
type Wire<T> = T extends readonly (infer E)[] ? readonly Wire<E>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;
/** The wire type of a schema. */
type WireOf<S extends TSchema> = Wire<StaticEncode<S>>;

/**
 * Many series concatenated in `y`, their lengths in `sizes`, optional
 * exogenous features: `y` (finite numbers), `sizes` (integers ≥ 1, summing to
 * `y.length`), `X` (feature-major: `X[k]` holds feature k for every row of `y`).
 * @category API rules
 */
export interface SeriesBody extends WireOf<typeof SERIES_SCHEMA> {}

/**
 * The body of POST /v2/forecast (`forecast`), as `schemas.ts` describes it:
 * `series`, `freq` (a pandas offset alias the core functions accept) and `h`,
 * with `X_future`, `level`, `model`, `clean_ex_first`, the fine-tune fields,
 * `hist_exog`, `multivariate`, `model_parameters` and `feature_contributions`
 * optional. `L` is the type of its levels: written in the call
 * (`level: [80, 95]`) it is `80 | 95`, and the result's interval keys are
 * typed (`"lo-80"`, …; see `LevelKey`).
 * @category Types
 */
export interface ForecastRequest<L extends number = number> extends Omit<WireOf<typeof CORE_REQUEST_SCHEMAS.forecast>, "level"> {
  /** Interval levels in percent, each 0 ≤ L < 100 (e.g. `[80, 95]`; `0.95` is 0.95 %). */
  level?: readonly L[] | null;
}

/**
 * The body of POST /v2/online_anomaly_detection (`detectAnomaliesOnline`).
 * `L` is the type of its level and `M` of its threshold method, as written
 * in the call (they type the result's interval keys).
 * @category Types
 */
export interface AnomalyRequest<L extends number = number, M extends "univariate" | "multivariate" = "univariate" | "multivariate">
  extends Omit<WireOf<typeof CORE_REQUEST_SCHEMAS.anomaly>, "level" | "threshold_method"> {
  /** Level in percent, 0 ≤ L < 100 (default 99). */
  level?: L;
  /** `"univariate"` (default) or `"multivariate"`. */
  threshold_method?: M;
}

/**
 * The body of POST /v2/historic_forecast (`historicForecast`); `L` as in
 * {@link ForecastRequest}.
 * @category Types
 */
export interface HistoricRequest<L extends number = number> extends Omit<WireOf<typeof CORE_REQUEST_SCHEMAS.historic>, "level"> {
  /** Interval levels in percent. */
  level?: readonly L[] | null;
}

/**
 * The body of POST /v2/finetune (`finetune`): the model fields (here
 * `finetune_steps` defaults to 10 and `finetuned_model_id` is the earlier
 * fine-tuned model to start from) and the new model's id, `output_model_id`.
 * @category Types
 */
export interface FinetuneRequest extends WireOf<typeof CORE_REQUEST_SCHEMAS.finetune> {}

/**
 * A body as the JSON entry points take it: the typed object, JSON text or UTF-8 bytes.
 * @category Types
 */
export type JsonBody<T> = T | string | Uint8Array | ArrayBuffer;
