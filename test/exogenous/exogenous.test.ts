import { describe, expect, it } from "vitest";
import { fc, test as fcTest } from "@fast-check/vitest";
import {
  exogenousAfterModel,
  exogenousBeforeModel,
  type ExogenousOutcome,
  type ExogenousPlan,
} from "../../src/exogenous/index.js";
import { ValidationError } from "../../src/api/errors.js";
import { forecast } from "../../src/api/index.js";
import type { Forecaster, SeriesData } from "../../src/types.js";
import { inSampleWindows, knownAnswerData, makeSeries, seasonalMean, seasonalNaive } from "./helpers.js";

/** Runs both phases with a forecaster: in-sample windows (h, after minContext) and h future steps. */
function runBoth(
  series: SeriesData,
  forecaster: Forecaster,
  options: { cleanExFirst: boolean; histExog?: number[]; penalty?: number },
  h: number,
  Xfuture: Float64Array[] | null,
  minContext = 14,
): { plan: ExogenousPlan; out: ExogenousOutcome } {
  const plan = exogenousBeforeModel(series, options);
  const ms = plan.modelSeries;
  const inSample = inSampleWindows(ms, forecaster, h, minContext);
  const contexts = Array.from(ms.sizes, (_, i) => ms.y.subarray(ms.offsets[i] as number, ms.offsets[i + 1] as number));
  const futureModel = forecaster.forecast(contexts, h);
  const out = exogenousAfterModel(plan, {
    inSample,
    future: Xfuture ? { h, model: futureModel, Xfuture } : undefined,
    contributions: true,
  });
  return { plan, out };
}

function relClose(a: number, b: number, rel: number): boolean {
  return Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-300);
}

/** Splits the known-answer data into a training part and the last h rows per series. */
function holdOut(ys: number[][], X: number[][][], h: number) {
  const train = makeSeries(
    ys.map((v) => v.slice(0, -h)),
    X.map((f) => f.map((v) => v.slice(0, -h))),
  );
  const actual = ys.flatMap((v) => v.slice(-h));
  const Xfuture = [0, 1].map((k) => Float64Array.from(X.flatMap((f) => (f[k] as number[]).slice(-h))));
  return { train, actual, Xfuture };
}

const mae = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs((a[i] as number) - (b[i] as number));
  return s / a.length;
};

describe("known answer: y = seasonal + 3·x1 − 2·x2 + noise", () => {
  const h = 14;
  const { ys, X } = knownAnswerData(4, 514);
  const { train, actual, Xfuture } = holdOut(ys, X, h);

  for (const cleanExFirst of [true, false]) {
    it(`clean_ex_first=${cleanExFirst}: weights_x recovers 3 and −2 within 5 %`, () => {
      const { out } = runBoth(train, seasonalMean(7), { cleanExFirst }, h, Xfuture, 98);
      const w = Array.from(out.weightsX as Float64Array);
      expect(Math.abs((w[0] as number) - 3) / 3).toBeLessThan(0.05);
      expect(Math.abs((w[1] as number) + 2) / 2).toBeLessThan(0.05);
    });

    it(`clean_ex_first=${cleanExFirst}: the forecast with X has lower hold-out MAE than without`, () => {
      for (const forecaster of [seasonalNaive(7), seasonalMean(7)]) {
        const { out } = runBoth(train, forecaster, { cleanExFirst }, h, Xfuture, 98);
        const contexts = Array.from(train.sizes, (_, i) => train.y.subarray(train.offsets[i] as number, train.offsets[i + 1] as number));
        const withoutX = forecaster.forecast(contexts, h);
        const maeWith = mae((out.future as { mean: Float64Array }).mean, actual);
        const maeWithout = mae(withoutX, actual);
        // With clean_ex_first=false seasonal naive still carries last season's X noise in its
        // forecast, so only "lower" is promised there; otherwise X removes most of the error.
        const factor = !cleanExFirst && forecaster.name === "seasonal-naive" ? 0.9 : 0.6;
        expect(maeWith).toBeLessThan(factor * maeWithout);
      }
    });
  }

  it("per-series coefficients are on the original feature scale (x1 scaled by 1000 → β1 / 1000)", () => {
    const scaled = X.map((f) => [(f[0] as number[]).map((v) => v * 1000), f[1] as number[]]);
    const a = exogenousBeforeModel(makeSeries(ys, X), { cleanExFirst: true });
    const b = exogenousBeforeModel(makeSeries(ys, scaled), { cleanExFirst: true });
    const wa = exogenousAfterModel(a, {}).weightsX as Float64Array;
    const wb = exogenousAfterModel(b, {}).weightsX as Float64Array;
    expect(relClose(wb[0] as number, (wa[0] as number) / 1000, 1e-9)).toBe(true);
    expect(relClose(wb[1] as number, wa[1] as number, 1e-9)).toBe(true);
  });
});

