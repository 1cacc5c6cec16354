/**
 * A behaviour snapshot of the API for refactors: a few hundred seeded random
 * requests (valid ones of every endpoint with the real model, and invalid
 * ones that break one rule each) go through `createService().handle`; the
 * status and body of each answer is written to a file. Two snapshots, made
 * by two builds, are then compared byte for byte.
 *
 *   npm run build && node dist/bench/behaviour-snapshot.js write /tmp/before.json
 *   (change the code)
 *   npm run build && node dist/bench/behaviour-snapshot.js write /tmp/after.json
 *   node dist/bench/behaviour-snapshot.js compare /tmp/before.json /tmp/after.json
 *
 * To snapshot an older build, run its own copy of this file (in a git
 * worktree of that commit); the generator depends only on the seed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import seedrandom from "seedrandom";
import { createService } from "../src/index.js";

type Uniform = () => number;

const int = (u: Uniform, lo: number, hi: number): number => lo + Math.floor(u() * (hi - lo + 1));
const pick = <T>(u: Uniform, list: readonly T[]): T => list[Math.floor(u() * list.length)]!;

/** A random series object: `count` series of `lo`..`hi` points, a daily-like pattern with noise, and `features` X rows. */
function series(u: Uniform, count: number, lo: number, hi: number, features: number, equal = false): { y: number[]; sizes: number[]; X?: number[][] } {
  const sizes = Array.from({ length: count }, () => int(u, lo, hi));
  if (equal) sizes.fill(sizes[0]!);
  const y: number[] = [];
  for (const n of sizes) {
    const level = 10 + 100 * u();
    const season = pick(u, [1, 4, 7, 12, 24]);
    for (let t = 0; t < n; t++) y.push(Math.round((level + 5 * Math.sin((2 * Math.PI * t) / season) + 3 * (u() - 0.5) + 0.02 * t) * 1000) / 1000);
  }
  const out: { y: number[]; sizes: number[]; X?: number[][] } = { y, sizes };
  if (features > 0) out.X = Array.from({ length: features }, () => y.map(() => Math.round(u() * 1000) / 100));
  return out;
}

