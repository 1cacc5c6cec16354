/**
 * The online anomaly detection pipeline (docs/contract.md §4): rolling-origin
 * forecasts of the past with the model's predictive spread, calibrated
 * z-scores of the last `detectionSize` points, univariate or multivariate
 * thresholds.
 * @module
 */
import {
  crossValidate,
  copyRowSpread,
  latestWindowForecasts,
  plannedWindowCount,
  writeLatestWindowForecasts,
  type CrossValidationForecasterFactory,
  type CrossValidationResult,
  type WindowPlan,
} from "../cv/index.js";
import { exogenousAfterModel, exogenousBeforeModel } from "../exogenous/index.js";
import { gaussianMultiplier, intervalKey, withSpread } from "../intervals/index.js";
import { SEASONAL_JUDGE_WINDOW, JudgeWindows, judgeLag, judgesOnLogScale } from "./seasonal-judge.js";
import { hasPeriod } from "../series/period.js";
import { missingCount, missingValuesWarning } from "../series/missing.js";
import { accumulatedAnomalyScores, scoreCorrelation } from "./accumulated.js";
import { horizonWarning } from "../model/config.js";
import { parseFreq } from "../series/freq.js";
import type { AnomalyInput, AnomalyOutput, ForecastDistribution, Forecaster, IntervalBounds, ModelSource, SeriesData } from "../types.js";
import {
  multivariateAccumulatedScores,
  multivariateThreshold,
  seriesCalibratedScores,
  calibrationFitEnd,
  anomalyCalibrationSize,
  univariateAnomalyFlags,
  judgedZ,
  windowLeftOut,
  ANOMALY_Z_CAP,
  type SeasonalOpinion,
} from "./scores.js";
import { windowProgress } from "../progress.js";
import { PIPELINE_ARRAYS as WORK, pipelineSpread as allocateSpread } from "../stats/array-cache.js";

/**
 * Fewest context points before a cross-validation window of online anomaly detection.
 * @category Anomaly detection
 */
export const ANOMALY_MIN_CONTEXT = 1;

/**
 * Number of cross-validation windows online anomaly detection asks for (each
 * series gets at most as many as fit after {@link ANOMALY_MIN_CONTEXT} points).
 *
 * Rule: enough windows to give forecasts for the detection window plus the
 * C = `anomalyCalibrationSize(detectionSize)` = min(6 · detectionSize, 336)
 * calibration points before it, i.e. detectionSize + C forecast points.
 * W windows of length h every `stepSize` forecast h + (W − 1) · min(stepSize, h)
 * distinct points, so W = 1 + ⌈max(0, detectionSize + C − h) / min(stepSize, h)⌉.
 * Older history is not forecast, so the work does not grow with the history
 * sent: each window costs one network row per series.
 *
 * Cost: O(1).
 *
 * @param detectionSize - Points at the end of each series to score (integer >= 1).
 * @param h - Window length (integer >= 1).
 * @param stepSize - Distance between windows (integer >= 1).
 * @returns W >= 1.
 * @throws RangeError when an argument is not an integer >= 1.
 *
 * @example
 * ```ts
 * anomalyWindowCount(48, 24, 24); // 48 + 288 = 336 points: 14 windows of 24
 * // => 14
 * anomalyWindowCount(5000, 24, 24); // 5000 + 336 points: 223 windows
 * // => 223
 * anomalyWindowCount(5, 20, 20); // 35 points: 2 windows of 20
 * // => 2
 * ```
 * @category Anomaly detection
 */
export function anomalyWindowCount(detectionSize: number, h: number, stepSize: number): number {
  checkPositiveInteger(detectionSize, "anomalyWindowCount: detectionSize");
  checkPositiveInteger(h, "anomalyWindowCount: h");
  checkPositiveInteger(stepSize, "anomalyWindowCount: stepSize");
  return 1 + Math.ceil(Math.max(0, detectionSize + anomalyCalibrationSize(detectionSize) - h) / Math.min(stepSize, h));
}

/**
 * The windows of online anomaly detection, as `detectAnomalies` runs them and
 * the API's work budget counts them: length h, one every `stepSize` points,
 * {@link anomalyWindowCount} at most, each after at least
 * {@link ANOMALY_MIN_CONTEXT} point(s) (a series gets `plannedWindowCount`
 * of them).
 *
 * @throws RangeError when an argument is not an integer >= 1.
 *
 * @example
 * ```ts
 * anomalyWindowPlan(48, 24, 24); // => { h: 24, stepSize: 24, windows: 14, minContext: 1 }
 * ```
 * @category Anomaly detection
 */
export function anomalyWindowPlan(detectionSize: number, h: number, stepSize: number): WindowPlan {
  return { h, stepSize, windows: anomalyWindowCount(detectionSize, h, stepSize), minContext: ANOMALY_MIN_CONTEXT };
}

/**
 * The shortest series online anomaly detection accepts.
 *
 * Rule: the detection window must be covered by forecasts and the calibration
 * needs at least two forecast points. Windows start after {@link ANOMALY_MIN_CONTEXT} point(s)
 * of context; with stepSize <= h, W windows cover h + (W − 1) · stepSize points,
 * so the minimum is 1 + h + stepSize · max(⌈max(0, detectionSize − h) / stepSize⌉,
 * [h = 1]) (the bracket is 1 when h = 1: a second window for a second point).
 * With stepSize > h the windows leave gaps, so detectionSize must be <= h
 * (otherwise `null` is returned).
 *
 * Cost: O(1).
 *
 * @param detectionSize - Points at the end of each series to score (integer >= 1).
 * @param h - Window length (integer >= 1).
 * @param stepSize - Distance between windows (integer >= 1).
 * @returns The minimum number of points per series, or null when no length works.
 * @throws RangeError when an argument is not an integer >= 1.
 *
 * @example
 * ```ts
 * anomalyMinimumLength(5, 20, 20);
 * // => 21
 * anomalyMinimumLength(48, 24, 24); // two windows of 24 after one context point
 * // => 49
 * anomalyMinimumLength(30, 20, 25); // gaps between windows
 * // => null
 * ```
 * @category Anomaly detection
 */
