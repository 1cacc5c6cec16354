/** Test helpers for the exogenous and historic tests: data generators and simple forecasters. */
import seedrandom from "seedrandom";
import type { Forecaster, SeriesData } from "../../src/types.js";

/** Packs plain arrays into SeriesData. */
export function makeSeries(ys: readonly number[][], X: readonly number[][][] = []): SeriesData {
  const sizes = Int32Array.from(ys.map((v) => v.length));
  const offsets = new Int32Array(sizes.length + 1);
  for (let i = 0; i < sizes.length; i++) offsets[i + 1] = (offsets[i] as number) + (sizes[i] as number);
  const features = X.length > 0 ? (X[0] as number[][]).length : 0;
  const feat: Float64Array[] = [];
  for (let k = 0; k < features; k++) feat.push(Float64Array.from(X.flatMap((perSeries) => perSeries[k] as number[])));
  return { y: Float64Array.from(ys.flat()), sizes, offsets, X: feat };
}

/** A forecaster that fills each context's h values, row i of the output, with `fill`. */
function perContextForecaster(name: string, seasonLength: number, fill: (context: Float64Array, h: number, row: Float64Array) => void): Forecaster {
  return {
    name,
    seasonLength,
    forecast(contexts, h) {
      const out = new Float64Array(contexts.length * h);
      contexts.forEach((c, i) => fill(c, h, out.subarray(i * h, (i + 1) * h)));
      return out;
    },
  };
}

/** Seasonal naive: repeats the last season of each context. */
export function seasonalNaive(seasonLength: number): Forecaster {
  return perContextForecaster("seasonal-naive", seasonLength, (c, h, row) => {
    const m = Math.min(seasonLength, c.length);
    for (let k = 0; k < h; k++) row[k] = c[c.length - m + (k % m)] as number;
  });
}

/** Seasonal mean: the mean of all context values at the same phase of the season. */
export function seasonalMean(seasonLength: number): Forecaster {
  return perContextForecaster("seasonal-mean", seasonLength, (c, h, row) => {
    const n = c.length;
    for (let k = 0; k < h; k++) {
      let sum = 0;
      let count = 0;
      for (let t = n + k - seasonLength * Math.ceil((k + 1) / seasonLength); t >= 0; t -= seasonLength) {
        if (t < n) {
          sum += c[t] as number;
          count++;
        }
      }
      row[k] = count > 0 ? sum / count : (c[n - 1] as number);
    }
  });
}

/** Standard normal draws from a seeded generator (Box–Muller). */
export function normals(seed: string, n: number): number[] {
  const rng = seedrandom(seed);
  const out: number[] = [];
  while (out.length < n) {
    const u = 1 - rng();
    const v = rng();
    const r = Math.sqrt(-2 * Math.log(u));
    out.push(r * Math.cos(2 * Math.PI * v), r * Math.sin(2 * Math.PI * v));
  }
  return out.slice(0, n);
}

/**
 * The known-answer data: y = level + 2·sin(2πt/7) + 3·x1 − 2·x2 + N(0, 0.5²),
 * x1, x2 ~ N(0, 1), `count` series of `length` points.
 */
export function knownAnswerData(count: number, length: number, seed = "known-answer"): { ys: number[][]; X: number[][][] } {
  const ys: number[][] = [];
  const X: number[][][] = [];
  for (let i = 0; i < count; i++) {
    const x1 = normals(`${seed}-x1-${i}`, length);
    const x2 = normals(`${seed}-x2-${i}`, length);
    const noise = normals(`${seed}-e-${i}`, length);
    const level = 50 + 10 * i;
    ys.push(x1.map((a, t) => level + 2 * Math.sin((2 * Math.PI * t) / 7) + 3 * a - 2 * (x2[t] as number) + 0.5 * (noise[t] as number)));
    X.push([x1, x2]);
  }
  return { ys, X };
}

/**
 * Non-overlapping windows of length h ending at the last point of each series,
 * each forecast from everything before it: rows, origins and model outputs.
 */
export function inSampleWindows(
  series: SeriesData,
  forecaster: Forecaster,
  h: number,
  minContext: number,
): { rows: Int32Array; origins: Int32Array; model: Float64Array } {
  const rows: number[] = [];
  const origins: number[] = [];
  const contexts: Float64Array[] = [];
  for (let i = 0; i < series.sizes.length; i++) {
    const start = series.offsets[i] as number;
    const n = series.sizes[i] as number;
    const windows = Math.floor((n - minContext) / h);
    for (let w = windows; w >= 1; w--) {
      const from = n - w * h;
      contexts.push(series.y.subarray(start, start + from));
      for (let k = 0; k < h; k++) {
        rows.push(start + from + k);
        origins.push(start + from - 1);
      }
    }
  }
  return { rows: Int32Array.from(rows), origins: Int32Array.from(origins), model: forecaster.forecast(contexts, h) };
}
