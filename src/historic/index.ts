/**
 * The historic (in-sample) forecast: the model's forecasts of the series' own
 * past, from non-overlapping windows ending at the last point, with intervals
 * from the model's spread calibrated on the series' own fitted points, and
 * optional exogenous features.
 * @module
 */
import { missingCount, missingValuesWarning } from "../series/missing.js";
import { withoutSpikes } from "../series/spikes.js";
import { seriesOffsets } from "../series/pack.js";
import type { HistoricInput, HistoricOutput, IntervalBounds, ModelSource } from "../types.js";
import { requestModelParams } from "../model/config.js";
import { calibratedIntervals, collectCalibrationScores, withSpread } from "../intervals/index.js";
import { exogenousAfterModel, exogenousBeforeModel } from "../exogenous/index.js";

/**
 * Number of historic windows of a series: ⌊(length − inputSize) / horizon⌋,
 * and 0 when the series is shorter than inputSize + horizon.
 *
 * @throws RangeError when inputSize < 0, horizon < 1 or length < 0
 *
 * @example
 * ```ts
 * historicWindowCount(130, 96, 14); // => 2
 * historicWindowCount(109, 96, 14); // => 0
 * ```
 * @category Historic forecasts
 */
export function historicWindowCount(length: number, inputSize: number, horizon: number): number {
  if (!(Number.isInteger(horizon) && horizon >= 1)) throw new RangeError(`horizon must be an integer >= 1, got ${horizon}`);
  if (!(Number.isInteger(inputSize) && inputSize >= 0)) throw new RangeError(`inputSize must be an integer >= 0, got ${inputSize}`);
  if (!(Number.isInteger(length) && length >= 0)) throw new RangeError(`length must be an integer >= 0, got ${length}`);
  return length < inputSize + horizon ? 0 : Math.floor((length - inputSize) / horizon);
}

/**
 * Windows of a series in a historic forecast that may take a short series
 * (`HistoricInput.shortSeriesWindow`): {@link historicWindowCount} full-context
 * windows, and for a series too short for one (length < inputSize + horizon)
 * but longer than the horizon, one window: its last `horizon` points,
 * forecast from the length − horizon points before them. 0 when length ≤ horizon.
 * It is the hosted API's dataframe SDK's own in-sample rule (at least one
 * window per series, the full-context count when there is one).
 *
 * @throws RangeError as {@link historicWindowCount}
 *
 * @example
 * ```ts
 * historicWindowCount(92, 96, 14); // => 0
 * historicWindowsWithShort(92, 96, 14); // => 1
 * historicWindowsWithShort(130, 96, 14); // => 2
 * historicWindowsWithShort(14, 96, 14); // => 0
 * ```
 * @category Historic forecasts
 */
export function historicWindowsWithShort(length: number, inputSize: number, horizon: number): number {
  const full = historicWindowCount(length, inputSize, horizon);
  return full > 0 ? full : length > horizon ? 1 : 0;
}

/**
 * The historic forecast of POST /v2/historic_forecast (deprecated route).
 *
 * For each series of length n, with inputSize and horizon from
 * `modelParams(model, freq)`: W = ⌊(n − inputSize)/horizon⌋ non-overlapping
 * windows of `horizon` points ending at the last point; each window is
 * forecast from the `inputSize` points before it. `mean` holds these W·horizon
 * fitted values per series (series after series, oldest first) and
 * `sizes[i]` = W·horizon.
 *
 * Exogenous features (`series.X`) go through the two-phase regression of
 * `exogenousBeforeModel` / `exogenousAfterModel`: with `cleanExFirst` the model
 * forecasts y minus the X part and the X part is added back; otherwise X is
 * fitted on the model's residuals at the fitted rows. `weightsX` has one
 * coefficient per feature (null without X); with `featureContributions`,
 * `contributions` has (features + 1) arrays of the output length, the
 * last the base value, summing to `mean` at every row (null when not asked).
 *
 * Intervals for every level L (null when `levels` is empty): the model's
 * predictive spread of each fitted point at the series' calibrated multiplier
 * (`conformalMultiplier` of the scores `spreadScore` of all its fitted points,
 * the same rule as the forecast's intervals), so that at level L about
 * (100 − L) % of a series' fitted points lie outside.
 *
 * The model comes from `source`, asked once with the series the model sees (y
 * minus the X part when `cleanExFirst`): `modelSource(request)` gives the
 * request's model (zero-shot, stored fine-tuned, or fine-tuned on those
 * series), `fixedModelSource(forecaster)` any other forecaster. Window sizes
 * always come from `modelParams(request.model, request.freq)`.
 *
 * The result is typed ({@link HistoricOutput}: `Float64Array`s, `sizes` an
 * `Int32Array`, `finetuneWork` the fine-tune steps × series the model source
 * ran); the API turns it into the JSON body and counts the tokens.
 *
 * Cost: one forecast call over Σ W_i windows plus O(n·p²) for the regression.
 *
 * With `shortSeriesWindow` (the SDK's in-sample routes), a series shorter than
 * inputSize + horizon but longer than horizon has one window, its last
 * `horizon` points, forecast from all the points before them
 * ({@link historicWindowsWithShort}); without it, such a series is refused.
 *
 * @throws RangeError for a series shorter than inputSize + horizon (without
 *   `shortSeriesWindow`) or not longer than horizon (with it), stating that
 *   minimum (the API reports every such series as a 422 item first)
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 124 }, (_, t) => 10 + (t % 7));
 * const request = {
 *   series: { y, sizes: Int32Array.of(124), offsets: Int32Array.of(0, 124), X: [] },
 *   freq: "D", model: "forecastmodel-1", levels: [80], cleanExFirst: true, featureContributions: false,
 *   finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null,
 * } as const;
 * const result = runHistoricForecast(request, modelSource(request));
 * Array.from(result.sizes); // => [28]
 * result.mean.length; // => 28
 * Object.keys(result.intervals ?? {}); // => ["lo-80", "hi-80"]
 * ```
 * @category Historic forecasts
 */
