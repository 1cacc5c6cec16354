/**
 * Starts a real `redis-server` for a test on a free loopback port, with its
 * own temporary directory (append-only file on, so a restart keeps the data),
 * and stops it, closing the connections it handed out. When `redis-server` is
 * not installed, `findRedisServer` returns null and the tests say so and skip
 * (install Debian's `redis-server`; `.ci/run` does, and fails if they
 * skipped).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis, type RedisOptions } from "ioredis";

/** What is said when redis-server is missing. */
export const REDIS_SERVER_MISSING = "redis-server is not installed (Debian package redis-server)";

/** The path of redis-server, or null when it is not installed. */
export function findRedisServer(): string | null {
  const found = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  const path = found.stdout.trim();
  return found.status === 0 && path.length > 0 ? path : null;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A running redis-server of one test. */
export interface RedisUnderTest {
  readonly port: number;
  /** A new connection to it, closed by `stop`. */
  connect(): Redis;
  /** Options for a connection of BullMQ's (or any ioredis) to it: host, port, and no retry limit per request. */
  connection(): RedisOptions;
  /** Stops the server (SHUTDOWN: the append-only file is written) and starts it again on the same port and directory. */
  restart(): Promise<void>;
  /** Closes the connections `connect` handed out, stops it and removes its directory. */
  stop(): Promise<void>;
}

async function waitReady(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const probe = new Redis(port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === "PONG") {
        probe.disconnect();
        return;
      }
    } catch {
      // not up yet
    }
    probe.disconnect();
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not start`);
}

/**
 * Starts redis-server (the binary at `binary`, by default the one installed;
 * an Error saying so when there is none) on a free port in a fresh temporary
 * directory.
 */
export async function startRedis(binary: string | null = findRedisServer()): Promise<RedisUnderTest> {
  if (binary === null) throw new Error(REDIS_SERVER_MISSING);
  const dir = mkdtempSync(join(tmpdir(), "forecastmodel-redis-"));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const launch = async (): Promise<void> => {
    child = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--save", "", "--protected-mode", "yes"], { stdio: "ignore" });
    await waitReady(port);
  };
  const shutdown = async (): Promise<void> => {
    const running = child;
    if (running === null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    const admin = new Redis(port, "127.0.0.1", { maxRetriesPerRequest: 0, retryStrategy: () => null });
    admin.on("error", () => undefined);
    try {
      await admin.shutdown();
    } catch {
      // the connection closes as the server goes down
    }
    admin.disconnect();
    await exited;
    child = null;
  };
  await launch();
  const connections: Redis[] = [];
  return {
    port,
    connect: () => {
      const redis = new Redis(port, "127.0.0.1");
      redis.on("error", () => undefined); // refused while a restart is under way; commands wait and retry
      connections.push(redis);
      return redis;
    },
    connection: () => ({ host: "127.0.0.1", port, maxRetriesPerRequest: null }),
    restart: async () => {
      await shutdown();
      await launch();
    },
    stop: async () => {
      for (const redis of connections.splice(0)) redis.disconnect();
      await shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
