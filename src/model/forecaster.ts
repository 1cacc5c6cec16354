/**
 * The network as a {@link Forecaster}: featurise each context, run the
 * network in chunks, undo the normalisation, roll out recursively beyond the
 * native horizon.
 * @module
 */
import type { Forecaster, Freq, ModelName } from "../types.js";
import { modelParams, networkShape } from "./config.js";
import { WindowFeaturizer, type WindowScale } from "./features.js";
import { NetworkRunner, parameterLayout } from "./network.js";
import { pretrainedParameters } from "./weights.js";

const CHUNK = 128;

/** Options of {@link createNetworkForecaster}. */
export interface NetworkForecasterOptions {
  /** Full parameter vector (e.g. fine-tuned); defaults to the pretrained one. */
  params?: Float64Array;
  /** forecastmodel-2.1 only: each forecast also reads the other series of the call. */
  multivariate?: boolean;
}

/**
 * A forecaster backed by a pretrained network.
 *
 * Each context is standardised (mean and standard deviation of its last
 * `inputSize` points), the network forecasts the standardised future, and the
 * result is mapped back: forecast = mean + std · output. A constant context
 * forecasts that constant. Horizons beyond the native one are rolled out by
 * appending the forecast to the context and forecasting again.
 *
 * @example
 * ```ts
 * const f = createNetworkForecaster("forecastmodel-1", "M");
 * const out = f.forecast([new Float64Array([5, 5, 5, 5])], 3);
 * Array.from(out); // => [5, 5, 5]
 * ```
 */
export function createNetworkForecaster(model: ModelName, freq: Freq, options: NetworkForecasterOptions = {}): Forecaster {
  const shape = networkShape(model);
  const { seasonLength, horizon } = modelParams(model, freq);
  const params = options.params ?? pretrainedParameters(model);
  const expected = parameterLayout(shape).total;
  if (params.length !== expected) throw new RangeError(`${model} needs ${expected} parameters, got ${params.length}`);
  const crossSeries = shape.crossSeries && options.multivariate === true;
  const featurizer = new WindowFeaturizer(shape);
  const runner = new NetworkRunner(shape, CHUNK);
  const D = featurizer.layout.size;
  const O = shape.outputLength;
  const L = shape.contextLength;
  const out = new Float64Array(CHUNK * O);
  const peerSums = new Float64Array(L);
  const chunkInputs = new Float64Array(CHUNK * D);
  const chunkScales: WindowScale[] = Array.from({ length: CHUNK }, () => ({ location: 0, scale: 0, constant: true }));

  /** Direct forecast of `steps` (≤ horizon) values for each context into result[i*stride + offset + k]. */
  function direct(contexts: readonly Float64Array[], steps: number, result: Float64Array, stride: number, offset: number): void {
    const n = contexts.length;
    if (crossSeries) {
      const scales: WindowScale[] = Array.from({ length: n }, () => ({ location: 0, scale: 0, constant: true }));
      // Peers need every context featurised before any forward pass.
      const x = new Float64Array(n * D);
      for (let i = 0; i < n; i++) featurizer.featurize(contexts[i]!, seasonLength, x, i * D, scales[i]!);
      featurizer.writePeers(x, 0, n, peerSums);
      for (let c0 = 0; c0 < n; c0 += CHUNK) {
        const rows = Math.min(CHUNK, n - c0);
        runner.forward(params, x.subarray(c0 * D, (c0 + rows) * D), rows, out);
        for (let r = 0; r < rows; r++) emit(scales[c0 + r]!, r, c0 + r);
      }
    } else {
      for (let c0 = 0; c0 < n; c0 += CHUNK) {
        const rows = Math.min(CHUNK, n - c0);
        for (let r = 0; r < rows; r++) featurizer.featurize(contexts[c0 + r]!, seasonLength, chunkInputs, r * D, chunkScales[r]!);
        runner.forward(params, chunkInputs, rows, out);
        for (let r = 0; r < rows; r++) emit(chunkScales[r]!, r, c0 + r);
      }
    }
    function emit(s: WindowScale, r: number, i: number): void {
      const base = i * stride + offset;
      if (s.constant) {
        for (let k = 0; k < steps; k++) result[base + k] = s.location;
        return;
      }
      for (let k = 0; k < steps; k++) result[base + k] = s.location + s.scale * out[r * O + k]!;
    }
  }

  return {
    name: model,
    seasonLength,
    forecast(contexts: readonly Float64Array[], h: number): Float64Array {
      if (!Number.isInteger(h) || h < 1) throw new RangeError(`h must be a positive integer, got ${h}`);
      for (let i = 0; i < contexts.length; i++) {
        if (contexts[i]!.length < 1) throw new RangeError(`context ${i} is empty: a forecast needs at least one point`);
      }
      const n = contexts.length;
      const result = new Float64Array(n * h);
      if (h <= horizon) {
        direct(contexts, h, result, h, 0);
        return result;
      }
      // Recursive rollout: each context is extended by its own forecasts, `horizon` steps at a time.
      const keep = contexts.map((c) => Math.min(c.length, L));
      const buffers = contexts.map((c, i) => {
        const b = new Float64Array(keep[i]! + h);
        b.set(c.subarray(c.length - keep[i]!));
        return b;
      });
      const views: Float64Array[] = new Array<Float64Array>(n);
      for (let done = 0; done < h; done += horizon) {
        const steps = Math.min(horizon, h - done);
        for (let i = 0; i < n; i++) views[i] = buffers[i]!.subarray(0, keep[i]! + done);
        direct(views, steps, result, h, done);
        for (let i = 0; i < n; i++) buffers[i]!.set(result.subarray(i * h + done, i * h + done + steps), keep[i]! + done);
      }
      return result;
    },
  };
}
