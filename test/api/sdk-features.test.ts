/**
 * The hosted API's Python SDK's protocol for exogenous features and for
 * cross-validation without refit (issue 31 item 2), with bodies shaped as its
 * client (`nixtla/nixtla_client.py`) sends them:
 * - POST /v2/forecast carries no `hist_exog`: `series.X` lists the future
 *   features first, `series.X_future` has arrays only for those (null when
 *   none), so the features without future values are historical;
 * - `feature_contributions: true` on POST /v2/forecast answers (features + 1)
 *   arrays of the forecast rows (x columns in X's order, then the base value),
 *   which the client zips with its column names;
 * - POST /v2/cross_validation with `refit: false` and fine-tuning fine-tunes
 *   once, on the oldest window.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { SDK_MODEL_ALIASES } from "../../src/api/model-aliases.js";
import { sdkHistoricalFeatures } from "../../src/api/requests.js";
import { expandCategorical } from "../../src/api/categorical.js";
import { KEY_A, bearer, countingPipelines, sdkForecastBody, testService } from "./helpers.js";

const real = testService({ pipelines: DEFAULT_PIPELINES, modelAliases: SDK_MODEL_ALIASES });
const send = (path: string, body: unknown) => real.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });

// two daily series of 70 and 84 points, a weekly pattern, a future feature (promo) and a historical one (lagged traffic)
const sizes = [70, 84];
const n = sizes[0]! + sizes[1]!;
const h = 5;
const promo = Array.from({ length: n }, (_, t) => (t % 9 === 4 ? 1 : 0));
const traffic = Array.from({ length: n }, (_, t) => 50 + 10 * Math.sin(t / 3));
const y = Array.from({ length: n }, (_, t) => 100 + 8 * Math.sin((2 * Math.PI * t) / 7) + 15 * promo[t]! + 0.2 * traffic[t]! + ((t * 37) % 11) / 5);
const promoFuture = Array.from({ length: sizes.length * h }, (_, j) => (j % 3 === 0 ? 1 : 0));

/** The SDK's forecast payload (`_prepare_forecast`): every field present, nulls for "none", no hist_exog. */
const sdkForecast = (series: Record<string, unknown>, extra: Record<string, unknown> = {}) => sdkForecastBody(series, { model: "timegpt-2.1", h, freq: "D" }, extra);

type Forecast = { mean: number[]; intervals: Record<string, number[]> | null; weights_x: number[] | null; feature_contributions: number[][] | null; output_tokens: number };

