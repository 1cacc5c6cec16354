/**
 * A stand-in for the service's `pool` option whose work takes many steps:
 * each step moves the test's clock, reports `{ stage: "finetune", done, total }`
 * to the `onProgress` the service gives, and yields to the event loop (so a
 * test can poll the job's status while it runs); the answer is then the one
 * of the stand-in pipelines.
 */
import { runEndpoint } from "../../src/api/entry-points.js";
import type { ProgressCallback } from "../../src/progress.js";
import { fakePipelines } from "../api/helpers.js";

type Endpoint = "forecast" | "anomaly" | "historic" | "finetune";

export interface SteppingRunner {
  runEndpoint(endpoint: Endpoint, request: unknown, options?: { readonly onProgress?: ProgressCallback }): Promise<unknown>;
  /** Each call: its endpoint and whether it was given a progress callback. */
  readonly calls: { endpoint: Endpoint; withProgress: boolean }[];
}

/**
 * @param steps - steps of each call.
 * @param advance - moves the test's clock by one step's time.
 * @param afterStep - awaited after each step (e.g. polls the job's status).
 */
export function steppingRunner(steps: number, advance: () => void, afterStep?: (done: number) => Promise<void>): SteppingRunner {
  const calls: SteppingRunner["calls"] = [];
  return {
    calls,
    runEndpoint: async (endpoint, request, options) => {
      calls.push({ endpoint, withProgress: options?.onProgress !== undefined });
      for (let done = 1; done <= steps; done++) {
        advance();
        options?.onProgress?.({ stage: "finetune", done, total: steps });
        await new Promise<void>((resolve) => setImmediate(resolve));
        await afterStep?.(done);
      }
      return runEndpoint(endpoint, request as never, fakePipelines);
    },
  };
}