export function runHistoricForecast(request: HistoricInput, source: ModelSource): HistoricOutput {
  const { series } = request;
  const { inputSize, horizon, seasonLength } = requestModelParams(request);
  const seriesCount = series.sizes.length;
  const windows = new Int32Array(seriesCount);
  let totalWindows = 0;
  for (let i = 0; i < seriesCount; i++) {
    const n = series.sizes[i] as number;
    windows[i] = request.shortSeriesWindow === true ? historicWindowsWithShort(n, inputSize, horizon) : historicWindowCount(n, inputSize, horizon);
    totalWindows += windows[i] as number;
    if (windows[i] === 0) {
      const minimum = request.shortSeriesWindow === true ? `more than horizon = ${horizon}` : `inputSize + horizon = ${inputSize} + ${horizon} = ${inputSize + horizon}`;
      throw new RangeError(`runHistoricForecast: series ${i} has ${n} observation(s), fewer than ${minimum}`);
    }
  }

  const plan = exogenousBeforeModel(series, { cleanExFirst: request.cleanExFirst });
  // isolated spikes are replaced in what the network reads, so that they are not echoed a season later
  // (as runForecast does); the fitted values are still compared with the actual values
  const modelSeries = withoutSpikes(plan.modelSeries, seasonLength);
  // The model is fine-tuned (when asked) on what it will forecast: the cleaned series when cleanExFirst.
  const prepared = source(modelSeries);
  const wantSpread = request.levels.length > 0;
  const forecaster = wantSpread ? withSpread(prepared.forecaster) : prepared.forecaster;

  const rowsTotal = totalWindows * horizon;
  const rows = new Int32Array(rowsTotal);
  const origins = new Int32Array(rowsTotal);
  const contexts: Float64Array[] = new Array<Float64Array>(totalWindows);
  let window = 0;
  let row = 0;
  for (let i = 0; i < seriesCount; i++) {
    const start = series.offsets[i] as number;
    const n = series.sizes[i] as number;
    const count = windows[i] as number;
    for (let w = count; w >= 1; w--) {
      const from = start + n - w * horizon;
      // a short series' one window reads every point before it (fewer than inputSize)
      contexts[window++] = modelSeries.y.subarray(Math.max(start, from - inputSize), from);
      for (let k = 0; k < horizon; k++) {
        rows[row] = from + k;
        origins[row] = from - 1;
        row++;
      }
    }
  }
  const dist = wantSpread ? forecaster.forecastDistribution!(contexts, horizon) : null;
  const model = dist !== null ? dist.mean : forecaster.forecast(contexts, horizon);
  if (model.length !== rowsTotal) throw new RangeError(`forecaster returned ${model.length} values, expected ${rowsTotal}`);

  const outcome = exogenousAfterModel(plan, {
    inSample: { rows, origins, model },
    contributions: request.featureContributions,
  });
  const block = outcome.inSample as { mean: Float64Array; contributions: Float64Array[] | null };
  const mean = block.mean;

  // rows per series: every window's horizon
  const sizes = new Int32Array(seriesCount);
  for (let i = 0; i < seriesCount; i++) sizes[i] = (windows[i] as number) * horizon;
  let intervals: IntervalBounds | null = null;
  if (dist !== null) {
    const G = dist.levels.length;
    const seriesOfRow = new Int32Array(rowsTotal);
    const firstRow = seriesOffsets(sizes);
    for (let i = 0; i < seriesCount; i++) seriesOfRow.fill(i, firstRow[i] as number, firstRow[i + 1] as number);
    const calibration = collectCalibrationScores(seriesCount, dist.levels, (i, add) => {
      for (let r = firstRow[i] as number; r < (firstRow[i + 1] as number); r++) {
        if (request.missing !== undefined && request.missing[rows[r] as number] === 1) continue; // a filled point is no actual
        add(series.y[rows[r] as number] as number, mean[r] as number, dist.below, dist.above, r * G);
      }
    });
    intervals = calibratedIntervals(dist, seriesOfRow, calibration, request.levels, mean);
  }

  const filled = missingCount(request.missing);
  return {
    mean,
    sizes,
    intervals,
    weightsX: outcome.weightsX,
    contributions: block.contributions,
    finetuneWork: prepared.finetuneWork,
    warnings: [...prepared.warnings, ...outcome.warnings, ...(filled > 0 ? [missingValuesWarning(filled, series.y.length)] : [])],
  };
}
