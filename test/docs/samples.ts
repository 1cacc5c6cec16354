/**
 * Runs the code samples of the docs for real: every ```ts block of every
 * docs/**.md (except the generated docs/api/) is extracted, its `// =>`
 * comments become assertions, it is type-checked against src/ and run by
 * Node in its own process against a transpiled copy of the library.
 *
 * Conventions for doc writers:
 * - `import { … } from "forecastmodel";` imports the library.
 * - `expr; // => value` (or `// => value` alone on the next line) asserts
 *   `deepStrictEqual(expr, value)`; the statement must be an expression.
 * - A block whose first line is `// file: name.ts` is a helper module written
 *   next to the others of the same page (import it as `./name.js`); it is not
 *   run by itself. Every other block is run.
 * - Use ```text (or ```json, ```sh) for anything that is not meant to run.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const REPO = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");

export interface DocSample {
  /** Page, relative to the repo (e.g. docs/scaling.md). */
  readonly doc: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** File name in the page's sample folder. */
  readonly file: string;
  /** Whether the sample is run (false for `// file:` helper modules). */
  readonly run: boolean;
  /** Source as written in the page. */
  readonly source: string;
}

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (p !== join(REPO, "docs", "api")) walk(p, out);
    } else if (entry.name.endsWith(".md")) out.push(p);
  }
  return out;
}

/** All ```ts / ```typescript blocks of the docs. */
export function collectSamples(): DocSample[] {
  const samples: DocSample[] = [];
  for (const path of walk(join(REPO, "docs"), []).sort()) {
    const doc = relative(REPO, path);
    const lines = readFileSync(path, "utf8").split("\n");
    let n = 0;
    for (let i = 0; i < lines.length; i++) {
      const open = /^(\s*)```(ts|typescript)\b/.exec(lines[i] as string);
      if (open === null) continue;
      const indent = (open[1] as string).length;
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !/^\s*```\s*$/.test(lines[j] as string)) body.push((lines[j] as string).slice(indent)), j++;
      const source = body.join("\n") + "\n";
      const named = /^\/\/ file: ([\w.-]+\.ts)\s*$/.exec(body[0] ?? "");
      n++;
      samples.push({
        doc,
        line: i + 1,
        file: named ? (named[1] as string) : `sample-${String(n).padStart(2, "0")}.ts`,
        run: named === null,
        source,
      });
      i = j;
    }
  }
  return samples;
}

/** Start line of the statement that ends on line `end` (heuristic: after a blank line, `;`, `{`, `}` or a comment). */
function statementStart(lines: readonly string[], end: number): number {
  let s = end;
  while (s > 0) {
    // the code part of the previous line (a trailing `// comment` dropped)
    const prev = (lines[s - 1] as string).replace(/\s*\/\/[^"'`]*$/, "").trim();
    if (prev === "" || prev.endsWith(";") || prev.endsWith("{") || prev.endsWith("}") || prev.startsWith("//")) break;
    s--;
  }
  return s;
}

/** Turns `expr; // => value` comments into `__expect(expr, value, where)` calls. */
export function withAssertions(sample: DocSample): string {
  const lines = sample.source.split("\n");
  const where = (k: number) => JSON.stringify(`${sample.doc}:${sample.line + 1 + k}`);
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] as string;
    const inline = /^(\s*)(.*\S)\s*;\s*\/\/ => (.+)$/.exec(line);
    if (inline !== null) {
      lines[k] = `${inline[1]}__expect((${inline[2]}), (${inline[3]}), ${where(k)});`;
      continue;
    }
    const alone = /^\s*\/\/ => (.+)$/.exec(line);
    if (alone !== null) {
      let end = k - 1;
      while (end >= 0 && (lines[end] as string).trim() === "") end--;
      if (end < 0 || !(lines[end] as string).trimEnd().endsWith(";")) {
        throw new Error(`${sample.doc}:${sample.line + 1 + k}: "// =>" must follow an expression statement ending with ";"`);
      }
      const start = statementStart(lines, end);
      const stmt = lines.slice(start, end + 1).join("\n").trimEnd().replace(/;$/, "");
      const indent = /^\s*/.exec(lines[start] as string)?.[0] ?? "";
      lines.splice(start, end - start + 1, `${indent}__expect((${stmt.trimStart()}), (${alone[1]}), ${where(k)});`, ...Array(end - start).fill(""));
      lines[k] = "";
    }
  }
  return [
    `import { deepStrictEqual as __deepStrictEqual } from "node:assert/strict";`,
    ...lines,
    `function __expect(actual: unknown, expected: unknown, where: string): void {`,
    `  try { __deepStrictEqual(actual, expected); } catch (e) { throw new Error(where + ": " + (e as Error).message); }`,
    `}`,
    ``,
  ].join("\n");
}

