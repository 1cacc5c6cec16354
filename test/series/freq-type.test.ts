/**
 * The `Freq` type and the run time accept the same aliases. Calendar aliases
 * are a finite set: the list below (written out once as bases × anchors, 226 aliases) is
 * checked both ways at compile time (every entry is a `Freq`, and
 * `CalendarFreq` holds nothing else) and at run time (parseFreq accepts
 * exactly these among every base × anchor a pandas user might write).
 * Sub-daily aliases: every step parseFreq accepts is a `SubDailyFreq`
 * (`<k><unit>`); the type cannot tell a step that divides a day from one that
 * does not (`7min` compiles and is refused at run time, with the reason).
 */
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import { freqRefusal, parseFreq } from "../../src/series/freq.js";
import type { BusinessFreq, CalendarFreq, Freq, SubDailyFreq } from "../../src/types.js";

// Written here, independently of src/types.ts: the aliases without an anchor, and the bases each month may anchor.
const UNANCHORED = ["D", "W", "M", "MS", "ME", "BM", "BMS", "BME", "CBM", "CBMS", "CBME"] as const;
const WEEKDAYS = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"] as const;
const MONTH_ANCHORED = ["Q", "QS", "QE", "BQ", "BQS", "BQE", "Y", "YS", "YE", "A", "AS", "BA", "BAS", "BY", "BYS", "BYE"] as const;
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] as const;
type Listed =
  | (typeof UNANCHORED)[number]
  | `W-${(typeof WEEKDAYS)[number]}`
  | (typeof MONTH_ANCHORED)[number]
  | `${(typeof MONTH_ANCHORED)[number]}-${(typeof MONTHS)[number]}`;
const CALENDAR: readonly Listed[] = [
  ...UNANCHORED,
  ...WEEKDAYS.map((d) => `W-${d}` as const),
  ...MONTH_ANCHORED.flatMap((b) => [b, ...MONTHS.map((m) => `${b}-${m}` as const)]),
] satisfies readonly Freq[];

const BUSINESS = ["B", "C", "BH", "CBH"] as const satisfies readonly Freq[];

describe("Freq and parseFreq accept the same aliases", () => {
  it("CalendarFreq is exactly the written-out list (compile time)", () => {
    expectTypeOf<Listed>().toEqualTypeOf<CalendarFreq>();
    expect(new Set(CALENDAR).size).toBe(CALENDAR.length);
    expect(CALENDAR.length).toBe(226);
  });

  it("BusinessFreq is exactly the four business calendars, each its own canonical name", () => {
    expectTypeOf<(typeof BUSINESS)[number]>().toEqualTypeOf<BusinessFreq>();
    for (const alias of BUSINESS) expect(parseFreq(alias)?.name).toBe(alias);
  });

  it("parseFreq accepts exactly the listed calendar aliases among every base × anchor", () => {
    const bases = ["D", "B", "C", "W", "M", "MS", "ME", "SM", "SMS", "BM", "BMS", "BME", "CBM", "CBMS", "CBME", "Q", "QS", "QE", "BQ", "BQS", "BQE", "Y", "YS", "YE", "A", "AS", "BA", "BAS", "BY", "BYS", "BYE", "BH", "CBH", "d", "w", "m", "q", "y", "ms", "qs", "ys"];
    const anchors = ["", ...["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN", "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC", "XYZ"].map((a) => `-${a}`)];
    const accepted = bases.flatMap((b) => anchors.map((a) => b + a)).filter((alias) => parseFreq(alias) !== null);
    expect(accepted.sort()).toEqual([...CALENDAR, ...BUSINESS].sort());
  });

  it("every sub-daily step parseFreq accepts is a SubDailyFreq, and the names it gives are Freqs", () => {
    const units = ["s", "S", "min", "T", "h", "H"] as const;
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }), fc.constantFrom(...units), (k, unit) => {
        const alias = `${k ?? ""}${unit}` as const;
        const typed: SubDailyFreq = alias; // compiles for every k and unit
        const info = parseFreq(typed);
        // accepted iff the step divides a day; otherwise the refusal says why
        const step = (k ?? 1) * { s: 1, S: 1, min: 60, T: 60, h: 3600, H: 3600 }[unit];
        expect(info !== null).toBe(86_400 % step === 0);
        if (info === null) expect(freqRefusal(typed)).toMatch(/does not divide a day/);
        else expectTypeOf(info.name).toEqualTypeOf<Freq>();
      }),
    );
  });
});
