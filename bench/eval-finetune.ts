/**
 * Does fine-tuning help on real data? Zero-shot forecastmodel-1 against the
 * same model fine-tuned on the request's series (the API's defaults: depth 1,
 * the default loss; 10 and 50 steps), scored on each series' hold-out.
 *
 * - M1 (bench/data, the competition's own split): the series of each
 *   period in requests of 10 consecutive series (fine-tuning tunes on all
 *   series of a request together), forecast h = the competition's horizon;
 * - the validation series (bench/data/validation.json, R packages' series):
 *   their last rolling origin, in requests of 10 series of one frequency.
 *
 * Each cell: mean MASE over the series, and in how many requests the
 * fine-tuned forecast has the lower mean MASE. Requests alternate between
 * two halves (even and odd request number), so a choice made on one half
 * can be reported on the other.
 *
 *   npm run build && node dist/bench/eval-finetune.js [--write]   (--write: docs/finetune-eval.md)
 */
import "../src/model/weights/default.js";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { forecast } from "../src/api/index.js";
import { FINETUNE_LEARNING_RATE } from "../src/finetune/index.js";
import type { Freq } from "../src/types.js";
import { loadM1, mase, PERIOD_FREQ } from "./m1.js";
import { loadValidation, validationWindows } from "./validation-data.js";

const STEPS = [10, 50] as const;
const GROUP = 10;

interface Request {
  readonly set: "M1" | "validation";
  readonly label: string;
  readonly freq: Freq;
  readonly m: number;
  readonly h: number;
  readonly train: readonly (readonly number[])[];
  readonly test: readonly (readonly number[])[];
}

/** Consecutive groups of GROUP series (a last, smaller group is left out). */
function groups<T>(list: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let g = 0; g + GROUP <= list.length; g += GROUP) out.push(list.slice(g, g + GROUP));
  return out;
}

function requests(): Request[] {
  const out: Request[] = [];
  const { series } = loadM1();
  for (const period of ["YEARLY", "QUARTERLY", "MONTHLY"] as const) {
    const freq = PERIOD_FREQ[period];
    const m = period === "MONTHLY" ? 12 : period === "QUARTERLY" ? 4 : 1;
    for (const group of groups(series.filter((s) => s.period === period))) {
      const h = group[0]!.h;
      if (group.some((s) => s.h !== h)) continue;
      out.push({ set: "M1", label: period.toLowerCase(), freq, m, h, train: group.map((s) => s.x), test: group.map((s) => s.xx) });
    }
  }
  const file = loadValidation();
  for (const { m, freq, h, label } of [
    { m: 1, freq: "Y" as Freq, h: 6, label: "yearly" },
    { m: 4, freq: "Q" as Freq, h: 8, label: "quarterly" },
    { m: 12, freq: "M" as Freq, h: 18, label: "monthly" },
  ]) {
    // the last origin of each series
    const last = new Map<string, { train: number[]; test: number[] }>();
    for (const w of validationWindows(file, m, h)) last.set(w.name, { train: [...w.train], test: [...w.test] });
    for (const group of groups([...last.values()])) out.push({ set: "validation", label, freq, m, h, train: group.map((s) => s.train), test: group.map((s) => s.test) });
  }
  return out;
}

/** Mean MASE of each series of the request (NaN where MASE is undefined) for `steps` fine-tune steps (0: zero-shot). */
function scores(r: Request, steps: number): number[] {
  const body = { series: { y: r.train.flat(), sizes: r.train.map((s) => s.length) }, freq: r.freq, h: r.h, model: "forecastmodel-1" as const, ...(steps > 0 ? { finetune_steps: steps } : {}) };
  const mean = forecast(body).mean;
  return r.train.map((train, i) => mase(train, r.test[i]!, mean.slice(i * r.h, (i + 1) * r.h), r.m));
}

interface Cell {
  series: number;
  zero: number;
  tuned: number;
  requests: number;
  better: number;
}

const started = process.hrtime.bigint();
const all = requests();
const cells = new Map<string, Cell>();
const cell = (key: string): Cell => {
  let c = cells.get(key);
  if (c === undefined) {
    c = { series: 0, zero: 0, tuned: 0, requests: 0, better: 0 };
    cells.set(key, c);
  }
  return c;
};
all.forEach((r, index) => {
  const half = index % 2 === 0 ? "A" : "B";
  const zero = scores(r, 0);
  for (const steps of STEPS) {
    const tuned = scores(r, steps);
    let z = 0;
    let t = 0;
    let n = 0;
    zero.forEach((v, i) => {
      if (Number.isFinite(v) && Number.isFinite(tuned[i]!)) {
        z += v;
        t += tuned[i]!;
        n++;
      }
    });
    if (n === 0) continue;
    for (const key of [`${r.set}|${r.label}|${steps}|${half}`, `${r.set}|all|${steps}|${half}`]) {
      const c = cell(key);
      c.series += n;
      c.zero += z;
      c.tuned += t;
      c.requests++;
      if (t < z) c.better++;
    }
  }
});
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const fmt = (c: Cell | undefined): string => (c === undefined ? "—" : `${(c.zero / c.series).toFixed(3)} → ${(c.tuned / c.series).toFixed(3)} (${c.better} of ${c.requests})`);
const lines: string[] = [];
lines.push("<!-- Generated by `npm run build && node dist/bench/eval-finetune.js --write` (bench/eval-finetune.ts); do not edit by hand. -->");
lines.push("# Fine-tuning on real data");
lines.push("");
lines.push(`Zero-shot forecastmodel-1 against the same model fine-tuned on the request's own series with the API's defaults (depth 1, the default loss, learning rate ${FINETUNE_LEARNING_RATE} cosine-decayed, then the output end's closed-form refit where the series' last points show it helps: see finetuning.md), at 10 and 50 steps, scored on each series' hold-out: M1 with the competition's split and horizons, and the last rolling origin of the validation series (R packages' series, bench/data/validation.json). Series are sent in requests of 10 consecutive series of one frequency (fine-tuning tunes on all series of a request together); requests alternate between halves A and B.`);
lines.push("");
lines.push("Each cell: mean MASE zero-shot → fine-tuned, and (in brackets) in how many requests fine-tuning lowered the request's mean MASE. Lower is better.");
lines.push("");
lines.push("| set | frequency | steps | half A | half B |");
lines.push("|---|---|---:|---|---|");
for (const set of ["M1", "validation"] as const) {
  for (const label of ["yearly", "quarterly", "monthly", "all"]) {
    for (const steps of STEPS) lines.push(`| ${set} | ${label} | ${steps} | ${fmt(cells.get(`${set}|${label}|${steps}|A`))} | ${fmt(cells.get(`${set}|${label}|${steps}|B`))} |`);
  }
}
lines.push("");
lines.push(`Requests: ${all.filter((r) => r.set === "M1").length} of M1, ${all.filter((r) => r.set === "validation").length} of the validation series. Time: ${seconds.toFixed(0)} s on ${os.cpus()[0]?.model ?? "?"} (one thread), Node ${process.version}.`);
const doc = lines.join("\n") + "\n";
console.log(doc);
if (process.argv.includes("--write")) {
  writeFileSync("docs/finetune-eval.md", doc);
  console.log("wrote docs/finetune-eval.md");
}
