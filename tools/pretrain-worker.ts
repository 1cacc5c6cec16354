/** Worker thread of the pretraining driver: computes the gradient of its part of each batch. */
import { parentPort, workerData } from "node:worker_threads";
import { networkShape } from "../src/model/config.js";
import { pretrainBatch, pretrainStageGradient, type PretrainStage } from "./pretrain/pretrain.js";
import { BatchGradient } from "../src/model/train.js";
import type { ModelName } from "../src/types.js";

interface Setup {
  model: ModelName;
  seed: string;
  part: number;
  count: number;
  /** Cycle through this many distinct batches (0 = a new batch every step). */
  distinct: number;
  stage: PretrainStage;
  params: SharedArrayBuffer;
  grad: SharedArrayBuffer;
}

const setup = workerData as Setup;
const shape = networkShape(setup.model);
const params = new Float64Array(setup.params);
const grad = new Float64Array(setup.grad);
const worker = new BatchGradient(shape);
parentPort!.on("message", (msg: { step: number }) => {
  const batch = pretrainBatch(shape, setup.seed, setup.distinct > 0 ? msg.step % setup.distinct : msg.step, setup.part, setup.count);
  const loss = pretrainStageGradient(worker, setup.stage, params, batch, grad);
  parentPort!.postMessage({ loss });
});