interface Case {
  readonly name: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

const FREQS = ["D", "H", "W", "M"] as const;

function validCases(u: Uniform): Case[] {
  const cases: Case[] = [];
  for (let i = 0; i < 80; i++) {
    const h = int(u, 1, 12);
    const features = u() < 0.3 ? int(u, 1, 2) : 0;
    const s = series(u, int(u, 1, 4), 30, 140, features);
    const body: Record<string, unknown> = { series: s, freq: pick(u, FREQS), h };
    if (u() < 0.6) body.level = pick(u, [[80], [95], [80, 95], [50, 99.5]]);
    if (features > 0) {
      body.X_future = s.X!.map(() => Array.from({ length: s.sizes.length * h }, () => Math.round(u() * 1000) / 100));
      if (u() < 0.4) body.clean_ex_first = false;
      if (u() < 0.3) body.feature_contributions = true;
    }
    cases.push({ name: `forecast ${i}`, path: "/v2/forecast", body });
  }
  for (let i = 0; i < 80; i++) {
    const h = int(u, 1, 8);
    const d = int(u, 1, 12);
    const multivariate = u() < 0.2;
    const features = u() < 0.25 ? 1 : 0;
    const s = series(u, int(u, 1, 3), 60, 200, features, multivariate);
    const body: Record<string, unknown> = { series: s, freq: pick(u, FREQS), h, detection_size: d };
    if (u() < 0.5) body.level = pick(u, [90, 95, 99, 99.9]);
    if (u() < 0.3) body.step_size = int(u, 1, h);
    if (multivariate) body.threshold_method = "multivariate";
    if (features > 0 && u() < 0.5) body.clean_ex_first = false;
    cases.push({ name: `anomaly ${i}`, path: "/v2/online_anomaly_detection", body });
  }
  for (let i = 0; i < 60; i++) {
    const features = u() < 0.3 ? 1 : 0;
    const freq = pick(u, FREQS);
    const s = series(u, int(u, 1, 3), 130, 260, features);
    const body: Record<string, unknown> = { series: s, freq };
    if (u() < 0.6) body.level = pick(u, [[80], [95], [80, 99]]);
    if (features > 0 && u() < 0.5) body.feature_contributions = true;
    cases.push({ name: `historic ${i}`, path: "/v2/historic_forecast", body });
  }
  return cases;
}

/** Bodies that break one rule each: the 422 bodies (or their absence) are part of the behaviour. */
function invalidCases(u: Uniform): Case[] {
  const cases: Case[] = [];
  const breakers: [string, string, (b: Record<string, unknown>, s: { y: number[]; sizes: number[]; X?: number[][] }) => void][] = [
    ["sizes sum", "/v2/forecast", (_b, s) => (s.sizes[0] = s.sizes[0]! + 1)],
    ["size 0", "/v2/forecast", (_b, s) => s.sizes.push(0)],
    ["h 0", "/v2/forecast", (b) => (b.h = 0)],
    ["X_future missing", "/v2/forecast", (b, s) => ((s.X = [s.y.map(() => 1)]), delete b.X_future)],
    ["X_future short", "/v2/forecast", (b, s) => ((s.X = [s.y.map(() => 1)]), (b.X_future = [[1]]))],
    ["X_future without X", "/v2/forecast", (b, s) => (b.X_future = [Array.from({ length: s.sizes.length * (b.h as number) }, () => 1)])],
    ["X wrong length", "/v2/forecast", (_b, s) => (s.X = [[1, 2, 3]])],
    ["hist_exog out of range", "/v2/forecast", (b, s) => ((s.X = [s.y.map(() => 1)]), (b.X_future = [Array.from({ length: s.sizes.length * (b.h as number) }, () => 1)]), (b.hist_exog = [3]))],
    ["level 100", "/v2/forecast", (b) => (b.level = [100])],
    ["anomaly too short", "/v2/online_anomaly_detection", (b, s) => ((b.detection_size = 5), (b.h = 4), s.sizes.splice(0, s.sizes.length, 3), s.y.splice(3))],
    ["anomaly gaps", "/v2/online_anomaly_detection", (b) => ((b.detection_size = 10), (b.h = 3), (b.step_size = 5))],
    ["anomaly multivariate unequal", "/v2/online_anomaly_detection", (b, s) => ((b.threshold_method = "multivariate"), s.sizes.push(20), s.y.push(...Array.from({ length: 20 }, (_, t) => t)))],
    ["anomaly level 100", "/v2/online_anomaly_detection", (b) => (b.level = 100)],
    ["anomaly detection_size 0", "/v2/online_anomaly_detection", (b) => (b.detection_size = 0)],
    ["historic too short", "/v2/historic_forecast", (_b, s) => (s.sizes.push(5), s.y.push(1, 2, 3, 4, 5))],
    ["historic hist_exog", "/v2/historic_forecast", (b, s) => ((s.X = [s.y.map(() => 1)]), (b.hist_exog = [1]))],
    ["finetune steps -1", "/v2/forecast", (b) => (b.finetune_steps = -1)],
    ["finetune depth 6", "/v2/forecast", (b) => ((b.finetune_steps = 1), (b.finetune_depth = 6))],
    ["finetune loss", "/v2/forecast", (b) => ((b.finetune_steps = 1), (b.finetune_loss = "huber"))],
    ["y NaN text", "/v2/forecast", (_b, s) => ((s.y as unknown[])[1] = "NaN")],
  ];
  for (let i = 0; i < 60; i++) {
    const [name, path, breakIt] = breakers[i % breakers.length]!;
    const s = series(u, int(u, 1, 3), 60, 150, 0);
    const body: Record<string, unknown> =
      path === "/v2/online_anomaly_detection"
        ? { series: s, freq: "D", h: 2, detection_size: 4 }
        : path === "/v2/historic_forecast"
          ? { series: s, freq: "D" }
          : { series: s, freq: "D", h: int(u, 1, 6) };
    breakIt(body, s);
    cases.push({ name: `invalid ${name} ${i}`, path, body });
  }
  return cases;
}

async function snapshot(): Promise<Record<string, { status: number; body: string }>> {
  const service = createService({ accounts: [{ id: "a", apiKeys: ["k"], credits: 1e12, hasPaymentMethod: true }] });
  const u = seedrandom("behaviour-snapshot");
  const out: Record<string, { status: number; body: string }> = {};
  for (const c of [...validCases(u), ...invalidCases(u)]) {
    const res = await service.handle({ method: "POST", path: c.path, headers: { authorization: "Bearer k" }, body: JSON.stringify(c.body) });
    out[c.name] = { status: res.status, body: JSON.stringify(res.body) };
  }
  return out;
}

const [mode, a, b] = process.argv.slice(2);
if (mode === "write" && a !== undefined) {
  const s = await snapshot();
  writeFileSync(a, JSON.stringify(s, null, 1));
  const statuses: Record<number, number> = {};
  for (const v of Object.values(s)) statuses[v.status] = (statuses[v.status] ?? 0) + 1;
  console.log(`wrote ${Object.keys(s).length} answers to ${a}; statuses ${JSON.stringify(statuses)}`);
} else if (mode === "compare" && a !== undefined && b !== undefined) {
  const x = JSON.parse(readFileSync(a, "utf8")) as Record<string, { status: number; body: string }>;
  const y = JSON.parse(readFileSync(b, "utf8")) as Record<string, { status: number; body: string }>;
  let same = 0;
  const differ: string[] = [];
  for (const name of Object.keys(x)) {
    if (y[name] !== undefined && y[name]!.status === x[name]!.status && y[name]!.body === x[name]!.body) same++;
    else differ.push(name);
  }
  console.log(`${same} of ${Object.keys(x).length} answers byte-identical`);
  for (const name of differ) console.log(`differs: ${name}\n  before ${x[name]?.status} ${x[name]?.body.slice(0, 400)}\n  after  ${y[name]?.status} ${y[name]?.body.slice(0, 400)}`);
  if (differ.length > 0) process.exitCode = 1;
} else {
  console.error("usage: behaviour-snapshot.js write FILE | compare BEFORE AFTER");
  process.exitCode = 2;
}
