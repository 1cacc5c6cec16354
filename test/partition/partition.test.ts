import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { cutBounds, guidedCutPoints, merge, mergeSteps, partition, partitionBlocker, type PartCut, type RequestPart } from "../../src/api/partition.js";
import { ValidationError } from "../../src/api/errors.js";
import { DEFAULT_SERVICE_LIMITS, validateEndpointBody } from "../../src/api/requests.js";
import { validationDetail } from "../api/helpers.js";
import { packResult } from "../../src/pool/protocol.js";

/** The 422 items the API gives a forecast body (type and location), none when it is valid. */
function apiItems(body: unknown): [string, string][] {
  try {
    validateEndpointBody("forecast", body, { core: true, limits: DEFAULT_SERVICE_LIMITS });
    return [];
  } catch (e) {
    return (e as ValidationError).detail.map((d) => [d.type, d.loc.join(".")]);
  }
}

/**
 * Stand-in pipelines with the result shapes of the real endpoints, computing
 * every series on its own with floating-point arithmetic (so concatenation
 * order and index shifts matter). The same properties are checked against the
 * real pipelines in partition-pipelines.test.ts.
 */
type Body = {
  series: { y: number[]; sizes: number[]; X?: number[][] };
  h?: number;
  detection_size?: number;
  X_future?: number[][];
  level?: number | number[];
};

function seriesBounds(sizes: number[]): number[] {
  const offsets = [0];
  for (const s of sizes) offsets.push((offsets[offsets.length - 1] as number) + s);
  return offsets;
}

function fakeAnomaly(body: Body) {
  const { y, sizes } = body.series;
  const d = body.detection_size ?? 1;
  const offsets = seriesBounds(sizes);
  const out = { input_tokens: y.length, output_tokens: 0, finetune_tokens: 0, mean: [] as number[], sizes: [] as number[], idxs: [] as number[], anomaly: [] as boolean[], anomaly_score: [] as number[], accumulated_anomaly_score: [] as number[], intervals: { "lo-99": [] as number[], "hi-99": [] as number[] }, warnings: [] as string[] };
  sizes.forEach((n, i) => {
    const start = offsets[i] as number;
    const rows = Math.min(d, n);
    out.sizes.push(rows);
    for (let r = n - rows; r < n; r++) {
      let acc = 0;
      for (let j = 0; j < r; j++) acc += (y[start + j] as number) / 3;
      const yhat = r === 0 ? 0 : acc / r;
      const z = ((y[start + r] as number) - yhat) / 1.7;
      out.mean.push(yhat);
      out.idxs.push(start + r);
      out.anomaly_score.push(z);
      out.accumulated_anomaly_score.push(z * z);
      out.anomaly.push(Math.abs(z) > 2);
      out.intervals["lo-99"].push(yhat - 0.1 * Math.abs(yhat));
      out.intervals["hi-99"].push(yhat + 0.1 * Math.abs(yhat));
    }
  });
  if ((body.h ?? 0) > 14) out.warnings.push("The specified horizon h exceeds the model horizon");
  out.output_tokens = out.mean.length * 6;
  return out;
}

function fakeForecast(body: Body) {
  const { y, sizes, X } = body.series;
  const h = body.h ?? 1;
  const offsets = seriesBounds(sizes);
  const nX = X?.length ?? 0;
  const coefficients: number[] = [];
  const out = { mean: [] as number[], sizes: [] as number[], intervals: null as null | Record<string, number[]>, weights_x: nX > 0 ? ([] as number[]) : null, feature_contributions: nX > 0 ? Array.from({ length: nX + 1 }, () => [] as number[]) : null, input_tokens: y.length * (1 + nX) + (body.X_future?.length ?? 0) * sizes.length * h, output_tokens: 0, finetune_tokens: 0, warnings: [] as string[] };
  sizes.forEach((n, i) => {
    const start = offsets[i] as number;
    const last = n > 0 ? (y[start + n - 1] as number) : 0;
    out.sizes.push(h);
    for (let k = 0; k < h; k++) {
      let xPart = 0;
      for (let f = 0; f < nX; f++) {
        const c = (body.X_future?.[f]?.[i * h + k] ?? 0) * (0.5 + f);
        out.feature_contributions?.[f]?.push(c);
        xPart += c;
      }
      out.feature_contributions?.[nX]?.push(last / 7);
      out.mean.push(last / 7 + xPart);
    }
    for (let f = 0; f < nX; f++) coefficients.push(0.5 + f + (X?.[f]?.[start] ?? 0) / 10);
  });
  // like the real pipelines: weights_x[f] = mean over series of the series' coefficient
  for (let f = 0; f < nX; f++) {
    let sum = 0;
    for (let i = 0; i < sizes.length; i++) sum += coefficients[i * nX + f] as number;
    out.weights_x?.push(sum / sizes.length);
  }
  out.output_tokens = out.mean.length;
  return out;
}

