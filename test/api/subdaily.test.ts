/**
 * Sub-daily frequencies wherever a frequency is accepted (issue 26, item 1):
 * the bodies of the core functions and of the HTTP API, GET /model_params,
 * the records API's and the older form's inference from timestamps; an alias
 * outside the list is a 422 naming the field and listing what is accepted.
 * The six classes keep their table byte for byte.
 */
import { describe, expect, it } from "vitest";
import seedrandom from "seedrandom";
import {
  detectAnomaliesOnline,
  detectAnomaliesRecords,
  forecast,
  forecastRecords,
  historicForecast,
  historicForecastRecords,
  type AnomalyRequest,
  type ForecastRequest,
  type RecordRow,
} from "../../src/api/index.js";
import { prepareLegacySeries, formatLegacyTimestamp } from "../../src/api/legacy.js";
import { UNLIMITED, validateEndpointBody } from "../../src/api/requests.js";
import { horizonWarning, modelParams, MODEL_NAMES } from "../../src/model/index.js";
import type { Freq } from "../../src/types.js";
import { KEY_A, bearer, get, post, testService, validationDetail } from "./helpers.js";

const ALIASES: [string, string][] = [
  ["s", "s"], ["S", "s"], ["30s", "30s"], ["min", "min"], ["T", "min"], ["5min", "5min"], ["10min", "10min"], ["15min", "15min"],
  ["30min", "30min"], ["15T", "15min"], ["h", "H"], ["H", "H"], ["2h", "2h"], ["3h", "3h"], ["6h", "6h"], ["12h", "12h"],
  ["D", "D"], ["W", "W"], ["W-SUN", "W"], ["M", "M"], ["MS", "M"], ["ME", "M"],
];
const CORE_ONLY: [string, string][] = [["Q", "Q"], ["QS-DEC", "Q"], ["QE-MAR", "Q"], ["Y", "Y"], ["YS", "Y"], ["A", "Y"], ["AS-JUN", "Y"]];
const REFUSED = ["7min", "m", "5x", "0min", "-5min", "1.5h", "", "2D", "MONTHLY"];

const tiny = { y: [1, 2, 3, 4, 5, 6], sizes: [6] };
const bodies = {
  forecast: { series: tiny, h: 2 },
  anomaly: { series: tiny, h: 1, detection_size: 1 },
  historic: { series: tiny },
  finetune: { series: tiny },
} as const;

/** A seeded 5-minute-like series: a daily cycle of `perDay` steps, noise, a level. */
function subDaily(n: number, perDay: number, seed: string): number[] {
  const u = seedrandom(seed);
  return Array.from({ length: n }, (_, t) => Math.round((50 + 10 * Math.sin((2 * Math.PI * t) / perDay) + 2 * (u() - 0.5)) * 1000) / 1000);
}

