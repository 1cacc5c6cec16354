/**
 * The network as a {@link Forecaster}: featurise each context, run the
 * network in chunks, undo the normalisation, roll out recursively beyond the
 * native horizon. `forecastDistribution` also runs the spread head.
 * @module
 */
import type { DistributionTarget, ForecastDistribution, Forecaster, Freq, ModelName } from "../types.js";
import { aggregationFactor, longSeasonLength, modelParams, networkShape, SEASONS_STEPS_PER_DAY, SPREAD_LEVELS, type NetworkShape } from "./config.js";
import type { Featurizer, WindowScale } from "./features.js";
import { createFeaturizer } from "./featurizer.js";
import { zeroMedianRule } from "./features-seasons.js";
import { blockMeansToEnd } from "../series/blocks.js";
import { medianInPlace } from "../stats/quantile.js";
import { NetworkRunner, parameterLayout, SPREAD_PER_STEP } from "./network.js";
import { pretrainedParameters } from "./weights.js";
import { withRecurrences } from "./recurrence.js";

const CHUNK = 256;

/** What one direct pass works in: the network runner with the parameters copied in, the featurizer and the chunk buffers. */
class PassWorkspace {
  readonly runner: NetworkRunner;
  readonly featurizer: Featurizer;
  readonly out: Float64Array;
  readonly spreadOut: Float64Array;
  readonly peerSums: Float64Array;
  readonly chunkInputs: Float64Array;
  readonly chunkScales: WindowScale[];
  constructor(shape: NetworkShape, params: Float64Array) {
    this.runner = new NetworkRunner(shape, CHUNK);
    this.runner.fixParameters(params);
    this.featurizer = createFeaturizer(shape);
    const O = shape.outputLength;
    this.out = new Float64Array(CHUNK * O);
    this.spreadOut = new Float64Array(CHUNK * O * SPREAD_PER_STEP);
    this.peerSums = new Float64Array(shape.contextLength);
    this.chunkInputs = new Float64Array(CHUNK * this.featurizer.layout.size);
    this.chunkScales = Array.from({ length: CHUNK }, () => ({ location: 0, scale: 0, constant: true }));
  }
}

/**
 * Idle workspaces, per parameter array and network shape. A runner holds a
 * WebAssembly arena of several MB with the parameters copied in; making a
 * workspace cost 4-8 ms, against 0.2-0.4 ms for a one-series forecast in
 * it. So forecasters of the same weights borrow one for each pass and give
 * it back (a pass started inside another, e.g. from a progress callback,
 * borrows another one). Keyed weakly by the parameters, so a fine-tuned
 * model's workspaces go with its weights; at most MAX_IDLE idle per key.
 */
const IDLE = new WeakMap<Float64Array, Map<NetworkShape, PassWorkspace[]>>();
const MAX_IDLE = 2;

function idleWorkspaces(shape: NetworkShape, params: Float64Array): PassWorkspace[] {
  let byShape = IDLE.get(params);
  if (byShape === undefined) {
    byShape = new Map();
    IDLE.set(params, byShape);
  }
  let idle = byShape.get(shape);
  if (idle === undefined) {
    idle = [];
    byShape.set(shape, idle);
  }
  return idle;
}

function borrowWorkspace(shape: NetworkShape, params: Float64Array): PassWorkspace {
  return idleWorkspaces(shape, params).pop() ?? new PassWorkspace(shape, params);
}

function returnWorkspace(shape: NetworkShape, params: Float64Array, workspace: PassWorkspace): void {
  const idle = idleWorkspaces(shape, params);
  if (idle.length < MAX_IDLE) idle.push(workspace);
}

/**
 * Options of {@link createNetworkForecaster}.
 * @category Network
 */
export interface NetworkForecasterOptions {
  /** Full parameter vector (e.g. fine-tuned); defaults to the pretrained one. */
  params?: Float64Array;
  /** forecastmodel-2.1 only: each forecast also reads the other series of the call. */
  multivariate?: boolean;
}

/**
 * A forecaster backed by a pretrained network.
 *
 * Each context is standardised (mean and standard deviation of its last
 * `inputSize` points), the network forecasts the standardised future, and the
 * result is mapped back: forecast = mean + std · output. A constant context
 * forecasts that constant. Horizons beyond the native one are rolled out by
 * appending the forecast to the context and forecasting again. A context
 * whose last `inputSize` points follow an exact linear recurrence of order
 * at most 4 (a noise-free sine, a ramp: see `withRecurrences`) is forecast
 * by extending it instead.
 *
 * `forecastDistribution` gives the same means with the spread head's
 * half-widths at the levels of `SPREAD_LEVELS`, times the window's standard
 * deviation (zero for a constant context). Beyond the native horizon each
 * further pass adds the last half-width of the steps before it in quadrature,
 * √(w_before² + w_pass²), so the spread keeps growing with the horizon.
 *
 * @example
 * ```ts
 * const f = createNetworkForecaster("forecastmodel-1", "M");
 * const out = f.forecast([new Float64Array([5, 5, 5, 5])], 3);
 * Array.from(out); // => [5, 5, 5]
 * ```
 * @category Models
 */
