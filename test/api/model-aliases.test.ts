/**
 * Model aliases chosen by the host (issue 31 item 1): `createService({
 * modelAliases })` accepts other names for the library's models wherever a
 * request names one, answers with the model's own name, and lists the
 * aliases in the 422 for an unknown name.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApiPipelines } from "../../src/api/pipelines.js";
import { SDK_MODEL_ALIASES, canonicalModelName, modelAliasTable, modelItemsWithAliases, withCanonicalModel } from "../../src/api/model-aliases.js";
import { MODEL_NAMES, modelParams } from "../../src/model/config.js";
import type { ModelName } from "../../src/types.js";
import { fakePipelines, get, post, testService } from "./helpers.js";

const SDK_NAMES = ["timegpt-1", "timegpt-1-long-horizon", "timegpt-2", "timegpt-2-mini", "timegpt-2-pro", "timegpt-2.1"];

/** Stand-in pipelines that record the model each request reached the pipeline with. */
function recordingPipelines(): { pipelines: ApiPipelines; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    pipelines: {
      forecast: (r) => (seen.push(r.model), fakePipelines.forecast(r)),
      anomaly: (r) => (seen.push(r.model), fakePipelines.anomaly(r)),
      historic: (r) => (seen.push(r.model), fakePipelines.historic(r)),
      finetune: (r) => (seen.push(r.model), fakePipelines.finetune(r)),
    },
  };
}

const y = Array.from({ length: 300 }, (_, t) => 10 + (t % 7));
const series = { y, sizes: [300] };
const forecastBody = (model: string) => ({ series, freq: "D", h: 3, model });

type Detail = { type: string; loc: (string | number)[]; msg: string; ctx?: { expected?: string } }[];

describe("the SDK preset", () => {
  it("maps every name the SDK offers, and only onto the library's models", () => {
    expect(Object.keys(SDK_MODEL_ALIASES).sort()).toEqual([...SDK_NAMES].sort());
    for (const model of Object.values(SDK_MODEL_ALIASES)) expect(MODEL_NAMES).toContain(model);
    expect(SDK_MODEL_ALIASES["timegpt-2.1"]).toBe("forecastmodel-2.1"); // the SDK's default
    expect(SDK_MODEL_ALIASES["timegpt-1"]).toBe("forecastmodel-1");
    expect(SDK_MODEL_ALIASES["timegpt-1-long-horizon"]).toBe("forecastmodel-1-long-horizon");
    expect(Object.isFrozen(SDK_MODEL_ALIASES)).toBe(true);
  });
});

describe("modelAliasTable", () => {
  it("refuses an alias that is a model name, an empty alias and a target that is no model", () => {
    expect(() => modelAliasTable({ "forecastmodel-1": "forecastmodel-2.1" })).toThrow(/is a model name of the library/);
    expect(() => modelAliasTable({ "": "forecastmodel-1" })).toThrow(/empty alias/);
    expect(() => modelAliasTable({ fast: "gpt" as ModelName })).toThrow(/modelAliases\['fast'\] = "gpt" is not a model/);
    expect(() => testService({ modelAliases: { fast: "timegpt-1" as ModelName } })).toThrow(RangeError);
  });

  it("reads only own keys (no prototype names)", () => {
    const table = modelAliasTable(SDK_MODEL_ALIASES);
    expect(canonicalModelName("constructor", table)).toBe("constructor");
    expect(canonicalModelName("__proto__", table)).toBe("__proto__");
    expect(canonicalModelName(42, table)).toBe(42);
  });

  it("withCanonicalModel never modifies the body and changes only an aliased model", () => {
    const table = modelAliasTable(SDK_MODEL_ALIASES);
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...SDK_NAMES, ...MODEL_NAMES), fc.string({ maxLength: 12 })), fc.integer(), (model, h) => {
        const body = Object.freeze({ model, h });
        const out = withCanonicalModel(body, table) as { model: unknown; h: number };
        expect(out.h).toBe(h);
        expect(out.model).toBe(Object.hasOwn(SDK_MODEL_ALIASES, model) ? SDK_MODEL_ALIASES[model] : model);
        if (out.model === model) expect(out).toBe(body);
      }),
    );
  });

  it("modelItemsWithAliases rewrites only literal errors at a model field", () => {
    const table = modelAliasTable({ fast: "forecastmodel-1" });
    const items = [
      { type: "literal_error", loc: ["body", "model"], msg: "m", input: "x" },
      { type: "literal_error", loc: ["body", "finetune_loss"], msg: "l", input: "x" },
      { type: "missing", loc: ["query", "model"], msg: "Field required", input: null },
    ];
    const out = modelItemsWithAliases(items, table);
    expect(out[0]!.msg).toBe("Input should be 'forecastmodel-1', 'forecastmodel-1-long-horizon', 'forecastmodel-2.1' or 'forecastmodel-1-high-frequency', or one of this service's aliases: 'fast'");
    expect(out[1]).toBe(items[1]);
    expect(out[2]).toBe(items[2]);
    expect(modelItemsWithAliases(items, modelAliasTable(undefined))).toEqual(items);
  });
});

