/**
 * Micro-benchmarks of the calibrated-uncertainty core and the dense kernels:
 * `npx vitest bench --run bench/uncertainty.bench.ts`. Inputs are deterministic.
 */
import { bench, describe } from "vitest";
import { seriesCalibratedScores } from "../src/anomaly/index.js";
import { calibratedIntervals, calibratedZ, collectCalibrationScores, conformalMultiplier, spreadKnots } from "../src/intervals/index.js";
import { SPREAD_LEVELS } from "../src/model/index.js";
import { createDenseKernel } from "../src/model/kernel/dense.js";

function deterministicValues(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let state = seed >>> 0;
  for (let i = 0; i < n; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state / 4294967296 - 0.5;
  }
  return out;
}

const G = SPREAD_LEVELS.length;
const knots = spreadKnots(SPREAD_LEVELS);
const rows = 24_000; // 1,000 series × h 24
const widths = Float64Array.from({ length: rows * G }, (_, i) => knots[i % G]! * (1 + (i % 7) / 10));
const mean = deterministicValues(rows, 1);
const actual = deterministicValues(rows, 2).map((v) => v * 3);
const seriesOfRow = Int32Array.from({ length: rows }, (_, r) => Math.floor(r / 24));

describe("calibration of 1,000 series × 24 points", () => {
  bench("collectCalibrationScores (score + sort per series)", () => {
    collectCalibrationScores(1000, SPREAD_LEVELS, (i, add) => {
      for (let r = i * 24; r < (i + 1) * 24; r++) add(actual[r]!, mean[r]!, widths, widths, r * G);
    });
  });
  const calibration = collectCalibrationScores(1000, SPREAD_LEVELS, (i, add) => {
    for (let r = i * 24; r < (i + 1) * 24; r++) add(actual[r]!, mean[r]!, widths, widths, r * G);
  });
  const dist = { levels: SPREAD_LEVELS, mean, below: widths, above: widths };
  bench("calibratedIntervals, levels 80 and 95", () => {
    calibratedIntervals(dist, seriesOfRow, calibration, [80, 95]);
  });
  bench("conformalMultiplier + calibratedZ, 24,000 points", () => {
    let s = 0;
    for (let r = 0; r < rows; r++) {
      const from = calibration.offsets[seriesOfRow[r]!]!;
      const n = calibration.offsets[seriesOfRow[r]! + 1]! - from;
      s += conformalMultiplier(calibration.scores, from, n, 95) + calibratedZ(actual[r]!, calibration.scores, from, n);
    }
    if (Number.isNaN(s)) throw new Error("unreachable");
  });
});

describe("seriesCalibratedScores, one series of 1,000 points, detection 48", () => {
  const y = deterministicValues(1000, 3);
  const forecast = new Float64Array(1000);
  const w = Float64Array.from({ length: 1000 * G }, (_, i) => knots[i % G]! * 0.3);
  const out = { z: new Float64Array(48), lo: new Float64Array(48), hi: new Float64Array(48) };
  bench("seriesCalibratedScores", () => {
    seriesCalibratedScores(y, forecast, w, w, SPREAD_LEVELS, 48, 99, out);
  });
});

describe("dense layer 128 rows × 346 → 128", () => {
  for (const kind of ["wasm-simd", "js"] as const) {
    const k = createDenseKernel(128 * 346 + 128 * 346 + 128 + 128 * 128, kind);
    const x = k.alloc(128 * 346);
    const p = k.alloc(128 * 346 + 128);
    const out = k.alloc(128 * 128);
    x.set(deterministicValues(x.length, 4));
    p.set(deterministicValues(p.length, 5));
    bench(`forward (${kind})`, () => {
      k.forward(x, 128, 346, p, 0, 128 * 346, 128, out);
    });
  }
});
