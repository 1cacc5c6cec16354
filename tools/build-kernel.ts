/**
 * Assembles the dense-layer kernel (src/model/kernel/dense.wat, WebAssembly
 * text with 128-bit SIMD) into src/model/kernel/dense-wasm.ts, the module
 * shipped in the package (base64, decoded and compiled on first use).
 *
 *   npm run build:kernel
 *
 * Uses wabt's wat2wasm (the `wabt` npm package, a devDependency): nothing is
 * assembled at install or run time.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import wabtInit from "wabt";

const SOURCE = "src/model/kernel/dense.wat";
const OUT = "src/model/kernel/dense-wasm.ts";

const wabt = await wabtInit();
const text = readFileSync(SOURCE, "utf8");
const module = wabt.parseWat(SOURCE, text, { simd: true });
module.validate();
const { buffer } = module.toBinary({ write_debug_names: false });
module.destroy();
const bytes = Buffer.from(buffer);
const sourceHash = createHash("sha256").update(text).digest("hex").slice(0, 16);
const lines = [
  "// GENERATED FILE: do not edit.",
  `// Made by: npm run build:kernel (tools/build-kernel.ts: wabt ${"1.0.39"} wat2wasm with SIMD) from ${SOURCE} (sha256 ${sourceHash}…).`,
  "",
  `/** The dense-layer kernel as a WebAssembly binary (${bytes.length} bytes), base64. */`,
  `export const DENSE_WASM_BASE64 =`,
  `  "${bytes.toString("base64")}";`,
  "",
  "/** sha256 (first 16 hex digits) of the WebAssembly text it was assembled from. */",
  `export const DENSE_WASM_SOURCE_SHA256 = "${sourceHash}";`,
  "",
];
writeFileSync(OUT, lines.join("\n"));
console.log(`wrote ${OUT} (${bytes.length} bytes)`);
