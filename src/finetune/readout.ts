/**
 * The output end refit by ridge regression: the last stage of fine-tuning.
 *
 * The point network's output at step k is linear in what its output end
 * reads: the final normalised stream, a bias, and the classical projections
 * at k. Adam moves those weights slowly (a few steps cannot find the exact
 * combination a pattern needs), but their best values on given windows have
 * a closed form. So after the optimiser's steps they are fitted again, in the
 * windows' standardised units, by ridge regression pulled toward their
 * current values, with a penalty chosen on the series' most recent points:
 *
 * - fit windows: the windows the steps drew whose whole target (the native
 *   horizon) lies before the last `horizon` training points of its series;
 * - validation windows: every origin inside those last points (their
 *   targets are what is left of the series);
 * - each penalty of {@link READOUT_PENALTIES} is fitted on the fit windows and
 *   scored on the validation windows, beside the weights as they are; the
 *   best one, if it beats them, is fitted again on every drawn window with a
 *   whole target and kept. Otherwise nothing changes.
 */
import { networkShape, outputEndFeatures, parameterLayout, type ParameterLayout } from "../model/index.js";
import { choleskyInPlace, choleskySolve } from "../stats/index.js";
import type { Freq, ModelName } from "../types.js";

/**
 * Ridge penalties the refit chooses among, in units of windows: a penalty λ
 * weighs the current weights like λ windows that agree with them exactly
 * (the final stream is layer-normalised, so each window's feature vector has
 * squared length about the network's width).
 *
 * @example
 * ```ts
 * READOUT_PENALTIES; // => [1, 10, 100]
 * ```
 * @category Fine-tuning
 */
export const READOUT_PENALTIES: readonly number[] = [1, 10, 100];

/**
 * Most fit windows the refit reads (the first drawn with a whole target):
 * each costs a forward pass and a rank-one update of the normal equations.
 *
 * @example
 * ```ts
 * READOUT_MAX_FIT_WINDOWS; // => 256
 * ```
 * @category Fine-tuning
 */
export const READOUT_MAX_FIT_WINDOWS = 256;
/**
 * Most validation windows the refit reads (series in the order given, each
 * with all its origins in the validation zone, until the next would pass it).
 *
 * @example
 * ```ts
 * READOUT_MAX_VALIDATION_WINDOWS; // => 512
 * ```
 * @category Fine-tuning
 */
export const READOUT_MAX_VALIDATION_WINDOWS = 512;

/**
 * What the refit did: the penalty chosen (null: the weights were kept), the
 * mean squared validation error per target point (standardised units) of
 * the weights as they were and of the chosen penalty's fit, and how many
 * fit and validation windows it read.
 * @category Fine-tuning
 */
export interface ReadoutChoice {
  /** The ridge penalty of the refit kept (one of {@link READOUT_PENALTIES}); null: the weights were kept. */
  readonly penalty: number | null;
  /** Mean squared validation error per target point of the weights as they were (NaN: no validation ran). */
  readonly keptError: number;
  /** The same for the chosen penalty's fit before the validation zone (= keptError when none was kept). */
  readonly chosenError: number;
  /** Fit windows read (drawn windows with a whole target). */
  readonly fitWindows: number;
  /** Validation windows read. */
  readonly validationWindows: number;
}

/** The request's series as fine-tuning cut them, and the windows its steps drew. */
export interface ReadoutData {
  /** The series, divided by fine-tuning's power-of-two scale. */
  readonly scaled: Float64Array;
  /** Where each series starts in `scaled` (one more entry than series). */
  readonly offsets: Int32Array;
  /** Points of each series fine-tuning may read (its training part). */
  readonly trainLengths: Int32Array;
  /** Series fine-tuning reads, in its seeded order. */
  readonly usable: readonly number[];
  /** The native horizon: a whole target's length, and the length of each series' validation zone. */
  readonly horizon: number;
  /** Series of every drawn window, in drawing order. */
  readonly drawnSeries: Int32Array;
  /** Origin of every drawn window (its context is the points before it). */
  readonly drawnOrigins: Int32Array;
}

/**
 * Refits the output end of `params` in place, as the module header says, and
 * reports what it chose.
 *
 * @example
 * ```ts
 * const y = Float64Array.from({ length: 300 }, (_, t) => (t % 7) + 0.25 * Math.sin(t * 1.3));
 * const drawnOrigins = Int32Array.from({ length: 64 }, (_, i) => 96 + ((i * 37) % 190));
 * const params = pretrainedParameters("forecastmodel-1").slice();
 * const choice = refitOutputEnd("forecastmodel-1", "D", params, {
 *   scaled: y, offsets: Int32Array.from([0, 300]), trainLengths: Int32Array.from([300]), usable: [0],
 *   horizon: 14, drawnSeries: new Int32Array(64), drawnOrigins });
 * choice.penalty !== null && choice.chosenError < choice.keptError; // => true
 * ```
 * @category Fine-tuning
 */
