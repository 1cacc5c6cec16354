/**
 * Streaming calls of online anomaly detection: 1,000 streams, each call
 * scoring the 24 newest points (h 1, detection_size 24, step 1) from the last
 * 264 points of every stream, all streams in one request; points scored per
 * second over 10 consecutive calls. With `memo`, every call is given one
 * forecast memo of streams × 200 entries (`createForecastMemo`, as
 * `memoPipelines` gives a service):
 * the forecasts of the history a call shares with the one before are not
 * made again; the answers are the same. With `pool`, the calls are JSON
 * bodies sent to a worker pool of every core (`createPool`, its parts split
 * by series; with `memo`, a memo of streams × 200 entries in each worker and
 * each part sent to the same worker every call), and the first call's answer
 * is checked against the one-thread call's.
 *
 *   npm run build && node dist/bench/streaming-bench.js [streams] [memo] [pool]
 */
import "../src/model/weights/default.js";
import os from "node:os";
import seedrandom from "seedrandom";
import { detectAnomalies } from "../src/anomaly/index.js";
import { detectAnomaliesOnline } from "../src/api/entry-points.js";
import { UNLIMITED } from "../src/api/requests.js";
import type { AnomalyRequest, JsonBody } from "../src/api/bodies.js";
import { univariateAnomalyRequest } from "../test/support/anomaly-request.js";
import { modelSource } from "../src/finetune/index.js";
import { createForecastMemo } from "../src/model/index.js";
import { createPool } from "../src/pool/index.js";

const streams = Number(process.argv[2] ?? 1000);
const modes = new Set(process.argv.slice(3));
const usePool = modes.has("pool");
// sized as docs/anomaly-detection.md advises: streams × (C + detection_size) = streams × 168 (with room)
const memo = modes.has("memo") && !usePool ? createForecastMemo({ entries: Math.max(streams * 200, 1) }) : undefined;
const pool = usePool ? createPool(modes.has("memo") ? { memo: { entries: Math.max(streams * 200, 1) } } : {}) : undefined;
const HISTORY = 264;
const NEW = 24;
const CALLS = 10;
const total = HISTORY + NEW * CALLS;
const u = seedrandom("streaming-bench");
const data = Array.from({ length: streams }, () => {
  const level = 50 + 100 * u();
  const amplitude = 5 + 20 * u();
  return Float64Array.from({ length: total }, (_, t) => level + amplitude * Math.sin((2 * Math.PI * t) / 24) + 3 * (u() - 0.5));
});
const y = new Float64Array(streams * HISTORY);
const sizes = new Int32Array(streams).fill(HISTORY);
const offsets = Int32Array.from({ length: streams + 1 }, (_, i) => i * HISTORY);
function typedCall(end: number): number {
  data.forEach((s, i) => y.set(s.subarray(end - HISTORY, end), i * HISTORY));
  const request = { ...univariateAnomalyRequest({ y, sizes, offsets, X: [] }, "H", 1, NEW, 99), stepSize: 1 };
  return detectAnomalies(request, modelSource(request, memo === undefined ? {} : { memo })).anomaly.filter((f) => f).length;
}
/** The same call as a body object (its values in a Float64Array, as a monitor holding them in one would send them). */
function body(end: number): JsonBody<AnomalyRequest> {
  const values = new Float64Array(streams * HISTORY);
  data.forEach((s, i) => values.set(s.subarray(end - HISTORY, end), i * HISTORY));
  return { series: { y: values as unknown as number[], sizes: Array.from(sizes) }, freq: "H", h: 1, detection_size: NEW, step_size: 1, level: 99 };
}
async function poolCall(end: number): Promise<number> {
  const answer = await pool!.detectAnomaliesOnline(body(end), { limits: UNLIMITED });
  return answer.anomaly.filter((f) => f).length;
}
const call = (end: number): Promise<number> | number => (pool === undefined ? typedCall(end) : poolCall(end));
if (pool !== undefined) {
  // the pool's answer is the one-thread call's, byte for byte
  const b = body(HISTORY);
  const same = JSON.stringify(await pool.detectAnomaliesOnline(b, { limits: UNLIMITED })) === JSON.stringify(detectAnomaliesOnline(b, { limits: UNLIMITED }));
  if (!same) throw new Error("streaming-bench: the pool's answer differs from the one-thread call's");
} else await call(HISTORY); // warm-up
const t0 = process.hrtime.bigint();
let flagged = 0;
for (let c = 1; c <= CALLS; c++) flagged += await call(HISTORY + c * NEW);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const scored = streams * NEW * CALLS;
console.log("| streams | calls | points sent per call | points scored | seconds | points scored / s | ms per call |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
console.log(`| ${streams} | ${CALLS} | ${(streams * HISTORY).toLocaleString("en-US")} | ${scored.toLocaleString("en-US")} | ${seconds.toFixed(2)} | ${Math.round(scored / seconds).toLocaleString("en-US")} | ${((1000 * seconds) / CALLS).toFixed(0)} |`);
const memoNote = async (): Promise<string> => {
  if (memo !== undefined) return `memo: ${memo.hits.toLocaleString("en-US")} contexts answered from it, ${memo.misses.toLocaleString("en-US")} forecast, ${memo.size.toLocaleString("en-US")} kept`;
  if (pool === undefined) return "no memo";
  const stats = await pool.memoStats();
  const where = `pool of ${pool.threads} threads (answer checked against the one-thread call)`;
  if (stats.every((m) => m === null)) return `${where}, no memo`;
  const sum = (f: "hits" | "misses" | "size") => stats.reduce((a, m) => a + (m?.[f] ?? 0), 0).toLocaleString("en-US");
  return `${where}, a memo per worker: ${sum("hits")} contexts answered from them, ${sum("misses")} forecast, ${sum("size")} kept (the checked first call included)`;
};
console.log(`flagged: ${flagged}; ${await memoNote()}; ${os.cpus()[0]?.model ?? "?"}; node ${process.version}; load average ${os.loadavg()[0]!.toFixed(1)}`);
await pool?.close();
