import type { AnomalyInput, SeriesData } from "../../src/types.js";
import { univariateAnomalyRequest } from "../support/anomaly-request.js";

/** Packs plain arrays into SeriesData (test helper; no validation). */
export function packForTest(list: readonly (readonly number[])[]): SeriesData {
  const sizes = Int32Array.from(list, (s) => s.length);
  const offsets = new Int32Array(list.length + 1);
  for (let i = 0; i < list.length; i++) offsets[i + 1] = (offsets[i] as number) + (sizes[i] as number);
  const y = new Float64Array(offsets[list.length] as number);
  list.forEach((s, i) => y.set(s, offsets[i] as number));
  return { y, sizes, offsets, X: [] };
}

/** An anomaly request with the API defaults (as the benchmarks build them), overridden by `fields`. */
export function anomalyRequestForTest(series: SeriesData, fields: Partial<AnomalyInput> = {}): AnomalyInput {
  const h = fields.h ?? 20;
  return { ...univariateAnomalyRequest(series, "W", h, 5, 99), ...fields };
}

/** The fixture: two weekly series of 100 points, 10·sin(0.1·t) + 12, spikes of 30 at t = 95 (first) and t = 99 (second). */
export function fixtureSeries(): SeriesData {
  const base = Array.from({ length: 100 }, (_, t) => 10 * Math.sin(0.1 * t) + 12);
  const first = base.slice();
  first[95] = 30;
  const second = base.slice();
  second[99] = 30;
  return packForTest([first, second]);
}
