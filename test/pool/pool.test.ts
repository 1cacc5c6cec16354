/**
 * The worker pool against the one-thread entry points: every answer (result
 * or 422 items) byte-identical over random requests, split or whole, object
 * or bytes; a stopped worker answers its own call only and is replaced;
 * close() drains. The pool runs the library transpiled to JS (the worker
 * threads are plain Node), the reference runs the TypeScript source.
 */
import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { seriesArb } from "../support/series-arbitrary.js";
import * as library from "../../src/index.js";
import type { ForecastPool, PoolOptions } from "../../src/pool/index.js";
import type { FinetunedWeights } from "../../src/types.js";
import { createWorkspace, type SampleWorkspace } from "../docs/samples.js";
import { runEndpoint } from "../../src/api/entry-points.js";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { CARRIED_TEXT_FROM, carriedText, carrierShelf, textFromCarrier } from "../../src/pool/protocol.js";

type PoolModule = typeof import("../../src/pool/index.js");

let workspace: SampleWorkspace;
let poolModule: PoolModule;
let weightsModule: typeof import("../../src/model/weights.js");
let pool: ForecastPool;

beforeAll(async () => {
  workspace = createWorkspace([]);
  poolModule = (await import(/* @vite-ignore */ pathToFileURL(join(workspace.root, "src/pool/index.js")).href)) as PoolModule;
  weightsModule = (await import(/* @vite-ignore */ pathToFileURL(join(workspace.root, "src/model/weights.js")).href)) as typeof weightsModule;
  // tiny parts, so even small requests are split into many
  pool = poolModule.createPool({ threads: 2, partValues: 40 });
}, 120_000);

afterAll(async () => {
  await pool?.close();
  workspace?.dispose();
});

const json = (v: unknown) => JSON.stringify(v);

/** The outcome of a call as text: its JSON, or the error's class and 422 items (or message). */
async function outcome(run: () => unknown): Promise<string> {
  try {
    return json({ ok: await run() });
  } catch (e) {
    const error = e as Error & { detail?: unknown };
    return json({ error: error.name, detail: error.detail ?? error.message });
  }
}


/** Request fields drawn for every entry point, some of them invalid or exotic on purpose. */
const extrasArb = fc.record(
  {
    level: fc.constantFrom<unknown>([80, 95], [90], [], [0.8], [101], "x"),
    freq: fc.constantFrom<unknown>("D", "M", "H", "MS", "bogus"),
    h: fc.constantFrom<unknown>(1, 3, 7, 30, 0),
    clean_ex_first: fc.boolean(),
    levle: fc.constant(1),
  },
  { requiredKeys: ["freq"] },
);

/** How a series list becomes a body: plain, with a missing value, a value the API refuses in its last series, or with a feature. */
const shapeArb = fc.constantFrom("plain", "plain", "plain", "missing", "feature", "bad-size", "bad-value");

function makeBody(list: number[][], extras: Record<string, unknown>, shape: string): Record<string, unknown> {
  const y: (number | string | boolean | null)[] = list.flat();
  const sizes = list.map((s) => s.length);
  if (shape === "missing") y[Math.floor(y.length / 2)] = null;
  if (shape === "bad-size") sizes[0] = (sizes[0] as number) + 1;
  // the pool's split reads an object body's values part by part: the last part's refusal reaches it after the others left
  // (values JSON keeps as they are: Infinity would become null, a missing value, in the text and bytes forms)
  if (shape === "bad-value") y[y.length - 1] = y.length % 2 === 0 ? "x" : (true as never);
  const series: Record<string, unknown> = { y, sizes };
  const body: Record<string, unknown> = { series, ...extras };
  if (shape === "feature") {
    series.X = [y.map((_, r) => r % 3)];
    const h = typeof extras.h === "number" && extras.h > 0 ? extras.h : 1;
    body.X_future = [Array.from({ length: sizes.length * h }, (_, r) => r % 3)];
  }
  return body;
}

const entryPoints = ["forecast", "detectAnomaliesOnline", "historicForecast"] as const;

