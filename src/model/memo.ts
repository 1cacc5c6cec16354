/**
 * A memo of forecasts for callers that send overlapping histories (a monitor
 * that sends the recent history with every few new points): a forecast that
 * reads only the last `contextReach` points of its context is kept, keyed by
 * those points, and given back when the same points come again. The answers
 * are byte-identical with and without it (each context's forecast does not
 * depend on the other contexts of its batch).
 * @module
 */
import type { ForecastDistribution, Forecaster } from "../types.js";

/** Default number of forecasts a memo keeps. */
export const FORECAST_MEMO_ENTRIES = 100_000;

/** One kept forecast: the context's last points, the horizon, and the distribution of that one context. */
interface MemoEntry {
  readonly hash: number;
  readonly table: Map<number, MemoEntry[]>;
  readonly tail: Float64Array;
  readonly h: number;
  readonly levels: readonly number[];
  readonly mean: Float64Array;
  readonly below: Float64Array;
  readonly above: Float64Array;
  /** The entry used just before this one (null: the oldest). */
  older: MemoEntry | null;
  /** The entry used just after this one (null: the newest). */
  newer: MemoEntry | null;
}

/**
 * Forecasts kept between calls, most recently used last; see
 * {@link createForecastMemo}. Its figures are for monitoring (hits and misses
 * since it was made).
 * @category Models
 */
export interface ForecastMemo {
  /** Most forecasts kept; the least recently used goes first. */
  readonly entries: number;
  /** Forecasts kept now. */
  readonly size: number;
  /** Contexts answered from the memo. */
  readonly hits: number;
  /** Contexts forecast (and then kept). */
  readonly misses: number;
  /** Forgets every forecast (the counts stay). */
  clear(): void;
}

/** The memo's state behind the {@link ForecastMemo} view. */
class MemoStore implements ForecastMemo {
  readonly entries: number;
  hits = 0;
  misses = 0;
  /** Per forecaster (its weights, then its name and season length): hash → the entries of that hash, in use order. */
  readonly byWeights = new WeakMap<object, Map<string, Map<number, MemoEntry[]>>>();
  /** The entries in use order, a doubly linked list (O(1) to move one to the end or drop the oldest). */
  oldest: MemoEntry | null = null;
  newest: MemoEntry | null = null;
  count = 0;

  constructor(entries: number) {
    this.entries = entries;
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    for (let e = this.oldest; e !== null; e = e.newer) e.table.delete(e.hash);
    this.oldest = null;
    this.newest = null;
    this.count = 0;
  }

  private unlink(entry: MemoEntry): void {
    if (entry.older === null) this.oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === null) this.newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = null;
    entry.newer = null;
  }

  private append(entry: MemoEntry): void {
    entry.older = this.newest;
    entry.newer = null;
    if (this.newest === null) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
  }

  table(weights: object, key: string): Map<number, MemoEntry[]> {
    let byKey = this.byWeights.get(weights);
    if (byKey === undefined) {
      byKey = new Map();
      this.byWeights.set(weights, byKey);
    }
    let table = byKey.get(key);
    if (table === undefined) {
      table = new Map();
      byKey.set(key, table);
    }
    return table;
  }

  find(table: Map<number, MemoEntry[]>, hash: number, tail: Float64Array, h: number): MemoEntry | undefined {
    const bucket = table.get(hash);
    if (bucket === undefined) return undefined;
    for (const entry of bucket) {
      if (entry.h === h && sameValues(entry.tail, tail)) {
        // most recently used: last in the order
        this.unlink(entry);
        this.append(entry);
        return entry;
      }
    }
    return undefined;
  }

  keep(entry: MemoEntry): void {
    const bucket = entry.table.get(entry.hash);
    if (bucket === undefined) entry.table.set(entry.hash, [entry]);
    else bucket.push(entry);
    this.append(entry);
    this.count++;
    while (this.count > this.entries) {
      const oldest = this.oldest!;
      this.unlink(oldest);
      this.count--;
      const oldBucket = oldest.table.get(oldest.hash)!;
      if (oldBucket.length === 1) oldest.table.delete(oldest.hash);
      else oldBucket.splice(oldBucket.indexOf(oldest), 1);
    }
  }
}

/** Whether a and b hold the same values bit for bit (NaN equal to NaN, −0 to −0 only). */
function sameValues(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y && !(x !== x && y !== y)) return false;
    if (x === 0 && 1 / x !== 1 / y) return false;
  }
  return true;
}

/** A 52-bit hash of the values' bits and the horizon (two 32-bit multiply-xor lanes). */
function hashValues(values: Float64Array, h: number): number {
  const bits = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
  let a = 0x811c9dc5 ^ h;
  let b = 0x01000193 ^ Math.imul(h, 0x9e3779b1);
  for (let i = 0; i < bits.length; i++) {
    const v = bits[i]!;
    a = Math.imul(a ^ v, 0x01000193);
    b = Math.imul(b ^ (v >>> 7) ^ (v << 25), 0x85ebca6b);
  }
  a ^= a >>> 16;
  b ^= b >>> 13;
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff);
}

