/**
 * `npm run demo`: online anomaly detection on classic public series from R's
 * `datasets` package (bundled in bench/data/r-datasets.json, see
 * bench/data/README.md), a table of the flagged points on stdout, and one SVG
 * chart per series (series, forecast, 99% interval, anomalies) written to
 * demo-output/ by the library's pure chart function.
 *
 * Usage: npm run demo [-- --out <dir>]
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { anomalyChartInput, cropAnomalyChartInput, detectAnomaliesOnline, forecast, gaussianMultiplier, renderAnomalyChart, type AnomalyResult } from "../src/index.js";

/** One series of bench/data/r-datasets.json. */
interface RSeries {
  readonly package: string;
  readonly frequency: number;
  readonly start: readonly [number, number];
  readonly n: number;
  readonly y: readonly number[];
}

/** Monthly series (freq "M") from R's datasets package. */
const SERIES = [
  { name: "AirPassengers", what: "airline passengers, thousands per month" },
  {
    name: "UKDriverDeaths",
    what: "car drivers killed or seriously injured in Great Britain, per month",
    note: "wearing front seat belts became compulsory on 31 January 1983 (R: ?Seatbelts)",
  },
  { name: "nottem", what: "average air temperature at Nottingham Castle, °F" },
  { name: "USAccDeaths", what: "accidental deaths in the USA, per month" },
  { name: "co2", what: "Mauna Loa atmospheric CO2 concentration, ppm" },
] as const;

const H = 12; // forecast one year ahead in each rolling window
const DETECTION_SIZE = 24; // score the last two years of each series
const LEVEL = 99;
const CHART_MONTHS = 120; // charts show the last ten years

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** "1949-01" for observation t of a monthly R ts starting at (year, month). */
function monthLabel(start: readonly [number, number], t: number): string {
  const m0 = start[1] - 1 + t;
  const year = start[0] + Math.floor(m0 / 12);
  const month = (m0 % 12) + 1;
  return `${year}-${String(month).padStart(2, "0")}`;
}

/** Ticks on January of every k-th year from position `from`, k chosen so there are at most ~10 ticks. */
function januaryTicks(start: readonly [number, number], n: number, from: number): number[] {
  const years = (n - from) / 12;
  const step = [1, 2, 5, 10, 20, 50].find((k) => years / k <= 10) ?? 100;
  const ticks: number[] = [];
  for (let t = from; t < n; t++) {
    const m0 = start[1] - 1 + t;
    if (m0 % 12 === 0 && (start[0] + m0 / 12) % step === 0) ticks.push(t);
  }
  return ticks;
}

