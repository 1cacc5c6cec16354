/**
 * The records API: CSV text (through csv-parse, a well-kept parser) to rows
 * of {unique_id, ds, y}, to results as rows with future timestamps in the
 * input's format, for monthly, hourly, weekly, quarterly and yearly data.
 */
import { parse } from "csv-parse/sync";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectAnomaliesRecords, finetuneRecords, forecastRecords, historicForecastRecords, type RecordRow } from "../../src/api/index.js";
import { ValidationError } from "../../src/api/errors.js";

function csvRows(text: string): RecordRow[] {
  return parse(text, { columns: true, skip_empty_lines: true, cast: (value, context) => (context.column === "y" || context.column === "price" ? Number(value) : value) }) as RecordRow[];
}

const rData = JSON.parse(readFileSync("bench/data/r-datasets.json", "utf8")) as Record<string, { y: number[] }>;
const air = rData.AirPassengers!.y;
const month = (t: number): string => `${1949 + Math.floor(t / 12)}-${String((t % 12) + 1).padStart(2, "0")}-01`;

describe("records", () => {
  it("a monthly CSV (AirPassengers) forecasts the 12 months of 1961, in the input's date format", () => {
    const csv = ["unique_id,ds,y", ...air.map((v, t) => `AirPassengers,${month(t)},${v}`)].join("\n");
    const out = forecastRecords(csvRows(csv), { h: 12, level: [80, 95] });
    expect(out.rows.map((r) => r.ds)).toEqual(Array.from({ length: 12 }, (_, k) => `1961-${String(k + 1).padStart(2, "0")}-01`));
    expect(Object.keys(out.rows[0]!)).toEqual(["unique_id", "ds", "mean", "lo-80", "hi-80", "lo-95", "hi-95"]);
    for (const r of out.rows) expect((r["lo-95"] as number) <= (r.mean as number) && (r.mean as number) <= (r["hi-95"] as number)).toBe(true);
  });

  it("an hourly CSV of two series in shuffled order: grouped, sorted, future hours per series", () => {
    const lines: string[] = [];
    for (const id of ["cpu", "mem"]) for (let t = 0; t < 72; t++) lines.push(`${id},2024-03-0${1 + Math.floor(t / 24)} ${String(t % 24).padStart(2, "0")}:00:00,${(id === "cpu" ? 40 : 70) + 10 * Math.sin((2 * Math.PI * t) / 24)}`);
    const shuffled = lines.map((l, i) => [l, (i * 7919) % lines.length] as const).sort((a, b) => a[1] - b[1]).map(([l]) => l);
    const out = forecastRecords(csvRows(["unique_id,ds,y", ...shuffled].join("\n")), { h: 3 });
    // series in order of first appearance, each with its next three hours
    const first = shuffled[0]!.split(",")[0]!;
    const order = first === "cpu" ? ["cpu", "mem"] : ["mem", "cpu"];
    expect(out.rows.map((r) => `${r.unique_id} ${r.ds}`)).toEqual(order.flatMap((id) => ["00", "01", "02"].map((hh) => `${id} 2024-03-04 ${hh}:00:00`)));
  });

  it("weekly Date objects in, Date objects out; a feature with its future rows", () => {
    const start = Date.UTC(2023, 0, 1);
    const rows: RecordRow[] = Array.from({ length: 60 }, (_, t) => ({ unique_id: "shop", ds: new Date(start + t * 7 * 86_400_000), y: 100 + (t % 4) * 5 + (t % 9 === 0 ? 20 : 0), price: t % 9 === 0 ? 1 : 0 }));
    const futureRows = [0, 1].map((k) => ({ unique_id: "shop", ds: new Date(start + (60 + k) * 7 * 86_400_000), price: k }));
    const out = forecastRecords(rows, { h: 2, futureRows });
    expect(out.rows.map((r) => (r.ds as Date).toISOString())).toEqual(["2024-02-25T00:00:00.000Z", "2024-03-03T00:00:00.000Z"]);
    expect(() => forecastRecords(rows, { h: 2 })).toThrow(/futureRows/);
  });

  it("a quarterly CSV (UKgas, 1960 Q1–1986 Q4) forecasts 1987 by quarter, written as quarter starts or as quarter ends", () => {
    const gas = rData.UKgas!.y;
    const qStart = (t: number): string => `${1960 + Math.floor(t / 4)}-${String((t % 4) * 3 + 1).padStart(2, "0")}-01`;
    const qEnd = (t: number): string => `${1960 + Math.floor(t / 4)}-${["03-31", "06-30", "09-30", "12-31"][t % 4]}`;
    const starts = forecastRecords(csvRows(["unique_id,ds,y", ...gas.map((v, t) => `UKgas,${qStart(t)},${v}`)].join("\n")), { h: 5, level: [80] });
    expect(starts.rows.map((r) => r.ds)).toEqual(["1987-01-01", "1987-04-01", "1987-07-01", "1987-10-01", "1988-01-01"]);
    const ends = forecastRecords(gas.map((v, t) => ({ unique_id: "UKgas", ds: qEnd(t), y: v })), { h: 5, freq: "Q" });
    expect(ends.rows.map((r) => r.ds)).toEqual(["1987-03-31", "1987-06-30", "1987-09-30", "1987-12-31", "1988-03-31"]);
    // the frequency reaches the model: same forecast as the JSON body with freq Q
    expect(ends.rows.map((r) => r.mean)).toEqual(starts.rows.map((r) => r.mean));
    // a missing quarter is a 422 naming the row after the gap
    const gap = gas.map((v, t) => ({ unique_id: "UKgas", ds: qStart(t), y: v })).filter((_, t) => t !== 10);
    expect(() => forecastRecords(gap, { h: 1 })).toThrow(/rows\[10\].*1 missing quarter after '1962-04-01'/);
  });

  it("a yearly series (Nile, 1871–1970) forecasts 1971–1973; given freq must match the timestamps", () => {
    const rows = rData.Nile!.y.map((v, t) => ({ unique_id: "Nile", ds: `${1871 + t}-01-01`, y: v }));
    const out = forecastRecords(rows, { h: 3 });
    expect(out.rows.map((r) => r.ds)).toEqual(["1971-01-01", "1972-01-01", "1973-01-01"]);
    expect(() => forecastRecords(rows, { h: 3, freq: "Q" })).toThrow(/freq Q was given, the timestamps are Y/);
  });

  it("anomaly detection, historic forecast and fine-tuning take rows too", () => {
    const rows: RecordRow[] = air.slice(0, 96).map((v, t) => ({ unique_id: "air", ds: month(t), y: t === 95 ? v * 2 : v }));
    const ad = detectAnomaliesRecords(rows, { h: 6, detection_size: 6 });
    expect(ad.rows.map((r) => r.ds)).toEqual([90, 91, 92, 93, 94, 95].map(month));
    expect(ad.rows[5]!.anomaly).toBe(true);
    expect(ad.rows[5]!.y).toBe(air[95]! * 2);
    const hist = historicForecastRecords(air.map((v, t) => ({ unique_id: "air", ds: month(t), y: v })), { level: [90] });
    expect(hist.rows.at(-1)!.ds).toBe(month(143));
    expect(hist.rows.at(-1)!.y).toBe(air[143]);
    const tuned = finetuneRecords(rows, { finetune_steps: 2 });
    expect(tuned.finetune_tokens).toBe(2);
  });

  it("bad rows are 422s naming the row", () => {
    const rows: RecordRow[] = [
      { unique_id: "a", ds: "2024-01-01", y: 1 },
      { unique_id: "a", ds: "2024-01-02", y: Number.NaN },
      { unique_id: "a", ds: "2024-13-01", y: 3 },
    ];
    try {
      forecastRecords(rows, { h: 1 });
      throw new Error("expected a ValidationError");
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).detail.map((d) => d.loc.join("."))).toEqual(["rows.1.y"]);
    }
    const gap: RecordRow[] = [{ unique_id: "a", ds: "2024-01-01", y: 1 }, { unique_id: "a", ds: "2024-01-02", y: 2 }, { unique_id: "a", ds: "2024-01-04", y: 3 }];
    expect(() => forecastRecords(gap, { h: 1 })).toThrow(/rows\[2\]/);
  });
});
