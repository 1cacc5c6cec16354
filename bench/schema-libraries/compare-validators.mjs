/**
 * Two checkouts' request validation compared on random bodies (issue 32, part 2: the TypeBox + ajv validator must answer
 * exactly as the hand-written one of 7f18031 did): every endpoint's body (core and API frequencies) with fields replaced,
 * dropped or added, the older form's body, and the series reader (typed arrays too). Prints how many answers differ (the
 * 422 items as JSON, or the validated value) and the first few that do.
 *
 *   (build both checkouts with npm run build) node bench/schema-libraries/compare-validators.mjs /path/to/before /path/to/after
 */
import fc from "fast-check";
const load = async (r) => ({ ...(await import(`${r}/dist/src/api/requests.js`)), ...(await import(`${r}/dist/src/api/legacy.js`)), ...(await import(`${r}/dist/src/api/series-input.js`)) });
if (process.argv.length < 4) throw new Error("usage: node compare-validators.mjs /path/to/before /path/to/after");
const A = await load(process.argv[2]), B = await load(process.argv[3]);
const run = (m, f) => { try { return JSON.stringify(f(m)); } catch (e) { return "ERR " + (e.detail !== undefined ? JSON.stringify(e.detail) : String(e)); } };
const anyValue = fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 4 }), fc.constant(null), fc.boolean(), fc.constant([]), fc.constant({}), fc.array(fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.string({ maxLength: 2 }), fc.constant(null)), { maxLength: 4 }), fc.array(fc.array(fc.oneof(fc.double(), fc.string({ maxLength: 1 })), { maxLength: 3 }), { maxLength: 2 }));
const fields = ["series", "freq", "h", "X_future", "level", "model", "clean_ex_first", "finetune_steps", "finetune_loss", "finetune_depth", "finetuned_model_id", "hist_exog", "multivariate", "model_parameters", "feature_contributions", "detection_size", "threshold_method", "step_size", "refit", "output_model_id", "y", "sizes", "X", "df"];
const base = { series: { y: [1, 2, 3, 4, 5, 6], sizes: [3, 3] }, freq: "D", h: 2, detection_size: 1 };
const body = fc.record({
  edits: fc.array(fc.tuple(fc.constantFrom(...fields), anyValue, fc.boolean()), { maxLength: 4 }),
  drop: fc.subarray(["series", "freq", "h", "detection_size"]),
  seriesEdits: fc.array(fc.tuple(fc.constantFrom("y", "sizes", "X", "extra"), anyValue), { maxLength: 3 }),
});
let n = 0, diffs = 0, invalid = 0;
fc.assert(fc.property(body, fc.constantFrom("forecast", "anomaly", "historic", "finetune"), fc.boolean(), ({ edits, drop, seriesEdits }, endpoint, core) => {
  const b = structuredClone(base);
  for (const [k, v, inSeries] of edits) { const t = inSeries && k !== "series" ? b.series : b; if (t !== null && typeof t === "object") t[k] = v; }
  for (const [k, v] of seriesEdits) if (b.series !== null && typeof b.series === "object") b.series[k] = v;
  for (const k of drop) delete b[k];
  const f = (m) => m.validateEndpointBody(endpoint, b, { core, limits: m.DEFAULT_SERVICE_LIMITS });
  const ra = run(A, f), rb = run(B, f);
  n++;
  if (ra.startsWith("ERR")) invalid++;
  const same = ra === rb;
  if (!same) { diffs++; if (diffs <= 5) console.log("DIFF", endpoint, core, JSON.stringify(b), "\n A:", ra.slice(0, 400), "\n B:", rb.slice(0, 400)); }
  return true;
}), { numRuns: 20000, seed: 42 });
// legacy bodies
const legacy = fc.record({ df: fc.oneof(anyValue, fc.array(fc.record({ ds: fc.oneof(fc.constant("2026-01-01"), fc.constant("2026-01-02"), anyValue), y: fc.oneof(fc.double(), anyValue) }, { requiredKeys: [] }), { maxLength: 3 })), h: anyValue }, { requiredKeys: [] });
let ln = 0, ldiff = 0;
fc.assert(fc.property(legacy, (b) => { ln++; const f = (m) => m.readLegacyBody(b, m.DEFAULT_SERVICE_LIMITS); const ra = run(A, f), rb = run(B, f); if (ra !== rb) { ldiff++; if (ldiff <= 3) console.log("LDIFF", JSON.stringify(b), "\n A:", ra.slice(0, 300), "\n B:", rb.slice(0, 300)); } return true; }), { numRuns: 5000, seed: 7 });
// series input (typed arrays too)
let sn = 0, sdiff = 0;
fc.assert(fc.property(fc.record({ y: fc.oneof(anyValue, fc.array(fc.double(), { maxLength: 4 }).map((a) => Float64Array.from(a))), sizes: fc.oneof(anyValue, fc.array(fc.integer({ min: -1, max: 4 }), { maxLength: 3 }).map((a) => Int32Array.from(a))), X: fc.oneof(anyValue, fc.array(fc.array(fc.double(), { maxLength: 4 }).map((a) => Float64Array.from(a)), { maxLength: 2 })) }, { requiredKeys: [] }), fc.option(anyValue), (s, xf) => { sn++; const f = (m) => { const c = m.checkSeriesInput(s, { XFuture: xf ?? undefined, h: 2 }); return c.errors; }; const ra = run(A, f), rb = run(B, f); if (ra !== rb) { sdiff++; if (sdiff <= 3) console.log("SDIFF", JSON.stringify(s), JSON.stringify(xf), "\n A:", ra.slice(0, 300), "\n B:", rb.slice(0, 300)); } return true; }), { numRuns: 5000, seed: 9 });
console.log(`endpoint bodies: ${n} (${invalid} refused by the first checkout), ${diffs} with different answers; legacy: ${ln}, ${ldiff} different; series input: ${sn}, ${sdiff} different`);
