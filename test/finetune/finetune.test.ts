import { describe, expect, test as vtest } from "vitest";
import { test, fc } from "@fast-check/vitest";
import {
  finetuneModel,
  finetuneParameters,
  finetuneSeed,
  prepareForecaster,
  FINETUNE_DEPTH_FIXED_MODEL_2_1,
} from "../../src/finetune/index.js";
import { applyFinetuned, createNetworkForecaster, depthStart, networkShape, parameterLayout, pretrainedParameters } from "../../src/model/index.js";
import { forecast } from "../../src/api/index.js";
import { finetuneResultJson } from "../../src/api/results.js";
import { validationDetail } from "../api/helpers.js";
import type { FinetuneDepth, FinetunedWeights, LossName, ModelName, ModelSpec, SeriesData } from "../../src/types.js";

function seriesOf(list: readonly number[][]): SeriesData {
  const sizes = Int32Array.from(list.map((s) => s.length));
  const offsets = new Int32Array(list.length + 1);
  for (let i = 0; i < list.length; i++) offsets[i + 1] = (offsets[i] as number) + (sizes[i] as number);
  return { y: Float64Array.from(list.flat()), sizes, offsets, X: [] };
}

function specOf(steps: number, depth: FinetuneDepth = 1, loss: LossName = "default", finetuned: FinetunedWeights | null = null, model: ModelName = "forecastmodel-1"): ModelSpec {
  return { model, freq: "D", finetune: { steps, loss, depth }, finetuned, multivariate: false, modelParameters: null };
}

/** A small, deterministic, non-trivial data set: two weekly-seasonal series of 60 points. */
function weeklyData(shift = 0): SeriesData {
  const a: number[] = [];
  const b: number[] = [];
  for (let t = 0; t < 60; t++) {
    a.push(20 + 5 * Math.sin((2 * Math.PI * t) / 7) + ((t * 7919) % 13) / 13 + shift);
    b.push(100 + t * 0.5 + 10 * Math.cos((2 * Math.PI * t) / 7) + ((t * 104729) % 17) / 17);
  }
  return seriesOf([a, b]);
}

function changedCount(a: Float64Array, b: Float64Array): number {
  let c = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) c++;
  return c;
}

const contextsOf = (s: SeriesData): Float64Array[] =>
  Array.from(s.sizes, (_, i) => s.y.subarray(s.offsets[i] as number, s.offsets[(i + 1) as number] as number));

describe("zero-shot (finetune_steps 0)", () => {
  test.prop([fc.array(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3 })], {
    numRuns: 10,
  })("is exactly the zero-shot forecaster: same forecasts, 0 tokens, no weights", (list) => {
    const series = seriesOf(list);
    const prepared = prepareForecaster(specOf(0, 3, "mse"), series);
    expect(prepared.finetuneWork).toBe(0);
    expect(prepared.weights).toBeNull();
    expect(prepared.warnings).toEqual([]);
    const ctx = contextsOf(series);
    const got = prepared.forecaster.forecast(ctx, 5);
    const want = createNetworkForecaster("forecastmodel-1", "D").forecast(ctx, 5);
    expect(Array.from(got)).toEqual(Array.from(want));
  });

  vtest("with a stored fine-tuned model, 0 steps forecast with exactly its parameters", () => {
    const series = weeklyData();
    const tuned = finetuneParameters(specOf(2, 2), series);
    const prepared = prepareForecaster(specOf(0, 1, "default", tuned.weights), series);
    expect(prepared.weights).toBe(tuned.weights);
    const ctx = contextsOf(series);
    const want = createNetworkForecaster("forecastmodel-1", "D", { params: tuned.params }).forecast(ctx, 7);
    expect(Array.from(prepared.forecaster.forecast(ctx, 7))).toEqual(Array.from(want));
    // and the fine-tuned model really differs from the pretrained one
    const plain = createNetworkForecaster("forecastmodel-1", "D").forecast(ctx, 7);
    expect(Array.from(want)).not.toEqual(Array.from(plain));
  });

  vtest("finetuneModel with 0 steps stores an empty suffix (or the starting model)", () => {
    const series = weeklyData();
    const res = finetuneModel({ ...specOf(0), series });
    expect(res.finetuneWork).toBe(0);
    expect(res.weights.start).toBe(pretrainedParameters("forecastmodel-1").length);
    expect(res.weights.values.length).toBe(0);
    expect(changedCount(applyFinetuned("forecastmodel-1", res.weights), pretrainedParameters("forecastmodel-1"))).toBe(0);
  });
});

