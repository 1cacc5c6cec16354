/**
 * The forecasts of R's ets / stlf / tbats that the accuracy evaluations read
 * (bench/data/hourly-baselines.json, bench/data/subhourly-baselines.json,
 * made by bench/data/make-*-baselines.R).
 */
import { existsSync, readFileSync } from "node:fs";

/** R's forecasts at one origin of a series; null where the method failed or was not run. */
export interface RForecasts {
  origin: number;
  ets: number[] | null;
  stlf: number[] | null;
  tbats: number[] | null;
}

/** A baselines file: the R and forecast package versions, and each series' forecasts by origin. */
export interface RBaselinesFile<Baseline extends RForecasts> {
  r: string;
  forecast: string;
  series: Record<string, Baseline[]>;
}

/** The baselines file at `path`, or an empty one (no versions, no series) while it does not exist yet. */
export function readRBaselines<Baseline extends RForecasts>(path: string): RBaselinesFile<Baseline> {
  return (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : { r: "", forecast: "", series: {} }) as RBaselinesFile<Baseline>;
}
