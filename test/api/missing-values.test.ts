/**
 * Missing values in y (issue 31 item 3), for POST /v2/forecast: null (what
 * the SDK's JSON encoder writes for NaN) and NaN are missing points, filled
 * by `fillMissing` (linear between observed neighbours, the nearest observed
 * value at a series' ends); the interval calibration skips them; no NaN comes
 * out.
 */
import fc from "fast-check";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { SDK_MODEL_ALIASES } from "../../src/api/model-aliases.js";
import { missingObservations } from "../../src/api/requests.js";
import { modelSource } from "../../src/finetune/source.js";
import { runForecast } from "../../src/forecast/index.js";
import { runHistoricForecast } from "../../src/historic/index.js";
import { fillMissing } from "../../src/series/missing.js";
import { KEY_A, bearer, testService } from "./helpers.js";

describe("fillMissing", () => {
  const offsetsOf = (sizes: number[]) => Int32Array.from([0, ...sizes.map((_, i) => sizes.slice(0, i + 1).reduce((a, b) => a + b, 0))]);

  it("known values: linear inside, the nearest observed value at the ends, each series on its own", () => {
    const y = Float64Array.of(9, 1, 9, 9, 4, 9, 9, 9, -3, 9);
    const missing = Uint8Array.of(1, 0, 1, 1, 0, 1, 1, 0, 0, 1);
    expect(fillMissing(y, offsetsOf([6, 4]), missing)).toEqual([]);
    // series 0: [_, 1, _, _, 4, _] -> [1, 1, 2, 3, 4, 4]; series 1: [_, 9, -3, _] -> [9, 9, -3, -3]
    expect(Array.from(y)).toEqual([1, 1, 2, 3, 4, 4, 9, 9, -3, -3]);
  });

  it("a series with no observed point is reported and left as it is; one-point series", () => {
    const y = Float64Array.of(5, 0, 0, 7);
    expect(fillMissing(y, offsetsOf([1, 2, 1]), Uint8Array.of(0, 1, 1, 0))).toEqual([1]);
    expect(Array.from(y)).toEqual([5, 0, 0, 7]);
    expect(() => fillMissing(y, offsetsOf([4]), new Uint8Array(3))).toThrow(RangeError);
  });

  it("huge and tiny magnitudes do not overflow; a constant series stays constant", () => {
    const y = Float64Array.of(1e308, 0, -1e308, 1e-300, 0, 3e-300, 7, 0, 0, 7);
    fillMissing(y, offsetsOf([3, 3, 4]), Uint8Array.of(0, 1, 0, 0, 1, 0, 0, 1, 1, 0));
    expect(y[1]).toBe(0);
    expect(y[4]).toBeCloseTo(2e-300, 310);
    expect(Array.from(y.subarray(6))).toEqual([7, 7, 7, 7]);
  });

  it("observed points never change; every filled point is finite and between the series' observed min and max", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(fc.double({ min: -1e12, max: 1e12, noNaN: true }), fc.boolean()), { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 }),
        (parts) => {
          const sizes = parts.map((p) => p.length);
          const y = Float64Array.from(parts.flat().map(([v]) => v));
          const missing = Uint8Array.from(parts.flat().map(([, m]) => (m ? 1 : 0)));
          const before = Float64Array.from(y);
          const offsets = offsetsOf(sizes);
          const empty = fillMissing(y, offsets, missing);
          parts.forEach((p, i) => {
            const rows = Array.from({ length: p.length }, (_, k) => offsets[i]! + k);
            const observed = rows.filter((t) => missing[t] === 0).map((t) => before[t]!);
            expect(empty.includes(i)).toBe(observed.length === 0);
            if (observed.length === 0) return;
            const lo = Math.min(...observed);
            const hi = Math.max(...observed);
            for (const t of rows) {
              if (missing[t] === 0) expect(y[t]).toBe(before[t]);
              else {
                expect(Number.isFinite(y[t]!)).toBe(true);
                expect(y[t]! >= lo - 1e-9 * Math.abs(lo) && y[t]! <= hi + 1e-9 * Math.abs(hi)).toBe(true);
              }
            }
          });
        },
      ),
    );
  });
});

