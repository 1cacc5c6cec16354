/** Writes a generated weights module (shared by the pretraining driver). */
import { writeFileSync } from "node:fs";
import { encodeFloat32Base64 } from "../src/model/weights.js";
import type { ModelName } from "../src/types.js";

const CONST_NAMES: Record<ModelName, string> = {
  "forecastmodel-1": "WEIGHTS_FM1",
  "forecastmodel-1-long-horizon": "WEIGHTS_FM1_LONG",
  "forecastmodel-2.1": "WEIGHTS_FM21",
  "forecastmodel-1-high-frequency": "WEIGHTS_FM1_HF",
};

export function writeWeightsModule(path: string, model: ModelName, params: Float64Array, headerLines: string[]): void {
  const name = CONST_NAMES[model];
  const b64 = encodeFloat32Base64(params);
  const lines = [
    "// GENERATED FILE: do not edit.",
    ...headerLines.map((l) => `// ${l}`),
    'import type { EmbeddedWeights } from "../weights.js";',
    "",
    `/** Pretrained parameters of ${model} (${params.length} float32 values, base64). */`,
    `export const ${name}: EmbeddedWeights = {`,
    `  model: "${model}",`,
    `  count: ${params.length},`,
    `  base64:`,
  ];
  const chunk = 4096;
  const parts: string[] = [];
  for (let i = 0; i < b64.length; i += chunk) parts.push(`    "${b64.slice(i, i + chunk)}"`);
  lines.push(parts.join(" +\n") + ",", "};", "");
  writeFileSync(path, lines.join("\n"));
}
