/**
 * Converts the Microsoft Cloud Monitoring Dataset (github:microsoft/cloud-monitoring-dataset,
 * MIT) into the compact form of bench/data/cloud-monitoring/: one JSON file per
 * domain folder, its LICENSE and a generated README (source commit, the split,
 * how each irregularity of the CSVs was handled, per series).
 *
 *   npm run build && node dist/bench/data/convert-cloud-monitoring.js /work/.mirror/microsoft+cloud-monitoring-dataset/repo
 *
 * The argument is a git directory (bare or not) of the dataset's repository;
 * the files are read from its HEAD with `git show`, so the output names the
 * exact commit it came from.
 *
 * Each CSV (TimeStamp,Value,Label) becomes a regular grid of `step` seconds
 * from its first timestamp (timestamps without a zone are read as UTC):
 * - repeated timestamps become one point: the mean of the copies' values,
 *   labelled when any copy is labelled (counted in `merged`);
 * - an empty or non-numeric value keeps its point and label, its value is
 *   interpolated linearly between the nearest numeric neighbours (the nearest
 *   one at an end) and its index listed in `filled`;
 * - a missing timestamp (a gap of k steps) gets k − 1 points, interpolated
 *   the same way, unlabelled, and listed in `filled`.
 * A timestamp that goes back, or a gap that is not a whole number of steps,
 * stops the conversion with an error naming the file and row.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { CLOUD_MONITORING_SPLIT, type CloudMonitoringFile, type CloudMonitoringSeries } from "../../tools/datasets/cloud-monitoring-data.js";

const OUT = "bench/data/cloud-monitoring";

/** What the conversion did to one CSV, for the README. */
interface Report {
  id: string;
  rows: number;
  merged: number;
  mergedDifferentValues: number;
  mergedDifferentLabels: number;
  nonNumeric: number;
  inserted: number;
  /** Longest run of missing timestamps, in steps. */
  longestGap: number;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
}

