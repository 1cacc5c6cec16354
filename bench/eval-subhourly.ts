/**
 * A day of steps ahead on sub-hourly data (issue 30, "a day of steps for
 * sub-hourly data"): the per-minute series of the Cloud Monitoring
 * Dataset's development half, as sent (1 minute) and as 5- and 15-minute
 * means of consecutive blocks; writes docs/subhourly-accuracy.md.
 *
 *   npm run build && node dist/bench/eval-subhourly.js
 *
 * The split and the origins follow tools/datasets/hourly-data.ts with h = a day of
 * steps: each series' last quarter, rounded down to whole days, is its
 * held-out part; in each part up to 6 origins, a day and a half apart, the
 * last one's day of steps ending at the part's end, each with two days of
 * history before it. A forecast sees the whole history before its origin.
 */
import "../src/model/weights/default.js";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { forecast, UNLIMITED } from "../src/api/index.js";
import { seasonalNaiveProjection, seasonalProfileProjection } from "../src/series/index.js";
import type { Freq, ModelName } from "../src/types.js";
import { cloudMonitoringStreams } from "../tools/datasets/cloud-monitoring-data.js";
import { mase, smape } from "./m1.js";
import { readRBaselines, type RForecasts } from "./r-baselines.js";
import { blockMeansToEnd } from "../src/series/blocks.js";

const ORIGINS_PER_PART = 6;
type Part = "development" | "held-out";
const PARTS: readonly Part[] = ["development", "held-out"];

interface Series {
  readonly id: string;
  readonly freq: Freq;
  readonly minutes: number;
  /** Steps per day. */
  readonly day: number;
  readonly y: Float64Array;
  readonly heldOutStart: number;
}

/** Means of consecutive blocks of `k` values from the first one (a partial last block left out). */
function blockMeans(y: Float64Array, k: number): Float64Array {
  return Float64Array.from({ length: Math.floor(y.length / k) }, (_, j) => {
    let sum = 0;
    for (let t = j * k; t < (j + 1) * k; t++) sum += y[t]!;
    return sum / k;
  });
}

const series: Series[] = [];
for (const s of cloudMonitoringStreams("development")) {
  if (s.stepSeconds !== 60) continue;
  for (const [minutes, freq] of [[1, "min"], [5, "5min"], [10, "10min"], [15, "15min"]] as const) {
    const y = minutes === 1 ? s.values : blockMeans(s.values, minutes);
    const day = 1440 / minutes;
    series.push({ id: `${s.domain}/${s.id}`, freq, minutes, day, y, heldOutStart: y.length - Math.floor(y.length / 4 / day) * day });
  }
}

/** Origins of one series: per part, the last one's day of steps ends at the part's end, the others a day and a half apart before it. */
function originsOf(s: Series): { part: Part; origin: number }[] {
  const out: { part: Part; origin: number }[] = [];
  for (const part of PARTS) {
    const [from, to] = part === "development" ? [0, s.heldOutStart] : [s.heldOutStart, s.y.length];
    for (let j = ORIGINS_PER_PART - 1; j >= 0; j--) {
      const origin = to - s.day - (j * 3 * s.day) / 2;
      if (origin >= from && origin >= 2 * s.day) out.push({ part, origin });
    }
  }
  return out;
}

// `--export <file>`: the series and origins for R (bench/data/make-subhourly-baselines.R); nothing else is done
const exportArg = process.argv.indexOf("--export");
if (exportArg > 0) {
  const file = process.argv[exportArg + 1] ?? "/tmp/subhourly-series.json";
  const json = { series: series.map((s) => ({ id: `${s.id}@${s.freq}`, day: s.day, h: s.day, y: Array.from(s.y), origins: originsOf(s) })) };
  writeFileSync(file, JSON.stringify(json));
  console.log(`${series.length} series -> ${file}`);
  process.exit(0);
}

/** R's forecasts (bench/data/subhourly-baselines.json), by series id@freq and origin; absent until the R script has run. */
const rData = readRBaselines<RForecasts>("bench/data/subhourly-baselines.json");
const rForecast = (s: Series, origin: number, method: "ets" | "stlf" | "tbats"): Float64Array | null => {
  const found = rData.series[`${s.id}@${s.freq}`]?.find((o) => o.origin === origin)?.[method];
  return found === undefined || found === null ? null : Float64Array.from(found);
};