describe("bodies: every accepted alias, canonical after validation", () => {
  for (const endpoint of ["forecast", "anomaly", "historic", "finetune"] as const) {
    it(`${endpoint}: the HTTP API and the core functions read each alias to its canonical name`, () => {
      for (const [alias, name] of ALIASES) {
        expect(validateEndpointBody(endpoint, { ...bodies[endpoint], freq: alias }, { core: false, limits: UNLIMITED }).freq).toBe(name);
        expect(validateEndpointBody(endpoint, { ...bodies[endpoint], freq: alias }, { core: true, limits: UNLIMITED }).freq).toBe(name);
      }
      for (const [alias, name] of CORE_ONLY) expect(validateEndpointBody(endpoint, { ...bodies[endpoint], freq: alias }, { core: true, limits: UNLIMITED }).freq).toBe(name);
    });

    it(`${endpoint}: an alias outside the list is one literal_error at body.freq that says why and lists what is accepted`, () => {
      for (const core of [false, true]) {
        for (const alias of [...REFUSED, 5, null]) {
          const items = validationDetail(() => validateEndpointBody(endpoint, { ...bodies[endpoint], freq: alias }, { core, limits: UNLIMITED }));
          expect(items).toHaveLength(1);
          const item = items[0]!;
          expect(item.type).toBe("literal_error");
          expect(item.loc).toEqual(["body", "freq"]);
          expect(item.msg).toMatch(/^Input should be a supported frequency: .+; accepted: H \(or h\), D, W .*5min.*/);
          expect(item.ctx).toEqual({ expected: expect.stringContaining("sub-daily steps <k>s (or <k>S), <k>min (or <k>T), <k>h (or <k>H)") });
          expect(item.msg.includes("Q (or QS")).toBe(core);
        }
      }
    });
  }

  it("the reason names the rule: a step that does not divide a day, a multiple that is not a positive integer, a core-only frequency", () => {
    const msg = (freq: unknown, core = false) => validationDetail(() => validateEndpointBody("forecast", { ...bodies.forecast, freq }, { core, limits: UNLIMITED }))[0]!.msg;
    expect(msg("7min")).toContain("'7min' is a step of 420 s, which does not divide a day (86400 s) evenly");
    expect(msg("0min")).toContain("must be a positive integer, not 0");
    expect(msg("-5min")).toContain("must be a positive integer, not -5");
    expect(msg("1.5h")).toContain("must be a positive integer, not 1.5");
    expect(msg("QS-DEC")).toContain("'QS-DEC' is quarterly, which only the core functions accept");
    expect(msg("5x", true)).toContain("'5x' is not a frequency alias");
  });

  it("over HTTP: 200 for 5min, 422 for 7min", async () => {
    const service = testService();
    const ok = await service.handle(post("/v2/forecast", { series: tiny, h: 2, freq: "5min" }));
    expect(ok.status).toBe(200);
    const refused = await service.handle(post("/v2/online_anomaly_detection", { series: tiny, h: 1, detection_size: 1, freq: "7min" }));
    expect(refused.status).toBe(422);
    expect((refused.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["body", "freq"]);
  });

  it("every route that takes a freq: 5min answered, 7min a 422 at body.freq", async () => {
    const series = { y: subDaily(200, 288, "routes"), sizes: [200] };
    const routes: [string, Record<string, unknown>][] = [
      ["/v2/forecast", { series, h: 2 }],
      ["/v2/forecast/async", { series, h: 2 }],
      ["/v2/online_anomaly_detection", { series, h: 2, detection_size: 4 }],
      ["/v2/historic_forecast", { series }],
      ["/v2/anomaly_detection", { series, level: 99 }],
      ["/v2/cross_validation", { series, h: 2, n_windows: 2 }],
      ["/v2/cross_validation/async", { series, h: 2, n_windows: 2 }],
      ["/v2/finetune", { series, finetune_steps: 1 }],
      ["/v2/finetune/async", { series, finetune_steps: 1 }],
    ];
    const service = testService();
    for (const [path, body] of routes) {
      const ok = await service.handle(post(path, { ...body, freq: "5min" }));
      expect([path, ok.status]).toEqual([path, 200]);
      const refused = await service.handle(post(path, { ...body, freq: "7min" }));
      expect([path, refused.status]).toEqual([path, 422]);
      const item = (refused.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]!;
      expect(item.loc).toEqual(["body", "freq"]);
      expect(item.msg).toContain("accepted: H (or h)");
    }
  });

  it("typed bodies take the aliases at compile time", () => {
    const a: ForecastRequest = { series: tiny, freq: "5min", h: 1 };
    const b: ForecastRequest = { series: tiny, freq: "MS", h: 1 };
    const c: AnomalyRequest = { series: tiny, freq: "15T", h: 1, detection_size: 1 };
    const d: Freq[] = ["s", "30s", "min", "T", "h", "2h", "12h", "W-SUN", "QS-DEC", "YS", "A-JUN"];
    // @ts-expect-error: "MONTHLY" is no frequency
    const e: Freq = "MONTHLY";
    expect([a.freq, b.freq, c.freq, d.length, e]).toEqual(["5min", "MS", "15T", 11, "MONTHLY"]);
  });
});

describe("the network's parameters", () => {
  it("the six classes keep today's table exactly", () => {
    const table: Record<string, Record<string, [number, number, number]>> = {
      "forecastmodel-1": { H: [96, 24, 24], D: [96, 14, 7], W: [96, 13, 52], M: [96, 18, 12], Q: [96, 8, 4], Y: [96, 6, 1] },
      "forecastmodel-1-long-horizon": { H: [192, 48, 24], D: [192, 28, 7], W: [192, 104, 52], M: [192, 24, 12], Q: [192, 8, 4], Y: [192, 8, 1] },
      "forecastmodel-2.1": { H: [96, 24, 24], D: [96, 14, 7], W: [96, 13, 52], M: [96, 18, 12], Q: [96, 8, 4], Y: [96, 6, 1] },
      // issue 30's network: a week of context, 48 steps (two days of hours) directly, the day as its season
      "forecastmodel-1-high-frequency": { H: [168, 48, 24], D: [168, 14, 7], W: [168, 13, 52], M: [168, 18, 12], Q: [168, 8, 4], Y: [168, 6, 1] },
    };
    for (const model of MODEL_NAMES) {
      for (const [freq, [inputSize, horizon, seasonLength]] of Object.entries(table[model]!)) {
        expect(modelParams(model, freq as Freq)).toEqual({ inputSize, horizon, seasonLength });
      }
    }
  });

  it("sub-daily: the hourly horizon; as season its steps per day when the network knows that season, else 1", () => {
    const season = (freq: Freq) => modelParams("forecastmodel-1", freq).seasonLength;
    expect([season("2h"), season("6h"), season("60min"), season("h")]).toEqual([12, 4, 24, 24]);
    expect([season("3h"), season("12h"), season("30min"), season("15min"), season("5min"), season("min"), season("s")]).toEqual([1, 1, 1, 1, 1, 1, 1]);
    for (const model of MODEL_NAMES) {
      // the seasons view reads data finer than half-hourly as half-hour means: its native horizon is a day of steps
      expect(modelParams(model, "15min").horizon).toBe(model === "forecastmodel-1-high-frequency" ? 96 : modelParams(model, "H").horizon);
    }
    // the seasons view reads any day of steps from the whole history, and a week beside it
    const hf = (freq: Freq) => modelParams("forecastmodel-1-high-frequency", freq).seasonLength;
    expect([hf("h"), hf("30min"), hf("15min"), hf("5min"), hf("min"), hf("2h")]).toEqual([24, 48, 96, 288, 1440, 12]);
    expect(modelParams("forecastmodel-1", "MS")).toEqual(modelParams("forecastmodel-1", "M"));
    expect(() => modelParams("forecastmodel-1", "7min" as Freq)).toThrow(RangeError);
  });

  it("the horizon warning counts steps for sub-daily data and is unchanged for the six classes", () => {
    expect(horizonWarning("forecastmodel-1", "5min", 24)).toBeNull();
    expect(horizonWarning("forecastmodel-1", "5min", 25)).toContain("(24 steps of 5 minutes for freq 5min with forecastmodel-1)");
    expect(horizonWarning("forecastmodel-1-long-horizon", "15T", 49)).toContain("(48 steps of 15 minutes for freq 15min with forecastmodel-1-long-horizon)");
    expect(horizonWarning("forecastmodel-1", "D", 15)).toBe(
      "The specified horizon h exceeds the model horizon (14 for freq D with forecastmodel-1). This may lead to less accurate forecasts. Please consider using a smaller horizon or the model forecastmodel-1-long-horizon.",
    );
    expect(horizonWarning("forecastmodel-1", "h", 25)).toContain("(24 for freq H with forecastmodel-1)");
  });

  it("GET /model_params answers for 15min, 30s and 2h; 7min is a 422 listing what is accepted", async () => {
    const service = testService();
    for (const [model, freq] of [["forecastmodel-1", "15min"], ["forecastmodel-1-long-horizon", "15min"], ["forecastmodel-2.1", "30s"], ["forecastmodel-1", "2h"]] as const) {
      const res = await service.handle(get(`/model_params?model=${model}&freq=${freq}`));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ detail: { input_size: modelParams(model, freq).inputSize, horizon: modelParams(model, freq).horizon } });
    }
    expect((await service.handle(get("/model_params?model=forecastmodel-1-long-horizon&freq=15min"))).body).toEqual({ detail: { input_size: 192, horizon: 48 } });
    const res = await service.handle(get("/model_params?model=forecastmodel-1&freq=7min"));
    expect(res.status).toBe(422);
    const item = (res.body as { detail: { loc: unknown[]; msg: string }[] }).detail[0]!;
    expect(item.loc).toEqual(["query", "freq"]);
    expect(item.msg).toContain("accepted: H (or h), D");
    expect(item.msg).toContain("5min");
    expect(item.msg).toContain("does not divide a day");
  });
});

