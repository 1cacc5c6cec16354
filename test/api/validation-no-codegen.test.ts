/**
 * Validation where the runtime refuses generated code (edge functions, pages
 * with a strict content security policy; here Node's
 * `--disallow-code-generation-from-strings`): the compiled ajv checks cannot
 * be made, and the schema walk gives the same answers, item for item, on
 * random bodies of every endpoint and of the older form; a forecast runs.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { validationAnswers } from "../support/validation-answers.js";

const loader = fileURLToPath(new URL("../support/ts-loader.mjs", import.meta.url));
const script = fileURLToPath(new URL("../support/validation-answers.ts", import.meta.url));
const NO_CODEGEN = "--disallow-code-generation-from-strings";
const run = (args: string[]): string => execFileSync(process.execPath, [NO_CODEGEN, "--import", loader, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });

describe("without generated code", () => {
  it("the runtime refuses it, so the compiled checks cannot be used (the premise)", () => {
    expect(() => execFileSync(process.execPath, [NO_CODEGEN, "-e", "new Function('return 1')"], { stdio: "pipe" })).toThrow();
  });

  it("1,500 random bodies: the same 422 items and validated values as the compiled checks", () => {
    const count = 1200;
    const here = validationAnswers(count, 20261126);
    const there = JSON.parse(run([script, String(count), "20261126"])) as string[];
    expect(there).toHaveLength(here.length);
    expect(here.filter((a) => a.startsWith("422")).length).toBeGreaterThan(count / 2);
    for (let i = 0; i < here.length; i++) expect(there[i], `body ${i}`).toBe(here[i]);
  });

  it("a forecast body is validated and forecast", () => {
    const code = `import { forecast } from ${JSON.stringify(new URL("../../src/index.ts", import.meta.url).href)};
      const r = forecast({ series: { y: Array.from({ length: 60 }, (_, t) => 10 + (t % 7)), sizes: [60] }, freq: "D", h: 3, level: [80] });
      console.log(JSON.stringify([r.mean.length, Object.keys(r.intervals)]));`;
    expect(JSON.parse(run(["--input-type=module", "-e", code]))).toEqual([3, ["lo-80", "hi-80"]]);
  });
});
