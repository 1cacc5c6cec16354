/**
 * What the service answers with besides the endpoints' results: the JSON
 * content type, errors that carry an HTTP status, and the `warning` header.
 * @module
 */

/**
 * Text of the `support` field of 401 and 429 bodies and of the older form's envelope.
 *
 * @example
 * ```ts
 * SUPPORT_TEXT.includes("requestID"); // => true
 * ```
 * @category API rules
 */
export const SUPPORT_TEXT = "If you need help, contact support and quote the requestID.";

/** The content type of every JSON answer. */
export const JSON_HEADERS = { "content-type": "application/json" } as const;

/** An answer other than 200 or 422, thrown by a route and turned into the response by `handle`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly extraHeaders: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

/** 404 for a fine-tuned model the account cannot see. */
export const notFoundModel = (): HttpError => new HttpError(404, { detail: "Finetuned model not found" });
/** 404 for a job the account cannot see (another task's id included). */
export const notFoundJob = (): HttpError => new HttpError(404, { detail: "job not found" });


/** The `warning` header (RFC 7234 code 299) carrying a result's warnings; none when there are none. */
export function warningHeader(warnings: readonly string[]): Record<string, string> {
  if (warnings.length === 0) return {};
  const quoted = warnings.map((w) => `299 - "${w.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, " ")}"`);
  return { warning: quoted.join(", ") };
}
