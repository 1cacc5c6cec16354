/**
 * A running job's progress in the store: the work's `onProgress` reports
 * (fine-tuning steps, rolling windows) written to the store at a bounded
 * rate through its optional `setJobProgress`, and read back by the job
 * status routes (`progress`, only while the job runs). A store without the
 * method runs jobs as before, with no progress.
 * @module
 */
import type { Progress, ProgressCallback } from "../progress.js";
import { jobRecord } from "./jobs.js";
import type { ServiceStore, StoredJob } from "./store.js";

/**
 * Least time between two progress writes of one job, in milliseconds of the
 * service's clock, besides the writes of a stage run's first and last
 * reports (see {@link throttleProgress}).
 * @category Service
 */
export const JOB_PROGRESS_INTERVAL_MS = 250;

/**
 * Passes on the reports of a job's work that are worth a store write: the
 * first report of a stage run (the first report, a new stage or total, or a
 * `done` below the previous report's), the last of a stage run
 * (done = total), and otherwise a report only when at least `intervalMs`
 * passed on `nowMs` since the last one passed on. So a job running for
 * `t` ms writes at most ⌊t / intervalMs⌋ + 1 reports plus two per stage run
 * (and never more than the work reports: at most `PROGRESS_MAX_CALLS` + 1
 * per stage run). With a clock that does not move (the service's default)
 * only the first and last report of each stage run pass.
 *
 * @param write - called with each report passed on.
 * @param nowMs - the clock, in milliseconds (the service's).
 * @param intervalMs - least time between two reports passed on inside a stage run (default {@link JOB_PROGRESS_INTERVAL_MS}).
 * @returns the callback to give the work as `onProgress`.
 *
 * @example
 * ```ts
 * let t = 0;
 * const written: number[] = [];
 * const report = throttleProgress((p) => written.push(p.done), () => t);
 * // 1,000 steps, one every 10 ms of the clock: a write every 250 ms, and the last
 * for (let done = 1; done <= 1000; done++, t += 10) report({ stage: "finetune", done, total: 1000 });
 * written.length; // => 41
 * [written[0], written[1], written.at(-1)]; // => [1, 26, 1000]
 * ```
 * @category Service
 */
export function throttleProgress(write: ProgressCallback, nowMs: () => number, intervalMs: number = JOB_PROGRESS_INTERVAL_MS): ProgressCallback {
  let previous: Progress | null = null;
  let lastWriteMs = -Infinity;
  return (p) => {
    const at = nowMs();
    const runStarts = previous === null || previous.stage !== p.stage || previous.total !== p.total || p.done < previous.done;
    previous = p;
    if (!runStarts && p.done !== p.total && !(at - lastWriteMs >= intervalMs)) return;
    lastWriteMs = at;
    write({ stage: p.stage, done: p.done, total: p.total });
  };
}

/**
 * What writes a job's progress to its store: `report` is the work's
 * `onProgress` (throttled, see {@link throttleProgress}); `settled` resolves
 * once no write is left in flight (the runner awaits it before it stores the
 * job's final state, so a late write never follows it).
 * @category Service
 */
export interface JobProgressWriter {
  /** The work's `onProgress`. */
  readonly report: ProgressCallback;
  /** Resolves when every write has ended. */
  settled(): Promise<void>;
}

/**
 * The progress writer of a job, or `undefined` when the store has no
 * `setJobProgress` (then the work runs without a callback). One write is in
 * flight at a time; a report passed on meanwhile waits, and a newer one
 * replaces it unless it ends a stage run (done = total), so the last report
 * of every stage run is written. A write that fails is dropped: progress
 * never fails a job.
 *
 * @param store - the service's store.
 * @param jobId - the running job.
 * @param nowMs - the service's clock, in milliseconds.
 * @returns the writer, or undefined.
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const job = { jobId: "ft-1", task: "ft", accountId: "acme", status: "running", request: null, result: null, error: null, createdAt: "", updatedAt: "" } as const;
 * await store.insertJob(job);
 * const writer = jobProgressWriter(store, "ft-1", () => 0)!;
 * writer.report({ stage: "finetune", done: 1, total: 60 });
 * await writer.settled();
 * await store.getJobProgress!("ft-1"); // => { stage: "finetune", done: 1, total: 60 }
 * ```
 * @category Service
 */