describe("missingObservations", () => {
  it("finds null and NaN (not strings or infinities) and never modifies the body", () => {
    const body = Object.freeze({ series: Object.freeze({ y: Object.freeze([1, null, "x", Infinity, Number.NaN]), sizes: [5] }) });
    const read = missingObservations(body);
    expect(Array.from(read.missing!)).toEqual([0, 1, 0, 0, 1]);
    expect((read.raw as { series: { y: unknown[] } }).series.y).toEqual([1, 0, "x", Infinity, 0]);
    const clean = { series: { y: [1, 2], sizes: [2] } };
    expect(missingObservations(clean)).toEqual({ raw: clean, missing: null });
  });
});

/** A service with the SDK's pipelines and model aliases, and `send`: a POST to it with key A. */
function sdkService() {
  const service = testService({ pipelines: DEFAULT_PIPELINES, modelAliases: SDK_MODEL_ALIASES });
  const send = (path: string, body: unknown) => service.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });
  return { service, send };
}

/** One monthly series of 144 points (AirPassengers-like: trend and a multiplicative season). */
const AIR_LENGTH = 144;
const airLike = Array.from({ length: AIR_LENGTH }, (_, t) => (110 + 2.5 * t) * (1 + 0.15 * Math.sin((2 * Math.PI * t) / 12)));

describe("POST /v2/forecast with missing values", () => {
  const { send: post } = sdkService();
  const send = (body: unknown) => post("/v2/forecast", body);
  // three monthly series of 120 points (AirPassengers-like: trend and a multiplicative season)
  const sizes = [120, 120, 120];
  const full = sizes.flatMap((n, i) => Array.from({ length: n }, (_, t) => (100 + 2 * t + 30 * i) * (1 + 0.2 * Math.sin((2 * Math.PI * t) / 12))));
  /** y with `share` of its points (seeded positions, each series keeping at least 2) set to null. */
  const withGaps = (share: number): (number | null)[] => {
    const u = seedrandom(`gaps-${share}`);
    const y: (number | null)[] = full.map((v) => (u() < share ? null : v));
    let start = 0;
    for (const n of sizes) {
      let kept = 0;
      for (let t = start; t < start + n; t++) if (y[t] !== null) kept++;
      for (let t = start; kept < 2; t++) if (y[t] === null) ((y[t] = full[t]!), kept++);
      start += n;
    }
    return y;
  };
  const sdkBody = (y: (number | null)[], extra: Record<string, unknown> = {}) => ({
    series: { y, sizes, X: null, X_future: null }, model: "timegpt-2.1", h: 12, freq: "MS", clean_ex_first: true, level: [80, 95],
    finetune_steps: 0, finetune_depth: 1, finetune_loss: "default", finetuned_model_id: null, feature_contributions: false, multivariate: false, ...extra,
  });

  it.each([0.05, 0.3, 0.9])("%s of y missing: 200, every number finite, lo <= mean <= hi, nested levels, a warning counting them", async (share) => {
    const y = withGaps(share);
    const missing = y.filter((v) => v === null).length;
    expect(missing / y.length).toBeGreaterThan(share * 0.7);
    const res = await send(sdkBody(y));
    expect(res.status).toBe(200);
    const body = res.body as { mean: number[]; intervals: Record<string, number[]> };
    expect(body.mean).toHaveLength(36);
    expect(body.mean.every(Number.isFinite)).toBe(true);
    for (const key of ["lo-80", "hi-80", "lo-95", "hi-95"]) expect(body.intervals[key]!.every(Number.isFinite)).toBe(true);
    body.mean.forEach((m, r) => {
      expect(body.intervals["lo-95"]![r]!).toBeLessThanOrEqual(body.intervals["lo-80"]![r]!);
      expect(body.intervals["lo-80"]![r]!).toBeLessThanOrEqual(m);
      expect(m).toBeLessThanOrEqual(body.intervals["hi-80"]![r]!);
      expect(body.intervals["hi-80"]![r]!).toBeLessThanOrEqual(body.intervals["hi-95"]![r]!);
    });
    expect(res.headers.warning).toContain(`${missing} of ${y.length} values of y were missing (null or NaN) and were filled linearly`);
  });

  it("the mean is the forecast of the filled series (the fill rule, applied by the service)", async () => {
    const y = withGaps(0.3);
    const filled = Float64Array.from(y, (v) => v ?? 0);
    fillMissing(filled, Int32Array.of(0, 120, 240, 360), Uint8Array.from(y, (v) => (v === null ? 1 : 0)));
    const gaps = (await send(sdkBody(y, { level: null }))).body as { mean: number[] };
    const direct = (await send(sdkBody(Array.from(filled), { level: null }))).body as { mean: number[] };
    expect(gaps.mean).toEqual(direct.mean);
  });

  it("a series with every value missing is a 422 at its size; infinities and strings stay 422s at their position", async () => {
    const y = [...full.slice(0, 240), ...new Array(120).fill(null)];
    const res = await send(sdkBody(y));
    expect(res.status).toBe(422);
    expect((res.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]).toMatchObject({ loc: ["body", "series", "sizes", 2] });
    const bad = await send({ ...sdkBody(full), series: { y: [...full.slice(0, 359), "x"], sizes } });
    expect((bad.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc.join("."))).toEqual(["body.series.y.359"]);
  });

  it("without nulls nothing changes: no warning, the same answer as before the rule", async () => {
    const res = await send(sdkBody(full));
    expect(res.status).toBe(200);
    expect(res.headers.warning).toBeUndefined();
  });
});

