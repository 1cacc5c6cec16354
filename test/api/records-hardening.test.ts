/**
 * The records API against hostile input (issue 27): rows that are not
 * objects, an h that is not finite or is past the limits (refused before any
 * timestamp is made), and future rows matched in one pass.
 */
import { describe, expect, it, vi } from "vitest";
import * as legacy from "../../src/api/legacy.js";
import { detectAnomaliesRecords, forecastRecords, historicForecastRecords, type FutureRecordRow, type RecordRow } from "../../src/api/index.js";
import { validationDetail } from "./helpers.js";

// the real prepareLegacySeries, watched: it is what makes a series' future timestamps
vi.mock("../../src/api/legacy.js", async (importOriginal) => {
  const real = await importOriginal<typeof legacy>();
  return {
    ...real,
    prepareLegacySeries: vi.fn((rows: Parameters<typeof real.prepareLegacySeries>[0], h: number, options?: Parameters<typeof real.prepareLegacySeries>[2]) => {
      // on the unfixed code h: Infinity made dates for ever: fail at once instead
      if (!Number.isFinite(h)) throw new Error(`prepareLegacySeries called with h = ${h}`);
      return real.prepareLegacySeries(rows, h, options);
    }),
  };
});
const datesMade = vi.mocked(legacy.prepareLegacySeries);

const hour = (t: number): string => new Date(Date.UTC(2024, 0, 1) + t * 3_600_000).toISOString().slice(0, 19).replace("T", " ");
const hourly = (id: string, n: number, extra: (t: number) => Record<string, number> = () => ({})): RecordRow[] =>
  Array.from({ length: n }, (_, t) => ({ unique_id: id, ds: hour(t), y: 10 + (t % 24) / 4 + (t % 7), ...extra(t) }));

describe("rows that are not objects", () => {
  it.each([
    ["null", null],
    ["a number", 3],
    ["a string", "a,2024-01-01,3"],
    ["an array", ["a", "2024-01-01", 3]],
    ["undefined", undefined],
  ])("%s as the first row, or among good rows, is a ValidationError naming the row", (what, bad) => {
    for (const run of [forecastRecords, detectAnomaliesRecords, historicForecastRecords] as const) {
      const options = run === detectAnomaliesRecords ? { h: 2, detection_size: 2 } : { h: 2 };
      const alone = validationDetail(() => (run as typeof forecastRecords)([bad] as unknown as RecordRow[], options));
      expect(alone.map((d) => d.loc)).toEqual([["rows", 0]]);
      expect(alone[0]!.msg).toContain(`rows[0] must be an object {unique_id, ds, y}, got ${what}`);
      const rows = [...hourly("a", 30), bad, ...hourly("b", 30)] as unknown as RecordRow[];
      expect(validationDetail(() => (run as typeof forecastRecords)(rows, options)).map((d) => d.loc)).toEqual([["rows", 30]]);
    }
  });

  it("future rows that are not objects, or not a list, name the future row", () => {
    const rows = hourly("a", 48, (t) => ({ price: t % 3 }));
    const good: FutureRecordRow[] = [0, 1].map((k) => ({ unique_id: "a", ds: hour(48 + k), price: k }));
    expect(forecastRecords(rows, { h: 2, futureRows: good }).rows).toHaveLength(2);
    expect(validationDetail(() => forecastRecords(rows, { h: 2, futureRows: [good[0]!, null] as unknown as FutureRecordRow[] })).map((d) => d.loc)).toEqual([["futureRows", 1]]);
    expect(validationDetail(() => forecastRecords(rows, { h: 2, futureRows: { a: 1 } as unknown as FutureRecordRow[] })).map((d) => d.loc)).toEqual([["futureRows"]]);
  });

  it("a million bad rows give a bounded list of items", () => {
    const detail = validationDetail(() => forecastRecords(new Array(1_000_000).fill(null) as unknown as RecordRow[], { h: 1 }));
    expect(detail.length).toBeGreaterThan(0);
    expect(detail.length).toBeLessThanOrEqual(1001);
  });
});

