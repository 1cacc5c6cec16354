/**
 * Pretrains a model on synthetic series and writes its weights module.
 *
 *   npm run pretrain -- --model forecastmodel-1 --steps 12000 --seed fm1-v1
 *
 * Each step's batch is split between worker threads (one per core); their
 * gradients are averaged in a fixed order, so the same seed and settings give
 * the same file. With --smoke it only checks that the loss goes down.
 *
 * Stages (--stage): "point" (default) trains the point network with the MAE;
 * "spread" then trains the spread head alone with the quantile loss on the
 * point network of the model's own weights module (--init <model>), the head
 * started afresh from the seed, leaving the point network bit-identical; it
 * keeps the module's point-stage header lines beside its own.
 */
import { Worker } from "node:worker_threads";
import { readFileSync, writeFileSync } from "node:fs";
import { networkShape } from "../src/model/config.js";
import { parameterLayout } from "../src/model/network.js";
import { expandToCrossSeries, pretrainInitialParameters, pretrainUpdate, type PretrainStage } from "./pretrain/pretrain.js";
import { AdamOptimizer } from "../src/model/train.js";
import { decodeFloat32Base64 } from "../src/model/weights.js";
import type { EmbeddedWeights } from "../src/model/weights.js";
import type { ModelName } from "../src/types.js";
import { writeWeightsModule } from "./weights-file.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1]! : fallback;
}

const model = arg("model", "forecastmodel-1") as ModelName;
const seed = arg("seed", "forecastmodel-v1");
const steps = Number(arg("steps", "12000"));
const batchSize = Number(arg("batch", "256"));
const learningRate = Number(arg("lr", "0.001"));
const warmupSteps = Number(arg("warmup", "300"));
const workers = Number(arg("workers", "2"));
const initFrom = arg("init", "");
const smoke = process.argv.includes("--smoke");
// The smoke run fits a few fixed batches, so its loss must go down; a real run draws a new batch every step.
const distinct = Number(arg("distinct", smoke ? "2" : "0"));
const logEvery = Number(arg("log-every", "100"));
const out = arg("out", `src/model/weights/${model}.ts`);
const stage = arg("stage", "point") as PretrainStage;
if (stage !== "point" && stage !== "spread") throw new Error(`--stage must be point or spread, got ${stage}`);

/** The weights module of a model (read only when a run starts from it, so a model without one can be trained afresh). */
async function embeddedWeights(name: ModelName): Promise<EmbeddedWeights> {
  const module = (await import(`../src/model/weights/${name}.js`)) as Record<string, EmbeddedWeights>;
  const found = Object.values(module).find((w) => w.model === name);
  if (found === undefined) throw new Error(`src/model/weights/${name}.ts exports no weights of ${name}`);
  return found;
}

/**
 * The parameters of a weights module. A module written before the current
 * spread head (none, or another layout) contributes its point network only;
 * the spread head then starts from its initial values for this seed.
 */
async function embeddedParameters(name: ModelName): Promise<Float64Array> {
  const layout = parameterLayout(networkShape(name));
  const embedded = await embeddedWeights(name);
  const values = decodeFloat32Base64(embedded.base64, embedded.count);
  if (embedded.count === layout.total) return values;
  if (embedded.count < layout.spreadStart) throw new Error(`${name}: weights module has ${embedded.count} values, fewer than the point network's ${layout.spreadStart}`);
  const full = pretrainInitialParameters(name, seed);
  full.set(values.subarray(0, layout.spreadStart));
  return full;
}

const shape = networkShape(model);
const total = parameterLayout(shape).total;
const paramsBuffer = new SharedArrayBuffer(total * 8);
const params = new Float64Array(paramsBuffer);
if (initFrom === "forecastmodel-1" && model === "forecastmodel-2.1") params.set(expandToCrossSeries(await embeddedParameters("forecastmodel-1")));
else if (initFrom !== "") params.set(await embeddedParameters(initFrom as ModelName));
else params.set(pretrainInitialParameters(model, seed));
if (stage === "spread") {
  // The spread stage always starts its head afresh from its own seed, so its
  // result depends only on the point network and the seed.
  const layout = parameterLayout(shape);
  params.set(pretrainInitialParameters(model, seed).subarray(layout.spreadStart), layout.spreadStart);
}