describe("phase 1", () => {
  it("cleanExFirst removes the centred X part and keeps the level", () => {
    const series = makeSeries([[10, 13, 10, 13]], [[[0, 1, 0, 1]]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: true, penalty: 0 });
    expect(Array.from(plan.modelSeries.y)).toEqual([11.5, 11.5, 11.5, 11.5]);
    expect(plan.modelSeries.X).toEqual([]);
  });

  it("cleanExFirst=false leaves y unchanged and fits nothing yet", () => {
    const series = makeSeries([[10, 13, 10, 13]], [[[0, 1, 0, 1]]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: false });
    expect(plan.modelSeries.y).toBe(series.y);
    expect(plan.fits).toBeNull();
  });

  it("does not mutate its input", () => {
    const series = makeSeries([[1, 2, 4, 3, 5]], [[[1, 0, 2, 1, 3]]]);
    const yCopy = Array.from(series.y);
    const xCopy = Array.from(series.X[0] as Float64Array);
    exogenousBeforeModel(series, { cleanExFirst: true });
    expect(Array.from(series.y)).toEqual(yCopy);
    expect(Array.from(series.X[0] as Float64Array)).toEqual(xCopy);
  });

  it("rejects hist_exog indices that are not features, naming them", () => {
    const series = makeSeries([[1, 2, 3]], [[[1, 2, 4]]]);
    expect(() => exogenousBeforeModel(series, { cleanExFirst: true, histExog: [0, 3] })).toThrow(/histExog\[1\] = 3 is not a feature index/);
    // the API names the index as a 422 item before the pipeline runs
    const body = { series: { y: [1, 2, 3], sizes: [3], X: [[1, 2, 4]] }, freq: "D" as const, h: 1, X_future: [[1]], hist_exog: [0, 3] };
    try {
      forecast(body);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).detail[0]?.loc).toEqual(["body", "hist_exog", 1]);
    }
  });

  it("rejects non-finite features with their position", () => {
    const series = makeSeries([[1, 2, 3]], [[[1, NaN, 4]]]);
    expect(() => exogenousBeforeModel(series, { cleanExFirst: false })).toThrow(/X\[0\]\[1\] must be a finite number/);
    try {
      forecast({ series: { y: [1, 2, 3], sizes: [3], X: [[1, NaN, 4]] }, freq: "D", h: 1, X_future: [[1]] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).detail[0]?.loc).toEqual(["body", "series", "X", 0, 1]);
    }
  });

  it("rejects a feature of the wrong length and a negative penalty (RangeError)", () => {
    const series = { ...makeSeries([[1, 2, 3]]), X: [Float64Array.of(1, 2)] };
    expect(() => exogenousBeforeModel(series, { cleanExFirst: true })).toThrow(RangeError);
    expect(() => exogenousBeforeModel(makeSeries([[1, 2]]), { cleanExFirst: true, penalty: -1 })).toThrow(RangeError);
  });
});

