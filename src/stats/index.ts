/**
 * Numerical primitives every other module uses: compensated summation, mean and
 * sample standard deviation, the type-7 quantile, the standard normal CDF and
 * quantile, the regularised incomplete gamma function and the chi-square
 * distribution.
 * @module
 */
export { compensatedSum } from "./sum.js";
export { meanOf, sampleVariance, sampleStd } from "./moments.js";
export { quantileSorted, quantileType7, quantilesType7, selectOrderStatistics } from "./quantile.js";
export { normalCdf, normalQuantile } from "./normal.js";
export { logGamma, regularizedGammaP, regularizedGammaQ } from "./gamma.js";
export { chiSquareCdf, chiSquareQuantile } from "./chisquare.js";
export { SES_GRID, sesGridFit, olsSlope } from "./smoothing.js";
export { choleskyInPlace, choleskySolve } from "./cholesky.js";