describe("what fine-tuning changes", () => {
  vtest("only [depthStart(depth), end) changes; the stored suffix starts there; depth 5 changes more than depth 1", () => {
    const series = weeklyData();
    const base = pretrainedParameters("forecastmodel-1");
    const counts: number[] = [];
    let deepest = base;
    for (const depth of [1, 5] as const) {
      const run = finetuneParameters(specOf(3, depth), series);
      if (depth === 5) deepest = run.params;
      const from = depthStart("forecastmodel-1", depth);
      expect(run.weights?.start).toBe(from);
      expect(run.weights?.values.length).toBe(base.length - from);
      // nothing before the opened suffix moved
      expect(changedCount(run.params.subarray(0, from), base.subarray(0, from))).toBe(0);
      // the stored form reproduces the parameters exactly
      expect(changedCount(applyFinetuned("forecastmodel-1", run.weights), run.params)).toBe(0);
      counts.push(changedCount(run.params, base));
    }
    const [d1, d5] = counts as [number, number];
    expect(d1).toBeGreaterThan(0);
    expect(d5).toBeGreaterThan(d1);
    // depth 5 opens the whole point network: most of its parameters move, in the stem and in every block each depth adds
    const spreadStart = parameterLayout(networkShape("forecastmodel-1")).spreadStart;
    expect(d5).toBeGreaterThan(0.5 * spreadStart);
    for (let depth = 1; depth <= 5; depth++) {
      const from = depthStart("forecastmodel-1", depth as FinetuneDepth);
      const to = depth === 1 ? spreadStart : depthStart("forecastmodel-1", (depth - 1) as FinetuneDepth);
      expect(changedCount(deepest.subarray(from, to), base.subarray(from, to)), `depth ${depth}'s part`).toBeGreaterThan(0.25 * (to - from));
    }
    expect(d1).toBeLessThanOrEqual(base.length - depthStart("forecastmodel-1", 1));
  });

  vtest("the spread head is not tuned: it stays bit-identical and the tuned model's quantiles stay ordered around its median", () => {
    const series = weeklyData();
    const base = pretrainedParameters("forecastmodel-1");
    const spreadStart = parameterLayout(networkShape("forecastmodel-1")).spreadStart;
    for (const depth of [1, 5] as const) {
      const run = finetuneParameters(specOf(3, depth), series);
      expect(changedCount(run.params.subarray(spreadStart), base.subarray(spreadStart))).toBe(0);
      const tuned = createNetworkForecaster("forecastmodel-1", "W", { params: run.params });
      const contexts = [series.y.subarray(series.offsets[0]!, series.offsets[1]!)];
      const dist = tuned.forecastDistribution!(contexts, 13);
      expect(Array.from(dist.mean)).toEqual(Array.from(tuned.forecast(contexts, 13)));
      const G = dist.levels.length;
      for (let r = 0; r < dist.mean.length; r++) {
        for (let j = 0; j < G; j++) {
          expect(dist.below[r * G + j]!).toBeGreaterThan(0);
          if (j > 0) expect(dist.below[r * G + j]!).toBeGreaterThanOrEqual(dist.below[r * G + j - 1]!);
          if (j > 0) expect(dist.above[r * G + j]!).toBeGreaterThanOrEqual(dist.above[r * G + j - 1]!);
        }
      }
    }
  });

  test.prop(
    [
      fc.array(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 3 }),
      fc.constantFrom<FinetuneDepth>(1, 2, 3, 4, 5),
      fc.constantFrom<LossName>("default", "mae", "mse", "rmse", "mape", "smape", "poisson"),
    ],
    { numRuns: 8 },
  )("for any data, depth and loss: nothing before depthStart moves, the stored suffix reproduces the parameters, tokens = steps × series", (list, depth, loss) => {
    const series = seriesOf(list);
    const run = finetuneParameters(specOf(1, depth, loss), series);
    const from = depthStart("forecastmodel-1", depth);
    const base = pretrainedParameters("forecastmodel-1");
    expect(run.weights?.start).toBe(from);
    expect(changedCount(run.params.subarray(0, from), base.subarray(0, from))).toBe(0);
    expect(changedCount(applyFinetuned("forecastmodel-1", run.weights), run.params)).toBe(0);
    expect(run.params.every(Number.isFinite)).toBe(true);
    expect(run.finetuneWork).toBe(list.length);
  });

  vtest("starting from a fine-tuned model keeps its changes and stores the union of both suffixes", () => {
    const series = weeklyData();
    const first = finetuneParameters(specOf(2, 3), series);
    const second = finetuneParameters(specOf(2, 1, "mae", first.weights), series);
    const from3 = depthStart("forecastmodel-1", 3);
    const from1 = depthStart("forecastmodel-1", 1);
    expect(second.weights?.start).toBe(from3);
    // parameters in [depthStart(3), depthStart(1)) are those of the first model, untouched by the second run
    expect(changedCount(second.params.subarray(from3, from1), first.params.subarray(from3, from1))).toBe(0);
    expect(changedCount(second.params.subarray(from1), first.params.subarray(from1))).toBeGreaterThan(0);
    expect(changedCount(applyFinetuned("forecastmodel-1", second.weights), second.params)).toBe(0);
  });

  vtest("finetuneWork = steps × number of series (also for series too short to learn from); the API's tokens follow", () => {
    const series = seriesOf([[1, 2, 3, 4, 5, 6, 7, 8], [5], [2, 4, 6, 8, 10, 12]]);
    expect(prepareForecaster(specOf(4), series).finetuneWork).toBe(12);
    const request = { ...specOf(4), series };
    const res = finetuneModel(request);
    expect(res.finetuneWork).toBe(12);
    const json = finetuneResultJson(res, request);
    expect(json.finetune_tokens).toBe(12);
    expect(json.input_tokens).toBe(15);
    expect(json.output_tokens).toBe(0);
  });
});

