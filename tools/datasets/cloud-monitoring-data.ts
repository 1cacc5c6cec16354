/**
 * The Microsoft Cloud Monitoring Dataset (github:microsoft/cloud-monitoring-dataset,
 * MIT) as labelled monitoring streams: the converted files of
 * bench/data/cloud-monitoring/ (made by bench/data/convert-cloud-monitoring.ts),
 * with the experts' labelled points turned into windows by the NAB rule.
 */
import { readFileSync } from "node:fs";
import type { MonitoringStream } from "./monitoring-data.js";

/**
 * The split of the dataset, fixed before any choice was made on it: by domain
 * folder, alternating in alphabetical order (the 1st, 3rd, 5th, 7th and 9th
 * folder are the development half; the 2nd, 4th, 6th and 8th the held-out
 * half). Choices are made on the development half only.
 *
 * - development: application-crash-rate-1, consumer-purchase-rate,
 *   ecommerce-api-incoming-rps, mongodb-application-rps, service-unavailable
 * - held out: application-crash-rate-2, data-ingress-rate,
 *   middle-tier-api-dependency-latency, mongodb-machine-rps
 */
export const CLOUD_MONITORING_SPLIT: { readonly development: readonly string[]; readonly heldOut: readonly string[] } = {
  development: ["application-crash-rate-1", "consumer-purchase-rate", "ecommerce-api-incoming-rps", "mongodb-application-rps", "service-unavailable"],
  heldOut: ["application-crash-rate-2", "data-ingress-rate", "middle-tier-api-dependency-latency", "mongodb-machine-rps"],
};

/** One converted CSV: a regular grid of `step` seconds from `start`. */
export interface CloudMonitoringSeries {
  /** The CSV's file name without `.csv` (e.g. "app1-01"). */
  readonly id: string;
  /** First timestamp, ISO 8601 UTC. */
  readonly start: string;
  /** Seconds between points (3600 or 60). */
  readonly step: number;
  readonly values: number[];
  /** Runs of consecutive labelled points, [first, last] indices (inclusive). */
  readonly labelRuns: [number, number][];
  /** Indices whose value was interpolated (empty field or missing timestamp). */
  readonly filled: number[];
  /** CSV rows that repeated an earlier timestamp and were merged into it. */
  readonly merged: number;
}

/** One converted domain folder (bench/data/cloud-monitoring/<domain>.json). */
export interface CloudMonitoringFile {
  readonly source: string;
  /** The dataset repository's commit the CSVs were read from. */
  readonly commit: string;
  readonly domain: string;
  readonly series: CloudMonitoringSeries[];
}

/** A labelled real stream: a {@link MonitoringStream} with where it came from and its step. */
export interface CloudMonitoringStream extends MonitoringStream {
  readonly domain: string;
  readonly id: string;
  /** Seconds between points (3600 hourly, 60 per minute). */
  readonly stepSeconds: number;
  /** Labelled runs [first, last] as the experts marked them. */
  readonly labelRuns: readonly (readonly [number, number])[];
  /** Windows the NAB rule gives, before those ending in the warm-up are left out of `windows`. */
  readonly allWindows: readonly { start: number; end: number }[];
}

/**
 * Anomaly windows of a stream of n points from its runs of labelled points,
 * by the NAB rule: each run is one anomaly; with k runs every window is
 * round(0.1 · n / k) points long (at least the run's own length), centred on
 * the run (the odd point of the slack goes after it), clipped to [0, n);
 * windows that overlap are merged into one. No runs: no windows.
 *
 * Cost: O(k log k).
 *
 * @param n - Points in the stream (integer >= 1).
 * @param runs - Runs [first, last] (inclusive) of labelled points, inside [0, n).
 * @returns Windows [start, end) in increasing order, disjoint.
 * @throws RangeError when a run is empty, reversed or outside the stream.
 *
 * @example
 * ```ts
 * labelWindows(100, [[50, 50]]); // one anomaly: 10 points, 4 before it and 5 after
 * // => [{ start: 46, end: 56 }]
 * labelWindows(100, [[10, 10], [12, 13]]); // 5 points each: [8, 13) and [11, 16) overlap
 * // => [{ start: 8, end: 16 }]
 * ```
 */
export function labelWindows(n: number, runs: readonly (readonly [number, number])[]): { start: number; end: number }[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`labelWindows: n must be an integer >= 1, got ${n}`);
  if (runs.length === 0) return [];
  const length = Math.round((0.1 * n) / runs.length);
  const windows = runs
    .map(([first, last]) => {
      if (!Number.isInteger(first) || !Number.isInteger(last) || first < 0 || last < first || last >= n) throw new RangeError(`labelWindows: run [${first}, ${last}] must satisfy 0 <= first <= last < n = ${n}`);
      const runLength = last - first + 1;
      const size = Math.max(length, runLength);
      const start = first - Math.floor((size - runLength) / 2);
      return { start: Math.max(0, start), end: Math.min(n, start + size) };
    })
    .sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const w of windows) {
    const last = merged[merged.length - 1];
    if (last !== undefined && w.start < last.end) last.end = Math.max(last.end, w.end);
    else merged.push({ ...w });
  }
  return merged;
}

/**
 * Points of a real stream before scoring starts (NAB's probationary period):
 * 15 % of the stream, at most 750 points.
 */
export function realWarmup(n: number): number {
  return Math.min(Math.floor(0.15 * n), 750);
}

/** Directory of the converted files. */
export const CLOUD_MONITORING_DIR = "bench/data/cloud-monitoring";

/**
 * The streams of one half of the dataset (see {@link CLOUD_MONITORING_SPLIT}),
 * domain folders in alphabetical order, series in file order. Each stream's
 * windows come from its labelled runs by {@link labelWindows}; windows that
 * end inside the warm-up ({@link realWarmup}) cannot be scored and are left out
 * of `windows` (kept in `allWindows`). Streams without labels have no windows:
 * there every flag is a false alarm.
 *
 * - development: application-crash-rate-1, consumer-purchase-rate,
 *   ecommerce-api-incoming-rps, mongodb-application-rps, service-unavailable
 * - held out: application-crash-rate-2, data-ingress-rate,
 *   middle-tier-api-dependency-latency, mongodb-machine-rps
 *
 * @param half - "development" or "held-out".
 * @param dir - Directory of the converted JSON files.
 */
export function cloudMonitoringStreams(half: "development" | "held-out", dir: string = CLOUD_MONITORING_DIR): CloudMonitoringStream[] {
  const domains = half === "development" ? CLOUD_MONITORING_SPLIT.development : CLOUD_MONITORING_SPLIT.heldOut;
  return domains.flatMap((domain) => {
    const file = JSON.parse(readFileSync(`${dir}/${domain}.json`, "utf8")) as CloudMonitoringFile;
    return file.series.map((s): CloudMonitoringStream => {
      const n = s.values.length;
      const warmup = realWarmup(n);
      const allWindows = labelWindows(n, s.labelRuns);
      return {
        name: `${domain}/${s.id} (${s.step === 60 ? "per minute" : s.step === 3600 ? "hourly" : `every ${s.step} s`}, ${n} points)`,
        development: half === "development",
        values: Float64Array.from(s.values),
        warmup,
        windows: allWindows.filter((w) => w.end > warmup).map((w) => ({ ...w, kind: "labelled" as const })),
        domain,
        id: s.id,
        stepSeconds: s.step,
        labelRuns: s.labelRuns,
        allWindows,
      };
    });
  });
}
