/**
 * Typed results: under `strict` and `noUncheckedIndexedAccess`, the rows of
 * the records API and the JSON results read `row.mean`, `row["lo-95"]`,
 * `row.ds` and `intervals["lo-80"]` without casts, with the types the values
 * have at run time. The type assertions (`expectTypeOf`, `@ts-expect-error`)
 * are checked by `tsc -p tsconfig.json` (part of `npm test`): with the old
 * types (`Record<string, unknown>` rows, `ds: string | Date`, intervals
 * `Record<string, number[]>`) every one of them fails to compile. The
 * run-time assertions check that the values match the types.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  detectAnomaliesOnline,
  detectAnomaliesRecords,
  forecast,
  forecastRecords,
  historicForecast,
  historicForecastRecords,
  type ForecastRequest,
  type RecordRow,
} from "../../src/api/index.js";
import type { LevelArrays } from "../../src/types.js";

const monthly = (t: number): string => `${2018 + Math.floor(t / 12)}-${String((t % 12) + 1).padStart(2, "0")}-01`;
const stringRows = Array.from({ length: 48 }, (_, t) => ({ unique_id: "shop", ds: monthly(t), y: 100 + 10 * Math.sin((2 * Math.PI * t) / 12) }));
const dateRows = stringRows.map((r, t) => ({ unique_id: 7, ds: new Date(Date.UTC(2018, t, 1)), y: r.y }));

describe("records results are typed by the call", () => {
  it("forecastRecords: mean a number, level keys from the call's levels, ds a string for string timestamps", () => {
    const out = forecastRecords(stringRows, { h: 3, level: [80, 95] });
    const row = out.rows[0]!;
    expectTypeOf(row.mean).toEqualTypeOf<number>();
    expectTypeOf(row["lo-95"]).toEqualTypeOf<number>();
    expectTypeOf(row["hi-80"]).toEqualTypeOf<number>();
    expectTypeOf(row.ds).toEqualTypeOf<string>();
    expectTypeOf(row.unique_id).toEqualTypeOf<string>();
    // @ts-expect-error: 90 was not asked for
    void row["lo-90"];
    // @ts-expect-error: a misspelt field is an error, not `unknown`
    void row.men;
    // strict arithmetic and string methods without a cast
    const width: number = row["hi-95"] - row["lo-95"];
    expect(width).toBeGreaterThanOrEqual(row["hi-80"] - row["lo-80"]);
    expect(row.ds.slice(0, 7)).toBe("2022-01");
    expect(typeof row.mean).toBe("number");
    for (const r of out.rows) expect(r["lo-95"] <= r.mean && r.mean <= r["hi-95"]).toBe(true);
  });

  it("forecastRecords: Date timestamps give Date rows; no level, no interval keys", () => {
    const out = forecastRecords(dateRows, { h: 2 });
    const row = out.rows[1]!;
    expectTypeOf(row.ds).toEqualTypeOf<Date>();
    expectTypeOf(row.unique_id).toEqualTypeOf<number>();
    // @ts-expect-error: no level, so no bounds
    void row["lo-80"];
    expect(row.ds.toISOString()).toBe("2022-02-01T00:00:00.000Z");
    expect(Object.keys(row)).toEqual(["unique_id", "ds", "mean"]);
  });

  it("rows typed RecordRow<string> (a CSV) or as a caller's interface are accepted; untyped levels give pattern keys", () => {
    interface Sale {
      unique_id: string;
      ds: string;
      y: number;
    }
    const sales: Sale[] = stringRows;
    const levels: number[] = [80];
    const fromInterface = forecastRecords(sales, { h: 1, level: levels });
    // levels known only at run time: any `lo-<number>` key, possibly absent
    expectTypeOf(fromInterface.rows[0]!["lo-80"]).toEqualTypeOf<number | undefined>();
    expect(fromInterface.rows[0]!["lo-80"]).toBeTypeOf("number");
    const csv: RecordRow<string>[] = stringRows;
    expectTypeOf(forecastRecords(csv, { h: 1 }).rows[0]!.ds).toEqualTypeOf<string>();
    const mixed: RecordRow[] = stringRows;
    expectTypeOf(forecastRecords(mixed, { h: 1 }).rows[0]!.ds).toEqualTypeOf<string | Date>();
  });

  it("detectAnomaliesRecords: y, mean, anomaly, scores and the level's bounds (99 by default)", () => {
    const out = detectAnomaliesRecords(dateRows, { h: 6, detection_size: 4 });
    const row = out.rows[0]!;
    expectTypeOf(row.anomaly).toEqualTypeOf<boolean>();
    expectTypeOf(row.anomaly_score).toEqualTypeOf<number>();
    expectTypeOf(row.y).toEqualTypeOf<number>();
    expectTypeOf(row["lo-99"]).toEqualTypeOf<number>();
    expectTypeOf(row.ds).toEqualTypeOf<Date>();
    expect(Object.keys(row)).toContain("lo-99");
    const at90 = detectAnomaliesRecords(stringRows, { h: 6, detection_size: 4, level: 90 });
    expectTypeOf(at90.rows[0]!["hi-90"]).toEqualTypeOf<number>();
    expect(at90.rows[0]!["hi-90"]).toBeGreaterThanOrEqual(at90.rows[0]!["lo-90"]);
    const multi = detectAnomaliesRecords(
      [...stringRows, ...stringRows.map((r) => ({ ...r, unique_id: "other" }))],
      { h: 6, detection_size: 4, threshold_method: "multivariate" },
    );
    // @ts-expect-error: the multivariate threshold has no interval
    void multi.rows[0]!["lo-99"];
    expect(Object.keys(multi.rows[0]!)).not.toContain("lo-99");
  });

  it("historicForecastRecords: y, fitted mean and bounds", () => {
    const long = Array.from({ length: 140 }, (_, t) => ({ unique_id: "a", ds: monthly(t), y: 50 + (t % 12) }));
    const row = historicForecastRecords(long, { level: [90] }).rows[0]!;
    expectTypeOf(row["lo-90"]).toEqualTypeOf<number>();
    expectTypeOf(row.y).toEqualTypeOf<number>();
    expect(row["lo-90"]).toBeLessThanOrEqual(row["hi-90"]);
  });
});

describe("JSON results are typed by the body", () => {
  const y = stringRows.map((r) => r.y);

  it("forecast: intervals keyed by the body's levels, not null when levels are written", () => {
    const fc = forecast({ series: { y, sizes: [48] }, freq: "MS", h: 4, level: [80, 95] });
    expectTypeOf(fc.intervals["lo-80"]).toEqualTypeOf<number[]>();
    const lo: number = fc.intervals["lo-95"][0]!;
    expect(lo).toBeLessThanOrEqual(fc.mean[0]!);
    // a key computed at run time still reads (possibly absent)
    const key: string = "hi-80";
    expectTypeOf(fc.intervals[key]).toEqualTypeOf<number[] | undefined>();
    // a body typed ForecastRequest (levels unknown until run time): intervals may be null
    const body: ForecastRequest = { series: { y, sizes: [48] }, freq: "M", h: 2 };
    expectTypeOf(forecast(body).intervals).toMatchTypeOf<Record<string, number[]> | null>();
    expect(forecast(body).intervals).toBeNull();
    // JSON text: the levels are unknown to the compiler
    expect(forecast(JSON.stringify({ ...body, level: [50] })).intervals?.["lo-50"]).toHaveLength(2);
  });

  it("detectAnomaliesOnline and historicForecast: the level's keys", () => {
    const ad = detectAnomaliesOnline({ series: { y, sizes: [48] }, freq: "M", h: 6, detection_size: 3, level: 95 });
    // null only with the multivariate threshold: the body does not say which, JSON text could
    expectTypeOf(ad.intervals).toEqualTypeOf<LevelArrays<95> | null>();
    expectTypeOf(ad.intervals!["lo-95"]).toEqualTypeOf<number[]>();
    expect(ad.intervals!["lo-95"]).toHaveLength(3);
    const uni = detectAnomaliesOnline({ series: { y, sizes: [48] }, freq: "M", h: 6, detection_size: 3, threshold_method: "univariate", level: 99 });
    expectTypeOf(uni.intervals["hi-99"]).toEqualTypeOf<number[]>();
    expect(uni.intervals["hi-99"]).toHaveLength(3);
    const multi = detectAnomaliesOnline({ series: { y: [...y, ...y], sizes: [48, 48] }, freq: "M", h: 6, detection_size: 3, threshold_method: "multivariate" });
    expectTypeOf(multi.intervals).toEqualTypeOf<null>();
    expect(multi.intervals).toBeNull();
    const long = Array.from({ length: 140 }, (_, t) => 50 + (t % 12));
    const hf = historicForecast({ series: { y: long, sizes: [140] }, freq: "M", level: [80] });
    expectTypeOf(hf.intervals["hi-80"]).toEqualTypeOf<number[]>();
    expect(hf.intervals["hi-80"]).toHaveLength(hf.mean.length);
  });
});