function fmt(v: number, digits = 1): string {
  return v.toFixed(digits);
}

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  const line = (r: string[]) => r.map((cell, c) => (c <= 1 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join("  ");
  const [head, ...body] = rows;
  return [line(head ?? []), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

function main(): void {
  const started = performance.now();
  const dataPath = new URL("../../bench/data/r-datasets.json", import.meta.url);
  const data = JSON.parse(readFileSync(dataPath, "utf8")) as Record<string, RSeries>;
  const outDir = resolve(argValue("--out") ?? "demo-output");

  const chosen = SERIES.map((s) => {
    const series = data[s.name];
    if (series === undefined || series.frequency !== 12) throw new Error(`bench/data/r-datasets.json: no monthly series ${s.name}`);
    return { ...s, series };
  });
  const request = {
    series: { y: chosen.flatMap((c) => c.series.y), sizes: chosen.map((c) => c.series.y.length) },
    freq: "M",
    h: H,
    detection_size: DETECTION_SIZE,
    level: LEVEL,
  } as const;

  // Part 1: forecasting. The last two years of each series are held out; the model forecasts them from the
  // years before, with 80 % and 95 % intervals, and the table says how many held-out months each interval holds.
  const HOLD = 24;
  const train = chosen.map((c) => c.series.y.slice(0, c.series.y.length - HOLD));
  const fcStarted = performance.now();
  const fc = forecast({ series: { y: train.flat(), sizes: train.map((t) => t.length) }, freq: "M", h: HOLD, level: [80, 95] });
  const fcMs = performance.now() - fcStarted;
  console.log(`Forecasting: the last ${HOLD} months of ${chosen.length} monthly series of R's datasets package, from the months before`);
  console.log("(mean: the point forecast; 80 % / 95 %: share of the held-out months inside the interval; MAE: mean absolute error)\n");
  const fcRows: string[][] = [["series", "held out", "first forecast", "MAE", "inside 80 %", "inside 95 %"]];
  chosen.forEach((c, i) => {
    const n = c.series.y.length;
    let mae = 0;
    let in80 = 0;
    let in95 = 0;
    for (let k = 0; k < HOLD; k++) {
      const actual = c.series.y[n - HOLD + k] as number;
      const r = i * HOLD + k;
      mae += Math.abs(actual - (fc.mean[r] as number)) / HOLD;
      if (actual >= fc.intervals!["lo-80"]![r]! && actual <= fc.intervals!["hi-80"]![r]!) in80++;
      if (actual >= fc.intervals!["lo-95"]![r]! && actual <= fc.intervals!["hi-95"]![r]!) in95++;
    }
    fcRows.push([c.name, `${monthLabel(c.series.start, n - HOLD)}–${monthLabel(c.series.start, n - 1)}`, fmt(fc.mean[i * HOLD] as number), fmt(mae), `${in80}/${HOLD}`, `${in95}/${HOLD}`]);
  });
  console.log(table(fcRows));
  console.log(`\nForecast took ${(fcMs / 1000).toFixed(2)} s (calibration windows included).\n`);
  mkdirSync(outDir, { recursive: true });
  chosen.forEach((c, i) => {
    const n = c.series.y.length;
    const from = Math.max(0, n - CHART_MONTHS);
    const part = (name: string) => fc.intervals![name]!.slice(i * HOLD, (i + 1) * HOLD);
    const input = {
      title: `${c.name}: forecast of the last ${HOLD} months from the months before`,
      values: c.series.y.slice(from),
      forecast: { start: n - HOLD - from, mean: fc.mean.slice(i * HOLD, (i + 1) * HOLD), lo: part("lo-95"), hi: part("hi-95") },
      intervalLabel: "95% interval",
      labels: Array.from({ length: n - from }, (_, t) => monthLabel(c.series.start, from + t)),
      xTicks: januaryTicks(c.series.start, n, from).map((t) => t - from),
      xTitle: `month (R datasets::${c.name}, from ${monthLabel(c.series.start, from)})`,
      yTitle: c.name,
    };
    writeFileSync(join(outDir, `${c.name}-forecast.svg`), renderAnomalyChart(input));
  });

  console.log(`Online anomaly detection on ${chosen.length} monthly series of R's datasets package (R 4.2.2, bench/data/r-datasets.json)`);
  console.log(`model forecastmodel-1, h = ${H}, detection_size = ${DETECTION_SIZE} (last two years), level = ${LEVEL}%\n`);

  const t0 = performance.now();
  const result: AnomalyResult = detectAnomaliesOnline(request);
  const detectMs = performance.now() - t0;

  const lo = result.intervals?.[`lo-${LEVEL}`];
  const hi = result.intervals?.[`hi-${LEVEL}`];
  const rows: string[][] = [["series", "date", "value", "forecast", `${LEVEL}% interval`, "z"]];
  const summary: string[][] = [["series", "points", "first", "last", "scored", "flagged"]];
  let offset = 0;
  let row = 0;
  chosen.forEach((c, i) => {
    const n = c.series.y.length;
    const scored = result.sizes[i] ?? 0;
    let flagged = 0;
    for (let r = row; r < row + scored; r++) {
      if (result.anomaly[r] !== true) continue;
      flagged++;
      const t = (result.idxs[r] as number) - offset;
      rows.push([
        c.name,
        monthLabel(c.series.start, t),
        fmt(c.series.y[t] as number),
        fmt(result.mean[r] as number),
        lo !== undefined && hi !== undefined ? `[${fmt(lo[r] as number)}, ${fmt(hi[r] as number)}]` : "-",
        fmt(result.anomaly_score[r] as number, 2),
      ]);
    }
    summary.push([c.name, String(n), monthLabel(c.series.start, 0), monthLabel(c.series.start, n - 1), String(scored), String(flagged)]);
    offset += n;
    row += scored;
  });

  console.log(table(summary));
  console.log(`\nFlagged points (outside the calibrated ${LEVEL}% interval: the model's own quantiles, calibrated on the series' past errors; z = the calibrated score, flagged when |z| > ${gaussianMultiplier(LEVEL).toFixed(2)}):\n`);
  console.log(rows.length > 1 ? table(rows) : "(none)");
  for (const c of chosen) if ("note" in c) console.log(`\nNote on ${c.name}: ${c.note}.`);

  mkdirSync(outDir, { recursive: true });
  const files: string[] = [];
  chosen.forEach((c, i) => {
    const n = c.series.y.length;
    // the last ten years at most, so the scored months are wide enough to read
    const from = Math.max(0, n - CHART_MONTHS);
    const input = cropAnomalyChartInput(
      anomalyChartInput(request, result, i, {
        title: `${c.name}: ${c.what}`,
        labels: Array.from({ length: n }, (_, t) => monthLabel(c.series.start, t)),
        xTicks: januaryTicks(c.series.start, n, from),
        xTitle: `month (R datasets::${c.name}${from > 0 ? `, from ${monthLabel(c.series.start, from)}` : ""}); shaded: the last ${DETECTION_SIZE} months, scored`,
      }),
      from,
    );
    const file = join(outDir, `${c.name}.svg`);
    writeFileSync(file, renderAnomalyChart(input));
    files.push(file);
  });
  const index = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><title>forecastmodel demo: online anomaly detection</title></head>',
    '<body style="font-family: Helvetica, Arial, sans-serif; max-width: 1000px; margin: 2em auto">',
    `<h1>Forecasting and online anomaly detection on R's datasets</h1>`,
    `<h2>Forecasts of the last two years, from the years before (95% interval)</h2>`,
    ...chosen.map((c) => `<p><img src="${c.name}-forecast.svg" alt="${c.name} forecast" width="960" height="420"></p>`),
    `<h2>Online anomaly detection</h2>`,
    `<p>h = ${H}, detection_size = ${DETECTION_SIZE}, level = ${LEVEL}%. Generated by <code>npm run demo</code>.</p>`,
    ...chosen.map((c) => `<p><img src="${c.name}.svg" alt="${c.name}" width="960" height="420"></p>`),
    "</body></html>",
    "",
  ].join("\n");
  writeFileSync(join(outDir, "index.html"), index);

  console.log(`\nCharts: ${files.length + chosen.length} SVG files (forecasts and anomalies) and index.html in ${outDir}`);
  console.log(`Detection took ${(detectMs / 1000).toFixed(2)} s; whole demo ${((performance.now() - started) / 1000).toFixed(2)} s.`);
}

main();