describe("phase 2", () => {
  it("adds the X part back on future rows (doc example)", () => {
    const series = makeSeries([[10, 13, 10, 13]], [[[0, 1, 0, 1]]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: true, penalty: 0 });
    const out = exogenousAfterModel(plan, {
      future: { h: 2, model: Float64Array.of(11.5, 11.5), Xfuture: [Float64Array.of(1, 0)] },
      contributions: true,
    });
    expect(Array.from(out.future?.mean ?? [])).toEqual([13, 10]);
    expect(Array.from(out.weightsX ?? [])).toEqual([3]);
    expect(out.future?.contributions?.map((c) => Array.from(c))).toEqual([
      [1.5, -1.5],
      [11.5, 11.5],
    ]);
  });

  it("cleanExFirst=false: the residual regression's prediction is added (a + β·x)", () => {
    // residuals y − ŷ = 1 + 2·x exactly
    const x = [0, 1, 2, 3, 4, 5];
    const model = [5, 6, 7, 8, 9, 10];
    const y = model.map((m, t) => m + 1 + 2 * (x[t] as number));
    const series = makeSeries([y], [[x]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: false, penalty: 0 });
    const out = exogenousAfterModel(plan, {
      inSample: { rows: Int32Array.from(x.keys()), model: Float64Array.from(model) },
      future: { h: 1, model: Float64Array.of(20), Xfuture: [Float64Array.of(10)] },
      contributions: true,
    });
    expect(out.weightsX?.[0]).toBeCloseTo(2, 12);
    expect(out.fits?.intercepts[0]).toBeCloseTo(1, 12);
    out.inSample?.mean.forEach((m, t) => expect(m).toBeCloseTo(y[t] as number, 10));
    expect(out.future?.mean[0]).toBeCloseTo(20 + 1 + 2 * 10, 10);
  });

  it("cleanExFirst=false without in-sample forecasts: coefficients 0, mean = model, a warning", () => {
    const series = makeSeries([[1, 2, 3]], [[[1, 5, 2]]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: false });
    const out = exogenousAfterModel(plan, { future: { h: 2, model: Float64Array.of(4, 5), Xfuture: [Float64Array.of(9, 9)] } });
    expect(Array.from(out.future?.mean ?? [])).toEqual([4, 5]);
    expect(Array.from(out.weightsX ?? [])).toEqual([0]);
    expect(out.warnings.length).toBe(1);
  });

  it("fitMask restricts the rows the residual regression uses", () => {
    const x = [0, 1, 2, 3, 4, 5];
    const y = [1, 3, 5, 7, 100, -50]; // the last two rows would break the line 1 + 2x
    const series = makeSeries([y], [[x]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: false, penalty: 0 });
    const out = exogenousAfterModel(plan, {
      inSample: { rows: Int32Array.from(x.keys()), model: new Float64Array(6), fitMask: Uint8Array.of(1, 1, 1, 1, 0, 0) },
    });
    expect(out.weightsX?.[0]).toBeCloseTo(2, 12);
    expect(out.inSample?.mean[5]).toBeCloseTo(11, 10);
  });

  it("without features: mean = model, weights_x null, one contribution array (the base)", () => {
    const series = makeSeries([[1, 2, 3]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: true });
    expect(plan.modelSeries).toBe(series);
    const out = exogenousAfterModel(plan, { future: { h: 2, model: Float64Array.of(4, 5), Xfuture: [] }, contributions: true });
    expect(out.weightsX).toBeNull();
    expect(out.future?.contributions?.map((c) => Array.from(c))).toEqual([[4, 5]]);
  });

  it("historical features are carried forward on future rows and lagged in-sample", () => {
    // y_t = 2·x_{t−1} exactly: a historical feature recovers β = 2 through the lag.
    const x = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
    const y = x.map((_, t) => 2 * (x[Math.max(t - 1, 0)] as number));
    const series = makeSeries([y], [[x]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: true, histExog: [0], penalty: 0 });
    expect(plan.fits?.coefficients[0]).toBeCloseTo(2, 12);
    const level = plan.modelSeries.y[0] as number;
    // Future: Xfuture may omit the historical feature; its last value (3) is carried forward.
    const out = exogenousAfterModel(plan, { future: { h: 3, model: new Float64Array(3).fill(level), Xfuture: [] } });
    out.future?.mean.forEach((m) => expect(m).toBeCloseTo(6, 10));
    // In-sample with an origin two rows back: uses x at the origin, not x_{t−1}.
    const out2 = exogenousAfterModel(plan, {
      inSample: { rows: Int32Array.of(9), origins: Int32Array.of(7), model: Float64Array.of(level) },
    });
    expect(out2.inSample?.mean[0]).toBeCloseTo(2 * 6, 10);
  });

  it("accepts X_future with one array per feature (historical ones ignored)", () => {
    const series = makeSeries([[1, 4, 2, 8, 5, 7]], [[[1, 2, 1, 4, 2, 3], [0, 1, 0, 1, 1, 0]]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: true, histExog: [1] });
    const model = Float64Array.of(3, 3);
    const a = exogenousAfterModel(plan, { future: { h: 2, model, Xfuture: [Float64Array.of(2, 5)] } });
    const b = exogenousAfterModel(plan, { future: { h: 2, model, Xfuture: [Float64Array.of(2, 5), Float64Array.of(99, 99)] } });
    expect(Array.from(b.future?.mean ?? [])).toEqual(Array.from(a.future?.mean ?? []));
  });

  it("rejects X_future of the wrong shape (RangeError; the API reports it as a 422 item first)", () => {
    const series = makeSeries([[1, 4, 2, 8]], [[[1, 2, 1, 4]]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: true });
    const model = Float64Array.of(3, 3);
    expect(() => exogenousAfterModel(plan, { future: { h: 2, model, Xfuture: [] } })).toThrow(RangeError);
    expect(() => exogenousAfterModel(plan, { future: { h: 2, model, Xfuture: [Float64Array.of(1)] } })).toThrow(RangeError);
    expect(() => exogenousAfterModel(plan, { future: { h: 2, model, Xfuture: [Float64Array.of(1, Infinity)] } })).toThrow(RangeError);
    for (const X_future of [[], [[1]], [[1, Infinity]]]) {
      expect(() => forecast({ series: { y: [1, 4, 2, 8], sizes: [4], X: [[1, 2, 1, 4]] }, freq: "D", h: 2, X_future })).toThrow(ValidationError);
    }
    expect(() => exogenousAfterModel(plan, { future: { h: 2, model: Float64Array.of(1), Xfuture: [Float64Array.of(1, 1)] } })).toThrow(RangeError);
  });

  it("rejects rows outside y and origins outside the row's series (RangeError)", () => {
    const series = makeSeries([[1, 2, 3], [4, 5, 6]], [[[1, 0, 1]], [[0, 1, 1]]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: false });
    expect(() => exogenousAfterModel(plan, { inSample: { rows: Int32Array.of(6), model: Float64Array.of(1) } })).toThrow(RangeError);
    expect(() => exogenousAfterModel(plan, { inSample: { rows: Int32Array.of(4), origins: Int32Array.of(2), model: Float64Array.of(1) } })).toThrow(RangeError);
  });
});

