/**
 * Online anomaly detection: residual σ and signed z-scores per series,
 * univariate (|z| > q) and multivariate (Σ z² > χ² quantile) thresholds, and
 * the typed pipeline {@link detectAnomalies} (CONTRACT §4).
 * @module
 */
export {
  ANOMALY_SIGMA_TOLERANCE,
  multivariateAccumulatedScores,
  multivariateThreshold,
  seriesAnomalyScores,
  sigmaFitEnd,
  univariateAnomalyFlags,
} from "./scores.js";
export {
  ANOMALY_MIN_CONTEXT,
  anomalyMinimumLength,
  anomalyWindowCount,
  detectAnomalies,
  type DetectAnomaliesOptions,
} from "./detect.js";