describe("determinism", () => {
  vtest("the same request gives identical weights; different data gives different weights", () => {
    const a = finetuneModel({ ...specOf(3, 2), series: weeklyData() });
    const b = finetuneModel({ ...specOf(3, 2), series: weeklyData() });
    expect(b.weights.start).toBe(a.weights.start);
    expect(Buffer.from(b.weights.values.buffer).equals(Buffer.from(a.weights.values.buffer))).toBe(true);
    const c = finetuneModel({ ...specOf(3, 2), series: weeklyData(0.5) });
    expect(changedCount(c.weights.values, a.weights.values)).toBeGreaterThan(0);
  });

  vtest("points after trainLengths cannot influence the fine-tune", () => {
    const s1 = weeklyData();
    const s2 = weeklyData();
    const trainLengths = Int32Array.from([45, 50]);
    // change only the held-out tails
    for (let j = 45; j < 60; j++) s2.y[j] = 1e6;
    for (let j = 60 + 50; j < 120; j++) s2.y[j] = -3;
    const r1 = finetuneParameters(specOf(2), s1, { trainLengths });
    const r2 = finetuneParameters(specOf(2), s2, { trainLengths });
    expect(changedCount(r2.params, r1.params)).toBe(0);
    // but the training part does
    const r3 = finetuneParameters(specOf(2), s1);
    expect(changedCount(r3.params, r1.params)).toBeGreaterThan(0);
  });

  vtest("scaling the data by a power of two gives exactly the same parameters (scale-equivariance)", () => {
    const s = weeklyData();
    const big: SeriesData = { ...s, y: s.y.map((v) => v * 2 ** 40) };
    const r1 = finetuneParameters(specOf(2, 1, "mse"), s);
    const r2 = finetuneParameters(specOf(2, 1, "mse"), big);
    expect(changedCount(r2.params, r1.params)).toBe(0);
    expect(changedCount(r1.params, pretrainedParameters("forecastmodel-1"))).toBeGreaterThan(0);
  });

  vtest("the seed depends on training points only", () => {
    const y = new Float64Array([1, 2, 3, 4]);
    const offsets = Int32Array.from([0, 2, 4]);
    const seed = (yy: Float64Array, tl: number[]) =>
      finetuneSeed({ model: "forecastmodel-1", freq: "D", y: yy, offsets, trainLengths: Int32Array.from(tl) });
    expect(seed(y, [2, 1])).toBe(seed(new Float64Array([1, 2, 3, 9]), [2, 1]));
    expect(seed(y, [2, 1])).not.toBe(seed(new Float64Array([1, 2, 8, 4]), [2, 1]));
    expect(seed(y, [2, 1])).not.toBe(seed(y, [2, 2]));
    expect(() => seed(y, [2, 3])).toThrow(RangeError);
  });
});

