/**
 * Recipe: a `ServiceStore` on Redis, so that several service processes (on
 * one machine or many) share accounts' credits, jobs, fine-tuned models and
 * call counts, and all of it survives a restart of the processes (and of
 * Redis itself with its append-only file on).
 *
 * Every operation that a race could break is one Redis script (EVAL runs
 * atomically): inserting a job without overwriting, the compare-and-set of a
 * job's status, reserving credits, inserting a model under the 50-per-account
 * limit. Type-checked and run against a real `redis-server` by
 * test/recipes/redis-store.test.ts.
 *
 *   import Redis from "ioredis";
 *   const store = createRedisStore(new Redis(6379, "127.0.0.1"), "fm:");
 *   const service = createService({ accounts, store });
 *
 * Keys (all under `prefix`): `job:<id>` (the job as JSON), `jobstatus:<id>`,
 * `pending` (sorted set of pending job ids by arrival), `seq` (arrival
 * counter), `models:<account>` (hash id → model JSON), `modelorder:<account>`
 * (sorted set by arrival), `spent:<account>`, `reserved:<account>` (integer
 * tokens), `calls:<account>:<minute or month>` (counters that expire).
 */
import type { Redis } from "ioredis";
import type { ApiJobStatus, CallCounts, ModelInsertOutcome, ServiceStore, StoredFinetunedModel, StoredJob } from "../../src/index.js";

const INSERT_JOB = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
if ARGV[2] == 'pending' then
  local seq = redis.call('INCR', KEYS[4])
  redis.call('ZADD', KEYS[3], seq, ARGV[3])
end
return 1`;

const UPDATE_JOB = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3])
if ARGV[3] ~= 'pending' then redis.call('ZREM', KEYS[3], ARGV[4]) end
return 1`;

const INSERT_MODEL = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'exists' end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 'limit' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], seq, ARGV[1])
return 'ok'`;

const DELETE_MODEL = `
local n = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return n`;

const RESERVE = `
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local held = tonumber(redis.call('GET', KEYS[2]) or '0')
if not (tonumber(ARGV[2]) - spent - held > 0) then return 0 end
redis.call('INCRBY', KEYS[2], ARGV[1])
return 1`;

const SETTLE = `
redis.call('INCRBY', KEYS[2], -tonumber(ARGV[1]))
redis.call('INCRBY', KEYS[1], ARGV[2])
return 1`;

const COUNT_CALL = `
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], 120)
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], 3024000)
return 1`;

/** A model as JSON: the weights' values as base64 of their float64 bytes, exact. */
function modelJson(model: StoredFinetunedModel): string {
  const { values } = model.weights;
  const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  return JSON.stringify({ accountId: model.accountId, record: model.record, weights: { model: model.weights.model, start: model.weights.start, values: bytes.toString("base64") } });
}

function parseModel(text: string): StoredFinetunedModel {
  const raw = JSON.parse(text) as { accountId: string; record: StoredFinetunedModel["record"]; weights: { model: StoredFinetunedModel["weights"]["model"]; start: number; values: string } };
  const bytes = Buffer.from(raw.weights.values, "base64");
  const values = new Float64Array(bytes.byteLength / 8);
  new Uint8Array(values.buffer).set(bytes);
  return { accountId: raw.accountId, record: raw.record, weights: { model: raw.weights.model, start: raw.weights.start, values } };
}

/**
 * A `ServiceStore` on a Redis connection. Tokens are integers (INCRBY).
 *
 * @param redis - An ioredis connection (one per process is enough; commands are pipelined).
 * @param prefix - Prefix of every key, so one Redis can hold several services.
 * @returns The store.
 */
export function createRedisStore(redis: Redis, prefix = "forecastmodel:"): ServiceStore {
  const k = (...parts: string[]): string => prefix + parts.join(":");
  const toInt = (v: string | null): number => (v === null ? 0 : Number(v));
  return {
    async getJob(jobId) {
      const text = await redis.get(k("job", jobId));
      return text === null ? undefined : (JSON.parse(text) as StoredJob);
    },
    async insertJob(job) {
      const done = await redis.eval(INSERT_JOB, 4, k("job", job.jobId), k("jobstatus", job.jobId), k("pending"), k("seq"), JSON.stringify(job), job.status, job.jobId);
      return done === 1;
    },
    async updateJob(jobId, expected: ApiJobStatus, next) {
      const done = await redis.eval(UPDATE_JOB, 3, k("job", jobId), k("jobstatus", jobId), k("pending"), expected, JSON.stringify(next), next.status, jobId);
      return done === 1;
    },
    async pendingJobs() {
      const ids = await redis.zrange(k("pending"), 0, -1);
      if (ids.length === 0) return [];
      const texts = await redis.mget(ids.map((id) => k("job", id)));
      return texts.flatMap((t) => (t === null ? [] : [JSON.parse(t) as StoredJob])).filter((j) => j.status === "pending");
    },
    async getModel(accountId, modelId) {
      const text = await redis.hget(k("models", accountId), modelId);
      return text === null ? undefined : parseModel(text);
    },
    async listModels(accountId) {
      const ids = await redis.zrange(k("modelorder", accountId), 0, -1);
      if (ids.length === 0) return [];
      const texts = await redis.hmget(k("models", accountId), ...ids);
      return texts.flatMap((t) => (t === null ? [] : [parseModel(t)]));
    },
    async insertModel(model, maxPerAccount): Promise<ModelInsertOutcome> {
      const a = model.accountId;
      return (await redis.eval(INSERT_MODEL, 3, k("models", a), k("modelorder", a), k("seq"), model.record.id, modelJson(model), String(maxPerAccount))) as ModelInsertOutcome;
    },
    async deleteModel(accountId, modelId) {
      return (await redis.eval(DELETE_MODEL, 2, k("models", accountId), k("modelorder", accountId), modelId)) === 1;
    },
    async spentTokens(accountId) {
      return toInt(await redis.get(k("spent", accountId)));
    },
    async chargeTokens(accountId, tokens) {
      await redis.incrby(k("spent", accountId), tokens);
    },
    async reserveTokens(accountId, tokens, credits) {
      return (await redis.eval(RESERVE, 2, k("spent", accountId), k("reserved", accountId), String(tokens), String(credits))) === 1;
    },
    async settleTokens(accountId, held, used) {
      await redis.eval(SETTLE, 2, k("spent", accountId), k("reserved", accountId), String(held), String(used));
    },
    async countCall(accountId, minute, month) {
      await redis.eval(COUNT_CALL, 2, k("calls", accountId, minute), k("calls", accountId, month));
    },
    async callCounts(accountId, minute, month): Promise<CallCounts> {
      const [m, mo] = await redis.mget(k("calls", accountId, minute), k("calls", accountId, month));
      return { minute: toInt(m ?? null), month: toInt(mo ?? null) };
    },
  };
}
