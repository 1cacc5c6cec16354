/**
 * No function of src/api is longer than 120 lines (issue 32): the files are
 * read with the TypeScript compiler API, nested functions count in the
 * function that holds them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { functionLengths } from "../support/function-lengths.js";

const MAX_LINES = 120;
const API_DIR = "src/api";

describe("function lengths in src/api", () => {
  it(`measures a function's lines from its first token to its closing brace, nested functions included`, () => {
    const body = Array.from({ length: 125 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `export function outer(): number {\n  const inner = (): number => {\n    return 1;\n  };\n${body}\n  return inner();\n}\n`;
    const found = functionLengths("sample.ts", text);
    expect(found.find((f) => f.name === "outer")).toEqual({ name: "outer", line: 1, lines: 131 });
    expect(found.find((f) => f.name === "inner")).toEqual({ name: "inner", line: 2, lines: 3 });
  });

  it(`no function of ${API_DIR} is over ${MAX_LINES} lines`, () => {
    const tooLong: string[] = [];
    for (const file of readdirSync(API_DIR).filter((f) => f.endsWith(".ts"))) {
      const path = join(API_DIR, file);
      for (const f of functionLengths(path, readFileSync(path, "utf8"))) {
        if (f.lines > MAX_LINES) tooLong.push(`${path}:${f.line} ${f.name} (${f.lines} lines)`);
      }
    }
    expect(tooLong).toEqual([]);
  });
});
