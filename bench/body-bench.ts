/**
 * How long decodeContent takes to refuse the compression bombs of
 * test/fixtures/encoding (64 MiB of decoded data) against a 1 MiB limit, and
 * to decode the 222 kB body the SDK sends, per encoding (median of 15 runs,
 * after 3 warm-up runs; one thread).
 *
 *   npm run build && node dist/bench/body-bench.js
 */
import { readFileSync } from "node:fs";
import { decodeContent } from "../src/api/encoding.js";

const MB = 1024 * 1024;
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(`test/fixtures/encoding/${name}`));

function medianMs(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < 18; i++) {
    const t0 = process.hrtime.bigint();
    run();
    if (i >= 3) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function refuse(bytes: Uint8Array, encoding: string, limit: number): () => void {
  return () => {
    try {
      decodeContent(bytes, encoding, limit);
    } catch {
      return;
    }
    throw new Error("the bomb was not refused");
  };
}

const rows: [string, number][] = [
  ["gzip bomb (64 kB → 64 MiB), limit 1 MiB: refused", medianMs(refuse(fixture("bomb.gz"), "gzip", MB))],
  ["zstd bomb (2 kB → 64 MiB), limit 1 MiB: refused", medianMs(refuse(fixture("bomb.zst"), "zstd", MB))],
  ["gzip body (222,100 bytes), limit 256 MiB: decoded", medianMs(() => void decodeContent(fixture("body.json.gz"), "gzip", 256 * MB))],
  ["zstd body (222,100 bytes), limit 256 MiB: decoded", medianMs(() => void decodeContent(fixture("body.json.zst"), "zstd", 256 * MB))],
];
console.log("| body | median ms |\n|---|---:|");
for (const [label, ms] of rows) console.log(`| ${label} | ${ms.toFixed(2)} |`);
