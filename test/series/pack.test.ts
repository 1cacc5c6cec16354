import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import {
  featureView,
  futureFeatureView,
  makeSeriesData,
  packFeatures,
  packSeries,
  seriesDataFromList,
  seriesOffsets,
  seriesOfRow,
  seriesView,
  unpackSeries,
} from "../../src/series/index.js";

const value = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 });
const seriesList = fc.array(fc.array(value, { maxLength: 12 }), { maxLength: 8 });
const nonEmptySeriesList = fc.array(fc.array(value, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 });

describe("packSeries / unpackSeries", () => {
  test.prop([seriesList], { numRuns: 200 })("pack → unpack round-trips any list of series (incl. empty ones)", (list) => {
    const { y, sizes } = packSeries(list);
    expect(y.length).toBe(list.reduce((a, s) => a + s.length, 0));
    expect(Array.from(sizes)).toEqual(list.map((s) => s.length));
    expect(unpackSeries(y, sizes).map((s) => Array.from(s))).toEqual(list);
  });

  test.prop([seriesList], { numRuns: 100 })("unpack → pack round-trips y and sizes", (list) => {
    const { y, sizes } = packSeries(list);
    const again = packSeries(unpackSeries(y, sizes));
    expect(Array.from(again.y)).toEqual(Array.from(y));
    expect(Array.from(again.sizes)).toEqual(Array.from(sizes));
  });

  test.prop([seriesList], { numRuns: 100 })("slicing with seriesView agrees with unpacking, without copying", (list) => {
    const { y, sizes } = packSeries(list);
    const offsets = seriesOffsets(sizes);
    const unpacked = unpackSeries(y, sizes);
    unpacked.forEach((series, i) => {
      const view = seriesView(y, offsets, i);
      expect(Array.from(view)).toEqual(Array.from(series));
      expect(view.buffer).toBe(y.buffer); // a view, not a copy
    });
  });

  test.prop([seriesList], { numRuns: 100 })("never mutates its inputs (frozen arrays)", (list) => {
    const frozen = Object.freeze(list.map((s) => Object.freeze([...s])));
    const { y, sizes } = packSeries(frozen);
    const yCopy = Array.from(y);
    unpackSeries(y, sizes);
    expect(frozen).toEqual(list);
    expect(Array.from(y)).toEqual(yCopy);
  });

  it("unpacked series are copies: writing to one leaves y unchanged", () => {
    const { y, sizes } = packSeries([[1, 2], [3]]);
    const [first] = unpackSeries(y, sizes);
    first![0] = 99;
    expect(y[0]).toBe(1);
  });

  it("rejects sizes that do not fit y", () => {
    expect(() => unpackSeries(new Float64Array(3), [1, 1])).toThrow(RangeError);
    expect(() => unpackSeries(new Float64Array(3), [1, -1, 3])).toThrow(/sizes\[1\]/);
  });
});

describe("seriesOffsets / seriesView / seriesOfRow", () => {
  it("known values", () => {
    expect(Array.from(seriesOffsets([3, 1, 2]))).toEqual([0, 3, 4, 6]);
    expect(Array.from(seriesOffsets([]))).toEqual([0]);
    expect(seriesOffsets([2])).toBeInstanceOf(Int32Array);
  });

  it("rejects negative, fractional and overflowing sizes with RangeError", () => {
    expect(() => seriesOffsets([1, -1])).toThrow(/sizes\[1\]/);
    expect(() => seriesOffsets([1.5])).toThrow(RangeError);
    expect(() => seriesOffsets([2 ** 30, 2 ** 30])).toThrow(/exceeds/);
  });

  it("seriesView rejects an index outside the series", () => {
    const y = new Float64Array([1, 2, 3]);
    const offsets = seriesOffsets([1, 2]);
    expect(() => seriesView(y, offsets, 2)).toThrow(RangeError);
    expect(() => seriesView(y, offsets, -1)).toThrow(RangeError);
    expect(() => seriesView(new Float64Array(2), offsets, 1)).toThrow(/outside y/);
    const view = seriesView(y, offsets, 1);
    view[0] = 20; // views write through
    expect(y[1]).toBe(20);
  });

  test.prop([nonEmptySeriesList], { numRuns: 100 })("seriesOfRow finds the series holding every row", (list) => {
    const { sizes } = packSeries(list);
    const offsets = seriesOffsets(sizes);
    for (let i = 0; i < list.length; i++) {
      for (let row = offsets[i]!; row < offsets[i + 1]!; row++) expect(seriesOfRow(offsets, row)).toBe(i);
    }
    expect(() => seriesOfRow(offsets, offsets[list.length]!)).toThrow(RangeError);
  });
});

