/**
 * `createService({ featureWeights: false })`: the answers of a host that does
 * not report the features' weights (as the hosted API's Python SDK expects)
 * have `weights_x: null`, and every other field is the default host's.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_PIPELINES } from "../../src/api/pipelines.js";
import { KEY_A, bearer, testService } from "./helpers.js";

const sizes = [130, 144];
const n = sizes[0]! + sizes[1]!;
const h = 6;
const promo = Array.from({ length: n }, (_, t) => (t % 9 === 4 ? 1 : 0));
const y = Array.from({ length: n }, (_, t) => 100 + 8 * Math.sin((2 * Math.PI * t) / 7) + 15 * promo[t]! + ((t * 37) % 11) / 5);
const promoFuture = Array.from({ length: sizes.length * h }, (_, j) => (j % 3 === 0 ? 1 : 0));
const series = { y, sizes, X: [promo] };

const reporting = testService({ pipelines: DEFAULT_PIPELINES });
const silent = testService({ pipelines: DEFAULT_PIPELINES, featureWeights: false });
const send = async (service: typeof reporting, path: string, body: unknown) => {
  const res = await service.handle({ method: "POST", path, headers: bearer(KEY_A), body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
};

describe("featureWeights: false", () => {
  const routes: [string, string, Record<string, unknown>][] = [
    ["forecast", "/v2/forecast", { series, X_future: [promoFuture], h, freq: "D", level: [80], feature_contributions: true }],
    ["historic forecast", "/v2/historic_forecast", { series, freq: "D", level: [80] }],
  ];
  it.each(routes)("%s: weights_x is null, every other field as the default host's", async (_name, path, body) => {
    const full = await send(reporting, path, body);
    const without = await send(silent, path, body);
    expect(full.weights_x).not.toBeNull();
    expect(Array.isArray(full.weights_x)).toBe(true);
    expect(without.weights_x).toBeNull();
    expect({ ...without, weights_x: full.weights_x }).toEqual(full);
  });

  it("answers without weights are the same either way (a forecast without features; cross-validation, which reports none)", async () => {
    const plain = { series: { y, sizes }, h, freq: "D", level: [80] };
    expect(await send(silent, "/v2/forecast", plain)).toEqual(await send(reporting, "/v2/forecast", plain));
    const cv = { series, h, n_windows: 2, freq: "D" };
    expect(await send(silent, "/v2/cross_validation", cv)).toEqual(await send(reporting, "/v2/cross_validation", cv));
  });
});
