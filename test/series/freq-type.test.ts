/**
 * The `Freq` type and the run time accept the same aliases. Calendar aliases
 * are a finite set: the list below (written out once, 226 aliases) is
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

const CALENDAR = [
  "D", "W", "W-MON", "W-TUE", "W-WED", "W-THU", "W-FRI", "W-SAT", "W-SUN", "M", "MS", "ME", "Q",
  "Q-JAN", "Q-FEB", "Q-MAR", "Q-APR", "Q-MAY", "Q-JUN", "Q-JUL", "Q-AUG", "Q-SEP", "Q-OCT", "Q-NOV", "Q-DEC", "QS",
  "QS-JAN", "QS-FEB", "QS-MAR", "QS-APR", "QS-MAY", "QS-JUN", "QS-JUL", "QS-AUG", "QS-SEP", "QS-OCT", "QS-NOV", "QS-DEC", "QE",
  "QE-JAN", "QE-FEB", "QE-MAR", "QE-APR", "QE-MAY", "QE-JUN", "QE-JUL", "QE-AUG", "QE-SEP", "QE-OCT", "QE-NOV", "QE-DEC", "Y",
  "Y-JAN", "Y-FEB", "Y-MAR", "Y-APR", "Y-MAY", "Y-JUN", "Y-JUL", "Y-AUG", "Y-SEP", "Y-OCT", "Y-NOV", "Y-DEC", "YS",
  "YS-JAN", "YS-FEB", "YS-MAR", "YS-APR", "YS-MAY", "YS-JUN", "YS-JUL", "YS-AUG", "YS-SEP", "YS-OCT", "YS-NOV", "YS-DEC", "YE",
  "YE-JAN", "YE-FEB", "YE-MAR", "YE-APR", "YE-MAY", "YE-JUN", "YE-JUL", "YE-AUG", "YE-SEP", "YE-OCT", "YE-NOV", "YE-DEC", "A",
  "A-JAN", "A-FEB", "A-MAR", "A-APR", "A-MAY", "A-JUN", "A-JUL", "A-AUG", "A-SEP", "A-OCT", "A-NOV", "A-DEC", "AS",
  "AS-JAN", "AS-FEB", "AS-MAR", "AS-APR", "AS-MAY", "AS-JUN", "AS-JUL", "AS-AUG", "AS-SEP", "AS-OCT", "AS-NOV", "AS-DEC",
  "BM", "BMS", "BME", "CBM", "CBMS", "CBME", "BQ", "BQ-JAN", "BQ-FEB", "BQ-MAR", "BQ-APR", "BQ-MAY", "BQ-JUN",
  "BQ-JUL", "BQ-AUG", "BQ-SEP", "BQ-OCT", "BQ-NOV", "BQ-DEC", "BQS", "BQS-JAN", "BQS-FEB", "BQS-MAR", "BQS-APR", "BQS-MAY", "BQS-JUN",
  "BQS-JUL", "BQS-AUG", "BQS-SEP", "BQS-OCT", "BQS-NOV", "BQS-DEC", "BQE", "BQE-JAN", "BQE-FEB", "BQE-MAR", "BQE-APR", "BQE-MAY", "BQE-JUN",
  "BQE-JUL", "BQE-AUG", "BQE-SEP", "BQE-OCT", "BQE-NOV", "BQE-DEC", "BA", "BA-JAN", "BA-FEB", "BA-MAR", "BA-APR", "BA-MAY", "BA-JUN",
  "BA-JUL", "BA-AUG", "BA-SEP", "BA-OCT", "BA-NOV", "BA-DEC", "BAS", "BAS-JAN", "BAS-FEB", "BAS-MAR", "BAS-APR", "BAS-MAY", "BAS-JUN",
  "BAS-JUL", "BAS-AUG", "BAS-SEP", "BAS-OCT", "BAS-NOV", "BAS-DEC", "BY", "BY-JAN", "BY-FEB", "BY-MAR", "BY-APR", "BY-MAY", "BY-JUN",
  "BY-JUL", "BY-AUG", "BY-SEP", "BY-OCT", "BY-NOV", "BY-DEC", "BYS", "BYS-JAN", "BYS-FEB", "BYS-MAR", "BYS-APR", "BYS-MAY", "BYS-JUN",
  "BYS-JUL", "BYS-AUG", "BYS-SEP", "BYS-OCT", "BYS-NOV", "BYS-DEC", "BYE", "BYE-JAN", "BYE-FEB", "BYE-MAR", "BYE-APR", "BYE-MAY", "BYE-JUN",
  "BYE-JUL", "BYE-AUG", "BYE-SEP", "BYE-OCT", "BYE-NOV", "BYE-DEC",
] as const satisfies readonly Freq[];

const BUSINESS = ["B", "C", "BH", "CBH"] as const satisfies readonly Freq[];

describe("Freq and parseFreq accept the same aliases", () => {
  it("CalendarFreq is exactly the written-out list (compile time)", () => {
    expectTypeOf<(typeof CALENDAR)[number]>().toEqualTypeOf<CalendarFreq>();
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