describe("degenerate data", () => {
  it("one-point and empty fitted sets: coefficients 0, the series unchanged", () => {
    const series = makeSeries([[5], [1, 2, 4]], [[[7]], [[1, 1, 1]]]);
    const plan = exogenousBeforeModel(series, { cleanExFirst: true });
    expect(Array.from(plan.modelSeries.y)).toEqual([5, 1, 2, 4]);
    expect(Array.from(plan.fits?.coefficients ?? [])).toEqual([0, 0]);
    const out = exogenousAfterModel(plan, { future: { h: 1, model: Float64Array.of(5, 3), Xfuture: [Float64Array.of(100, -100)] } });
    expect(Array.from(out.future?.mean ?? [])).toEqual([5, 3]);
    expect(Array.from(out.weightsX ?? [])).toEqual([0]);
  });

  for (const scale of [1e-200, 1e200, 1e300]) {
    it(`values at scale ${scale}: finite, exact up to rounding, contributions sum to mean`, () => {
      const x = [0, 1, 0, 1, 2, 0];
      const y = x.map((v, t) => scale * (10 + 3 * v + (t % 2) * 1e-3));
      const series = makeSeries([y], [[x.map((v) => v * scale)]]);
      for (const cleanExFirst of [true, false]) {
        const { out } = runBoth(series, seasonalNaive(1), { cleanExFirst }, 2, [Float64Array.of(scale, 0)], 2);
        for (const block of [out.inSample, out.future]) {
          block?.mean.forEach((m, j) => {
            expect(Number.isFinite(m)).toBe(true);
            const sum = (block.contributions as Float64Array[]).reduce((a, c) => a + (c[j] as number), 0);
            expect(Math.abs(sum - m)).toBeLessThanOrEqual(1e-9 * Math.abs(m));
          });
        }
        if (cleanExFirst) expect(relClose(out.weightsX?.[0] as number, 3, 1e-3)).toBe(true);
      }
    });
  }
});