describe("SeriesData builders and the feature-major layout", () => {
  it("makeSeriesData checks sizes and X lengths", () => {
    const y = new Float64Array([1, 2, 3, 4, 5]);
    const s = makeSeriesData(y, [2, 3], [new Float64Array(5)]);
    expect(Array.from(s.offsets)).toEqual([0, 2, 5]);
    expect(s.y).toBe(y);
    expect(() => makeSeriesData(y, [2, 2])).toThrow(/sum to 4/);
    expect(() => makeSeriesData(y, [0, 5])).toThrow(/sizes\[0\]/);
    expect(() => makeSeriesData(y, [5], [new Float64Array(4)])).toThrow(/X\[0\]/);
  });

  test.prop(
    [fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 4 })],
    { numRuns: 100 },
  )("X[k] has one value per row of y; featureView and futureFeatureView slice series i", (sizes, featureCount, h) => {
    // feature f of series i at time t has the value 1000·f + 100·i + t
    const list = sizes.map((n, i) => Array.from({ length: n }, (_, t) => 100 * i + t));
    const features = sizes.map((n, i) => Array.from({ length: featureCount }, (_, f) => Array.from({ length: n }, (_, t) => 1000 * f + 100 * i + t)));
    const s = seriesDataFromList(list, features);
    expect(s.X.length).toBe(featureCount);
    for (let f = 0; f < featureCount; f++) {
      expect(s.X[f]!.length).toBe(s.y.length);
      for (let i = 0; i < sizes.length; i++) expect(Array.from(featureView(s, f, i))).toEqual(features[i]![f]);
    }
    const future = sizes.map((_, i) => Array.from({ length: featureCount }, (_, f) => Array.from({ length: h }, (_, t) => 1000 * f + 100 * i + t)));
    const Xfuture = packFeatures(future, new Int32Array(sizes.length).fill(h));
    for (let f = 0; f < featureCount; f++) {
      expect(Xfuture[f]!.length).toBe(sizes.length * h);
      for (let i = 0; i < sizes.length; i++) expect(Array.from(futureFeatureView(Xfuture, f, i, h))).toEqual(future[i]![f]);
    }
  });

  it("packFeatures and the views reject inconsistent shapes", () => {
    expect(() => packFeatures([[[1, 2]], [[1], [2]]])).toThrow(/features/);
    expect(() => packFeatures([[[1, 2], [3]]])).toThrow(/feature 1 of series 0/);
    expect(() => packFeatures([[[1, 2]]], [3])).toThrow(RangeError);
    expect(packFeatures([])).toEqual([]);
    const s = seriesDataFromList([[1, 2]]);
    expect(s.X).toEqual([]);
    expect(() => featureView(s, 0, 0)).toThrow(RangeError);
    const Xf = [new Float64Array(6)];
    expect(() => futureFeatureView(Xf, 0, 2, 3)).toThrow(RangeError);
    expect(() => futureFeatureView(Xf, 1, 0, 3)).toThrow(RangeError);
    expect(() => futureFeatureView(Xf, 0, 0, 0)).toThrow(/h must be/);
    expect(() => seriesDataFromList([[1], []])).toThrow(/sizes\[1\]/);
  });
});
