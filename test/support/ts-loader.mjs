// A Node module loader for the tests' child processes: runs the project's
// TypeScript directly (type-stripping with the TypeScript compiler's
// transpileModule; type checking is tsc's job in `npm test`).
// Use: node --import ./test/recipes/ts-loader.mjs some-entry.ts
import { register } from "node:module";

register("./ts-loader-hooks.mjs", import.meta.url);
