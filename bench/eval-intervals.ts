/**
 * Calibration of forecastmodel's intervals (levels 80 and 95) on M1 and on
 * the validation series, beside R's ets intervals on the same splits: share
 * of actuals inside each interval and MSIS at 95 %. Prints the tables;
 * `eval-accuracy` writes them into docs/accuracy.md.
 *
 *   npm run build && node dist/bench/eval-intervals.js
 */
import "../src/model/weights/default.js";
import { readFileSync } from "node:fs";
import type { ModelName } from "../src/types.js";
import { addWindow, emptyTotals, intervalCell, modelIntervals, seasonalScale, type IntervalTotals, type WindowIntervals } from "./interval-eval.js";
import { loadM1, PERIOD_FREQ, type M1Series } from "./m1.js";
import { loadValidation, validationWindows } from "./validation-data.js";

interface EtsRecord { mean: number[]; lo80: number[]; hi80: number[]; lo95: number[]; hi95: number[] }

export interface IntervalReport {
  m1: Map<string, { ours: IntervalTotals; ets: IntervalTotals }>;
  validation: Map<string, { ours: IntervalTotals; ets: IntervalTotals }>;
  seconds: number;
}

export function intervalReport(model: ModelName): IntervalReport {
  const started = process.hrtime.bigint();
  const { series } = loadM1();
  const etsM1 = new Map((JSON.parse(readFileSync("bench/data/m1-ets-intervals.json", "utf8")) as { intervals: (EtsRecord & { id: string })[] }).intervals.map((r) => [r.id, r]));
  const m1 = new Map<string, { ours: IntervalTotals; ets: IntervalTotals }>();
  const all = { ours: emptyTotals(), ets: emptyTotals() };
  for (const period of ["YEARLY", "QUARTERLY", "MONTHLY"] as M1Series["period"][]) {
    const members = series.filter((s) => s.period === period);
    const h = members[0]!.h;
    const ours = modelIntervals(model, PERIOD_FREQ[period], members.map((s) => s.x), h);
    const g = { ours: emptyTotals(), ets: emptyTotals() };
    members.forEach((s, i) => {
      const scale = seasonalScale(s.x, s.m);
      const e = etsM1.get(s.id)!;
      for (const t of [g.ours, all.ours]) addWindow(t, s.xx, ours[i]!, scale);
      for (const t of [g.ets, all.ets]) addWindow(t, s.xx, e, scale);
    });
    m1.set(period.toLowerCase(), g);
  }
  m1.set("all", all);

  const file = loadValidation();
  const etsVal = (JSON.parse(readFileSync("bench/data/validation-ets-intervals.json", "utf8")) as { series: Record<string, (EtsRecord & { origin: number })[]> }).series;
  const validation = new Map<string, { ours: IntervalTotals; ets: IntervalTotals }>();
  const vAll = { ours: emptyTotals(), ets: emptyTotals() };
  for (const group of [{ m: 1, freq: "Y", h: 6, label: "yearly" }, { m: 4, freq: "Q", h: 8, label: "quarterly" }, { m: 12, freq: "M", h: 18, label: "monthly" }] as const) {
    const windows = [...validationWindows(file, group.m, group.h)].filter((w) => {
      const e = etsVal[w.name]?.find((r) => r.origin === w.origin.origin);
      return e !== undefined && e.lo95.every((v) => v !== null && Number.isFinite(v));
    });
    const ours = modelIntervals(model, group.freq, windows.map((w) => w.train), group.h);
    const g = { ours: emptyTotals(), ets: emptyTotals() };
    windows.forEach((w, i) => {
      const scale = seasonalScale(w.train, group.m);
      const e: WindowIntervals = etsVal[w.name]!.find((r) => r.origin === w.origin.origin)!;
      for (const t of [g.ours, vAll.ours]) addWindow(t, w.test, ours[i]!, scale);
      for (const t of [g.ets, vAll.ets]) addWindow(t, w.test, e, scale);
    });
    validation.set(group.label, g);
  }
  validation.set("all", vAll);
  return { m1, validation, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** Markdown table: one row per group, forecastmodel and ets side by side. */
export function intervalTable(rows: Map<string, { ours: IntervalTotals; ets: IntervalTotals }>, model: string): string {
  const lines = [`| group | ${model}: inside 80 % / inside 95 % / MSIS | ets (R): inside 80 % / inside 95 % / MSIS | width 95 % ÷ 80 % (ours, ets) |`, "|---|---|---|---|"];
  for (const [name, r] of rows) {
    lines.push(`| ${name} | ${intervalCell(r.ours)} | ${intervalCell(r.ets)} | ${(r.ours.widthRatio / r.ours.widthPoints).toFixed(2)}, ${(r.ets.widthRatio / r.ets.widthPoints).toFixed(2)} |`);
  }
  return lines.join("\n");
}

if (process.argv[1]?.endsWith("eval-intervals.js")) {
  const model = (process.argv[2] ?? "forecastmodel-1") as ModelName;
  const report = intervalReport(model);
  console.log("M1\n" + intervalTable(report.m1, model));
  console.log("\nvalidation\n" + intervalTable(report.validation, model));
  console.log(`\n${report.seconds.toFixed(1)} s`);
}