describe("a service with the SDK preset", () => {
  it.each(SDK_NAMES)("POST /v2/forecast with model %s runs its model and answers as that model named directly", async (alias) => {
    const rec = recordingPipelines();
    const service = testService({ modelAliases: SDK_MODEL_ALIASES, pipelines: rec.pipelines });
    const viaAlias = await service.handle(post("/v2/forecast", forecastBody(alias)));
    const direct = await service.handle(post("/v2/forecast", forecastBody(SDK_MODEL_ALIASES[alias]!)));
    expect(viaAlias.status).toBe(200);
    expect(viaAlias.body).toEqual(direct.body);
    expect(rec.seen).toEqual([SDK_MODEL_ALIASES[alias], SDK_MODEL_ALIASES[alias]]);
  });

  it("the library's own names keep working, unchanged", async () => {
    const plain = testService();
    const aliased = testService({ modelAliases: SDK_MODEL_ALIASES });
    for (const model of MODEL_NAMES) {
      const a = await plain.handle(post("/v2/forecast", forecastBody(model)));
      const b = await aliased.handle(post("/v2/forecast", forecastBody(model)));
      expect(a.status).toBe(200);
      expect(b.body).toEqual(a.body);
    }
  });

  it("every endpoint that names a model accepts an alias: anomaly detection, historic forecast, historical anomalies, cross-validation, sync and async", async () => {
    const rec = recordingPipelines();
    const service = testService({ modelAliases: SDK_MODEL_ALIASES, pipelines: rec.pipelines });
    const model = "timegpt-1-long-horizon";
    const answers = await Promise.all([
      service.handle(post("/v2/online_anomaly_detection", { series, freq: "D", h: 3, detection_size: 3, model })),
      service.handle(post("/v2/historic_forecast", { series, freq: "D", model })),
      service.handle(post("/v2/anomaly_detection", { series, freq: "D", model, level: 99 })),
      service.handle(post("/v2/cross_validation", { series, freq: "D", h: 3, n_windows: 2, model })),
    ]);
    for (const res of answers) expect(res.status).toBe(200);
    const job = await service.handle(post("/v2/cross_validation/async", { series, freq: "D", h: 3, n_windows: 2, model }));
    expect(job.status).toBe(200);
    await service.runJobs();
    const done = await service.handle(get(`/v2/cross_validation/jobs/${(job.body as { job_id: string }).job_id}`));
    expect((done.body as { status: string }).status).toBe("succeeded");
    expect(rec.seen.length).toBeGreaterThan(0);
    expect(new Set(rec.seen)).toEqual(new Set(["forecastmodel-1-long-horizon"]));
  });

  it("fine-tuning with an alias stores the model's own name; the base check compares models", async () => {
    const service = testService({ modelAliases: SDK_MODEL_ALIASES });
    const tuned = await service.handle(post("/v2/finetune", { series, freq: "D", model: "timegpt-1", output_model_id: "m1" }));
    expect(tuned.status).toBe(200);
    const record = await service.handle(get("/v2/finetuned_models/m1"));
    expect((record.body as { model: string }).model).toBe("forecastmodel-1");
    // the SDK fine-tunes a fine-tuned model again naming the same alias (its test_finetune_and_forecast)
    const again = await service.handle(post("/v2/finetune", { series, freq: "D", model: "timegpt-1", finetuned_model_id: "m1", output_model_id: "m2" }));
    expect(again.status).toBe(200);
    expect((await service.handle(get("/v2/finetuned_models/m2"))).body).toMatchObject({ model: "forecastmodel-1", base_model_id: "m1" });
    // the alias and the model's own name are the same model
    for (const model of ["timegpt-1", "forecastmodel-1"]) {
      expect((await service.handle(post("/v2/forecast", { ...forecastBody(model), finetuned_model_id: "m1" }))).status).toBe(200);
    }
    const other = await service.handle(post("/v2/forecast", { ...forecastBody("timegpt-1-long-horizon"), finetuned_model_id: "m1" }));
    expect(other.status).toBe(422);
    expect((other.body as { detail: Detail }).detail[0]!.msg).toBe("Value error, model 'forecastmodel-1-long-horizon' differs from the base model 'forecastmodel-1' of fine-tuned model 'm1'");
    const job = await service.handle(post("/v2/finetune/async", { series, freq: "D", model: "timegpt-2.1", output_model_id: "m3" }));
    expect(job.status).toBe(200);
    await service.runJobs();
    expect((await service.handle(get("/v2/finetuned_models/m3"))).body).toMatchObject({ model: "forecastmodel-2.1" });
  });

  it("GET /model_params with an alias answers its model's parameters", async () => {
    const service = testService({ modelAliases: SDK_MODEL_ALIASES });
    for (const alias of SDK_NAMES) {
      const res = await service.handle(get(`/model_params?model=${encodeURIComponent(alias)}&freq=MS`));
      expect(res.status).toBe(200);
      const p = modelParams(SDK_MODEL_ALIASES[alias]!, "M");
      expect(res.body).toEqual({ detail: { input_size: p.inputSize, horizon: p.horizon } });
    }
  });

  it("an unknown name is a 422 literal_error listing the models and the host's aliases, at body.model and query.model", async () => {
    const service = testService({ modelAliases: SDK_MODEL_ALIASES });
    const expected =
      "'forecastmodel-1', 'forecastmodel-1-long-horizon', 'forecastmodel-2.1' or 'forecastmodel-1-high-frequency', or one of this service's aliases: 'timegpt-1', 'timegpt-1-long-horizon', 'timegpt-2', 'timegpt-2-mini', 'timegpt-2-pro' or 'timegpt-2.1'";
    const body = await service.handle(post("/v2/forecast", forecastBody("timegpt-3")));
    expect(body.status).toBe(422);
    expect((body.body as { detail: Detail }).detail).toEqual([
      { type: "literal_error", loc: ["body", "model"], msg: `Input should be ${expected}`, input: "timegpt-3", ctx: { expected } },
    ]);
    const query = await service.handle(get("/model_params?model=timegpt-3&freq=D"));
    expect(query.status).toBe(422);
    expect((query.body as { detail: Detail }).detail[0]).toMatchObject({ type: "literal_error", loc: ["query", "model"], msg: `Input should be ${expected}` });
    // other fields' errors come in the same answer, unchanged
    const both = await service.handle(post("/v2/forecast", { ...forecastBody("gpt"), h: 0 }));
    expect((both.body as { detail: Detail }).detail.map((d) => d.loc.join("."))).toEqual(["body.h", "body.model"]);
  });

  it("without aliases, the SDK's names are unknown and the 422 lists only the models (as before)", async () => {
    const service = testService();
    const res = await service.handle(post("/v2/forecast", forecastBody("timegpt-2.1")));
    expect(res.status).toBe(422);
    expect((res.body as { detail: Detail }).detail[0]!.msg).toBe("Input should be 'forecastmodel-1', 'forecastmodel-1-long-horizon', 'forecastmodel-2.1' or 'forecastmodel-1-high-frequency'");
  });

  it("a host's own table works the same way (one alias)", async () => {
    const rec = recordingPipelines();
    const service = testService({ modelAliases: { fast: "forecastmodel-1" }, pipelines: rec.pipelines });
    expect((await service.handle(post("/v2/forecast", forecastBody("fast")))).status).toBe(200);
    expect((await service.handle(post("/v2/forecast", forecastBody("timegpt-1")))).status).toBe(422);
    expect(rec.seen).toEqual(["forecastmodel-1"]);
  });
});
