/**
 * A mixed burst of bad requests, each with the status it must get: keys
 * (401), routes and methods (404, 405), bodies (malformed, missing, wrong
 * types, non-finite h, over a limit or the work budget, deep nesting, corrupt
 * gzip, a zstd frame declaring 2 GiB, a gzip bomb: 422; an unsupported
 * encoding: 415), credits and pending jobs (429), jobs (404, 409). Used by
 * bench/burst-bench.ts (timing and heap) and test/api/burst.test.ts (every
 * answer is its 4xx).
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { createService, type ForecastService, type ServiceRequest } from "../../src/api/service.js";
import { createMemoryStore } from "../../src/api/store.js";

/** Keys of the burst's accounts. */
export const BURST_KEYS = { paying: "key-burst-paying-01", broke: "key-burst-broke-02", busy: "key-burst-busy-03" } as const;

const y = Array.from({ length: 30 }, (_, t) => 10 + (t % 7));
const good = { series: { y, sizes: [30] }, freq: "D", h: 3 };

/**
 * A service with three accounts: one paying, one whose credits are spent,
 * one whose pending jobs are at the limit, and a finished job of the paying
 * account (for 409s). Default limits; `pipelines` as given (the real ones by default).
 */
export async function burstService(
  pipelines?: Parameters<typeof createService>[0]["pipelines"],
  limits?: Parameters<typeof createService>[0]["limits"],
): Promise<{ service: ForecastService; finishedJob: string }> {
  let n = 0;
  const service = createService({
    accounts: [
      { id: "paying", apiKeys: [BURST_KEYS.paying], credits: 0, hasPaymentMethod: true },
      { id: "broke", apiKeys: [BURST_KEYS.broke], credits: 1, hasPaymentMethod: false },
      { id: "busy", apiKeys: [BURST_KEYS.busy], credits: 1e9, hasPaymentMethod: true },
    ],
    store: createMemoryStore(),
    ids: () => `burst-${n++}`,
    jobLimits: { maxPendingJobs: 2 },
    ...(pipelines !== undefined ? { pipelines } : {}),
    ...(limits !== undefined ? { limits } : {}),
  });
  const send = (key: string, path: string, body: unknown) => service.handle({ method: "POST", path, headers: { authorization: `Bearer ${key}` }, body });
  // spend the broke account's only credit
  const first = await send(BURST_KEYS.broke, "/v2/forecast", good);
  if (first.status !== 200) throw new Error(`burst set-up: the broke account's first forecast answered ${first.status} ${JSON.stringify(first.body)}`);
  for (let i = 0; i < 2; i++) if ((await send(BURST_KEYS.busy, "/v2/forecast/async", good)).status !== 200) throw new Error("burst set-up: a pending job was refused");
  const done = await send(BURST_KEYS.paying, "/v2/forecast/async", good);
  const finishedJob = (done.body as { job_id: string }).job_id;
  await service.runJob(finishedJob);
  return { service, finishedJob };
}

