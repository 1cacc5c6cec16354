/**
 * The seasonal naive forecaster: a model-free baseline behind the
 * {@link Forecaster} interface, used by unit tests and as a reference.
 * @module
 */
import type { Forecaster } from "../types.js";

/**
 * A seasonal naive {@link Forecaster}: step k after a context repeats the value
 * one season earlier.
 *
 * Formula: for a context c of length n and step k = 1, 2, …, the forecast is
 * c[n − m + ((k − 1) mod m)] with m the season length, i.e. the last observed
 * season repeated. When the context is shorter than one season (n < m) it falls
 * back to naive: every step is the last value c[n − 1]. `seasonLength` 1 is the
 * plain naive forecaster.
 *
 * Reference: R. J. Hyndman and G. Athanasopoulos, "Forecasting: Principles and
 * Practice" (3rd ed.), §5.2 (`snaive`).
 *
 * Cost: O(h) per context; the result is one `Float64Array` of `contexts.length · h` values.
 *
 * @param seasonLength - Season length m, an integer >= 1.
 * @returns A forecaster named `"seasonal-naive"`; `forecast` throws `RangeError`
 *   for an empty context or an `h` that is not a positive integer.
 * @throws RangeError when `seasonLength` is not an integer >= 1.
 *
 * @example
 * ```ts
 * const f = seasonalNaiveForecaster(3);
 * Array.from(f.forecast([new Float64Array([1, 2, 3, 4, 5, 6, 7])], 4));
 * // => [5, 6, 7, 5]
 * Array.from(f.forecast([new Float64Array([8, 9])], 2)); // shorter than a season: naive
 * // => [9, 9]
 * ```
 * @category Cross-validation
 */
export function seasonalNaiveForecaster(seasonLength: number): Forecaster {
  if (!Number.isInteger(seasonLength) || seasonLength < 1) {
    throw new RangeError(`seasonalNaiveForecaster: seasonLength must be an integer >= 1, got ${String(seasonLength)}`);
  }
  return {
    name: "seasonal-naive",
    seasonLength,
    forecast(contexts: readonly Float64Array[], h: number): Float64Array {
      if (!Number.isInteger(h) || h < 1) throw new RangeError(`seasonal-naive: h must be an integer >= 1, got ${String(h)}`);
      const out = new Float64Array(contexts.length * h);
      for (let i = 0; i < contexts.length; i++) {
        const c = contexts[i] as Float64Array;
        const n = c.length;
        if (n === 0) throw new RangeError(`seasonal-naive: context ${i} is empty`);
        const base = i * h;
        if (n < seasonLength) {
          out.fill(c[n - 1] as number, base, base + h);
          continue;
        }
        const start = n - seasonLength;
        for (let k = 0; k < h; k++) out[base + k] = c[start + (k % seasonLength)] as number;
      }
      return out;
    },
  };
}