describe("h of the records API is checked before any timestamp is made", () => {
  const rows = hourly("a", 40);

  it.each([
    [Infinity, "h must be an integer ≥ 1"],
    [Number.NaN, "h must be an integer ≥ 1"],
    [-Infinity, "h must be an integer ≥ 1"],
    [0, "h must be an integer ≥ 1"],
    [2.5, "h must be an integer ≥ 1"],
    [1e6, "h = 1000000 is more than limits.maxHorizon = 10000"],
    [10_001, "h = 10001 is more than limits.maxHorizon = 10000"],
  ])("h = %s with 40 rows: a 422 at h (%s)", (h, msg) => {
    datesMade.mockClear();
    const detail = validationDetail(() => forecastRecords(rows, { h }));
    expect(detail.map((d) => d.loc)).toEqual([["h"]]);
    expect(detail[0]!.msg).toContain(msg);
    expect(datesMade).not.toHaveBeenCalled();
  });

  it("series × h × (mean and two bounds per level) past limits.maxValues is a 422 at h before dates; the limits given are used", () => {
    const three = [...hourly("a", 40), ...hourly("b", 40), ...hourly("c", 40)];
    datesMade.mockClear();
    const limits = { maxValues: 100 };
    // 3 series × h 12 × (1 + 2 × 1 level) = 108 numbers > 100
    const detail = validationDetail(() => forecastRecords(three, { h: 12, level: [80] }, { limits }));
    expect(detail.map((d) => d.loc)).toEqual([["h"]]);
    expect(detail[0]!.msg).toContain("the response would hold 108 numbers (3 series × h 12 × 3), more than limits.maxValues = 100");
    expect(datesMade).not.toHaveBeenCalled();
    // h 11: 99 numbers, admitted (y sends 120 numbers: lift that limit's other use)
    expect(forecastRecords(three, { h: 11, level: [80] }, { limits: { maxValues: 120 } }).rows).toHaveLength(33);
    // the largest h the default limits admit still forecasts
    expect(forecastRecords(rows, { h: 10_000 }).rows).toHaveLength(10_000);
  });
});

describe("future rows are matched in one pass", () => {
  it("each future row is read a bounded number of times, whatever the number of series", () => {
    const SERIES = 300;
    const H = 4;
    const rows: RecordRow[] = [];
    for (let i = 0; i < SERIES; i++) rows.push(...hourly(`s${i}`, 30, (t) => ({ price: (t + i) % 5 })));
    const future: FutureRecordRow[] = [];
    for (let i = SERIES - 1; i >= 0; i--) for (let k = 0; k < H; k++) future.push({ unique_id: `s${i}`, ds: hour(30 + k), price: (30 + k + i) % 5 });
    let reads = 0;
    const counted = future.map((f) => new Proxy(f, { get: (target, key, receiver) => ((reads += key === "unique_id" ? 1 : 0), Reflect.get(target, key, receiver)) }));
    const out = forecastRecords(rows, { h: H, futureRows: counted });
    expect(out.rows).toHaveLength(SERIES * H);
    // a search per future timestamp reads unique_id about SERIES × H × SERIES × H / 2 = 720,000 times
    expect(reads).toBeLessThanOrEqual(2 * future.length);
  });

  it("matches by series and time in any order; the first of duplicates wins; Dates match Dates at the same instant", () => {
    const rows = hourly("a", 48, (t) => ({ price: t % 3 }));
    const ordered = forecastRecords(rows, { h: 2, futureRows: [0, 1].map((k) => ({ unique_id: "a", ds: hour(48 + k), price: k })) });
    const shuffled = forecastRecords(rows, {
      h: 2,
      futureRows: [
        { unique_id: "b", ds: hour(48), price: 9 },
        { unique_id: "a", ds: hour(49), price: 1 },
        { unique_id: "a", ds: hour(48), price: 0 },
        { unique_id: "a", ds: hour(48), price: 7 },
      ],
    });
    expect(shuffled.rows).toEqual(ordered.rows);
    const dated: RecordRow[] = rows.map((r, t) => ({ ...r, ds: new Date(Date.UTC(2024, 0, 1) + t * 3_600_000) }));
    const viaDates = forecastRecords(dated, { h: 2, futureRows: [1, 0].map((k) => ({ unique_id: "a", ds: new Date(Date.UTC(2024, 0, 1) + (48 + k) * 3_600_000), price: k })) });
    expect(viaDates.rows.map((r) => r.mean)).toEqual(ordered.rows.map((r) => r.mean));
    // a numeric id matches its text, as before
    const numeric = forecastRecords(rows.map((r) => ({ ...r, unique_id: 7 })), { h: 1, futureRows: [{ unique_id: "7", ds: hour(48), price: 0 }] });
    expect(numeric.rows).toHaveLength(1);
    expect(validationDetail(() => forecastRecords(rows, { h: 2, futureRows: [{ unique_id: "a", ds: hour(48), price: 0 }] }))[0]!.msg).toContain(`no future row for unique_id a at ${hour(49)}`);
  });
});
