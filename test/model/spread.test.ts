import { describe, expect, it } from "vitest";
import seedrandom from "seedrandom";
import {
  BatchGradient, initialParameters, networkShape, parameterLayout,
} from "../../src/model/index.js";
import { pretrainBatch, pretrainSingleThread } from "../../tools/pretrain/pretrain.js";

describe("spread head gradients", () => {
  it("match central finite differences of the quantile loss, and leave the point network alone", () => {
    const model = "forecastmodel-1";
    const shape = networkShape(model);
    const layout = parameterLayout(shape);
    const params = initialParameters(shape, seedrandom("spread-grad"));
    // Perturb the spread head away from its symmetric start so the check sees every path.
    const u = seedrandom("spread-perturb");
    for (let i = layout.spreadStart; i < layout.total; i++) params[i]! += (u() - 0.5) * 0.2;
    const worker = new BatchGradient(shape);
    const batch = pretrainBatch(shape, "spread-grad", 0, 0, 6);
    const grad = new Float64Array(layout.total);
    worker.runSpread(params, batch, grad);
    for (let i = 0; i < layout.spreadStart; i++) if (grad[i] !== 0) throw new Error(`point-network gradient at ${i}`);
    const scratch = new Float64Array(layout.total);
    const pick = [layout.spreadW1, layout.spreadW1 + 777, layout.spreadB1 + 3, layout.spreadW2 + 5, layout.spreadW2 + 2000, layout.spreadB2, layout.spreadB2 + 17, layout.spreadB2 + 30, layout.total - 1];
    for (const i of pick) {
      const eps = 1e-6;
      const p = params.slice();
      p[i]! += eps;
      const up = worker.runSpread(p, batch, scratch);
      p[i]! -= 2 * eps;
      const down = worker.runSpread(p, batch, scratch);
      const numeric = (up - down) / (2 * eps);
      expect(Math.abs(numeric - grad[i]!)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(numeric)));
    }
  });
  it("spread stage changes only the spread head; point stage never reads it", () => {
    const model = "forecastmodel-1";
    const layout = parameterLayout(networkShape(model));
    const base = { model, seed: "stage", steps: 3, batchSize: 8, learningRate: 1e-3, warmupSteps: 1 } as const;
    const start = pretrainSingleThread({ ...base, steps: 0 });
    const spread = pretrainSingleThread({ ...base, stage: "spread", initial: start });
    for (let i = 0; i < layout.spreadStart; i++) if (spread[i] !== start[i]) throw new Error(`point parameter ${i} changed`);
    expect(spread.subarray(layout.spreadStart).some((v, i) => v !== start[layout.spreadStart + i])).toBe(true);
    // The point stage from a start whose spread head differs gives the same point network, bit for bit.
    const other = start.slice();
    for (let i = layout.spreadStart; i < layout.total; i++) other[i] = -other[i]!;
    const a = pretrainSingleThread({ ...base, initial: start });
    const b = pretrainSingleThread({ ...base, initial: other });
    for (let i = 0; i < layout.spreadStart; i++) if (a[i] !== b[i]) throw new Error(`point parameter ${i} depends on the spread head`);
  });
});