describe("createPool: answers byte-identical to the one-thread call", () => {
  test.prop(
    [
      fc.constantFrom(...entryPoints),
      fc.array(seriesArb(8, 140), { minLength: 1, maxLength: 6 }),
      extrasArb,
      shapeArb,
      fc.record({ detection_size: fc.integer({ min: 1, max: 6 }) }),
      fc.constantFrom("object", "bytes", "text", "typed"),
    ],
    { numRuns: 48 },
  )("forecast, anomaly detection and historic forecast, split or whole, object, bytes, text or a Float64Array y", async (fn, list, extras, shape, anomaly, form) => {
    const { h: _h, ...noHorizon } = extras;
    let body = makeBody(list, fn === "detectAnomaliesOnline" ? { ...extras, ...anomaly } : fn === "historicForecast" ? noHorizon : extras, shape);
    // a typed y (null read as NaN): its parts are copies, the caller's array stays as it was
    const typedY = form === "typed" ? Float64Array.from((body.series as { y: (number | string | boolean | null)[] }).y, (v) => (typeof v === "number" ? v : Number.NaN)) : null;
    if (typedY !== null) body = { ...body, series: { ...(body.series as object), y: typedY } };
    const kept = typedY === null ? null : Array.from(typedY);
    const sent = form === "object" || form === "typed" ? body : form === "text" ? JSON.stringify(body) : new TextEncoder().encode(JSON.stringify(body));
    const direct = await outcome(() => (library[fn] as (b: unknown) => unknown)(body));
    expect(await outcome(() => (pool[fn] as (b: unknown) => Promise<unknown>)(sent))).toBe(direct);
    if (typedY !== null) expect(Array.from(typedY)).toEqual(kept);
  });

  it("splits a request into parts computed on both workers (and still answers identically)", async () => {
    const list = Array.from({ length: 8 }, (_, i) => Array.from({ length: 60 }, (_, t) => 10 * i + Math.sin(t / 3) + (t % 5)));
    const body = makeBody(list, { freq: "D", h: 5, level: [80] }, "plain");
    const reports: string[] = [];
    const pooled = await pool.forecast(body as never, { onProgress: (p) => reports.push(`${p.stage} ${p.done}/${p.total}`) });
    expect(json(pooled)).toBe(json(library.forecast(body as never)));
    // 8 parts (partValues 40 < 60 values a series), each reporting its calibration windows: the totals add up
    expect(reports.length).toBeGreaterThanOrEqual(8);
    const last = reports[reports.length - 1] as string;
    const [done, total] = (last.split(" ")[1] as string).split("/").map(Number);
    expect(done).toBe(total);
  });

  it("fine-tuning, a fine-tuned model named by id, and the records API", async () => {
    const y = Array.from({ length: 120 }, (_, t) => 10 + (t % 7) + t / 30);
    const ft = { series: { y: [...y, ...y.map((v) => v * 2)], sizes: [120, 120] }, freq: "D", finetune_steps: 2, output_model_id: "weekly" };
    const tuned = library.finetune(ft as never);
    expect(json(await pool.finetune(ft as never))).toBe(json(tuned));
    const models = (id: string): FinetunedWeights | undefined => (id === "weekly" ? tuned.weights : undefined);
    const withModel = { series: { y: [...y, ...y], sizes: [120, 120] }, freq: "D", h: 7, level: [90], finetuned_model_id: "weekly" };
    expect(json(await pool.forecast(withModel as never, { finetunedModels: models }))).toBe(json(library.forecast(withModel as never, { finetunedModels: models })));
    // unknown to the lookup: the same 422
    expect(await outcome(() => pool.forecast(withModel as never))).toBe(await outcome(() => library.forecast(withModel as never)));

    const rows = Array.from({ length: 240 }, (_, t) => ({ unique_id: t < 120 ? "a" : "b", ds: new Date(Date.UTC(2024, 0, 1 + (t % 120))), y: 10 + (t % 7) + (t < 120 ? 0 : 5) }));
    expect(json(await pool.forecastRecords(rows, { h: 3, level: [80] }))).toBe(json(library.forecastRecords(rows, { h: 3, level: [80] })));
    expect((await pool.forecastRecords(rows, { h: 1 })).rows[0]?.ds).toBeInstanceOf(Date);
    expect(json(await pool.detectAnomaliesRecords(rows, { h: 2, detection_size: 3 }))).toBe(json(library.detectAnomaliesRecords(rows, { h: 2, detection_size: 3 })));
    expect(json(await pool.historicForecastRecords(rows))).toBe(json(library.historicForecastRecords(rows)));
    expect(json(await pool.finetuneRecords(rows, { finetune_steps: 1 }))).toBe(json(library.finetuneRecords(rows, { finetune_steps: 1 })));
    expect(await outcome(() => pool.forecastRecords([{ unique_id: "a", ds: "2024-01-01", y: "x" }] as never, { h: 1 }))).toBe(
      await outcome(() => library.forecastRecords([{ unique_id: "a", ds: "2024-01-01", y: "x" }] as never, { h: 1 })),
    );
  });

  it("limits apply to the whole request, not to its parts", async () => {
    const list = Array.from({ length: 6 }, () => Array.from({ length: 50 }, (_, t) => t % 9));
    const body = makeBody(list, { freq: "D", h: 2 }, "plain");
    const limits = { maxValues: 200 };
    const direct = await outcome(() => library.forecast(body as never, { limits }));
    expect(direct).toContain("maxValues");
    expect(await outcome(() => pool.forecast(body as never, { limits }))).toBe(direct);
  });

  it("a forecast memo is refused, not dropped: it lives in one thread", async () => {
    const body = makeBody([Array.from({ length: 50 }, (_, t) => t % 9)], { freq: "D", h: 2 }, "plain");
    await expect(pool.forecast(body as never, { memo: library.createForecastMemo() })).rejects.toThrow(/memo: a forecast memo lives in one thread/);
    await expect(pool.detectAnomaliesRecords([] as never, {} as never, { memo: library.createForecastMemo() })).rejects.toThrow(/memo: a forecast memo lives in one thread/);
  });

  it("without the memo option, no worker keeps a memo", async () => {
    expect(await pool.memoStats()).toEqual([null, null]);
  });

  it("shares the decoded parameters: one SharedArrayBuffer per model for every thread", () => {
    for (const model of weightsModule.registeredModels()) expect(weightsModule.pretrainedParameters(model).buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});

describe("a large text or bytes body goes to a worker as a shared copy made in turns", () => {
  const sizes = { from: 16, slice: 5 };
  const counted = () => {
    const calls = { turns: 0 };
    return { calls, turn: async () => void calls.turns++ };
  };

  test.prop([fc.uint8Array({ minLength: 16, maxLength: 200 })])("bytes: a SharedArrayBuffer copy, equal byte for byte, one slice per turn", async (bytes) => {
    const { calls, turn } = counted();
    const carried = await carriedText(bytes, turn, sizes);
    expect(carried.asciiText).toBe(false);
    const copy = carried.body as Uint8Array;
    expect(copy.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(copy)).toEqual(Array.from(bytes));
    expect(calls.turns).toBe(Math.ceil(bytes.length / sizes.slice));
  });

  test.prop([fc.string({ minLength: 16, maxLength: 200, unit: "binary" })])("strings: an ASCII one reads back as the same string; any other goes as it is", async (text) => {
    const { turn } = counted();
    const carried = await carriedText(text, turn, sizes);
    const ascii = /^[\x00-\x7f]*$/.test(text);
    expect(carried.asciiText).toBe(ascii);
    if (ascii) expect((carried.body as Uint8Array).buffer).toBeInstanceOf(SharedArrayBuffer);
    else expect(carried.body).toBe(text);
    expect(textFromCarrier(carried.body, carried.asciiText)).toBe(text);
  });

  it("a short text, and bytes already shared, go as they are", async () => {
    const { calls, turn } = counted();
    expect((await carriedText("short", turn)).body).toBe("short");
    const shared = new Uint8Array(new SharedArrayBuffer(CARRIED_TEXT_FROM));
    expect((await carriedText(shared, turn)).body).toBe(shared);
    expect(calls.turns).toBe(0);
    // a lone surrogate is not ASCII: the string goes as it is
    const lone = "a".repeat(20) + "\ud800" + "b".repeat(20);
    expect((await carriedText(lone, turn, sizes)).body).toBe(lone);
  });

  it(`through the pool: bodies of ${CARRIED_TEXT_FROM / 2 ** 20} MiB and more (text, bytes, a text with a character outside ASCII) answer as the one-thread call`, async () => {
    const big = poolModule.createPool({ threads: 2 });
    try {
      const list = Array.from({ length: 1200 }, (_, i) => Array.from({ length: 400 }, (_, t) => 100 + i + Math.round(1e6 * Math.sin(t / 7 + i)) / 1e6));
      const body = makeBody(list, { freq: "H", h: 1 }, "plain");
      const text = JSON.stringify(body);
      expect(text.length).toBeGreaterThan(CARRIED_TEXT_FROM);
      const direct = await outcome(() => library.forecast(body as never));
      expect(await outcome(() => big.forecast(text as never))).toBe(direct);
      expect(await outcome(() => big.forecast(new TextEncoder().encode(text) as never))).toBe(direct);
      // a frequency the API refuses, spelled outside ASCII: the string goes as it is, and the answer is the same 422
      const refused = JSON.stringify({ ...body, freq: "5 µs" });
      expect(await outcome(() => big.forecast(refused as never))).toBe(await outcome(() => library.forecast(refused as never)));
      // the shared copies are kept and lent again: a shorter body of other values in a longer copy, three calls in
      // flight on two workers (no copy is lent to a second call while the first one's tasks may still read it)
      const other = makeBody(
        list.slice(0, 1100).map((s) => s.map((v) => v + 5000)),
        { freq: "H", h: 1 },
        "plain",
      );
      const otherText = JSON.stringify(other);
      const otherDirect = await outcome(() => library.forecast(other as never));
      const inFlight = await Promise.all([
        outcome(() => big.forecast(otherText as never)),
        outcome(() => big.forecast(new TextEncoder().encode(text) as never)),
        outcome(() => big.forecast(new TextEncoder().encode(otherText) as never)),
      ]);
      expect(inFlight).toEqual([otherDirect, direct, otherDirect]);
      expect(await outcome(() => big.forecast(otherText as never))).toBe(otherDirect);
      expect(await outcome(() => big.forecast(text as never))).toBe(direct);
    } finally {
      await big.close();
    }
  }, 60_000);
});

describe("large object bodies: the parts' values in one shared buffer, lent again", () => {
  it("calls one after another and in flight, a body that runs whole after parts were sent (a NaN in its last series): each answer the one-thread call's", async () => {
    const big = poolModule.createPool({ threads: 2, partValues: 4000 });
    try {
      // 33,600 values in parts of at most 4,000, the parts' values in one shared buffer
      const list = (shift: number) => Array.from({ length: 84 }, (_, i) => Array.from({ length: 400 }, (_, t) => shift + 50 + i + 10 * Math.sin((2 * Math.PI * t) / 24 + i)));
      const bodies = [0, 1000, 2000].map((shift) => makeBody(list(shift), { freq: "H", h: 2, level: [90] }, "plain"));
      const gap = makeBody(list(3000), { freq: "H", h: 2, level: [90] }, "plain") as { series: { y: number[] } };
      gap.series.y[gap.series.y.length - 3] = Number.NaN;
      const direct = await Promise.all([...bodies, gap].map((b) => outcome(() => library.forecast(b as never))));
      for (const [i, b] of bodies.entries()) expect(await outcome(() => big.forecast(b as never))).toBe(direct[i]);
      expect(await outcome(() => big.forecast(gap as never))).toBe(direct[3]);
      expect(await Promise.all([...bodies, gap, bodies[0]].map((b) => outcome(() => big.forecast(b as never))))).toEqual([...direct, direct[0]]);
    } finally {
      await big.close();
    }
  }, 60_000);
});

describe("carrierShelf: the shared copies of large bodies, kept and lent again", () => {
  test.prop([fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 1_000_000 }), fc.array(fc.tuple(fc.integer({ min: 1, max: 200_000 }), fc.boolean()), { minLength: 1, maxLength: 30 })])(
    "a lent buffer fits (a new one wastes at most an eighth, a kept one at most twice the length and 64 KiB), is never lent twice at once; the shelf keeps at most `keep` and `maxBytes`, the largest first",
    (keep, maxBytes, steps) => {
      const shelf = carrierShelf(keep, maxBytes);
      const out: SharedArrayBuffer[] = [];
      // a model of the shelf: the idle buffers, largest first (ties in the order they came back)
      let idle: SharedArrayBuffer[] = [];
      for (const [length, giveBack] of steps) {
        // a kept buffer that fits and is at most twice the length and 64 KiB
        const fits = idle.filter((b) => b.byteLength >= length && b.byteLength <= 2 * length + 65536);
        const buffer = shelf.take(length);
        expect(buffer.byteLength).toBeGreaterThanOrEqual(length);
        expect(out).not.toContain(buffer);
        if (fits.length > 0) {
          // the smallest idle one that fits
          const smallest = Math.min(...fits.map((b) => b.byteLength));
          expect(buffer).toBe(idle.find((b) => b.byteLength === smallest));
          idle = idle.filter((b) => b !== buffer);
        } else expect(buffer.byteLength).toBeLessThanOrEqual(length * 1.125 + 1);
        out.push(buffer);
        if (giveBack) {
          const back = out.splice(0, 1)[0] as SharedArrayBuffer;
          shelf.give(back);
          let bytes = 0;
          idle = [...idle, back]
            .sort((a, b) => b.byteLength - a.byteLength)
            .filter((b) => bytes + b.byteLength <= maxBytes && (bytes += b.byteLength) > 0)
            .slice(0, keep);
          expect(idle.reduce((n, b) => n + b.byteLength, 0)).toBeLessThanOrEqual(maxBytes);
        }
      }
    },
  );

  it("a buffer it did not lend is never kept; clear() drops all", () => {
    const shelf = carrierShelf(2);
    const own = new SharedArrayBuffer(64);
    shelf.give(own);
    expect(shelf.take(64)).not.toBe(own);
    const lent = shelf.take(100);
    shelf.give(lent);
    shelf.give(lent);
    expect(shelf.take(100)).toBe(lent);
    expect(shelf.take(100)).not.toBe(lent);
    shelf.give(lent);
    shelf.clear();
    expect(shelf.take(100)).not.toBe(lent);
  });

  it("carriedText gives back the buffer it took when the string is not ASCII", async () => {
    const shelf = carrierShelf(1);
    const taken: SharedArrayBuffer[] = [];
    const buffers = { take: (n: number) => (taken.push(shelf.take(n)), taken.at(-1) as SharedArrayBuffer), give: (b: SharedArrayBuffer) => shelf.give(b) };
    const lone = "a".repeat(20) + "é" + "b".repeat(20);
    expect((await carriedText(lone, async () => undefined, { from: 16, slice: 5 }, buffers)).body).toBe(lone);
    expect(shelf.take(lone.length)).toBe(taken[0]);
  });
});

describe("createPool with a memo in every worker", () => {
  it("a monitor's repeated calls: the same answers, each part back on the worker that remembers it", async () => {
    const memoPool = poolModule.createPool({ threads: 2, partValues: 200, memo: { entries: 5000 } });
    try {
      // six hourly streams, each call the last 120 points, moved on by 6 points per call
      const streams = Array.from({ length: 6 }, (_, i) => Array.from({ length: 140 }, (_, t) => 20 + 5 * i + 4 * Math.sin((2 * Math.PI * t) / 24) + ((t * 7 + i) % 5) / 4));
      const body = (end: number) => makeBody(streams.map((s) => s.slice(end - 120, end)), { freq: "H", h: 1, detection_size: 6, step_size: 1, level: 99 }, "plain");
      const oneThread = library.createForecastMemo({ entries: 5000 });
      for (const end of [120, 126, 132]) {
        const pooled = await memoPool.detectAnomaliesOnline(body(end) as never);
        expect(json(pooled)).toBe(json(library.detectAnomaliesOnline(body(end) as never)));
        library.detectAnomaliesOnline(body(end) as never, { memo: oneThread });
      }
      const stats = await memoPool.memoStats();
      expect(stats).toHaveLength(2);
      for (const s of stats) {
        expect(s?.entries).toBe(5000);
        expect(s?.hits).toBeGreaterThan(0);
      }
      // every stream's contexts were remembered where they went next time: the workers' hits are one memo's
      expect(stats.reduce((a, s) => a + (s?.hits ?? 0), 0)).toBe(oneThread.hits);
      expect(stats.reduce((a, s) => a + (s?.misses ?? 0), 0)).toBe(oneThread.misses);
      // the service's pipelines on the pool use the memos too
      const before = stats.reduce((a, s) => a + (s?.hits ?? 0), 0);
      const service = library.createService({ accounts: [{ id: "a", apiKeys: ["k-1234567890"], credits: 1e9, hasPaymentMethod: true }], pool: memoPool });
      const answer = await service.handle({ method: "POST", path: "/v2/online_anomaly_detection", headers: { authorization: "Bearer k-1234567890" }, body: json(body(132)) });
      expect(answer.status).toBe(200);
      const after = (await memoPool.memoStats()).reduce((a, s) => a + (s?.hits ?? 0), 0);
      expect(after).toBeGreaterThan(before);
    } finally {
      await memoPool.close();
    }
  });

  it("refuses a memo size that is not a positive integer", () => {
    expect(() => poolModule.createPool({ threads: 1, memo: { entries: 0 } })).toThrow(/memo.entries must be a positive integer/);
    expect(() => poolModule.createPool({ threads: 1, memo: { entries: 2.5 } })).toThrow(RangeError);
  });
});

describe("createPool: workers that stop, and shutdown", () => {
  it("a worker that runs out of heap fails its own call only, and is replaced", async () => {
    const options: PoolOptions = { threads: 1, resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 } };
    const small = poolModule.createPool(options);
    try {
      const y = Array.from({ length: 60 }, (_, t) => 5 + (t % 6));
      const body = { series: { y, sizes: [60] }, freq: "D", h: 3 };
      const before = await small.forecast(body as never);
      // 400 records rows × 40 extra columns → a records call whose row objects outgrow a 48 MB heap
      const wide = Array.from({ length: 400_000 }, (_, t) => ({ unique_id: t % 1000, ds: `2024-01-${String((t % 28) + 1).padStart(2, "0")}`, y: t % 13 }));
      const crashed = small.forecastRecords(wide, { h: 1 });
      // two calls behind it wait for the new worker
      const meanwhile = small.forecast(body as never);
      const after = small.forecast(body as never);
      await expect(crashed).rejects.toBeInstanceOf(poolModule.WorkerStoppedError);
      expect(json(await meanwhile)).toBe(json(before));
      expect(json(await after)).toBe(json(before));
      expect(json(await small.forecast(body as never))).toBe(json(before));
    } finally {
      await small.close();
    }
  });

  it("a split call's parts wait only behind parts of their own call: a worker that stops beside them fails its own call only", async () => {
    const small = poolModule.createPool({ threads: 2, partValues: 40, resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 } });
    try {
      const list = Array.from({ length: 12 }, (_, i) => Array.from({ length: 60 }, (_, t) => 10 * i + Math.sin(t / 3) + (t % 5)));
      const body = makeBody(list, { freq: "D", h: 5, level: [80] }, "plain");
      const direct = json(library.forecast(body as never));
      const wide = Array.from({ length: 400_000 }, (_, t) => ({ unique_id: t % 1000, ds: `2024-01-${String((t % 28) + 1).padStart(2, "0")}`, y: t % 13 }));
      // the records call takes one worker and stops it; the 12 parts run on the other (one waiting in its queue) and on the new one
      const crashed = small.forecastRecords(wide, { h: 1 });
      const split = [small.forecast(body as never), small.forecast(body as never)];
      await expect(crashed).rejects.toBeInstanceOf(poolModule.WorkerStoppedError);
      for (const answer of await Promise.all(split)) expect(json(answer)).toBe(direct);
    } finally {
      await small.close();
    }
  });

  it("close() lets running calls finish, then refuses new ones", async () => {
    const other = poolModule.createPool({ threads: 2 });
    const y = Array.from({ length: 80 }, (_, t) => 5 + (t % 6));
    const body = { series: { y: [...y, ...y], sizes: [80, 80] }, freq: "D", h: 3 };
    const running = other.forecast(body as never);
    const closed = other.close();
    expect(json(await running)).toBe(json(library.forecast(body as never)));
    await closed;
    await expect(other.forecast(body as never)).rejects.toThrow(/closed/);
  });

  it("workers run at a lower priority than the calling thread on Linux (workerNice, default 10), and the option is checked", async () => {
    expect(() => poolModule.createPool({ threads: 1, workerNice: -1 })).toThrow(/workerNice must be an integer from 0 to 19/);
    expect(() => poolModule.createPool({ threads: 1, workerNice: 20 })).toThrow(RangeError);
    expect(() => poolModule.createPool({ threads: 1, workerNice: 2.5 })).toThrow(RangeError);
    if (process.platform !== "linux") return;
    // the nice value of every thread of this process (field 19 of /proc/<pid>/task/<tid>/stat)
    const niceCounts = (): Map<number, number> => {
      const counts = new Map<number, number>();
      for (const tid of readdirSync("/proc/self/task")) {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
        const nice = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
        counts.set(nice, (counts.get(nice) ?? 0) + 1);
      }
      return counts;
    };
    const own = getPriority(0);
    const body = { series: { y: [1, 2, 3, 4, 5, 6, 7, 8], sizes: [8] }, freq: "D", h: 2 };
    for (const [workerNice, expected] of [[undefined, Math.min(19, own + 10)], [3, Math.min(19, own + 3)]] as const) {
      const before = niceCounts().get(expected) ?? 0;
      const niced = poolModule.createPool({ threads: 2, ...(workerNice === undefined ? {} : { workerNice }) });
      try {
        // both workers have started once a call on each has answered
        await Promise.all([niced.forecast(body as never), niced.forecast(body as never)]);
        expect((niceCounts().get(expected) ?? 0) - before).toBeGreaterThanOrEqual(2);
      } finally {
        await niced.close();
      }
    }
  });

  it("refuses a thread count that is not a positive integer", () => {
    expect(() => poolModule.createPool({ threads: 0 })).toThrow(RangeError);
    expect(() => poolModule.createPool({ threads: 1.5 })).toThrow(/threads must be an integer >= 1/);
  });
});

