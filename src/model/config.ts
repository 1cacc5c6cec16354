import { parseFreq, stepInWords, type FreqInfo } from "../series/freq.js";
import type { FinetuneDepth, Freq, ModelFreq, ModelName, ModelParams, ModelSpec } from "../types.js";

/**
 * Season lengths the network knows (its one-hot input), in this order.
 * @category Network
 */
export const KNOWN_SEASON_LENGTHS: readonly number[] = [1, 4, 7, 12, 24, 52];

/**
 * Number of classical projections fed to the network (see `features.ts`).
 * @category Network
 */
export const PROJECTION_COUNT = 6;

/**
 * Central-interval levels (as fractions) of the network's spread head, in
 * increasing order: the quantiles (1 ± s)/2 for each s here, from 0.005 to
 * 0.995, with the point output as the median.
 * @category Network
 */
export const SPREAD_LEVELS: readonly number[] = [0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.98, 0.99];

/**
 * Number of scalar descriptors of a window fed to the network.
 * @category Network
 */
export const META_COUNT = KNOWN_SEASON_LENGTHS.length + 4;

/**
 * The fixed shape of one pretrained network.
 * @category Network
 */
export interface NetworkShape {
  /** Context length: the last `contextLength` points of a series are seen. */
  readonly contextLength: number;
  /** Direct outputs of the network. */
  readonly outputLength: number;
  /** Width of the residual stream. */
  readonly width: number;
  /** Width of the hidden layer inside each residual block. */
  readonly hidden: number;
  /** Residual blocks; fine-tune depth d opens the last d of them. Always 5. */
  readonly blocks: number;
  /** Whether the network reads the mean context of the other series of its batch. */
  readonly crossSeries: boolean;
  /**
   * What the network's input holds besides its context: `"window"` the six
   * classical projections computed on the context window alone
   * (`WindowFeaturizer`); `"seasons"` eight projections from the whole
   * history at a day's and a week's season (`SeasonsFeaturizer`).
   */
  readonly view: "window" | "seasons";
  /** Number of classical projections in the input (and in the learned skip mix). */
  readonly projections: number;
}

/**
 * Projections of the `"seasons"` view (see `SeasonsFeaturizer`).
 * @category Network
 */
export const SEASONS_PROJECTION_COUNT = 8;

const WINDOW_VIEW = { view: "window", projections: PROJECTION_COUNT } as const;


/**
 * What the library knows of one pretrained model (an entry of {@link MODELS}).
 * @category Network
 */
export interface ModelEntry {
  /** The network's fixed architecture. */
  readonly shape: NetworkShape;
  /** Native horizon per model frequency: the steps the network forecasts directly. */
  readonly horizon: Readonly<Record<ModelFreq, number>>;
  /** The fine-tune depth the model always uses, whatever the request asks (with a warning); null: the request's depth. */
  readonly fixedFinetuneDepth: FinetuneDepth | null;
  /** Weight of one fine-tuning step of the model in the work budget, relative to forecastmodel-1's. */
  readonly finetuneCostWeight: number;
}

/**
 * The models table: one entry per pretrained model, in a fixed order. The
 * names ({@link MODEL_NAMES}), shapes, native horizons and what each model
 * can do are read from it; adding a pretrained model is one entry here (and
 * its weights). A model whose shape reads the other series of its batch
 * (`crossSeries`) serves multivariate requests.
 *
 * @example
 * ```ts
 * MODELS["forecastmodel-2.1"].shape.crossSeries; // => true
 * MODELS["forecastmodel-2.1"].fixedFinetuneDepth; // => 1
 * MODELS["forecastmodel-1-long-horizon"].horizon.M; // => 24
 * ```
 * @category Network
 */
