/**
 * Online anomaly detection: calibrated signed z-scores per series,
 * univariate (|z| > q) and multivariate (Σ z² > χ² quantile) thresholds, and
 * the typed pipeline {@link detectAnomalies} (docs/contract.md §4).
 * @module
 */
export {
  multivariateAccumulatedScores,
  multivariateThreshold,
  seriesCalibratedScores,
  type SeriesScoreSummary,
  type SeasonalOpinion,
  calibrationFitEnd,
  windowLeftOut,
  anomalyCalibrationSize,
  ANOMALY_CALIBRATION_MAX,
  ANOMALY_EXCLUDE_Z,
  ANOMALY_Z_CAP,
  univariateAnomalyFlags,
} from "./scores.js";
export {
  ANOMALY_MIN_CONTEXT,
  anomalyMinimumLength,
  anomalyWindowCount,
  anomalyWindowPlan,
  detectAnomalies,
} from "./detect.js";
export { SEASONAL_JUDGE_WINDOW, SEASONAL_JUDGE_SD_FLOOR, judgeLag, levelJudge, seasonalJudge, combineJudges, judgedInterval, JUDGES_AGREE_Z, judgesOnLogScale, LOG_SCALE_MIN_POINTS, LOG_SCALE_MIN_RATIO } from "./seasonal-judge.js";
export { RANGE_JUDGE_MIN_POINTS, rangeBoost, rangeOpinion } from "./range-judge.js";
export { ANOMALY_CUSUM_ALLOWANCE, accumulatedAnomalyScores, cusumEquivalentZ, cusumRunLength, scoreCorrelation } from "./accumulated.js";