export function createNetworkForecaster(model: ModelName, freq: Freq, options: NetworkForecasterOptions = {}): Forecaster {
  const blocks = aggregationFactor(model, freq);
  if (blocks > 1) return blockForecaster(createNetworkForecaster(model, "30min", options), blocks, blocks * SEASONS_STEPS_PER_DAY);
  return withRecurrences(networkForecaster(model, freq, options), modelParams(model, freq).inputSize);
}

/** The network's own forecaster of {@link createNetworkForecaster} at a freq it reads without blocks, before exact recurrences. */
function networkForecaster(model: ModelName, freq: Freq, options: NetworkForecasterOptions): Forecaster {
  const shape = networkShape(model);
  const { seasonLength, horizon } = modelParams(model, freq);
  const params = options.params ?? pretrainedParameters(model);
  const expected = parameterLayout(shape).total;
  if (params.length !== expected) throw new RangeError(`${model} needs ${expected} parameters, got ${params.length}`);
  const crossSeries = shape.crossSeries && options.multivariate === true;
  const longSeason = longSeasonLength(model, freq);
  const seasonsView = shape.view === "seasons";
  const O = shape.outputLength;
  const L = shape.contextLength;
  const G = SPREAD_LEVELS.length;

  /** Where one direct pass writes: the mean and (optionally) the half-widths of `steps` values per context. */
  interface Target {
    readonly mean: Float64Array;
    readonly below: Float64Array | null;
    readonly above: Float64Array | null;
    readonly stride: number;
    readonly offset: number;
  }

  /** Direct forecast of `steps` (≤ horizon) values for each context into mean[i*stride + offset + k] (and the spreads). */
  function direct(contexts: readonly Float64Array[], steps: number, target: Target): void {
    const workspace = borrowWorkspace(shape, params);
    try {
      directIn(workspace, contexts, steps, target);
    } finally {
      returnWorkspace(shape, params, workspace);
    }
  }

  function directIn(workspace: PassWorkspace, contexts: readonly Float64Array[], steps: number, target: Target): void {
    const { runner, featurizer, out, spreadOut, peerSums, chunkInputs, chunkScales } = workspace;
    const D = featurizer.layout.size;
    const n = contexts.length;
    const spread = target.below !== null;
    if (crossSeries) {
      const scales: WindowScale[] = Array.from({ length: n }, () => ({ location: 0, scale: 0, constant: true }));
      // Peers need every context featurised before any forward pass.
      const x = new Float64Array(n * D);
      for (let i = 0; i < n; i++) featurizer.featurize(contexts[i]!, seasonLength, x, i * D, scales[i]!, longSeason);
      featurizer.writePeers(x, 0, n, peerSums);
      for (let c0 = 0; c0 < n; c0 += CHUNK) {
        const rows = Math.min(CHUNK, n - c0);
        const xs = x.subarray(c0 * D, (c0 + rows) * D);
        runner.forward(params, xs, rows, out);
        if (spread) runner.forwardSpread(params, xs, rows, spreadOut);
        for (let r = 0; r < rows; r++) {
          const i = c0 + r;
          emitForecast(scales[i]!, out, spreadOut, r * O, target, i * target.stride + target.offset, steps, seasonsView ? contexts[i]! : null, seasonLength);
        }
      }
    } else {
      for (let c0 = 0; c0 < n; c0 += CHUNK) {
        const rows = Math.min(CHUNK, n - c0);
        for (let r = 0; r < rows; r++) featurizer.featurize(contexts[c0 + r]!, seasonLength, chunkInputs, r * D, chunkScales[r]!, longSeason);
        runner.forward(params, chunkInputs, rows, out);
        if (spread) runner.forwardSpread(params, chunkInputs, rows, spreadOut);
        for (let r = 0; r < rows; r++) {
          const i = c0 + r;
          emitForecast(chunkScales[r]!, out, spreadOut, r * O, target, i * target.stride + target.offset, steps, seasonsView ? contexts[i]! : null, seasonLength);
        }
      }
    }
  }

  function run(contexts: readonly Float64Array[], h: number, withSpread: boolean): ForecastDistribution {
    if (!Number.isInteger(h) || h < 1) throw new RangeError(`h must be a positive integer, got ${h}`);
    for (let i = 0; i < contexts.length; i++) {
      if (contexts[i]!.length < 1) throw new RangeError(`context ${i} is empty: a forecast needs at least one point`);
    }
    const n = contexts.length;
    const mean = new Float64Array(n * h);
    const below = withSpread ? new Float64Array(n * h * G) : null;
    const above = withSpread ? new Float64Array(n * h * G) : null;
    const result = { levels: SPREAD_LEVELS, mean, below: below ?? new Float64Array(0), above: above ?? new Float64Array(0) };
    if (h <= horizon) {
      direct(contexts, h, { mean, below, above, stride: h, offset: 0 });
      return result;
    }
    // Recursive rollout: each context is extended by its own forecasts, `horizon` steps at a time.
    const keep = contexts.map((c) => Math.min(c.length, L));
    const buffers = contexts.map((c, i) => {
      const b = new Float64Array(keep[i]! + h);
      b.set(c.subarray(c.length - keep[i]!));
      return b;
    });
    const views: Float64Array[] = new Array<Float64Array>(n);
    for (let done = 0; done < h; done += horizon) {
      const steps = Math.min(horizon, h - done);
      for (let i = 0; i < n; i++) views[i] = buffers[i]!.subarray(0, keep[i]! + done);
      direct(views, steps, { mean, below, above, stride: h, offset: done });
      for (let i = 0; i < n; i++) buffers[i]!.set(mean.subarray(i * h + done, i * h + done + steps), keep[i]! + done);
      if (below !== null && above !== null && done > 0) {
        // The pass started from its own point forecasts, so its spread misses the
        // uncertainty already built up: add the last half-width of the steps
        // before in quadrature (independent errors add in variance).
        for (let i = 0; i < n; i++) {
          const last = (i * h + done - 1) * G;
          for (let k = 0; k < steps; k++) {
            const at = (i * h + done + k) * G;
            for (let j = 0; j < G; j++) {
              below[at + j] = Math.min(Math.hypot(below[at + j]!, below[last + j]!), Number.MAX_VALUE);
              above[at + j] = Math.min(Math.hypot(above[at + j]!, above[last + j]!), Number.MAX_VALUE);
            }
          }
        }
      }
    }
    return result;
  }

  return {
    name: model,
    seasonLength,
    forecast(contexts: readonly Float64Array[], h: number): Float64Array {
      return run(contexts, h, false).mean;
    },
    forecastDistribution(contexts: readonly Float64Array[], h: number): ForecastDistribution {
      return run(contexts, h, true);
    },
    forecastDistributionInto(contexts: readonly Float64Array[], h: number, into: DistributionTarget): boolean {
      // in place only for a direct pass (a rollout reads its own forecasts back) on this forecaster's levels
      if (!Number.isInteger(h) || h < 1 || h > horizon || !sameLevels(into.levels, SPREAD_LEVELS)) return false;
      for (let i = 0; i < contexts.length; i++) {
        if (contexts[i]!.length < 1) throw new RangeError(`context ${i} is empty: a forecast needs at least one point`);
      }
      direct(contexts, h, into);
      return true;
    },
    // the window view reads the last L points of each context (the rollout too); the seasons view and the peers read more
    ...(seasonsView || crossSeries ? {} : { contextReach: L }),
  };
}

