/**
 * The records API's own cost: 2,000 hourly series of 48 rows with one
 * feature and 24 future rows each (48,000 future rows), through
 * forecastRecords and, for comparison, the same request as a JSON body
 * through forecast (the difference is the records layer: grouping, dates,
 * matching the future rows); and how long h: 1e6 (40 rows) and h: Infinity
 * take to be refused. One thread; best of 3 (the refusals: one run, given up
 * after 20 s when run on the unfixed code).
 *
 *   npm run build && node dist/bench/records-bench.js
 */
import "../src/model/weights/default.js";
import { forecast } from "../src/api/entry-points.js";
import { forecastRecords, type FutureRecordRow, type RecordRow } from "../src/api/records.js";

const SERIES = 2000;
const LENGTH = 48;
const H = 24;
const hour = (t: number): string => new Date(Date.UTC(2024, 0, 1) + t * 3_600_000).toISOString().slice(0, 19).replace("T", " ");

const rows: RecordRow[] = [];
const futureRows: FutureRecordRow[] = [];
const y: number[] = [];
const X: number[] = [];
const Xf: number[] = [];
for (let i = 0; i < SERIES; i++) {
  for (let t = 0; t < LENGTH; t++) {
    const v = 50 + 10 * Math.sin((2 * Math.PI * t) / 24) + ((t * 7919 + i * 104729) % 97) / 30;
    const price = (t + i) % 5;
    rows.push({ unique_id: `s${i}`, ds: hour(t), y: v, price });
    y.push(v);
    X.push(price);
  }
}
// future rows in the opposite order of the series, so a linear search scans far
for (let i = SERIES - 1; i >= 0; i--) for (let k = 0; k < H; k++) futureRows.push({ unique_id: `s${i}`, ds: hour(LENGTH + k), price: (LENGTH + k + i) % 5 });
for (let i = 0; i < SERIES; i++) for (let k = 0; k < H; k++) Xf.push((LENGTH + k + i) % 5);

function seconds(run: () => unknown, repeats = 3): number {
  let best = Infinity;
  for (let r = 0; r < repeats; r++) {
    const t0 = process.hrtime.bigint();
    run();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return best;
}

function refusal(h: number): string {
  const few: RecordRow[] = Array.from({ length: 40 }, (_, t) => ({ unique_id: "a", ds: hour(t), y: t % 7 }));
  const t0 = process.hrtime.bigint();
  let outcome = "answered";
  try {
    forecastRecords(few, { h });
  } catch (e) {
    outcome = e instanceof Error ? e.message.slice(0, 60) : String(e);
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  return `| h ${h} (40 rows) | ${s.toFixed(3)} s, ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB RSS after | ${outcome} |`;
}

const viaRecords = seconds(() => forecastRecords(rows, { h: H, futureRows }));
const viaBody = seconds(() => forecast({ series: { y, sizes: new Array<number>(SERIES).fill(LENGTH), X: [X] }, X_future: [Xf], freq: "H", h: H }));
console.log(`| ${SERIES} series × ${H} future rows | seconds |\n|---|---:|`);
console.log(`| forecastRecords | ${viaRecords.toFixed(2)} |`);
console.log(`| forecast (same body) | ${viaBody.toFixed(2)} |`);
console.log(`| records layer | ${(viaRecords - viaBody).toFixed(2)} |`);
console.log("\n| refusal | time | outcome |\n|---|---|---|");
console.log(refusal(1e6));
if (process.argv.includes("--infinity")) console.log(refusal(Infinity));
