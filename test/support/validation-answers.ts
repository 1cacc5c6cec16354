/**
 * The validation answers of a fixed set of random request bodies (every
 * endpoint, core and API frequencies, fields replaced, dropped or added; the
 * older form's bodies): for each, its 422 items or its validated value, as
 * JSON. Run as a script (`node --import ./test/support/ts-loader.mjs
 * test/support/validation-answers.ts`) it prints them as one JSON line, so a
 * child process with other runtime flags can be compared with the test's own.
 */
import fc from "fast-check";
import { DEFAULT_SERVICE_LIMITS, validateEndpointBody } from "../../src/api/requests.js";
import { readLegacyBody } from "../../src/api/legacy.js";

const anyValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 4 }),
  fc.constant(null),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.string({ maxLength: 2 }), fc.constant(null)), { maxLength: 4 }),
  fc.array(fc.array(fc.oneof(fc.double(), fc.string({ maxLength: 1 })), { maxLength: 3 }), { maxLength: 2 }),
);
const FIELDS = ["series", "freq", "h", "X_future", "level", "model", "clean_ex_first", "finetune_steps", "finetune_loss", "finetune_depth", "finetuned_model_id", "hist_exog", "multivariate", "model_parameters", "feature_contributions", "detection_size", "threshold_method", "step_size", "refit", "output_model_id", "y", "sizes", "X"];
const body = fc.record({
  edits: fc.array(fc.tuple(fc.constantFrom(...FIELDS), anyValue, fc.boolean()), { maxLength: 4 }),
  drop: fc.subarray(["series", "freq", "h", "detection_size"]),
  seriesEdits: fc.array(fc.tuple(fc.constantFrom("y", "sizes", "X", "extra"), anyValue), { maxLength: 3 }),
  endpoint: fc.constantFrom("forecast", "anomaly", "historic", "finetune" as const),
  core: fc.boolean(),
});
const legacy = fc.record({ df: fc.oneof(anyValue, fc.array(fc.record({ ds: fc.oneof(fc.constant("2026-01-01"), fc.constant("2026-01-02"), anyValue), y: fc.oneof(fc.double(), anyValue) }, { requiredKeys: [] }), { maxLength: 3 })), h: anyValue }, { requiredKeys: [] });

/** The answer of one validation: its value or its 422 items, as JSON. */
function answer(run: () => unknown): string {
  try {
    return JSON.stringify(run(), (_k, v: unknown) => (v instanceof Float64Array ? Array.from(v) : v));
  } catch (e) {
    const detail = (e as { detail?: unknown }).detail;
    return `422 ${detail !== undefined ? JSON.stringify(detail) : String(e)}`;
  }
}

/** The answers of `count` endpoint bodies and `count / 4` older-form bodies, drawn with `seed`. */
export function validationAnswers(count: number, seed: number): string[] {
  const out: string[] = [];
  for (const { edits, drop, seriesEdits, endpoint, core } of fc.sample(body, { numRuns: count, seed })) {
    const b: Record<string, unknown> = { series: { y: [1, 2, 3, 4, 5, 6], sizes: [3, 3] }, freq: "D", h: 2, detection_size: 1 };
    for (const [k, v, inSeries] of edits) {
      const target = inSeries && k !== "series" ? b.series : b;
      if (target !== null && typeof target === "object") (target as Record<string, unknown>)[k] = v;
    }
    for (const [k, v] of seriesEdits) if (b.series !== null && typeof b.series === "object") (b.series as Record<string, unknown>)[k] = v;
    for (const k of drop) delete b[k];
    out.push(answer(() => validateEndpointBody(endpoint, b, { core, limits: DEFAULT_SERVICE_LIMITS })));
  }
  for (const b of fc.sample(legacy, { numRuns: Math.ceil(count / 4), seed })) out.push(answer(() => readLegacyBody(b, DEFAULT_SERVICE_LIMITS)));
  return out;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, "/"))) {
  process.stdout.write(`${JSON.stringify(validationAnswers(Number(process.argv[2]), Number(process.argv[3])))}\n`);
}