describe("POST /v2/cross_validation with missing values", () => {
  const { send } = sdkService();
  const n = AIR_LENGTH;
  const full = airLike;
  const u = seedrandom("cv-gaps");
  const y: (number | null)[] = full.map((v, t) => (t > 0 && u() < 0.1 ? null : v));
  // the SDK's cross-validation payload (its test_cross_validation_with_missing_values: AirPassengers with NaNs, h 12, 2 windows)
  const cvBody = (values: (number | null)[], level: number[] | null) => ({
    series: { y: values, sizes: [n], X: null }, model: "timegpt-2.1", h: 12, n_windows: 2, step_size: 12, freq: "MS", clean_ex_first: true,
    hist_exog: null, level, finetune_steps: 0, finetune_depth: 1, finetune_loss: "default", finetuned_model_id: null, refit: true, multivariate: false,
  });

  it("answers every window without NaN, with one warning counting the missing points", async () => {
    const res = await send("/v2/cross_validation", cvBody(y, [80]));
    expect(res.status).toBe(200);
    const body = res.body as { mean: number[]; sizes: number[]; intervals: Record<string, number[]> };
    expect(body.sizes).toEqual([24]);
    expect(body.mean.every(Number.isFinite)).toBe(true);
    expect(body.intervals["lo-80"]!.every(Number.isFinite) && body.intervals["hi-80"]!.every(Number.isFinite)).toBe(true);
    const missing = y.filter((v) => v === null).length;
    expect(res.headers.warning).toBe(`299 - "${missing} of ${n} values of y were missing (null or NaN) and were filled linearly between their observed neighbours (the nearest observed value at a series' ends); the intervals are calibrated on observed values only"`);
  });

  it("each window is the forecast of the filled history before its origin", async () => {
    const filled = Float64Array.from(y, (v) => v ?? 0);
    fillMissing(filled, Int32Array.of(0, n), Uint8Array.from(y, (v) => (v === null ? 1 : 0)));
    const cv = (await send("/v2/cross_validation", cvBody(y, null))).body as { mean: number[] };
    for (const [w, origin] of [[0, n - 24], [1, n - 12]] as const) {
      const direct = (await send("/v2/forecast", { series: { y: Array.from(filled.subarray(0, origin)), sizes: [origin] }, freq: "MS", h: 12, model: "timegpt-2.1" })).body as { mean: number[] };
      expect(cv.mean.slice(w * 12, (w + 1) * 12)).toEqual(direct.mean);
    }
  });
});

