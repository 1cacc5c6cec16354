/**
 * Streaming calls of online anomaly detection: 1,000 streams, each call
 * scoring the 24 newest points (h 1, detection_size 24, step 1) from the last
 * 264 points of every stream, all streams in one request; points scored per
 * second over 10 consecutive calls. With `memo`, every call is given one
 * forecast memo of streams × 200 entries (`createForecastMemo`, as
 * `memoPipelines` gives a service):
 * the forecasts of the history a call shares with the one before are not
 * made again; the answers are the same.
 *
 *   npm run build && node dist/bench/streaming-bench.js [streams] [memo]
 */
import "../src/model/weights/default.js";
import os from "node:os";
import seedrandom from "seedrandom";
import { detectAnomalies } from "../src/anomaly/index.js";
import { univariateAnomalyRequest } from "../test/support/anomaly-request.js";
import { modelSource } from "../src/finetune/index.js";
import { createForecastMemo } from "../src/model/index.js";

const streams = Number(process.argv[2] ?? 1000);
// sized as docs/anomaly-detection.md advises: streams × (C + detection_size) = streams × 168 (with room)
const memo = process.argv[3] === "memo" ? createForecastMemo({ entries: Math.max(streams * 200, 1) }) : undefined;
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
function call(end: number): number {
  data.forEach((s, i) => y.set(s.subarray(end - HISTORY, end), i * HISTORY));
  const request = { ...univariateAnomalyRequest({ y, sizes, offsets, X: [] }, "H", 1, NEW, 99), stepSize: 1 };
  return detectAnomalies(request, modelSource(request, memo === undefined ? {} : { memo })).anomaly.filter((f) => f).length;
}
call(HISTORY); // warm-up
const t0 = process.hrtime.bigint();
let flagged = 0;
for (let c = 1; c <= CALLS; c++) flagged += call(HISTORY + c * NEW);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const scored = streams * NEW * CALLS;
console.log("| streams | calls | points sent per call | points scored | seconds | points scored / s | ms per call |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
console.log(`| ${streams} | ${CALLS} | ${(streams * HISTORY).toLocaleString("en-US")} | ${scored.toLocaleString("en-US")} | ${seconds.toFixed(2)} | ${Math.round(scored / seconds).toLocaleString("en-US")} | ${((1000 * seconds) / CALLS).toFixed(0)} |`);
console.log(`flagged: ${flagged}; ${memo === undefined ? "no memo" : `memo: ${memo.hits.toLocaleString("en-US")} contexts answered from it, ${memo.misses.toLocaleString("en-US")} forecast, ${memo.size.toLocaleString("en-US")} kept`}; ${os.cpus()[0]?.model ?? "?"}; node ${process.version}; load average ${os.loadavg()[0]!.toFixed(1)}`);
