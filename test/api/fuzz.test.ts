/**
 * Fuzzing `handle` with 10,000+ generated requests: arbitrary methods, paths,
 * headers and bodies (random JSON, malformed JSON text, bytes, deep nesting,
 * huge numbers, `__proto__` keys, valid bodies with one field replaced by
 * anything). Pipelines are the cheap stand-ins so the run takes seconds.
 * Then the async routes with credits (generated sequences of submissions,
 * cancels, polls and runs by accounts without a payment method, checked
 * against the credits and the pending limits), and the records API
 * (arbitrary rows, future rows and options: a result or a ValidationError,
 * nothing else).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ValidationError } from "../../src/api/errors.js";
import { detectAnomaliesRecords, forecastRecords, historicForecastRecords, type FutureRecordRow, type RecordRow } from "../../src/api/index.js";
import { createService, type ServiceRequest } from "../../src/api/service.js";
import { createMemoryStore } from "../../src/api/store.js";
import { fakePipelines, get, KEY_A, KEY_B, KEY_POOR, post, smallSeries, testService } from "./helpers.js";

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

/** One step of a client of the async routes. */
type AsyncStep =
  | { kind: "submit"; key: number; route: number; body: unknown }
  | { kind: "cancel"; key: number; job: number }
  | { kind: "poll"; key: number; job: number }
  | { kind: "sync"; key: number; body: unknown }
  | { kind: "run" };

const ASYNC_ROUTES = ["/v2/forecast/async", "/v2/cross_validation/async", "/v2/finetune/async"] as const;
const POLL_ROUTES = ["/v2/forecast/jobs/", "/v2/cross_validation/jobs/", "/v2/finetune/jobs/"] as const;
const asyncBodies: Record<string, unknown>[] = [
  { series: smallSeries, freq: "D", h: 2 },
  { series: smallSeries, freq: "D", h: 1, n_windows: 2, step_size: 1 },
  { series: smallSeries, freq: "D", finetune_steps: 1 },
  { series: { y: [666, 2, 3, 4, 5, 6], sizes: [6] }, freq: "D", finetune_steps: 1 },
  { series: { y: Array.from({ length: 40 }, (_, t) => t % 7), sizes: [20, 20] }, freq: "H", h: 3, level: [80] },
];
const asyncBody: fc.Arbitrary<unknown> = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...asyncBodies) }, { weight: 1, arbitrary: mutatedBody }, { weight: 1, arbitrary: anything });
const asyncStep: fc.Arbitrary<AsyncStep> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("submit" as const), key: fc.nat(2), route: fc.nat(2), body: asyncBody }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("submit" as const), key: fc.constant(2), route: fc.nat(2), body: fc.constantFrom(...asyncBodies) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), key: fc.nat(2), job: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("poll" as const), key: fc.nat(2), job: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("sync" as const), key: fc.nat(2), body: asyncBody }) },
  { weight: 1, arbitrary: fc.constant({ kind: "run" as const }) },
);

describe("the async routes with credits under fuzzing", () => {
  it("300 generated sessions: known statuses, never more pending than allowed, every job ends, nothing stays reserved, spent = tokens of the 200s", async () => {
    const FREE_KEYS = ["key-fz-free-a", "key-fz-free-b", "key-fz-paying"];
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(asyncStep, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 120 }), async (steps, credits) => {
        const store = createMemoryStore();
        let n = 0;
        const service = createService({
          accounts: [
            { id: "a", apiKeys: [FREE_KEYS[0]!], credits, hasPaymentMethod: false },
            { id: "b", apiKeys: [FREE_KEYS[1]!], credits: 30, hasPaymentMethod: false },
            { id: "p", apiKeys: [FREE_KEYS[2]!], credits: 0, hasPaymentMethod: true },
          ],
          store,
          pipelines: fakePipelines,
          ids: () => `fz-${n++}`,
          jobLimits: { maxPendingJobs: 2, maxPendingValues: 200 },
        });
        const jobs: { id: string; key: number; route: number }[] = [];
        const charged = [0, 0, 0];
        const tokensOf = (body: unknown): number => {
          const b = body as { input_tokens?: number; output_tokens?: number; finetune_tokens?: number };
          return (b.input_tokens ?? 0) + (b.output_tokens ?? 0) + (b.finetune_tokens ?? 0);
        };
        for (const step of steps) {
          if (step.kind === "run") {
            await service.runJobs();
            continue;
          }
          const key = FREE_KEYS[step.key]!;
          let res;
          if (step.kind === "submit") {
            res = await service.handle(post(ASYNC_ROUTES[step.route]!, step.body, key));
            if (res.status === 200) jobs.push({ id: (res.body as { job_id: string }).job_id, key: step.key, route: step.route });
            else check([422, 429].includes(res.status), `submit answered ${res.status}`);
          } else if (step.kind === "sync") {
            res = await service.handle(post("/v2/forecast", step.body, key));
            if (res.status === 200) charged[step.key]! += tokensOf(res.body);
            else check([422, 429].includes(res.status), `sync answered ${res.status}`);
          } else {
            const job = jobs[step.job % Math.max(1, jobs.length)];
            const id = job?.id ?? "fc-0123456789abcdef0123456789abcdef";
            res = step.kind === "cancel" ? await service.handle(post(`/v2/async/jobs/${id}/cancel`, undefined, key)) : await service.handle(get(`${POLL_ROUTES[job?.route ?? 0]}${id}`, key));
            const mine = job !== undefined && job.key === step.key;
            check(mine ? [200, 409].includes(res.status) : res.status === 404, `${step.kind} of ${mine ? "own" : "another's"} job answered ${res.status}`);
          }
          check(KNOWN_STATUSES.has(res.status) && isPlainJson(res.body), "unknown status or body");
          const outcome = `${step.kind} ${res.status}${res.status === 429 ? ((res.body as { detail?: string }).detail !== undefined ? " pending" : " credits") : ""}`;
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          // the pending limit holds at every moment
          const pending = await store.pendingJobs();
          for (const account of ["a", "b", "p"]) check(pending.filter((j) => j.accountId === account).length <= 2, "more pending jobs than maxPendingJobs");
        }
        await service.runJobs();
        for (const job of jobs) {
          const record = (await service.handle(get(`${POLL_ROUTES[job.route]}${job.id}`, FREE_KEYS[job.key]))).body as { status: string; result: unknown };
          check(["succeeded", "failed", "cancelled"].includes(record.status), `job ${job.id} is ${record.status} after runJobs`);
          if (record.status === "succeeded") charged[job.key]! += tokensOf(record.result);
        }
        for (const [i, account] of ["a", "b", "p"].entries()) {
          const spent = await store.spentTokens(account);
          check(spent === charged[i], `account ${account}: spent ${spent}, the 200s reported ${charged[i]}`);
          // nothing is held: a reservation against credits of spent + 1 is granted only when nothing else is reserved
          check(await store.reserveTokens(account, { id: "probe", tokens: 1, leaseMs: null }, spent + 1, 0), `account ${account} still has tokens reserved`);
        }
      }),
      { numRuns: 300 },
    );
    // the generator reaches every outcome that matters
    for (const o of ["submit 200", "submit 422", "submit 429 credits", "submit 429 pending", "cancel 200", "cancel 409", "sync 200", "poll 200"]) expect([o, outcomes.get(o) ?? 0]).not.toEqual([o, 0]);
  }, 120_000);
});

