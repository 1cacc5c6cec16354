/**
 * Zero-shot accuracy of forecastmodel-1 on the M1 competition data beside R's
 * seasonal naive, ets and thetaf on the same splits, and the calibration of
 * its 80 % and 95 % intervals beside R's ets intervals (on M1 and on the
 * validation series); writes docs/accuracy.md.
 *
 *   npm run eval:accuracy
 *
 * M1 is used for evaluation only: nothing is trained or tuned on it.
 */
import "../src/model/weights/default.js";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { modelSource } from "../src/finetune/index.js";
import { runForecast } from "../src/forecast/index.js";
import type { ModelName } from "../src/types.js";
import { intervalReport, intervalTable } from "./eval-intervals.js";
import { forecastRequest, type IntervalTotals } from "./interval-eval.js";
import { loadM1, mase, PERIOD_FREQ, smape, type M1Series } from "./m1.js";

const model = (process.argv[2] ?? "forecastmodel-1") as ModelName;
const outPath = process.argv.includes("--no-write") ? null : "docs/accuracy.md";
const { series, baselines } = loadM1();
const groups: M1Series["period"][] = ["YEARLY", "QUARTERLY", "MONTHLY"];
const methods = ["forecastmodel", "snaive", "ets", "theta"] as const;
type Method = (typeof methods)[number];
const sums = new Map<string, { smape: number; mase: number; n: number }>();
const add = (key: string, s: number, m: number): void => {
  const v = sums.get(key) ?? { smape: 0, mase: 0, n: 0 };
  v.smape += s;
  v.mase += m;
  v.n++;
  sums.set(key, v);
};
const started = process.hrtime.bigint();
for (const period of groups) {
  const members = series.filter((s) => s.period === period);
  const freq = PERIOD_FREQ[period];
  const h = members[0]!.h;
  // the point forecasts as a user gets them (runForecast without levels)
  const request = forecastRequest(model, freq, members.map((s) => s.x), h, []);
  const fc = runForecast(request, modelSource(request)).mean;
  members.forEach((s, i) => {
    const ours = fc.subarray(i * h, (i + 1) * h);
    const base = baselines.get(s.id)!;
    const per: Record<Method, ArrayLike<number>> = { forecastmodel: ours, snaive: base.snaive, ets: base.ets, theta: base.theta };
    for (const method of methods) {
      const f = per[method];
      const sm = smape(s.xx, f);
      const ma = mase(s.x, s.xx, f, s.m);
      add(`${method}|${period}`, sm, ma);
      add(`${method}|ALL`, sm, ma);
    }
  });
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const label: Record<Method, string> = { forecastmodel: `${model} (zero-shot)`, snaive: "seasonal naive (R)", ets: "ets (R)", theta: "thetaf (R)" };
const cols = [...groups, "ALL"] as const;
const cell = (method: Method, g: string): string => {
  const v = sums.get(`${method}|${g}`)!;
  return `${(v.smape / v.n).toFixed(2)} / ${(v.mase / v.n).toFixed(3)}`;
};
const rows = methods.map((m) => `| ${label[m]} | ${cols.map((g) => cell(m, g)).join(" | ")} |`);
const table = [
  "| method | yearly (h=6) | quarterly (h=8) | monthly (h=18) | all |",
  "|---|---|---|---|---|",
  ...rows,
].join("\n");
const meanMase = (method: Method, g: string): number => sums.get(`${method}|${g}`)!.mase / sums.get(`${method}|${g}`)!.n;
const verdicts = [...groups, "ALL"].map((g) => {
  const ours = meanMase("forecastmodel", g);
  const beats = (m: Method): string => (ours <= meanMase(m, g) ? "≤" : ">");
  return `- ${g.toLowerCase()}: MASE ${ours.toFixed(3)} ${beats("snaive")} seasonal naive, ${beats("ets")} ets (${meanMase("ets", g).toFixed(3)}), ${beats("theta")} thetaf (${meanMase("theta", g).toFixed(3)})`;
});
console.log(table);
console.log(verdicts.join("\n"));
console.log(`forecast time for 1,001 series: ${seconds.toFixed(2)} s`);

const intervals = intervalReport(model);
const pct = (a: number, b: number): number => (100 * a) / b;
const within = (t: IntervalTotals): string => {
  const c80 = pct(t.inside80, t.points);
  const c95 = pct(t.inside95, t.points);
  const ok80 = Math.abs(c80 - 80) <= 3 ? "within 3 points" : c80 < 80 ? "below by " + (80 - c80).toFixed(1) : "above by " + (c80 - 80).toFixed(1);
  const ok95 = Math.abs(c95 - 95) <= 3 ? "within 3 points" : c95 < 95 ? "below by " + (95 - c95).toFixed(1) : "above by " + (c95 - 95).toFixed(1);
  return `80 %: ${c80.toFixed(1)} % (${ok80}), 95 %: ${c95.toFixed(1)} % (${ok95})`;
};
const intervalVerdicts = (rows: typeof intervals.m1): string =>
  [...rows]
    .map(([g, r]) => {
      const ours = r.ours.msis / r.ours.windows;
      const ets = r.ets.msis / r.ets.windows;
      return `- ${g}: ${within(r.ours)}; MSIS ${ours.toFixed(2)} ${ours <= ets ? "≤" : ">"} ets ${ets.toFixed(2)}`;
    })
    .join("\n");
const m1IntervalTable = intervalTable(intervals.m1, model);
const validationIntervalTable = intervalTable(intervals.validation, model);
console.log(m1IntervalTable);
console.log(validationIntervalTable);
/**
 * The all-series table of docs/hourly-accuracy.md (written just before by
 * bench/eval-hourly.ts in the same \`npm run eval:accuracy\`).
 */
function hourlySection(): string {
  const path = "docs/hourly-accuracy.md";
  if (!existsSync(path)) throw new Error(`${path} is missing: run node dist/bench/eval-hourly.js first (npm run eval:accuracy does)`);
  const text = readFileSync(path, "utf8");
  const from = text.indexOf("## All series");
  const to = text.indexOf("\n## ", from + 1);
  if (from < 0 || to < 0) throw new Error(`${path}: no "## All series" section`);
  return text.slice(from + "## All series".length, to).trim();
}

if (outPath !== null) {
  const doc = `<!-- Generated by \`npm run eval:accuracy\` (bench/eval-accuracy.ts); do not edit by hand. -->
# Accuracy on the M1 competition data

Zero-shot ${model} (pretrained only on synthetic series; M1 is never used for
training or tuning) against R's forecast package 8.20 on the same train/test
splits. Each cell is mean sMAPE (%) / mean MASE (scaled by the in-sample
seasonal-naive error). Lower is better.

${table}

MASE of ${model} beside each baseline (≤: no worse, >: worse):

${verdicts.join("\n")}

- Series: 181 yearly, 203 quarterly, 617 monthly (the \`Mcomp\` package's M1).
- Baseline forecasts: \`../bench/data/m1-baselines.json\` (\`snaive\`, \`ets\`, \`thetaf\`).
- Forecast time for all 1,001 series: ${seconds.toFixed(2)} s on ${os.cpus()[0]?.model ?? "unknown CPU"} (one thread).

## Prediction intervals

The intervals a user gets from \`forecast\` with \`level: [80, 95]\` (the
network's quantiles calibrated on each series' own rolling-origin errors, see
[forecasting](forecasting.md#how-the-intervals-are-made)), on the same splits
as above, beside R's \`forecast(ets(y), h, level = c(80, 95))\` (R 4.2.2,
forecast 8.20; \`bench/data/make-ets-intervals.R\`, stored in
\`bench/data/m1-ets-intervals.json\` and \`bench/data/validation-ets-intervals.json\`).
Each cell: share of the test actuals inside the 80 % interval / inside the
95 % interval / mean MSIS at 95 % (the M4 competition's interval score:
width plus 40 × the distance by which the actual falls outside, averaged over
the horizon and divided by the in-sample mean absolute seasonal difference,
as MASE; lower is better). The last column is the mean ratio of the 95 % to
the 80 % width (1.53 for a normal law).

### M1 (evaluation only)

${m1IntervalTable}

${intervalVerdicts(intervals.m1)}

### Validation series (where the interval rules were chosen)

The 170 series of [validation.md](validation.md), 4 rolling origins each.

${validationIntervalTable}

${intervalVerdicts(intervals.validation)}

- Point forecasts are unchanged by the intervals: the network's spread head
  was trained after, and apart from, the point network.
- Interval evaluation time (M1 and validation, calibration windows included):
  ${intervals.seconds.toFixed(1)} s.

## Hourly and sub-hourly data

The hourly, half-hourly and per-minute development series of issue 30
(ETT, forecast::taylor, the Cloud Monitoring Dataset's development half),
each split by time into a development and a held-out part, rolling origins,
h 24 and 48; the full tables by source, the protocol and the choices are in
[hourly-accuracy.md](hourly-accuracy.md) (same command). Each cell: mean
sMAPE (%) / mean MASE.

${hourlySection()}
`;
  writeFileSync(outPath, doc);
  console.log(`wrote ${outPath}`);
}
