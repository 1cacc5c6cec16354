/**
 * A process killed in the middle of a request gives its credits back after
 * the lease (issue 27), on the Redis store: a child process
 * (reservation-holder.ts) holds a reservation of all of an account's
 * credits in a request that never ends. While it lives it renews the lease,
 * and the account is refused (429) well past one lease; once it is killed
 * (SIGKILL: no cleanup of any kind) the reservation's key expires and the
 * account is served again. Skipped (or, with REQUIRE_REDIS=1, failed)
 * without redis-server.
 */
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { createRedisStore } from "../../docs/recipes/redis-store.js";
import { createService } from "../../src/api/service.js";
import { fakePipelines, post } from "../api/helpers.js";
import { processesForSuite, redisForSuite, redisSuite } from "./redis-gate.js";

const { binary, suite } = redisSuite("the reservation lease test");

const entry = fileURLToPath(new URL("./reservation-holder.ts", import.meta.url));
const LEASE_MS = 600;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

suite("reservation leases across processes", () => {
  const redis = redisForSuite(binary);
  const startHolder = processesForSuite(redis, entry);

  it("a killed process's reservation lapses after the lease; a live one's does not", async () => {
    const prefix = "lease-test:";
    const lines: string[] = [];
    const holder = await startHolder({ PREFIX: prefix, LEASE_MS: String(LEASE_MS) }, lines);
    for (let waited = 0; !lines.includes("holding") && waited < 20_000; waited += 20) await sleep(20);
    expect(lines).toContain("holding");

    const service = createService({
      accounts: [{ id: "free", apiKeys: ["key-free-0123"], credits: 10, hasPaymentMethod: false }],
      clock: () => new Date(),
      pipelines: fakePipelines,
      store: createRedisStore(redis.server().connect(), prefix),
      jobLimits: { leaseMs: LEASE_MS },
    });
    const forecast = () => service.handle(post("/v2/forecast", { series: { y: [1, 2, 3], sizes: [3] }, freq: "D", h: 1 }, "key-free-0123")).then((r) => r.status);
    expect(await forecast()).toBe(429);
    // alive: renewed past two leases
    await sleep(2 * LEASE_MS);
    expect(await forecast()).toBe(429);
    holder.kill("SIGKILL");
    await new Promise((r) => holder.once("exit", r));
    // the key may have up to one lease to run: refused at once, served after it
    expect(await forecast()).toBe(429);
    await sleep(LEASE_MS + 200);
    expect(await forecast()).toBe(200);
  }, 60_000);
});
