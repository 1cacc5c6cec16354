// TypeScript to a JavaScript module by type-stripping (the TypeScript
// compiler's transpileModule; type checking is tsc's job in `npm test`), with
// a disk cache: the output of a source is kept under the system's temp folder,
// keyed by a hash of the source, the options and the compiler's version. The
// tests' child processes (ts-loader.mjs) and the docs harness (samples.ts)
// transpile the same files, the weights modules among them (6 MB): from the
// cache, a process neither transpiles them again nor loads the compiler
// (1.5 s by itself). Plain JavaScript, so that Node's loader hooks can use it.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const VERSION = JSON.parse(readFileSync(require.resolve("typescript/package.json"), "utf8")).version;
const OPTIONS = { module: "ESNext", target: "ES2022", verbatimModuleSyntax: false, isolatedModules: true };
const KEY = JSON.stringify({ version: VERSION, options: OPTIONS });
const CACHE = join(tmpdir(), "forecastmodel-transpiled");

/** @type {typeof import("typescript") | undefined} */
let ts;
let written = 0;

/**
 * The JavaScript of a TypeScript module (ES2022, ES modules, types erased).
 * @param {string} source
 * @returns {string}
 */
export function transpile(source) {
  const file = join(CACHE, `${createHash("sha256").update(KEY).update("\0").update(source).digest("hex")}.js`);
  try {
    return readFileSync(file, "utf8");
  } catch {
    // not cached yet
  }
  ts ??= /** @type {typeof import("typescript")} */ (require("typescript"));
  const output = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: OPTIONS.verbatimModuleSyntax,
      isolatedModules: OPTIONS.isolatedModules,
    },
  }).outputText;
  try {
    mkdirSync(CACHE, { recursive: true });
    // written whole then renamed: a concurrent reader sees all of it or nothing
    const partial = `${file}.${process.pid}.${written++}.partial`;
    writeFileSync(partial, output);
    renameSync(partial, file);
  } catch {
    // a cache that cannot be written only costs time
  }
  return output;
}
