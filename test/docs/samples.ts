/**
 * Runs the code samples of the docs for real: every ```ts block of every
 * docs/**.md (except the generated docs/api/) is extracted, its `// =>`
 * comments become assertions, it is type-checked against src/ and run by
 * Node (all samples in turn in one process, see runSamplesTogether) against a
 * copy of the library transpiled to JavaScript in a temporary folder.
 *
 * Conventions for doc writers:
 * - `import { … } from "forecastmodel";` imports the library.
 * - `expr; // => value` (or `// => value` alone on the next line) asserts
 *   `deepStrictEqual(expr, value)`; the statement must be an expression.
 *   Notes, `a = b` / `a ≈ b` and `(to 1e-9)` are read as described at
 *   {@link expectedValue}.
 * - A block whose first line is `// file: name.ts` is a helper module written
 *   next to the others of the same page (import it as `./name.js`); it is not
 *   run by itself. Every other block is run.
 * - Use ```text (or ```json, ```sh) for anything that is not meant to run.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { transpile } from "../support/transpile.mjs";

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
  for (const path of [join(REPO, "README.md"), ...walk(join(REPO, "docs"), []).sort()]) {
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

/** A trailing `// comment` (not inside a string: no quote after the slashes). */
const TRAILING_COMMENT = /\s*\/\/[^"'`]*$/;

/** Start line of the statement that ends on line `end` (heuristic: after a blank line, `;`, `{`, `}` or a comment). */
function statementStart(lines: readonly string[], end: number): number {
  let s = end;
  while (s > 0) {
    // the code part of the previous line (a trailing `// comment` dropped)
    const prev = (lines[s - 1] as string).replace(TRAILING_COMMENT, "").trim();
    if (prev === "" || prev.endsWith(";") || prev.endsWith("{") || prev.endsWith("}") || prev.startsWith("//")) break;
    s--;
  }
  return s;
}

/**
 * The value of a `// =>` comment as a JS expression, and its tolerance:
 * - a trailing note is dropped: after two or more spaces, or a final `(…)` after a space;
 * - `(to 1e-9)` in the note sets an absolute/relative tolerance;
 * - `a = b` or `a ≈ b` (spaces around) keeps the last part; `≈` sets the tolerance
 *   to one unit of the last printed decimal;
 * - Node's inspect form `Int32Array(3) [0, 1, 3]` becomes `new Int32Array([0, 1, 3])`.
 */
export function expectedValue(text: string): { expr: string; tol: number | null } {
  let t = text.trim();
  let tol: number | null = null;
  const to = /\(to (\d[\w.+-]*)\)/.exec(t);
  if (to !== null) tol = Number(to[1]);
  t = t.replace(/\s{2,}.*$/, "");
  for (;;) {
    const note = /^(.*\S)\s+\((?:[^()]|\([^()]*\))*\)$/.exec(t);
    if (note === null) break;
    t = note[1] as string;
  }
  // the last " ≈ " / " = " outside string literals
  let approx = -1;
  let equal = -1;
  let quote: string | null = null;
  for (let i = 0; i < t.length; i++) {
    const c = t[i] as string;
    if (quote !== null) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === "`") quote = c;
    else if (t.startsWith(" ≈ ", i)) approx = i;
    else if (t.startsWith(" = ", i)) equal = i;
  }
  if (approx >= 0 && approx > equal) {
    t = t.slice(approx + 3).trim();
    const decimals = Math.max(0, ...[...t.matchAll(/\d\.(\d+)/g)].map((m) => (m[1] as string).length));
    tol = Math.max(tol ?? 0, 1 / 10 ** decimals);
  } else if (equal >= 0) {
    t = t.slice(equal + 3).trim();
  }
  t = t.replace(/\b((?:Float|Int|Uint)(?:8|16|32|64)(?:Clamped)?Array)\(\d+\) \[([^\]]*)\]/g, "new $1([$2])");
  return { expr: t, tol };
}

function expectCall(actual: string, expectedText: string, where: string): string {
  const { expr, tol } = expectedValue(expectedText);
  return `__expect((${actual}), (${expr}), ${where}${tol === null ? "" : `, ${tol}`})`;
}