export function anomalyMinimumLength(detectionSize: number, h: number, stepSize: number): number | null {
  checkPositiveInteger(detectionSize, "anomalyMinimumLength: detectionSize");
  checkPositiveInteger(h, "anomalyMinimumLength: h");
  checkPositiveInteger(stepSize, "anomalyMinimumLength: stepSize");
  if (stepSize > h && detectionSize > h) return null;
  const extraWindows = Math.max(Math.ceil(Math.max(0, detectionSize - h) / stepSize), h === 1 ? 1 : 0);
  return ANOMALY_MIN_CONTEXT + h + stepSize * extraWindows;
}

/**
 * Online anomaly detection over many series (docs/contract.md §4).
 *
 * Steps:
 * 1. Exogenous phase 1 (`cleanExFirst`: the model sees y minus the X part).
 * 2. Rolling-origin forecasts: windows of length h every `stepSize`, tiling
 *    back from each series' end, {@link anomalyWindowCount} of them at most,
 *    each with at least {@link ANOMALY_MIN_CONTEXT} context point; one
 *    forecaster call per window for all series. Where windows overlap, a point
 *    takes the forecast of the latest cutoff. The forecaster comes from
 *    `model`, asked with the points before each series' earliest cutoff
 *    (`refit` false: once) or before each window's cutoffs (`refit` true
 *    with fine-tuning: once per window); `modelSource(request)` fine-tunes
 *    there when the request asks for it, `fixedModelSource` hands any
 *    forecaster through.
 * 3. Exogenous phase 2 (X added back, or fitted on the residuals at the calibration points).
 * 4. Per series, every forecast point scores where y fell in the model's
 *    predictive spread; each detection point is calibrated on the last
 *    C = min(6 · detectionSize, 336) scores before it, leaving out scores
 *    whose calibrated |z| exceeded 4 (all forecast points when fewer than C
 *    precede the window), and z (`anomalyScore`) is its calibrated z (see
 *    {@link seriesCalibratedScores}: nested conformal on the series' own
 *    scores; a point the model was certain of scores 0 when met exactly).
 * 5. Univariate: the interval is the model's spread at the level's calibrated
 *    multiplier, flagged iff |z| > q = Φ⁻¹(0.5 + level/200) (y outside the
 *    interval); where they can speak, the seasonal judges (`seasonalJudge`,
 *    `combineJudges`): the network and the same point a season earlier must
 *    agree, or, for hourly data with a week of differences, the same point a
 *    day and a week earlier must agree; `accumulatedAnomalyScore` = max(z², z_c²), z_c from a
 *    two-sided CUSUM of the judged z of every scored point in time order,
 *    reset after each alarm (see {@link accumulatedAnomalyScores}).
 *    Multivariate: all series of one length; A_t = Σᵢ zᵢ,ₜ² on every series'
 *    row; step t flagged in every series iff A_t > χ²-quantile(level/100, n series);
 *    `intervals` null.
 *
 * Output rows are the last `detectionSize` points of each series, series after
 * series; `idxs` are their positions in the request's `y`. The result is typed
 * ({@link AnomalyOutput}: `Float64Array`s, `Int32Array` sizes and idxs,
 * `anomaly` 1/0 in a `Uint8Array`); `finetuneWork` = steps × series for each
 * tuning (once, or once per window with `refit`). The API turns it into the
 * JSON body and counts the tokens (`anomalyResultJson`).
 *
 * Cost: W forecaster calls of up to `sizes.length` contexts; O(y.length) memory.
 *
 * @param request - The validated request.
 * @param model - Where the forecaster comes from: `modelSource(request)`, or `fixedModelSource(forecaster)` for a baseline.
 * @returns The anomaly result.
 * @throws RangeError for a series shorter than {@link anomalyMinimumLength}, a
 *   detection window the windows cannot cover, or unequal lengths with the
 *   multivariate threshold (the API reports these as 422 items first).
 *
 * @example
 * ```ts
 * const t = Array.from({ length: 40 }, (_, i) => 10 + (i % 4) + ((i * 7) % 5) / 5);
 * t[38] = 30; // a spike in the detection window (the last 4 points)
 * const y = Float64Array.from(t);
 * const series = { y, sizes: Int32Array.of(40), offsets: Int32Array.of(0, 40), X: [] };
 * const request = { series, freq: "D", h: 4, detectionSize: 4, level: 99, thresholdMethod: "univariate",
 *   stepSize: 4, model: "forecastmodel-1", finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null,
 *   multivariate: false, modelParameters: null, cleanExFirst: true, histExog: [], refit: false } as const;
 * const result = detectAnomalies(request, fixedModelSource(seasonalNaiveForecaster(4)));
 * Array.from(result.idxs);
 * // => [36, 37, 38, 39]
 * Array.from(result.anomaly);
 * // => [0, 0, 1, 0]
 * ```
 * @category Anomaly detection
 */