/** A bad request and the status it must get. */
export interface BadRequest {
  readonly kind: string;
  readonly expected: number;
  readonly request: ServiceRequest;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const post = (path: string, body: unknown, headers: Record<string, string> = bearer(BURST_KEYS.paying)): ServiceRequest => ({ method: "POST", path, headers, body });

/** Every kind of bad request once (`finishedJob` from `burstService`). */
export function badRequestKinds(finishedJob: string): BadRequest[] {
  const goodGzip = gzipSync(Buffer.from(JSON.stringify(good)));
  const corruptGzip = Uint8Array.from(goodGzip);
  corruptGzip[corruptGzip.length - 6] = corruptGzip[corruptGzip.length - 6]! ^ 0xff; // a byte of the trailer's CRC-32
  const zstdHuge = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0x01, 0x00, 0x00);
  let deep: unknown = 1;
  for (let i = 0; i < 3000; i++) deep = [deep];
  const kinds: BadRequest[] = [
    { kind: "no key", expected: 401, request: post("/v2/forecast", good, {}) },
    { kind: "wrong key", expected: 401, request: post("/v2/forecast", good, bearer("nope")) },
    { kind: "unknown path", expected: 404, request: post("/v2/forecasts", good) },
    { kind: "wrong method", expected: 405, request: { method: "GET", path: "/v2/forecast", headers: bearer(BURST_KEYS.paying) } },
    { kind: "malformed JSON", expected: 422, request: post("/v2/forecast", '{"series": {"y": [1, 2,, 3]}') },
    { kind: "no body", expected: 422, request: post("/v2/forecast", undefined) },
    { kind: "wrong types", expected: 422, request: post("/v2/forecast", { ...good, h: "3", freq: 7, level: ["80"] }) },
    { kind: "h Infinity", expected: 422, request: post("/v2/forecast", { ...good, h: Infinity }) },
    { kind: "h over maxHorizon", expected: 422, request: post("/v2/forecast", { ...good, h: 1e6 }) },
    { kind: "finetune_steps 1e9", expected: 422, request: post("/v2/finetune", { series: good.series, freq: "D", finetune_steps: 1e9 }) },
    { kind: "n_windows 1000", expected: 422, request: post("/v2/cross_validation", { ...good, n_windows: 1000 }) },
    { kind: "deep nesting", expected: 422, request: post("/v2/forecast", { ...good, series: deep }) },
    { kind: "corrupt gzip", expected: 422, request: post("/v2/forecast", corruptGzip, { ...bearer(BURST_KEYS.paying), "content-encoding": "gzip" }) },
    { kind: "zstd declaring 2 GiB", expected: 422, request: post("/v2/forecast", zstdHuge, { ...bearer(BURST_KEYS.paying), "content-encoding": "zstd" }) },
    { kind: "unsupported encoding", expected: 415, request: post("/v2/forecast", goodGzip, { ...bearer(BURST_KEYS.paying), "content-encoding": "br" }) },
    { kind: "older form, bad df", expected: 422, request: post("/forecastmodel", { df: [{ ds: "2024-01-01", y: 1 }, { ds: "nope", y: 2 }], h: 2 }, { "x-api-key": BURST_KEYS.paying }) },
    { kind: "credits spent", expected: 429, request: post("/v2/forecast", good, bearer(BURST_KEYS.broke)) },
    { kind: "pending limit", expected: 429, request: post("/v2/forecast/async", good, bearer(BURST_KEYS.busy)) },
    { kind: "unknown job", expected: 404, request: { method: "GET", path: "/v2/forecast/jobs/fc-0123456789abcdef0123456789abcdef", headers: bearer(BURST_KEYS.paying) } },
    { kind: "cancel a finished job", expected: 409, request: post(`/v2/async/jobs/${finishedJob}/cancel`, undefined) },
  ];
  return kinds;
}

/**
 * The gzip bomb of test/fixtures/encoding (64 kB → 64 MiB of spaces): 422,
 * either decoded in full and found to hold no JSON value (under the default
 * 256 MiB limit) or refused at the limit.
 */
export function gzipBomb(): BadRequest {
  const bomb = new Uint8Array(readFileSync(new URL("../fixtures/encoding/bomb.gz", import.meta.url)));
  return { kind: "gzip bomb", expected: 422, request: post("/v2/forecast", bomb, { ...bearer(BURST_KEYS.paying), "content-encoding": "gzip" }) };
}

/** `count` bad requests: the kinds in turn, with a gzip bomb every `bombEvery` (0: none). */
export function badRequestBurst(finishedJob: string, count: number, bombEvery = 0): BadRequest[] {
  const kinds = badRequestKinds(finishedJob);
  const bomb = gzipBomb();
  return Array.from({ length: count }, (_, i) => (bombEvery > 0 && i % bombEvery === bombEvery - 1 ? bomb : kinds[i % kinds.length]!));
}
