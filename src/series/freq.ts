/**
 * Frequencies as pandas offset aliases: what each one means for the model
 * (its class in the network's tables, its step, the seasons it implies).
 * The API's words for them (error texts, the accepted list) are in
 * `src/api/freq.ts`.
 * @module
 */
import type { Freq, ModelFreq } from "../types.js";
import { FREQ_ANCHORS, FREQUENCIES, MODEL_FREQS } from "./frequencies.js";

/**
 * What a frequency alias means: its canonical name, the class of the
 * network's tables it belongs to, its step and the seasons it implies.
 * @category Series
 */
export interface FreqInfo {
  /**
   * The canonical name: `"H"`, `"D"`, `"W"`, `"M"`, `"Q"`, `"Y"` for the six
   * classes (one hour is `"H"`), and for other sub-daily steps the largest
   * whole unit: `"s"`, `"30s"`, `"min"`, `"5min"`, `"90min"`, `"2h"`.
   */
  readonly name: Freq;
  /** The class of the network's tables (season length, native horizon): every sub-daily step is `"H"`. */
  readonly modelFreq: ModelFreq;
  /**
   * Seconds between two points: sub-daily steps, D (86400) and W (604800),
   * business hours (3600, within opening hours); null for M, Q, Y (calendar
   * months) and business days.
   */
  readonly stepSeconds: number | null;
  /**
   * Points per day for sub-daily steps (24 for `"H"`, 288 for `"5min"`, 8
   * for business hours `"BH"`); null for D and longer, and for custom
   * business hours (`"CBH"`, whose opening hours the alias does not carry).
   */
  readonly stepsPerDay: number | null;
  /**
   * The seasons (in steps) the frequency implies, shortest first: sub-daily,
   * a day and a week of steps (a season of one step is dropped: `"12h"` has
   * [2, 14], `"H"` [24, 168]); D [7]; W [52]; M [12]; Q [4]; Y none;
   * business days (`B`, `C`) a business week [5]; business hours (`BH`, 09:00
   * to 17:00) a day and a week of open hours [8, 40]; custom business hours
   * (`CBH`) none.
   */
  readonly seasons: readonly number[];
}

const SECONDS_PER_DAY = 86_400;