// ---- properties --------------------------------------------------------------

const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
/** 1–3 series of 16–40 points with 0–3 features (some possibly constant). */
const dataArb = fc
  .record({
    lengths: fc.array(fc.integer({ min: 16, max: 40 }), { minLength: 1, maxLength: 3 }),
    features: fc.integer({ min: 0, max: 3 }),
    seed: fc.integer(),
  })
  .chain(({ lengths, features, seed }) => {
    const total = lengths.reduce((a, b) => a + b, 0);
    return fc.record({
      lengths: fc.constant(lengths),
      y: fc.array(finite, { minLength: total, maxLength: total }),
      X: fc.array(
        fc.oneof(fc.array(finite, { minLength: total, maxLength: total }), finite.map((c) => new Array<number>(total).fill(c))),
        { minLength: features, maxLength: features },
      ),
      Xf: fc.array(fc.array(finite, { minLength: lengths.length * 4, maxLength: lengths.length * 4 }), { minLength: features, maxLength: features }),
      cleanExFirst: fc.boolean(),
      hist: fc.boolean(),
      seed: fc.constant(seed),
    });
  });

function toSeries(d: { lengths: number[]; y: number[]; X: number[][] }): SeriesData {
  const sizes = Int32Array.from(d.lengths);
  const offsets = new Int32Array(sizes.length + 1);
  for (let i = 0; i < sizes.length; i++) offsets[i + 1] = (offsets[i] as number) + (sizes[i] as number);
  return { y: Float64Array.from(d.y), sizes, offsets, X: d.X.map((f) => Float64Array.from(f)) };
}