export function detectAnomalies(request: AnomalyInput, model: ModelSource): AnomalyOutput {
  const { series, h, detectionSize, stepSize, level } = request;
  const multivariateThresholding = request.thresholdMethod === "multivariate";
  checkRequest(request);
  const { sizes, offsets } = series;
  const seriesCount = sizes.length;

  // 1. Exogenous phase 1.
  // (also without X, so that a hist_exog index is checked against the features)
  const exogenous = exogenousBeforeModel(series, { cleanExFirst: request.cleanExFirst, histExog: request.histExog });
  const plan = series.X.length > 0 ? exogenous : null;
  const modelSeries: SeriesData = exogenous.modelSeries;

  // 2. Rolling-origin forecasts.
  const windowPlan = anomalyWindowPlan(detectionSize, h, stepSize);
  const earliestCutoffs = new Int32Array(seriesCount);
  for (let i = 0; i < seriesCount; i++) {
    const n = sizes[i] as number;
    earliestCutoffs[i] = n - h - (plannedWindowCount(windowPlan, n) - 1) * stepSize;
  }
  // Fine-tune work: steps × series for every tuning (one per window with refit);
  // the notes come from the first preparation.
  let finetuneWork = 0;
  const modelWarnings: string[] = [];
  let prepared = false;
  const prepare = (trainLengths: Int32Array): Forecaster => {
    const result = model(modelSeries, trainLengths);
    finetuneWork += result.finetuneWork;
    if (!prepared) {
      modelWarnings.push(...result.warnings);
      prepared = true;
    }
    return result.forecaster;
  };
  let forecaster: Forecaster | CrossValidationForecasterFactory;
  if (request.finetune.steps > 0 && request.refit) {
    const trainLengths = new Int32Array(seriesCount);
    forecaster = (_window: number, cutoffs: Int32Array): Forecaster => {
      for (let i = 0; i < seriesCount; i++) {
        const cutoff = cutoffs[i] as number;
        trainLengths[i] = cutoff >= 0 ? cutoff : (earliestCutoffs[i] as number);
      }
      return withSpread(prepare(trainLengths));
    };
  } else {
    forecaster = withSpread(prepare(earliestCutoffs));
  }
  const cv = crossValidate(forecaster, modelSeries, { ...windowPlan, spread: true, allocateSpread, ...windowProgress(request.onProgress) });

  // One forecast per point (latest cutoff wins) and its origin, for the exogenous phase.
  const total = series.y.length;
  const pointForecast = latestWindowForecasts(cv, offsets);
  const pointCutoff = new Int32Array(total).fill(-1);
  for (let i = 0; i < seriesCount; i++) writePointCutoffs(cv, i, offsets[i] as number, pointCutoff);

  // 3. Exogenous phase 2 at the forecast points.
  const warnings: string[] = [];
  const modelWarning = horizonWarning(request.model, request.freq, h);
  if (modelWarning !== null) warnings.push(modelWarning);
  warnings.push(...modelWarnings);
  if (plan !== null) {
    let count = 0;
    for (let r = 0; r < total; r++) if (pointCutoff[r] as number >= 0) count++;
    const rows = new Int32Array(count);
    const model = new Float64Array(count);
    const origins = new Int32Array(count);
    const fitMask = new Uint8Array(count);
    let j = 0;
    for (let i = 0; i < seriesCount; i++) {
      const start = offsets[i] as number;
      const n = sizes[i] as number;
      const detectionStart = n - detectionSize;
      let outside = 0;
      for (let t = 0; t < detectionStart; t++) if ((pointCutoff[start + t] as number) >= 0) outside++;
      const fitEnd = calibrationFitEnd(outside, detectionSize, n);
      for (let t = 0; t < n; t++) {
        const cutoff = pointCutoff[start + t] as number;
        if (cutoff < 0) continue;
        rows[j] = start + t;
        model[j] = pointForecast[start + t] as number;
        origins[j] = start + cutoff - 1;
        fitMask[j] = t < fitEnd ? 1 : 0;
        j++;
      }
    }
    const outcome = exogenousAfterModel(plan, { inSample: { rows, model, origins, fitMask } });
    const mean = outcome.inSample?.mean;
    if (mean === undefined || mean.length !== count) throw new RangeError("detectAnomalies: the exogenous phase returned no in-sample values");
    for (let k = 0; k < count; k++) {
      const value = mean[k] as number;
      if (!Number.isFinite(value)) throw new RangeError("detectAnomalies: the exogenous phase returned a non-finite value");
      pointForecast[rows[k] as number] = value;
    }
    warnings.push(...outcome.warnings);
  }

  // 4. Calibrated z-scores and intervals per series.
  let longest = 0;
  for (let i = 0; i < seriesCount; i++) longest = Math.max(longest, sizes[i] as number);
  // The seasonal judge's opinion of every forecast point (univariate, without exogenous features, which it
  // cannot see): it depends on y only, so it is formed once, for both scorings and the accumulated score.
  // Their seasons are found per series among those the frequency implies (parseFreq: a day and a week of steps for sub-daily data).
  const freq = parseFreq(request.freq);
  const opinion =
    !multivariateThresholding && plan === null
      ? seasonalOpinions(series, longest, freq?.seasons ?? [], detectionSize, pointCutoff, level)
      : undefined;
  // a filled point (missing in the request) has no observation: it calibrates nothing (no forecast to compare) and
  // its detection row is never an anomaly (z 0, below)
  const missing = request.missing !== undefined && request.missing.includes(1) ? request.missing : null;
  // The range judge, for sub-daily data (monitoring metrics) scored one series at a time without exogenous features:
  // on M1 (yearly, quarterly, monthly: trending series, whose newest values often leave their old range) it doubled
  // the clean points flagged at level 99 (docs/anomaly-detection.md)
  const rangeJudge = !multivariateThresholding && plan === null && freq !== null && freq.stepSeconds !== null && freq.stepSeconds < 86_400;
  const scoring = new DetectionScoring(series, detectionSize, level, longest, opinion, missing, rangeJudge);
  const { zScores, lower, upper, pointZ, extreme, mean, idxs } = scoring;
  const outputRows = seriesCount * detectionSize;
  scoring.score(cv, pointForecast);
  // A spike (a point far outside its calibrated interval, |z| > 4, after which the series comes back
  // to within half that deviation of the spike's forecast) would otherwise stay in the contexts of the
  // later windows and be echoed in their forecasts: it comes back one season later as a false anomaly.
  // Spikes are replaced by their forecasts in the contexts and those series' windows are forecast again;
  // the scores compare the original y with the new forecasts. Without exogenous features and without
  // per-window fine-tuning (whose second tuning would count again).
  if (plan === null && typeof forecaster !== "function") {
    // Spikes, and per affected series the position of its first one (the windows after it are forecast again).
    const spike = new Uint8Array(total);
    const affected: { series: number; first: number }[] = [];
    for (let i = 0; i < seriesCount; i++) {
      const first = markSpikes(series.y, pointForecast, extreme, spike, offsets[i] as number, offsets[i + 1] as number);
      if (first >= 0) affected.push({ series: i, first });
    }
    if (affected.length > 0) {
      if (request.multivariate) {
        // the model reads the series together: forecast every window again
        const cleaned = Float64Array.from(modelSeries.y);
        for (let r = 0; r < total; r++) if (spike[r] === 1) cleaned[r] = pointForecast[r] as number;
        const run = crossValidate(forecaster, { ...modelSeries, y: cleaned }, { ...windowPlan, spread: true, allocateSpread, ...windowProgress(request.onProgress) });
        scoring.score(run, latestWindowForecasts(run, offsets));
        WORK.give(run.spread!.below, run.spread!.above);
      } else {
        // only the windows that see a spike (after it, and within the forecaster's reach of it) are
        // forecast again, in one batch (each window's forecast depends on its own context only, so the
        // others keep their bits); the affected series are cleaned in one buffer, one after another
        const reach = forecaster.contextReach ?? Number.MAX_SAFE_INTEGER;
        let cleanedLength = 0;
        for (const { series: i } of affected) cleanedLength += sizes[i] as number;
        const cleaned = new Float64Array(cleanedLength);
        const redo: number[] = [];
        const contexts: Float64Array[] = [];
        let at = 0;
        for (const { series: i, first } of affected) {
          const start = offsets[i] as number;
          const n = sizes[i] as number;
          const own = cleaned.subarray(at, at + n);
          at += n;
          cleanSpikes(modelSeries.y, pointForecast, spike, start, first, own);
          for (let row = cv.windowOffsets[i] as number; row < (cv.windowOffsets[i + 1] as number); row++) {
            const cutoff = cv.cutoffs[row] as number;
            if (cutoff <= first || !spikeWithin(spike, start + Math.max(first, cutoff - reach), start + cutoff)) continue;
            redo.push(row);
            contexts.push(own.subarray(0, cutoff));
          }
        }
        // cv is not read again: the windows forecast again overwrite their rows in place
        const dist = forecaster.forecastDistribution!(contexts, h);
        for (let j = 0; j < redo.length; j++) overwriteRow(cv, redo[j] as number, dist, j);
        // the affected series' point forecasts again (latest window wins); the other series keep their
        // forecasts and spreads bit for bit, so their scores stand
        for (const { series: i } of affected) writeLatestWindowForecasts(cv, i, pointForecast, offsets);
        scoring.score(cv, pointForecast, affected.map((a) => a.series));
      }
    }
  }

  // Scores are clipped to ±ANOMALY_Z_CAP (no flag changes: every level's q is below it); a filled point scores 0.
  clipScores(zScores);
  if (missing !== null) {
    let inWindow = 0;
    for (let r = 0; r < outputRows; r++) {
      if (missing[idxs[r] as number] !== 1) continue;
      zScores[r] = 0;
      pointZ[idxs[r] as number] = 0;
      inWindow++;
    }
    warnings.push(missingValuesWarning(missingCount(missing), total));
    if (inWindow > 0) warnings.push(`${inWindow} of the ${outputRows} detection rows were missing values: they are never flagged (anomaly_score 0, nothing to judge)`);
  }

  // 5. Thresholds.
  let anomaly: Uint8Array;
  let accumulated: Float64Array;
  let intervals: IntervalBounds | null = null;
  if (multivariateThresholding) {
    const scores = multivariateAccumulatedScores(zScores, seriesCount, detectionSize);
    const threshold = multivariateThreshold(level, seriesCount);
    anomaly = new Uint8Array(outputRows);
    accumulated = new Float64Array(outputRows);
    for (let i = 0; i < seriesCount; i++) {
      for (let t = 0; t < detectionSize; t++) {
        const a = scores[t] as number;
        accumulated[i * detectionSize + t] = a;
        anomaly[i * detectionSize + t] = a > threshold ? 1 : 0;
      }
    }
  } else {
    // The seasonal judge already spoke in the scoring, where it can. The accumulated score also runs over the
    // scored points before the window (judged the same way), so that evidence which started before it counts.
    accumulated = judgeAndAccumulate(series, detectionSize, level, zScores, pointZ, opinion, longest);
    anomaly = univariateAnomalyFlags(zScores, level);
    intervals = { [intervalKey(level, "lo")]: lower, [intervalKey(level, "hi")]: upper };
  }

  // the work arrays for the next call (nothing returned refers to them)
  WORK.give(cv.spread!.below, cv.spread!.above);
  if (opinion !== undefined) WORK.give(opinion.centre, opinion.sd, opinion.second!.centre, opinion.second!.sd);
  return {
    mean,
    sizes: new Int32Array(seriesCount).fill(detectionSize),
    idxs,
    anomaly,
    anomalyScore: zScores,
    accumulatedAnomalyScore: accumulated,
    intervals,
    finetuneWork,
    warnings,
  };
}