/** Milliseconds since the epoch of a dataset timestamp (quotes stripped; no zone = UTC). */
function parseTime(text: string, where: string): number {
  const bare = text.replace(/^"|"$/g, "").trim().replace(" ", "T");
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(bare) ? bare : `${bare}Z`;
  const ms = Date.parse(zoned);
  if (!Number.isFinite(ms)) throw new Error(`${where}: timestamp ${JSON.stringify(text)} is not ISO 8601`);
  return ms;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The numeric value of a field, or NaN when it is empty or not a finite number. */
function parseValue(text: string): number {
  const bare = text.replace(/^"|"$/g, "").trim();
  return NUMBER.test(bare) ? Number(bare) : Number.NaN;
}

/** The most common positive difference between consecutive timestamps. */
function commonStep(times: readonly number[]): number {
  const counts = new Map<number, number>();
  for (let i = 1; i < times.length; i++) {
    const d = times[i]! - times[i - 1]!;
    if (d > 0) counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
}

/** Runs [first, last] (inclusive) of labelled points. */
function runsOf(labels: Uint8Array): [number, number][] {
  const runs: [number, number][] = [];
  for (let t = 0; t < labels.length; t++) {
    if (labels[t] !== 1) continue;
    if (runs.length > 0 && runs[runs.length - 1]![1] === t - 1) runs[runs.length - 1]![1] = t;
    else runs.push([t, t]);
  }
  return runs;
}

/** Fills NaN values by linear interpolation between the nearest finite neighbours (the nearest one at an end). */
function interpolate(values: Float64Array, where: string): void {
  const known: number[] = [];
  values.forEach((v, t) => (Number.isNaN(v) ? null : known.push(t)));
  if (known.length === 0) throw new Error(`${where}: no numeric value`);
  let k = 0;
  for (let t = 0; t < values.length; t++) {
    if (!Number.isNaN(values[t]!)) continue;
    while (k + 1 < known.length && known[k + 1]! < t) k++;
    const before = known[k]! < t ? known[k]! : null;
    const after = known.find((i) => i > t) ?? null;
    if (before === null) values[t] = values[after!]!;
    else if (after === null) values[t] = values[before]!;
    else values[t] = values[before]! + ((values[after]! - values[before]!) * (t - before)) / (after - before);
  }
}

/** One CSV as a regular series and what was done to it. */
function convert(id: string, csv: string, where: string): { series: CloudMonitoringSeries; report: Report } {
  const lines = csv.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = lines[0]!.replace(/"/g, "").split(",").map((s) => s.trim());
  if (header.join(",") !== "TimeStamp,Value,Label") throw new Error(`${where}: header ${lines[0]} is not TimeStamp,Value,Label`);
  const rows = lines.slice(1).map((line, r) => {
    const fields = line.split(",");
    if (fields.length !== 3) throw new Error(`${where} row ${r + 2}: ${fields.length} fields, expected 3`);
    const label = fields[2]!.replace(/"/g, "").trim();
    if (label !== "0" && label !== "1") throw new Error(`${where} row ${r + 2}: label ${JSON.stringify(label)} is not 0 or 1`);
    return { time: parseTime(fields[0]!, `${where} row ${r + 2}`), value: parseValue(fields[1]!), label: label === "1" ? 1 : 0 };
  });
  const times = rows.map((r) => r.time);
  const stepMs = commonStep(times);
  const start = times[0]!;
  const n = (times[times.length - 1]! - start) / stepMs + 1;
  const sum = new Float64Array(n);
  const copies = new Int32Array(n);
  const labels = new Uint8Array(n);
  const report: Report = { id, rows: rows.length, merged: 0, mergedDifferentValues: 0, mergedDifferentLabels: 0, nonNumeric: 0, inserted: 0, longestGap: 0 };
  const firstValue = new Float64Array(n).fill(Number.NaN);
  const firstLabel = new Int8Array(n).fill(-1);
  rows.forEach((row, r) => {
    if (r > 0 && row.time < rows[r - 1]!.time) throw new Error(`${where} row ${r + 2}: timestamp goes back`);
    const offset = (row.time - start) / stepMs;
    if (!Number.isInteger(offset)) throw new Error(`${where} row ${r + 2}: not a whole number of ${stepMs / 1000}-second steps from the first timestamp`);
    if (firstLabel[offset]! >= 0) {
      report.merged++;
      if (row.label !== firstLabel[offset]) report.mergedDifferentLabels++;
      if (!Object.is(row.value, firstValue[offset]) && !(Number.isNaN(row.value) && Number.isNaN(firstValue[offset]!))) report.mergedDifferentValues++;
    } else {
      firstValue[offset] = row.value;
      firstLabel[offset] = row.label;
      if (Number.isNaN(row.value)) report.nonNumeric++;
    }
    if (!Number.isNaN(row.value)) {
      sum[offset]! += row.value;
      copies[offset]!++;
    }
    if (row.label === 1) labels[offset] = 1;
  });
  const values = new Float64Array(n);
  const filled: number[] = [];
  let gap = 0;
  for (let t = 0; t < n; t++) {
    gap = firstLabel[t] === -1 ? gap + 1 : 0;
    report.longestGap = Math.max(report.longestGap, gap);
    if (firstLabel[t] === -1) report.inserted++;
    values[t] = copies[t]! > 0 ? sum[t]! / copies[t]! : Number.NaN;
    if (copies[t] === 0) filled.push(t);
  }
  interpolate(values, where);
  return {
    series: { id, start: new Date(start).toISOString().replace(".000Z", "Z"), step: stepMs / 1000, values: Array.from(values), labelRuns: runsOf(labels), filled, merged: report.merged },
    report,
  };
}

const source = process.argv[2];
if (source === undefined) {
  console.error("usage: node dist/bench/data/convert-cloud-monitoring.js <git directory of microsoft/cloud-monitoring-dataset>");
  process.exit(2);
}
const commit = git(source, "rev-parse", "HEAD").trim();
const files = git(source, "ls-tree", "-r", "--name-only", "HEAD").split("\n").filter((f) => /^data\/[^/]+\/[^/]+\.csv$/.test(f)).sort();
const domains = [...new Set(files.map((f) => f.split("/")[1]!))].sort();
const expected = [...CLOUD_MONITORING_SPLIT.development, ...CLOUD_MONITORING_SPLIT.heldOut].sort();
if (domains.join(",") !== expected.join(",")) throw new Error(`domain folders ${domains.join(", ")} differ from the split's ${expected.join(", ")}`);
mkdirSync(OUT, { recursive: true });
const reports: { domain: string; series: CloudMonitoringSeries; report: Report }[] = [];
for (const domain of domains) {
  const out: CloudMonitoringFile = { source: "github:microsoft/cloud-monitoring-dataset", commit, domain, series: [] };
  for (const file of files.filter((f) => f.split("/")[1] === domain)) {
    const id = file.split("/")[2]!.replace(/\.csv$/, "");
    const { series, report } = convert(id, git(source, "show", `HEAD:${file}`), file);
    out.series.push(series);
    reports.push({ domain, series, report });
  }
  writeFileSync(`${OUT}/${domain}.json`, JSON.stringify(out) + "\n");
}
writeFileSync(`${OUT}/LICENSE`, git(source, "show", "HEAD:LICENSE"));

const sum = (f: (r: Report) => number) => reports.reduce((a, r) => a + f(r.report), 0);
const part = (domain: string) => (CLOUD_MONITORING_SPLIT.development.includes(domain) ? "development" : "held out");
const readme = [
  "<!-- Generated by `npm run build && node dist/bench/data/convert-cloud-monitoring.js <git dir>` (bench/data/convert-cloud-monitoring.ts); do not edit by hand. -->",
  "# Microsoft Cloud Monitoring Dataset, converted",
  "",
  `Source: [microsoft/cloud-monitoring-dataset](https://github.com/microsoft/cloud-monitoring-dataset) at commit \`${commit}\`, MIT licence (\`LICENSE\` here is its text). ${files.length} CSVs of production telemetry (TimeStamp,Value,Label) in ${domains.length} domain folders, per hour or per minute, with expert labels (1 = anomalous point). Loaded by \`tools/datasets/cloud-monitoring-data.ts\`.`,
  "",
  "## The split (fixed before any choice was made on this data)",
  "",
  "By domain folder, alternating in alphabetical order: the 1st, 3rd, 5th, 7th and 9th folder are the development half, the 2nd, 4th, 6th and 8th the held-out half. Choices are made on the development half only; the held-out half is scored, never tuned on.",
  "",
  "| # | domain folder | half | series | points | labelled points |",
  "|---:|---|---|---:|---:|---:|",
  ...domains.map((d, i) => {
    const of = reports.filter((r) => r.domain === d);
    const points = of.reduce((a, r) => a + r.series.values.length, 0);
    const labelled = of.reduce((a, r) => a + r.series.labelRuns.reduce((b, [s, e]) => b + e - s + 1, 0), 0);
    return `| ${i + 1} | ${d} | ${part(d)} | ${of.length} | ${points.toLocaleString("en-US")} | ${labelled.toLocaleString("en-US")} |`;
  }),
  "",
  "## Format",
  "",
  "One JSON file per domain folder: `{ source, commit, domain, series }`, each series `{ id, start, step, values, labelRuns, filled, merged }`: `id` the CSV's name without `.csv`; `start` the first timestamp (UTC, timestamps without a zone read as UTC); `step` seconds between points; `values` one number per step from `start` (no timestamps per point); `labelRuns` the runs of consecutive labelled points as `[first, last]` indices (inclusive); `filled` the indices whose value was interpolated; `merged` how many rows repeated an earlier timestamp.",
  "",
  "## What the CSVs hold besides a regular grid, and what was done (nothing is dropped silently)",
  "",
  `- Repeated timestamps (${sum((r) => r.merged)} rows in ${reports.filter((r) => r.report.merged > 0).length} files): each repeat is merged into the first point with its timestamp: value = mean of the copies, labelled when any copy is labelled. The copies had different values ${sum((r) => r.mergedDifferentValues)} time(s) and different labels ${sum((r) => r.mergedDifferentLabels)} time(s). (The repeats in application-crash-rate-1 and -2 fall on the same hours across the files of each folder, an export artefact, and repeat the row exactly but for ${sum((r) => r.mergedDifferentLabels)} label(s); the one in ecommerce-api-incoming-rps/api-01 at 2017-11-05 01:00, with a missing 2018-03-11 02:00, looks like local time written as UTC across daylight-saving changes.)`,
  `- Empty or non-numeric values (${sum((r) => r.nonNumeric)} rows in ${reports.filter((r) => r.report.nonNumeric > 0).length} files, all empty fields): the point and its label are kept; its value is interpolated linearly between the nearest numeric neighbours and its index listed in \`filled\`.`,
  `- Missing timestamps (${sum((r) => r.inserted)} points in ${reports.filter((r) => r.report.inserted > 0).length} files, the longest run ${Math.max(...reports.map((r) => r.report.longestGap))} points): inserted, interpolated the same way, unlabelled, listed in \`filled\`.`,
  "- Every other field parsed: every label is 0 or 1, every timestamp moves forward by whole steps.",
  "",
  "| file | half | step (s) | rows | points | labelled points | runs | repeated rows merged | empty values filled | missing points inserted |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...reports.map(({ domain, series, report }) => {
    const labelled = series.labelRuns.reduce((b, [s, e]) => b + e - s + 1, 0);
    return `| ${domain}/${series.id}.csv | ${part(domain)} | ${series.step} | ${report.rows} | ${series.values.length} | ${labelled} | ${series.labelRuns.length} | ${report.merged} | ${report.nonNumeric} | ${report.inserted} |`;
  }),
  "",
];
writeFileSync(`${OUT}/README.md`, readme.join("\n"));
console.log(`${files.length} series from ${commit} written to ${OUT}`);
