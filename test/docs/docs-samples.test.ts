import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  REPO,
  collectSamples,
  createWorkspace,
  expectedValue,
  runSample,
  runSamplesTogether,
  typeCheck,
  withAssertions,
  type DocSample,
  type SampleWorkspace,
} from "./samples.js";

const samples = collectSamples();
// two harness self-checks: a true and a false `// =>` claim must pass and fail
const selfChecks: DocSample[] = [
  { doc: "harness/self.md", line: 1, file: "pass.ts", run: true, source: "const a = [1, 2];\na.length; // => 2\nMath.max(\n  ...a,\n);\n// => 2\n" },
  { doc: "harness/self.md", line: 1, file: "fail.ts", run: true, source: "[1, 2].length; // => 3\n" },
  { doc: "harness/self.md", line: 1, file: "typo.ts", run: false, source: 'import { partition } from "forecastmodel";\nconst k: number = "2";\npartition({}, k);\n' },
];

let workspace: SampleWorkspace;
let typeErrors: string[];
let outcomes: Map<DocSample, string | null>;

beforeAll(async () => {
  workspace = createWorkspace([...samples, ...selfChecks]);
  // one program for all samples (type-checking src/ once is the slow part)
  typeErrors = typeCheck(workspace, [...samples, selfChecks[2] as DocSample]);
  // one Node process for all samples (each imported in turn), so the library loads once
  outcomes = await runSamplesTogether(
    workspace,
    samples.filter((s) => s.run),
  );
}, 180_000);

afterAll(() => {
  workspace?.dispose();
});

describe("docs harness", () => {
  it("turns `// =>` comments into assertions that can fail", async () => {
    expect(withAssertions(selfChecks[0] as DocSample)).toContain('__expect((Math.max(\n  ...a,\n)), (2), "harness/self.md:7")');
    expect((await runSample(workspace, selfChecks[0] as DocSample)).code).toBe(0);
    const failed = await runSample(workspace, selfChecks[1] as DocSample);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain("harness/self.md:2");
    const typo = typeErrors.filter((e) => e.includes("typo.ts"));
    expect(typo).toHaveLength(1);
    expect(typo[0]).toMatch(/typo\.ts:3: Type 'string' is not assignable to type 'number'/);
  });

  it("reads `// =>` values with notes, `=` / `≈` forms, tolerances and typed-array output", () => {
    expect(expectedValue("[1, 2]")).toEqual({ expr: "[1, 2]", tol: null });
    expect(expectedValue("32 (windows per step for 3 series)")).toEqual({ expr: "32", tol: null });
    expect(expectedValue("2   (plain summation gives 0)")).toEqual({ expr: "2", tol: null });
    expect(expectedValue("[0.6, 0.8] (to 1e-12)")).toEqual({ expr: "[0.6, 0.8]", tol: 1e-12 });
    expect(expectedValue("(0.5 + 3.5) / 2 = 2")).toEqual({ expr: "2", tol: null });
    expect(expectedValue("sqrt((9 + 16) / 2) ≈ 3.5355")).toEqual({ expr: "3.5355", tol: 1e-4 });
    expect(expectedValue('"Value error, sizes must sum to len(y) = 10"')).toEqual({ expr: '"Value error, sizes must sum to len(y) = 10"', tol: null });
    expect(expectedValue("Int32Array(3) [0, 1, 3]")).toEqual({ expr: "new Int32Array([0, 1, 3])", tol: null });
  });

  it("finds the samples of every guide", () => {
    const docs = new Set(samples.map((s) => s.doc));
    for (const guide of [
      "docs/forecasting.md",
      "docs/anomaly-detection.md",
      "docs/finetuning.md",
      "docs/exogenous-features.md",
      "docs/historic-forecast.md",
      "docs/http-server.md",
      "docs/scaling.md",
      "docs/charts.md",
    ]) {
      expect(docs, guide).toContain(guide);
    }
  });
});

describe("docs samples", () => {
  it("type-check against src/", () => {
    expect(typeErrors.filter((e) => !e.includes("harness/self"))).toEqual([]);
  });

  it.each(samples.filter((s) => s.run).map((s) => [`${s.doc}:${s.line}`, s] as const))("%s runs", (_name, sample) => {
    expect(outcomes.get(sample) ?? null).toBeNull();
  });
});

describe("docs links", () => {
  const pages = readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md"));
  it.each(pages)("relative links of docs/%s resolve", (page) => {
    const path = join(REPO, "docs", page);
    // links in prose only: fenced blocks and inline code are not links
    const text = readFileSync(path, "utf8").replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
    for (const m of text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = resolve(dirname(path), m[1] as string);
      expect(existsSync(target), `${page} links to ${m[1]}`).toBe(true);
    }
  });
});
