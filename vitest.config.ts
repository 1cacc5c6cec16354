import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files that replace modules (vi.mock) need a module graph of their own;
 * every other file shares its worker's modules with the files run before it,
 * so the library, its weights and @fast-check/vitest (whose import alone takes
 * seconds) load once per worker instead of once per file. setupFiles still
 * run for every file.
 */
const OWN_MODULES = ["test/api/cv-windows.test.ts", "test/api/records-hardening.test.ts"];
/**
 * Files that time leases on the wall clock (a 60 ms lease renewed every 20 ms
 * in job-limits; 200 and 600 ms leases against a real redis-server, checked
 * 80 ms or more from their end): they run last, by themselves, in fresh
 * workers, so that no CPU-bound file of the other worker and no garbage
 * collection of a heap that many files filled delays their timers.
 */
const WALL_CLOCK = ["test/api/job-limits.test.ts", "test/recipes/redis-store.test.ts", "test/recipes/reservation-lease.test.ts"];

export default defineConfig({
  test: {
    setupFiles: ["test/setup.ts"],
    benchmark: { include: ["bench/**/*.bench.ts"] },
    testTimeout: 120_000,
    pool: "forks",
    // both cores: 2 workers (vitest's default on 2 cores is 1)
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "shared", isolate: false, include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...OWN_MODULES, ...WALL_CLOCK] } },
      { extends: true, test: { name: "isolated", include: OWN_MODULES } },
      { extends: true, test: { name: "wall-clock", isolate: false, include: WALL_CLOCK, sequence: { groupOrder: 1 } } },
    ],
  },
});
