/**
 * The model's parameters are resolved once, where the typed request is built
 * (issue 32 part 4): every typed request of the API carries
 * `modelParams(model, freq)`, and a pipeline given them answers exactly as
 * one that computes them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crossValidationFields } from "../../src/api/cross-validation.js";
import { endpointRequest } from "../../src/api/entry-points.js";
import { UNLIMITED, validateEndpointBody } from "../../src/api/requests.js";
import { finetuneParameters } from "../../src/finetune/index.js";
import { MODEL_NAMES, modelParams } from "../../src/model/index.js";
import { seriesOffsets } from "../../src/series/index.js";
import type { ModelSpec } from "../../src/types.js";

const FREQS = ["H", "D", "W", "M", "5min", "30s", "2h", "15T", "MS"] as const;

describe("model parameters resolved once", () => {
  it("every typed request carries modelParams(model, freq) of its model and canonical freq", () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODEL_NAMES), fc.constantFrom(...FREQS), fc.integer({ min: 1, max: 30 }), (model, freq, h) => {
        const y = Array.from({ length: 3000 }, (_, t) => 10 + (t % 7));
        const series = { y, sizes: [3000] };
        const options = { core: false, limits: UNLIMITED };
        const forecast = endpointRequest("forecast", validateEndpointBody("forecast", { series, freq, h, model }, options), null);
        const expected = modelParams(model, forecast.freq);
        expect(forecast.params).toEqual(expected);
        expect(endpointRequest("anomaly", validateEndpointBody("anomaly", { series, freq, h: 1, detection_size: 1, model }, options), null).params).toEqual(expected);
        expect(endpointRequest("finetune", validateEndpointBody("finetune", { series, freq, model }, options), null).params).toEqual(expected);
        const historic = validateEndpointBody("historic", { series, freq, model }, { ...options, shortSeriesWindow: true });
        expect(endpointRequest("historic", historic, null).params).toEqual(expected);
        expect(crossValidationFields({ series, freq, h, model }, historic, { h, nWindows: 2, stepSize: 1 }, null).params).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it("the served model's parameters when the body names none (the forecast's default model at its freq and h)", () => {
    const series = { y: Array.from({ length: 60 }, (_, t) => t % 5), sizes: [60] };
    const request = endpointRequest("forecast", validateEndpointBody("forecast", { series, freq: "5min", h: 3 }, { core: false, limits: UNLIMITED }), null);
    expect(request.model).toBe("forecastmodel-1-high-frequency");
    expect(request.params).toEqual(modelParams("forecastmodel-1-high-frequency", "5min"));
  });

  it("fine-tuning sub-half-hourly data with the params given tunes exactly as without (half-hour blocks use their own)", () => {
    const y = Float64Array.from({ length: 400 }, (_, t) => 50 + 10 * Math.sin((2 * Math.PI * t) / 288) + (t % 3));
    const series = { y, sizes: Int32Array.of(400), offsets: seriesOffsets([400]), X: [] };
    const spec: ModelSpec = {
      model: "forecastmodel-1-high-frequency",
      freq: "5min",
      finetune: { steps: 2, loss: "mae", depth: 1 },
      finetuned: null,
      multivariate: false,
      modelParameters: null,
    };
    const without = finetuneParameters(spec, series);
    const withParams = finetuneParameters({ ...spec, params: modelParams(spec.model, spec.freq) }, series);
    expect(without.finetuneWork).toBe(2);
    expect(Array.from(withParams.params)).toEqual(Array.from(without.params));
    expect(Array.from(withParams.stepLosses)).toEqual(Array.from(without.stepLosses));
  });
});
