/**
 * API keys: reading the credential of a request and finding its account by
 * comparing against every configured key in constant time.
 * @module
 */

/**
 * Compares two strings in time that depends only on their lengths (never on
 * where they first differ): every code unit of the longer one is visited and
 * differences are OR-ed together.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const n = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return diff === 0;
}

/** One configured key and its account. */
export interface KeyEntry {
  readonly key: string;
  readonly accountId: string;
}

/**
 * The account of `presented`, or null. Every key is compared (no early exit),
 * so the time does not tell which key, or whether any, matched.
 */
export function findAccountByKey(entries: readonly KeyEntry[], presented: string): string | null {
  let found: string | null = null;
  for (const e of entries) {
    if (constantTimeEqual(e.key, presented) && found === null) found = e.accountId;
  }
  return found;
}

/** A header by case-insensitive name; null when absent, repeated or not a string. */
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

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or null. */
export function bearerToken(headers: unknown): string | null {
  const v = headerValue(headers, "authorization");
  if (v === null) return null;
  const m = /^[Bb][Ee][Aa][Rr][Ee][Rr] +(\S+) *$/.exec(v);
  return m === null ? null : (m[1] as string);
}
