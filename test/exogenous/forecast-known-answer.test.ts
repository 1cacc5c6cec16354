/**
 * The known-answer test through the lead's `runForecast` (network, daily):
 * y = seasonal + 3·x1 − 2·x2 + noise.
 */
import { describe, expect, it } from "vitest";
import { runForecast } from "../../src/forecast/index.js";
import type { ForecastInput, SeriesData } from "../../src/types.js";
import { knownAnswerData, makeSeries } from "./helpers.js";
import { modelSource } from "../../src/finetune/index.js";

const h = 14;
const { ys, X } = knownAnswerData(3, 314, "forecast-known-answer");
const train = makeSeries(
  ys.map((v) => v.slice(0, -h)),
  X.map((f) => f.map((v) => v.slice(0, -h))),
);
const actual = ys.flatMap((v) => v.slice(-h));
const Xfuture = [0, 1].map((k) => Float64Array.from(X.flatMap((f) => (f[k] as number[]).slice(-h))));

function request(series: SeriesData, cleanExFirst: boolean, withFuture: boolean): ForecastInput {
  return {
    series,
    h,
    freq: "D",
    model: "forecastmodel-1",
    levels: [],
    Xfuture: withFuture ? Xfuture : [],
    cleanExFirst,
    histExog: [],
    finetune: { steps: 0, loss: "default", depth: 1 },
    finetuned: null,
    multivariate: false,
    modelParameters: null,
  };
}

const mae = (a: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs((a[i] as number) - (actual[i] as number));
  return s / a.length;
};

describe("known answer via runForecast (network)", () => {
  const withoutX = runForecast(request({ ...train, X: [] }, true, false), modelSource(request({ ...train, X: [] }, true, false)));

  it("clean_ex_first=true: weights_x (weightsX) recovers 3 and −2 within 5 %, hold-out MAE well below the forecast without X", () => {
    const withX = runForecast(request(train, true, true), modelSource(request(train, true, true)));
    const w = withX.weightsX as Float64Array;
    expect(Math.abs((w[0] as number) - 3) / 3).toBeLessThan(0.05);
    expect(Math.abs((w[1] as number) + 2) / 2).toBeLessThan(0.05);
    expect(mae(withX.mean)).toBeLessThan(0.5 * mae(withoutX.mean));
  });

  it("clean_ex_first=false: X fitted on the model's calibration residuals lowers the hold-out MAE", () => {
    const withX = runForecast(request(train, false, true), modelSource(request(train, false, true)));
    expect(withX.weightsX?.length).toBe(2);
    expect(mae(withX.mean)).toBeLessThan(0.8 * mae(withoutX.mean));
  });
});