describe("properties", () => {
  fcTest.prop([dataArb], { numRuns: 60 })("contributions sum to mean (1e-9 relative) in both blocks", (d) => {
    const series = toSeries(d);
    const histExog = d.hist && d.X.length > 0 ? [0] : [];
    const { out } = runBoth(series, seasonalNaive(3), { cleanExFirst: d.cleanExFirst, histExog }, 4, d.Xf.map((f) => Float64Array.from(f)), 4);
    for (const block of [out.inSample, out.future]) {
      const contributions = block?.contributions as Float64Array[];
      expect(contributions.length).toBe(d.X.length + 1);
      block?.mean.forEach((m, j) => {
        let sum = 0;
        let scale = 0;
        for (const c of contributions) {
          sum += c[j] as number;
          scale = Math.max(scale, Math.abs(c[j] as number));
        }
        expect(Number.isFinite(m)).toBe(true);
        expect(Math.abs(sum - m)).toBeLessThanOrEqual(1e-9 * Math.max(Math.abs(m), scale, 1e-300));
      });
    }
  });

  it("a feature varying only in the subnormal range counts as constant (regression: non-finite mean)", () => {
    const y = new Array<number>(43).fill(0);
    y[39] = 2.1208156473648684e-13;
    y[41] = 8.070047060410951e-28;
    const x0 = new Array<number>(43).fill(0);
    x0[38] = 1e-323;
    const d = { lengths: [16, 27], y, X: [x0, new Array<number>(43).fill(0), new Array<number>(43).fill(0)] };
    const { out } = runBoth(toSeries(d), seasonalNaive(3), { cleanExFirst: false, histExog: [0] }, 4, [0, 1, 2].map(() => new Float64Array(8)), 4);
    for (const block of [out.inSample, out.future]) block?.mean.forEach((m) => expect(Number.isFinite(m)).toBe(true));
  });

  fcTest.prop([dataArb.filter((d) => d.X.length >= 2), fc.integer({ min: 1, max: 5 })], { numRuns: 40 })(
    "permuting the features permutes weights_x and the contribution arrays",
    (d, shift) => {
      const p = d.X.length;
      const perm = Array.from({ length: p }, (_, k) => (k + shift) % p);
      const base = runBoth(toSeries(d), seasonalNaive(3), { cleanExFirst: d.cleanExFirst }, 4, d.Xf.map((f) => Float64Array.from(f)), 4).out;
      const permuted = runBoth(
        toSeries({ ...d, X: perm.map((k) => d.X[k] as number[]) }),
        seasonalNaive(3),
        { cleanExFirst: d.cleanExFirst },
        4,
        perm.map((k) => Float64Array.from(d.Xf[k] as number[])),
        4,
      ).out;
      const close = (a: number, b: number, scale: number) => Math.abs(a - b) <= 1e-7 * scale + 1e-300;
      const wScale = Math.max(1, ...Array.from(base.weightsX as Float64Array, Math.abs));
      perm.forEach((k, j) => expect(close(permuted.weightsX?.[j] as number, base.weightsX?.[k] as number, wScale)).toBe(true));
      for (const key of ["inSample", "future"] as const) {
        const a = base[key]?.contributions as Float64Array[];
        const b = permuted[key]?.contributions as Float64Array[];
        const meanScale = Math.max(1, ...Array.from(base[key]?.mean as Float64Array, Math.abs), ...a.flatMap((c) => Array.from(c, Math.abs)));
        perm.forEach((k, j) => (b[j] as Float64Array).forEach((v, r) => expect(close(v, (a[k] as Float64Array)[r] as number, meanScale)).toBe(true)));
        (b[p] as Float64Array).forEach((v, r) => expect(close(v, (a[p] as Float64Array)[r] as number, meanScale)).toBe(true));
      }
    },
  );

  fcTest.prop([dataArb, finite, fc.nat()], { numRuns: 40 })(
    "adding a constant feature changes nothing but its own zero contribution",
    (d, constant, where) => {
      const at = where % (d.X.length + 1);
      const total = d.y.length;
      const withConst = {
        ...d,
        X: [...d.X.slice(0, at), new Array<number>(total).fill(constant), ...d.X.slice(at)],
        Xf: [...d.Xf.slice(0, at), new Array<number>(d.lengths.length * 4).fill(constant), ...d.Xf.slice(at)],
      };
      const run = (data: typeof d) =>
        runBoth(toSeries(data), seasonalNaive(3), { cleanExFirst: d.cleanExFirst }, 4, data.Xf.map((f) => Float64Array.from(f)), 4).out;
      const a = run(d);
      const b = run(withConst);
      if (d.X.length === 0 && !d.cleanExFirst) {
        // With a feature, cleanExFirst=false adds the mean in-sample residual (the intercept) to the base.
        return;
      }
      expect(b.weightsX?.[at]).toBe(0);
      const weights = Array.from(b.weightsX as Float64Array).filter((_, k) => k !== at);
      expect(weights).toEqual(Array.from(a.weightsX ?? []));
      for (const key of ["inSample", "future"] as const) {
        expect(Array.from(b[key]?.mean as Float64Array)).toEqual(Array.from(a[key]?.mean as Float64Array));
        const cb = b[key]?.contributions as Float64Array[];
        expect(cb[at]?.every((v) => v === 0)).toBe(true);
        const rest = cb.filter((_, k) => k !== at).map((c) => Array.from(c));
        expect(rest).toEqual((a[key]?.contributions as Float64Array[]).map((c) => Array.from(c)));
      }
    },
  );
});
