/**
 * Frequencies (pandas offset aliases and what they mean for the model), and
 * many series packed into one array (`y` + `sizes`, offsets as `Int32Array`), views
 * without copying, and the feature-major exogenous layout (`X`, `X_future`).
 * (Reading a request's series object is the API's: `checkSeriesInput`.)
 * @module
 */
export {
  seriesOffsets,
  packSeries,
  unpackSeries,
  seriesView,
  seriesOfRow,
  makeSeriesData,
  seriesDataFromList,
  packFeatures,
  featureView,
  futureFeatureView,
  type PackedSeries,
} from "./pack.js";
export { blockMeansToEnd } from "./blocks.js";
export { fillMissing, isMissingValuesWarning, missingCount, missingValuesWarning } from "./missing.js";
export { cleanSpikes, withoutSpikes, SPIKE_THRESHOLD, SPIKE_MAX_SHARE, SPIKE_GAP, type CleanedSpikes } from "./spikes.js";
export { detectPeriods, hasPeriod, periodStrength, PERIOD_MIN_STRENGTH, PERIOD_MIN_CYCLES, type DetectedPeriod, type PeriodOptions } from "./period.js";
export { parseFreq, freqRefusal, subDailyFreq, usableSeasons, stepInWords, businessFreqs, isBusinessFreq, type FreqInfo } from "./freq.js";
export { FREQUENCIES, FREQ_ANCHORS, MODEL_FREQS, type FrequencyEntry, type FreqAliases } from "./frequencies.js";
export {
  seasonalNaiveProjection,
  seasonalProfileProjection,
  seasonalThetaProjection,
  bestProjection,
  PROFILE_CYCLES,
  BEST_PROJECTION_ORIGINS,
  type ProjectionOptions,
  type ProjectionMethod,
  type ChosenProjection,
  type BestProjectionOptions,
} from "./projections.js";
