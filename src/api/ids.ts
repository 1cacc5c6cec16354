/**
 * Deterministic ids: a seeded sequence of 32-hex-digit strings (the default
 * `ids` of a service), hashing any text to 32 hex digits, and the UUID layout
 * used for generated fine-tuned model ids.
 * @module
 */
import seedrandom from "seedrandom";

/**
 * A 128-bit hash of `text` as 32 lowercase hex digits (four mixed FNV-1a lanes; not cryptographic).
 * @category API rules
 */
export function hashHex32(text: string): string {
  let h0 = 0x811c9dc5;
  let h1 = 0x01000193 ^ 0x9e3779b9;
  let h2 = 0x85ebca6b;
  let h3 = 0xc2b2ae35;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h0 = Math.imul(h0 ^ c, 0x01000193);
    h1 = Math.imul(h1 ^ c, 0x0100019d);
    h2 = Math.imul(h2 ^ (c + i), 0x01000193);
    h3 = Math.imul(h3 ^ c, 0x27d4eb2f) ^ (h3 >>> 15);
  }
  const mix = (h: number, s: number): number => {
    h ^= s;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  const a = mix(h0, h3);
  const b = mix(h1, a);
  const c2 = mix(h2, b);
  const d = mix(h3, c2);
  return [a, b, c2, d].map((x) => x.toString(16).padStart(8, "0")).join("");
}

/**
 * `s` itself when it is 32 hex digits or a UUID (lowercased, without hyphens), otherwise its hash.
 * @category API rules
 */
export function toHex32(s: string): string {
  if (/^[0-9a-fA-F]{32}$/.test(s)) return s.toLowerCase();
  if (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s)) return s.replace(/-/g, "").toLowerCase();
  return hashHex32(s);
}

/**
 * 32 hex digits laid out as a UUID (8-4-4-4-12, 36 characters).
 * @category API rules
 */
export function uuidLayout(hex32: string): string {
  return `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20, 32)}`;
}

/**
 * A deterministic sequence of 32-hex-digit ids from a seed (seedrandom's ARC4).
 * @category API rules
 */
export function seededIdSequence(seed: string): () => string {
  const rng = seedrandom(seed);
  return () => {
    let out = "";
    for (let k = 0; k < 4; k++) out += (rng.int32() >>> 0).toString(16).padStart(8, "0");
    return out;
  };
}

/**
 * Hash of typed values and labels, for ids derived from a request's content.
 * @category API rules
 */
export function hashValues(labels: readonly string[], arrays: readonly Float64Array[]): string {
  const parts: string[] = [...labels];
  for (const a of arrays) {
    const words = new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
    let h = 0x811c9dc5 ^ a.length;
    let g = 0x9e3779b9;
    for (let i = 0; i < words.length; i++) {
      h = Math.imul(h ^ (words[i] as number), 0x01000193);
      g = Math.imul(g + (words[i] as number), 0x85ebca6b) ^ (g >>> 13);
    }
    parts.push(`${(h >>> 0).toString(16)}:${(g >>> 0).toString(16)}`);
  }
  return hashHex32(parts.join("|"));
}
