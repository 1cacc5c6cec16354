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
 * Keys (all under `prefix`): `job:<id>` (the job as JSON), `jobstatus:<id>`
 * (both expire `resultTtlMs` after the job finished: SET … PX),
 * `jobprogress:<id>` (a running job's latest progress as JSON, written only
 * while its status is running, deleted when it leaves running),
 * `pending` (sorted set of pending job ids by arrival), `seq` (arrival
 * counter), `pendingload:<account>` (hash: `jobs` and `values` of the
 * account's pending jobs, checked against the quota when a job is inserted),
 * `models:<account>` (hash id → model JSON), `modelorder:<account>`
 * (sorted set by arrival), `spent:<account>` (integer tokens),
 * `resv:<account>:<reservation id>` (tokens held, with the lease as its key
 * expiry: PX, renewed by PEXPIRE, none while a job is pending),
 * `resvs:<account>` (set of the account's reservation ids, pruned of lapsed
 * ones whenever a reservation is made), `calls:<account>:<minute or month>`
 * (counters that expire).
 *
 * Times are Redis's own (key expiry): the `nowMs` the service passes is
 * not used. The reservation scripts build `resv:` key names from the
 * prefix, so they need one Redis (not a cluster without hash tags).
 */
import type { Redis } from "ioredis";
import type { ApiJobStatus, CallCounts, JobInsertOutcome, ModelInsertOutcome, Progress, ServiceStore, StoredFinetunedModel, StoredJob } from "../../src/index.js";

// ARGV: job JSON, status, id, values, max jobs, max values (-1: no quota)
const INSERT_JOB = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
if ARGV[2] == 'pending' then
  local values = tonumber(ARGV[4])
  if tonumber(ARGV[5]) >= 0 then
    local jobs = tonumber(redis.call('HGET', KEYS[5], 'jobs') or '0')
    local held = tonumber(redis.call('HGET', KEYS[5], 'values') or '0')
    if jobs + 1 > tonumber(ARGV[5]) or held + values > tonumber(ARGV[6]) then return 'limit' end
  end
  redis.call('HINCRBY', KEYS[5], 'jobs', 1)
  redis.call('HINCRBY', KEYS[5], 'values', values)
  local seq = redis.call('INCR', KEYS[4])
  redis.call('ZADD', KEYS[3], seq, ARGV[3])
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
return 'ok'`;

// KEYS: job, status, pending, pending load, progress; ARGV: expected status, job JSON, next status, id, values, ttl ms (0: kept)
const UPDATE_JOB = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
if ARGV[3] ~= 'running' then redis.call('DEL', KEYS[5]) end
local ttl = tonumber(ARGV[6])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ttl)
else
  redis.call('SET', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], ARGV[3])
end
if ARGV[1] == 'pending' and ARGV[3] ~= 'pending' then
  redis.call('ZREM', KEYS[3], ARGV[4])
  redis.call('HINCRBY', KEYS[4], 'jobs', -1)
  redis.call('HINCRBY', KEYS[4], 'values', 0 - tonumber(ARGV[5]))
end
return 1`;

// KEYS: status, progress; ARGV: progress JSON. Written only while the job runs (atomic with UPDATE_JOB).
const SET_PROGRESS = `
if redis.call('GET', KEYS[1]) ~= 'running' then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
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

// KEYS: spent, reservation ids; ARGV: tokens, credits, reservation id, lease ms (0: none), resv key prefix
const RESERVE = `
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local held = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local tokens = redis.call('GET', ARGV[5] .. id)
  if tokens then held = held + tonumber(tokens) else redis.call('SREM', KEYS[2], id) end
end
if not (tonumber(ARGV[2]) - spent - held > 0) then return 0 end
if tonumber(ARGV[4]) > 0 then
  redis.call('SET', ARGV[5] .. ARGV[3], ARGV[1], 'PX', ARGV[4])
else
  redis.call('SET', ARGV[5] .. ARGV[3], ARGV[1])
end
redis.call('SADD', KEYS[2], ARGV[3])
return 1`;

// KEYS: the reservation; ARGV: lease ms (0: held until settled)
const RENEW = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) else redis.call('PERSIST', KEYS[1]) end
return 1`;

// KEYS: spent, reservation ids, the reservation; ARGV: used, reservation id
const SETTLE = `
redis.call('DEL', KEYS[3])
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('INCRBY', KEYS[1], ARGV[1])
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
    // Redis expires finished jobs itself (PX): the service's nowMs is not needed
    async getJob(jobId) {
      const text = await redis.get(k("job", jobId));
      return text === null ? undefined : (JSON.parse(text) as StoredJob);
    },
    async insertJob(job, quota): Promise<JobInsertOutcome> {
      // an unbounded quota (Infinity) as the largest exact integer: Lua reads no "Infinity"
      const bound = (v: number): number => Math.min(v, Number.MAX_SAFE_INTEGER);
      const [maxJobs, maxValues] = quota === undefined ? [-1, -1] : [bound(quota.maxJobs), bound(quota.maxValues)];
      const keys = [k("job", job.jobId), k("jobstatus", job.jobId), k("pending"), k("seq"), k("pendingload", job.accountId)];
      return (await redis.eval(INSERT_JOB, 5, ...keys, JSON.stringify(job), job.status, job.jobId, String(job.values ?? 0), String(maxJobs), String(maxValues))) as JobInsertOutcome;
    },
    async updateJob(jobId, expected: ApiJobStatus, next, expiry) {
      // 0: kept (no expiry, or an infinite one)
      const ttl = expiry === undefined || !Number.isFinite(expiry.ttlMs) ? 0 : Math.max(1, Math.ceil(expiry.ttlMs));
      const keys = [k("job", jobId), k("jobstatus", jobId), k("pending"), k("pendingload", next.accountId), k("jobprogress", jobId)];
      const done = await redis.eval(UPDATE_JOB, 5, ...keys, expected, JSON.stringify(next), next.status, jobId, String(next.values ?? 0), String(ttl));
      return done === 1;
    },
    async setJobProgress(jobId, progress) {
      const text = JSON.stringify({ stage: progress.stage, done: progress.done, total: progress.total });
      return (await redis.eval(SET_PROGRESS, 2, k("jobstatus", jobId), k("jobprogress", jobId), text)) === 1;
    },
    async getJobProgress(jobId) {
      const [status, text] = await redis.mget(k("jobstatus", jobId), k("jobprogress", jobId));
      return status === "running" && text !== null && text !== undefined ? (JSON.parse(text) as Progress) : undefined;
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
    async reserveTokens(accountId, reservation, credits) {
      const lease = reservation.leaseMs === null ? 0 : Math.max(1, Math.ceil(reservation.leaseMs));
      return (await redis.eval(RESERVE, 2, k("spent", accountId), k("resvs", accountId), String(reservation.tokens), String(credits), reservation.id, String(lease), k("resv", accountId, ""))) === 1;
    },
    async renewReservation(accountId, reservationId, leaseMs) {
      const lease = leaseMs === null ? 0 : Math.max(1, Math.ceil(leaseMs));
      return (await redis.eval(RENEW, 1, k("resv", accountId, reservationId), String(lease))) === 1;
    },
    async settleTokens(accountId, reservationId, used) {
      await redis.eval(SETTLE, 3, k("spent", accountId), k("resvs", accountId), k("resv", accountId, reservationId), String(used), reservationId);
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
