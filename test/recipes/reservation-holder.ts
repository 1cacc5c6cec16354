/**
 * Child process of test/recipes/reservation-lease.test.ts: a service on the
 * Redis store that takes a sync fine-tune for account `free` (10 credits,
 * no payment method) and never finishes it: the store's `insertModel` never
 * answers, so the process sits in the middle of the request holding its
 * reservation, renewing the lease while its event loop is free, until it is
 * killed. Prints `ready` once connected and `holding` once the work is in
 * hand.
 *
 * Environment: REDIS_PORT, PREFIX (the store's key prefix), LEASE_MS.
 */
import { Redis } from "ioredis";
import { createRedisStore } from "../../docs/recipes/redis-store.js";
import { createService } from "../../src/api/service.js";
import { fakePipelines } from "../api/helpers.js";

const redis = new Redis(Number(process.env.REDIS_PORT), "127.0.0.1");
const inner = createRedisStore(redis, process.env.PREFIX);
const store = {
  ...inner,
  insertModel: () => {
    process.stdout.write("holding\n");
    return new Promise<never>(() => undefined);
  },
};
const service = createService({
  accounts: [{ id: "free", apiKeys: ["key-free-0123"], credits: 10, hasPaymentMethod: false }],
  clock: () => new Date(),
  pipelines: fakePipelines,
  store,
  jobLimits: { leaseMs: Number(process.env.LEASE_MS) },
});
await redis.ping();
process.stdout.write("ready\n");
const y = Array.from({ length: 10 }, (_, t) => 5 + (t % 4));
void service.handle({ method: "POST", path: "/v2/finetune", headers: { authorization: "Bearer key-free-0123" }, body: { series: { y, sizes: [10] }, freq: "D", finetune_steps: 1 } });