describe("records: the frequency inferred from the timestamps", () => {
  const start = Date.UTC(2024, 2, 1, 22, 0, 0);
  const rowsAt = (stepSeconds: number, n: number, id = "m"): RecordRow[] => subDaily(n, 86400 / stepSeconds > 1000 ? 96 : 86400 / stepSeconds, `r${stepSeconds}`).map((y, t) => ({ unique_id: id, ds: new Date(start + t * stepSeconds * 1000), y }));

  it.each([
    [60, "min"],
    [300, "5min"],
    [900, "15min"],
    [30, "30s"],
    [7200, "2h"],
  ] as const)("a spacing of %d s is %s; future Dates step by it", (step, name) => {
    const rows = rowsAt(step, 120);
    const out = forecastRecords(rows, { h: 3 });
    expect(out.rows.map((r) => (r.ds as Date).getTime())).toEqual([1, 2, 3].map((k) => start + (119 + k) * step * 1000));
    // the inferred frequency reached the model: the same forecast as the body with that freq
    const body = forecast({ series: { y: rows.map((r) => r.y), sizes: [120] }, freq: name, h: 3 });
    expect(out.rows.map((r) => r.mean)).toEqual(body.mean);
    // a given freq must agree (any alias of it)
    expect(forecastRecords(rows, { h: 3, freq: name }).rows.map((r) => r.mean)).toEqual(body.mean);
  });

  it("timestamps as strings keep their format; the future crosses midnight", () => {
    const rows = Array.from({ length: 100 }, (_, t) => ({ unique_id: 1, ds: formatLegacyTimestamp(Math.floor(start / 1000) + (t - 98) * 300 + 7200, "datetime"), y: 10 + (t % 7) }));
    expect(rows[99]!.ds).toBe("2024-03-02 00:05:00");
    expect(forecastRecords(rows, { h: 2 }).rows.map((r) => r.ds)).toEqual(["2024-03-02 00:10:00", "2024-03-02 00:15:00"]);
  });

  it("15T given for 15-minute data agrees; a different or unknown freq is a 422 at freq", () => {
    const rows = rowsAt(900, 120);
    expect(forecastRecords(rows, { h: 1, freq: "15T" }).rows).toHaveLength(1);
    const other = validationDetail(() => forecastRecords(rows, { h: 1, freq: "5min" }))[0]!;
    expect(other.loc).toEqual(["freq"]);
    expect(other.msg).toBe("Value error, freq 5min was given, the timestamps are 15min");
    const unknown = validationDetail(() => forecastRecords(rows, { h: 1, freq: "7min" as Freq }))[0]!;
    expect(unknown.loc).toEqual(["freq"]);
    expect(unknown.msg).toContain("does not divide a day");
    expect(unknown.msg).toContain("accepted: H (or h)");
  });

  it("two series of different steps are a 422", () => {
    const rows = [...rowsAt(300, 50, "a"), ...rowsAt(900, 50, "b")];
    expect(validationDetail(() => forecastRecords(rows, { h: 1 }))[0]!.msg).toBe("Value error, series b is 15min, the series before it 5min: every series of a request must have one frequency");
  });

  it("a missing 5-minute step and an irregular one keep their precise errors", () => {
    const rows = rowsAt(300, 60);
    const gapped = rows.filter((_, t) => t !== 20 && t !== 21);
    const gap = validationDetail(() => forecastRecords(gapped, { h: 1 }))[0]!;
    expect(gap.loc).toEqual(["rows", 20, "ds"]);
    expect(gap.msg).toContain("2 missing steps of 5 minutes after");
    expect(gap.msg).toContain("(frequency 5min)");
    // row 30 a minute late and row 31 left out: spacings of 6 and 9 minutes, the smallest spacing stays 5 minutes
    const shifted = rows.map((r, t) => (t === 30 ? { ...r, ds: new Date((r.ds as Date).getTime() + 60_000) } : r)).filter((_, t) => t !== 31);
    const irregular = validationDetail(() => forecastRecords(shifted, { h: 1 }))[0]!;
    expect(irregular.msg).toContain("not a multiple of one step of 5 minutes (frequency 5min)");
  });

  it("anomaly detection and the historic forecast on 5-minute records", () => {
    const rows = rowsAt(300, 200);
    const anomalies = detectAnomaliesRecords(rows.map((r, t) => (t === 199 ? { ...r, y: 500 } : r)), { h: 4, detection_size: 4 });
    expect(anomalies.rows.map((r) => (r.ds as Date).getTime())).toEqual([196, 197, 198, 199].map((t) => start + t * 300_000));
    expect(anomalies.rows.map((r) => r.anomaly)).toEqual([false, false, false, true]);
    const historic = historicForecastRecords(rows, { level: [80] });
    expect(historic.rows.length).toBeGreaterThan(0);
    expect((historic.rows.at(-1)!.ds as Date).getTime()).toBe(start + 199 * 300_000);
  });
});

