/**
 * The network's forward pass alone, in GFLOP/s (2 × multiply-adds of the
 * dense layers per second), with the TypeScript kernel and the WebAssembly
 * SIMD kernel in one run, for batches of 1, 64, 1,024 and 16,384 windows
 * (forecastmodel-1, rows of 256 at most per call, as the forecaster runs them).
 *
 *   npm run build && node dist/bench/kernel-bench.js
 */
import "../src/model/weights/default.js";
import os from "node:os";
import seedrandom from "seedrandom";
import { NetworkRunner, networkShape, parameterLayout, pretrainedParameters } from "../src/model/index.js";

const model = "forecastmodel-1";
const shape = networkShape(model);
const layout = parameterLayout(shape);
const params = pretrainedParameters(model);
const D = layout.inputSize;
const W = shape.width;
const F = shape.hidden;
const O = shape.outputLength;
const macsPerRow = D * W + shape.blocks * 2 * W * F + W * O;
const CHUNK = 256;

function measure(kind: "js" | "wasm-simd", windows: number): { gflops: number; seconds: number } {
  const runner = new NetworkRunner(shape, Math.min(CHUNK, windows), kind);
  runner.fixParameters(params);
  const rows = Math.min(CHUNK, windows);
  const u = seedrandom(`kernel-bench:${windows}`);
  const x = Float64Array.from({ length: rows * D }, () => u() - 0.5);
  const out = new Float64Array(rows * O);
  const pass = (): void => {
    for (let done = 0; done < windows; done += rows) runner.forward(params, x, Math.min(rows, windows - done), out);
  };
  pass(); // warm-up
  const repeats = Math.max(1, Math.round(20000 / windows));
  let best = Infinity;
  for (let trial = 0; trial < 3; trial++) {
    const t0 = process.hrtime.bigint();
    for (let r = 0; r < repeats; r++) pass();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9 / repeats);
  }
  return { gflops: (2 * macsPerRow * windows) / best / 1e9, seconds: best };
}

console.log(`forward pass of ${model}: ${macsPerRow.toLocaleString("en-US")} multiply-adds per window (dense layers)`);
console.log("| windows | TypeScript kernel GFLOP/s | WebAssembly SIMD GFLOP/s | speed-up |");
console.log("|---:|---:|---:|---:|");
for (const windows of [1, 64, 1024, 16384]) {
  const js = measure("js", windows);
  const simd = measure("wasm-simd", windows);
  console.log(`| ${windows.toLocaleString("en-US")} | ${js.gflops.toFixed(2)} | ${simd.gflops.toFixed(2)} | ${(js.seconds / simd.seconds).toFixed(2)}× |`);
}
console.log(`${os.cpus()[0]?.model ?? "?"}; node ${process.version}; load average ${os.loadavg()[0]!.toFixed(1)}`);
