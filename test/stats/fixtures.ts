/** Loads test/fixtures/r/stats.json (made by test/fixtures/r/make-stats-fixtures.R). */
import { readFileSync } from "node:fs";

export interface RStatsFixtures {
  generator: string;
  r_version: string;
  qnorm: { p: number[]; q: number[] };
  pnorm: { x: number[]; p: number[] };
  qchisq: { p: number[]; df: number[]; q: number[] };
  qchisq_lower: { p: number[]; df: number[]; q: number[] };
  pchisq: { x: number[]; df: number[]; lower: number[]; upper: number[] };
  datasets: { name: string; x: number[]; probs: number[]; quantiles: number[]; sd: number[]; mean: number[] }[];
}

export const rFixtures: RStatsFixtures = JSON.parse(
  readFileSync(new URL("../fixtures/r/stats.json", import.meta.url), "utf8"),
) as RStatsFixtures;

/** |actual − expected| / |expected| (absolute difference when expected is 0). */
export function relativeError(actual: number, expected: number): number {
  if (actual === expected) return 0;
  const diff = Math.abs(actual - expected);
  return expected === 0 ? diff : diff / Math.abs(expected);
}