/**
 * Step 4's scoring (calibrated z-scores and intervals of each series' detection window, every point's own z, its
 * extreme points), with the outputs and work buffers of one call. A class, so that the optimised code of its
 * methods serves every call (a closure made per call is optimised again for each: its code goes with it).
 */
class DetectionScoring {
  readonly zScores: Float64Array;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  /** Every forecast point's own calibrated z (NaN without one): the accumulated score runs over them. */
  readonly pointZ: Float64Array;
  readonly extreme: Uint8Array;
  readonly mean: Float64Array;
  readonly idxs: Int32Array;
  private readonly scratch: Float64Array;
  /** Each point's spreads, for series whose windows do not tile (made on the first such series). */
  private pointSpreads: { readonly below: Float64Array; readonly above: Float64Array } | null = null;
  private readonly observedForecasts: Float64Array | null;
  /** Series values with their missing points NaN, for the range judge (made on the first series that needs it). */
  private maskedValues: Float64Array | null = null;

  constructor(
    private readonly series: SeriesData,
    private readonly detectionSize: number,
    private readonly level: number,
    private readonly longest: number,
    private readonly opinion: Opinions | undefined,
    private readonly missing: Uint8Array | null,
    private readonly rangeJudge: boolean,
  ) {
    const outputRows = series.sizes.length * detectionSize;
    const total = series.y.length;
    this.zScores = new Float64Array(outputRows);
    this.lower = new Float64Array(outputRows);
    this.upper = new Float64Array(outputRows);
    this.pointZ = new Float64Array(total);
    this.extreme = new Uint8Array(total);
    this.scratch = new Float64Array(Math.max(longest, 2 * anomalyCalibrationSize(detectionSize) + 1));
    this.mean = new Float64Array(outputRows);
    this.idxs = new Int32Array(outputRows);
    this.observedForecasts = missing === null ? null : new Float64Array(longest);
  }

