/**
 * API keys: reading the credential of a request and finding its account by
 * hash, then a constant-time comparison.
 * @module
 */
import { hashHex32 } from "./ids.js";

/**
 * Compares two strings in time that depends only on their lengths (never on
 * where they first differ): every code unit of the longer one is visited and
 * differences are OR-ed together.
 * @category API rules
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const n = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
}

/**
 * One configured key and its account.
 * @category API rules
 */
export interface KeyEntry {
  readonly key: string;
  readonly accountId: string;
}

/**
 * Configured keys by the hash of each (built once; see {@link findAccountByKey}).
 * @category API rules
 */
export type KeyIndex = ReadonlyMap<string, readonly KeyEntry[]>;

/**
 * Indexes configured keys by `hashHex32` of each, so that a lookup costs one
 * hash of the presented key and a constant-time comparison with the few keys
 * of its bucket, whatever the number of keys.
 *
 * @example
 * ```ts
 * const index = keyIndex([{ key: "k-1", accountId: "acme" }]);
 * findAccountByKey(index, "k-1"); // => "acme"
 * ```
 * @category API rules
 */
export function keyIndex(entries: readonly KeyEntry[]): KeyIndex {
  const index = new Map<string, KeyEntry[]>();
  for (const e of entries) {
    const h = hashHex32(e.key);
    const bucket = index.get(h);
    if (bucket === undefined) index.set(h, [e]);
    else bucket.push(e);
  }
  return index;
}

/**
 * The account of `presented`, or null: the presented key is hashed once and
 * compared in constant time (no early exit) with every configured key of the
 * same hash, so the time depends on the presented key's length only, not on
 * the number of configured keys or on which key, if any, matched.
 * @category API rules
 */
export function findAccountByKey(index: KeyIndex, presented: string): string | null {
  let found: string | null = null;
  for (const e of index.get(hashHex32(presented)) ?? []) {
    if (constantTimeEqual(e.key, presented) && found === null) found = e.accountId;
  }
  return found;
}

/**
 * A header by case-insensitive name; null when absent, repeated or not a string.
 * @category API rules
 */
export function headerValue(headers: unknown, name: string): string | null {
  if (typeof headers !== "object" || headers === null) return null;
  const lower = name.toLowerCase();
  let value: string | null = null;
  let count = 0;
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== lower) continue;
    const v = (headers as Record<string, unknown>)[key];
    if (v === undefined) continue;
    count++;
    if (typeof v === "string") value = v;
    else if (Array.isArray(v) && v.length === 1 && typeof v[0] === "string") value = v[0];
    else return null;
  }
  return count === 1 ? value : null;
}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or null.
 * @category API rules
 */
export function bearerToken(headers: unknown): string | null {
  const v = headerValue(headers, "authorization");
  if (v === null) return null;
  const m = /^[Bb][Ee][Aa][Rr][Ee][Rr] +(\S+) *$/.exec(v);
  return m === null ? null : (m[1] as string);
}