describe("historical features marked by fewer X_future arrays (POST /v2/forecast)", () => {
  it("X_future for the first features only: the rest are historical, as with hist_exog", async () => {
    const sdk = await send("/v2/forecast", sdkForecast({ y, sizes, X: [promo, traffic], X_future: [promoFuture] }));
    expect(sdk.status).toBe(200);
    const spec = await send("/v2/forecast", { series: { y, sizes, X: [promo, traffic] }, X_future: [promoFuture], hist_exog: [1], model: "forecastmodel-2.1", h, freq: "D" });
    expect(spec.status).toBe(200);
    expect((sdk.body as Forecast).mean).toEqual((spec.body as Forecast).mean);
    expect((sdk.body as Forecast).weights_x).toEqual((spec.body as Forecast).weights_x);
  });

  it("X_future null (every feature historical) answers as hist_exog listing every feature", async () => {
    const sdk = await send("/v2/forecast", sdkForecast({ y, sizes, X: [traffic], X_future: null }));
    expect(sdk.status).toBe(200);
    const spec = await send("/v2/forecast", { series: { y, sizes, X: [traffic] }, hist_exog: [0], model: "forecastmodel-2.1", h, freq: "D" });
    expect((sdk.body as Forecast).mean).toEqual((spec.body as Forecast).mean);
    expect((sdk.body as Forecast).mean.every(Number.isFinite)).toBe(true);
  });

  it("the rules that stay: a future array of the wrong length, X without any X_future key, and explicit hist_exog with a wrong count are 422s", async () => {
    const loc = async (body: unknown) => {
      const res = await send("/v2/forecast", body);
      expect(res.status).toBe(422);
      return (res.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc.join("."));
    };
    expect(await loc(sdkForecast({ y, sizes, X: [promo, traffic], X_future: [[1, 0]] }))).toEqual(["body.X_future.0"]);
    expect(await loc({ series: { y, sizes, X: [promo] }, h, freq: "D" })).toEqual(["body.X_future"]);
    expect(await loc({ ...sdkForecast({ y, sizes, X: [promo, traffic], X_future: [promoFuture] }), hist_exog: [] })).toEqual(["body.X_future"]);
  });

  it("sdkHistoricalFeatures: with 0 < k < F future arrays (or null) and no hist_exog, hist_exog = [k, …, F − 1]; anything else unchanged; never mutates", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 7 }), fc.boolean(), fc.constantFrom(undefined, null, [0]), (F, k, inside, hist) => {
        const X = Array.from({ length: F }, () => [1, 2]);
        const future = k === 7 ? null : Array.from({ length: k }, () => [3]);
        const series = Object.freeze(inside ? { y: [1, 2], sizes: [2], X, X_future: future } : { y: [1, 2], sizes: [2], X });
        const body = Object.freeze(inside ? { series, h: 1, hist_exog: hist } : { series, h: 1, X_future: future, hist_exog: hist });
        const out = sdkHistoricalFeatures(body) as { hist_exog?: unknown };
        if (hist === undefined || hist === null) {
          if (future === null) expect(out.hist_exog).toEqual(Array.from({ length: F }, (_, j) => j));
          else if (k > 0 && k < F) expect(out.hist_exog).toEqual(Array.from({ length: F - k }, (_, j) => k + j));
          else expect(out).toBe(body);
        } else expect(out).toBe(body);
      }),
    );
  });
});

describe("feature contributions on forecasts (POST /v2/forecast)", () => {
  it("(features + 1) arrays of the forecast rows, in X's order then the base, summing to mean; the mean is unchanged", async () => {
    for (const clean of [true, false]) {
      const body = sdkForecast({ y, sizes, X: [promo, traffic], X_future: [promoFuture] }, { clean_ex_first: clean, level: [80] });
      const withFc = (await send("/v2/forecast", { ...body, feature_contributions: true })).body as Forecast;
      const without = (await send("/v2/forecast", body)).body as Forecast;
      const contributions = withFc.feature_contributions!;
      expect(contributions).toHaveLength(3);
      for (const c of contributions) expect(c).toHaveLength(sizes.length * h);
      withFc.mean.forEach((m, r) => {
        const sum = contributions.reduce((a, c) => a + c[r]!, 0);
        expect(Math.abs(sum - m)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(m)));
      });
      expect(withFc.mean).toEqual(without.mean);
      expect(withFc.intervals).toEqual(without.intervals);
      expect(without.feature_contributions).toBeNull();
      // the contributions are per-row numbers, counted like the other per-row arrays
      expect(withFc.output_tokens - without.output_tokens).toBe(3 * sizes.length * h);
    }
  });

  it("a feature the model ignores contributes 0; the historical feature's contribution uses its last known value", async () => {
    const zero = y.map(() => 0);
    const res = (await send("/v2/forecast", sdkForecast({ y, sizes, X: [zero, traffic], X_future: [new Array(sizes.length * h).fill(0)] }, { feature_contributions: true }))).body as Forecast;
    expect(res.feature_contributions![0]).toEqual(new Array(sizes.length * h).fill(0));
    // the historical feature holds its value at the origin over the horizon: one contribution per series
    const hist = res.feature_contributions![1]!;
    for (let i = 0; i < sizes.length; i++) expect(new Set(hist.slice(i * h, (i + 1) * h)).size).toBe(1);
  });

  it("without features the contributions are null (the SDK asks only when it sends X)", async () => {
    const res = (await send("/v2/forecast", sdkForecast({ y, sizes, X: null, X_future: null }, { feature_contributions: true }))).body as Forecast;
    expect(res.feature_contributions).toBeNull();
  });

  it("feature_contributions must be a boolean", async () => {
    const res = await send("/v2/forecast", sdkForecast({ y, sizes, X: null }, { feature_contributions: "yes" }));
    expect(res.status).toBe(422);
    expect((res.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["body", "feature_contributions"]);
  });
});