describe("historical anomaly detection and fine-tuning with missing values", () => {
  const { service, send } = sdkService();
  const n = AIR_LENGTH;
  const full = airLike;
  const u = seedrandom("anomaly-gaps");
  const y: (number | null)[] = full.map((v) => (u() < 0.15 ? null : v));
  y[140] = 5000; // an observed spike, to be flagged
  y[141] = null;

  it("POST /v2/anomaly_detection: 200, no NaN, a missing point is never flagged, an observed spike still is", async () => {
    const res = await send("/v2/anomaly_detection", { series: { y, sizes: [n], X: null }, model: "timegpt-2.1", freq: "MS", level: [99], clean_ex_first: true });
    expect(res.status).toBe(200);
    const body = res.body as { mean: number[]; sizes: number[]; anomaly: boolean[]; intervals: Record<string, number[]> };
    expect(body.mean.every(Number.isFinite)).toBe(true);
    expect(body.intervals["lo-99"]!.every(Number.isFinite)).toBe(true);
    // the rows are the series' last sizes[0] points
    const first = n - body.sizes[0]!;
    let gaps = 0;
    body.anomaly.forEach((flag, r) => {
      if (y[first + r] === null) (gaps++, expect(flag).toBe(false));
    });
    expect(gaps).toBeGreaterThan(0);
    expect(body.anomaly[140 - first]).toBe(true);
  });

  it("POST /v2/online_anomaly_detection: 200, no NaN, a missing point of the window is never flagged (score 0), an observed spike still is; a filled point calibrates nothing", async () => {
    const body = (values: (number | null)[]) => ({ series: { y: values, sizes: [n] }, model: "timegpt-1", freq: "MS", h: 1, detection_size: 12, level: 99 });
    const res = await send("/v2/online_anomaly_detection", body(y));
    expect(res.status).toBe(200);
    const out = res.body as { mean: number[]; idxs: number[]; anomaly: boolean[]; anomaly_score: number[]; accumulated_anomaly_score: number[]; intervals: Record<string, number[]> };
    for (const list of [out.mean, out.anomaly_score, out.accumulated_anomaly_score, out.intervals["lo-99"]!, out.intervals["hi-99"]!]) expect(list.every(Number.isFinite)).toBe(true);
    expect(out.idxs).toEqual(Array.from({ length: 12 }, (_, j) => n - 12 + j));
    let gaps = 0;
    out.idxs.forEach((t, r) => {
      if (y[t] !== null) return;
      gaps++;
      expect(out.anomaly[r]).toBe(false);
      expect(out.anomaly_score[r]).toBe(0);
    });
    expect(gaps).toBeGreaterThan(0);
    expect(out.anomaly[out.idxs.indexOf(140)]).toBe(true);
    const missing = y.filter((v) => v === null).length;
    expect(res.headers.warning).toContain(`${missing} of ${n} values of y were missing (null or NaN)`);
    expect(res.headers.warning).toContain(`${gaps} of the 12 detection rows were missing values`);
    // a huge value at a point marked missing (null) changes nothing: the filled value stands in for it in the
    // contexts, and no score is calibrated on it; the same huge value observed is another story
    const early = y.slice();
    const at = early.findIndex((v, t) => v === null && t < n - 12 && t > 40);
    const same = await send("/v2/online_anomaly_detection", body(early));
    expect(same.body).toEqual(res.body);
    early[at] = 1e6;
    const observed = await send("/v2/online_anomaly_detection", body(early));
    expect(observed.body).not.toEqual(res.body);
  });

  it("POST /v2/historic_forecast: 200, every fitted value and bound finite, the filled points calibrate nothing", async () => {
    const res = await send("/v2/historic_forecast", { series: { y, sizes: [n] }, model: "timegpt-1", freq: "MS", level: [80, 95] });
    expect(res.status).toBe(200);
    const out = res.body as { mean: number[]; intervals: Record<string, number[]> };
    expect(out.mean.length).toBeGreaterThan(0);
    for (const list of [out.mean, ...Object.values(out.intervals)]) expect(list.every(Number.isFinite)).toBe(true);
    expect(res.headers.warning).toContain("values of y were missing (null or NaN)");
  });

  it("POST /v2/finetune and /v2/finetune/async: the model is tuned on the filled series", async () => {
    const sync = await send("/v2/finetune", { series: { y, sizes: [n], X: null }, model: "timegpt-1", freq: "MS", finetune_steps: 1, output_model_id: "gappy" });
    expect(sync.status).toBe(200);
    expect((sync.body as { finetuned_model_id: string }).finetuned_model_id).toBe("gappy");
    const job = await send("/v2/finetune/async", { series: { y, sizes: [n], X: null }, model: "timegpt-1", freq: "MS", finetune_steps: 1, output_model_id: "gappy-2" });
    expect(job.status).toBe(200);
    expect((await service.runJobs()).succeeded).toBe(1);
    const fcst = await send("/v2/forecast", { series: { y, sizes: [n] }, freq: "MS", h: 12, finetuned_model_id: "gappy-2" });
    expect((fcst.body as { mean: number[] }).mean.every(Number.isFinite)).toBe(true);
  });
});