/** Whether two level grids are the same values in the same order. */
function sameLevels(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Writes one context's forecast to `target` at `base`: `steps` values location + scale · output (the
 * network's outputs from `out[at]` on; the seasons view's zero-median rule applied with the context
 * `zeroMedianContext` and its day), and with the target's spreads their half-widths, scale · the
 * spread head's outputs (G below then G above per step, from `spreadOut[at · SPREAD_PER_STEP]` on); a
 * constant context gets its location and zero half-widths. A module function, not a closure of the
 * forecaster, so that its optimised code outlives each forecaster (a closure's is lost with it).
 */
function emitForecast(
  s: WindowScale,
  out: Float64Array,
  spreadOut: Float64Array,
  at: number,
  target: { readonly mean: Float64Array; readonly below: Float64Array | null; readonly above: Float64Array | null },
  base: number,
  steps: number,
  zeroMedianContext: Float64Array | null,
  day: number,
): void {
  const G = SPREAD_LEVELS.length;
  const { mean, below, above } = target;
  if (s.constant) {
    for (let k = 0; k < steps; k++) mean[base + k] = s.location;
    if (below !== null && above !== null) {
      below.fill(0, base * G, (base + steps) * G);
      above.fill(0, base * G, (base + steps) * G);
    }
    return;
  }
  for (let k = 0; k < steps; k++) mean[base + k] = s.location + s.scale * out[at + k]!;
  if (zeroMedianContext !== null) zeroMedianRule(zeroMedianContext, day, mean, base, steps);
  if (below === null || above === null) return;
  for (let k = 0; k < steps; k++) {
    const from = (at + k) * SPREAD_PER_STEP;
    const to = (base + k) * G;
    for (let j = 0; j < G; j++) {
      below[to + j] = Math.min(s.scale * spreadOut[from + j]!, Number.MAX_VALUE);
      above[to + j] = Math.min(s.scale * spreadOut[from + G + j]!, Number.MAX_VALUE);
    }
  }
}

/** Days of history the within-block profile of {@link blockForecaster} reads (the per-phase median over them). */
const BLOCK_PROFILE_DAYS = 8;

/**
 * A forecaster of sub-half-hourly data from one of half-hourly data: each
 * context is read as the means of its blocks of `blocks` steps (aligned to
 * its end; the oldest steps that fill no block are left out), `inner`
 * forecasts the next ⌈h / blocks⌉ block means, and each step gets its
 * block's mean plus the step's place in the daily profile within its block:
 * P(phase) − the mean of P over the block, P being the per-phase median of
 * the last {@link BLOCK_PROFILE_DAYS} days (0 with less than a day of
 * history). A context of non-negative values forecasts no negative value.
 * The spread of each step is its block's. So a day of `perDay` steps is
 * forecast directly, without rolling out.
 */
function blockForecaster(inner: Forecaster, blocks: number, perDay: number): Forecaster {
  const G = SPREAD_LEVELS.length;
  const profile = new Float64Array(perDay);
  const offset = new Float64Array(perDay);
  const column = new Float64Array(BLOCK_PROFILE_DAYS);

  /** offset[p]: the within-block place of phase p (p = t mod perDay) in the context's daily profile; zeros without a day. */
  function blockOffsets(c: Float64Array): void {
    const m = c.length;
    offset.fill(0);
    if (m < perDay) return;
    const days = Math.min(BLOCK_PROFILE_DAYS, Math.floor(m / perDay));
    for (let p = 0; p < perDay; p++) {
      // the last `days` points at phase p, before m
      const last = m - 1 - ((m - 1 - p) % perDay + perDay) % perDay;
      for (let d = 0; d < days; d++) column[d] = c[last - d * perDay]!;
      profile[p] = medianInPlace(column.subarray(0, days));
    }
    // blocks start at the phases congruent to m modulo `blocks` (they end at the context's end)
    const start = m % blocks;
    for (let b = 0; b < perDay / blocks; b++) {
      let sum = 0;
      for (let j = 0; j < blocks; j++) sum += profile[(start + b * blocks + j) % perDay]!;
      const blockMean = sum / blocks;
      for (let j = 0; j < blocks; j++) {
        const p = (start + b * blocks + j) % perDay;
        offset[p] = profile[p]! - blockMean;
      }
    }
  }

  function run(contexts: readonly Float64Array[], h: number, withSpread: boolean): ForecastDistribution {
    if (!Number.isInteger(h) || h < 1) throw new RangeError(`h must be a positive integer, got ${h}`);
    for (let i = 0; i < contexts.length; i++) {
      if (contexts[i]!.length < 1) throw new RangeError(`context ${i} is empty: a forecast needs at least one point`);
    }
    const n = contexts.length;
    const H = Math.ceil(h / blocks);
    const means = contexts.map((c) => blockMeansToEnd(c, blocks));
    const blockDist = withSpread ? inner.forecastDistribution!(means, H) : { mean: inner.forecast(means, H), below: new Float64Array(0), above: new Float64Array(0) };
    const mean = new Float64Array(n * h);
    const below = withSpread ? new Float64Array(n * h * G) : new Float64Array(0);
    const above = withSpread ? new Float64Array(n * h * G) : new Float64Array(0);
    for (let i = 0; i < n; i++) {
      const c = contexts[i]!;
      const m = c.length;
      // blocks align to the context's end only when it holds one; a shorter context is one block of its own
      if (m >= blocks) blockOffsets(c);
      else offset.fill(0);
      let nonNegative = true;
      for (let t = 0; t < m && nonNegative; t++) nonNegative = c[t]! >= 0;
      for (let s = 0; s < h; s++) {
        const b = Math.floor(s / blocks);
        const v = blockDist.mean[i * H + b]! + offset[(m + s) % perDay]!;
        mean[i * h + s] = nonNegative && v < 0 ? 0 : v;
        if (withSpread) {
          // the block's half-widths, copied without a view per step
          for (let j = 0, from = (i * H + b) * G, to = (i * h + s) * G; j < G; j++) {
            below[to + j] = blockDist.below[from + j]!;
            above[to + j] = blockDist.above[from + j]!;
          }
        }
      }
    }
    return { levels: SPREAD_LEVELS, mean, below, above };
  }

  return {
    name: inner.name,
    seasonLength: perDay,
    forecast(contexts: readonly Float64Array[], h: number): Float64Array {
      return run(contexts, h, false).mean;
    },
    forecastDistribution(contexts: readonly Float64Array[], h: number): ForecastDistribution {
      return run(contexts, h, true);
    },
  };
}