describe("cross-validation with refit false and fine-tuning", () => {
  /** The SDK's cross-validation payload (`_prepare_cross_validation`). */
  const sdkCv = (extra: Record<string, unknown>) => ({
    series: { y, sizes, X: null },
    model: "timegpt-1",
    h,
    n_windows: 3,
    step_size: h,
    freq: "D",
    clean_ex_first: true,
    hist_exog: null,
    level: null,
    finetune_steps: 2,
    finetune_depth: 1,
    finetune_loss: "default",
    finetuned_model_id: null,
    refit: false,
    multivariate: false,
    ...extra,
  });

  it("fine-tunes once, on the oldest window; every window forecasts with those weights", async () => {
    const counting = countingPipelines();
    const service = testService({ pipelines: counting.pipelines, modelAliases: SDK_MODEL_ALIASES });
    const res = await service.handle({ method: "POST", path: "/v2/cross_validation", headers: bearer(KEY_A), body: sdkCv({}) });
    expect(res.status).toBe(200);
    expect(counting.finetunes()).toBe(1);
    // the stand-in's fine-tuned forecast is the last value + the steps; its fine-tune work is steps × series, counted once
    const body = res.body as { mean: number[]; idxs: number[]; finetune_tokens: number };
    body.idxs.forEach((row, r) => {
      const series = row < sizes[0]! ? 0 : 1;
      const start = series === 0 ? 0 : sizes[0]!;
      const window = Math.floor((r % (3 * h)) / h);
      const origin = start + sizes[series]! - h - (2 - window) * h;
      expect(body.mean[r]).toBe(y[origin - 1]! + 2);
    });
    expect(body.finetune_tokens).toBe(2 * sizes.length);
    // refit true: no fine-tune call of its own (each window's forecast fine-tunes)
    const refit = await service.handle({ method: "POST", path: "/v2/cross_validation", headers: bearer(KEY_A), body: sdkCv({ refit: true }) });
    expect(refit.status).toBe(200);
    expect(counting.finetunes()).toBe(1);
  });

  it("with the real model: the windows equal forecasts with the model fine-tuned on the oldest window's history", async () => {
    const res = await send("/v2/cross_validation", sdkCv({}));
    expect(res.status).toBe(200);
    const body = res.body as { mean: number[]; finetune_tokens: number };
    expect(body.mean.every(Number.isFinite)).toBe(true);
    const oldest = sizes.map((s) => s - h - 2 * h);
    const history = (w: number) => {
      const cut = oldest.map((o) => o + w * h);
      return { y: [...y.slice(0, cut[0]), ...y.slice(sizes[0]!, sizes[0]! + cut[1]!)], sizes: cut };
    };
    const tuned = await send("/v2/finetune", { series: history(0), freq: "D", model: "timegpt-1", finetune_steps: 2, output_model_id: "cv-once" });
    expect(tuned.status).toBe(200);
    expect(body.finetune_tokens).toBe((tuned.body as { finetune_tokens: number }).finetune_tokens);
    for (let w = 0; w < 3; w++) {
      const direct = (await send("/v2/forecast", { series: history(w), freq: "D", h, finetuned_model_id: "cv-once" })).body as Forecast;
      for (let i = 0; i < sizes.length; i++) {
        expect(body.mean.slice(i * 3 * h + w * h, i * 3 * h + (w + 1) * h)).toEqual(direct.mean.slice(i * h, (i + 1) * h));
      }
    }
  });
});