/** Seconds of one sub-daily unit, by its pandas spelling. */
const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, S: 1, min: 60, T: 60, h: 3600, H: 3600 };
const SUB_DAILY = /^([0-9]+)?(s|S|min|T|h|H)$/;
/** A number before a sub-daily unit that is not a positive integer (`-5min`, `1.5h`, `0s`), for the refusal's reason. */
const NUMBER_THEN_UNIT = /^([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?)(s|S|min|T|h|H)$/;

/** An info shared by every caller, so frozen. */
function frozen(info: FreqInfo): FreqInfo {
  Object.freeze(info.seasons);
  return Object.freeze(info);
}

/** The info of each calendar class (D and longer) of the frequencies table. */
const CALENDAR_INFO: Readonly<Record<Exclude<ModelFreq, "H">, FreqInfo>> = Object.fromEntries(
  MODEL_FREQS.filter((f) => f !== "H").map((f) => {
    const { stepSeconds, seasons } = FREQUENCIES[f];
    return [f, frozen({ name: f, modelFreq: f, stepSeconds, stepsPerDay: null, seasons: [...seasons] })];
  }),
) as Record<Exclude<ModelFreq, "H">, FreqInfo>;

/** Every calendar alias of the frequencies table (each base, and each base with each of its anchors) → its class's info. */
function buildCalendarAliases(): ReadonlyMap<string, FreqInfo> {
  const m = new Map<string, FreqInfo>();
  for (const [f, info] of Object.entries(CALENDAR_INFO)) {
    const aliases = FREQUENCIES[f as keyof typeof CALENDAR_INFO].aliases;
    if (aliases === null) continue;
    const anchors: readonly string[] = aliases.anchor === null ? [] : FREQ_ANCHORS[aliases.anchor];
    for (const base of aliases.bases) for (const name of [base, ...anchors.map((a) => `${base}-${a}`)]) m.set(name, info);
  }
  return m;
}

const CALENDAR_ALIASES = buildCalendarAliases();

/**
 * The business calendars that step over closed days or hours: business
 * days (`B`; `C`, custom business days, whose holidays the alias does not
 * carry) are daily data with a week of 5 steps; business hours (`BH`,
 * pandas' default 09:00 to 17:00) are hourly steps with a day of 8 and a
 * week of 40; custom business hours (`CBH`) are hourly steps whose day the
 * alias does not say, so they imply no season. (Business months, quarters
 * and years are one step a month, quarter or year: aliases of M, Q and Y.)
 */
const BUSINESS_INFO: ReadonlyMap<string, FreqInfo> = new Map([
  ["B", frozen({ name: "B", modelFreq: "D", stepSeconds: null, stepsPerDay: null, seasons: [5] })],
  ["C", frozen({ name: "C", modelFreq: "D", stepSeconds: null, stepsPerDay: null, seasons: [5] })],
  ["BH", frozen({ name: "BH", modelFreq: "H", stepSeconds: 3600, stepsPerDay: 8, seasons: [8, 40] })],
  ["CBH", frozen({ name: "CBH", modelFreq: "H", stepSeconds: 3600, stepsPerDay: null, seasons: [] })],
]);

/**
 * Whether `name` is one of the business calendars (`B`, `C`, `BH`, `CBH`).
 *
 * @example
 * ```ts
 * [isBusinessFreq("BH"), isBusinessFreq("H")]; // => [true, false]
 * ```
 * @category Series
 */
export function isBusinessFreq(name: string): boolean {
  return BUSINESS_INFO.has(name);
}

/**
 * The business calendars of a frequency class, for the API's accepted list
 * and pattern: `B`, `C` are daily, `BH`, `CBH` sub-daily.
 *
 * @example
 * ```ts
 * businessFreqs("D"); // => ["B", "C"]
 * businessFreqs("H"); // => ["BH", "CBH"]
 * businessFreqs("M"); // => []
 * ```
 * @category Series
 */
export function businessFreqs(modelFreq: ModelFreq): string[] {
  return [...BUSINESS_INFO].filter(([, info]) => info.modelFreq === modelFreq).map(([name]) => name);
}

/** The canonical name of a sub-daily step: one hour is "H", else the largest whole unit. */
function subDailyName(stepSeconds: number): Freq {
  if (stepSeconds === 3600) return "H";
  if (stepSeconds % 3600 === 0) return `${stepSeconds / 3600}h`;
  if (stepSeconds === 60) return "min";
  if (stepSeconds % 60 === 0) return `${stepSeconds / 60}min`;
  return stepSeconds === 1 ? "s" : `${stepSeconds}s`;
}

/**
 * The frequency of a sub-daily step in seconds (one that divides a day
 * evenly; a whole day is `"D"`), or null for any other step.
 *
 * @example
 * ```ts
 * subDailyFreq(300)?.name; // => "5min"
 * subDailyFreq(3600)?.seasons; // => [24, 168]
 * subDailyFreq(420); // => null
 * ```
 * @category Series
 */
export function subDailyFreq(stepSeconds: number): FreqInfo | null {
  if (!Number.isSafeInteger(stepSeconds) || stepSeconds < 1 || SECONDS_PER_DAY % stepSeconds !== 0) return null;
  if (stepSeconds === SECONDS_PER_DAY) return CALENDAR_INFO.D;
  const stepsPerDay = SECONDS_PER_DAY / stepSeconds;
  return frozen({
    name: subDailyName(stepSeconds),
    modelFreq: "H",
    stepSeconds,
    stepsPerDay,
    seasons: [stepsPerDay, 7 * stepsPerDay].filter((s) => s > 1),
  });
}

/**
 * What a frequency alias means, or null when it names no frequency the
 * library knows (see {@link freqRefusal} for why).
 *
 * Accepted, case as in pandas:
 * - sub-daily `<k><unit>`: an optional positive integer k (default 1) and a
 *   unit, seconds `s` (or `S`), minutes `min` (or `T`), hours `h` (or `H`),
 *   whose step k · unit divides a day evenly: `s`, `30s`, `min`, `5min`,
 *   `15T`, `h`, `2h`, `12h` (a step of a whole day, e.g. `24h`, is `D`);
 * - `D`; `W`, `W-MON` … `W-SUN`; `M`, `MS`, `ME`; `Q`, `QS`, `QE`, `Y`,
 *   `YS`, `YE`, `A`, `AS`, each also anchored on a month (`QS-DEC`). The
 *   anchor does not change the model's parameters and is dropped;
 * - business calendars without a multiple: business days `B` and `C`
 *   (class D, a season of 5), business hours `BH` (class H, seasons 8 and
 *   40) and `CBH` (class H, no season: its opening hours are custom), and
 *   business months, quarters and years (`BMS`, `CBME`, `BQS-DEC`,
 *   `BA-DEC`, …), which are M, Q and Y. The steps are counted, not timed:
 *   a closed night or weekend is no gap.
 *
 * Cost: O(length of the alias).
 *
 * @example
 * ```ts
 * parseFreq("15T"); // => { name: "15min", modelFreq: "H", stepSeconds: 900, stepsPerDay: 96, seasons: [96, 672] }
 * parseFreq("h")?.name; // => "H"
 * parseFreq("MS"); // => { name: "M", modelFreq: "M", stepSeconds: null, stepsPerDay: null, seasons: [12] }
 * parseFreq("7min"); // => null
 * parseFreq("BH"); // => { name: "BH", modelFreq: "H", stepSeconds: 3600, stepsPerDay: 8, seasons: [8, 40] }
 * parseFreq("BQS-DEC")?.name; // => "Q"
 * ```
 * @category Series
 */
export function parseFreq(alias: string): FreqInfo | null {
  if (typeof alias !== "string") return null;
  const calendar = CALENDAR_ALIASES.get(alias) ?? BUSINESS_INFO.get(alias);
  if (calendar !== undefined) return calendar;
  const m = SUB_DAILY.exec(alias);
  if (m === null) return null;
  const multiple = m[1] === undefined ? 1 : Number(m[1]);
  return subDailyFreq(multiple * (UNIT_SECONDS[m[2] as string] as number));
}

/**
 * Why `alias` is not a frequency (one sentence), or null when
 * {@link parseFreq} accepts it. A business calendar with a multiple (`2BH`,
 * `3B`) is named and refused.
 *
 * @example
 * ```ts
 * freqRefusal("7min"); // => "'7min' is a step of 420 s, which does not divide a day (86400 s) evenly"
 * freqRefusal("1.5h"); // => "'1.5h': the multiple of a sub-daily unit must be a positive integer, not 1.5"
 * freqRefusal("2BH"); // => "'2BH' is business hours with a multiple, which is not supported: a business calendar is one step at a time (B, C, BH, CBH, BMS, BQS-DEC, …)"
 * freqRefusal("5min"); // => null
 * ```
 * @category Series
 */
export function freqRefusal(alias: string): string | null {
  if (typeof alias !== "string") return "a frequency is a string";
  if (parseFreq(alias) !== null) return null;
  if (alias === "") return "an empty string is not a frequency";
  const m = SUB_DAILY.exec(alias);
  if (m !== null) {
    const multiple = m[1] === undefined ? 1 : Number(m[1]);
    if (multiple === 0) return `'${alias}': the multiple of a sub-daily unit must be a positive integer, not 0`;
    const step = multiple * (UNIT_SECONDS[m[2] as string] as number);
    return `'${alias}' is a step of ${step} s, which does not divide a day (${SECONDS_PER_DAY} s) evenly`;
  }
  const n = NUMBER_THEN_UNIT.exec(alias);
  if (n !== null) return `'${alias}': the multiple of a sub-daily unit must be a positive integer, not ${n[1]}`;
  const business = BUSINESS_CALENDAR.exec(alias);
  const calendar = business === null || business[1] === "" ? undefined : BUSINESS_CALENDARS[business[2] as string];
  if (calendar !== undefined) {
    return `'${alias}' is ${calendar} with a multiple, which is not supported: a business calendar is one step at a time (B, C, BH, CBH, BMS, BQS-DEC, …)`;
  }
  return `'${alias}' is not a frequency alias`;
}

/** A pandas business-calendar alias: an optional multiple, the calendar, an optional anchor (`2BH`, `CBMS`, `BQS-DEC`). */
const BUSINESS_CALENDAR = /^([0-9]*)([A-Z]+)(-[A-Z]{3})?$/;

/** What each pandas business-calendar alias is, for the refusal of one with a multiple. */
const BUSINESS_CALENDARS: Readonly<Record<string, string>> = Object.freeze({
  B: "business days",
  C: "custom business days",
  BH: "business hours",
  CBH: "custom business hours",
  BM: "business month ends",
  BME: "business month ends",
  BMS: "business month starts",
  CBM: "custom business month ends",
  CBME: "custom business month ends",
  CBMS: "custom business month starts",
  BQ: "business quarter ends",
  BQE: "business quarter ends",
  BQS: "business quarter starts",
  BA: "business year ends",
  BY: "business year ends",
  BYE: "business year ends",
  BAS: "business year starts",
  BYS: "business year starts",
});

/**
 * The seasons of a frequency a history of `n` points can use: those it holds
 * at least two full cycles of (n ≥ 2 · season), shortest first. Hourly data
 * use the week once they hold two of them.
 *
 * @example
 * ```ts
 * usableSeasons(parseFreq("H")!, 200); // => [24]
 * usableSeasons(parseFreq("H")!, 336); // => [24, 168]
 * usableSeasons(parseFreq("5min")!, 500); // => []
 * ```
 * @category Series
 */
export function usableSeasons(info: FreqInfo, n: number): number[] {
  return info.seasons.filter((season) => n >= 2 * season);
}

/**
 * A step of `seconds` in words, for messages: `"30 seconds"`, `"1 minute"`,
 * `"5 minutes"`, `"2 hours"` (the largest whole unit).
 *
 * @example
 * ```ts
 * stepInWords(300); // => "5 minutes"
 * stepInWords(3600); // => "1 hour"
 * stepInWords(90); // => "90 seconds"
 * ```
 * @category Series
 */
export function stepInWords(seconds: number): string {
  const [count, unit] = seconds % 3600 === 0 ? [seconds / 3600, "hour"] : seconds % 60 === 0 ? [seconds / 60, "minute"] : [seconds, "second"];
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}
