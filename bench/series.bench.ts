/**
 * Micro-benchmarks of series packing and validation: `npx vitest bench --run bench/series.bench.ts`.
 * 1000 series of 500 points (500 000 values), deterministic.
 */
import { bench, describe } from "vitest";
import { packSeries, seriesOffsets, seriesView, unpackSeries } from "../src/series/index.js";
import { validateSeriesInput } from "../src/api/series-input.js";

const list: number[][] = Array.from({ length: 1000 }, (_, i) => Array.from({ length: 500 }, (_, t) => Math.sin(t / 7 + i) * 10 + i));
const { y, sizes } = packSeries(list);
const offsets = seriesOffsets(sizes);
const body = { y: Array.from(y), sizes: Array.from(sizes), X: [Array.from(y)] };

describe("1000 series × 500 points", () => {
  bench("packSeries", () => {
    packSeries(list);
  });
  bench("unpackSeries (copies)", () => {
    unpackSeries(y, sizes);
  });
  bench("seriesView for every series (no copy)", () => {
    let total = 0;
    for (let i = 0; i < sizes.length; i++) total += seriesView(y, offsets, i).length;
    if (total !== y.length) throw new Error("unreachable");
  });
  bench("validateSeriesInput (y + one X feature from JSON arrays)", () => {
    validateSeriesInput(body);
  });
});
