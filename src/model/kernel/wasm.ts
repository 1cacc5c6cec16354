/**
 * Loading the shipped WebAssembly kernels: each is a base64 module, compiled
 * once per thread on first use, and instantiated with a memory of its own
 * imported as `env.memory`. Where the runtime has no WebAssembly (or refuses
 * the module) every loader answers null and the kernels' TypeScript twins
 * compute the same bits.
 * @module
 */
import { base64ByteLength, decodeBase64Bytes } from "../base64.js";

/** The part of the WebAssembly JavaScript API the kernels use (the project compiles without the DOM library). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

/**
 * A kernel's memory: its buffer (replaced when it grows) and `grow(pages)`.
 * @category Network
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/**
 * Bytes of a WebAssembly memory page.
 *
 * @example
 * ```ts
 * WASM_PAGE; // => 65536
 * ```
 * @category Network
 */
export const WASM_PAGE = 65_536;

const compiled = new Map<string, object | null>();

/**
 * The compiled module of a base64 kernel (the same object for the same text),
 * or null where WebAssembly SIMD is unavailable or the bytes do not validate.
 *
 * @example
 * ```ts
 * compiledKernel("") === null; // => true
 * ```
 * @category Network
 */
export function compiledKernel(base64: string): object | null {
  const known = compiled.get(base64);
  if (known !== undefined) return known;
  let module: object | null = null;
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  try {
    if (api !== undefined && base64.length > 0) {
      const bytes = decodeBase64Bytes(base64, base64ByteLength(base64));
      if (api.validate(bytes)) module = new api.Module(bytes);
    }
  } catch {
    module = null;
  }
  compiled.set(base64, module);
  return module;
}

/**
 * An instance of a compiled kernel with a fresh memory of `pages` pages
 * imported as `env.memory`, and that memory.
 *
 * @example
 * ```ts
 * const module = compiledKernel("AGFzbQEAAAA="); // the empty module: magic number and version
 * module === null || instantiateKernel(module, 2).memory.buffer.byteLength === 2 * WASM_PAGE; // => true
 * ```
 * @category Network
 */
export function instantiateKernel<E>(module: object, pages: number): { exports: E; memory: WasmMemory } {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!;
  const memory = new api.Memory({ initial: pages });
  const { exports } = new api.Instance(module, { env: { memory } });
  return { exports: exports as E, memory };
}

/**
 * A kernel made from the module of `base64`, instantiated with `pages` pages
 * of its own memory and given to `build`; null where WebAssembly SIMD is
 * unavailable, the bytes do not validate or `build` throws. Each call makes
 * a new instance (see {@link lazyKernel} for one per thread).
 *
 * @example
 * ```ts
 * const bytes = makeKernel("AGFzbQEAAAA=", 2, (_exports, memory) => memory.buffer.byteLength);
 * [bytes === null || bytes === 2 * WASM_PAGE, makeKernel("", 1, () => 1)]; // => [true, null]
 * ```
 * @category Network
 */
export function makeKernel<E, K>(base64: string, pages: number, build: (exports: E, memory: WasmMemory) => K): K | null {
  const module = compiledKernel(base64);
  if (module === null) return null;
  try {
    const { exports, memory } = instantiateKernel<E>(module, pages);
    return build(exports, memory);
  } catch {
    return null;
  }
}

/**
 * A getter of a kernel made once per thread on first use ({@link makeKernel});
 * null (also on every later call) where it cannot be made.
 *
 * @example
 * ```ts
 * const kernel = lazyKernel("AGFzbQEAAAA=", 1, (_exports, memory) => memory.buffer.byteLength);
 * [kernel() === null || kernel() === WASM_PAGE, lazyKernel("", 1, () => 1)()]; // => [true, null]
 * ```
 * @category Network
 */
export function lazyKernel<E, K>(base64: string, pages: number, build: (exports: E, memory: WasmMemory) => K): () => K | null {
  let made: K | null | undefined;
  return () => {
    if (made === undefined) made = makeKernel(base64, pages, build);
    return made;
  };
}
