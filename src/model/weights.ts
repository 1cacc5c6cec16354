/**
 * The pretrained parameters shipped inside the package, decoded lazily on
 * first use, and fine-tuned deltas applied on top of them. The weights of a
 * model are known once registered: the package's main entry registers all
 * three; `forecastmodel/lite` registers none, so a bundle carries only the
 * models it registers (`registerWeights(WEIGHTS_FM1)` with `WEIGHTS_FM1` from
 * `forecastmodel/weights/forecastmodel-1`).
 * @module
 */
import type { FinetunedWeights, ModelName } from "../types.js";
import { BASE64_ALPHABET as ALPHABET, decodeBase64Bytes } from "./base64.js";
import { isModelName, networkShape } from "./config.js";
import { parameterLayout } from "./network.js";

/**
 * A generated weights module: parameters as little-endian float32, base64.
 * @category Network
 */
export interface EmbeddedWeights {
  /** The model the weights belong to. */
  readonly model: ModelName;
  /** Number of parameters. */
  readonly count: number;
  /** The parameters as little-endian float32, base64-encoded. */
  readonly base64: string;
}

const EMBEDDED = new Map<ModelName, EmbeddedWeights>();

const decoded = new Map<ModelName, Float64Array>();

/** Models known by their decoded parameters only (adopted from another thread, see {@link adoptSharedParameters}). */
const ADOPTED = new Set<ModelName>();

/**
 * Makes the weights of models known (the main entry registers all three).
 * Registering a model again replaces its weights.
 *
 * @throws RangeError when the weights are not of a known model or have the wrong size.
 *
 * @example
 * ```ts
 * registeredModels().includes("forecastmodel-1"); // => true
 * ```
 * @category Models
 */
export function registerWeights(...weights: readonly EmbeddedWeights[]): void {
  for (const w of weights) {
    if (!isModelName(w.model)) throw new RangeError(`registerWeights: unknown model "${String(w.model)}"`);
    const expected = parameterLayout(networkShape(w.model)).total;
    if (w.count !== expected) throw new RangeError(`registerWeights: weights of ${w.model} have ${w.count} parameters, the network needs ${expected}`);
    EMBEDDED.set(w.model, w);
    ADOPTED.delete(w.model);
    decoded.delete(w.model);
  }
}

/**
 * The models whose weights are registered, in registration order.
 *
 * @example
 * ```ts
 * registeredModels().length; // => 4 (the main entry registers every model)
 * ```
 * @category Models
 */
export function registeredModels(): ModelName[] {
  return [...EMBEDDED.keys(), ...[...ADOPTED].filter((m) => !EMBEDDED.has(m))];
}

/**
 * The pretrained flat parameter vector of a model. Decoded once and shared:
 * never mutate it (copy with `.slice()` first).
 *
 * @example
 * ```ts
 * pretrainedParameters("forecastmodel-1").length === parameterCount("forecastmodel-1"); // => true
 * ```
 * @category Network
 */
export function pretrainedParameters(model: ModelName): Float64Array {
  let params = decoded.get(model);
  if (params === undefined) {
    const embedded = EMBEDDED.get(model);
    if (embedded === undefined) {
      if (!isModelName(model)) throw new RangeError(`unknown model "${String(model)}"`);
      throw new RangeError(`the weights of ${model} are not loaded: import "forecastmodel" (every model), or register them with registerWeights(...) from "forecastmodel/weights/${model}"`);
    }
    params = decodeFloat32Base64(embedded.base64, embedded.count);
    decoded.set(model, params);
  }
  return params;
}

/**
 * The pretrained parameters of every registered model, each decoded once into
 * a `SharedArrayBuffer`, for worker threads: a thread that adopts them
 * ({@link adoptSharedParameters}) reads the same memory instead of decoding
 * its own copy. This thread uses the shared arrays from then on too, so each
 * model's parameters are held once per process. Cost: one decode per model
 * not yet shared.
 *
 * @returns one entry per registered model, in registration order.
 *
 * @example
 * ```ts
 * const shared = sharedPretrainedParameters();
 * shared[0]!.params.buffer instanceof SharedArrayBuffer; // => true
 * shared[0]!.params === pretrainedParameters(shared[0]!.model); // => true
 * ```
 * @category Network
 */
