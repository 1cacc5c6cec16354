/**
 * Frequencies as pandas aliases (issue 26, item 1): every sub-daily alias
 * with a multiple reads to its step and seasons, the calendar aliases keep
 * their meaning, canonical names read back to themselves, and anything else
 * is refused with a reason.
 */
import fc from "fast-check";
import { test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { freqRefusal, parseFreq, stepInWords, subDailyFreq, usableSeasons } from "../../src/series/freq.js";

describe("parseFreq: sub-daily aliases with multiples", () => {
  // [alias, canonical name, step in seconds, steps per day, seasons]
  it.each([
    ["s", "s", 1, 86400, [86400, 604800]],
    ["S", "s", 1, 86400, [86400, 604800]],
    ["30s", "30s", 30, 2880, [2880, 20160]],
    ["min", "min", 60, 1440, [1440, 10080]],
    ["T", "min", 60, 1440, [1440, 10080]],
    ["1min", "min", 60, 1440, [1440, 10080]],
    ["5min", "5min", 300, 288, [288, 2016]],
    ["5T", "5min", 300, 288, [288, 2016]],
    ["10min", "10min", 600, 144, [144, 1008]],
    ["15min", "15min", 900, 96, [96, 672]],
    ["15T", "15min", 900, 96, [96, 672]],
    ["30min", "30min", 1800, 48, [48, 336]],
    ["90min", "90min", 5400, 16, [16, 112]],
    ["h", "H", 3600, 24, [24, 168]],
    ["H", "H", 3600, 24, [24, 168]],
    ["60min", "H", 3600, 24, [24, 168]],
    ["3600s", "H", 3600, 24, [24, 168]],
    ["2h", "2h", 7200, 12, [12, 84]],
    ["2H", "2h", 7200, 12, [12, 84]],
    ["120min", "2h", 7200, 12, [12, 84]],
    ["3h", "3h", 10800, 8, [8, 56]],
    ["6h", "6h", 21600, 4, [4, 28]],
    ["12h", "12h", 43200, 2, [2, 14]],
  ] as const)("%s: %s, a step of %d s, %d per day, seasons %j", (alias, name, step, perDay, seasons) => {
    expect(parseFreq(alias)).toEqual({ name, modelFreq: "H", stepSeconds: step, stepsPerDay: perDay, seasons });
  });

  it("a step of a whole day is daily", () => {
    for (const alias of ["24h", "1440min", "86400s"]) expect(parseFreq(alias)?.name).toBe("D");
  });
});

describe("parseFreq: the calendar aliases accepted before", () => {
  it.each([
    ["D", "D", 86400, [7]],
    ["W", "W", 604800, [52]],
    ["W-SUN", "W", 604800, [52]],
    ["W-MON", "W", 604800, [52]],
    ["M", "M", null, [12]],
    ["MS", "M", null, [12]],
    ["ME", "M", null, [12]],
    ["Q", "Q", null, [4]],
    ["QS", "Q", null, [4]],
    ["QS-DEC", "Q", null, [4]],
    ["QE-MAR", "Q", null, [4]],
    ["Y", "Y", null, []],
    ["YS", "Y", null, []],
    ["YE", "Y", null, []],
    ["A", "Y", null, []],
    ["AS-JAN", "Y", null, []],
    ["A-DEC", "Y", null, []],
  ] as const)("%s is %s", (alias, name, step, seasons) => {
    expect(parseFreq(alias)).toEqual({ name, modelFreq: name, stepSeconds: step, stepsPerDay: null, seasons });
  });
});

describe("refused aliases", () => {
  it.each([
    ["7min", "does not divide a day"],
    ["13s", "does not divide a day"],
    ["25h", "does not divide a day"],
    ["48h", "does not divide a day"],
    ["0min", "positive integer, not 0"],
    ["0s", "positive integer, not 0"],
    ["-5min", "positive integer, not -5"],
    ["1.5h", "positive integer, not 1.5"],
    ["m", "not a frequency alias"],
    ["5x", "not a frequency alias"],
    ["ms", "not a frequency alias"],
    ["Min", "not a frequency alias"],
    ["5 min", "not a frequency alias"],
    ["2D", "not a frequency alias"],
    ["W-XYZ", "not a frequency alias"],
    ["MS ", "not a frequency alias"],
    ["", "empty string"],
  ])("%j: %s", (alias, reason) => {
    expect(parseFreq(alias)).toBeNull();
    expect(freqRefusal(alias)).toContain(reason);
  });

  it("a non-string is refused, never thrown on", () => {
    expect(parseFreq(5 as unknown as string)).toBeNull();
    expect(freqRefusal(null as unknown as string)).toBe("a frequency is a string");
  });

  test.prop([fc.string({ maxLength: 10 })])("freqRefusal speaks exactly when parseFreq refuses", (s) => {
    expect(freqRefusal(s) === null).toBe(parseFreq(s) !== null);
  });
});

describe("invariants", () => {
  const units = fc.constantFrom(["s", 1], ["S", 1], ["min", 60], ["T", 60], ["h", 3600], ["H", 3600]);

  test.prop([fc.integer({ min: 1, max: 100_000 }), units])("k·unit is accepted iff its step divides a day; then step, steps per day and seasons follow from it", (k, [unit, seconds]) => {
    const step = k * (seconds as number);
    const info = parseFreq(`${k}${unit as string}`);
    expect(info !== null).toBe(86400 % step === 0);
    if (info === null || step === 86400) return;
    expect(info.stepSeconds).toBe(step);
    expect(info.stepsPerDay).toBe(86400 / step);
    expect(info.modelFreq).toBe("H");
    expect(info.seasons).toEqual([86400 / step, 604800 / step].filter((s) => s > 1));
  });

  test.prop([fc.integer({ min: 1, max: 86400 }).filter((s) => 86400 % s === 0)])("round trip: the canonical name of a step reads back to the same frequency", (step) => {
    const info = subDailyFreq(step)!;
    expect(parseFreq(info.name)).toEqual(info);
    expect(parseFreq(info.name)?.name).toBe(info.name);
  });

  it("round trip for every calendar alias", () => {
    for (const alias of ["D", "W", "W-FRI", "M", "MS", "ME", "Q", "QS-JUN", "QE", "Y", "YS", "YE-DEC", "A", "AS"]) {
      const info = parseFreq(alias)!;
      expect(parseFreq(info.name)).toEqual(info);
    }
  });

  it("infos are frozen: a caller cannot change what the next one reads", () => {
    const info = parseFreq("D")!;
    expect(Object.isFrozen(info) && Object.isFrozen(info.seasons)).toBe(true);
    expect(Object.isFrozen(parseFreq("5min")!.seasons)).toBe(true);
  });
});

describe("usableSeasons", () => {
  it("a season is usable once the history holds two full cycles of it", () => {
    const hourly = parseFreq("H")!;
    expect(usableSeasons(hourly, 47)).toEqual([]);
    expect(usableSeasons(hourly, 48)).toEqual([24]);
    expect(usableSeasons(hourly, 335)).toEqual([24]);
    expect(usableSeasons(hourly, 336)).toEqual([24, 168]);
    expect(usableSeasons(parseFreq("5min")!, 575)).toEqual([]);
    expect(usableSeasons(parseFreq("5min")!, 576)).toEqual([288]);
    expect(usableSeasons(parseFreq("Y")!, 1000)).toEqual([]);
    expect(usableSeasons(parseFreq("M")!, 0)).toEqual([]);
  });

  test.prop([fc.constantFrom("s", "30s", "5min", "15min", "H", "2h", "12h", "D", "W", "M", "Q", "Y"), fc.integer({ min: 0, max: 2_000_000 })])(
    "the usable seasons are the seasons s with 2s ≤ n, in order",
    (alias, n) => {
      const info = parseFreq(alias)!;
      expect(usableSeasons(info, n)).toEqual(info.seasons.filter((s) => 2 * s <= n));
    },
  );
});

describe("stepInWords", () => {
  it("writes the largest whole unit", () => {
    expect([1, 30, 60, 300, 5400, 3600, 7200].map(stepInWords)).toEqual(["1 second", "30 seconds", "1 minute", "5 minutes", "90 minutes", "1 hour", "2 hours"]);
  });
});
