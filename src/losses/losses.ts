/**
 * Fine-tune losses: value and gradient with respect to the predictions.
 *
 * Every loss has the signature of the model's loss callback,
 * `(pred, actual, gradOut) => number`: it returns the loss of one sample (a
 * mean over its elements) and overwrites `gradOut[i]` with `dLoss/dPred[i]`.
 * All losses are `>= 0`, are `0` at a perfect prediction (`pred === actual`
 * element-wise) and return `0` (with a zero gradient) for empty arrays.
 * Where a loss has a kink the gradient is a documented subgradient.
 * @module
 */
/**
 * A fine-tune loss: returns the loss of one sample (mean over its elements) and
 * writes the gradient `dLoss/dPred` into `gradOut` (same length as `pred`).
 * This is the signature of the model's per-sample loss callback.
 *
 * @example
 * ```ts
 * const loss: FinetuneLossFunction = getLoss("mse");
 * loss(new Float64Array([2]), new Float64Array([1]), new Float64Array(1)); // => 1
 * ```
 * @category Fine-tuning losses
 */
export type FinetuneLossFunction = (pred: Float64Array, actual: Float64Array, gradOut: Float64Array) => number;

/**
 * Huber threshold of the `default` loss, in units of the sample's scale
 * (mean |actual|): scaled errors up to 0.1 (10 % of the level) count
 * quadratically, larger ones linearly (with slope 1, like the MAE on scaled
 * values that the network was pretrained with).
 *
 * @example
 * ```ts
 * DEFAULT_LOSS_HUBER_DELTA; // => 0.1
 * ```
 * @category Fine-tuning losses
 */
export const DEFAULT_LOSS_HUBER_DELTA = 0.1;

/**
 * Fraction `c` of the actual value below which the `poisson` loss continues
 * linearly (see {@link poissonLoss}): predictions under 10 % of the actual,
 * and every negative prediction, get the constant slope `1 - 1/c = -9`.
 *
 * @example
 * ```ts
 * POISSON_LOSS_LINEAR_FRACTION; // => 0.1
 * ```
 * @category Fine-tuning losses
 */
export const POISSON_LOSS_LINEAR_FRACTION = 0.1;

/** Smallest positive normal double; smaller magnitudes count as zero where we divide by them. */
const MIN_NORMAL = 2.2250738585072014e-308;

function checkLengths(pred: Float64Array, actual: Float64Array, gradOut: Float64Array): void {
  if (actual.length !== pred.length) {
    throw new RangeError(`loss: actual has length ${actual.length}, pred has length ${pred.length}; they must match`);
  }
  if (gradOut.length !== pred.length) {
    throw new RangeError(`loss: gradOut has length ${gradOut.length}, pred has length ${pred.length}; they must match`);
  }
}

/** The shared [sum, compensation] pair of the losses (they run synchronously), reset to zero. */
const ACCUMULATOR = new Float64Array(2);
function freshAccumulator(): Float64Array {
  ACCUMULATOR[0] = 0;
  ACCUMULATOR[1] = 0;
  return ACCUMULATOR;
}

/** Neumaier-compensated accumulator step: adds x to the [sum, compensation] pair in place. */
function neumaierAdd(acc: Float64Array, x: number): void {
  const s = acc[0] as number;
  const t = s + x;
  if (Math.abs(s) >= Math.abs(x)) acc[1] = (acc[1] as number) + (s - t + x);
  else acc[1] = (acc[1] as number) + (x - t + s);
  acc[0] = t;
}

/** Compensated total; an infinite running sum (overflow or an infinite term) stays infinite instead of NaN. */
function finishSum(sum: number, comp: number): number {
  return Number.isFinite(sum) ? sum + comp : sum;
}