const seriesArb = fc.array(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 12 }), {
  minLength: 1,
  maxLength: 9,
});

function anomalyBody(list: number[][], detectionSize: number): Body {
  return { series: { y: list.flat(), sizes: list.map((s) => s.length) }, freq: "M", detection_size: detectionSize, h: 3, level: 99 } as Body;
}

function forecastBody(list: number[][], h: number, features: number): Body {
  const y = list.flat();
  const X = Array.from({ length: features }, (_, f) => y.map((v, r) => (r % 5) + f));
  const X_future = Array.from({ length: features }, (_, f) => Array.from({ length: list.length * h }, (_, r) => (r % 3) - f));
  return { series: { y, sizes: list.map((s) => s.length), ...(features > 0 ? { X } : {}) }, freq: "D", h, ...(features > 0 ? { X_future } : {}), level: [80, 95] } as Body;
}

function runParts<T>(parts: RequestPart[], run: (b: Body) => T): T[] {
  // each part goes through JSON, as it would to a worker or another machine
  return parts.map((p) => JSON.parse(JSON.stringify(run(JSON.parse(JSON.stringify(p.body)) as Body))) as T);
}

describe("partition", () => {
  it("splits into contiguous groups of series balanced by number of values", () => {
    const body = anomalyBody([[1, 2, 3, 4], [5], [6, 7], [8, 9, 10, 11], [12]], 1);
    const parts = partition(body, 3);
    expect(parts.map((p) => p.body.series)).toEqual([
      { y: [1, 2, 3, 4], sizes: [4] },
      { y: [5, 6, 7], sizes: [1, 2] },
      { y: [8, 9, 10, 11, 12], sizes: [4, 1] },
    ]);
    expect(parts.map((p) => [p.index, p.count, p.seriesStart, p.seriesCount, p.rowStart, p.rowCount, p.kind])).toEqual([
      [0, 3, 0, 1, 0, 4, "anomaly"],
      [1, 3, 1, 2, 4, 3, "anomaly"],
      [2, 3, 3, 2, 7, 5, "anomaly"],
    ]);
    // other fields copied, key order kept
    expect(Object.keys(parts[1]?.body ?? {})).toEqual(Object.keys(body));
    expect(parts[1]?.body.detection_size).toBe(1);
  });

  it("slices X by rows and X_future by h rows per series", () => {
    const body = forecastBody([[1, 2], [3, 4, 5], [6]], 2, 2);
    const parts = partition(body, 2);
    expect(parts).toHaveLength(2);
    expect(parts[0]?.body.series).toEqual({ y: [1, 2], sizes: [2], X: [[0, 1], [1, 2]] });
    expect(parts[1]?.body.series).toEqual({ y: [3, 4, 5, 6], sizes: [3, 1], X: [[2, 3, 4, 0], [3, 4, 5, 1]] });
    expect(parts[0]?.body.X_future).toEqual([[0, 1], [-1, 0]]);
    expect(parts[1]?.body.X_future).toEqual([[2, 0, 1, 2], [1, -1, 0, 1]]);
  });

  it("gives min(k, series) parts; a request without series is refused, as the API refuses it", () => {
    expect(partition(anomalyBody([[1], [2]], 1), 10)).toHaveLength(2);
    // (before partition read the series with the API's reader, it gave one empty part here)
    expect(() => partition({ series: { y: [], sizes: [] }, freq: "D" }, 4)).toThrow(/List should have at least 1 item/);
  });

  it("infers the kind from the body, or takes it from options", () => {
    expect(partition({ series: { y: [1], sizes: [1] }, h: 2 }, 1)[0]?.kind).toBe("forecast");
    expect(partition({ series: { y: [1], sizes: [1] }, h: 2, detection_size: 1 }, 1)[0]?.kind).toBe("anomaly");
    expect(partition({ series: { y: [1], sizes: [1] }, h: 2 }, 1, { kind: "anomaly" })[0]?.kind).toBe("anomaly");
  });

  it("refuses requests that couple their series, naming the field", () => {
    const base = anomalyBody([[1, 2], [3, 4]], 1);
    expect(() => partition({ ...base, threshold_method: "multivariate" }, 2)).toThrow(/threshold_method = "multivariate"/);
    expect(() => partition({ ...base, multivariate: true }, 2)).toThrow(/multivariate = true/);
    expect(() => partition({ ...base, finetune_steps: 3 }, 2)).toThrow(/finetune_steps = 3/);
    expect(partitionBlocker({ ...base, finetune_steps: 0, threshold_method: "univariate", multivariate: false })).toBeNull();
    expect(partitionBlocker({ ...base, finetuned_model_id: "m-1" })).toBeNull();
  });

  it("parses a body given as JSON text or bytes", () => {
    const body = anomalyBody([[1, 2], [3, 4, 5]], 1);
    const fromText = partition(JSON.stringify(body), 2);
    expect(fromText.map((p) => p.body)).toEqual(partition(body, 2).map((p) => p.body));
    expect(partition(new TextEncoder().encode(JSON.stringify(body)), 2)).toHaveLength(2);
    expect(() => partition("{oops", 2)).toThrow(ValidationError);
  });

  it("refuses fine-tune requests", () => {
    expect(() => partition({ series: { y: [1, 2], sizes: [1, 1] }, freq: "D", output_model_id: "m" }, 2)).toThrow(/fine-tune request/);
  });

  it("rejects a bad k with a RangeError", () => {
    for (const k of [0, -1, 1.5, NaN]) expect(() => partition(anomalyBody([[1]], 1), k)).toThrow(RangeError);
    for (const k of [{ threads: 0, partValues: 8 }, { threads: 1.5, partValues: 8 }, { threads: 2, partValues: 0 }, { threads: 2, partValues: NaN }, null]) {
      expect(() => partition(anomalyBody([[1]], 1), k as unknown as PartCut)).toThrow(/k\.threads|k\.partValues/);
    }
  });

  it("reports malformed bodies as ValidationError items at the original positions", () => {
    const bad = (body: unknown) => validationDetail(() => partition(body, 2)).map((d) => [d.type, d.loc.join(".")]);
    expect(bad(null)).toEqual([["model_attributes_type", "body"]]);
    expect(bad({ freq: "D" })).toEqual([["missing", "body.series"]]);
    expect(bad({ series: { y: [1, "2", Infinity], sizes: [1, 1.5] } })).toEqual([
      ["float_type", "body.series.y.1"],
      ["finite_number", "body.series.y.2"],
      ["int_type", "body.series.sizes.1"],
    ]);
    expect(bad({ series: { y: [1, 2, 3], sizes: [1, 1] } })).toEqual([["value_error", "body.series.sizes"]]);
    expect(bad({ series: { y: [1, 2], sizes: [1, 1], X: [[1]] } })).toEqual([["value_error", "body.series.X.0"]]);
    // X_future without X is refused too, with the API's one item (without features no length is judged)
    const noFeatures = { series: { y: [1, 2], sizes: [1, 1] }, freq: "D", h: 2, X_future: [[1, 2, 3]] };
    expect(bad(noFeatures)).toEqual([["value_error", "body.X_future"]]);
    expect(apiItems(noFeatures)).toEqual([["value_error", "body.X_future"]]);
    // a size of 0, which partition used to accept and the API does not
    expect(bad({ series: { y: [1, 2], sizes: [2, 0] } })).toEqual([["greater_than_equal", "body.series.sizes.1"]]);
  });

  it("accepts what the API accepts: X_future without the hist_exog features (issue 16 review)", () => {
    const body = {
      series: { y: [1, 2, 3, 4, 5, 6], sizes: [3, 3], X: [[1, 0, 1, 0, 1, 0], [5, 6, 7, 8, 9, 10]] },
      freq: "D",
      h: 2,
      hist_exog: [1],
      X_future: [[1, 0, 1, 0]],
    };
    expect(apiItems(body)).toEqual([]);
    const parts = partition(body, 2);
    expect(parts.map((p) => (p.body as { X_future: number[][] }).X_future)).toEqual([[[1, 0]], [[1, 0]]]);
    // an empty array for the hist_exog feature, one array per feature, is accepted as well
    expect(partition({ ...body, X_future: [[1, 0, 1, 0], []] }, 2)).toHaveLength(2);
    expect(apiItems({ ...body, X_future: [[1, 0, 1, 0], []] })).toEqual([]);
  });

  it("never mutates the request", () => {
    const body = forecastBody([[1, 2], [3, 4, 5]], 2, 1);
    const copy = structuredClone(body);
    const deepFreeze = (o: unknown): void => {
      if (o !== null && typeof o === "object") {
        Object.freeze(o);
        Object.values(o).forEach(deepFreeze);
      }
    };
    deepFreeze(body);
    const parts = partition(body, 2);
    merge(parts, runParts(parts, fakeForecast));
    expect(body).toEqual(copy);
  });

  test.prop([seriesArb, fc.integer({ min: 1, max: 6 })], { numRuns: 80 })(
    "parts are contiguous, non-empty and reassemble y and sizes exactly",
    (list, k) => {
      const body = anomalyBody(list, 1);
      const parts = partition(body, k);
      expect(parts).toHaveLength(Math.min(k, list.length));
      expect(parts.flatMap((p) => (p.body.series as Body["series"]).y)).toEqual(body.series.y);
      expect(parts.flatMap((p) => (p.body.series as Body["series"]).sizes)).toEqual(body.series.sizes);
      for (const p of parts) expect(p.seriesCount).toBeGreaterThan(0);
    },
  );

  test.prop([seriesArb, fc.integer({ min: 1, max: 6 }), fc.boolean()], { numRuns: 60 })(
    "typedY: every part's y is a Float64Array of its own holding the same values, from a list or a typed y",
    (list, k, typedInput) => {
      const listed = anomalyBody(list, 1);
      const body = typedInput ? { ...listed, series: { ...listed.series, y: Float64Array.from(listed.series.y) } } : listed;
      const plain = partition(listed, k);
      const typed = partition(body, k, { typedY: true });
      expect(typed.map((p) => ({ ...p, body: null }))).toEqual(plain.map((p) => ({ ...p, body: null })));
      typed.forEach((p, i) => {
        const y = (p.body.series as { y: unknown }).y as Float64Array;
        expect(y).toBeInstanceOf(Float64Array);
        expect(Array.from(y)).toEqual((plain[i]!.body.series as Body["series"]).y);
        if (typedInput) expect(y.buffer).not.toBe((body.series.y as unknown as Float64Array).buffer);
        expect({ ...p.body, series: { ...(p.body.series as object), y: null } }).toEqual({ ...plain[i]!.body, series: { ...(plain[i]!.body.series as object), y: null } });
      });
    },
  );
});