  /** Series i's values as the range judge reads them: as sent, a missing value NaN (it is skipped; in a buffer kept for the call). */
  private rangeValues(i: number): Float64Array {
    const from = this.series.offsets[i] as number;
    const values = this.series.y.subarray(from, this.series.offsets[i + 1] as number);
    if (this.missing === null) return values;
    this.maskedValues ??= new Float64Array(this.longest);
    const out = this.maskedValues.subarray(0, values.length);
    for (let t = 0; t < out.length; t++) out[t] = this.missing[from + t] === 1 ? Number.NaN : (values[t] as number);
    return out;
  }

  /** Scores the series `only` names (default: every series); each series' outputs depend on its own rows alone. */
  score(run: CrossValidationResult, all: Float64Array, only?: readonly number[]): void {
    const count = only === undefined ? this.series.sizes.length : only.length;
    for (let s = 0; s < count; s++) this.scoreSeries(run, all, only === undefined ? s : (only[s] as number));
  }

  private scoreSeries(run: CrossValidationResult, all: Float64Array, i: number): void {
    const { series, detectionSize, observedForecasts, missing, opinion } = this;
    const spread = run.spread!;
    const h = run.h;
    const G = spread.levels.length;
    const end = series.offsets[i + 1] as number;
    const rowFrom = run.windowOffsets[i] as number;
    const rowTo = run.windowOffsets[i + 1] as number;
    // Windows that tile the series' end one after another (stepSize = h, the usual case) already hold the spreads in
    // point order: the series is scored from its first forecast point on (the points before have no forecast, which
    // the scoring skips, and get a NaN z here), on views of the rows. Otherwise each point's spread is copied from
    // the window its forecast came from, the rows written oldest first so that a later window's overwrites an
    // earlier one's where they overlap.
    const tiled = windowsTile(run, rowFrom, rowTo, end - (series.offsets[i] as number));
    const start = tiled ? (series.offsets[i] as number) + (run.cutoffs[rowFrom] as number) : (series.offsets[i] as number);
    const n = end - start;
    let below: Float64Array;
    let above: Float64Array;
    if (tiled) {
      below = spread.below.subarray(rowFrom * h * G, rowTo * h * G);
      above = spread.above.subarray(rowFrom * h * G, rowTo * h * G);
      this.pointZ.fill(Number.NaN, series.offsets[i] as number, start);
    } else {
      this.pointSpreads ??= { below: new Float64Array(this.longest * G), above: new Float64Array(this.longest * G) };
      const point = this.pointSpreads;
      for (let row = rowFrom; row < rowTo; row++) {
        const at = (run.cutoffs[row] as number) * G;
        point.below.set(spread.below.subarray(row * h * G, (row + 1) * h * G), at);
        point.above.set(spread.above.subarray(row * h * G, (row + 1) * h * G), at);
      }
      below = point.below.subarray(0, n * G);
      above = point.above.subarray(0, n * G);
    }
    const base = i * detectionSize;
    let forecasts = all.subarray(start, end);
    if (observedForecasts !== null) {
      const masked = observedForecasts.subarray(0, n);
      for (let t = 0; t < n; t++) masked[t] = missing![start + t] === 1 && t < n - detectionSize ? Number.NaN : (forecasts[t] as number);
      forecasts = masked;
    }
    seriesCalibratedScores(
      series.y.subarray(start, end),
      forecasts,
      below,
      above,
      spread.levels,
      detectionSize,
      this.level,
      {
        z: this.zScores.subarray(base, base + detectionSize),
        lo: this.lower.subarray(base, base + detectionSize),
        hi: this.upper.subarray(base, base + detectionSize),
        pointZ: this.pointZ.subarray(start, end),
        extreme: this.extreme.subarray(start, end),
      },
      this.scratch,
      opinion === undefined ? undefined : opinionsAt(opinion, end - detectionSize, end),
      opinion === undefined ? undefined : opinionsAt(opinion, start, end),
      this.rangeJudge ? this.rangeValues(i) : undefined,
    );
    for (let j = 0; j < detectionSize; j++) {
      const row = end - detectionSize + j;
      this.idxs[base + j] = row;
      // where two seasonal judges decide (the network abstains), the forecast judged against is the first judge's
      // centre y(t − m) + μ, and the interval holds it; elsewhere the network's ŷ
      const abstains = opinion !== undefined && (opinion.sd[row] as number) > 0 && (opinion.second!.sd[row] as number) > 0;
      this.mean[base + j] = abstains ? (opinion.centre[row] as number) : (all[row] as number);
    }
  }
}