/**
 * A memo of forecasts, kept between calls (see {@link withMemo}): at most
 * `entries` forecasts (default {@link FORECAST_MEMO_ENTRIES}), the least
 * recently used forgotten first. Give one memo to every call about the same
 * streams (e.g. `createService({ forecastMemo })`); it holds no I/O and no
 * timer, only memory: about 8 bytes per context point kept plus 8 · h · 15
 * per forecast.
 *
 * @example
 * ```ts
 * const memo = createForecastMemo({ entries: 1000 });
 * [memo.entries, memo.size, memo.hits]; // => [1000, 0, 0]
 * ```
 * @category Models
 */
export function createForecastMemo(options: { entries?: number } = {}): ForecastMemo {
  const entries = options.entries ?? FORECAST_MEMO_ENTRIES;
  if (!Number.isInteger(entries) || entries < 1) throw new RangeError(`createForecastMemo: entries must be a positive integer, got ${String(entries)}`);
  return new MemoStore(entries);
}

/**
 * The forecaster `inner` with its `forecastDistribution` answered from
 * `memo` for every context whose last `inner.contextReach` points (all of
 * it, if shorter) and horizon were forecast before by a forecaster of the
 * same `weights` and `key`; the other contexts are forecast together by
 * `inner` and kept. `forecast` is `inner`'s. A forecaster without
 * `contextReach` (its forecast may read a whole context, or the other
 * contexts) is returned unchanged. Answers are byte-identical to `inner`'s.
 *
 * @param inner - The forecaster.
 * @param memo - From {@link createForecastMemo}.
 * @param weights - What the forecasts depend on besides the context (the parameter vector): forecasts of other weights are never mixed up.
 * @param key - Further settings the forecasts depend on (model and season length).
 *
 * @example
 * ```ts
 * const memo = createForecastMemo();
 * const weights = {};
 * const naive = { name: "naive", seasonLength: 1, forecast: (cs: readonly Float64Array[], h: number) => Float64Array.from({ length: cs.length * h }, (_, i) => cs[Math.floor(i / h)]!.at(-1)!) };
 * const spread = withSpread(naive);
 * const f = withMemo({ ...spread, contextReach: 1 }, memo, weights, "naive"); // it reads the last point only
 * f.forecastDistribution!([Float64Array.of(1, 2)], 1).mean[0]; // => 2
 * f.forecastDistribution!([Float64Array.of(5, 2)], 1).mean[0]; // the same last point: from the memo
 * // => 2
 * [memo.misses, memo.hits]; // => [1, 1]
 * ```
 * @category Models
 */
export function withMemo(inner: Forecaster, memo: ForecastMemo, weights: object, key: string): Forecaster {
  if (!(memo instanceof MemoStore)) throw new TypeError("withMemo: memo must come from createForecastMemo");
  const reach = inner.contextReach;
  const distribution = inner.forecastDistribution;
  if (reach === undefined || distribution === undefined) return inner;
  const store = memo;
  const table = store.table(weights, `${key}|${inner.seasonLength}|${reach}`);
  return {
    name: inner.name,
    seasonLength: inner.seasonLength,
    contextReach: reach,
    forecast: (contexts, h) => inner.forecast(contexts, h),
    forecastDistribution(contexts: readonly Float64Array[], h: number): ForecastDistribution {
      const n = contexts.length;
      if (n === 0) return distribution.call(inner, contexts, h);
      const found: (MemoEntry | undefined)[] = new Array<MemoEntry | undefined>(n);
      const hashes = new Float64Array(n);
      const missing: number[] = [];
      for (let i = 0; i < n; i++) {
        const c = contexts[i]!;
        const tail = c.subarray(Math.max(0, c.length - reach));
        hashes[i] = hashValues(tail, h);
        found[i] = store.find(table, hashes[i]!, tail, h);
        if (found[i] === undefined) missing.push(i);
      }
      store.hits += n - missing.length;
      store.misses += missing.length;
      if (missing.length > 0) {
        const fresh = distribution.call(inner, missing.map((i) => contexts[i]!), h);
        const G = fresh.levels.length;
        missing.forEach((i, j) => {
          const c = contexts[i]!;
          const entry: MemoEntry = {
            hash: hashes[i]!,
            table,
            tail: c.slice(Math.max(0, c.length - reach)),
            h,
            levels: fresh.levels,
            mean: fresh.mean.slice(j * h, (j + 1) * h),
            below: fresh.below.slice(j * h * G, (j + 1) * h * G),
            above: fresh.above.slice(j * h * G, (j + 1) * h * G),
            older: null,
            newer: null,
          };
          found[i] = entry;
          store.keep(entry);
        });
      }
      const levels = found[0]!.levels;
      const G = levels.length;
      const mean = new Float64Array(n * h);
      const below = new Float64Array(n * h * G);
      const above = new Float64Array(n * h * G);
      for (let i = 0; i < n; i++) {
        const entry = found[i]!;
        mean.set(entry.mean, i * h);
        below.set(entry.below, i * h * G);
        above.set(entry.above, i * h * G);
      }
      return { levels, mean, below, above };
    },
  };
}