export function refitOutputEnd(model: ModelName, freq: Freq, params: Float64Array, data: ReadoutData): ReadoutChoice {
  const { scaled, offsets, trainLengths, usable, horizon } = data;
  const shape = networkShape(model);
  const O = shape.outputLength;
  const steps = Math.min(O, horizon);
  // fit windows first (a flag says which also lie before the validation zone), then validation windows
  const contexts: Float64Array[] = [];
  const targets: Float64Array[] = [];
  const beforeZone: number[] = [];
  let fitBefore = 0;
  for (let w = 0; w < data.drawnSeries.length && contexts.length < READOUT_MAX_FIT_WINDOWS; w++) {
    const i = data.drawnSeries[w] as number;
    const t = data.drawnOrigins[w] as number;
    const length = trainLengths[i] as number;
    if (t + steps > length) continue;
    const o = offsets[i] as number;
    contexts.push(scaled.subarray(o, o + t));
    targets.push(scaled.subarray(o + t, o + t + steps));
    const before = t + steps <= length - horizon ? 1 : 0;
    beforeZone.push(before);
    fitBefore += before;
  }
  const fitCount = contexts.length;
  for (const i of usable) {
    const length = trainLengths[i] as number;
    const o = offsets[i] as number;
    const from = Math.max(1, length - horizon);
    if (contexts.length + (length - from) > fitCount + READOUT_MAX_VALIDATION_WINDOWS) break;
    for (let t = from; t < length; t++) {
      contexts.push(scaled.subarray(o, o + t));
      targets.push(scaled.subarray(o + t, o + Math.min(length, t + steps)));
    }
  }
  const validationCount = contexts.length - fitCount;
  const nothing = { penalty: null, keptError: Number.NaN, chosenError: Number.NaN, fitWindows: fitCount, validationWindows: validationCount };
  if (fitBefore === 0 || validationCount === 0) return nothing;

  const features = outputEndFeatures(model, freq, params, { contexts, targets });
  const { width: W, projectionCount: P, stream, projections } = features;
  const z = features.targets;
  const U = W + 1; // the stream and the bias
  const F = U + P;
  const layout = parameterLayout(shape);
  const current = new Float64Array(steps * F);
  copyOutputEnd(params, layout, W, P, O, steps, current, false);

  // Normal equations of the fit windows before the zone (part 0) and of the rest of the fit windows (part 1).
  const parts = [new NormalEquations(U, P, steps), new NormalEquations(U, P, steps)];
  const pending = [-1, -1]; // per part, a window waiting for a partner
  for (let i = 0; i < fitCount; i++) {
    let complete = true;
    for (let k = 0; k < steps; k++) if (Number.isNaN(z[i * O + k] as number)) complete = false;
    if (!complete) continue; // a constant window: no target in standardised units
    const part = beforeZone[i] === 1 ? 0 : 1;
    if (pending[part]! < 0) pending[part] = i;
    else {
      parts[part]!.addPair(stream, pending[part]!, i, projections, z, O);
      pending[part] = -1;
    }
  }
  for (let part = 0; part < 2; part++) if (pending[part]! >= 0) parts[part]!.add(stream, pending[part]!, projections, z, O);
  if (parts[0]!.windows === 0) return nothing;

  // Validation error of weights (steps × F) over the validation windows' target points.
  const validationError = (weights: Float64Array): number => {
    let total = 0;
    let count = 0;
    for (let i = fitCount; i < contexts.length; i++) {
      for (let k = 0; k < steps; k++) {
        const target = z[i * O + k] as number;
        if (Number.isNaN(target)) break;
        const w = k * F;
        let pred = weights[w + W] as number;
        for (let j = 0; j < W; j++) pred += (weights[w + j] as number) * (stream[i * W + j] as number);
        for (let p = 0; p < P; p++) pred += (weights[w + U + p] as number) * (projections[(i * P + p) * O + k] as number);
        total += (pred - target) ** 2;
        count++;
      }
    }
    return count > 0 ? total / count : Number.NaN;
  };
  const keptError = validationError(current);
  if (!Number.isFinite(keptError)) return nothing;
  const candidate = new Float64Array(steps * F);
  const solver = new RidgeSolver(parts[0]!);
  let best: number | null = null;
  let bestError = keptError;
  for (const penalty of READOUT_PENALTIES) {
    solver.solve(parts[0]!, penalty, current, candidate);
    const error = validationError(candidate);
    if (error < bestError) {
      bestError = error;
      best = penalty;
    }
  }
  if (best === null) return { ...nothing, keptError, chosenError: keptError };
  parts[0]!.addAll(parts[1]!);
  solver.solve(parts[0]!, best, current, candidate);
  copyOutputEnd(params, layout, W, P, O, steps, candidate, true);
  return { penalty: best, keptError, chosenError: bestError, fitWindows: fitCount, validationWindows: validationCount };
}