const METHODS = ["snaive-day", "snaive-week", "profile", "ets", "stlf", "tbats", "forecastmodel-1", "forecastmodel-1-long-horizon", "hf-flat", "forecastmodel-1-high-frequency"] as const;
type Method = (typeof METHODS)[number];
const LABEL: Record<Method, string> = {
  "snaive-day": "seasonal naive, a day",
  "snaive-week": "seasonal naive, a week (a day when the history holds less)",
  profile: "per-phase median profile of the last 8 days",
  ets: "ets (R)",
  stlf: "stlf (R)",
  tbats: "tbats (R)†",
  "forecastmodel-1": "forecastmodel-1 (rolled out 24 steps at a time)",
  "forecastmodel-1-long-horizon": "forecastmodel-1-long-horizon (rolled out 48 steps at a time)",
  "hf-flat": "forecastmodel-1-high-frequency on the half-hour means, each half-hour flat",
  "forecastmodel-1-high-frequency": "forecastmodel-1-high-frequency (half-hour means and the within-block profile)",
};

function networkForecast(model: ModelName, freq: Freq, history: Float64Array, h: number): Float64Array {
  return Float64Array.from(forecast({ series: { y: Array.from(history), sizes: [history.length] }, freq, h, model }, { limits: UNLIMITED }).mean);
}

/** The half-hour means of the history (blocks ending at its end) forecast at "30min", each repeated for its steps. */
function flatBlocks(s: Series, history: Float64Array, h: number): Float64Array {
  const k = 30 / s.minutes;
  const means = blockMeansToEnd(history, k);
  const half = networkForecast("forecastmodel-1-high-frequency", "30min", means, Math.ceil(h / k));
  return Float64Array.from({ length: h }, (_, t) => half[Math.floor(t / k)]!);
}

interface Row {
  part: Part;
  freq: Freq;
  smape: number;
  mase: number;
}
const rows = new Map<Method, Row[]>(METHODS.map((m) => [m, []]));
/** Horizons (steps) of the second table: the first steps of the day-ahead forecasts. */
const BY_HORIZON = [24, 48, 96, 288] as const;
const BY_HORIZON_METHODS: readonly Method[] = ["snaive-day", "forecastmodel-1", "forecastmodel-1-high-frequency"];
const byHorizon = new Map<string, Row[]>();
const seconds = new Map<Method, number>(METHODS.map((m) => [m, 0]));
const started = process.hrtime.bigint();
for (const s of series) {
  for (const { part, origin } of originsOf(s)) {
    const history = s.y.subarray(0, origin);
    const actual = s.y.subarray(origin, origin + s.day);
    const h = s.day;
    for (const method of METHODS) {
      const t0 = process.hrtime.bigint();
      let f: Float64Array;
      if (method === "ets" || method === "stlf" || method === "tbats") {
        const r = rForecast(s, origin, method);
        if (r === null) continue;
        f = r;
      } else if (method === "snaive-day") f = seasonalNaiveProjection(history, s.day, h);
      else if (method === "snaive-week") f = seasonalNaiveProjection(history, history.length >= 7 * s.day ? 7 * s.day : s.day, h);
      else if (method === "profile") f = seasonalProfileProjection(history, s.day, h);
      else if (method === "hf-flat") f = flatBlocks(s, history, h);
      else f = networkForecast(method, s.freq, history, h);
      seconds.set(method, seconds.get(method)! + Number(process.hrtime.bigint() - t0) / 1e9);
      rows.get(method)!.push({ part, freq: s.freq, smape: smape(actual, f), mase: mase(history, actual, f, s.day) });
      // the same forecasts' first steps: where the default model changes from forecastmodel-1 to the high-frequency network
      if (BY_HORIZON_METHODS.includes(method)) {
        for (const steps of BY_HORIZON.filter((k) => k < s.day)) {
          const key = `${method}|${steps}`;
          if (!byHorizon.has(key)) byHorizon.set(key, []);
          byHorizon.get(key)!.push({ part, freq: s.freq, smape: smape(actual.subarray(0, steps), f.subarray(0, steps)), mase: mase(history, actual.subarray(0, steps), f.subarray(0, steps), s.day) });
        }
      }
    }
  }
  console.log(`${s.id} ${s.freq}: done`);
}
const total = Number(process.hrtime.bigint() - started) / 1e9;