export function sharedPretrainedParameters(): { model: ModelName; params: Float64Array }[] {
  return registeredModels().map((model) => {
    let params = pretrainedParameters(model);
    if (!(params.buffer instanceof SharedArrayBuffer)) {
      const shared = new Float64Array(new SharedArrayBuffer(params.length * Float64Array.BYTES_PER_ELEMENT));
      shared.set(params);
      decoded.set(model, shared);
      params = shared;
    }
    return { model, params };
  });
}

/**
 * Makes a model known by its decoded parameters, as another thread shared
 * them ({@link sharedPretrainedParameters}): `pretrainedParameters(model)`
 * returns `params` itself (never copied, never mutated). A later
 * `registerWeights` of the model replaces them.
 *
 * @throws RangeError when the model is unknown or `params` has the wrong length.
 *
 * @example
 * ```ts
 * const [first] = sharedPretrainedParameters();
 * adoptSharedParameters(first!.model, first!.params); // what a worker thread does with them
 * pretrainedParameters(first!.model) === first!.params; // => true
 * ```
 * @category Network
 */
export function adoptSharedParameters(model: ModelName, params: Float64Array): void {
  if (!isModelName(model)) throw new RangeError(`adoptSharedParameters: unknown model "${String(model)}"`);
  const expected = parameterLayout(networkShape(model)).total;
  if (params.length !== expected) throw new RangeError(`adoptSharedParameters: parameters of ${model} have ${params.length} values, the network needs ${expected}`);
  if (!EMBEDDED.has(model)) ADOPTED.add(model);
  decoded.set(model, params);
}

/**
 * The full parameter vector of a fine-tuned model: the pretrained vector with
 * the stored suffix written over it (a new array). `null` gives a copy of the
 * pretrained parameters.
 *
 * @example
 * ```ts
 * const p = applyFinetuned("forecastmodel-1", null);
 * p[0] === pretrainedParameters("forecastmodel-1")[0]; // => true
 * ```
 * @category Network
 */
export function applyFinetuned(model: ModelName, weights: FinetunedWeights | null): Float64Array {
  const params = pretrainedParameters(model).slice();
  if (weights === null) return params;
  if (weights.model !== model) throw new RangeError(`fine-tuned weights are for ${weights.model}, not ${model}`);
  if (weights.start < 0 || weights.start + weights.values.length !== params.length) {
    throw new RangeError(`fine-tuned weights do not fit ${model}: start ${weights.start} + ${weights.values.length} values != ${params.length}`);
  }
  params.set(weights.values, weights.start);
  return params;
}


/**
 * Encodes parameters as little-endian float32 in base64 (the weights file format).
 *
 * @example
 * ```ts
 * encodeFloat32Base64(new Float64Array([1])); // => "AACAPw=="
 * ```
 * @category Network
 */
export function encodeFloat32Base64(values: Float64Array): string {
  const bytes = new Uint8Array(new Float32Array(values).buffer);
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i]!;
    const b1 = i + 1 < bytes.length ? bytes[i + 1]! : 0;
    const b2 = i + 2 < bytes.length ? bytes[i + 2]! : 0;
    out += ALPHABET[b0 >> 2]! + ALPHABET[((b0 & 3) << 4) | (b1 >> 4)]!;
    out += i + 1 < bytes.length ? ALPHABET[((b1 & 15) << 2) | (b2 >> 6)]! : "=";
    out += i + 2 < bytes.length ? ALPHABET[b2 & 63]! : "=";
  }
  return out;
}

/**
 * Decodes `count` little-endian float32 values from base64 into a Float64Array.
 *
 * @example
 * ```ts
 * Array.from(decodeFloat32Base64("AACAPw==", 1)); // => [1]
 * ```
 * @category Network
 */
export function decodeFloat32Base64(base64: string, count: number): Float64Array {
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64Bytes(base64, count * 4);
  } catch (error) {
    throw new RangeError(`weights: ${(error as Error).message}`);
  }
  const view = new DataView(bytes.buffer);
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
