/**
 * The model-selection data (bench/data/validation.json, made by
 * bench/data/make-validation.R) and its hold-out windows, shared by
 * bench/eval-validation.ts and bench/eval-projections.ts.
 */
import { readFileSync } from "node:fs";

/** R's forecasts of one hold-out window (null where R gave none). */
export interface ValidationOrigin {
  origin: number;
  snaive: (number | null)[];
  ets: (number | null)[];
  thetaf: (number | null)[];
}

/** The file: series with their R forecasts, and the R versions that made them. */
export interface ValidationFile {
  r: string;
  forecast: string;
  series: Record<string, { frequency: number; y: number[]; origins: ValidationOrigin[] }>;
}

/** One hold-out window: the last 96 points before the horizon and the h points of it. */
export interface ValidationWindow {
  name: string;
  origin: ValidationOrigin;
  train: number[];
  test: number[];
}

/** Reads bench/data/validation.json (run from the project root). */
export function loadValidation(): ValidationFile {
  return JSON.parse(readFileSync("bench/data/validation.json", "utf8")) as ValidationFile;
}

/**
 * The windows of every series of season length m, series in name order:
 * origin o ends o·h points before the end of the series.
 */
export function* validationWindows(file: ValidationFile, m: number, h: number): Generator<ValidationWindow> {
  for (const name of Object.keys(file.series).sort()) {
    const s = file.series[name]!;
    if (s.frequency !== m) continue;
    for (const origin of s.origins) {
      const end = s.y.length - origin.origin * h;
      yield { name, origin, train: s.y.slice(Math.max(0, end - h - 96), end - h), test: s.y.slice(end - h, end) };
    }
  }
}