const perWorker = Math.ceil(batchSize / workers);
const gradBuffers = Array.from({ length: workers }, () => new SharedArrayBuffer(total * 8));
const grads = gradBuffers.map((b) => new Float64Array(b));
const pool = gradBuffers.map(
  (grad, part) => new Worker(new URL("./pretrain-worker.js", import.meta.url), { workerData: { model, seed, part, count: perWorker, distinct, stage, params: paramsBuffer, grad } }),
);
const grad = new Float64Array(total);
const adam = new AdamOptimizer(total, { learningRate });
const config = { learningRate, warmupSteps, steps };
const started = process.hrtime.bigint();
const curve: { step: number; loss: number; seconds: number }[] = [];
let windowLoss = 0;
let windowCount = 0;

function runStep(step: number): Promise<number[]> {
  return Promise.all(
    pool.map(
      (w) =>
        new Promise<number>((resolve) => {
          w.once("message", (m: { loss: number }) => resolve(m.loss));
          w.postMessage({ step });
        }),
    ),
  );
}

for (let step = 0; step < steps; step++) {
  const losses = await runStep(step);
  grad.fill(0);
  for (const g of grads) for (let i = 0; i < total; i++) grad[i]! += g[i]! / workers;
  pretrainUpdate(adam, params, grad, config, step);
  windowLoss += losses.reduce((a, b) => a + b, 0) / losses.length;
  windowCount++;
  if ((step + 1) % logEvery === 0 || step === steps - 1) {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const loss = windowLoss / windowCount;
    curve.push({ step: step + 1, loss, seconds });
    console.log(`step ${step + 1}/${steps}  loss ${loss.toFixed(4)}  lr ${adam.learningRate.toExponential(2)}  ${seconds.toFixed(0)} s`);
    windowLoss = 0;
    windowCount = 0;
  }
}
await Promise.all(pool.map((w) => w.terminate()));

if (smoke) {
  const first = curve[0]!.loss;
  const last = curve[curve.length - 1]!.loss;
  console.log(`smoke: loss ${first.toFixed(4)} -> ${last.toFixed(4)}`);
  if (!(last < first)) {
    console.error("smoke: the loss did not go down");
    process.exit(1);
  }
} else {
  const command = `npm run pretrain:one -- ${process.argv.slice(2).join(" ")}` + " (one stage of npm run pretrain)";
  const lossName = stage === "spread" ? "quantile loss of the spread head" : "MAE";
  const lines = [
    `Made by: ${command}`,
    `Model: ${model}; stage ${stage}; seed "${seed}"; ${steps} steps of ${batchSize} synthetic windows; Adam lr ${learningRate}, warm-up ${warmupSteps}, cosine decay; ${workers} worker threads.`,
    `Final training loss (${lossName}, standardised units): ${curve[curve.length - 1]!.loss.toFixed(4)}.`,
  ];
  // The spread stage keeps the point stage's provenance lines.
  const previous = stage === "spread" ? pointStageHeader(`src/model/weights/${model}.ts`) : [];
  writeWeightsModule(out, model, params, [...previous, ...lines]);
  const logName = stage === "spread" ? `tools/pretrain/logs/pretrain-log-${model}-spread.json` : `tools/pretrain/logs/pretrain-log-${model}.json`;
  writeFileSync(logName, JSON.stringify({ model, stage, seed, steps, batchSize, learningRate, warmupSteps, workers, curve }, null, 1) + "\n");
  console.log(`wrote ${out}`);
}

/** The header comment lines of the point stage in an existing weights module (a previous spread stage's lines dropped). */
function pointStageHeader(path: string): string[] {
  const lines: string[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.startsWith("// ")) break;
    if (!line.startsWith("// GENERATED FILE")) lines.push(line.slice(3));
  }
  const at = lines.findIndex((l, i) => l.startsWith("Made by:") && (lines[i + 1] ?? "").includes("stage spread"));
  return at >= 0 ? lines.slice(0, at) : lines;
}