export const MODELS: Readonly<Record<ModelName, ModelEntry>> = {
  "forecastmodel-1": {
    shape: { contextLength: 96, outputLength: 24, width: 128, hidden: 128, blocks: 5, crossSeries: false, ...WINDOW_VIEW },
    horizon: { H: 24, D: 14, W: 13, M: 18, Q: 8, Y: 6 },
    fixedFinetuneDepth: null,
    finetuneCostWeight: 1,
  },
  "forecastmodel-1-long-horizon": {
    shape: { contextLength: 192, outputLength: 104, width: 128, hidden: 128, blocks: 5, crossSeries: false, ...WINDOW_VIEW },
    horizon: { H: 48, D: 28, W: 104, M: 24, Q: 8, Y: 8 },
    fixedFinetuneDepth: null,
    finetuneCostWeight: 1.5,
  },
  "forecastmodel-2.1": {
    shape: { contextLength: 96, outputLength: 24, width: 128, hidden: 128, blocks: 5, crossSeries: true, ...WINDOW_VIEW },
    horizon: { H: 24, D: 14, W: 13, M: 18, Q: 8, Y: 6 },
    fixedFinetuneDepth: 1,
    finetuneCostWeight: 1,
  },
  "forecastmodel-1-high-frequency": {
    shape: { contextLength: 168, outputLength: 48, width: 128, hidden: 128, blocks: 5, crossSeries: false, view: "seasons", projections: SEASONS_PROJECTION_COUNT },
    horizon: { H: 48, D: 14, W: 13, M: 18, Q: 8, Y: 6 },
    fixedFinetuneDepth: null,
    finetuneCostWeight: 1,
  },
};

/**
 * The names of the pretrained models, in a fixed order: the keys of the models table (`MODELS` in src/model/config.ts).
 * @category Network
 */
export const MODEL_NAMES: readonly ModelName[] = Object.keys(MODELS) as ModelName[];

/**
 * Whether `name` is one of the pretrained models.
 *
 * @example
 * ```ts
 * isModelName("forecastmodel-1"); // => true
 * isModelName("gpt"); // => false
 * ```
 * @category Network
 */
export function isModelName(name: unknown): name is ModelName {
  return typeof name === "string" && (MODEL_NAMES as readonly string[]).includes(name);
}

/**
 * The fixed architecture of a model's network.
 *
 * @example
 * ```ts
 * networkShape("forecastmodel-1").outputLength; // => 24
 * ```
 * @category Network
 */
export function networkShape(model: ModelName): NetworkShape {
  if (!isModelName(model)) throw new RangeError(`unknown model "${String(model)}"`);
  return MODELS[model].shape;
}

export type { ModelParams };

/** What `freq` means, or a RangeError naming it. */
function freqInfo(freq: Freq): FreqInfo {
  const info = parseFreq(freq);
  if (info === null) throw new RangeError(`unknown freq "${String(freq)}"`);
  return info;
}

/**
 * The one table of context length, native horizon and season length per model and frequency.
 *
 * Season lengths: H 24, D 7, W 52, M 12, Q 4, Y 1. `forecastmodel-1` and
 * `forecastmodel-2.1` read 96 points and forecast H 24, D 14, W 13, M 18, Q 8,
 * Y 6 steps directly; `forecastmodel-1-long-horizon` reads 192 points and
 * forecasts at least two seasons directly (H 48, D 28, W 104, M 24, Q 8, Y 8).
 *
 * Any alias `parseFreq` accepts may be given (`"MS"` is `"M"`). Other
 * sub-daily steps (`"5min"`, `"2h"`) have the hourly horizon, and as season
 * length their steps per day when the network knows that season
 * (`KNOWN_SEASON_LENGTHS`: `"2h"` 12, `"6h"` 4), else 1: the network's
 * 96-point context cannot hold a day of 5-minute data. Business calendars
 * follow the same rule with their own seasons: business days (`"B"`) have
 * the daily horizon and a week of 5, business hours (`"BH"`) the hourly
 * horizon and a day of 8, which only a network of the `"seasons"` view
 * reads (else 1); custom business hours (`"CBH"`) have none.
 *
 * @example
 * ```ts
 * modelParams("forecastmodel-1", "M"); // => { inputSize: 96, horizon: 18, seasonLength: 12 }
 * modelParams("forecastmodel-1", "2h"); // => { inputSize: 96, horizon: 24, seasonLength: 12 }
 * modelParams("forecastmodel-1", "15min"); // => { inputSize: 96, horizon: 24, seasonLength: 1 }
 * modelParams("forecastmodel-1", "B"); // => { inputSize: 96, horizon: 14, seasonLength: 1 }
 * ```
 * @category Entry points
 */
