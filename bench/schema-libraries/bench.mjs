/**
 * Schema libraries on the forecast body (issue 32, part 2): validation time of a 10^6-value body (1,000 series × 1,000
 * points, bench/validation-bench.ts's data), the error paths of one broken body, and the bundle size of each validator.
 * "checkout" is the schema stage of the checkout given (validateAgainst on API_REQUEST_SCHEMAS.forecast, whichever
 * validator that checkout has: the hand-written one up to 7f18031, TypeBox + ajv since).
 *
 *   npm run build   (in the checkout; then copy bench.mjs and schemas.mjs to a scratch folder outside it, and there)
 *   npm install @sinclair/typebox@0.34 typebox@1 ajv@8 zod@4 esbuild && node bench.mjs /path/to/checkout
 */
import { gzipSync } from "node:zlib";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Compile } from "typebox/compile";
import Ajv from "ajv";
import * as esbuild from "esbuild";
import { typebox1Forecast, typeboxForecast, zodForecast } from "./schemas.mjs";

const repo = process.argv[2];
if (repo === undefined) throw new Error("usage: node bench.mjs /path/to/checkout (built with npm run build)");
const { validateEndpointBody, DEFAULT_SERVICE_LIMITS } = await import(`${repo}/dist/src/api/requests.js`);
const { validateAgainst, ErrorCollector } = await import(`${repo}/dist/src/api/schema-validator.js`);
const { API_REQUEST_SCHEMAS } = await import(`${repo}/dist/src/api/schemas.js`);
const { forecastBenchValues } = await import(`${repo}/dist/bench/bench-data.js`);

const seriesCount = 1000, points = 1000;
const body = { series: { y: Array.from(forecastBenchValues(seriesCount, points)), sizes: new Array(seriesCount).fill(points) }, freq: "H", h: 24, level: [80, 95] };

const tb = typeboxForecast();
const tbCheck = TypeCompiler.Compile(tb);
const tb1 = Compile(typebox1Forecast());
const ajvFirst = new Ajv({ strict: false }).compile(tb);
const ajvAll = new Ajv({ strict: false, allErrors: true }).compile(tb);
const zs = zodForecast();

const cases = {
  "checkout: schema stage (validateAgainst, y packed into a Float64Array)": () => { const e = new ErrorCollector(); validateAgainst(API_REQUEST_SCHEMAS.forecast, body, ["body"], e); if (e.items.length) throw new Error("invalid"); },
  "checkout: validateEndpointBody (limits, schema, rules across fields)": () => validateEndpointBody("forecast", body, { core: false, limits: DEFAULT_SERVICE_LIMITS }),
  "TypeBox 0.34 TypeCompiler .Check": () => { if (!tbCheck.Check(body)) throw new Error("invalid"); },
  "TypeBox 1.x Compile .Check": () => { if (!tb1.Check(body)) throw new Error("invalid"); },
  "ajv 8 compile (first error)": () => { if (!ajvFirst(body)) throw new Error("invalid"); },
  "ajv 8 compile (allErrors)": () => { if (!ajvAll(body)) throw new Error("invalid"); },
  "zod 4 safeParse": () => { if (!zs.safeParse(body).success) throw new Error("invalid"); },
};
const names = Object.keys(cases);
const times = names.map(() => []);
for (let round = 0; round < 23; round++) {
  names.forEach((name, i) => {
    const t0 = process.hrtime.bigint();
    cases[name]();
    if (round >= 3) times[i].push(Number(process.hrtime.bigint() - t0) / 1e6);
  });
}
console.log(`forecast body of ${(seriesCount * points).toLocaleString("en")} values; median ms of 20 interleaved rounds after 3 warm-up\n`);
console.log("| validator | median ms | min ms |\n|---|---|---|");
names.forEach((name, i) => { const t = times[i].sort((a, b) => a - b); console.log(`| ${name} | ${t[10].toFixed(1)} | ${t[0].toFixed(1)} |`); });

// one broken body: a string in y, a negative size, h 0, a level of 120
const bad = structuredClone({ ...body, series: { y: body.series.y.slice(0, 3000), sizes: [1000, 1000, 1000] } });
bad.series.y[1234] = "x"; bad.series.sizes[2] = -1; bad.h = 0; bad.level = [120];
console.log("\nerror items of the broken body (y[1234] = \"x\", sizes[2] = -1, h = 0, level = [120]):");
const e = new ErrorCollector(); validateAgainst(API_REQUEST_SCHEMAS.forecast, bad, ["body"], e);
console.log("checkout:", JSON.stringify(e.items.map((i) => ({ type: i.type, loc: i.loc, msg: i.msg, ctx: i.ctx }))));
console.log("TypeBox 0.34:", JSON.stringify([...tbCheck.Errors(bad)].map((x) => ({ path: x.path, message: x.message }))));
console.log("TypeBox 1.x:", JSON.stringify(tb1.Errors(bad).map((x) => ({ path: x.instancePath, keyword: x.keyword, params: x.params }))));
ajvAll(bad);
console.log("ajv allErrors:", JSON.stringify(ajvAll.errors.map((x) => ({ path: x.instancePath, keyword: x.keyword, message: x.message, params: x.params }))));
const zr = zs.safeParse(bad);
console.log("zod:", JSON.stringify(zr.error.issues.map((x) => ({ path: x.path, code: x.code, message: x.message }))));

// bundle size: each validator of the forecast body, bundled and minified (esbuild), raw and gzip
const entries = {
  checkout: `import { validateAgainst, ErrorCollector } from "${repo}/src/api/schema-validator.ts"; import { API_REQUEST_SCHEMAS } from "${repo}/src/api/schemas.ts"; export const check = (b) => { const e = new ErrorCollector(); validateAgainst(API_REQUEST_SCHEMAS.forecast, b, ["body"], e); return e.items; };`,
  "TypeBox 1.x Compile": `import { Compile } from "typebox/compile"; import { typebox1Forecast } from "./schemas.mjs"; const c = Compile(typebox1Forecast()); export const check = (b) => c.Errors(b);`,
  "TypeBox 0.34 + TypeCompiler": `import { TypeCompiler } from "@sinclair/typebox/compiler"; import { typeboxForecast } from "./schemas.mjs"; const c = TypeCompiler.Compile(typeboxForecast()); export const check = (b) => [...c.Errors(b)];`,
  "TypeBox + ajv": `import Ajv from "ajv"; import { typeboxForecast } from "./schemas.mjs"; const v = new Ajv({ allErrors: true, strict: false }).compile(typeboxForecast()); export const check = (b) => (v(b), v.errors);`,
  "zod 4": `import { zodForecast } from "./schemas.mjs"; const s = zodForecast(); export const check = (b) => s.safeParse(b).error?.issues;`,
};
console.log("\n| bundle (forecast body validator) | minified bytes | gzip bytes |\n|---|---|---|");
for (const [name, contents] of Object.entries(entries)) {
  const out = await esbuild.build({ stdin: { contents, resolveDir: process.cwd(), loader: "ts" }, bundle: true, minify: true, format: "esm", platform: "neutral", mainFields: ["module", "main"], write: false, logLevel: "silent" });
  const bytes = out.outputFiles[0].contents;
  console.log(`| ${name} | ${bytes.length} | ${gzipSync(bytes).length} |`);
}
