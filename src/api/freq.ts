/**
 * Frequencies as the API reads and names them: pandas offset aliases as
 * dataframe SDKs send them (`MS`, `h`, `W-SUN`, `QS-DEC`, `YS`, and sub-daily
 * multiples `5min`, `15T`, `30s`, `2h`), which of them each level accepts
 * (the HTTP API all but the quarterly and yearly ones), and the words of the
 * 422 that refuses one. What an alias means is `parseFreq` (src/series/freq.ts).
 * @module
 */
import { businessFreqs, freqRefusal, parseFreq } from "../series/freq.js";
import { FREQ_ANCHORS, FREQUENCIES, MODEL_FREQS } from "../series/frequencies.js";
import type { Freq, ModelFreq } from "../types.js";

/**
 * The model frequency letter of an alias of exactly one of the six classes'
 * periods, or `null` otherwise. Accepted: the letters (`H`, `D`, `W`, `M`,
 * `Q`, `Y`) and the pandas aliases of the same periods: `h`; `W-MON` …
 * `W-SUN`; `MS`, `ME`; `QS`, `QE` and `Q`/`QS`/`QE` anchored on any month
 * (`QS-DEC`); `YS`, `YE`, `A`, `AS` and the same anchored on any month. The
 * anchor (which weekday or month a period starts or ends on) does not change
 * the model's parameters, so it is dropped. Case matters as in pandas (`h`
 * and `H` are hours, `min` minutes and `m` is not a month). Other sub-daily
 * steps (`min`, `5min`, `2h`) are frequencies too but no letter: read them
 * with `parseFreq` or {@link readFreq}.
 *
 * @example
 * ```ts
 * freqFromAlias("MS"); // => "M"
 * freqFromAlias("W-SUN"); // => "W"
 * freqFromAlias("QS-DEC"); // => "Q"
 * freqFromAlias("min"); // => null
 * ```
 * @category API rules
 */
export function freqFromAlias(alias: string): ModelFreq | null {
  const info = parseFreq(alias);
  return info !== null && info.name === info.modelFreq ? info.modelFreq : null;
}

/**
 * The canonical name of a frequency alias whose class is one of `freqs`
 * (`parseFreq(alias).name`; every sub-daily step is of class `H`), or null.
 *
 * @example
 * ```ts
 * readFreq("15T", ["D", "M", "H", "W"]); // => "15min"
 * readFreq("QS-DEC", ["D", "M", "H", "W"]); // => null
 * readFreq("QS-DEC", ["D", "M", "H", "W", "Q", "Y"]); // => "Q"
 * ```
 * @category API rules
 */
export function readFreq(alias: string, freqs: readonly string[]): Freq | null {
  const info = parseFreq(alias);
  return info !== null && freqs.includes(info.modelFreq) ? info.name : null;
}

/**
 * A short list of accepted aliases of the given frequencies, shortest
 * period first, for error messages: `H (or h)`, `W (or W-SUN, …)` and so on.
 * (The sub-daily multiples are added by {@link acceptedFreqText}.)
 *
 * @example
 * ```ts
 * acceptedFreqAliases(["M", "H"]); // => "H (or h), M (or MS, ME)"
 * ```
 * @category API rules
 */
export function acceptedFreqAliases(freqs: readonly ModelFreq[]): string {
  return MODEL_FREQS.filter((f) => freqs.includes(f)).map((f) => FREQUENCIES[f].shown).join(", ");
}

/**
 * Everything accepted among the classes `freqs`, for a 422: the aliases of
 * {@link acceptedFreqAliases} and, with `H`, the sub-daily multiples.
 *
 * @example
 * ```ts
 * acceptedFreqText(["D", "M"]); // => "D, M (or MS, ME); business calendars B, C, BMS, CBME, …"
 * acceptedFreqText(["H"]).startsWith("H (or h), and sub-daily steps <k>s (or <k>S), <k>min (or <k>T)"); // => true
 * ```
 * @category API rules
 */
export function acceptedFreqText(freqs: readonly ModelFreq[]): string {
  const calendar = acceptedFreqAliases(freqs);
  const business = businessText(freqs);
  if (!freqs.includes("H")) return `${calendar}${business}`;
  return `${calendar}, and sub-daily steps <k>s (or <k>S), <k>min (or <k>T), <k>h (or <k>H), k ≥ 1, that divide a day evenly (s, 30s, min, 5min, 15min, 30min, 2h, 6h, 12h, …)${business}`;
}

/** The business calendars among the classes `freqs`, as a clause of {@link acceptedFreqText}: `; business calendars B, C, BH, CBH, BMS, …`. */
function businessText(freqs: readonly ModelFreq[]): string {
  const steps = MODEL_FREQS.filter((f) => freqs.includes(f)).flatMap(businessFreqs);
  const calendars = [...steps, ...(freqs.includes("M") ? ["BMS", "CBME"] : []), ...(freqs.includes("Q") ? ["BQS-DEC"] : []), ...(freqs.includes("Y") ? ["BA-DEC"] : [])];
  return calendars.length === 0 ? "" : `; business calendars ${calendars.join(", ")}, …`;
}

/**
 * Why `value` is not a frequency accepted among the classes `freqs`, one
 * clause (see `freqRefusal`; a known alias of another class says so).
 *
 * @example
 * ```ts
 * freqRefusalAmong("YS", ["D", "M", "H", "W"]); // => "'YS' is yearly, which only the core functions accept"
 * freqRefusalAmong("5x", ["D", "M", "H", "W"]); // => "'5x' is not a frequency alias"
 * ```
 * @category API rules
 */
export function freqRefusalAmong(value: unknown, freqs: readonly string[]): string {
  if (typeof value !== "string") return "a frequency is a string";
  const info = parseFreq(value);
  if (info === null) return freqRefusal(value) ?? `'${value}' is not a frequency alias`;
  if (freqs.includes(info.modelFreq)) return `'${value}' is accepted`;
  return `'${value}' is ${FREQUENCIES[info.modelFreq].words}, which only the core functions accept`;
}

/**
 * A regular expression every accepted alias of the classes `freqs` matches
 * (for the OpenAPI document; it also matches sub-daily multiples whose step
 * does not divide a day, which validation refuses).
 *
 * @example
 * ```ts
 * new RegExp(freqPattern(["H", "D"])).test("15min"); // => true
 * new RegExp(freqPattern(["H", "D"])).test("MS"); // => false
 * new RegExp(freqPattern(["H", "D"])).test("CBH"); // => true
 * ```
 * @category API rules
 */
export function freqPattern(freqs: readonly ModelFreq[]): string {
  return `^(?:${MODEL_FREQS.filter((f) => freqs.includes(f)).map(aliasPattern).join("|")})$`;
}

/** The pattern of one class's aliases: its bases, each optionally anchored; any `<k>` and sub-daily unit for `H`. */
function aliasPattern(freq: ModelFreq): string {
  const aliases = FREQUENCIES[freq].aliases;
  const business = businessFreqs(freq);
  if (aliases === null) return ["[0-9]*(?:s|S|min|T|h|H)", ...business].join("|");
  if (aliases.anchor === null) return [...aliases.bases, ...business].join("|");
  const bases = aliases.bases.length === 1 ? (aliases.bases[0] as string) : `(?:${aliases.bases.join("|")})`;
  return `${bases}(?:-(?:${FREQ_ANCHORS[aliases.anchor].join("|")}))?`;
}
