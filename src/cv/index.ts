/**
 * Rolling-origin cross-validation for any forecaster over packed series, and
 * the seasonal naive forecaster used as a model-free baseline.
 * @module
 */
export { seasonalNaiveForecaster } from "./seasonal-naive.js";
export {
  crossValidate,
  latestWindowForecasts,
  writeLatestWindowForecasts,
  copyRowSpread,
  rollingWindowCount,
  plannedWindowCount,
  type WindowPlan,
  type CrossValidationForecasterFactory,
  type CrossValidationOptions,
  type CrossValidationResult,
  type CrossValidationSpread,
} from "./cross-validate.js";