/**
 * Copies the output end's weights of steps 0 .. steps − 1 between the flat
 * parameters and `packed` (per step: the W head weights, the bias, the P
 * projection mix weights): into `packed`, or back into `params` when `toParams`.
 */
function copyOutputEnd(params: Float64Array, layout: ParameterLayout, W: number, P: number, O: number, steps: number, packed: Float64Array, toParams: boolean): void {
  const F = W + 1 + P;
  for (let k = 0; k < steps; k++) {
    const places = [layout.headB + k];
    for (let p = 0; p < P; p++) places.push(layout.mix + p * O + k);
    for (let j = 0; j < W; j++) {
      if (toParams) params[layout.headW + k * W + j] = packed[k * F + j] as number;
      else packed[k * F + j] = params[layout.headW + k * W + j] as number;
    }
    places.forEach((at, i) => {
      if (toParams) params[at] = packed[k * F + W + i] as number;
      else packed[k * F + W + i] = params[at] as number;
    });
  }
}

/**
 * Sums of the normal equations of windows with a whole target: the stream
 * block (shared by every step) and, per step k, the projection block, the
 * cross block and the right-hand side.
 */
class NormalEquations {
  readonly U: number;
  readonly P: number;
  readonly steps: number;
  /** U × U, lower triangle: Σ s sᵀ with s = (stream, 1). */
  readonly streamGram: Float64Array;
  /** steps × P × U: Σ p_k sᵀ. */
  readonly cross: Float64Array;
  /** steps × P × P, lower triangle: Σ p_k p_kᵀ. */
  readonly projectionGram: Float64Array;
  /** steps × (U + P): Σ φ_k z_k. */
  readonly rhs: Float64Array;
  windows = 0;

  constructor(U: number, P: number, steps: number) {
    this.U = U;
    this.P = P;
    this.steps = steps;
    this.streamGram = new Float64Array(U * U);
    this.cross = new Float64Array(steps * P * U);
    this.projectionGram = new Float64Array(steps * P * P);
    this.rhs = new Float64Array(steps * (U + P));
  }

  /** Adds window i (stream row i, projections of row i, targets z[i·O + k]); see addPair. */
  add(stream: Float64Array, i: number, projections: Float64Array, z: Float64Array, O: number): void {
    this.addPair(stream, i, -1, projections, z, O);
  }

  /** Adds windows i and j (j < 0: none), the stream block of both in one sweep. */
  addPair(stream: Float64Array, i: number, j: number, projections: Float64Array, z: Float64Array, O: number): void {
    const { U, streamGram: g } = this;
    const W = U - 1;
    const s = stream.subarray(i * W, i * W + W);
    const bias = W * U;
    if (j >= 0) {
      const t = stream.subarray(j * W, j * W + W);
      for (let x = 0; x < W; x++) {
        const sx = s[x] as number;
        const tx = t[x] as number;
        const at = x * U;
        for (let y = 0; y <= x; y++) g[at + y] = (g[at + y] as number) + (sx * (s[y] as number) + tx * (t[y] as number));
      }
      for (let y = 0; y < W; y++) g[bias + y] = (g[bias + y] as number) + ((s[y] as number) + (t[y] as number));
      g[bias + W] = (g[bias + W] as number) + 2;
      this.addSteps(s, i, projections, z, O);
      this.addSteps(t, j, projections, z, O);
      this.windows += 2;
      return;
    }
    for (let x = 0; x < W; x++) {
      const sx = s[x] as number;
      const at = x * U;
      for (let y = 0; y <= x; y++) g[at + y] = (g[at + y] as number) + sx * (s[y] as number);
    }
    for (let y = 0; y < W; y++) g[bias + y] = (g[bias + y] as number) + (s[y] as number);
    g[bias + W] = (g[bias + W] as number) + 1;
    this.addSteps(s, i, projections, z, O);
    this.windows++;
  }