function sign(x: number): number {
  return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/**
 * The term of element i of a loss that is a mean of per-element terms: its
 * share of the loss (already divided by n), with gradOut[i] written.
 */
type ElementTerm = (p: number, a: number, n: number, gradOut: Float64Array, i: number) => number;

/**
 * A loss that is a mean of per-element terms: checks the lengths, 0 for empty
 * input, else the Neumaier-compensated sum of `term` over the elements in order.
 */
function sumOfTerms(pred: Float64Array, actual: Float64Array, gradOut: Float64Array, term: ElementTerm): number {
  checkLengths(pred, actual, gradOut);
  const n = pred.length;
  if (n === 0) return 0;
  const acc = freshAccumulator();
  for (let i = 0; i < n; i++) neumaierAdd(acc, term(pred[i] as number, actual[i] as number, n, gradOut, i));
  return finishSum(acc[0] as number, acc[1] as number);
}

/**
 * Options of {@link createScaledHuberLoss}.
 *
 * @example
 * ```ts
 * const options: ScaledHuberLossOptions = { delta: 1, scale: 10 };
 * createScaledHuberLoss(options)(new Float64Array([30]), new Float64Array([10]), new Float64Array(1)); // => 1.5
 * ```
 * @category Fine-tuning losses
 */
export interface ScaledHuberLossOptions {
  /** Huber threshold in scaled units (default {@link DEFAULT_LOSS_HUBER_DELTA}). Must be > 0. */
  delta?: number;
  /**
   * A fixed positive scale to divide errors by (e.g. the context's mean
   * absolute value). When absent the scale is the sample's mean |actual|
   * (1 when that is 0).
   */
  scale?: number;
}

/**
 * Creates a Huber loss on scaled errors.
 *
 * With `u_i = (pred_i - actual_i) / s`, the loss is `mean_i h(u_i)` where
 * `h(u) = u^2 / (2 delta)` for `|u| <= delta` and `|u| - delta / 2` beyond
 * (the "smooth L1" form: slope at most 1, so one outlier adds at most
 * `|error| / (n s)` and the loss grows at most linearly in it). The scale `s`
 * is `options.scale` when given, else the sample's mean |actual| (1 when that
 * is 0 or subnormal: an all-zero target is then measured in raw units). The
 * gradient is `h'(u_i) / (n s)` with `h'(u) = u / delta` or `sign(u)`.
 *
 * @param options - threshold and optional fixed scale
 * @returns a {@link FinetuneLossFunction}
 * @example
 * ```ts
 * const loss = createScaledHuberLoss({ delta: 1, scale: 2 });
 * const g = new Float64Array(2);
 * loss(new Float64Array([3, 10]), new Float64Array([1, 2]), g); // => (0.5 + 3.5) / 2 = 2
 * Array.from(g); // => [0.25, 0.25]
 * ```
 * @category Fine-tuning losses
 */
export function createScaledHuberLoss(options: ScaledHuberLossOptions = {}): FinetuneLossFunction {
  const delta = options.delta ?? DEFAULT_LOSS_HUBER_DELTA;
  if (!(delta > 0) || !Number.isFinite(delta)) throw new RangeError(`createScaledHuberLoss: delta must be a finite number > 0, got ${delta}`);
  const fixedScale = options.scale;
  if (fixedScale !== undefined && (!(fixedScale > 0) || !Number.isFinite(fixedScale))) {
    throw new RangeError(`createScaledHuberLoss: scale must be a finite number > 0, got ${fixedScale}`);
  }
  return (pred, actual, gradOut) => {
    const acc = freshAccumulator();
    checkLengths(pred, actual, gradOut);
    const n = pred.length;
    if (n === 0) return 0;
    let scale = fixedScale;
    if (scale === undefined) {
      // mean of |a|/n rather than sum/n, so values near the double maximum do not overflow
      for (let i = 0; i < n; i++) neumaierAdd(acc, Math.abs(actual[i] as number) / n);
      const meanAbs = finishSum(acc[0] as number, acc[1] as number);
      // a subnormal scale would make 1 / scale overflow: treat it like 0
      scale = meanAbs >= MIN_NORMAL ? meanAbs : 1;
    }
    acc[0] = 0;
    acc[1] = 0;
    const gradFactor = 1 / (n * scale);
    for (let i = 0; i < n; i++) {
      const u = ((pred[i] as number) - (actual[i] as number)) / scale;
      const au = Math.abs(u);
      if (au <= delta) {
        neumaierAdd(acc, (u * u) / (2 * delta));
        gradOut[i] = (u / delta) * gradFactor;
      } else {
        neumaierAdd(acc, au - delta / 2);
        gradOut[i] = sign(u) * gradFactor;
      }
    }
    return finishSum(acc[0] as number, acc[1] as number) / n;
  };
}

/**
 * The `default` fine-tune loss: a robust Huber loss on errors scaled by the
 * sample's mean |actual| (see {@link createScaledHuberLoss} with the default
 * threshold {@link DEFAULT_LOSS_HUBER_DELTA}).
 *
 * Why: scaling makes series of any level weigh alike in a batch (the network's
 * pretraining loss was also on scaled values), and the linear tails (slope 1 in
 * scaled units, as the MAE the network was pretrained with) keep an outlier
 * from dominating: the loss grows at most linearly in one element's error.
 *
 * @param pred - predictions of one sample
 * @param actual - actual values (same length)
 * @param gradOut - receives dLoss/dPred (same length)
 * @returns the loss, `>= 0`
 * @example
 * ```ts
 * const g = new Float64Array(2);
 * defaultRobustLoss(new Float64Array([10, 10]), new Float64Array([10, 10]), g); // => 0
 * defaultRobustLoss(new Float64Array([12, 10]), new Float64Array([10, 10]), g); // => (0.2 - 0.05) / 2 ≈ 0.075
 * ```
 * @category Fine-tuning losses
 */
export const defaultRobustLoss: FinetuneLossFunction = createScaledHuberLoss();

/**
 * Mean absolute error `mean_i |pred_i - actual_i|`; gradient
 * `sign(pred_i - actual_i) / n` (subgradient 0 where they are equal).
 *
 * @param pred - predictions
 * @param actual - actual values (same length)
 * @param gradOut - receives dLoss/dPred (same length)
 * @returns the loss, `>= 0`
 * @example
 * ```ts
 * const g = new Float64Array(2);
 * maeLoss(new Float64Array([1, 5]), new Float64Array([2, 2]), g); // => 2
 * Array.from(g); // => [-0.5, 0.5]
 * ```
 * @category Fine-tuning losses
 */
export function maeLoss(pred: Float64Array, actual: Float64Array, gradOut: Float64Array): number {
  return sumOfTerms(pred, actual, gradOut, absoluteErrorTerm);
}

const absoluteErrorTerm: ElementTerm = (p, a, n, gradOut, i) => {
  const e = p - a;
  gradOut[i] = sign(e) / n;
  return Math.abs(e) / n;
};

/**
 * Mean squared error `mean_i (pred_i - actual_i)^2`; gradient
 * `2 (pred_i - actual_i) / n`. Errors beyond ~1e154 overflow to `Infinity`.
 *
 * @param pred - predictions
 * @param actual - actual values (same length)
 * @param gradOut - receives dLoss/dPred (same length)
 * @returns the loss, `>= 0`
 * @example
 * ```ts
 * const g = new Float64Array(2);
 * mseLoss(new Float64Array([1, 5]), new Float64Array([2, 2]), g); // => (1 + 9) / 2 = 5
 * Array.from(g); // => [-1, 3]
 * ```
 * @category Fine-tuning losses
 */
export function mseLoss(pred: Float64Array, actual: Float64Array, gradOut: Float64Array): number {
  return sumOfTerms(pred, actual, gradOut, squaredErrorTerm);
}

const squaredErrorTerm: ElementTerm = (p, a, n, gradOut, i) => {
  const e = p - a;
  gradOut[i] = (2 * e) / n;
  return (e * e) / n;
};

/**
 * Root mean squared error `sqrt(mean_i (pred_i - actual_i)^2)`; gradient
 * `(pred_i - actual_i) / (n * rmse)`, and 0 at a perfect prediction (where the
 * square root has no derivative; 0 is a subgradient). Computed on errors divided
 * by the largest |error| so it does not overflow for huge errors.
 *
 * @param pred - predictions
 * @param actual - actual values (same length)
 * @param gradOut - receives dLoss/dPred (same length)
 * @returns the loss, `>= 0`
 * @example
 * ```ts
 * const g = new Float64Array(2);
 * rmseLoss(new Float64Array([3, 6]), new Float64Array([0, 2]), g); // => sqrt((9 + 16) / 2) ≈ 3.5355
 * Array.from(g); // => [3 / (2 * 3.5355), 4 / (2 * 3.5355)] ≈ [0.4243, 0.5657]
 * ```
 * @category Fine-tuning losses
 */
export function rmseLoss(pred: Float64Array, actual: Float64Array, gradOut: Float64Array): number {
  checkLengths(pred, actual, gradOut);
  const n = pred.length;
  if (n === 0) return 0;
  let maxAbs = 0;
  for (let i = 0; i < n; i++) {
    const ae = Math.abs((pred[i] as number) - (actual[i] as number));
    if (ae > maxAbs || Number.isNaN(ae)) maxAbs = ae;
  }
  if (maxAbs === 0) {
    gradOut.fill(0);
    return 0;
  }
  if (!Number.isFinite(maxAbs)) {
    // infinite or NaN error: the loss is not finite; gradients are sign/NaN of the error
    for (let i = 0; i < n; i++) gradOut[i] = sign((pred[i] as number) - (actual[i] as number)) / n;
    return Number.isNaN(maxAbs) ? NaN : Infinity;
  }
  const acc = freshAccumulator();
  for (let i = 0; i < n; i++) {
    const r = ((pred[i] as number) - (actual[i] as number)) / maxAbs;
    const x = (r * r) / n;
    neumaierAdd(acc, x);
  }
  const rootMeanScaled = Math.sqrt((acc[0] as number) + (acc[1] as number));
  const rmse = maxAbs * rootMeanScaled;
  for (let i = 0; i < n; i++) {
    const r = ((pred[i] as number) - (actual[i] as number)) / maxAbs;
    gradOut[i] = r / (n * rootMeanScaled);
  }
  return rmse;
}

/**
 * Mean absolute percentage error, as a fraction (not times 100):
 * `mean over i with actual_i != 0 of |pred_i - actual_i| / |actual_i|`.
 * Elements whose actual is 0 (or subnormal, |a| < 2.2e-308, where 1/|a|
 * overflows) are skipped (their gradient is 0); when every actual is 0 the loss is 0. Gradient: `sign(pred_i - actual_i) /
 * (m |actual_i|)` with `m` the number of non-zero actuals (subgradient 0 at a
 * perfect element).
 *
 * @param pred - predictions
 * @param actual - actual values (same length)
 * @param gradOut - receives dLoss/dPred (same length)
 * @returns the loss, `>= 0`
 * @example
 * ```ts
 * const g = new Float64Array(3);
 * mapeLoss(new Float64Array([11, 3, 7]), new Float64Array([10, 4, 0]), g); // => (0.1 + 0.25) / 2 = 0.175
 * Array.from(g); // => [0.05, -0.125, 0]
 * ```
 * @category Fine-tuning losses
 */
export function mapeLoss(pred: Float64Array, actual: Float64Array, gradOut: Float64Array): number {
  checkLengths(pred, actual, gradOut);
  const n = pred.length;
  let m = 0;
  // NaN actuals count (and make the loss NaN); zero and subnormal ones are skipped
  for (let i = 0; i < n; i++) if (!(Math.abs(actual[i] as number) < MIN_NORMAL)) m++;
  if (m === 0) {
    gradOut.fill(0);
    return 0;
  }
  const acc = freshAccumulator();
  for (let i = 0; i < n; i++) {
    const a = actual[i] as number;
    const aa = Math.abs(a);
    if (aa < MIN_NORMAL) {
      gradOut[i] = 0;
      continue;
    }
    const e = (pred[i] as number) - a;
    const x = Math.abs(e) / aa / m;
    neumaierAdd(acc, x);
    gradOut[i] = sign(e) / (m * aa);
  }
  return finishSum(acc[0] as number, acc[1] as number);
}

/**
 * Symmetric MAPE, as a fraction in [0, 2]:
 * `mean_i 2 |pred_i - actual_i| / (|pred_i| + |actual_i|)`, with `0/0 := 0`
 * (both zero counts as a perfect element).
 *
 * Gradient of element i (divided by n): `(sign(d) - f sign(p)/2) * 2 / D` with
 * `d = p - a`, `D = |p| + |a|`, `f` the element's term; it is a subgradient with
 * `sign(0) = 0`, i.e. 0 at `p = a` and, at `p = 0 != a`, `-2 sign(a) / |a|`
 * (which points the prediction towards the actual). 0 when `p = a = 0`.
 *
 * @param pred - predictions
 * @param actual - actual values (same length)
 * @param gradOut - receives dLoss/dPred (same length)
 * @returns the loss, `>= 0`
 * @example
 * ```ts
 * const g = new Float64Array(2);
 * smapeLoss(new Float64Array([3, 0]), new Float64Array([1, 0]), g); // => (2 * 2 / 4 + 0) / 2 = 0.5
 * Array.from(g); // => [(1 - 0.5) * 2 / 4 / 2, 0] = [0.125, 0]
 * ```
 * @category Fine-tuning losses
 */
export function smapeLoss(pred: Float64Array, actual: Float64Array, gradOut: Float64Array): number {
  return sumOfTerms(pred, actual, gradOut, symmetricPercentageTerm);
}

// A perfect element adds 0, which leaves the running sum (>= 0 or NaN) as it is.
const symmetricPercentageTerm: ElementTerm = (p, a, n, gradOut, i) => {
  // halves, so that neither the difference nor the denominator overflows
  const halfDiff = p / 2 - a / 2;
  const halfDenom = Math.abs(p) / 2 + Math.abs(a) / 2;
  if (halfDenom === 0 || p === a) {
    gradOut[i] = 0;
    return 0;
  }
  const f = (2 * Math.abs(halfDiff)) / halfDenom;
  gradOut[i] = (sign(halfDiff) - (f / 2) * sign(p)) / halfDenom / n;
  return f / n;
};

/** `x - log1p(x)` for x > -1, accurate (and >= 0) also for tiny |x|. */
function xMinusLog1p(x: number): number {
  if (Math.abs(x) < 1e-2) {
    // series x^2/2 - x^3/3 + x^4/4 - ... (alternating), enough terms for double precision at |x| < 0.01
    let term = x * x;
    let s = 0;
    let sgn = 1;
    for (let k = 2; k <= 9; k++) {
      s += (sgn * term) / k;
      term *= x;
      sgn = -sgn;
    }
    return s;
  }
  return Math.max(0, x - Math.log1p(x));
}

/**
 * Poisson deviance (halved), extended to every real prediction.
 *
 * For `actual_i = a >= 0` and prediction `p`, with `c` =
 * {@link POISSON_LOSS_LINEAR_FRACTION} and `t = c a`:
 * - `p >= t` (and p >= 0): `p - a - a ln(p / a)` (the Poisson negative
 *   log-likelihood minus its value at `p = a`; with `0 ln 0 = 0` this is `p`
 *   when `a = 0`); derivative `1 - a / p`.
 * - `p < t` (this covers every negative prediction): the tangent line continued
 *   from `t`, `a (c - 1 - ln c) + (1 - 1/c)(p - t)`, with slope `1 - 1/c`
 *   (= -9 for c = 0.1). It is convex, positive and pushes a negative or
 *   much-too-small prediction up with a bounded gradient instead of the
 *   unbounded `-a/p` of the log.
 * - `a = 0` and `p = 0`: loss 0, subgradient 0.
 * - `a < 0` (outside the Poisson model): the element counts as absolute error
 *   `|p - a|` with gradient `sign(p - a)`.
 *
 * The loss is the mean over elements; gradients are divided by n.
 *
 * @param pred - predictions
 * @param actual - actual values (same length), normally counts `>= 0`
 * @param gradOut - receives dLoss/dPred (same length)
 * @returns the loss, `>= 0`
 * @example
 * ```ts
 * const g = new Float64Array(2);
 * poissonLoss(new Float64Array([2, 0]), new Float64Array([2, 0]), g); // => 0
 * poissonLoss(new Float64Array([1, -1]), new Float64Array([2, 0]), g); // => ((1 - 2 - 2 ln 0.5) + 9) / 2 ≈ 4.6931
 * Array.from(g); // => [(1 - 2 / 1) / 2, -9 / 2] = [-0.5, -4.5]
 * ```
 * @category Fine-tuning losses
 */
export function poissonLoss(pred: Float64Array, actual: Float64Array, gradOut: Float64Array): number {
  return sumOfTerms(pred, actual, gradOut, poissonTerm);
}

const POISSON_TAIL_SLOPE = 1 - 1 / POISSON_LOSS_LINEAR_FRACTION;
/** The tangent's value at the threshold, per unit of a. */
const POISSON_VALUE_AT_THRESHOLD = POISSON_LOSS_LINEAR_FRACTION - 1 - Math.log(POISSON_LOSS_LINEAR_FRACTION);

const poissonTerm: ElementTerm = (p, a, n, gradOut, i) => {
  const c = POISSON_LOSS_LINEAR_FRACTION;
  const tailSlope = POISSON_TAIL_SLOPE;
  let value: number;
  let grad: number;
  if (a < 0) {
    value = Math.abs(p - a);
    grad = sign(p - a);
  } else if (a === 0) {
    if (p >= 0) {
      value = p;
      grad = p > 0 ? 1 : 0;
    } else {
      value = tailSlope * p;
      grad = tailSlope;
    }
  } else {
    const threshold = c * a;
    if (p >= threshold) {
      const x = (p - a) / a;
      // a * (r - 1 - ln r), r = p / a: as a * (x - log1p(x)) near r = 1 (no cancellation),
      // as (p - a) - a (ln p - ln a) for r > 2 (no overflow of p / a)
      value = x <= 1 ? a * xMinusLog1p(x) : p - a - a * (Math.log(p) - Math.log(a));
      grad = 1 - a / p;
    } else {
      value = a * POISSON_VALUE_AT_THRESHOLD + tailSlope * (p - threshold);
      grad = tailSlope;
    }
  }
  gradOut[i] = grad / n;
  return value / n;
};

/**
 * The losses table: one entry per fine-tune loss, name → loss function, in
 * the API's order. {@link LossName}, {@link finetuneLossNames} and the API's
 * `finetune_loss` values are read from it; adding a loss is one entry here.
 *
 * @example
 * ```ts
 * Object.keys(LOSSES).length; // => 7
 * LOSSES.mae === maeLoss; // => true
 * ```
 * @category Fine-tuning losses
 */
export const LOSSES = {
  /** {@link defaultRobustLoss}: a scaled Huber loss that outliers cannot dominate. */
  default: defaultRobustLoss,
  /** {@link maeLoss}: mean absolute error. */
  mae: maeLoss,
  /** {@link mseLoss}: mean squared error. */
  mse: mseLoss,
  /** {@link rmseLoss}: root mean squared error. */
  rmse: rmseLoss,
  /** {@link mapeLoss}: mean absolute percentage error. */
  mape: mapeLoss,
  /** {@link smapeLoss}: symmetric mean absolute percentage error. */
  smape: smapeLoss,
  /** {@link poissonLoss}: Poisson deviance, continued linearly near zero. */
  poisson: poissonLoss,
} as const satisfies Readonly<Record<string, FinetuneLossFunction>>;

/**
 * Fine-tune losses: the names of the losses table ({@link LOSSES}).
 * @category Types
 */
export type LossName = keyof typeof LOSSES;

/**
 * Every loss name accepted by {@link getLoss}, in the API's order: the keys of {@link LOSSES}.
 *
 * @example
 * ```ts
 * finetuneLossNames.length; // => 7
 * finetuneLossNames[0]; // => "default"
 * ```
 * @category Fine-tuning losses
 */
export const finetuneLossNames: readonly LossName[] = Object.freeze(Object.keys(LOSSES) as LossName[]);

/**
 * The loss function for a fine-tune loss name: its entry of {@link LOSSES}.
 *
 * `default` → {@link defaultRobustLoss}, `mae` → {@link maeLoss}, `mse` →
 * {@link mseLoss}, `rmse` → {@link rmseLoss}, `mape` → {@link mapeLoss},
 * `smape` → {@link smapeLoss}, `poisson` → {@link poissonLoss}.
 *
 * @param name - a {@link LossName}
 * @returns the matching {@link FinetuneLossFunction}
 * @throws RangeError for an unknown name
 * @example
 * ```ts
 * const loss = getLoss("mae");
 * loss(new Float64Array([1]), new Float64Array([3]), new Float64Array(1)); // => 2
 * ```
 * @category Fine-tuning losses
 */
export function getLoss(name: LossName): FinetuneLossFunction {
  if (typeof name !== "string" || !Object.prototype.hasOwnProperty.call(LOSSES, name)) {
    throw new RangeError(`getLoss: unknown loss ${JSON.stringify(name)}; expected one of ${finetuneLossNames.join(", ")}`);
  }
  return LOSSES[name];
}
