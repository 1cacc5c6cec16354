/**
 * Progress of long work (fine-tuning steps, rolling forecast windows), as a
 * callback the caller passes in `onProgress` (see `CoreCallOptions`). The
 * library calls it synchronously from inside the work, at most
 * {@link PROGRESS_MAX_CALLS} times per stage run (plus the last), so a
 * callback that prints costs nothing measurable; what it reports never
 * changes a result.
 * @module
 */

/**
 * What is being done: `"finetune"` counts Adam steps (`total` = the request's
 * `finetune_steps`; with `refit`, once per window), `"windows"` counts rolling
 * forecast windows (the calibration windows of a forecast with levels, the
 * windows of anomaly detection).
 * @category Types
 */
export type ProgressStage = "finetune" | "windows";

/**
 * One progress report: `done` of `total` units of `stage` are finished
 * (1 ≤ done ≤ total; the last report of a stage run has done = total).
 * @category Types
 */
export interface Progress {
  /** What is being done. */
  readonly stage: ProgressStage;
  /** Units finished so far. */
  readonly done: number;
  /** Units in this run of the stage. */
  readonly total: number;
}

/**
 * A progress callback: called synchronously, so it must be quick (print a
 * line, set a value); an exception it throws ends the call with that exception.
 * @category Types
 */
export type ProgressCallback = (progress: Progress) => void;

/**
 * Most reports per run of a stage, besides the last: a stage of `total`
 * units reports every ⌈total / 100⌉ units and at the end.
 * @category Types
 */
export const PROGRESS_MAX_CALLS = 100;

/**
 * A `(done, total)` counter that reports to `onProgress` at a bounded rate:
 * the first unit, then every ⌈total / PROGRESS_MAX_CALLS⌉ units, and the last;
 * `undefined` when there is no callback (so the work pays nothing).
 *
 * @example
 * ```ts
 * const seen: number[] = [];
 * const tick = boundedProgress((p) => seen.push(p.done), "finetune")!;
 * for (let done = 1; done <= 1000; done++) tick(done, 1000);
 * [seen.length, seen[0], seen[1], seen.at(-1)]; // => [101, 1, 11, 1000]
 * boundedProgress(undefined, "windows"); // => undefined
 * ```
 * @category Types
 */
export function boundedProgress(onProgress: ProgressCallback | undefined, stage: ProgressStage): ((done: number, total: number) => void) | undefined {
  if (onProgress === undefined) return undefined;
  let next = 1;
  return (done, total) => {
    if (done < next && done !== total) return;
    next = done + Math.max(1, Math.ceil(total / PROGRESS_MAX_CALLS));
    onProgress({ stage, done, total });
  };
}

/**
 * The option {@link windowProgress} gives `crossValidate`.
 * @category Types
 */
export interface WindowProgressOption {
  /** Called after each window with `done` of `total` windows. */
  onWindow?: (done: number, total: number) => void;
}

/**
 * The `onWindow` option of `crossValidate` that reports rolling windows to
 * `onProgress` (stage `"windows"`, at a bounded rate), or no option at all.
 *
 * @example
 * ```ts
 * const seen: string[] = [];
 * const series = { y: Float64Array.of(1, 2, 3, 4, 5, 6, 7, 8), sizes: Int32Array.of(8), offsets: Int32Array.of(0, 8) };
 * const progress = windowProgress((p) => seen.push(`${p.stage} ${p.done}/${p.total}`));
 * crossValidate(seasonalNaiveForecaster(1), series, { h: 2, windows: 3, ...progress });
 * seen; // => ["windows 1/3", "windows 2/3", "windows 3/3"]
 * ```
 * @category Types
 */
export function windowProgress(onProgress: ProgressCallback | undefined): WindowProgressOption {
  const tick = boundedProgress(onProgress, "windows");
  return tick === undefined ? {} : { onWindow: tick };
}