/**
 * Whether rows [rowFrom, rowTo) of `run` (one series of n points, oldest first) tile the series' end one after
 * another: cutoffs c, c + h, …, the last window ending at n, so that the rows' spreads are in point order from c on.
 */
function windowsTile(run: CrossValidationResult, rowFrom: number, rowTo: number, n: number): boolean {
  if (rowTo <= rowFrom) return false;
  const first = run.cutoffs[rowFrom] as number;
  if (first + (rowTo - rowFrom) * run.h !== n) return false;
  for (let row = rowFrom + 1; row < rowTo; row++) if ((run.cutoffs[row] as number) !== first + (row - rowFrom) * run.h) return false;
  return true;
}

/**
 * Series i's cutoff of each of its forecast points into `pointCutoff` (laid out as `y`, the series from `start`):
 * its windows oldest first, so that the latest cutoff wins where they overlap. (The loops of one call live in
 * module functions: the optimised code of a function that runs once per call would be dropped after each.)
 */
function writePointCutoffs(cv: CrossValidationResult, i: number, start: number, pointCutoff: Int32Array): void {
  for (let row = cv.windowOffsets[i] as number; row < (cv.windowOffsets[i + 1] as number); row++) {
    const cutoff = cv.cutoffs[row] as number;
    pointCutoff.fill(cutoff, start + cutoff, start + cutoff + cv.h);
  }
}

/**
 * Marks in `spike` the spikes of the series at [start, end) of `y`: its extreme points (see `seriesCalibratedScores`)
 * after which it comes back to within half the deviation of the point's forecast. Returns the first one's position
 * in the series, or −1 when there is none.
 */
function markSpikes(y: Float64Array, pointForecast: Float64Array, extreme: Uint8Array, spike: Uint8Array, start: number, end: number): number {
  let first = -1;
  for (let r = start; r < end - 1; r++) {
    if (extreme[r] !== 1) continue;
    // only a spike is cleaned: the next point is back near the forecast; a deviation that persists
    // (a level shift, a new regime) stays in the contexts so that the model follows it
    const deviation = Math.abs((y[r] as number) - (pointForecast[r] as number));
    if (Math.abs((y[r + 1] as number) - (pointForecast[r] as number)) < 0.5 * deviation) {
      if (first < 0) first = r - start;
      spike[r] = 1;
    }
  }
  return first;
}

/** The series at `start` of `y` into `own` (its length), its spikes from `first` on replaced by their forecasts. */
function cleanSpikes(y: Float64Array, pointForecast: Float64Array, spike: Uint8Array, start: number, first: number, own: Float64Array): void {
  const n = own.length;
  own.set(y.subarray(start, start + n));
  for (let t = first; t < n; t++) if (spike[start + t] === 1) own[t] = pointForecast[start + t] as number;
}

/** Row `row` of `cv` (its forecasts and spreads) overwritten by context j of `dist`. */
function overwriteRow(cv: CrossValidationResult, row: number, dist: ForecastDistribution, j: number): void {
  const { h } = cv;
  cv.forecasts.set(dist.mean.subarray(j * h, (j + 1) * h), row * h);
  copyRowSpread(dist, j, cv.spread!, row, h);
}

/** Each z clipped to ±{@link ANOMALY_Z_CAP}. */
function clipScores(z: Float64Array): void {
  for (let r = 0; r < z.length; r++) z[r] = Math.max(-ANOMALY_Z_CAP, Math.min(ANOMALY_Z_CAP, z[r] as number));
}

/** Whether `spike` marks a point in [from, to). */
function spikeWithin(spike: Uint8Array, from: number, to: number): boolean {
  for (let r = from; r < to; r++) if (spike[r] === 1) return true;
  return false;
}

/** One seasonal judge's centre and σ at every point of `series.y` (σ NaN where it cannot speak or there is no forecast). */
interface JudgeOpinions {
  centre: Float64Array;
  sd: Float64Array;
}

