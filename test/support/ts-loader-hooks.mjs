// Hooks of ts-loader.mjs: a `.js` specifier that names a `.ts` file resolves
// to it (the project imports with `.js`, as NodeNext wants); `.ts` files are
// transpiled to JavaScript modules (cached on disk: ../support/transpile.mjs).
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { transpile } from "./transpile.mjs";

export async function resolve(specifier, context, next) {
  if ((specifier.startsWith(".") || specifier.startsWith("/")) && specifier.endsWith(".js") && context.parentURL?.startsWith("file:")) {
    const candidate = new URL(specifier.replace(/\.js$/, ".ts"), context.parentURL);
    if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, shortCircuit: true, format: "module" };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith(".ts")) return next(url, context);
  const source = await readFile(fileURLToPath(url), "utf8");
  return { format: "module", source: transpile(source), shortCircuit: true };
}