describe("the SDK's categorical features (series.categorical_exog)", () => {
  // a future categorical feature (the day's kind: three labels) and a historical numeric one, in the SDK's order
  const kinds = ["weekday", "promo", "holiday"];
  const kind = Array.from({ length: n }, (_, t) => kinds[t % 9 === 4 ? 1 : t % 13 === 0 ? 2 : 0]!);
  const kindFuture = Array.from({ length: sizes.length * h }, (_, j) => kinds[j % 3 === 0 ? 1 : 0]!);
  /** The 0/1 rows of a label list for the labels but the first ("holiday" < "promo" < "weekday": "holiday" is the baseline). */
  const oneHot = (labels: string[]) => ["promo", "weekday"].map((k) => labels.map((l) => (l === k ? 1 : 0)));
  const yk = y.map((v, t) => v + (kind[t] === "holiday" ? -20 : 0));

  it("labels are read as 0/1 rows, one per label but the first: the forecast is the one of those rows sent as numbers, and the per-feature arrays fold back", async () => {
    const cat = await send("/v2/forecast", sdkForecast({ y: yk, sizes, X: [kind, traffic], X_future: [kindFuture], categorical_exog: [0] }, { feature_contributions: true }));
    expect(cat.status).toBe(200);
    const numeric = await send("/v2/forecast", sdkForecast({ y: yk, sizes, X: [...oneHot(kind), traffic], X_future: oneHot(kindFuture) }, { feature_contributions: true }));
    expect(numeric.status).toBe(200);
    const a = cat.body as Forecast;
    const b = numeric.body as Forecast;
    expect(a.mean).toEqual(b.mean);
    // one weight per feature sent: the categorical one is the range of its labels' effects (the baseline's is 0)
    expect(a.weights_x).toHaveLength(2);
    const effects = [0, b.weights_x![0]!, b.weights_x![1]!];
    expect(a.weights_x![0]).toBeCloseTo(Math.max(...effects) - Math.min(...effects), 12);
    expect(a.weights_x![1]).toBe(b.weights_x![2]);
    // contributions: the feature's rows summed, then the historical feature, then the base; they still add up to the mean
    expect(a.feature_contributions).toHaveLength(3);
    a.feature_contributions![0]!.forEach((v, r) => expect(v).toBeCloseTo(b.feature_contributions![0]![r]! + b.feature_contributions![1]![r]!, 9));
    a.mean.forEach((m, r) => expect(a.feature_contributions!.reduce((sum, c) => sum + c[r]!, 0)).toBeCloseTo(m, 6));
  });

  it("a label only in the future is the baseline (all zeros); numbers, booleans and null are labels too", async () => {
    const unseen = await send("/v2/forecast", sdkForecast({ y: yk, sizes, X: [kind, traffic], X_future: [kindFuture.map((k) => (k === "promo" ? "new" : k))], categorical_exog: [0] }));
    const baseline = await send("/v2/forecast", sdkForecast({ y: yk, sizes, X: [...oneHot(kind), traffic], X_future: oneHot(kindFuture.map((k) => (k === "promo" ? "holiday" : k))) }));
    expect((unseen.body as Forecast).mean).toEqual((baseline.body as Forecast).mean);
    const codes = await send("/v2/forecast", sdkForecast({ y: yk, sizes, X: [kind.map((k) => kinds.indexOf(k)), traffic], X_future: [kindFuture.map((k) => kinds.indexOf(k))], categorical_exog: [0] }));
    expect(codes.status).toBe(200);
    const mixed = await send("/v2/online_anomaly_detection", { series: { y: yk, sizes, X: [kind.map((k) => (k === "weekday" ? null : k === "promo"))], categorical_exog: [0] }, freq: "D", h: 1, detection_size: 7, level: 99 });
    expect(mixed.status).toBe(200);
  });

  it("historical anomaly detection and cross-validation read them too", async () => {
    // one series of all 154 points: the historic forecast needs 110 per series at D
    const anomaly = await send("/v2/anomaly_detection", { series: { y: yk, sizes: [n], X: [kind], categorical_exog: [0] }, freq: "D", level: [99] });
    expect(anomaly.status).toBe(200);
    expect((anomaly.body as { weights_x: number[] | null }).weights_x).toHaveLength(1);
    // cross-validation: the same windows as the 0/1 rows sent as numbers (a historical categorical feature, then a future numeric one)
    const cv = await send("/v2/cross_validation", { series: { y: yk, sizes, X: [promo, kind], categorical_exog: [1] }, freq: "D", h: 3, n_windows: 2, hist_exog: [1] });
    const cvNumeric = await send("/v2/cross_validation", { series: { y: yk, sizes, X: [promo, ...oneHot(kind)] }, freq: "D", h: 3, n_windows: 2, hist_exog: [1, 2] });
    expect(cv.status).toBe(200);
    expect(cv.body).toEqual(cvNumeric.body);
    const bad = await send("/v2/cross_validation", { series: { y: yk, sizes, X: [kind], categorical_exog: [2] }, freq: "D", h: 3, n_windows: 2, hist_exog: [0] });
    expect((bad.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([["body", "series", "categorical_exog", 0]]);
  });

  it("bad lists and labels are 422s at their place", async () => {
    const at = async (series: Record<string, unknown>) => ((await send("/v2/forecast", sdkForecast(series))).body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);
    expect(await at({ y: yk, sizes, X: [kind], X_future: [kindFuture], categorical_exog: [3] })).toEqual([["body", "series", "categorical_exog", 0]]);
    expect(await at({ y: yk, sizes, X: [kind], X_future: [kindFuture], categorical_exog: [0, 0] })).toEqual([["body", "series", "categorical_exog", 1]]);
    expect(await at({ y: yk, sizes, X: [kind.map((k, t) => (t === 5 ? { k } : k))], X_future: [kindFuture], categorical_exog: [0] })).toEqual([["body", "series", "X", 0, 5]]);
    // labels in a feature not listed as categorical stay a type error at their place
    expect((await at({ y: yk, sizes, X: [kind], X_future: [kindFuture] }))[0]).toEqual(["body", "series", "X", 0, 0]);
  });

  it("an empty list (the SDK without categorical columns) changes nothing", async () => {
    const plain = await send("/v2/forecast", sdkForecast({ y, sizes, X: [promo], X_future: [promoFuture] }));
    const empty = await send("/v2/forecast", sdkForecast({ y, sizes, X: [promo], X_future: [promoFuture], categorical_exog: [] }));
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(plain.body);
  });

  it("expandCategorical: 0/1 rows with at most one 1 per point, one row per label but the first; the input never changes (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", 1, true, null, "c"), { minLength: 1, maxLength: 40 }), (labels) => {
        const body = Object.freeze({ series: Object.freeze({ y: labels.map(() => 1), sizes: [labels.length], X: Object.freeze([Object.freeze(labels)]), categorical_exog: [0] }) });
        const read = expandCategorical(body);
        const rows = (read.raw as { series: { X: number[][] } }).series.X;
        const distinct = new Set(labels.map((l) => JSON.stringify(l) + typeof l)).size;
        expect(rows).toHaveLength(distinct - 1);
        expect(read.groups).toEqual([{ start: 0, count: distinct - 1, categorical: true }]);
        for (let t = 0; t < labels.length; t++) expect(rows.reduce((a, r) => a + r[t]!, 0)).toBeLessThanOrEqual(1);
        expect(body.series.X[0]).toBe(labels);
      }),
    );
  });
});
