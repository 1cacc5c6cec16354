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
