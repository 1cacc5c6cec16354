/**
 * One gate for every test that needs a real redis-server: `describe` when
 * Debian's redis-server is installed; otherwise `describe.skip`, with a
 * message naming the package, or an error when REQUIRE_REDIS=1 (.ci/run sets
 * it, so CI never skips them).
 */
import type { RedisOptions } from "ioredis";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe } from "vitest";
import { findRedisServer, REDIS_SERVER_MISSING, startRedis, type RedisUnderTest } from "../support/redis-server.js";
import { startProcess } from "../support/start-process.js";

export function redisSuite(what: string): { binary: string; suite: typeof describe } {
  const binary = findRedisServer();
  if (binary === null) {
    const message = `${REDIS_SERVER_MISSING}: ${what} skipped`;
    if (process.env.REQUIRE_REDIS === "1") throw new Error(`${message}, but REQUIRE_REDIS=1 asks for them`);
    console.warn(message);
    return { binary: "", suite: describe.skip as unknown as typeof describe };
  }
  return { binary, suite: describe };
}

/**
 * Starts a redis-server for the enclosing suite (beforeAll) and stops it
 * (afterAll), after closing whatever was registered with `onStop`, last
 * registered first (the server's own `connect()` connections are closed by
 * its `stop`).
 */
export function redisForSuite(binary: string): {
  server: () => RedisUnderTest;
  connection: () => RedisOptions;
  onStop: (close: () => unknown) => void;
} {
  let server: RedisUnderTest | undefined;
  const closers: (() => unknown)[] = [];
  beforeAll(async () => {
    server = await startRedis(binary);
  }, 30_000);
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await server?.stop();
  });
  return {
    server: () => server!,
    connection: () => server!.connection(),
    onStop: (close) => void closers.push(close),
  };
}

const loader = fileURLToPath(new URL("../support/ts-loader.mjs", import.meta.url));

/**
 * Child processes for a suite of `redisForSuite`: `start(env, lines)` runs the
 * TypeScript file `entry` (through the test loader) with REDIS_PORT of the
 * suite's server and `env`, and resolves once it printed "ready"; `lines`
 * receives its later output lines. Every child still running when the suite
 * stops is killed (SIGKILL) before the server stops.
 */
export function processesForSuite(redis: ReturnType<typeof redisForSuite>, entry: string): (env: Record<string, string>, lines: string[]) => Promise<ChildProcess> {
  const children: ChildProcess[] = [];
  redis.onStop(() => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  });
  return async (env, lines) => {
    const child = await startProcess(["--import", loader, entry], { REDIS_PORT: String(redis.server().port), ...env }, { marker: /^ready$/, onLine: (line) => lines.push(line) });
    children.push(child);
    return child;
  };
}