const FREQS: readonly Freq[] = ["min", "5min", "10min", "15min"];
const mean = (xs: readonly Row[], f: (r: Row) => number): number => xs.reduce((a, r) => a + f(r), 0) / xs.length;
// MASE is left out of the mean where its scale is 0 (a history constant at a day's lag: service-unavailable's zeros)
const scaled = (xs: readonly Row[]): Row[] => xs.filter((r) => Number.isFinite(r.mase));
const cell = (list: readonly Row[]): string => (list.length === 0 ? "—" : `${mean(list, (r) => r.smape).toFixed(2)} / ${mean(scaled(list), (r) => r.mase).toFixed(3)}`);
const columns = FREQS.flatMap((freq) => PARTS.map((part) => ({ freq, part })));
const count = (freq: Freq, part: Part) => rows.get("snaive-day")!.filter((r) => r.freq === freq && r.part === part).length;
const lines = [
  "<!-- Generated by `npm run build && node dist/bench/eval-subhourly.js` (bench/eval-subhourly.ts); do not edit by hand. -->",
  "# A day of steps ahead on sub-hourly data (issue 30)",
  "",
  `The per-minute series of the Microsoft Cloud Monitoring Dataset's development half (mongodb-application-rps ×4, service-unavailable; bench/data/cloud-monitoring), as sent (\`min\`, a day = 1,440 steps) and as the means of consecutive 5- and 15-minute blocks (\`5min\`, 288 steps; \`15min\`, 96 steps). The split, fixed before any forecast was scored, is [hourly-accuracy](hourly-accuracy.md)'s: each series' last quarter, rounded down to whole days, is held out (here its last 2 days); in each part up to ${ORIGINS_PER_PART} origins a day and a half apart, the last one's day of steps ending at the part's end, each with two days of history before it. h = a day of steps. Each cell: mean sMAPE (%) / mean MASE (scaled by the history's mean absolute difference at a day's lag) over the windows (series × origins); MASE leaves out the ${rows.get("snaive-day")!.filter((r) => !Number.isFinite(r.mase)).length} windows whose history has a scale of 0 (all of service-unavailable's development windows: a constant history). The networks are called as a user calls them: \`forecast\` with the whole history and the freq, no intervals. R (${rData.r || "not run"}, forecast ${rData.forecast || "—"}; bench/data/make-subhourly-baselines.R) fits on the last 4 days of steps before each origin; its ets models no season longer than 24 steps, so here it is non-seasonal; stlf has the day's season and fails where the history holds only two days (the earliest origins: its cells then count fewer windows, in parentheses); † tbats ran only at the last origin of each part of the 10- and 15-minute series (its cost), so its cells are means over fewer windows.`,
  "",
  "forecastmodel-1-high-frequency reads sub-half-hourly data as half-hour means (`aggregationFactor`: 30 steps per block at `min`, 6 at `5min`, 3 at `10min`, 2 at `15min`): its context, its whole-history projections at a day (48) and a week (336) of half-hours, and 48 half-hours forecast directly, a day; each step then gets its half-hour's forecast plus its place in the daily profile within its block (the per-phase median of the last 8 days, less the block's mean of it). \"flat\" is the same network without that profile (each half-hour's value repeated), to show what the profile adds. The two older networks roll out recursively.",
  "",
  `| method | ${columns.map((c) => `${c.freq}, ${c.part} (${count(c.freq, c.part)} windows)`).join(" | ")} |`,
  `|---|${columns.map(() => "---:").join("|")}|`,
  // a method with fewer windows than the column (R's where a fit failed or was not run) says how many
  ...METHODS.map((m) => `| ${LABEL[m]} | ${columns.map((c) => {
    const list = rows.get(m)!.filter((r) => r.freq === c.freq && r.part === c.part);
    return cell(list) + (list.length > 0 && list.length < count(c.freq, c.part) ? ` (${list.length})` : "");
  }).join(" | ")} |`),
  "",
  `The first steps of the same forecasts (mean sMAPE / MASE over the same windows), where the default model changes (\`defaultModel\`): forecastmodel-1 reads the last 96 steps and forecasts 24 directly, so it follows the most recent minutes; the high-frequency network sees the day and the week.`,
  "",
  `| method | ${FREQS.flatMap((freq) => BY_HORIZON.flatMap((steps) => PARTS.map((part) => `${freq} h ${steps}, ${part === "development" ? "dev." : "held-out"}`))).join(" | ")} |`,
  `|---|${FREQS.flatMap(() => BY_HORIZON.flatMap(() => PARTS.map(() => "---:"))).join("|")}|`,
  ...BY_HORIZON_METHODS.map((m) => `| ${LABEL[m]} | ${FREQS.flatMap((freq) => BY_HORIZON.flatMap((steps) => PARTS.map((part) => cell((byHorizon.get(`${m}|${steps}`) ?? []).filter((r) => r.freq === freq && r.part === part))))).join(" | ")} |`),
  "",
  `Wall time of each method over every window (seconds), one process on ${os.cpus()[0]?.model ?? "?"} (${os.cpus().length} cores, shared), node ${process.version}; the whole run ${total.toFixed(0)} s: ${METHODS.map((m) => `${m} ${seconds.get(m)!.toFixed(1)}`).join(", ")}.`,
  "",
];
if (!process.argv.includes("--no-write")) writeFileSync("docs/subhourly-accuracy.md", lines.join("\n"));
console.log(lines.join("\n"));