describe("every loss and degenerate data", () => {
  for (const loss of ["default", "mae", "mse", "rmse", "mape", "smape", "poisson"] as const) {
    vtest(`${loss}: two steps on data with zeros and negatives give finite parameters`, () => {
      const series = seriesOf([
        [0, 3, 0, 0, 5, 0, 1, 0, 0, 2, 0, 4, 0, 0, 3, 0, 1, 0, 2, 0],
        [-5, -3, -8, -2, -6, -4, -7, -3, -5, -2, -6, -4, -8, -3, -5, -2],
      ]);
      const run = finetuneParameters(specOf(2, 1, loss), series);
      expect(run.params.every(Number.isFinite)).toBe(true);
      expect(run.warnings).toEqual([]);
      expect(changedCount(run.params, pretrainedParameters("forecastmodel-1"))).toBeGreaterThan(0);
    });
  }

  vtest("series too short or constant leave the model unchanged (with a warning when nothing is usable)", () => {
    const base = pretrainedParameters("forecastmodel-1");
    const short = finetuneParameters(specOf(3), seriesOf([[4], [7]]));
    expect(changedCount(short.params, base)).toBe(0);
    expect(short.warnings.join(" ")).toMatch(/no series has at least 2 points/);
    const empty = finetuneParameters(specOf(3), seriesOf([]));
    expect(empty.finetuneWork).toBe(0);
    expect(changedCount(empty.params, base)).toBe(0);
    const constant = finetuneParameters(specOf(3), seriesOf([new Array<number>(30).fill(5)]));
    expect(changedCount(constant.params, base)).toBe(0);
  });

  vtest("huge and tiny values fine-tune to finite parameters", () => {
    for (const factor of [1e300, 1e-300]) {
      const s = weeklyData();
      const run = finetuneParameters(specOf(2, 1, "mse"), { ...s, y: s.y.map((v) => v * factor) });
      expect(run.params.every(Number.isFinite)).toBe(true);
      expect(run.warnings).toEqual([]);
    }
  });

  vtest("forecastmodel-2.1 ignores the depth (documented), with a warning", () => {
    const run = finetuneParameters(specOf(1, 4, "default", null, "forecastmodel-2.1"), weeklyData());
    expect(run.weights?.start).toBe(depthStart("forecastmodel-2.1", FINETUNE_DEPTH_FIXED_MODEL_2_1));
    expect(run.warnings.join(" ")).toMatch(/finetune_depth has no effect for forecastmodel-2.1/);
  });
});

describe("bad input", () => {
  /** The 422 items of a JSON forecast body with these fine-tune fields: the API checks them before any tuning. */
  function apiLocs(fields: Record<string, unknown>): (string | number)[][] {
    const y = Array.from(weeklyData().y);
    return validationDetail(() => forecast({ series: { y, sizes: [y.length] }, freq: "W", h: 1, ...fields } as never)).map((d) => d.loc);
  }
  vtest("bad steps, depth and loss are reported together with their fields", () => {
    const spec = { ...specOf(1), finetune: { steps: 1.5, depth: 7 as FinetuneDepth, loss: "huber" as LossName } };
    expect(() => prepareForecaster(spec, weeklyData())).toThrow(RangeError);
    // every field at once, in the schema's order
    expect(apiLocs({ finetune_steps: 1.5, finetune_depth: 7, finetune_loss: "huber" })).toEqual([
      ["body", "finetune_steps"],
      ["body", "finetune_loss"],
      ["body", "finetune_depth"],
    ]);
    expect(() => prepareForecaster(specOf(-1), weeklyData())).toThrow(/finetune.steps must be an integer >= 0/);
    expect(apiLocs({ finetune_steps: -1 })).toEqual([["body", "finetune_steps"]]);
  });
  vtest("a non-finite training value names its position; one after trainLengths is not read", () => {
    const s = weeklyData();
    s.y[70] = NaN;
    expect(() => finetuneParameters(specOf(1), s)).toThrow(/y\[70\] must be a finite number/);
    const ok = finetuneParameters(specOf(1), s, { trainLengths: Int32Array.from([60, 5]) });
    expect(ok.params.every(Number.isFinite)).toBe(true);
  });
  vtest("a fine-tuned model of another base model is rejected", () => {
    const foreign: FinetunedWeights = { model: "forecastmodel-2.1", start: 0, values: new Float64Array(0) };
    expect(() => prepareForecaster(specOf(0, 1, "default", foreign), weeklyData())).toThrow(/trained from forecastmodel-2.1/);
  });
  vtest("trainLengths of the wrong shape is a RangeError", () => {
    expect(() => prepareForecaster(specOf(1), weeklyData(), { trainLengths: Int32Array.from([5]) })).toThrow(RangeError);
    expect(() => prepareForecaster(specOf(1), weeklyData(), { trainLengths: Int32Array.from([5, 61]) })).toThrow(/trainLengths\[1\]/);
  });
  vtest("inputs are not mutated", () => {
    const s = weeklyData();
    const copy = Array.from(s.y);
    const base = pretrainedParameters("forecastmodel-1").slice();
    const first = finetuneParameters(specOf(1, 2), s);
    const firstValues = Array.from(first.weights?.values ?? []);
    finetuneParameters(specOf(2, 1, "default", first.weights), s);
    expect(Array.from(s.y)).toEqual(copy);
    expect(changedCount(Float64Array.from(first.weights?.values ?? []), Float64Array.from(firstValues))).toBe(0);
    expect(changedCount(pretrainedParameters("forecastmodel-1"), base)).toBe(0);
  });
});
