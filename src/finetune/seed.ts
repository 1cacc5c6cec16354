/**
 * A seed string derived from a fine-tune request's data, so that the same
 * request always draws the same training windows.
 * @module
 */
import type { Freq, ModelName } from "../types.js";

/** Mixes one 32-bit word into a 32-bit hash state (multiply–xorshift, murmur3-style). */
function mix(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalMix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes the 32-bit words of a typed array (its bytes, whatever its element type) into two lanes. */
function hashWords(state: Int32Array, words: Uint32Array): void {
  let a = state[0] as number;
  let b = state[1] as number;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as number;
    a = mix(a, w);
    b = mix(b, w ^ 0x9e3779b9);
  }
  a = mix(a, words.length);
  b = mix(b, words.length);
  state[0] = a;
  state[1] = b;
}

function hashString(state: Int32Array, text: string): void {
  const words = new Uint32Array(text.length);
  for (let i = 0; i < text.length; i++) words[i] = text.charCodeAt(i);
  hashWords(state, words);
}

/**
 * What the seed of a fine-tune run depends on.
 *
 * @example
 * ```ts
 * const input: FinetuneSeedInput = { model: "forecastmodel-1", freq: "M", y: new Float64Array([1, 2]),
 *   offsets: Int32Array.from([0, 2]), trainLengths: Int32Array.from([2]) };
 * finetuneSeed(input).length; // => 19
 * ```
 * @category Fine-tuning
 */
export interface FinetuneSeedInput {
  /** The pretrained model fine-tuned. */
  readonly model: ModelName;
  /** The series frequency. */
  readonly freq: Freq;
  /** Observations of all series, concatenated. */
  readonly y: Float64Array;
  /** Where each series starts in `y` (at least one entry per series). */
  readonly offsets: Int32Array;
  /** Training length of each series: only its first `trainLengths[i]` points are hashed. */
  readonly trainLengths: Int32Array;
}

/**
 * A deterministic seed string for a fine-tune run: a 64-bit hash (two 32-bit
 * murmur3-style lanes) of the model name, the frequency, the training lengths
 * and the bytes of every training point (the first `trainLengths[i]` points of
 * series i), written as `"ft-"` + 16 hex digits. Equal inputs give equal
 * seeds; changing a training value or length changes the seed (with
 * overwhelming probability); points after the training lengths are not read,
 * so they cannot influence a fine-tune.
 *
 * Cost: O(number of values).
 *
 * @param input - the request's model, frequency, data and training lengths
 * @returns the seed string for `seedrandom`
 * @example
 * ```ts
 * const offsets = Int32Array.from([0, 3]);
 * const a = finetuneSeed({ model: "forecastmodel-1", freq: "D", y: new Float64Array([1, 2, 3]), offsets, trainLengths: Int32Array.from([2]) });
 * a === finetuneSeed({ model: "forecastmodel-1", freq: "D", y: new Float64Array([1, 2, 99]), offsets, trainLengths: Int32Array.from([2]) }); // => true
 * /^ft-[0-9a-f]{16}$/.test(a); // => true
 * ```
 * @category Fine-tuning
 */
export function finetuneSeed(input: FinetuneSeedInput): string {
  const state = new Int32Array([0x243f6a88, 0x85a308d3 | 0]);
  hashString(state, `${input.model}|${input.freq}`);
  const { y, offsets, trainLengths } = input;
  hashWords(state, new Uint32Array(trainLengths.buffer, trainLengths.byteOffset, trainLengths.length));
  for (let i = 0; i < trainLengths.length; i++) {
    const from = offsets[i] as number;
    const count = trainLengths[i] as number;
    if (from < 0 || count < 0 || from + count > y.length) {
      throw new RangeError(`finetuneSeed: series ${i} (offset ${from}, ${count} training points) lies outside y (length ${y.length})`);
    }
    hashWords(state, new Uint32Array(y.buffer, y.byteOffset + from * 8, count * 2));
  }
  const hex = (v: number): string => v.toString(16).padStart(8, "0");
  return `ft-${hex(finalMix(state[0] as number))}${hex(finalMix(state[1] as number))}`;
}
