/** Loading the bundled M1 data and its R baselines, and the accuracy measures used on them. */
import { readFileSync } from "node:fs";
import type { Freq } from "../src/types.js";

export interface M1Series {
  id: string;
  period: "YEARLY" | "QUARTERLY" | "MONTHLY";
  m: number;
  h: number;
  x: number[];
  xx: number[];
}

export interface M1Baseline {
  id: string;
  snaive: number[];
  naive: number[];
  ets: number[];
  theta: number[];
}

export const PERIOD_FREQ: Record<M1Series["period"], Freq> = { YEARLY: "Y", QUARTERLY: "Q", MONTHLY: "M" };

export function loadM1(dir = "bench/data"): { series: M1Series[]; baselines: Map<string, M1Baseline> } {
  const data = JSON.parse(readFileSync(`${dir}/m1.json`, "utf8")) as { series: M1Series[] };
  const base = JSON.parse(readFileSync(`${dir}/m1-baselines.json`, "utf8")) as { forecasts: M1Baseline[] };
  return { series: data.series, baselines: new Map(base.forecasts.map((b) => [b.id, b])) };
}

/** Symmetric MAPE in percent: mean of 200·|y − f| / (|y| + |f|) (0/0 counts 0). */
export function smape(actual: ArrayLike<number>, forecast: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < actual.length; i++) {
    const d = Math.abs(actual[i]!) + Math.abs(forecast[i]!);
    s += d === 0 ? 0 : (200 * Math.abs(actual[i]! - forecast[i]!)) / d;
  }
  return s / actual.length;
}

/** MASE: mean absolute error over the in-sample mean absolute seasonal-naive error (lag m). */
export function mase(train: ArrayLike<number>, actual: ArrayLike<number>, forecast: ArrayLike<number>, m: number): number {
  const lag = train.length > m ? m : 1;
  let scale = 0;
  for (let t = lag; t < train.length; t++) scale += Math.abs(train[t]! - train[t - lag]!);
  scale /= Math.max(train.length - lag, 1);
  let e = 0;
  for (let i = 0; i < actual.length; i++) e += Math.abs(actual[i]! - forecast[i]!);
  return e / actual.length / scale;
}
