/**
 * The hourly and sub-hourly development series of issue 30 and the protocol
 * they are evaluated by (bench/eval-hourly.ts; R's baselines in
 * bench/data/make-hourly-baselines.R read the same origins through
 * `node dist/tools/datasets/hourly-data.js --export <file>`).
 *
 * The split and the origins were fixed before any forecast was scored:
 * - every series is split by time: the held-out part is its last quarter,
 *   rounded down to whole days of steps; the rest is the development part;
 * - in each part, up to ORIGINS_PER_PART forecast origins: the last one's
 *   48 steps end at the part's end, the others step back by a day and a half
 *   of steps each (so they start at alternating halves of the day); an origin
 *   needs two days of history before it and its 48 target steps inside its
 *   part. A series is used when both parts get an origin;
 * - a forecast at origin o sees the whole history y[0 .. o) and is scored on
 *   y[o .. o + h) for h = 24 and 48 (the same origins for both horizons).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Freq } from "../../src/types.js";
import { cloudMonitoringStreams } from "./cloud-monitoring-data.js";

export const HORIZONS = [24, 48] as const;
export const MAX_HORIZON = 48;
export const ORIGINS_PER_PART = 6;

export type Part = "development" | "held-out";
export const PARTS: readonly Part[] = ["development", "held-out"];

export type Group = "ETT (hourly)" | "taylor (half-hourly)" | "cloud, hourly" | "cloud, per minute";
export const GROUPS: readonly Group[] = ["ETT (hourly)", "taylor (half-hourly)", "cloud, hourly", "cloud, per minute"];

export interface HourlySeries {
  readonly id: string;
  readonly group: Group;
  readonly freq: Freq;
  /** Steps per day: 24 hourly, 48 half-hourly, 1440 per minute. */
  readonly day: number;
  readonly y: Float64Array;
  /** First index of the held-out part. */
  readonly heldOutStart: number;
}

export interface Origin {
  /** Index of the series in the loaded list. */
  readonly series: number;
  readonly part: Part;
  /** Index of the first forecast step: the history is y[0 .. origin). */
  readonly origin: number;
}

const ETT_COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"];

function splitPoint(n: number, day: number): number {
  return n - Math.floor(n / 4 / day) * day;
}

function ettSeries(dir: string): HourlySeries[] {
  const out: HourlySeries[] = [];
  for (const file of ["ETTh1", "ETTh2"]) {
    const lines = readFileSync(`${dir}/ett/${file}-last2016.csv`, "utf8").trim().split("\n");
    const header = lines[0]!.split(",");
    const rows = lines.slice(1).map((l) => l.split(","));
    for (const column of ETT_COLUMNS) {
      const j = header.indexOf(column);
      if (j < 0) throw new Error(`${file}: no column ${column}`);
      const y = Float64Array.from(rows, (r) => Number(r[j]));
      if (!y.every(Number.isFinite)) throw new Error(`${file}.${column}: a value is not a number`);
      out.push({ id: `${file}.${column}`, group: "ETT (hourly)", freq: "H", day: 24, y, heldOutStart: splitPoint(y.length, 24) });
    }
  }
  return out;
}

function taylorSeries(dir: string): HourlySeries {
  const data = JSON.parse(readFileSync(`${dir}/taylor.json`, "utf8")) as { y: number[] };
  const y = Float64Array.from(data.y);
  return { id: "taylor", group: "taylor (half-hourly)", freq: "30min", day: 48, y, heldOutStart: splitPoint(y.length, 48) };
}

/** The Cloud Monitoring Dataset's development half (tools/datasets/cloud-monitoring-data.ts: the split and the loader). */
function cloudSeries(dir: string): HourlySeries[] {
  return cloudMonitoringStreams("development", `${dir}/cloud-monitoring`).map((s) => {
    const hourly = s.stepSeconds === 3600;
    if (!hourly && s.stepSeconds !== 60) throw new Error(`${s.domain}/${s.id}: step ${s.stepSeconds} s`);
    const day = hourly ? 24 : 1440;
    return { id: `${s.domain}/${s.id}`, group: hourly ? "cloud, hourly" : "cloud, per minute", freq: hourly ? "H" : "min", day, y: s.values, heldOutStart: splitPoint(s.values.length, day) };
  });
}

/** The origins of one series (see the module's comment), earliest first. */
export function originsOf(s: HourlySeries, index: number): Origin[] {
  const spacing = (3 * s.day) / 2;
  const out: Origin[] = [];
  for (const part of PARTS) {
    const [from, to] = part === "development" ? [0, s.heldOutStart] : [s.heldOutStart, s.y.length];
    for (let j = ORIGINS_PER_PART - 1; j >= 0; j--) {
      const origin = to - MAX_HORIZON - j * spacing;
      if (origin >= from && origin >= 2 * s.day) out.push({ series: index, part, origin });
    }
  }
  return out;
}

/** Every series with origins in both parts, and their origins. */
export function loadHourly(dir = "bench/data"): { series: HourlySeries[]; origins: Origin[]; dropped: string[] } {
  const all = [...ettSeries(dir), taylorSeries(dir), ...cloudSeries(dir)];
  const series: HourlySeries[] = [];
  const origins: Origin[] = [];
  const dropped: string[] = [];
  for (const s of all) {
    const own = originsOf(s, series.length);
    if (!PARTS.every((p) => own.some((o) => o.part === p))) {
      dropped.push(`${s.id} (${s.y.length} points)`);
      continue;
    }
    series.push(s);
    origins.push(...own);
  }
  return { series, origins, dropped };
}

// `node dist/tools/datasets/hourly-data.js --export <file>`: the series and origins for R (not committed: ETT's values stay in its CSV).
if (process.argv[2] === "--export") {
  const file = process.argv[3] ?? "/tmp/hourly-series.json";
  const { series, origins, dropped } = loadHourly();
  const json = {
    horizon: MAX_HORIZON,
    series: series.map((s, i) => ({
      id: s.id,
      group: s.group,
      day: s.day,
      y: Array.from(s.y),
      origins: origins.filter((o) => o.series === i).map((o) => ({ part: o.part, origin: o.origin })),
    })),
  };
  writeFileSync(file, JSON.stringify(json));
  console.log(`${series.length} series, ${origins.length} origins -> ${file}; dropped: ${dropped.join(", ") || "none"}`);
}