export function jobProgressWriter(store: ServiceStore, jobId: string, nowMs: () => number): JobProgressWriter | undefined {
  if (store.setJobProgress === undefined) return undefined;
  // reports waiting for the write in flight: a newer one replaces the last unless that one ends a stage run
  const waiting: Progress[] = [];
  let inFlight: Promise<void> | null = null;
  const pump = async (): Promise<void> => {
    while (waiting.length > 0) {
      const next = waiting.shift()!;
      try {
        await store.setJobProgress!(jobId, next, nowMs());
      } catch {
        // progress is informative: a store that cannot take it leaves the job as it was
      }
    }
    inFlight = null;
  };
  const write = (p: Progress): void => {
    const last = waiting.at(-1);
    if (last !== undefined && last.done !== last.total) waiting[waiting.length - 1] = p;
    else waiting.push(p);
    if (inFlight === null) inFlight = pump();
  };
  return {
    report: throttleProgress(write, nowMs),
    settled: async () => {
      while (inFlight !== null) await inFlight;
    },
  };
}

/**
 * The job status record the API answers (`jobRecord`), with `progress`
 * `{ stage, done, total }` while the job runs and its store holds a report
 * of it (`getJobProgress`); without, the record of the specification.
 * @category Service
 */
export async function jobStatusRecord(store: ServiceStore, job: StoredJob): Promise<Record<string, unknown>> {
  const progress = job.status === "running" && store.getJobProgress !== undefined ? await store.getJobProgress(job.jobId) : undefined;
  return jobRecord(job, progress);
}

/**
 * The progress callbacks of a cross-validation job's parts, reporting the
 * job as one count: with `refitSteps` > 0 (every window fine-tunes that many
 * steps), stage `"finetune"` counting the steps of all windows
 * (total = `refitSteps` × `windows`, each window's latest report counted, so
 * windows run in parallel add up); otherwise stage `"windows"` counting the
 * windows finished. `tune` forwards the reports of the one fine-tuning of
 * `refit: false`.
 *
 * @example
 * ```ts
 * const seen: string[] = [];
 * const parts = crossValidationProgress((p) => seen.push(`${p.stage} ${p.done}/${p.total}`), 3, 0)!;
 * parts.window(0); // => undefined
 * parts.windowDone();
 * parts.windowDone();
 * parts.windowDone();
 * seen; // => ["windows 1/3", "windows 2/3", "windows 3/3"]
 * ```
 * @category Service
 */
export function crossValidationProgress(
  onProgress: ProgressCallback | undefined,
  windows: number,
  refitSteps: number,
): { tune: ProgressCallback; window(w: number): ProgressCallback | undefined; windowDone(): void } | undefined {
  if (onProgress === undefined) return undefined;
  const stepsDone = new Array<number>(windows).fill(0);
  let stepsSum = 0;
  let finished = 0;
  return {
    tune: onProgress,
    window: (w) =>
      refitSteps > 0
        ? (p) => {
            if (p.stage !== "finetune" || p.done <= stepsDone[w]!) return;
            stepsSum += Math.min(p.done, refitSteps) - stepsDone[w]!;
            stepsDone[w] = Math.min(p.done, refitSteps);
            onProgress({ stage: "finetune", done: stepsSum, total: refitSteps * windows });
          }
        : undefined,
    windowDone: () => {
      finished++;
      if (refitSteps === 0) onProgress({ stage: "windows", done: finished, total: windows });
    },
  };
}
