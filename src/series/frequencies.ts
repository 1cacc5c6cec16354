/**
 * The frequencies table: the six frequency classes of the network's tables,
 * shortest period first, with what the library knows of each (its words,
 * season length, step, pandas aliases, whether the HTTP API accepts it).
 * `ModelFreq`, the alias table of `parseFreq`, the API's accepted lists,
 * error words and OpenAPI pattern, and the models' season lengths are read
 * from it.
 * @module
 */
import type { ModelFreq } from "../types.js";

/** Anchors a pandas alias may carry (`W-SUN`, `QS-DEC`): weekdays or months. */
export const FREQ_ANCHORS = {
  /** `W-MON` … `W-SUN`. */
  weekday: ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"],
  /** `-JAN` … `-DEC`. */
  month: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
} as const;

/**
 * The pandas spellings of a calendar class: each base, alone or with each anchor.
 * @category Series
 */
export interface FreqAliases {
  /** The aliases without an anchor (`Q`, `QS`, `QE`). */
  readonly bases: readonly string[];
  /** The anchors each base may carry (`QS-DEC`), or none. */
  readonly anchor: keyof typeof FREQ_ANCHORS | null;
}

/**
 * One frequency class of the frequencies table.
 * @category Series
 */
export interface FrequencyEntry {
  /** The class in words, for messages ("daily"). */
  readonly words: string;
  /** The season length the network's seasonal inputs use for the class (sub-daily steps: see `modelParams`). */
  readonly seasonLength: number;
  /** Seconds between two points (sub-daily: the hour), null for calendar months, quarters and years. */
  readonly stepSeconds: number | null;
  /** The seasons (in steps) a calendar class implies; sub-daily steps derive theirs from the step. */
  readonly seasons: readonly number[];
  /** The pandas spellings of the class: null for the sub-daily steps (`<k>s`, `<k>min`, `<k>h`, read by pattern). */
  readonly aliases: FreqAliases | null;
  /** The accepted aliases in a 422's words: `M (or MS, ME)`. */
  readonly shown: string;
  /** Whether the HTTP API accepts the class (the core functions accept every class). */
  readonly httpApi: boolean;
}

/**
 * The frequencies table: one entry per class of the network's tables,
 * shortest period first, keyed by `ModelFreq` (the compiler holds the two to
 * each other: an entry for each class and no other). Adding a class is one
 * entry here, its letter in `ModelFreq`, and its native horizon in each model
 * of `MODELS`.
 *
 * @example
 * ```ts
 * Object.keys(FREQUENCIES); // => ["H", "D", "W", "M", "Q", "Y"]
 * FREQUENCIES.W.seasonLength; // => 52
 * FREQUENCIES.Q.httpApi; // => false
 * ```
 * @category Series
 */
export const FREQUENCIES: Readonly<Record<ModelFreq, FrequencyEntry>> = {
  /** Hourly, and every other sub-daily step (`30s`, `5min`, `2h`). */
  H: { words: "sub-daily", seasonLength: 24, stepSeconds: 3600, seasons: [], aliases: null, shown: "H (or h)", httpApi: true },
  /** Daily. */
  D: { words: "daily", seasonLength: 7, stepSeconds: 86_400, seasons: [7], aliases: { bases: ["D"], anchor: null }, shown: "D", httpApi: true },
  /** Weekly, on any weekday. */
  W: { words: "weekly", seasonLength: 52, stepSeconds: 7 * 86_400, seasons: [52], aliases: { bases: ["W"], anchor: "weekday" }, shown: "W (or W-SUN, W-MON, …)", httpApi: true },
  /** Monthly (start or end, of the calendar or the business month). */
  M: { words: "monthly", seasonLength: 12, stepSeconds: null, seasons: [12], aliases: { bases: ["M", "MS", "ME", "BM", "BMS", "BME", "CBM", "CBMS", "CBME"], anchor: null }, shown: "M (or MS, ME)", httpApi: true },
  /** Quarterly (calendar or business quarters), anchored on any month. */
  Q: { words: "quarterly", seasonLength: 4, stepSeconds: null, seasons: [4], aliases: { bases: ["Q", "QS", "QE", "BQ", "BQS", "BQE"], anchor: "month" }, shown: "Q (or QS, QE, QS-DEC, …)", httpApi: false },
  /** Yearly (calendar or business years), anchored on any month. */
  Y: { words: "yearly", seasonLength: 1, stepSeconds: null, seasons: [], aliases: { bases: ["Y", "YS", "YE", "A", "AS", "BA", "BAS", "BY", "BYS", "BYE"], anchor: "month" }, shown: "Y (or YS, YE, A, AS, YS-DEC, …)", httpApi: false },
};

/**
 * The classes, shortest period first (the keys of {@link FREQUENCIES}).
 *
 * @example
 * ```ts
 * MODEL_FREQS; // => ["H", "D", "W", "M", "Q", "Y"]
 * ```
 * @category Series
 */
export const MODEL_FREQS: readonly ModelFreq[] = Object.freeze(Object.keys(FREQUENCIES) as ModelFreq[]);
