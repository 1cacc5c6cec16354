/**
 * Frequency aliases as dataframe SDKs send them (pandas offset aliases such
 * as `MS`, `h`, `W-SUN`, `QS-DEC`, `YS`), mapped to the model's frequencies.
 * @module
 */
import type { Freq } from "../types.js";

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] as const;
const WEEKDAYS = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"] as const;

function buildAliases(): ReadonlyMap<string, Freq> {
  const m = new Map<string, Freq>();
  const add = (freq: Freq, names: readonly string[]): void => {
    for (const n of names) m.set(n, freq);
  };
  add("H", ["H", "h"]);
  add("D", ["D"]);
  add("W", ["W", ...WEEKDAYS.map((d) => `W-${d}`)]);
  add("M", ["M", "MS", "ME"]);
  for (const base of ["Q", "QS", "QE"]) add("Q", [base, ...MONTHS.map((mon) => `${base}-${mon}`)]);
  for (const base of ["Y", "YS", "YE", "A", "AS"]) add("Y", [base, ...MONTHS.map((mon) => `${base}-${mon}`)]);
  return m;
}

const ALIASES = buildAliases();

/**
 * The model frequency of a frequency alias, or `null` when the alias names
 * none of them. Accepted: the model's own letters (`H`, `D`, `W`, `M`, `Q`,
 * `Y`) and the pandas offset aliases of the same periods: `h`; `W-MON` …
 * `W-SUN`; `MS`, `ME`; `QS`, `QE` and `Q`/`QS`/`QE` anchored on any month
 * (`QS-DEC`); `YS`, `YE`, `A`, `AS` and the same anchored on any month. The
 * anchor (which weekday or month a period starts or ends on) does not change
 * the model's parameters, so it is dropped. Case matters as in pandas (`h`
 * and `H` are hours, `min` minutes and `m` is not a month).
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
export function freqFromAlias(alias: string): Freq | null {
  return ALIASES.get(alias) ?? null;
}

/**
 * A short list of accepted aliases of the given frequencies, shortest
 * period first, for error messages: `H (or h)`, `W (or W-SUN, …)` and so on.
 *
 * @example
 * ```ts
 * acceptedFreqAliases(["M", "H"]); // => "H (or h), M (or MS, ME)"
 * ```
 * @category API rules
 */
export function acceptedFreqAliases(freqs: readonly Freq[]): string {
  const shown: Record<Freq, string> = {
    H: "H (or h)",
    D: "D",
    W: "W (or W-SUN, W-MON, …)",
    M: "M (or MS, ME)",
    Q: "Q (or QS, QE, QS-DEC, …)",
    Y: "Y (or YS, YE, A, AS, YS-DEC, …)",
  };
  const order: readonly Freq[] = ["H", "D", "W", "M", "Q", "Y"];
  return order.filter((f) => freqs.includes(f)).map((f) => shown[f]).join(", ");
}
