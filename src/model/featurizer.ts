/**
 * The featurizer of a network shape: one place that maps a shape's view to
 * the class that builds its inputs.
 * @module
 */
import type { NetworkShape } from "./config.js";
import { WindowFeaturizer, type Featurizer } from "./features.js";
import { SeasonsFeaturizer } from "./features-seasons.js";

/**
 * The featurizer of a network shape: `SeasonsFeaturizer` for the `"seasons"`
 * view, `WindowFeaturizer` otherwise.
 *
 * @example
 * ```ts
 * createFeaturizer(networkShape("forecastmodel-1")) instanceof WindowFeaturizer; // => true
 * createFeaturizer(networkShape("forecastmodel-1-high-frequency")).layout.size; // => 730
 * ```
 * @category Network
 */
export function createFeaturizer(shape: NetworkShape): Featurizer {
  return shape.view === "seasons" ? new SeasonsFeaturizer(shape) : new WindowFeaturizer(shape);
}