describe("the older form: sub-daily inference", () => {
  const base = Math.floor(Date.UTC(2026, 0, 1, 23, 0, 0) / 1000);
  const df = (step: number, n: number) => Array.from({ length: n }, (_, t) => ({ ds: formatLegacyTimestamp(base + t * step, "datetime"), y: 10 + (t % 5) }));

  it.each([
    [60, 60, "min", ["2026-01-02 00:00:00", "2026-01-02 00:01:00"]],
    [300, 12, "5min", ["2026-01-02 00:00:00", "2026-01-02 00:05:00"]],
    [900, 4, "15min", ["2026-01-02 00:00:00", "2026-01-02 00:15:00"]],
    [30, 4, "30s", ["2026-01-01 23:02:00", "2026-01-01 23:02:30"]],
    [1, 4, "s", ["2026-01-01 23:00:04", "2026-01-01 23:00:05"]],
    [7200, 5, "2h", ["2026-01-02 09:00:00", "2026-01-02 11:00:00"]],
    [3600, 4, "H", ["2026-01-02 03:00:00", "2026-01-02 04:00:00"]],
  ] as const)("a spacing of %d s (%d rows) is %s, its future steps by it", (step, n, name, future) => {
    const prepared = prepareLegacySeries(df(step, n), 2);
    expect(prepared.freq).toBe(name);
    expect(prepared.future).toEqual(future);
  });

  it("POST /forecastmodel answers 5-minute rows with 5-minute timestamps", async () => {
    const service = testService();
    const res = await service.handle({ method: "POST", path: "/forecastmodel", headers: { "x-api-key": KEY_A }, body: { df: df(300, 30), h: 3 } });
    expect(res.status).toBe(200);
    expect((res.body as { data: { timestamp: string[] } }).data.timestamp).toEqual(["2026-01-02 01:30:00", "2026-01-02 01:35:00", "2026-01-02 01:40:00"]);
  });

  it("a 7-minute spacing cannot be inferred, and says why", async () => {
    const service = testService();
    const res = await service.handle({ method: "POST", path: "/forecastmodel", headers: { "x-api-key": KEY_A }, body: { df: df(420, 10), h: 1 } });
    expect(res.status).toBe(422);
    const msg = (res.body as { detail: { msg: string }[] }).detail[0]!.msg;
    expect(msg).toContain("the smallest spacing between timestamps is 420 s (7 minutes), which does not divide a day evenly");
    expect(msg).toMatch(/hourly, daily, weekly, monthly$/);
  });

  it("gaps and irregular steps of 5-minute rows name the row", () => {
    const rows = df(300, 20);
    const gap = validationDetail(() => prepareLegacySeries(rows.filter((_, t) => t !== 5), 1))[0]!;
    expect(gap.loc).toEqual(["body", "df", 5, "ds"]);
    expect(gap.msg).toContain("1 missing step of 5 minutes after");
    // row 7 two minutes late and row 8 left out: spacings of 7 and 8 minutes, the smallest spacing stays 5 minutes
    const late = rows.map((r, t) => (t === 7 ? { ...r, ds: formatLegacyTimestamp(base + 7 * 300 + 120, "datetime") } : r)).filter((_, t) => t !== 8);
    expect(validationDetail(() => prepareLegacySeries(late, 1))[0]!.msg).toContain("irregular spacing at df[7].ds");
  });
});

