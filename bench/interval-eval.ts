/**
 * Interval scoring shared by the accuracy reports: coverage of central
 * intervals and MSIS (the M4 competition's mean scaled interval score), and
 * the forecast pipeline run the way a user calls it (`runForecast` with levels).
 */
import "../src/model/weights/default.js";
import { runForecast } from "../src/forecast/index.js";
import type { ForecastInput, Freq, ModelName } from "../src/types.js";
import { modelSource } from "../src/finetune/index.js";
import { packSeries, seriesOffsets } from "../src/series/index.js";

/** Point forecast and 80 % / 95 % bounds of one hold-out window. */
export interface WindowIntervals {
  mean: ArrayLike<number>;
  lo80: ArrayLike<number>;
  hi80: ArrayLike<number>;
  lo95: ArrayLike<number>;
  hi95: ArrayLike<number>;
}

/** Running totals of interval scores over windows. */
export interface IntervalTotals {
  points: number;
  inside80: number;
  inside95: number;
  windows: number;
  msis: number;
  /** Mean width of the 95 % interval over the 80 % one, summed over points where the 80 % width is positive. */
  widthRatio: number;
  widthPoints: number;
}

export function emptyTotals(): IntervalTotals {
  return { points: 0, inside80: 0, inside95: 0, windows: 0, msis: 0, widthRatio: 0, widthPoints: 0 };
}

/**
 * In-sample scale of MASE and MSIS: mean absolute seasonal difference at lag m
 * (lag 1 when the training slice is not longer than m).
 */
export function seasonalScale(train: ArrayLike<number>, m: number): number {
  const lag = train.length > m ? m : 1;
  let s = 0;
  for (let t = lag; t < train.length; t++) s += Math.abs(train[t]! - train[t - lag]!);
  return s / Math.max(train.length - lag, 1);
}

/**
 * MSIS at level 1 − a: mean over the horizon of (U − L) + (2/a)(L − y)·1{y < L}
 * + (2/a)(y − U)·1{y > U}, divided by the seasonal scale.
 */
export function msis(actual: ArrayLike<number>, lo: ArrayLike<number>, hi: ArrayLike<number>, scale: number, a = 0.05): number {
  let s = 0;
  for (let k = 0; k < actual.length; k++) {
    const y = actual[k]!;
    const L = lo[k]!;
    const U = hi[k]!;
    s += U - L;
    if (y < L) s += (2 / a) * (L - y);
    if (y > U) s += (2 / a) * (y - U);
  }
  return s / actual.length / scale;
}

/** Adds one window's scores (MSIS only where the scale is positive and finite). */
export function addWindow(t: IntervalTotals, actual: ArrayLike<number>, w: WindowIntervals, scale: number): void {
  for (let k = 0; k < actual.length; k++) {
    const y = actual[k]!;
    t.points++;
    if (y >= w.lo80[k]! && y <= w.hi80[k]!) t.inside80++;
    if (y >= w.lo95[k]! && y <= w.hi95[k]!) t.inside95++;
    const w80 = w.hi80[k]! - w.lo80[k]!;
    if (w80 > 0) {
      t.widthRatio += (w.hi95[k]! - w.lo95[k]!) / w80;
      t.widthPoints++;
    }
  }
  if (scale > 0 && Number.isFinite(scale)) {
    t.msis += msis(actual, w.lo95, w.hi95, scale);
    t.windows++;
  }
}

/**
 * A user's forecast request for many training slices of one frequency, packed
 * into one SeriesData: zero-shot (no fine-tuning), no exogenous features.
 * Run it with `runForecast(request, modelSource(request))`.
 */
export function forecastRequest(model: ModelName, freq: Freq, trains: readonly ArrayLike<number>[], h: number, levels: readonly number[]): ForecastInput {
  const { y, sizes } = packSeries(trains);
  return {
    series: { y, sizes, offsets: seriesOffsets(sizes), X: [] }, h, freq, levels, model,
    finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null,
    Xfuture: [], cleanExFirst: true, histExog: [],
  };
}

/** forecastmodel's intervals for many training slices of one frequency, as a user gets them (levels 80 and 95). */
export function modelIntervals(model: ModelName, freq: Freq, trains: readonly ArrayLike<number>[], h: number): WindowIntervals[] {
  const request = forecastRequest(model, freq, trains, h, [80, 95]);
  const res = runForecast(request, modelSource(request));
  const iv = res.intervals!;
  return trains.map((_, i) => {
    const s = (a: Float64Array): number[] => Array.from(a.subarray(i * h, (i + 1) * h));
    return { mean: s(res.mean), lo80: s(iv["lo-80"]!), hi80: s(iv["hi-80"]!), lo95: s(iv["lo-95"]!), hi95: s(iv["hi-95"]!) };
  });
}

/** "c80 / c95 / MSIS" cell of a totals record. */
export function intervalCell(t: IntervalTotals): string {
  return `${((100 * t.inside80) / t.points).toFixed(1)} % / ${((100 * t.inside95) / t.points).toFixed(1)} % / ${(t.msis / t.windows).toFixed(2)}`;
}
