/**
 * The cluster host recipe (docs/recipes/cluster-host.ts) as real processes:
 * a primary and 2 HTTP worker processes on one port over a real
 * redis-server. 200 concurrent requests from 2 accounts: every answer 200 or
 * 429, both processes serve, the credits charged equal the tokens reported
 * to the token, and neither account sees the other's models. Skipped (or,
 * with REQUIRE_REDIS=1, failed) without redis-server.
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, expect, it } from "vitest";
import { createRedisStore } from "../../docs/recipes/redis-store.js";
import { freePort } from "../support/redis-server.js";
import { startProcess } from "../support/start-process.js";
import { redisForSuite, redisSuite } from "./redis-gate.js";

const { binary, suite } = redisSuite("the cluster host test");

const loader = fileURLToPath(new URL("../support/ts-loader.mjs", import.meta.url));
const entry = fileURLToPath(new URL("../../docs/recipes/cluster-host.ts", import.meta.url));
const KEY_A = "cluster-key-a";
const KEY_B = "cluster-key-b";

suite("cluster host over Redis", () => {
  const redis = redisForSuite(binary);
  let host: ChildProcess | undefined;
  let base: string;
  redis.onStop(async () => {
    if (host !== undefined && host.exitCode === null) {
      const exited = new Promise((r) => host!.once("exit", r));
      host.kill("SIGTERM");
      await exited;
    }
  });

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const accounts = [
      { id: "acme", apiKeys: [KEY_A], credits: 1500, hasPaymentMethod: false },
      { id: "globex", apiKeys: [KEY_B], credits: 900, hasPaymentMethod: false },
    ];
    // each of the 2 worker processes prints "listening <port>"
    host = await startProcess(
      ["--import", loader, entry],
      { PORT: String(port), WORKERS: "2", REDIS_PORT: String(redis.server().port), REDIS_PREFIX: "cluster:", ACCOUNTS: JSON.stringify(accounts) },
      { marker: /listening/, count: 2 },
    );
  }, 60_000);

  it("200 concurrent requests from 2 accounts on 2 processes: 200 or 429, tokens charged = tokens reported, accounts apart", async () => {
    const body = JSON.stringify({ series: { y: [1, 3, 2, 4, 3, 5, 4, 6, 5, 7], sizes: [10] }, freq: "D", h: 2 });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const key = i % 2 === 0 ? KEY_A : KEY_B;
        return fetch(`${base}/v2/forecast`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body }).then(async (r) => ({
          key,
          status: r.status,
          worker: r.headers.get("x-worker"),
          body: (await r.json()) as { input_tokens?: number; output_tokens?: number; finetune_tokens?: number },
        }));
      }),
    );
    const reported: Record<string, number> = { [KEY_A]: 0, [KEY_B]: 0 };
    for (const a of answers) {
      expect([200, 429]).toContain(a.status);
      if (a.status === 200) reported[a.key] = reported[a.key]! + a.body.input_tokens! + a.body.output_tokens! + a.body.finetune_tokens!;
    }
    expect(new Set(answers.map((a) => a.worker)).size).toBe(2);
    expect(answers.some((a) => a.status === 429)).toBe(true);
    const store = createRedisStore(redis.server().connect(), "cluster:");
    expect(await store.spentTokens("acme")).toBe(reported[KEY_A]);
    expect(await store.spentTokens("globex")).toBe(reported[KEY_B]);

    // a model of one account is invisible to the other, whichever process answers
    await redis.server().connect().set("cluster:spent:acme", "0"); // credits back, to fine-tune
    const made = await fetch(`${base}/v2/finetune`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY_A}` },
      body: JSON.stringify({ series: { y: Array.from({ length: 40 }, (_, t) => t % 7), sizes: [40] }, freq: "D", finetune_steps: 1, output_model_id: "shared-nothing" }),
    });
    expect(made.status).toBe(200);
    for (let i = 0; i < 4; i++) {
      expect((await fetch(`${base}/v2/finetuned_models/shared-nothing`, { headers: { authorization: `Bearer ${KEY_B}` } })).status).toBe(404);
      expect((await fetch(`${base}/v2/finetuned_models/shared-nothing`, { headers: { authorization: `Bearer ${KEY_A}` } })).status).toBe(200);
    }
  }, 60_000);
});
