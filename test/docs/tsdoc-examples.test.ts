/// <reference types="vite/client" />
/**
 * Every `@example` of the TSDoc in src/ runs: its `// =>` comments are
 * checked like the docs' samples (see samples.ts). Examples are run, not
 * type-checked (they may elide setup types); the guides' samples are both.
 * All examples run in one Node process so the library loads once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as library from "../../src/index.js";
import { collectTsdocExamples, createWorkspace, runSamplesTogether, type DocSample, type SampleWorkspace } from "./samples.js";

// runtime exports of every module of src/, for examples of functions the library does not re-export
const modules = import.meta.glob<Record<string, unknown>>("../../src/**/*.ts", { eager: true });
const moduleExports = new Map(Object.entries(modules).map(([path, mod]) => [path.replace(/^\.\.\/\.\.\//, ""), Object.keys(mod)]));
const examples = collectTsdocExamples(Object.keys(library), moduleExports);
let workspace: SampleWorkspace;
let outcomes: Map<DocSample, string | null>;

beforeAll(async () => {
  workspace = createWorkspace(examples);
  outcomes = await runSamplesTogether(workspace, examples);
}, 180_000);

afterAll(() => {
  workspace?.dispose();
});

describe("TSDoc examples", () => {
  it("are found in src/", () => {
    expect(examples.length).toBeGreaterThan(50);
    expect(examples.some((e) => e.doc === "src/api/partition.ts")).toBe(true);
  });

  it.each(examples.map((e) => [`${e.doc}:${e.line}`, e] as const))("%s runs", (_name, example) => {
    expect(outcomes.get(example) ?? null).toBeNull();
  });
});