describe("createService with a pool", () => {
  it("answers every paid route as without it, and runs each model call through the pool", async () => {
    const calls: string[] = [];
    const recording = {
      runEndpoint: (endpoint: "forecast" | "anomaly" | "historic" | "finetune", request: unknown) => {
        calls.push(endpoint);
        return pool.runEndpoint(endpoint, request as never);
      },
    };
    const make = (extra: { pool?: typeof recording }) => {
      let t = Date.UTC(2026, 0, 1);
      return library.createService({
        accounts: [{ id: "acme", apiKeys: ["key-1"], credits: 1e9, hasPaymentMethod: true }],
        clock: () => new Date((t += 1000)),
        ids: library.seededIdSequence("pool-service"),
        ...extra,
      });
    };
    const here = make({});
    const pooled = make({ pool: recording });
    const y = Array.from({ length: 150 }, (_, t) => 20 + 5 * Math.sin(t / 2) + (t % 4));
    const series = { y: [...y, ...y.map((v) => v + 3)], sizes: [150, 150] };
    const requests: [string, Record<string, unknown>][] = [
      ["/v2/forecast", { series, freq: "D", h: 5, level: [80] }],
      ["/v2/online_anomaly_detection", { series, freq: "D", h: 3, detection_size: 4 }],
      ["/v2/historic_forecast", { series, freq: "D", level: [90] }],
      ["/v2/cross_validation", { series, freq: "D", h: 3, n_windows: 3 }],
      ["/v2/finetune", { series, freq: "D", finetune_steps: 1, output_model_id: "m1" }],
      ["/v2/forecast", { series, freq: "D", h: 2, finetuned_model_id: "m1" }],
      ["/v2/forecast", { series, freq: "D", h: -2 }],
    ];
    for (const [path, body] of requests) {
      const request = { method: "POST", path, headers: { authorization: "Bearer key-1", "content-type": "application/json" }, body: JSON.stringify(body) };
      const [a, b] = [await here.handle(request), await pooled.handle(request)];
      expect(`${path} ${b.status} ${json(b.body)}`).toBe(`${path} ${a.status} ${json(a.body)}`);
    }
    // one call per forecast, anomaly, historic, fine-tune and fine-tuned forecast, three for the windows; none for the 422
    expect(calls).toEqual(["forecast", "anomaly", "historic", "forecast", "forecast", "forecast", "finetune", "forecast"]);
    expect(() => library.createService({ accounts: [], pool: recording, pipelines: { forecast: () => null } as never })).toThrow(/pool or pipelines/);
  });

  const routes = { forecast: "/v2/forecast", detectAnomaliesOnline: "/v2/online_anomaly_detection", historicForecast: "/v2/historic_forecast" } as const;
  test.prop(
    [fc.constantFrom(...entryPoints), fc.array(seriesArb(8, 140), { minLength: 1, maxLength: 6 }), extrasArb, shapeArb, fc.record({ detection_size: fc.integer({ min: 1, max: 6 }) })],
    { numRuns: 25 },
  )("the service's model calls split by series over the workers: every answer byte-identical to the service without a pool", async (fn, list, extras, shape, anomaly) => {
    const { h: _h, ...noHorizon } = extras;
    const body = makeBody(list, fn === "detectAnomaliesOnline" ? { ...extras, ...anomaly } : fn === "historicForecast" ? noHorizon : extras, shape);
    const make = (extra: { pool?: ForecastPool }) =>
      library.createService({ accounts: [{ id: "acme", apiKeys: ["key-1"], credits: 1e9, hasPaymentMethod: true }], clock: () => new Date(Date.UTC(2026, 0, 1)), ids: library.seededIdSequence("split"), ...extra });
    const request = { method: "POST", path: routes[fn], headers: { authorization: "Bearer key-1" }, body: JSON.stringify(body) };
    const [a, b] = [await make({}).handle(request), await make({ pool }).handle(request)];
    expect(`${b.status} ${json(b.body)}`).toBe(`${a.status} ${json(a.body)}`);
  });

  it("a big model call of the service runs in parts on both workers, each part back on the same worker next time (memos)", async () => {
    const list = Array.from({ length: 8 }, (_, i) => Array.from({ length: 60 }, (_, t) => 10 * i + Math.sin(t / 3) + (t % 5)));
    const y = Float64Array.from(list.flat());
    const request = {
      series: { y, sizes: Int32Array.from(list.map((l) => l.length)), offsets: Int32Array.from({ length: 9 }, (_, i) => i * 60), X: [] },
      h: 5, levels: [80], model: "forecastmodel-1", freq: "D", finetune: { steps: 0, loss: "default", depth: 1 },
      finetuned: null, multivariate: false, modelParameters: null, Xfuture: [], cleanExFirst: true, histExog: [],
    } as const;
    const whole = json(runEndpoint("forecast", request as never, DEFAULT_PIPELINES));
    const memoPool = poolModule.createPool({ threads: 2, partValues: 100, memo: { entries: 1000 } });
    try {
      expect(json(await memoPool.runEndpoint("forecast", request as never))).toBe(whole);
      // the parts are copies: the caller's values stay where they were
      expect(Array.from(y)).toEqual(list.flat());
      const first = await memoPool.memoStats();
      for (const s of first) expect(s?.misses).toBeGreaterThan(0);
      expect(json(await memoPool.runEndpoint("forecast", request as never))).toBe(whole);
      const second = await memoPool.memoStats();
      // every context of the second call was forecast by the same worker in the first
      second.forEach((s, w) => {
        expect(s?.misses).toBe(first[w]?.misses);
        expect(s?.hits).toBe((first[w]?.hits ?? 0) + (first[w]?.misses ?? 0));
      });
      // the parts' shared buffer is lent again to the next call: other values, the one-thread answer
      const shifted = { ...request, series: { ...request.series, y: Float64Array.from(y, (v) => v + 100) } };
      expect(json(await memoPool.runEndpoint("forecast", shifted as never))).toBe(json(runEndpoint("forecast", shifted as never, DEFAULT_PIPELINES)));
      expect(json(await memoPool.runEndpoint("forecast", request as never))).toBe(whole);
    } finally {
      await memoPool.close();
    }
  });

  it("an async job on the pool records its progress: the worker's reports reach the store, increasing to done = total; the result is the one without progress", async () => {
    const y = Array.from({ length: 150 }, (_, t) => 20 + 5 * Math.sin(t / 2) + (t % 4));
    const body = { series: { y, sizes: [150] }, freq: "D", finetune_steps: 30, output_model_id: "tuned" };
    const runJob = async (store: library.ServiceStore) => {
      let t = Date.UTC(2026, 0, 1);
      const service = library.createService({
        accounts: [{ id: "acme", apiKeys: ["key-1"], credits: 1e9, hasPaymentMethod: true }],
        // every read of the clock moves it 100 ms
        clock: () => new Date((t += 100)),
        ids: library.seededIdSequence("pool-progress"),
        store,
        pool,
      });
      const headers = { authorization: "Bearer key-1" };
      const submitted = await service.handle({ method: "POST", path: "/v2/finetune/async", headers, body });
      const jobId = (submitted.body as { job_id: string }).job_id;
      expect(await service.runJob(jobId)).toEqual({ jobId, status: "succeeded" });
      return (await service.handle({ method: "GET", path: `/v2/finetune/jobs/${jobId}`, headers })).body as { result: unknown };
    };
    const memory = library.createMemoryStore();
    const writes: string[] = [];
    const recordingStore: library.ServiceStore = {
      ...memory,
      setJobProgress: (jobId, p, nowMs) => {
        writes.push(`${p.stage} ${p.done}/${p.total}`);
        return memory.setJobProgress!(jobId, p, nowMs);
      },
    };
    const { setJobProgress: _s, getJobProgress: _g, ...withoutProgress } = library.createMemoryStore();
    const [a, b] = [await runJob(recordingStore), await runJob(withoutProgress)];
    expect(json(a.result)).toBe(json(b.result));
    expect(writes[0]).toBe("finetune 1/30");
    expect(writes.at(-1)).toBe("finetune 30/30");
    const done = writes.map((w) => Number(w.split(" ")[1]!.split("/")[0]));
    for (let k = 1; k < done.length; k++) expect(done[k]).toBeGreaterThan(done[k - 1]!);
  });
});