/** The seasonal judges' opinions, with the second judge's (hourly data: a week back) when the frequency has one. */
interface Opinions extends JudgeOpinions {
  second?: JudgeOpinions;
}

/** The opinions of points [from, to) of `series.y`, as views. */
function opinionsAt(opinion: Opinions, from: number, to: number): SeasonalOpinion {
  const { centre, sd, second } = opinion;
  return {
    centre: centre.subarray(from, to),
    sd: sd.subarray(from, to),
    second: second === undefined ? undefined : { centre: second.centre.subarray(from, to), sd: second.sd.subarray(from, to) },
  };
}

/**
 * The seasonal judges' opinions of every point of `series.y` with a forecast.
 * Per series: when `detectPeriods` finds a season among `candidates` in the
 * history before the window (the whole series when fewer than 6 ·
 * detectionSize forecast points precede the window: the seed's rule then
 * lets the window in), the series is judged at the first two candidates its
 * history holds twice (a day and a week): one, its judge beside the
 * network; two, both judge and the network abstains. No season: the level
 * judge (`levelJudge`) beside the network. A seasonal judge compares point t
 * at lag `judgeLag` (inside a strict window: the same phase of the last
 * season before it) against the {@link SEASONAL_JUDGE_WINDOW} differences
 * just before min(t, window start); where it has not got them yet, the level
 * judge speaks in its place.
 */
function seasonalOpinions(series: SeriesData, longest: number, candidates: readonly number[], detectionSize: number, pointCutoff: Int32Array, level: number): Opinions {
  const blank = (): JudgeOpinions => ({ centre: WORK.take(series.y.length).fill(0), sd: WORK.take(series.y.length).fill(Number.NaN) });
  // a literal (not a spread of blank()), so that every call's object has one map and the optimised code reading it stays valid
  const first = blank();
  const opinion: Opinions = { centre: first.centre, sd: first.sd, second: blank() };
  // levelJudge (m 0) and seasonalJudge, with each window's sums computed once per series and lag
  const judges = new SeriesJudges(longest, gaussianMultiplier(level));
  let logs: Float64Array | null = null;
  for (let i = 0; i + 1 < series.offsets.length; i++) {
    const start = series.offsets[i] as number;
    const end = series.offsets[i + 1] as number;
    // a series whose spread follows its level is judged on the log scale (decided on the values before the window)
    if (!judgesOnLogScale(series.y.subarray(start, end), end - start - detectionSize)) {
      judgeSeries(series.y, start, end, candidates, detectionSize, pointCutoff, judges, opinion);
      continue;
    }
    logs ??= WORK.take(series.y.length);
    for (let t = start; t < end; t++) logs[t] = Math.log(series.y[t] as number);
    judgeSeries(logs, start, end, candidates, detectionSize, pointCutoff, judges, opinion);
    relativeToLevel(opinion, start, end);
    relativeToLevel(opinion.second!, start, end);
  }
  if (logs !== null) WORK.give(logs);
  return opinion;
}

/**
 * A judge's opinions of log values turned into opinions of the values: centre e^c and σ e^c · s (the log judge's
 * z = (log y − c)/s to first order at y = e^c), so the judge's spread is relative to the level it expects.
 */
function relativeToLevel(opinion: JudgeOpinions, start: number, end: number): void {
  for (let t = start; t < end; t++) {
    const sd = opinion.sd[t] as number;
    if (!(sd > 0)) continue;
    const centre = Math.exp(opinion.centre[t] as number);
    opinion.centre[t] = centre;
    opinion.sd[t] = centre * sd;
  }
}

/** The judges of {@link seasonalOpinions}: {@link JudgeWindows} and what a judge writes. */
class SeriesJudges {
  readonly windows: JudgeWindows;
  /** [z, lo, hi, centre, σ] of the last judge that spoke. */
  readonly judged = new Float64Array(5);

  constructor(
    longest: number,
    private readonly q: number,
  ) {
    this.windows = new JudgeWindows(longest);
  }

  /**
   * The judge at season m (0: the level judge) of point t of the series started last: it speaks only with its whole
   * window of SEASONAL_JUDGE_WINDOW differences (m 0: values) before min(t, window start).
   */
  judge(t: number, m: number, windowStart: number): boolean {
    const end = Math.min(t, windowStart);
    const lag = m === 0 ? 0 : judgeLag(t, m, windowStart);
    if (end - lag < SEASONAL_JUDGE_WINDOW) return false;
    return this.windows.judge(t, lag, this.q, this.judged, SEASONAL_JUDGE_WINDOW, end);
  }
}

