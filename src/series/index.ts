/**
 * Many series packed into one array (`y` + `sizes`, offsets as `Int32Array`), views
 * without copying, the feature-major exogenous layout (`X`, `X_future`) and the
 * validation of a request's series object into the typed `SeriesData`.
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
export { checkSeriesInput, validateSeriesInput, type SeriesInputOptions, type SeriesInputCheck } from "./validate.js";
