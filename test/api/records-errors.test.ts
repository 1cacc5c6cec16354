/**
 * Errors of the records API say what to do: an option is named as the caller
 * wrote it (an options object, not a JSON body: `level.0`, never
 * `body.level.0`); a column of numbers written as strings (a CSV nobody
 * converted) is one item saying so and how to convert, not one identical item
 * per row; real bad values still name their row.
 */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { detectAnomaliesRecords, finetuneRecords, forecastRecords, historicForecastRecords, type RecordRow } from "../../src/api/index.js";
import { ValidationError } from "../../src/api/errors.js";
import { validationDetail } from "./helpers.js";

const month = (t: number): string => `${2020 + Math.floor(t / 12)}-${String((t % 12) + 1).padStart(2, "0")}-01`;
const rows = Array.from({ length: 48 }, (_, t) => ({ unique_id: "a", ds: month(t), y: 10 + (t % 12) }));

describe("records options are reported under their own names", () => {
  it.each([
    ["forecast level", () => forecastRecords(rows, { h: 2, level: [150] }), ["level", 0]],
    ["forecast finetune_steps", () => forecastRecords(rows, { h: 2, finetune_steps: -1 }), ["finetune_steps"]],
    ["forecast model", () => forecastRecords(rows, { h: 2, model: "nope" as never }), ["model"]],
    ["anomaly detection_size", () => detectAnomaliesRecords(rows, { h: 2, detection_size: 0 }), ["detection_size"]],
    ["anomaly level", () => detectAnomaliesRecords(rows, { h: 2, detection_size: 2, level: 100 }), ["level"]],
    ["historic finetune_depth", () => historicForecastRecords(rows, { finetune_depth: 9 as never }), ["finetune_depth"]],
    ["finetune finetune_loss", () => finetuneRecords(rows, { finetune_loss: "l3" as never }), ["finetune_loss"]],
  ] as const)("%s: at its option name, never under body", (_name, call, loc) => {
    const detail = validationDetail(call);
    expect(detail.map((d) => d.loc)).toEqual([loc]);
    let message = "";
    try {
      call();
    } catch (e) {
      message = (e as ValidationError).message;
    }
    expect(message.startsWith(`${loc.join(".")}: `)).toBe(true);
    expect(message).not.toContain("body");
  });
});

describe("a column of numbers written as strings", () => {
  const csv = ["unique_id,ds,y,price", ...rows.map((r, t) => `${r.unique_id},${r.ds},${r.y},${t % 3}`)].join("\n");
  const unconverted = parse(csv, { columns: true }) as RecordRow<string>[];

  it("is one item per column, at its first row, saying how many rows and how to convert", () => {
    const detail = validationDetail(() => forecastRecords(unconverted, { h: 2 }));
    expect(detail).toHaveLength(2);
    const [y, price] = detail as [(typeof detail)[0], (typeof detail)[0]];
    expect(y.loc).toEqual(["rows", 0, "y"]);
    expect(y.msg).toContain('y holds numbers written as strings in 48 of 48 rows (rows[0].y is "10")');
    expect(y.msg).toContain("rows.map((r) => ({ ...r, y: Number(r.y) }))");
    expect(y.msg).toContain("cast");
    expect(price.loc).toEqual(["rows", 0, "price"]);
    expect(price.msg).toContain("feature price holds numbers written as strings in 48 of 48 rows");
    // the advice works: converted, the same rows forecast (with price's future values)
    const converted = unconverted.map((r) => ({ ...r, y: Number(r.y), price: Number(r.price) }));
    const futureRows = [0, 1].map((k) => ({ unique_id: "a", ds: month(48 + k), price: k }));
    expect(forecastRecords(converted, { h: 2, futureRows }).rows).toHaveLength(2);
  });

  it("real bad values keep naming their rows, beside the one strings item", () => {
    const mixed = rows.map((r, t) => ({ ...r, y: t === 3 ? "n/a" : t === 7 ? "" : t === 9 ? Number.NaN : String(r.y) })) as unknown as RecordRow[];
    const detail = validationDetail(() => forecastRecords(mixed, { h: 2 }));
    expect(detail.map((d) => d.loc)).toEqual([
      ["rows", 0, "y"],
      ["rows", 3, "y"],
      ["rows", 7, "y"],
      ["rows", 9, "y"],
    ]);
    expect(detail[0]!.msg).toContain("in 45 of 48 rows");
    for (const d of detail.slice(1)) expect(d.msg).toBe("Value error, y must be a finite number");
    // numbers everywhere but one bad row: only that row
    const oneBad = rows.map((r, t) => (t === 5 ? { ...r, y: Number.POSITIVE_INFINITY } : r));
    expect(validationDetail(() => forecastRecords(oneBad, { h: 2 })).map((d) => d.loc)).toEqual([["rows", 5, "y"]]);
  });
});

describe("a business calendar in the records API", () => {
  it.each(["B", "BH", "CBH"])("freq %s is one item at freq saying the timestamps cannot be read on it, and what to send instead", (freq) => {
    const days = Array.from({ length: 30 }, (_, t) => ({ unique_id: "a", ds: `2024-01-${String(t + 1).padStart(2, "0")}`, y: 10 + (t % 5) }));
    const detail = validationDetail(() => forecastRecords(days, { h: 2, freq: freq as never }));
    expect(detail.map((d) => d.loc)).toEqual([["freq"]]);
    expect(detail[0]!.msg).toContain(`freq ${freq} is a business calendar`);
    expect(detail[0]!.msg).toContain("send the series as { y, sizes }");
  });
});