describe("guided cut", () => {
  const sizesArb = fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 300 });

  test.prop([sizesArb, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 40_000 })], { numRuns: 300 })(
    "bounds run from 0 to n, every part holds a series; a part of several series holds at most partValues + half its last series",
    (sizes, threads, partValues) => {
      const b = guidedCutPoints(sizes, threads, partValues);
      expect(b[0]).toBe(0);
      expect(b[b.length - 1]).toBe(sizes.length);
      for (let p = 0; p + 1 < b.length; p++) {
        expect(b[p + 1]!).toBeGreaterThan(b[p]!);
        const part = sizes.slice(b[p], b[p + 1]);
        const values = part.reduce((a, v) => a + v, 0);
        if (part.length > 1) expect(values).toBeLessThanOrEqual(partValues + part[part.length - 1]! / 2);
      }
      expect(cutBounds(sizes, { threads, partValues })).toEqual(b);
    },
  );

  test.prop([fc.integer({ min: 1, max: 600 }), fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 40_000 })], { numRuns: 200 })(
    "equal series: parts never grow toward the end",
    (size, count, threads, partValues) => {
      const b = guidedCutPoints(new Array<number>(count).fill(size), threads, partValues);
      for (let p = 1; p + 1 < b.length; p++) expect(b[p + 1]! - b[p]!).toBeLessThanOrEqual(b[p]! - b[p - 1]!);
    },
  );

  it("1,000 series of 500 on 2 workers: parts of at most 32,768 values, then shrinking to an eighth of that", () => {
    const b = guidedCutPoints(new Array<number>(1000).fill(500), 2, 32_768);
    const values = b.slice(1).map((end, p) => (end - b[p]!) * 500);
    expect(values).toEqual([
      33000, 33000, 33000, 33000, 33000, 33000, 33000, 33000, 33000, 33000, 33000, 33000, 26000, 19500, 14500, 11000, 8500, 6000, 4500, 4000, 4000, 4000, 2000,
    ]);
  });

  test.prop([seriesArb, fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 5 })], { numRuns: 80 })(
    "partition by a guided cut: parts merge byte-identical to the single call",
    (list, threads, partValues, detectionSize) => {
      const body = anomalyBody(list, detectionSize);
      const parts = partition(body, { threads, partValues });
      expect(parts.flatMap((p) => (p.body.series as Body["series"]).sizes)).toEqual(body.series.sizes);
      expect(JSON.stringify(merge(parts, runParts(parts, fakeAnomaly)))).toBe(JSON.stringify(fakeAnomaly(body)));
    },
  );
});

