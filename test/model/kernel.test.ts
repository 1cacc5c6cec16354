import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import seedrandom from "seedrandom";
import { initialParameters, MODEL_NAMES, NetworkRunner, networkShape, parameterLayout } from "../../src/model/index.js";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createDenseKernel, denseKernelAvailable } from "../../src/model/kernel/dense.js";
import { DENSE_WASM_SOURCE_SHA256 } from "../../src/model/kernel/dense-wasm.js";
import { dampedTrendFit, dampedTrendKind } from "../../src/model/kernel/damped.js";
import { DAMPED_WASM_SOURCE_SHA256 } from "../../src/model/kernel/damped-wasm.js";
import { ADAM_WASM_SOURCE_SHA256 } from "../../src/model/kernel/adam-wasm.js";
import { centredKernel } from "../../src/model/kernel/centred.js";
import { CENTRED_WASM_SOURCE_SHA256 } from "../../src/model/kernel/centred-wasm.js";
import { centredMeansJs } from "../../src/model/features.js";
import { AdamOptimizer } from "../../src/model/train.js";

function same(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

describe("dense kernels", () => {
  it("the shipped module was assembled from the WebAssembly text in the repository (npm run build:kernel)", () => {
    const text = readFileSync("src/model/kernel/dense.wat", "utf8");
    expect(createHash("sha256").update(text).digest("hex").slice(0, 16)).toBe(DENSE_WASM_SOURCE_SHA256);
  });

  it("WebAssembly SIMD is available on this runtime", () => {
    expect(denseKernelAvailable()).toBe(true);
    expect(createDenseKernel(8).kind).toBe("wasm-simd");
  });

  test.prop([fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 19 }), fc.integer({ min: 1, max: 7 }), fc.integer()], { numRuns: 200 })(
    "the WebAssembly and TypeScript kernels give the same bits, forward and backward (any sizes)",
    (rows, inSize, outSize, seed) => {
      const capacity = rows * inSize * 2 + outSize * inSize * 2 + outSize * 2 + rows * outSize * 3;
      const results = (["wasm-simd", "js"] as const).map((kind) => {
        const k = createDenseKernel(capacity, kind);
        const x = k.alloc(rows * inSize);
        const p = k.alloc(outSize * inSize + outSize);
        const y = k.alloc(rows * outSize);
        const dy = k.alloc(rows * outSize);
        const g = k.alloc(outSize * inSize + outSize);
        const dx = k.alloc(rows * inSize);
        const v = seedrandom(String(seed));
        for (const a of [x, p, dy, g, dx]) for (let i = 0; i < a.length; i++) a[i] = (v() - 0.5) * 10 ** Math.floor(v() * 6 - 3);
        // entries with a zero gradient (0 or −0) are skipped: about a third of them, so the backward pass's pairs of
        // nonzero terms meet every pattern (a lone term, a zero between two, a row or output of zeros only)
        for (let i = 0; i < dy.length; i++) if (v() < 1 / 3) dy[i] = v() < 0.5 ? 0 : -0;
        dy[0] = 0;
        k.forward(x, rows, inSize, p, 0, outSize * inSize, outSize, y);
        k.backward(x, rows, inSize, p, 0, outSize * inSize, outSize, dy, g, dx);
        return { kind: k.kind, y, g, dx };
      });
      expect(results[0]!.kind).toBe("wasm-simd");
      expect(same(results[0]!.y, results[1]!.y)).toBe(true);
      expect(same(results[0]!.g, results[1]!.g)).toBe(true);
      expect(same(results[0]!.dx, results[1]!.dx)).toBe(true);
    },
  );

  const lnValue = fc.oneof(fc.double({ min: -50, max: 50, noNaN: true }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 5e-324, 1e300, -1e300));
  test.prop([fc.integer({ min: 1, max: 11 }), fc.integer({ min: 1, max: 40 }), fc.array(lnValue, { minLength: 1, maxLength: 60 }), fc.double({ min: 0, max: 1, noNaN: true })], { numRuns: 300 })(
    "layer normalisation: the same bits from both kernels (any row count, width and values, overflow included)",
    (rows, width, pool, eps) => {
      const results = (["wasm-simd", "js"] as const).map((kind) => {
        const k = createDenseKernel(2 * rows * width + rows, kind);
        const h = k.alloc(rows * width);
        const u = k.alloc(rows * width);
        const inv = k.alloc(rows);
        for (let i = 0; i < h.length; i++) h[i] = pool[(i * 7 + (i >> 3)) % pool.length]!;
        k.layerNorm(h, rows, width, u, inv, eps);
        return { kind: k.kind, u, inv };
      });
      expect(results[0]!.kind).toBe("wasm-simd");
      expect(same(results[0]!.u, results[1]!.u)).toBe(true);
      expect(same(results[0]!.inv, results[1]!.inv)).toBe(true);
    },
  );

  it("the network gives the same bits with either kernel: forward, spread head and backward, every model", () => {
    for (const model of MODEL_NAMES) {
      const shape = networkShape(model);
      const layout = parameterLayout(shape);
      const params = initialParameters(shape, seedrandom(`kernel:${model}`));
      const u = seedrandom(`kernel-x:${model}`);
      const rows = 37;
      const x = Float64Array.from({ length: rows * layout.inputSize }, () => u() - 0.5);
      const dOut = Float64Array.from({ length: rows * shape.outputLength }, () => u() - 0.5);
      const dSpread = Float64Array.from({ length: rows * shape.outputLength * 16 }, () => u() - 0.5);
      const run = (kind: "wasm-simd" | "js") => {
        const runner = new NetworkRunner(shape, 64, kind);
        const out = new Float64Array(rows * shape.outputLength);
        const spread = new Float64Array(rows * shape.outputLength * 16);
        const grad = new Float64Array(layout.total).fill(0.25);
        runner.forward(params, x, rows, out);
        runner.forwardSpread(params, x, rows, spread);
        runner.backward(params, x, rows, dOut, grad, 0);
        runner.backwardSpread(params, rows, dSpread, grad);
        return { kind: runner.kernel.kind, out, spread, grad };
      };
      const a = run("wasm-simd");
      const b = run("js");
      expect([a.kind, b.kind]).toEqual(["wasm-simd", "js"]);
      expect(same(a.out, b.out)).toBe(true);
      expect(same(a.spread, b.spread)).toBe(true);
      expect(same(a.grad, b.grad)).toBe(true);
    }
  });

  test.prop([fc.array(fc.double(), { maxLength: 41 })])("relu and addInto give the same bits in both kernels (NaN, −0 and infinities too)", (values) => {
    const results = (["wasm-simd", "js"] as const).map((kind) => {
      const k = createDenseKernel(4 * values.length + 4, kind);
      const src = k.alloc(values.length);
      src.set(values);
      const relu = k.alloc(values.length);
      k.relu(relu, src, values.length);
      const sum = k.alloc(values.length);
      sum.set(values.map((v) => v / 3));
      k.addInto(sum, src, values.length);
      return [relu, sum];
    });
    expect(same(results[0]![0]!, results[1]![0]!)).toBe(true);
    expect(same(results[0]![1]!, results[1]![1]!)).toBe(true);
  });

  it("refuses an array outside its arena", () => {
    const k = createDenseKernel(8);
    expect(() => k.forward(new Float64Array(1), 1, 1, k.alloc(2), 0, 1, 1, k.alloc(1))).toThrow(/arena/);
    expect(() => k.alloc(100)).toThrow(/full/);
  });
});