describe("the pipelines on 5-minute data (real model)", () => {
  const n = 400;
  const y = subDaily(n, 288, "five-minutes");

  it("forecasts with intervals around the mean, and warns in steps beyond the native horizon", () => {
    // forecastmodel-1 named: the default at 5min is the high-frequency network, whose native horizon is a day (288 steps)
    expect(forecast({ series: { y, sizes: [n] }, freq: "5min", h: 30, level: [80, 95] }).warnings).toEqual([]);
    const r = forecast({ series: { y, sizes: [n] }, freq: "5min", h: 30, level: [80, 95], model: "forecastmodel-1" });
    expect(r.mean).toHaveLength(30);
    for (let k = 0; k < 30; k++) {
      expect(Number.isFinite(r.mean[k]!)).toBe(true);
      expect(r.intervals!["lo-95"]![k]! <= r.mean[k]! && r.mean[k]! <= r.intervals!["hi-95"]![k]!).toBe(true);
    }
    expect(r.warnings.some((w) => w.includes("24 steps of 5 minutes for freq 5min"))).toBe(true);
    // 5T is the same frequency
    expect(forecast({ series: { y, sizes: [n] }, freq: "5T", h: 30, level: [80, 95], model: "forecastmodel-1" }).mean).toEqual(r.mean);
  });

  it("detects a spike at the last point and flags nothing else of the window", () => {
    const spiked = [...y];
    spiked[n - 1] = 200;
    const r = detectAnomaliesOnline({ series: { y: spiked, sizes: [n] }, freq: "5min", h: 6, detection_size: 12, level: 99 });
    expect(r.anomaly).toEqual([...Array(11).fill(false), true]);
    for (const z of r.anomaly_score) expect(Number.isFinite(z)).toBe(true);
  });

  it("60min is hourly: the same answer as H, seasonal judges included", () => {
    const hourly = subDaily(300, 24, "hourly");
    hourly[299] = 90;
    const body = { series: { y: hourly, sizes: [300] }, h: 4, detection_size: 8, level: 99 };
    expect(detectAnomaliesOnline({ ...body, freq: "60min" })).toEqual(detectAnomaliesOnline({ ...body, freq: "H" }));
  });

  it("the historic forecast runs and gives in-sample values for the points after the first context", () => {
    const r = historicForecast({ series: { y, sizes: [n] }, freq: "5min", level: [90] });
    expect(r.mean.length).toBeGreaterThan(0);
    expect(r.mean.length).toBeLessThanOrEqual(n - modelParams("forecastmodel-1", "5min").inputSize);
    for (const v of r.mean) expect(Number.isFinite(v)).toBe(true);
  });

  it("over HTTP with the real pipelines: 15T anomaly detection answers 200", async () => {
    const { createService } = await import("../../src/api/service.js");
    const service = createService({ accounts: [{ id: "a", apiKeys: ["k"], credits: 1e12, hasPaymentMethod: true }] });
    const res = await service.handle({ method: "POST", path: "/v2/online_anomaly_detection", headers: bearer("k"), body: { series: { y, sizes: [n] }, freq: "15T", h: 4, detection_size: 8 } });
    expect(res.status).toBe(200);
  });
});