/** Turns `expr; // => value` comments into `__expect(expr, value, where)` calls. */
export function withAssertions(sample: DocSample): string {
  const lines = sample.source.split("\n");
  const where = (k: number) => JSON.stringify(`${sample.doc}:${sample.line + 1 + k}`);
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] as string;
    const inline = /^(\s*)(.*\S)\s*;\s*\/\/ => (.+)$/.exec(line);
    if (inline !== null) {
      lines[k] = `${inline[1]}${expectCall(inline[2] as string, inline[3] as string, where(k))};`;
      continue;
    }
    const alone = /^\s*\/\/ => (.+)$/.exec(line);
    if (alone !== null) {
      let end = k - 1;
      while (end >= 0 && (lines[end] as string).trim() === "") end--;
      if (end >= 0) lines[end] = (lines[end] as string).replace(TRAILING_COMMENT, "");
      if (end < 0 || !(lines[end] as string).trimEnd().endsWith(";")) {
        throw new Error(`${sample.doc}:${sample.line + 1 + k}: "// =>" must follow an expression statement ending with ";"`);
      }
      const start = statementStart(lines, end);
      const stmt = lines.slice(start, end + 1).join("\n").trimEnd().replace(/;$/, "");
      const indent = /^\s*/.exec(lines[start] as string)?.[0] ?? "";
      lines.splice(start, end - start + 1, `${indent}${expectCall(stmt.trimStart(), alone[1] as string, where(k))};`, ...Array(end - start).fill(""));
      lines[k] = "";
    }
  }
  return [
    `import { deepStrictEqual as __deepStrictEqual } from "node:assert/strict";`,
    ...lines,
    `function __expect(actual: unknown, expected: unknown, where: string, tol?: number): void {`,
    `  try {`,
    `    if (tol === undefined) __deepStrictEqual(actual, expected);`,
    `    else if (!__near(actual, expected, tol)) throw new Error("expected " + JSON.stringify(expected) + " ± " + tol + ", got " + JSON.stringify(Array.isArray(actual) || ArrayBuffer.isView(actual) ? Array.from(actual as ArrayLike<number>) : actual));`,
    `  } catch (e) { throw new Error(where + ": " + (e as Error).message); }`,
    `}`,
    `function __near(a: unknown, b: unknown, tol: number): boolean {`,
    `  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));`,
    `  const list = (v: unknown) => (Array.isArray(v) || ArrayBuffer.isView(v) ? Array.from(v as ArrayLike<unknown>) : null);`,
    `  const la = list(a), lb = list(b);`,
    `  if (la !== null && lb !== null) return la.length === lb.length && la.every((x, i) => __near(x, lb[i], tol));`,
    `  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {`,
    `    const ka = Object.keys(a), kb = Object.keys(b);`,
    `    return ka.length === kb.length && ka.every((k) => __near((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tol));`,
    `  }`,
    `  return Object.is(a, b);`,
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

/** The .ts files (not .d.ts) below dir, appended to out. */
function listTs(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) listTs(p, out);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

function sampleDir(sample: DocSample): string {
  return sample.doc.replace(/\.(md|ts)$/, "").replace(/[^\w/-]/g, "_");
}

/**
 * The ```ts blocks of every `@example` in src/ (TSDoc), as samples. Examples
 * use the library's exports without importing them, so each gets an import of
 * the exported names it mentions and does not declare itself.
 */
export function collectTsdocExamples(
  exportedNames: readonly string[],
  moduleExports: ReadonlyMap<string, readonly string[]> = new Map(),
): DocSample[] {
  const library = new Set(exportedNames);
  const samples: DocSample[] = [];
  for (const path of listTs(join(REPO, "src"), []).sort()) {
    const file = relative(REPO, path);
    const lines = readFileSync(path, "utf8").split("\n");
    let n = 0;
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*\*\s*@example\b/.test(lines[i] as string)) continue;
      let j = i + 1;
      while (j < lines.length && !/^\s*\*\s*```(ts|typescript)\b/.test(lines[j] as string)) {
        if (/^\s*\*\//.test(lines[j] as string) || /^\s*\*\s*@\w+/.test(lines[j] as string)) break;
        j++;
      }
      if (j >= lines.length || !/```/.test(lines[j] as string)) continue;
      const fence = j;
      const body: string[] = [];
      for (j = fence + 1; j < lines.length && !/^\s*\*\s*```\s*$/.test(lines[j] as string); j++) {
        body.push((lines[j] as string).replace(/^\s*\* ?/, ""));
      }
      const code = body.join("\n");
      const declared = new Set([...code.matchAll(/\b(?:const|let|var|function|class)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1] as string));
      for (const m of code.matchAll(/\b(?:const|let|var)\s*\{([^}]*)\}/g)) {
        for (const name of (m[1] as string).split(",")) declared.add(name.split(":").pop()?.trim() ?? "");
      }
      // names the example uses without declaring: from the library, else its own module, else any module of src/
      const mentions = (name: string) => !declared.has(name) && new RegExp(`(?<![\\w$.])${name.replace(/\$/g, "\\$")}(?![\\w$])`).test(code);
      const fromLibrary = exportedNames.filter(mentions);
      const imports = new Map<string, string[]>();
      const known = new Set(fromLibrary);
      const own = moduleExports.get(file) ?? [];
      for (const [module, names] of [[file, own] as const, ...moduleExports]) {
        for (const name of names) {
          if (library.has(name) || known.has(name) || !mentions(name)) continue;
          known.add(name);
          imports.set(module, [...(imports.get(module) ?? []), name]);
        }
      }
      let prelude = fromLibrary.length > 0 ? `import { ${fromLibrary.join(", ")} } from "forecastmodel";\n` : "";
      for (const [module, names] of imports) prelude += `import { ${names.join(", ")} } from "forecastmodel/${module.replace(/\.ts$/, ".js")}";\n`;
      if (/\bseedrandom\(/.test(code) && !declared.has("seedrandom")) prelude += `import seedrandom from "seedrandom";\n`;
      n++;
      samples.push({
        doc: file,
        line: fence + 1,
        file: `example-${String(n).padStart(2, "0")}.ts`,
        run: true,
        // imports are hoisted: appending it keeps the example's line numbers those of the source file
        source: code + "\n" + prelude,
      });
      i = j;
    }
  }
  return samples;
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
    writeFileSync(out, transpile(readFileSync(file, "utf8")));
  }
  const paths = (sample: DocSample) => {
    const base = join(root, "samples", sampleDir(sample), sample.file);
    return { ts: base, js: base.replace(/\.ts$/, ".js") };
  };
  for (const sample of samples) {
    const { ts: tsPath, js: jsPath } = paths(sample);
    mkdirSync(dirname(tsPath), { recursive: true });
    let code: string;
    try {
      code = withAssertions(sample);
    } catch (e) {
      // a malformed `// =>` fails this sample only
      code = `throw new Error(${JSON.stringify((e as Error).message)});\nexport {};\n`;
    }
    writeFileSync(tsPath, code);
    const libIndex = relative(dirname(jsPath), join(root, "src", "index.js"));
    const specifier = libIndex.startsWith(".") ? libIndex : `./${libIndex}`;
    const js = transpile(code)
      .replace(/(from\s+|import\s*\(\s*)"forecastmodel"/g, `$1"${specifier}"`)
      // the package's subpaths: forecastmodel/lite, forecastmodel/pool and forecastmodel/weights/<model>
      .replace(/(from\s+)"forecastmodel\/(lite|pool|weights\/[\w.-]+)"/g, (_m, from: string, sub: string) => {
        const target = sub === "lite" ? join(root, "src", "lite.js") : sub === "pool" ? join(root, "src", "pool", "index.js") : join(root, "src", "model", `${sub}.js`);
        const rel = relative(dirname(jsPath), target);
        return `${from}"${rel.startsWith(".") ? rel : `./${rel}`}"`;
      })
      // internal modules (TSDoc examples of functions the library does not re-export)
      .replace(/(from\s+)"forecastmodel\/(src\/[\w/.-]+)"/g, (_m, from: string, path: string) => {
        const rel = relative(dirname(jsPath), join(root, path));
        return `${from}"${rel.startsWith(".") ? rel : `./${rel}`}"`;
      });
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
    paths: { forecastmodel: ["src/index.ts"], "forecastmodel/lite": ["src/lite.ts"], "forecastmodel/pool": ["src/pool/index.ts"], "forecastmodel/weights/*": ["src/model/weights/*.ts"] },
    typeRoots: [join(REPO, "node_modules", "@types")],
    types: ["node"],
  };
  const program = ts.createProgram(
    samples.map((s) => workspace.paths(s).ts),
    options,
  );
  const sampleFiles = new Set(samples.map((s) => workspace.paths(s).ts));
  // the samples' own diagnostics only: checking the bodies of all of src/ again is tsc's job (and most of the time)
  const diagnostics = program.getSourceFiles().filter((f) => sampleFiles.has(resolve(f.fileName))).flatMap((f) => ts.getPreEmitDiagnostics(program, f));
  return ts
    .sortAndDeduplicateDiagnostics(diagnostics)
    .filter((d) => d.file !== undefined && sampleFiles.has(resolve(d.file.fileName)))
    .map((d) => {
      const file = d.file as ts.SourceFile;
      const { line } = file.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${relative(workspace.root, file.fileName)}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
}

/** Runs one sample with Node, in the workspace folder (a file a sample writes lands there); resolves with its exit code and output. */
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
      { cwd: workspace.root, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Runs many samples in ONE Node process (each imported in turn, failures
 * caught per sample): the library loads once. For short examples without
 * servers or workers. Resolves with the error text of each failed sample.
 */
export function runSamplesTogether(
  workspace: SampleWorkspace,
  samples: readonly DocSample[],
  timeoutMs = 120_000,
): Promise<Map<DocSample, string | null>> {
  const runner = join(workspace.root, `runner-${Date.now().toString(36)}.mjs`);
  const list = samples.map((s) => pathToFileURL(workspace.paths(s).js).href);
  writeFileSync(
    runner,
    [
      `const list = ${JSON.stringify(list)};`,
      `const errors = [];`,
      `for (const url of list) {`,
      `  try { await import(url); errors.push(null); }`,
      `  catch (e) { errors.push(String((e && e.stack) || e).split("\\n").slice(0, 6).join("\\n")); }`,
      `}`,
      `process.stdout.write("\\n@@RESULTS@@" + JSON.stringify(errors) + "\\n");`,
      `process.exit(0);`,
    ].join("\n"),
  );
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, [runner], { cwd: workspace.root, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const marker = stdout.lastIndexOf("@@RESULTS@@");
      if (marker < 0) return reject(new Error(`sample runner failed: ${error?.message ?? ""}\n${stderr}`));
      const errors = JSON.parse(stdout.slice(marker + "@@RESULTS@@".length)) as (string | null)[];
      resolvePromise(new Map(samples.map((s, i) => [s, errors[i] ?? null])));
    });
  });
}
