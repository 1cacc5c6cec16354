/**
 * Registers the weights of every pretrained model (imported by the package's
 * main entry, by its side effect).
 * @module
 */
import { registerWeights } from "../weights.js";
import { WEIGHTS_FM1 } from "./forecastmodel-1.js";
import { WEIGHTS_FM1_LONG } from "./forecastmodel-1-long-horizon.js";
import { WEIGHTS_FM21 } from "./forecastmodel-2.1.js";
import { WEIGHTS_FM1_HF } from "./forecastmodel-1-high-frequency.js";

registerWeights(WEIGHTS_FM1, WEIGHTS_FM1_LONG, WEIGHTS_FM21, WEIGHTS_FM1_HF);