describe("damped-trend grid", () => {
  it("the shipped module was assembled from the WebAssembly text in the repository (npm run build:kernel)", () => {
    const text = readFileSync("src/model/kernel/damped.wat", "utf8");
    expect(createHash("sha256").update(text).digest("hex").slice(0, 16)).toBe(DAMPED_WASM_SOURCE_SHA256);
  });

  it("WebAssembly SIMD is available on this runtime", () => {
    expect(dampedTrendKind()).toBe("wasm-simd");
  });

  const fitBits = (x: Float64Array, n: number, kind: "wasm-simd" | "js"): number[] => {
    const out = new Float64Array(3).fill(Number.NaN);
    dampedTrendFit(x, n, out, kind);
    return Array.from(new Uint8Array(out.buffer));
  };
  const value = fc.oneof(
    fc.double({ min: -30, max: 30, noNaN: true }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(0, -0, 1, 5e-324, 1e300, -1e300),
  );
  test.prop([fc.array(value, { minLength: 1, maxLength: 200 })], { numRuns: 300 })(
    "the WebAssembly and TypeScript grids give the same bits (any values, huge ones overflowing the SSE)",
    (list) => {
      const x = Float64Array.from(list);
      expect(fitBits(x, x.length, "wasm-simd")).toEqual(fitBits(x, x.length, "js"));
    },
  );
  test.prop([fc.integer({ min: 1, max: 400 }), fc.integer()], { numRuns: 100 })(
    "the same bits on smooth series with noise, where the early stop decides most grid points",
    (n, seed) => {
      const u = seedrandom(String(seed));
      const slope = 4 * (u() - 0.5);
      const x = Float64Array.from({ length: n }, (_, i) => slope * i / n + Math.sin(i / 5) + 0.3 * (u() - 0.5));
      expect(fitBits(x, n, "wasm-simd")).toEqual(fitBits(x, n, "js"));
      // a prefix: n counts, not the array's length
      expect(fitBits(x, Math.max(1, n >> 1), "wasm-simd")).toEqual(fitBits(x.subarray(0, Math.max(1, n >> 1)), Math.max(1, n >> 1), "js"));
    },
  );
  it("a series longer than the kernel's memory is fitted by the TypeScript loop, with the same bits", () => {
    const x = Float64Array.from({ length: 9000 }, (_, i) => Math.sin(i / 9) + i / 3000);
    expect(fitBits(x, x.length, "wasm-simd")).toEqual(fitBits(x, x.length, "js"));
  });
});

describe("the featurizer's centred moving averages in WebAssembly", () => {
  it("the shipped module was assembled from the WebAssembly text in the repository (npm run build:kernel)", () => {
    const text = readFileSync("src/model/kernel/centred.wat", "utf8");
    expect(createHash("sha256").update(text).digest("hex").slice(0, 16)).toBe(CENTRED_WASM_SOURCE_SHA256);
  });

  it("is available on this runtime", () => {
    expect(centredKernel()).not.toBeNull();
  });

  const value = fc.oneof(fc.double({ min: -30, max: 30, noNaN: true }), fc.double({ noNaN: true }), fc.constantFrom(0, -0, 5e-324, 1e300, -1e300, Infinity));
  test.prop([fc.array(value, { minLength: 2, maxLength: 220 }), fc.integer({ min: 2, max: 60 }), fc.integer({ min: 0, max: 220 }), fc.integer({ min: 0, max: 220 })], { numRuns: 400 })(
    "the same bits as the TypeScript loop, at every point of any range, odd and even periods, any values (overflow, −0)",
    (list, m, a, b) => {
      const z = Float64Array.from(list);
      const half = m >> 1;
      // the points whose average the values cover, as phaseMeans asks them: [half, n − half) and any range inside it
      const lo = half + Math.min(a, b) % Math.max(1, z.length);
      const hi = Math.min(z.length - half, half + Math.max(a, b) % Math.max(1, z.length));
      const js = new Float64Array(z.length).fill(7);
      const wasm = new Float64Array(z.length).fill(7);
      centredMeansJs(z, lo, hi, m, js);
      const done = centredKernel()!.means(z, lo, hi, m, wasm);
      expect(done).toBe(true);
      expect(same(wasm, js)).toBe(true);
    },
  );

  it("values beyond its memory are left to the TypeScript loop (false, nothing written)", () => {
    const z = new Float64Array(9000).fill(1);
    const out = new Float64Array(9000);
    expect(centredKernel()!.means(z, 12, 8988, 24, out)).toBe(false);
    expect(out.every((v) => v === 0)).toBe(true);
  });
});

describe("Adam's update in WebAssembly", () => {
  it("the shipped module was assembled from the WebAssembly text in the repository (npm run build:kernel)", () => {
    const text = readFileSync("src/model/kernel/adam.wat", "utf8");
    expect(createHash("sha256").update(text).digest("hex").slice(0, 16)).toBe(ADAM_WASM_SOURCE_SHA256);
  });

  it("workArrays are views of a WebAssembly memory on this runtime, zeroed, the same two every call", () => {
    const adam = new AdamOptimizer(5);
    const a = adam.workArrays();
    expect(a.params.buffer).not.toBe(new Float64Array(1).buffer);
    expect(a.params.buffer.constructor.name).toBe("ArrayBuffer");
    expect(Array.from(a.params)).toEqual([0, 0, 0, 0, 0]);
    expect(adam.workArrays().params).toBe(a.params);
    expect(adam.workArrays().grad).toBe(a.grad);
  });

  const entry = fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 5e-324, 1e-300));
  test.prop(
    [fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 6 }), fc.integer(), fc.double({ min: 1e-4, max: 1, noNaN: true })],
    { numRuns: 200 },
  )("the same bits as the TypeScript loop: parameters and moments, any range (odd counts too), several steps", (size, a, b, steps, seed, lr) => {
    const from = Math.min(a, b, size);
    const to = Math.min(Math.max(a, b), size);
    const u = seedrandom(String(seed));
    const pick = fc.sample(entry, { numRuns: size * (steps + 1), seed });
    const wasm = new AdamOptimizer(size, { learningRate: lr });
    const js = new AdamOptimizer(size, { learningRate: lr });
    const work = wasm.workArrays();
    const params = new Float64Array(size);
    const grad = new Float64Array(size);
    for (let i = 0; i < size; i++) work.params[i] = params[i] = pick[i]!;
    for (let s = 0; s < steps; s++) {
      for (let i = 0; i < size; i++) work.grad[i] = grad[i] = u() < 0.1 ? 0 : pick[size * (s + 1) + i]! * 1e-3;
      wasm.step(work.params, work.grad, from, to);
      js.step(params, grad, from, to);
      expect(same(work.params, params)).toBe(true);
    }
    // the moments too: one more step with a zero gradient moves each parameter by −lr·(β1 m)/(…): equal only if m and v are
    work.grad.fill(0);
    grad.fill(0);
    wasm.step(work.params, work.grad, from, to);
    js.step(params, grad, from, to);
    expect(same(work.params, params)).toBe(true);
  });
});