export function modelParams(model: ModelName, freq: Freq): ModelParams {
  const shape = networkShape(model);
  const info = freqInfo(freq);
  const horizon = MODELS[model].horizon[info.modelFreq];
  const perDay = info.stepsPerDay;
  const blocks = aggregationFactor(model, freq);
  if (blocks > 1) return { inputSize: shape.contextLength * blocks, horizon: horizon * blocks, seasonLength: perDay! };
  // a day of steps for sub-daily data, else the frequency's first season (Y and custom business hours: none)
  const season = perDay ?? info.seasons[0] ?? 1;
  const known = shape.view === "seasons" || KNOWN_SEASON_LENGTHS.includes(season);
  return { inputSize: shape.contextLength, horizon, seasonLength: known ? season : 1 };
}

/**
 * The model parameters of a request: its `params`, resolved once where the
 * request was built (`modelParams(model, freq)`), or, for a request built
 * without them, `modelParams(model, freq)` now.
 *
 * @example
 * ```ts
 * requestModelParams({ model: "forecastmodel-1", freq: "M" }); // => { inputSize: 96, horizon: 18, seasonLength: 12 }
 * const params = modelParams("forecastmodel-1", "D");
 * requestModelParams({ model: "forecastmodel-1", freq: "D", params }) === params; // => true
 * ```
 * @category Network
 */
export function requestModelParams(spec: Pick<ModelSpec, "model" | "freq" | "params">): ModelParams {
  return spec.params ?? modelParams(spec.model, spec.freq);
}

/**
 * Steps per day of the finest data a `"seasons"` network reads as it is:
 * half-hours. Finer data is read in half-hour blocks ({@link aggregationFactor}).
 * @category Network
 */
export const SEASONS_STEPS_PER_DAY = 48;

/**
 * How many steps of `freq` a model reads as one: k > 1 for a model of the
 * `"seasons"` view (`forecastmodel-1-high-frequency`) at sub-half-hourly
 * data whose day is a whole number of half-hours (`"min"`: 30, `"5min"`:
 * 6, `"10min"`: 3, `"15min"`: 2). Such a model forecasts the half-hourly
 * means of the series (its context and whole-history projections at a day
 * of 48 and a week of 336 half-hours, 48 half-hours directly: a day) and
 * puts each half-hour's within-block daily profile back (see
 * `createNetworkForecaster`); its native horizon is then a day of steps.
 * 1 for every other model and frequency.
 *
 * @example
 * ```ts
 * aggregationFactor("forecastmodel-1-high-frequency", "min"); // => 30
 * aggregationFactor("forecastmodel-1-high-frequency", "15min"); // => 2
 * aggregationFactor("forecastmodel-1-high-frequency", "H"); // => 1
 * aggregationFactor("forecastmodel-1", "min"); // => 1
 * ```
 * @category Network
 */
export function aggregationFactor(model: ModelName, freq: Freq): number {
  const perDay = freqInfo(freq).stepsPerDay;
  if (networkShape(model).view !== "seasons" || perDay === null || perDay <= SEASONS_STEPS_PER_DAY) return 1;
  return Number.isInteger(perDay / SEASONS_STEPS_PER_DAY) ? perDay / SEASONS_STEPS_PER_DAY : 1;
}

/**
 * Frequencies (canonical names) whose default model is
 * `forecastmodel-1-high-frequency` at every horizon: those where it was
 * measured to beat forecastmodel-1 and the classical methods on real
 * held-out data (hourly and half-hourly: docs/hourly-accuracy.md; 5-, 10-
 * and 15-minute data at 24 steps to a day: docs/subhourly-accuracy.md).
 * Per-minute data switches at {@link PER_MINUTE_HIGH_FREQUENCY_FROM}.
 * @category Network
 */
export const HIGH_FREQUENCY_DEFAULT_FREQS: readonly string[] = ["H", "30min", "15min", "10min", "5min"];

/**
 * The horizon (steps) from which per-minute forecasts default to
 * `forecastmodel-1-high-frequency`: beyond 48 steps. Up to 48 minutes
 * ahead forecastmodel-1, which reads the last 96 minutes, won on the hourly
 * evaluation's per-minute origins and lost on the day-ahead evaluation's
 * (docs/hourly-accuracy.md, docs/subhourly-accuracy.md); from 96 steps to a
 * day the high-frequency network wins on both parts, by far (forecastmodel-1
 * rolls out recursively there).
 * @category Network
 */