describe("calibration skips the missing points", () => {
  /** A weekly series of 150 days with spikes of 60 inside the calibration windows (the last few weeks, not the very end), and their mask. */
  function spikedSeries() {
    const n = 150;
    const y = Float64Array.from({ length: n }, (_, t) => 50 + 5 * Math.sin((2 * Math.PI * t) / 7) + ((t * 13) % 5) / 5);
    const missing = new Uint8Array(n);
    for (const t of [n - 40, n - 33, n - 26, n - 19, n - 12]) {
      y[t] = y[t]! + 60;
      missing[t] = 1;
    }
    const spec = { freq: "D", levels: [90], model: "forecastmodel-1", finetune: { steps: 0, loss: "default", depth: 1 }, finetuned: null, multivariate: false, modelParameters: null, cleanExFirst: true } as const;
    return { series: { y, sizes: Int32Array.of(n), offsets: Int32Array.of(0, n), X: [] }, missing, spec };
  }
  const width = (r: { intervals: Record<string, ArrayLike<number>> | null }) => {
    let sum = 0;
    for (let k = 0; k < r.intervals!["hi-90"]!.length; k++) sum += r.intervals!["hi-90"]![k]! - r.intervals!["lo-90"]![k]!;
    return sum;
  };

  it("spikes at points marked missing do not widen the intervals; unmarked, they do; the mean is the same", () => {
    const { series, missing, spec } = spikedSeries();
    const base = { ...spec, series, h: 7, Xfuture: [], histExog: [] } as const;
    const marked = runForecast({ ...base, missing }, modelSource(base));
    const unmarked = runForecast(base, modelSource(base));
    expect(Array.from(marked.mean)).toEqual(Array.from(unmarked.mean));
    expect(width(marked)).toBeLessThan(width(unmarked));
    expect(marked.warnings.some((w) => w.startsWith("5 of 150 values of y were missing"))).toBe(true);
  });

  it("historic forecast: the same y with its spikes marked missing keeps its fitted values and gets narrower intervals", () => {
    const { series, missing, spec } = spikedSeries();
    const base = { ...spec, series, featureContributions: false } as const;
    const marked = runHistoricForecast({ ...base, missing }, modelSource(base));
    const unmarked = runHistoricForecast(base, modelSource(base));
    expect(Array.from(marked.mean)).toEqual(Array.from(unmarked.mean));
    expect(width(marked)).toBeLessThan(width(unmarked));
    expect(marked.warnings.some((w) => w.startsWith("5 of 150 values of y were missing"))).toBe(true);
    expect(unmarked.warnings.some((w) => w.includes("were missing"))).toBe(false);
  });
});
