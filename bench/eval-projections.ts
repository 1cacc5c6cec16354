/**
 * The cheap proxy used before a retrain: each classical projection the
 * network is fed (and "comb", the mean of SES, Theta and damped trend), on
 * its own, on the validation windows of bench/eval-validation.ts, as the
 * geometric mean of MASE relative to R's ets (below 1: better than ets).
 *
 *   npm run build && node dist/bench/eval-projections.js
 */
import { networkShape, PROJECTION_COUNT } from "../src/model/config.js";
import { WindowFeaturizer, type WindowScale } from "../src/model/features.js";
import { mase } from "./m1.js";
import { loadValidation, validationWindows } from "./validation-data.js";

const file = loadValidation();
const shape = networkShape("forecastmodel-1");
const featurizer = new WindowFeaturizer(shape);
const row = new Float64Array(featurizer.layout.size);
const O = shape.outputLength;
const NAMES = ["naive", "snaive", "ses", "theta", "damped", "drift", "comb"];
console.log("| group | windows | " + NAMES.join(" | ") + " |\n|---|---|" + NAMES.map(() => "---|").join(""));
for (const [m, h, label] of [[1, 6, "yearly"], [4, 8, "quarterly"], [12, 18, "monthly"]] as const) {
  const logRel = new Float64Array(NAMES.length);
  let windows = 0;
  for (const { origin: o, train, test } of validationWindows(file, m, h)) {
    if (o.ets.some((v) => v === null)) continue;
    const etsMase = mase(train, test, o.ets as number[], m);
    if (!(etsMase > 0 && Number.isFinite(etsMase))) continue;
    const scale: WindowScale = { location: 0, scale: 0, constant: true };
    featurizer.featurize(Float64Array.from(train), m, row, 0, scale);
    const at = featurizer.layout.projections;
    const value = (p: number, k: number): number => (scale.constant ? scale.location : scale.location + scale.scale * row[at + p * O + k]!);
    const forecasts: number[][] = [];
    for (let p = 0; p < PROJECTION_COUNT; p++) forecasts.push(Array.from({ length: h }, (_, k) => value(p, k)));
    forecasts.push(Array.from({ length: h }, (_, k) => (value(2, k) + value(3, k) + value(4, k)) / 3));
    forecasts.forEach((f, i) => (logRel[i]! += Math.log(mase(train, test, f, m) / etsMase)));
    windows++;
  }
  console.log(`| ${label} | ${windows} | ` + NAMES.map((_, i) => Math.exp(logRel[i]! / windows).toFixed(3)).join(" | ") + " |");
}