  /** The per-step parts of window i (its stream row s). */
  private addSteps(s: Float64Array, i: number, projections: Float64Array, z: Float64Array, O: number): void {
    const { U, P, steps, rhs, cross, projectionGram } = this;
    const W = U - 1;
    const F = U + P;
    for (let k = 0; k < steps; k++) {
      const target = z[i * O + k] as number;
      const r = k * F;
      for (let x = 0; x < W; x++) rhs[r + x] = (rhs[r + x] as number) + (s[x] as number) * target;
      rhs[r + W] = (rhs[r + W] as number) + target;
      for (let p = 0; p < P; p++) {
        const vp = projections[(i * P + p) * O + k] as number;
        rhs[r + U + p] = (rhs[r + U + p] as number) + vp * target;
        const c = (k * P + p) * U;
        for (let x = 0; x < W; x++) cross[c + x] = (cross[c + x] as number) + vp * (s[x] as number);
        cross[c + W] = (cross[c + W] as number) + vp;
        const pg = (k * P + p) * P;
        for (let q = 0; q <= p; q++) projectionGram[pg + q] = (projectionGram[pg + q] as number) + vp * (projections[(i * P + q) * O + k] as number);
      }
    }
  }

  /** this += other (same shape). */
  addAll(other: NormalEquations): void {
    const pairs: [Float64Array, Float64Array][] = [[this.streamGram, other.streamGram], [this.cross, other.cross], [this.projectionGram, other.projectionGram], [this.rhs, other.rhs]];
    for (const [into, from] of pairs) for (let i = 0; i < into.length; i++) into[i] = (into[i] as number) + (from[i] as number);
    this.windows += other.windows;
  }
}

/**
 * Ridge solutions per step of the summed normal equations, by the Schur
 * complement of the shared stream block: (G + λI) is factored once per
 * penalty, each step then solves a P × P system.
 */
class RidgeSolver {
  private readonly chol: Float64Array;
  private readonly rhsBlock: Float64Array; // U × (P + 1)
  private readonly schur: Float64Array; // P × P
  private readonly b: Float64Array; // P

  /** Work space for normal equations of `eq`'s sizes. */
  constructor(eq: NormalEquations) {
    const { U, P } = eq;
    this.chol = new Float64Array(U * U);
    this.rhsBlock = new Float64Array(U * (P + 1));
    this.schur = new Float64Array(P * P);
    this.b = new Float64Array(P);
  }

  /** Writes into out (steps × (U + P)) the minimiser of Σ(φᵀw − z)² + λ‖w − w₀‖² per step, over the windows of `eq`. */
  solve(eq: NormalEquations, penalty: number, current: Float64Array, out: Float64Array): void {
    const { U, P, steps } = eq;
    const { schur, b } = this;
    const F = U + P;
    const R = P + 1;
    const L = this.chol;
    L.set(eq.streamGram);
    for (let i = 0; i < U; i++) L[i * U + i] = (L[i * U + i] as number) + penalty;
    choleskyInPlace(L, U);
    // per step: column 0 of B (B[0 .. U)) is y = (G + λI)⁻¹(r_u + λ w0_u), columns 1..P are X = (G + λI)⁻¹ Cᵀ
    const B = this.rhsBlock;
    for (let k = 0; k < steps; k++) {
      const w0 = k * F;
      for (let a = 0; a < U; a++) B[a] = (eq.rhs[k * F + a] as number) + penalty * (current[w0 + a] as number);
      B.set(eq.cross.subarray(k * P * U, (k + 1) * P * U), U);
      for (let r = 0; r < R; r++) choleskySolve(L, U, B.subarray(r * U, (r + 1) * U));
      // Schur complement S = B + λI − C X, and b = r_p + λ w0_p − C y
      for (let p = 0; p < P; p++) {
        const c = (k * P + p) * U;
        let bp = (eq.rhs[k * F + U + p] as number) + penalty * (current[w0 + U + p] as number);
        for (let a = 0; a < U; a++) bp -= (eq.cross[c + a] as number) * (B[a] as number);
        b[p] = bp;
        for (let q = 0; q <= p; q++) {
          let sum = (eq.projectionGram[(k * P + p) * P + q] as number) + (p === q ? penalty : 0);
          const xq = (1 + q) * U;
          for (let a = 0; a < U; a++) sum -= (eq.cross[c + a] as number) * (B[xq + a] as number);
          schur[p * P + q] = sum;
        }
      }
      choleskyInPlace(schur, P);
      choleskySolve(schur, P, b);
      for (let p = 0; p < P; p++) out[w0 + U + p] = b[p] as number;
      for (let a = 0; a < U; a++) {
        let v = B[a] as number;
        for (let p = 0; p < P; p++) v -= (B[(1 + p) * U + a] as number) * (b[p] as number);
        out[w0 + a] = v;
      }
    }
  }
}