const recordValue: fc.Arbitrary<unknown> = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(NaN, Infinity, null, undefined, "3", true, [], {}));
const recordDs: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: 0, max: 60 }).map((t) => new Date(Date.UTC(2024, 0, 1, t)).toISOString().slice(0, 19).replace("T", " ")),
  fc.integer({ min: 0, max: 60 }).map((t) => new Date(Date.UTC(2024, 0, 1 + t))),
  fc.integer({ min: 0, max: 30 }).map((t) => `2024-${String((t % 12) + 1).padStart(2, "0")}-01`),
  fc.constantFrom("", "2024-13-01", "not a date", null, 5, new Date(NaN)),
);
const recordRow: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ unique_id: fc.oneof(fc.constantFrom("a", "b", 1), anything), ds: recordDs, y: recordValue }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ unique_id: fc.constantFrom("a", "b"), ds: recordDs, y: recordValue, x1: recordValue }) },
  { weight: 1, arbitrary: anything },
);
/** Hourly rows of two regular series, with one row replaced by anything. */
const regularRows: fc.Arbitrary<unknown[]> = fc.tuple(fc.integer({ min: 2, max: 130 }), fc.nat(260), recordRow).map(([n, at, bad]) => {
  const rows: unknown[] = [];
  for (const id of ["a", "b"]) for (let t = 0; t < n; t++) rows.push({ unique_id: id, ds: new Date(Date.UTC(2024, 0, 1, t)).toISOString().slice(0, 19).replace("T", " "), y: 5 + (t % 6) });
  if (at < rows.length / 2) rows[at] = bad;
  return rows;
});
const recordOptions: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    h: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 12 }) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 30 }) }, { weight: 1, arbitrary: fc.constantFrom(Infinity, NaN, 1e6, 1.5, "2", null) }),
    level: fc.oneof({ weight: 2, arbitrary: fc.constant([80]) }, { weight: 2, arbitrary: fc.constant(95) }, { weight: 1, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: anything }),
    freq: fc.constantFrom("H", undefined, undefined, "D", "7min", "x"),
    detection_size: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 4 }) }, { weight: 1, arbitrary: anything }),
  },
  { requiredKeys: ["h"] },
);

describe("the records API under fuzzing", () => {
  it("400 generated calls: a result or a ValidationError, the rows never mutated", () => {
    const entries = [forecastRecords, detectAnomaliesRecords, historicForecastRecords] as const;
    let answered = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        fc.oneof({ weight: 3, arbitrary: regularRows }, { weight: 1, arbitrary: fc.array(recordRow, { maxLength: 30 }) }, { weight: 1, arbitrary: anything }),
        recordOptions,
        fc.option(fc.array(recordRow, { maxLength: 10 }), { nil: undefined }),
        fc.nat(2),
        (rows, options, futureRows, which) => {
          deepFreeze(rows);
          deepFreeze(options);
          const before = snapshot(rows);
          const run = entries[which]! as (r: readonly RecordRow[], o: Record<string, unknown>) => unknown;
          try {
            const out = run(rows as RecordRow[], which === 0 && futureRows !== undefined ? { ...options, futureRows: futureRows as FutureRecordRow[] } : options);
            check(typeof out === "object" && out !== null, "no result");
            answered++;
          } catch (e) {
            refused++;
            check(e instanceof ValidationError, `threw ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)}`);
          }
          check(snapshot(rows) === before, "the rows were mutated");
        },
      ),
      { numRuns: 400 },
    );
    expect(answered).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(20);
  }, 120_000);
});