/** {@link seasonalOpinions} of the series at [start, end) of `y`, into `opinion`. */
function judgeSeries(
  y: Float64Array,
  start: number,
  end: number,
  candidates: readonly number[],
  detectionSize: number,
  pointCutoff: Int32Array,
  judges: SeriesJudges,
  opinion: Opinions,
): void {
  const values = y.subarray(start, end);
  // The seed's rule: with 6 · detectionSize forecast points before the window, the window's values reach neither the
  // periods nor the judges' differences nor their centres; with fewer (a long window), the judges read the series up to t.
  let forecastBefore = 0;
  for (let t = 0; t < values.length - detectionSize; t++) if ((pointCutoff[start + t] as number) >= 0) forecastBefore++;
  const windowStart = windowLeftOut(forecastBefore, detectionSize) ? values.length - detectionSize : values.length;
  // A series with a season found is judged at every season of its frequency its history holds twice (a day and a week
  // of hourly data): on the development half of the real data this ranked anomalies better than the periods found alone
  // (docs/monitoring-experiments.md).
  const seasonal = candidates.length > 0 && hasPeriod(values.subarray(0, windowStart), candidates);
  const periods = seasonal ? candidates.filter((p) => windowStart >= 2 * p) : [];
  // the two shortest (a day and a week), the shorter first: it speaks with less history (where only it can, the network is
  // the other judge); no season: the level judge (0: the values before the point, NAB's windowed Gaussian)
  const two = periods.length === 0 ? [0] : periods.slice(0, 2);
  judges.windows.start(values, windowStart);
  const first = two[0]!;
  const second = two.length > 1 ? two[1]! : null;
  const { judged } = judges;
  for (let t = 0; t < values.length; t++) {
    if ((pointCutoff[start + t] as number) < 0) continue;
    // a seasonal judge without its history yet gives way to the level judge
    if (!judges.judge(t, first, windowStart) && !(first !== 0 && judges.judge(t, 0, windowStart))) continue;
    opinion.centre[start + t] = judged[3] as number;
    opinion.sd[start + t] = judged[4] as number;
    if (second === null || !judges.judge(t, second, windowStart)) continue;
    opinion.second!.centre[start + t] = judged[3] as number;
    opinion.second!.sd[start + t] = judged[4] as number;
  }
}

/**
 * Univariate: per series, runs the accumulated score
 * (`accumulatedAnomalyScores`) over the series' scored points in time
 * order, from its first scored point to its last: the earlier points with
 * their own z, judged where the seasonal judge speaks (`judgedZ`, `opinion`
 * per point of `series.y`), then the detection
 * points with their final z; returns it for the detection rows.
 */
function judgeAndAccumulate(
  series: SeriesData,
  detectionSize: number,
  level: number,
  z: Float64Array,
  pointZ: Float64Array,
  opinion: Opinions | undefined,
  longest: number,
): Float64Array {
  const accumulated = new Float64Array(z.length);
  const sequence = new Float64Array(longest);
  for (let i = 0; i + 1 < series.offsets.length; i++) accumulateSeries(series, i, detectionSize, level, z, pointZ, opinion, sequence, accumulated);
  return accumulated;
}

/** {@link judgeAndAccumulate} of series i, into `accumulated`; `sequence` is work space of its length. */
function accumulateSeries(
  series: SeriesData,
  i: number,
  detectionSize: number,
  level: number,
  z: Float64Array,
  pointZ: Float64Array,
  opinion: Opinions | undefined,
  sequence: Float64Array,
  accumulated: Float64Array,
): void {
  const start = series.offsets[i] as number;
  const n = (series.offsets[i + 1] as number) - start;
  const detectionStart = n - detectionSize;
  let first = 0;
  while (first < detectionStart && Number.isNaN(pointZ[start + first] as number)) first++;
  for (let t = first; t < detectionStart; t++) {
    const v = pointZ[start + t] as number;
    const sd = opinion === undefined ? Number.NaN : (opinion.sd[start + t] as number);
    if (!(sd > 0) || Number.isNaN(v)) {
      sequence[t - first] = v;
      continue;
    }
    const second = opinion!.second;
    sequence[t - first] = judgedZ(
      v,
      series.y[start + t] as number,
      opinion!.centre[start + t] as number,
      sd,
      second === undefined ? Number.NaN : (second.centre[start + t] as number),
      second === undefined ? Number.NaN : (second.sd[start + t] as number),
    );
  }
  sequence.set(z.subarray(i * detectionSize, (i + 1) * detectionSize), detectionStart - first);
  const run = sequence.subarray(0, n - first);
  accumulatedAnomalyScores(run, level, run, scoreCorrelation(run, detectionStart - first));
  accumulated.set(run.subarray(detectionStart - first), i * detectionSize);
}

/**
 * Guards of the typed input (the API reports these as 422 items before the
 * pipeline runs; see `toAnomalyRequest`).
 */
function checkRequest(request: AnomalyInput): void {
  const { series, h, detectionSize, stepSize, level } = request;
  checkPositiveInteger(h, "detectAnomalies: h");
  checkPositiveInteger(detectionSize, "detectAnomalies: detectionSize");
  checkPositiveInteger(stepSize, "detectAnomalies: stepSize");
  if (!(Number.isFinite(level) && level >= 0 && level < 100)) throw new RangeError(`detectAnomalies: level must be a number with 0 <= level < 100, got ${String(level)}`);
  const { sizes } = series;
  if (sizes.length === 0) throw new RangeError("detectAnomalies: at least one series is required");
  const minimum = anomalyMinimumLength(detectionSize, h, stepSize);
  if (minimum === null) throw new RangeError(`detectAnomalies: detectionSize (${detectionSize}) must be <= h (${h}) when stepSize (${stepSize}) > h`);
  const first = sizes[0] as number;
  for (let i = 0; i < sizes.length; i++) {
    const n = sizes[i] as number;
    if (n < minimum) throw new RangeError(`detectAnomalies: series ${i} has ${n} points, fewer than anomalyMinimumLength(${detectionSize}, ${h}, ${stepSize}) = ${minimum}`);
    if (request.thresholdMethod === "multivariate" && n !== first) {
      throw new RangeError(`detectAnomalies: the multivariate threshold needs series of one length; series ${i} has ${n} points, series 0 has ${first}`);
    }
  }
}

function checkPositiveInteger(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${what} must be an integer >= 1, got ${String(value)}`);
}