/** The parts of an anomaly body of `list` cut k ways, and their results (fakeAnomaly). */
function anomalyParts(list: number[][], k: number, detectionSize: number) {
  const parts = partition(anomalyBody(list, detectionSize), k);
  return { parts, results: runParts(parts, fakeAnomaly) };
}

/** A mergeSteps generator run to its end: the merged result, and how many times it paused on the way. */
function drain<R>(steps: Generator<void, R, undefined>): { value: R; pauses: number } {
  let pauses = 0;
  for (let step = steps.next(); ; step = steps.next(), pauses++) if (step.done === true) return { value: step.value, pauses };
}

describe("merge", () => {
  test.prop([seriesArb, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 5 })], { numRuns: 60 })(
    "mergeSteps: a pause after each field and between interval bounds, and merge's answer at the end",
    (list, k, detectionSize) => {
      const { parts, results } = anomalyParts(list, k, detectionSize);
      const { value, pauses } = drain(mergeSteps(parts, results));
      const fields = Object.keys(results[0]!);
      expect(pauses).toBe(fields.length + Object.keys(results[0]!.intervals).length - 1);
      expect(JSON.stringify(value)).toBe(JSON.stringify(merge(parts, results)));
    },
  );

  test.prop([seriesArb, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 5 })], { numRuns: 60 })(
    "mergeSteps with lists: row arrays that travelled as Float64Arrays join into plain lists, merge's answer to the byte",
    (list, k, detectionSize) => {
      const { parts, results } = anomalyParts(list, k, detectionSize);
      const packed = results.map((r) => packResult(r).value as typeof r);
      const run = (lists: boolean) => drain(mergeSteps(parts, packed, lists)).value as unknown as Record<string, unknown> & { intervals: Record<string, unknown> };
      const listed = run(true);
      for (const value of [...Object.values(listed), ...Object.values(listed.intervals)]) expect(value).not.toBeInstanceOf(Float64Array);
      expect(JSON.stringify(listed)).toBe(JSON.stringify(merge(parts, results)));
      // without lists, the packed fields stay Float64Arrays
      expect(run(false).mean).toBeInstanceOf(Float64Array);
    },
  );

  test.prop([seriesArb, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 5 })], { numRuns: 80 })(
    "anomaly detection: merged parts are byte-identical to the single call",
    (list, k, detectionSize) => {
      const body = anomalyBody(list, detectionSize);
      const parts = partition(body, k);
      expect(JSON.stringify(merge(parts, runParts(parts, fakeAnomaly)))).toBe(JSON.stringify(fakeAnomaly(body)));
    },
  );

  test.prop([seriesArb, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 2 })], {
    numRuns: 80,
  })("forecast with X and X_future: merged parts are byte-identical to the single call", (list, k, h, features) => {
    const body = forecastBody(list, h, features);
    const parts = partition(body, k);
    const merged = merge(parts, runParts(parts, fakeForecast));
    const single = fakeForecast(body);
    // weights_x is a mean over series: the merge re-weights the parts' means (exact up to rounding)
    expect(JSON.stringify({ ...merged, weights_x: null })).toBe(JSON.stringify({ ...single, weights_x: null }));
    if (single.weights_x === null) expect(merged.weights_x).toBeNull();
    else single.weights_x.forEach((w, f) => expect(merged.weights_x?.[f]).toBeCloseTo(w, 10));
  });

  test.prop([seriesArb, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 2 })], { numRuns: 60 })(
    "per-row arrays given as Float64Array merge to the same numbers, as Float64Array",
    (list, k, h, features) => {
      const body = forecastBody(list, h, features);
      const parts = partition(body, k);
      const results = runParts(parts, fakeForecast);
      // every list of numbers of a result as a Float64Array (as results that travelled as binary)
      const typed = (v: unknown): unknown =>
        Array.isArray(v) ? (v.length > 0 && v.every((x) => typeof x === "number") ? Float64Array.from(v as number[]) : v.map(typed))
        : typeof v === "object" && v !== null ? Object.fromEntries(Object.entries(v).map(([key, x]) => [key, typed(x)]))
        : v;
      const plain = (v: unknown): unknown =>
        v instanceof Float64Array ? Array.from(v) : Array.isArray(v) ? v.map(plain)
        : typeof v === "object" && v !== null ? Object.fromEntries(Object.entries(v).map(([key, x]) => [key, plain(x)]))
        : v;
      const fromTyped = merge(parts, results.map(typed)) as Record<string, unknown>;
      const fromLists = merge(parts, results);
      expect(fromTyped.mean).toBeInstanceOf(Float64Array);
      expect(JSON.stringify({ ...(plain(fromTyped) as object), weights_x: null })).toBe(JSON.stringify({ ...(plain(fromLists) as object), weights_x: null }));
    },
  );

  it("shifts idxs by each part's position in y and sums tokens", () => {
    const body = anomalyBody([[1, 2, 3], [4, 5], [6, 7, 8, 9]], 2);
    const parts = partition(body, 3);
    const merged = merge(parts, runParts(parts, fakeAnomaly));
    expect(merged.idxs).toEqual([1, 2, 3, 4, 7, 8]);
    expect(merged.input_tokens).toBe(9);
    expect(merged.warnings).toEqual([]);
  });

  it("keeps one copy of a warning every part gives", () => {
    const body = { ...anomalyBody([[1, 2], [3, 4]], 1), h: 20 };
    const parts = partition(body, 2);
    expect(merge(parts, runParts(parts, fakeAnomaly)).warnings).toEqual(["The specified horizon h exceeds the model horizon"]);
  });

  it("rejects results that do not belong to the parts", () => {
    const parts = partition(anomalyBody([[1, 2], [3, 4], [5]], 1), 3);
    const results = runParts(parts, fakeAnomaly);
    expect(() => merge([], [])).toThrow(/empty/);
    expect(() => merge(parts, results.slice(1))).toThrow(/2 results for 3 parts/);
    expect(() => merge([parts[1], parts[0], parts[2]] as RequestPart[], results)).toThrow(/in order/);
    expect(() => merge(parts.slice(0, 2), results.slice(0, 2))).toThrow(/in order/);
    const { mean: _mean, ...withoutMean } = results[2] as ReturnType<typeof fakeAnomaly>;
    expect(() => merge(parts, [results[0], results[1], withoutMean] as typeof results)).toThrow(/other fields/);
    const otherIntervals = { ...(results[1] as ReturnType<typeof fakeAnomaly>), intervals: { "lo-90": [0], "hi-90": [1] } };
    expect(() => merge(parts, [results[0], otherIntervals, results[2]] as typeof results)).toThrow(/intervals must have the keys/);
    const otherModel = results.map((r, i) => ({ ...r, model: i === 2 ? "b" : "a" }));
    expect(() => merge(parts, otherModel)).toThrow(/results\[2\]\.model differs/);
  });
});
