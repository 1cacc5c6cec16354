import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files that replace modules (vi.mock) need a module graph of their own;
 * every other file shares its worker's modules with the files run before it,
 * so the library, its weights and @fast-check/vitest (whose import alone takes
 * seconds) load once per worker instead of once per file. setupFiles still
 * run for every file.
 */
const OWN_MODULES = ["test/api/cv-windows.test.ts", "test/api/records-hardening.test.ts"];

export default defineConfig({
  test: {
    setupFiles: ["test/setup.ts"],
    benchmark: { include: ["bench/**/*.bench.ts"] },
    testTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "shared", isolate: false, include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...OWN_MODULES] } },
      { extends: true, test: { name: "isolated", include: OWN_MODULES } },
    ],
  },
});
