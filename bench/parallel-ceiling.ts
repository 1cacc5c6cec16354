/**
 * The most two processes can gain on this machine for the flow's work, with
 * no queue at all: the flow-throughput request (2,000 series × 1,000 hourly
 * points, 8 parts) computed by one process (every part, twice), then by two
 * processes at once (half the parts each, twice), both starting at the same
 * instant. The ratio of the makespans is the ceiling for
 * bench/flow-throughput.ts's speed-up with 2 worker processes.
 *
 *   npm run build && node dist/bench/parallel-ceiling.js [rounds]
 */
import "../src/model/weights/default.js";
import { spawn } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { computePart, partValues, withValues } from "../docs/recipes/bullmq-parts.js";
import { partition, type RequestPart } from "../src/index.js";
import { flowBenchmarkRequest } from "../test/support/anomaly-request.js";

const self = fileURLToPath(import.meta.url);

/** The parts of the flow-throughput request, with y as Float64Array (as a worker has them after reading Redis). */
function parts(): RequestPart[] {
  const request = flowBenchmarkRequest(2000, 1000);
  return partition(request, 8).map((part) => withValues(part, Float64Array.from(partValues(part))));
}

/** One child: computes its share of the parts `rounds` times from `startAt` (epoch ms); prints its time. */
async function child(id: number, of: number, rounds: number, startAt: number): Promise<void> {
  const mine = parts().filter((p) => p.index % of === id);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  const started = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const part of mine) computePart(part);
  process.stdout.write(`${Number(process.hrtime.bigint() - started) / 1e9}\n`);
}

/** Runs `of` children at once and returns the makespan (the slowest child's time). */
async function run(of: number, rounds: number): Promise<number> {
  const startAt = Date.now() + 5000; // time for every child to build its data first
  const times = await Promise.all(
    Array.from({ length: of }, (_, id) =>
      new Promise<number>((resolve, reject) => {
        let out = "";
        const c = spawn(process.execPath, [self, "child", String(id), String(of), String(rounds), String(startAt)], { stdio: ["ignore", "pipe", "inherit"] });
        c.stdout.on("data", (d: Buffer) => (out += d.toString()));
        c.on("exit", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`child exited with ${String(code)}`))));
      }),
    ),
  );
  return Math.max(...times);
}

if (process.argv[2] === "child") {
  await child(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6]));
} else {
  const rounds = Number(process.argv[2] ?? 2);
  const rows: string[] = [];
  for (let repeat = 0; repeat < 2; repeat++) {
    const one = await run(1, rounds);
    const two = await run(2, rounds);
    rows.push(`| ${one.toFixed(2)} | ${two.toFixed(2)} | ${(one / two).toFixed(2)}× |`);
  }
  console.log(`8 parts of 2,000 × 1,000 points, ${rounds} rounds, no queue`);
  console.log("| 1 process (s) | 2 processes, makespan (s) | speed-up |\n|---:|---:|---:|");
  for (const r of rows) console.log(r);
  console.log(`${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}`);
}
