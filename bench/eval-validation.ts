/**
 * Model-selection data that is NOT M1: rolling-origin hold-outs on the classic
 * series of R's datasets (bench/data/r-datasets.json), yearly, quarterly and
 * monthly ones. Compares the network alone, the classical combination of its
 * SES, Theta and damped-trend projections ("Comb"), and blends of the two.
 *
 *   npm run build && node dist/bench/eval-validation.js
 */
import { readFileSync } from "node:fs";
import { createNetworkForecaster } from "../src/model/forecaster.js";
import { networkShape } from "../src/model/config.js";
import { WindowFeaturizer } from "../src/model/features.js";
import type { Freq } from "../src/types.js";
import { mase, smape } from "./m1.js";

const data = JSON.parse(readFileSync("bench/data/r-datasets.json", "utf8")) as Record<string, { frequency: number; n: number; n_na: number; y: (number | null)[] }>;
const FREQ: Record<number, { freq: Freq; h: number }> = { 1: { freq: "Y", h: 6 }, 4: { freq: "Q", h: 8 }, 12: { freq: "M", h: 18 } };
const shape = networkShape("forecastmodel-1");
const featurizer = new WindowFeaturizer(shape);
const D = featurizer.layout.size;
const row = new Float64Array(D);
const O = shape.outputLength;
const weights = [0, 0.25, 0.5, 0.75, 1];
const totals = new Map<string, { mase: number; smape: number; n: number }>();
for (const [name, s] of Object.entries(data)) {
  const spec = FREQ[s.frequency];
  if (spec === undefined || s.n_na > 0) continue;
  const y = s.y as number[];
  const f = createNetworkForecaster("forecastmodel-1", spec.freq);
  for (let origin = 0; origin < 4; origin++) {
    const end = y.length - origin * spec.h;
    const train = y.slice(Math.max(0, end - spec.h - 96), end - spec.h);
    const test = y.slice(end - spec.h, end);
    if (train.length < 2 * s.frequency + 4) continue;
    const net = f.forecast([Float64Array.from(train)], spec.h);
    const scale = { location: 0, scale: 0, constant: true };
    featurizer.featurize(Float64Array.from(train), s.frequency, row, 0, scale);
    const comb = new Float64Array(spec.h);
    for (let k = 0; k < spec.h; k++) {
      const at = featurizer.layout.projections;
      const z = (row[at + 2 * O + k]! + row[at + 3 * O + k]! + row[at + 4 * O + k]!) / 3;
      comb[k] = scale.constant ? scale.location : scale.location + scale.scale * z;
    }
    for (const w of weights) {
      const fc = net.map((v, k) => w * v + (1 - w) * comb[k]!);
      const key = `${spec.freq}|${w}`;
      const m = mase(train, test, fc, s.frequency);
      if (!Number.isFinite(m)) continue; // a series with a zero in-sample scale (e.g. a 0/1 dummy) has no MASE
      const t = totals.get(key) ?? { mase: 0, smape: 0, n: 0 };
      t.mase += m;
      t.smape += smape(test, fc);
      t.n++;
      totals.set(key, t);
      void name;
    }
  }
}
console.log("| freq | network weight | windows | sMAPE | MASE |\n|---|---|---|---|---|");
for (const [key, t] of [...totals.entries()].sort()) {
  const [freq, w] = key.split("|");
  console.log(`| ${freq} | ${w} | ${t.n} | ${(t.smape / t.n).toFixed(2)} | ${(t.mase / t.n).toFixed(3)} |`);
}