export const PER_MINUTE_HIGH_FREQUENCY_FROM = 49;

/**
 * The model a forecast or cross-validation request that names none is
 * served by: `forecastmodel-1`, except at the frequencies of
 * {@link HIGH_FREQUENCY_DEFAULT_FREQS} (hourly to 5-minute data), and for
 * per-minute data with a horizon of at least
 * {@link PER_MINUTE_HIGH_FREQUENCY_FROM} steps, where it is
 * `forecastmodel-1-high-frequency`. An unknown `freq` gets
 * `forecastmodel-1` (validation reports the freq). Anomaly detection, the
 * historic forecast and fine-tuning keep `forecastmodel-1` as their default
 * (the new model was not measured there).
 *
 * @param freq - The request's freq (any alias).
 * @param h - The request's horizon; only per-minute data depends on it (absent: forecastmodel-1 there).
 *
 * @example
 * ```ts
 * defaultModel("M"); // => "forecastmodel-1"
 * defaultModel("h"); // => "forecastmodel-1-high-frequency"
 * defaultModel("15min"); // => "forecastmodel-1-high-frequency"
 * defaultModel("min", 24); // => "forecastmodel-1"
 * defaultModel("min", 1440); // => "forecastmodel-1-high-frequency"
 * ```
 * @category Network
 */
export function defaultModel(freq: string, h?: number): ModelName {
  const name = parseFreq(freq)?.name;
  if (name !== undefined && HIGH_FREQUENCY_DEFAULT_FREQS.includes(name)) return "forecastmodel-1-high-frequency";
  if (name === "min" && h !== undefined && h >= PER_MINUTE_HIGH_FREQUENCY_FROM) return "forecastmodel-1-high-frequency";
  return "forecastmodel-1";
}

/**
 * The second, longer season a model reads at a frequency, in steps, or 0:
 * a week of steps (7 × the steps of a day; 40 for business hours) for sub-daily data with a model
 * of the `"seasons"` view (`forecastmodel-1-high-frequency`); 0 for every
 * other model and frequency. The network uses it only when the history
 * holds a whole week.
 *
 * @example
 * ```ts
 * longSeasonLength("forecastmodel-1-high-frequency", "H"); // => 168
 * longSeasonLength("forecastmodel-1-high-frequency", "30min"); // => 336
 * longSeasonLength("forecastmodel-1-high-frequency", "D"); // => 0
 * longSeasonLength("forecastmodel-1", "H"); // => 0
 * ```
 * @category Network
 */
export function longSeasonLength(model: ModelName, freq: Freq): number {
  const shape = networkShape(model);
  const info = freqInfo(freq);
  // the week of steps a sub-daily frequency implies (7 days; 5 of business hours)
  return shape.view === "seasons" && info.stepsPerDay !== null ? (info.seasons[1] ?? 0) : 0;
}

/**
 * The warning text for a horizon beyond the model's native horizon, or null.
 * For a sub-daily step other than one hour it also says how long the native
 * horizon is (`"24 steps of 5 minutes"`).
 *
 * @example
 * ```ts
 * horizonWarning("forecastmodel-1", "M", 12); // => null
 * horizonWarning("forecastmodel-1", "M", 24)?.startsWith("The specified horizon"); // => true
 * horizonWarning("forecastmodel-1", "5min", 30)?.split(". ")[0];
 * // => "The specified horizon h exceeds the model horizon (24 steps of 5 minutes for freq 5min with forecastmodel-1)"
 * ```
 * @category Network
 */
export function horizonWarning(model: ModelName, freq: Freq, h: number): string | null {
  const { horizon } = modelParams(model, freq);
  if (h <= horizon) return null;
  const info = freqInfo(freq);
  const native = info.stepsPerDay !== null && info.name !== "H" ? `${horizon} steps of ${stepInWords(info.stepSeconds as number)}` : String(horizon);
  return `The specified horizon h exceeds the model horizon (${native} for freq ${info.name} with ${model}). This may lead to less accurate forecasts. Please consider using a smaller horizon or the model forecastmodel-1-long-horizon.`;
}
