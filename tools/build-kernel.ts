/**
 * Assembles the WebAssembly kernels (text with 128-bit SIMD) into the modules
 * shipped in the package (base64, decoded and compiled on first use): the
 * dense layers (src/model/kernel/dense.wat → dense-wasm.ts), the
 * featurizer's damped-trend grid (damped.wat → damped-wasm.ts), the
 * seasonal judges' window moments (src/anomaly/kernel/moments.wat →
 * moments-wasm.ts), fine-tuning's Adam update (adam.wat → adam-wasm.ts) and
 * the featurizer's centred moving averages (centred.wat → centred-wasm.ts).
 *
 *   npm run build:kernel
 *
 * Uses wabt's wat2wasm (the `wabt` npm package, a devDependency): nothing is
 * assembled at install or run time.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import wabtInit from "wabt";

/** Each WebAssembly text, the module it is assembled into, the constants' prefix and what it is. */
const KERNELS = [
  { source: "src/model/kernel/dense.wat", out: "src/model/kernel/dense-wasm.ts", name: "DENSE", what: "The dense-layer kernel" },
  { source: "src/model/kernel/damped.wat", out: "src/model/kernel/damped-wasm.ts", name: "DAMPED", what: "The damped-trend grid of the window featurizer" },
  { source: "src/anomaly/kernel/moments.wat", out: "src/anomaly/kernel/moments-wasm.ts", name: "MOMENTS", what: "The seasonal judges' window moments" },
  { source: "src/model/kernel/adam.wat", out: "src/model/kernel/adam-wasm.ts", name: "ADAM", what: "Adam's update of fine-tuning" },
  { source: "src/model/kernel/centred.wat", out: "src/model/kernel/centred-wasm.ts", name: "CENTRED", what: "The featurizer's centred moving averages" },
];

const wabt = await wabtInit();
for (const { source, out, name, what } of KERNELS) {
  const text = readFileSync(source, "utf8");
  const module = wabt.parseWat(source, text, { simd: true });
  module.validate();
  const { buffer } = module.toBinary({ write_debug_names: false });
  module.destroy();
  const bytes = Buffer.from(buffer);
  const sourceHash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const lines = [
    "// GENERATED FILE: do not edit.",
    `// Made by: npm run build:kernel (tools/build-kernel.ts: wabt ${"1.0.39"} wat2wasm with SIMD) from ${source} (sha256 ${sourceHash}…).`,
    "",
    `/** ${what} as a WebAssembly binary (${bytes.length} bytes), base64. */`,
    `export const ${name}_WASM_BASE64 =`,
    `  "${bytes.toString("base64")}";`,
    "",
    "/** sha256 (first 16 hex digits) of the WebAssembly text it was assembled from. */",
    `export const ${name}_WASM_SOURCE_SHA256 = "${sourceHash}";`,
    "",
  ];
  writeFileSync(out, lines.join("\n"));
  console.log(`wrote ${out} (${bytes.length} bytes)`);
}
