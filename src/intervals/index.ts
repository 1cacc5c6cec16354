/**
 * Prediction intervals keyed `lo-<L>` / `hi-<L>`: Gaussian (ŷ ± q·σ) and
 * conformal (quantiles of rolling-origin absolute errors per horizon step).
 * @module
 */
export {
  conformalHalfWidths,
  conformalHalfWidthsByLevel,
  conformalIntervals,
  gaussianIntervals,
  gaussianMultiplier,
  intervalKey,
  intervalsFromHalfWidths,
} from "./intervals.js";
export {
  calibratedIntervals,
  calibratedZ,
  calibratedZOfRank,
  collectCalibrationScores,
  conformalMultiplier,
  SPREAD_SCORE_CAP,
  spreadHalfWidth,
  spreadKnots,
  spreadScore,
  withSpread,
} from "./calibrated.js";
export type { CalibrationScores } from "./calibrated.js";
export { SPREAD_RELATIVE_TOLERANCE, spreadIsCertain } from "./calibrated.js";
export { SPREAD_PRIOR_WEIGHT, SPREAD_TRIM, spreadScaleRatio } from "./calibrated.js";
export { SPREAD_TAIL_POWER } from "./calibrated.js";
