/**
 * Fuzzing `handle` with 10,000+ generated requests: arbitrary methods, paths,
 * headers and bodies (random JSON, malformed JSON text, bytes, deep nesting,
 * huge numbers, `__proto__` keys, valid bodies with one field replaced by
 * anything). Pipelines are the cheap stand-ins so the run takes seconds.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { ServiceRequest } from "../../src/api/service.js";
import { KEY_A, KEY_B, KEY_POOR, smallSeries, testService } from "./helpers.js";

const KNOWN_STATUSES = new Set([200, 204, 401, 404, 405, 409, 415, 422, 429]);
const KEYS = [KEY_A, KEY_B, KEY_POOR];

const validBodies: Record<string, unknown>[] = [
  { series: smallSeries, freq: "D", h: 3, level: [80] },
  { series: smallSeries, freq: "H", h: 2, detection_size: 2, level: 95 },
  { series: { ...smallSeries, X: [smallSeries.y] }, freq: "W", level: [50], feature_contributions: true },
  { series: smallSeries, freq: "M", finetune_steps: 2, output_model_id: "fz" },
  { df: [{ ds: "2026-01-01", y: 1 }, { ds: "2026-01-02", y: 2 }], h: 2 },
  { series: { ...smallSeries, X: [smallSeries.y], X_future: null }, freq: "MS", h: 1, n_windows: 2, step_size: 1, hist_exog: [0], level: [80] },
  { series: smallSeries, freq: "D", level: 99, full_history: true, multivariate: false },
];

const paths = [
  "/v2/forecast",
  "/v2/online_anomaly_detection",
  "/v2/historic_forecast",
  "/v2/finetune",
  "/v2/finetune/async",
  "/v2/finetune/jobs/ft-0123456789abcdef0123456789abcdef",
  "/v2/finetune/jobs/ad-0123456789abcdef0123456789abcdef/cancel",
  "/v2/finetuned_models",
  "/v2/finetuned_models/fz",
  "/v2/finetuned_models/%E0%A4%A",
  "/forecastmodel",
  "/openapi.json",
  "/v2/cross_validation",
  "/v2/cross_validation/async",
  "/v2/forecast/async",
  "/v2/anomaly_detection",
  "/v2/forecast/jobs/fc-0123456789abcdef0123456789abcdef",
  "/v2/cross_validation/jobs/ft-0123456789abcdef0123456789abcdef",
  "/v2/async/jobs/cv-0123456789abcdef0123456789abcdef/cancel",
  "/model_params?model=forecastmodel-1&freq=MS",
  "/model_params?model=forecastmodel-2.1&freq=h&freq=x",
  "/validate_api_key",
  "/usage",
];

/** A value nested `depth` levels deep in arrays or objects. */
const deepValue = fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

const hugeNumber = fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53 + 1, -(2 ** 63), 1e-320, 0, -0);

const protoObject = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(`{"__proto__": ${JSON.stringify(v) ?? "null"}, "constructor": {"prototype": {"x": 1}}, "h": 1}`) as unknown);

const anything: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hugeNumber,
  protoObject,
  deepValue,
  fc.constantFrom(NaN, Infinity, -Infinity, undefined, null, "", "3", "true", [], {}),
);

/** A valid body with one field (at the top or inside series) replaced by anything. */
const mutatedBody = fc.tuple(fc.constantFrom(...validBodies), fc.string({ maxLength: 3 }), anything, fc.boolean()).map(([body, keyPick, value, inSeries]) => {
  const keys = Object.keys(body);
  const key = keys[keyPick.length % keys.length] as string;
  if (inSeries && typeof body.series === "object") return { ...body, series: { ...(body.series as object), [keyPick.length % 2 === 0 ? "y" : "sizes"]: value } };
  return { ...body, [key]: value };
});

const bodyArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: mutatedBody },
  { weight: 2, arbitrary: fc.constantFrom(...validBodies) },
  { weight: 2, arbitrary: anything },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.constantFrom(...validBodies).map((b) => JSON.stringify(b).slice(0, -1)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(...validBodies).map((b) => new TextEncoder().encode(JSON.stringify(b))) },
);

const headersArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...KEYS).map((k) => ({ authorization: `Bearer ${k}` })),
  fc.constantFrom(...KEYS).map((k) => ({ "X-API-KEY": k })),
  fc.constantFrom(...KEYS).map((k) => ({ Authorization: `Basic ${k}`, "x-api-key": [k, k] })),
  fc.dictionary(fc.string({ maxLength: 15 }), fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 2 }), fc.constant(undefined)), { maxKeys: 4 }),
  fc.constantFrom(undefined, null, "authorization", 5),
  fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom("zstd", "gzip", "br", "identity", "gzip, zstd", "")).map(([k, e]) => ({ authorization: `Bearer ${k}`, "content-encoding": e })),
);

const requestArb = fc.record({
  method: fc.oneof(fc.constantFrom("GET", "POST", "DELETE", "PUT", "HEAD", "post", "get"), fc.string({ maxLength: 6 })),
  path: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...paths) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constantFrom(...paths).chain((p) => fc.string({ maxLength: 6 }).map((s) => p + s)) },
  ),
  headers: headersArb,
  body: bodyArb,
});

function deepFreeze(v: unknown, depth = 0): void {
  if (typeof v !== "object" || v === null || Object.isFrozen(v) || depth > 5000) return;
  if (ArrayBuffer.isView(v)) return; // typed arrays cannot be frozen; checked by snapshot instead
  Object.freeze(v);
  for (const key of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[key], depth + 1);
}

/** A structural fingerprint of a value, iterative so any nesting depth works. */
function snapshot(root: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [root];
  const CLOSE = Symbol("close");
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === CLOSE) {
      out.push(")");
      continue;
    }
    if (typeof v === "number") out.push(Object.is(v, -0) ? "-0" : String(v));
    else if (typeof v === "string") out.push(JSON.stringify(v));
    else if (typeof v !== "object" || v === null) out.push(String(v));
    else if (v instanceof ArrayBuffer) out.push(`buf:${Array.from(new Uint8Array(v)).join(",")}`);
    else if (ArrayBuffer.isView(v)) out.push(`bytes:${Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).join(",")}`);
    else {
      const keys = Object.keys(v);
      out.push(Array.isArray(v) ? "[(" : "{(");
      stack.push(CLOSE);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push((v as Record<string, unknown>)[keys[i] as string]);
        stack.push(`key:${keys[i]}`);
      }
    }
  }
  return out.join(" ");
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

/** Only null, booleans, finite numbers, strings, arrays and plain objects (checked iteratively). */
function isPlainJson(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v === "boolean" || typeof v === "string") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return false;
      continue;
    }
    if (typeof v !== "object") return false;
    const proto = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return false;
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  return true;
}

describe("handle under fuzzing", () => {
  it("10,000 generated requests: a known status, a JSON body, no rejection, no key, no mutation, deterministic", async () => {
    let runs = 0;
    const statuses = new Map<number, number>();
    // two identical services fed the same requests stay in lockstep: every response must match byte for byte
    const [a, b] = [testService(), testService()];
    await fc.assert(
      fc.asyncProperty(requestArb, async (req) => {
        runs++;
        deepFreeze(req);
        const before = snapshot(req);
        const ra = await a.handle(req as unknown as ServiceRequest); // a rejection fails the property
        const rb = await b.handle(req as unknown as ServiceRequest);
        statuses.set(ra.status, (statuses.get(ra.status) ?? 0) + 1);
        check(KNOWN_STATUSES.has(ra.status), `unknown status ${ra.status}`);
        check(isPlainJson(ra.body), "body is not plain JSON");
        check(typeof ra.headers === "object" && Object.values(ra.headers).every((h) => typeof h === "string"), "headers are not strings");
        const text = JSON.stringify(ra);
        for (const key of KEYS) check(!text.includes(key), "a key leaked into the response");
        check(text === JSON.stringify(rb), "the same request gave different responses");
        check(snapshot(req) === before, "the request was mutated");
        check(({} as Record<string, unknown>).x === undefined, "Object.prototype was polluted");
      }),
      { numRuns: 10_000 },
    );
    expect(runs).toBeGreaterThanOrEqual(10_000);
    // the generator reaches every kind of outcome
    for (const s of [200, 401, 404, 405, 422]) expect(statuses.get(s) ?? 0).toBeGreaterThan(0);
  }, 120_000);
});
