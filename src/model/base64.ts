/**
 * Base64 decoding of the binaries shipped as source (the weights and the
 * WebAssembly kernel), without Buffer or atob so that it runs everywhere.
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Decodes standard base64 into `length` bytes (stops at `=` or when `length`
 * bytes are written).
 *
 * @throws RangeError on a character outside the base64 alphabet, or when the
 *   text holds fewer than `length` bytes.
 *
 * @example
 * ```ts
 * Array.from(decodeBase64Bytes("AQID", 3)); // => [1, 2, 3]
 * ```
 * @category Network
 */
export function decodeBase64Bytes(base64: string, length: number): Uint8Array {
  const lookup = new Int16Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) lookup[ALPHABET.charCodeAt(i)] = i;
  const bytes = new Uint8Array(length);
  let byte = 0;
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < base64.length && byte < length; i++) {
    const c = base64.charCodeAt(i);
    if (c === 61) break; // '='
    const v = c < 128 ? lookup[c]! : -1;
    if (v < 0) throw new RangeError(`invalid base64 character at ${i}`);
    buffer = ((buffer << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[byte++] = (buffer >> bits) & 255;
    }
  }
  if (byte !== length) throw new RangeError(`base64 text holds ${byte} bytes, expected ${length}`);
  return bytes;
}

/**
 * Bytes encoded by `base64` (its length with the padding taken off).
 * @category Network
 */
export function base64ByteLength(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

export { ALPHABET as BASE64_ALPHABET };