export interface SampleWorkspace {
  readonly root: string;
  /** Absolute path of the .ts (for type-checking) and .js (to run) of a sample. */
  paths(sample: DocSample): { ts: string; js: string };
  dispose(): void;
}

function listTs(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) listTs(p, out);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const TRANSPILE: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  target: ts.ScriptTarget.ES2022,
  verbatimModuleSyntax: false,
  isolatedModules: true,
};

function sampleDir(sample: DocSample): string {
  return sample.doc.replace(/\.md$/, "").replace(/[^\w/-]/g, "_");
}

/**
 * A temp folder with the library transpiled to JS (src/), every sample as .ts
 * and .js (samples/<page>/), `node_modules` linked to the repo's and
 * `"type": "module"`.
 */
export function createWorkspace(samples: readonly DocSample[]): SampleWorkspace {
  const root = mkdtempSync(join(tmpdir(), "forecastmodel-docs-"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module", private: true }));
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"), "dir");
  for (const file of listTs(join(REPO, "src"), [])) {
    const out = join(root, relative(REPO, file)).replace(/\.ts$/, ".js");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, ts.transpileModule(readFileSync(file, "utf8"), { compilerOptions: TRANSPILE }).outputText);
  }
  const paths = (sample: DocSample) => {
    const base = join(root, "samples", sampleDir(sample), sample.file);
    return { ts: base, js: base.replace(/\.ts$/, ".js") };
  };
  for (const sample of samples) {
    const { ts: tsPath, js: jsPath } = paths(sample);
    mkdirSync(dirname(tsPath), { recursive: true });
    const code = withAssertions(sample);
    writeFileSync(tsPath, code);
    const libIndex = relative(dirname(jsPath), join(root, "src", "index.js"));
    const specifier = libIndex.startsWith(".") ? libIndex : `./${libIndex}`;
    const js = ts
      .transpileModule(code, { compilerOptions: TRANSPILE })
      .outputText.replace(/(from\s+|import\s*\(\s*)"forecastmodel"/g, `$1"${specifier}"`);
    writeFileSync(jsPath, js);
  }
  return { root, paths, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

/** Type errors of the samples (checked against src/ through a `forecastmodel` path mapping). */
export function typeCheck(workspace: SampleWorkspace, samples: readonly DocSample[]): string[] {
  const config = ts.readConfigFile(join(REPO, "tsconfig.json"), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, REPO);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    rootDir: undefined,
    baseUrl: REPO,
    paths: { forecastmodel: ["src/index.ts"] },
    typeRoots: [join(REPO, "node_modules", "@types")],
    types: ["node"],
  };
  const program = ts.createProgram(
    samples.map((s) => workspace.paths(s).ts),
    options,
  );
  const sampleFiles = new Set(samples.map((s) => workspace.paths(s).ts));
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && sampleFiles.has(resolve(d.file.fileName)))
    .map((d) => {
      const file = d.file as ts.SourceFile;
      const { line } = file.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${relative(workspace.root, file.fileName)}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
}

/** Runs one sample with Node; resolves with its exit code and output. */
export function runSample(
  workspace: SampleWorkspace,
  sample: DocSample,
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { js } = workspace.paths(sample);
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [js],
      { cwd: REPO, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}
