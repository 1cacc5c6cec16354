/**
 * SVG charts of a series, its forecast, the interval band and the flagged
 * anomalies, as pure functions returning SVG text (no DOM, no I/O). The host
 * decides where the text goes: a file, an HTTP response, an `<img>` data URL.
 * @module
 */

/**
 * The forecast part of a chart: values at x positions `start, start + 1, …`.
 * @category Charts
 */
export interface AnomalyChartForecast {
  /** x position (0-based index into the chart's `values`) of the first forecast value; may be past the end of `values`. */
  readonly start: number;
  /** Point forecasts. Non-finite values leave a gap. */
  readonly mean: ArrayLike<number>;
  /** Lower interval bound per forecast value (same length as `mean`), or absent for no band. */
  readonly lo?: ArrayLike<number>;
  /** Upper interval bound per forecast value (same length as `mean`), or absent for no band. */
  readonly hi?: ArrayLike<number>;
  /**
   * Several bands (e.g. one per level), each with its legend text; drawn
   * widest first, each in its own shade. When given, `lo` and `hi` are not
   * drawn.
   */
  readonly bands?: readonly ChartBand[];
}

/**
 * One interval band of a chart: bounds per forecast value and its legend text.
 * @category Charts
 */
export interface ChartBand {
  /** Legend text, e.g. `"95% interval"`. */
  readonly label: string;
  /** Lower bound per forecast value (the length of the forecast's `mean`). */
  readonly lo: ArrayLike<number>;
  /** Upper bound per forecast value (the length of the forecast's `mean`). */
  readonly hi: ArrayLike<number>;
}

/**
 * What {@link renderAnomalyChart} draws. Only `title` and `values` are required.
 * @category Charts
 */
export interface AnomalyChartInput {
  /** Title above the plot (escaped; any text is safe). */
  readonly title: string;
  /** Observed values in time order; x position i is `values[i]`. Non-finite values leave a gap. */
  readonly values: ArrayLike<number>;
  /** Forecast (and interval band) over some x positions. */
  readonly forecast?: AnomalyChartForecast;
  /** x positions (indices into `values`) of the flagged points; drawn as red dots. */
  readonly anomalies?: ArrayLike<number>;
  /** Text of x position i (e.g. a date); positions without a label show the index. */
  readonly labels?: readonly string[];
  /** x positions that get a tick; default: about 8 evenly spaced "nice" positions. */
  readonly xTicks?: readonly number[];
  /** Shade the plot from this x position to the end (e.g. the detection window). */
  readonly highlightStart?: number;
  /** Legend text of the interval band (`forecast.lo`/`hi`); default `"interval"`. */
  readonly intervalLabel?: string;
  /** Legend text of the shaded region; default `"highlighted"` (`anomalyChartInput` sets `"detection window"`). */
  readonly highlightLabel?: string;
  /** Title of the time axis (escaped). */
  readonly xTitle?: string;
  /** Title of the value axis (escaped). */
  readonly yTitle?: string;
  /** Width in px; default 960; finite, in [200, 100000]. */
  readonly width?: number;
  /** Height in px; default 420; finite, in [120, 100000]. */
  readonly height?: number;
}

const COLORS = {
  series: "#1f2937",
  forecast: "#2563eb",
  band: "#60a5fa",
  /** Band shades, innermost (narrowest) first. */
  bands: ["#60a5fa", "#93c5fd", "#bfdbfe", "#dbeafe"],
  anomaly: "#dc2626",
  grid: "#e5e7eb",
  axis: "#6b7280",
  highlight: "#fdf8e8",
} as const;

/**
 * Escapes text for SVG/XML content and attribute values (`& < > " '`).
 *
 * @example
 * ```ts
 * escapeSvgText('a < b & "c"'); // => "a &lt; b &amp; &quot;c&quot;"
 * ```
 * @category Charts
 */
export function escapeSvgText(text: string): string {
  // Control characters other than tab/newline are not allowed in XML 1.0: drop them.
  // eslint-disable-next-line no-control-regex
  const clean = String(text).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "");
  return clean
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** A pixel coordinate with at most 2 decimals; never NaN, never "-0". */
function px(v: number): string {
  if (!Number.isFinite(v)) return "0";
  const r = Math.round(v * 100) / 100;
  return r === 0 ? "0" : String(r);
}

/** Linear map of a finite domain onto a pixel range without overflow (halves before subtracting). */
interface Scale {
  readonly lo: number;
  readonly hi: number;
  map(v: number): number;
}

function linearScale(lo: number, hi: number, p0: number, p1: number): Scale {
  const halfSpan = hi / 2 - lo / 2;
  return {
    lo,
    hi,
    map(v: number): number {
      const t = halfSpan > 0 ? (v / 2 - lo / 2) / halfSpan : 0.5;
      return p0 + t * (p1 - p0);
    },
  };
}

/** Finite min/max over several arrays; null when none is finite. */
function finiteExtent(arrays: readonly (ArrayLike<number> | undefined)[]): [number, number] | null {
  let min = Infinity;
  let max = -Infinity;
  for (const a of arrays) {
    if (a === undefined) continue;
    for (let i = 0; i < a.length; i++) {
      const v = a[i] as number;
      if (!Number.isFinite(v)) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return min <= max ? [min, max] : null;
}

/** Padded value domain: 5% each side, or ±10% (±1 at zero) for a constant series; always finite. */
function valueDomain(extent: [number, number] | null): [number, number] {
  if (extent === null) return [-1, 1];
  const [min, max] = extent;
  const halfSpan = max / 2 - min / 2;
  let lo: number;
  let hi: number;
  if (halfSpan > 0) {
    const pad = halfSpan * 0.1; // = 5% of the full span
    lo = min - pad;
    hi = max + pad;
  } else {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    lo = min - pad;
    hi = max + pad;
  }
  if (!Number.isFinite(lo)) lo = -Number.MAX_VALUE;
  if (!Number.isFinite(hi)) hi = Number.MAX_VALUE;
  if (!(hi / 2 - lo / 2 > 0)) {
    // the padding vanished in rounding (denormals): widen by a fixed amount
    lo = min - 1;
    hi = max + 1;
  }
  return [lo, hi];
}

/** A step of 1, 2 or 5 × 10^e close to span / count; `exponent` is e. */
function niceStep(span: number, count: number): { step: number; exponent: number } | null {
  const raw = span / count;
  if (!(raw > 0) || !Number.isFinite(raw)) return null;
  const exponent = Math.floor(Math.log10(raw));
  const base = Math.pow(10, exponent);
  const f = raw / base;
  const mult = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
  const step = mult * base;
  if (!(step > 0) || !Number.isFinite(step)) return null;
  return { step, exponent: mult === 10 ? exponent + 1 : exponent };
}

/** Tick values of a numeric axis and their labels, at most ~12 ticks. */
function valueTicks(lo: number, hi: number): { value: number; label: string }[] {
  const span = hi / 2 - lo / 2;
  const nice = niceStep(span, 2.5); // span is half the range: 2.5 halves ≈ 5 ticks
  if (nice === null) return [{ value: lo, label: formatTick(lo, 0) }, { value: hi, label: formatTick(hi, 0) }];
  const { step, exponent } = nice;
  const first = Math.ceil(lo / step);
  const last = Math.floor(hi / step);
  const out: { value: number; label: string }[] = [];
  if (!Number.isFinite(first) || !Number.isFinite(last) || last - first > 20) {
    return [{ value: lo, label: formatTick(lo, 0) }, { value: hi, label: formatTick(hi, 0) }];
  }
  const decimals = Math.max(0, -exponent);
  for (let k = first; k <= last; k++) {
    const value = k * step;
    out.push({ value, label: formatTick(value, decimals) });
  }
  return out;
}

/** Short, deterministic tick label: fixed decimals for ordinary magnitudes, 3 significant digits otherwise. */
function formatTick(v: number, decimals: number): string {
  const a = Math.abs(v);
  let s: string;
  if (a !== 0 && (a >= 1e9 || a < 1e-4 || decimals > 6)) s = v.toExponential(2);
  else s = v.toFixed(Math.min(decimals, 20));
  if (/^-0(\.0*)?$/.test(s)) s = s.slice(1);
  return s;
}

/** About `count` (default 8) integer x positions in [0, last] at a nice step. */
function defaultXTicks(last: number, count = 8): number[] {
  if (last <= 0) return [0];
  const nice = niceStep(last, count);
  const step = nice === null ? 1 : Math.max(1, Math.round(nice.step));
  const out: number[] = [];
  for (let i = 0; i <= last; i += step) out.push(i);
  return out;
}

/** "M x y L x y …" for runs of consecutive finite points; gaps break the line. */
function linePath(
  xs: ArrayLike<number>,
  start: number,
  xScale: Scale,
  yScale: Scale,
): string {
  const parts: string[] = [];
  let pen = false;
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i] as number;
    if (!Number.isFinite(v)) {
      pen = false;
      continue;
    }
    parts.push(`${pen ? "L" : "M"}${px(xScale.map(start + i))} ${px(yScale.map(v))}`);
    pen = true;
  }
  return parts.join(" ");
}

/** Closed polygons (upper bound forward, lower bound back) for runs where both bounds are finite. */
function bandPath(
  lo: ArrayLike<number>,
  hi: ArrayLike<number>,
  start: number,
  xScale: Scale,
  yScale: Scale,
): string {
  const parts: string[] = [];
  const n = Math.min(lo.length, hi.length);
  let i = 0;
  while (i < n) {
    while (i < n && !(Number.isFinite(lo[i] as number) && Number.isFinite(hi[i] as number))) i++;
    const runStart = i;
    while (i < n && Number.isFinite(lo[i] as number) && Number.isFinite(hi[i] as number)) i++;
    if (i <= runStart) continue;
    const pts: string[] = [];
    // a run of one point gets a small width so it stays visible
    const half = i - runStart === 1 ? 0.3 : 0;
    for (let j = runStart; j < i; j++) {
      const x = start + j;
      if (half > 0) {
        pts.push(`${px(xScale.map(x - half))} ${px(yScale.map(hi[j] as number))}`);
        pts.push(`${px(xScale.map(x + half))} ${px(yScale.map(hi[j] as number))}`);
      } else pts.push(`${px(xScale.map(x))} ${px(yScale.map(hi[j] as number))}`);
    }
    for (let j = i - 1; j >= runStart; j--) {
      const x = start + j;
      if (half > 0) {
        pts.push(`${px(xScale.map(x + half))} ${px(yScale.map(lo[j] as number))}`);
        pts.push(`${px(xScale.map(x - half))} ${px(yScale.map(lo[j] as number))}`);
      } else pts.push(`${px(xScale.map(x))} ${px(yScale.map(lo[j] as number))}`);
    }
    parts.push(`M${pts.join(" L")} Z`);
  }
  return parts.join(" ");
}

/** The bands a chart draws, narrowest first: `forecast.bands` sorted by mean width, else the one `lo`/`hi` band. */
function chartBands(input: AnomalyChartInput): ChartBand[] {
  const f = input.forecast;
  if (f === undefined) return [];
  if (f.bands !== undefined) {
    const width = (b: ChartBand): number => {
      let sum = 0;
      for (let i = 0; i < b.lo.length; i++) {
        const w = (b.hi[i] as number) - (b.lo[i] as number);
        if (Number.isFinite(w)) sum += w;
      }
      return sum;
    };
    return f.bands.map((b) => ({ b, w: width(b) })).sort((p, q) => p.w - q.w).map((p) => p.b);
  }
  return f.lo !== undefined && f.hi !== undefined ? [{ label: input.intervalLabel ?? "interval", lo: f.lo, hi: f.hi }] : [];
}

/** The shade of band k of `count` (narrowest first): one band keeps the chart's band colour; several go from dark to light. */
function bandColor(count: number, k: number): string {
  return count === 1 ? COLORS.band : (COLORS.bands[Math.min(k, COLORS.bands.length - 1)] as string);
}

/** One translucent band as before; several opaque shades, so each band's colour is the one in the legend. */
function bandOpacity(count: number): string {
  return count === 1 ? "0.35" : "1";
}

/** How many x tick labels fit side by side in `plotWidth` px (2 to 8): the longest label at about 6.5 px a character plus a 24 px gap (4 characters when there are no labels). */
function tickFit(labels: readonly string[] | undefined, plotWidth: number): number {
  const longest = labels === undefined ? 4 : labels.reduce((m, l) => Math.max(m, l.length), 0);
  return Math.max(2, Math.min(8, Math.floor(plotWidth / (longest * 6.5 + 24))));
}

/** Where series `index` starts: its first value in the request's y and its first row in the result. */
function seriesStart(sizes: ArrayLike<number>, resultSizes: ArrayLike<number>, index: number): { start: number; row: number } {
  let start = 0;
  let row = 0;
  for (let i = 0; i < index; i++) {
    start += sizes[i] as number;
    row += resultSizes[i] as number;
  }
  return { start, row };
}

function checkInput(input: AnomalyChartInput): void {
  if (input === null || typeof input !== "object") throw new RangeError("renderAnomalyChart: input must be an object");
  if (typeof input.title !== "string") throw new RangeError("renderAnomalyChart: title must be a string");
  if (input.values === null || typeof input.values !== "object" || typeof input.values.length !== "number") {
    throw new RangeError("renderAnomalyChart: values must be an array of numbers");
  }
  for (const [name, v, min] of [
    ["width", input.width, 200],
    ["height", input.height, 120],
  ] as const) {
    if (v !== undefined && !(Number.isFinite(v) && v >= min && v <= 100_000)) {
      throw new RangeError(`renderAnomalyChart: ${name} must be a finite number in [${min}, 100000]`);
    }
  }
  const f = input.forecast;
  if (f !== undefined) {
    if (!Number.isInteger(f.start) || f.start < 0) {
      throw new RangeError("renderAnomalyChart: forecast.start must be an integer >= 0");
    }
    if ((f.lo === undefined) !== (f.hi === undefined)) {
      throw new RangeError("renderAnomalyChart: forecast.lo and forecast.hi must be given together");
    }
    if (f.lo !== undefined && f.hi !== undefined && (f.lo.length !== f.mean.length || f.hi.length !== f.mean.length)) {
      throw new RangeError("renderAnomalyChart: forecast.lo and forecast.hi must have the length of forecast.mean");
    }
    f.bands?.forEach((b, k) => {
      if (b === null || typeof b !== "object" || typeof b.label !== "string" || b.lo?.length !== f.mean.length || b.hi?.length !== f.mean.length) {
        throw new RangeError(`renderAnomalyChart: forecast.bands[${k}] must be { label, lo, hi } with lo and hi of the length of forecast.mean`);
      }
    });
  }
  if (input.highlightStart !== undefined && !(Number.isInteger(input.highlightStart) && input.highlightStart >= 0)) {
    throw new RangeError("renderAnomalyChart: highlightStart must be an integer >= 0");
  }
}

/**
 * Renders a line chart of a series with its forecast, interval band and
 * flagged anomalies as a standalone SVG document (text).
 *
 * Layout: title on top, legend below it, value axis on the left with "nice"
 * ticks (steps of 1, 2 or 5 × 10^k over the finite values padded by 5%), time
 * axis at the bottom (ticks at `xTicks` or about 8 nice integer positions,
 * labelled with `labels[i]` when given). Non-finite values leave gaps;
 * coordinates are rounded to 0.01 px and are always finite, so the text is
 * deterministic: the same input gives the same bytes. A constant series gets
 * a ±10% value range (±1 around 0); a single point is centred. All text is
 * XML-escaped. Cost: O(n) in the number of points.
 *
 * @param input - what to draw (see {@link AnomalyChartInput}).
 * @returns SVG 1.1 text starting with `<svg` and ending with `</svg>\n`.
 * @throws RangeError when the input's shape is invalid (e.g. `lo`/`hi` lengths differ from `mean`).
 *
 * @example
 * ```ts
 * const svg = renderAnomalyChart({
 *   title: "Sales & returns",
 *   values: [10, 12, 11, 30, 12],
 *   forecast: { start: 3, mean: [11.5, 12], lo: [9, 9.5], hi: [14, 14.5] },
 *   anomalies: [3],
 * });
 * svg.startsWith("<svg"); // => true
 * svg.includes("Sales &amp; returns"); // => true
 * ```
 * @category Charts
 */
export function renderAnomalyChart(input: AnomalyChartInput): string {
  checkInput(input);
  const width = input.width ?? 960;
  const height = input.height ?? 420;
  const values = input.values;
  const f = input.forecast;
  const n = values.length;
  const fEnd = f === undefined ? 0 : f.start + f.mean.length;
  const nX = Math.max(n, fEnd);

  const margin = { left: 72, right: 20, top: 64, bottom: input.xTitle === undefined ? 40 : 58 };
  const plotLeft = margin.left;
  const plotRight = width - margin.right;
  const plotTop = margin.top;
  const plotBottom = height - margin.bottom;

  const [x0, x1] = nX <= 1 ? [-1, 1] : [-0.5, nX - 0.5];
  const xScale = linearScale(x0, x1, plotLeft, plotRight);
  const bands = chartBands(input);
  const [v0, v1] = valueDomain(finiteExtent([values, f?.mean, ...bands.flatMap((b) => [b.lo, b.hi])]));
  const yScale = linearScale(v0, v1, plotBottom, plotTop);

  const out: string[] = [];
  const fontAttrs = `font-family="Helvetica, Arial, sans-serif"`;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px(width)}" height="${px(height)}" viewBox="0 0 ${px(width)} ${px(height)}" role="img" ${fontAttrs} font-size="12">`,
  );
  out.push(`<title>${escapeSvgText(input.title)}</title>`);
  out.push(`<rect x="0" y="0" width="${px(width)}" height="${px(height)}" fill="#ffffff"/>`);

  // detection window shading
  const hs = input.highlightStart;
  const showHighlight = hs !== undefined && hs < nX;
  if (showHighlight) {
    const xa = Math.max(plotLeft, xScale.map(hs - 0.5));
    out.push(
      `<rect class="highlight" x="${px(xa)}" y="${px(plotTop)}" width="${px(Math.max(0, plotRight - xa))}" height="${px(plotBottom - plotTop)}" fill="${COLORS.highlight}"/>`,
    );
  }

  // value axis: grid lines and labels
  out.push(`<g class="y-axis" fill="${COLORS.axis}" text-anchor="end">`);
  for (const t of valueTicks(v0, v1)) {
    const y = px(yScale.map(t.value));
    out.push(`<line x1="${px(plotLeft)}" y1="${y}" x2="${px(plotRight)}" y2="${y}" stroke="${COLORS.grid}"/>`);
    out.push(`<text x="${px(plotLeft - 8)}" y="${y}" dy="0.32em">${escapeSvgText(t.label)}</text>`);
  }
  out.push(`</g>`);

  // time axis
  out.push(`<g class="x-axis" fill="${COLORS.axis}" text-anchor="middle">`);
  out.push(
    `<line x1="${px(plotLeft)}" y1="${px(plotBottom)}" x2="${px(plotRight)}" y2="${px(plotBottom)}" stroke="${COLORS.axis}"/>`,
  );
  if (nX > 0) {
    // fewer ticks when the labels are long (dates with times), so they do not overlap
    const ticks = input.xTicks ?? defaultXTicks(nX - 1, tickFit(input.labels, plotRight - plotLeft));
    for (const t of ticks) {
      if (!Number.isFinite(t) || t < 0 || t > nX - 1) continue;
      const x = px(xScale.map(t));
      const label = input.labels?.[t] ?? String(t);
      out.push(`<line x1="${x}" y1="${px(plotBottom)}" x2="${x}" y2="${px(plotBottom + 5)}" stroke="${COLORS.axis}"/>`);
      out.push(`<text x="${x}" y="${px(plotBottom + 18)}">${escapeSvgText(label)}</text>`);
    }
  } else {
    out.push(
      `<text x="${px((plotLeft + plotRight) / 2)}" y="${px((plotTop + plotBottom) / 2)}">no data</text>`,
    );
  }
  out.push(`</g>`);
  if (input.xTitle !== undefined) {
    out.push(
      `<text class="x-title" x="${px((plotLeft + plotRight) / 2)}" y="${px(height - 10)}" text-anchor="middle" fill="${COLORS.axis}">${escapeSvgText(input.xTitle)}</text>`,
    );
  }
  if (input.yTitle !== undefined) {
    const cy = px((plotTop + plotBottom) / 2);
    out.push(
      `<text class="y-title" x="16" y="${cy}" transform="rotate(-90 16 ${cy})" text-anchor="middle" fill="${COLORS.axis}">${escapeSvgText(input.yTitle)}</text>`,
    );
  }

  // interval bands (widest first, so the narrower ones lie on top), series, forecast, anomalies
  for (let k = bands.length - 1; k >= 0; k--) {
    const b = bands[k] as ChartBand;
    const d = bandPath(b.lo, b.hi, (f as AnomalyChartForecast).start, xScale, yScale);
    if (d !== "") out.push(`<path class="band" d="${d}" fill="${bandColor(bands.length, k)}" fill-opacity="${bandOpacity(bands.length)}" stroke="none"/>`);
  }
  const seriesD = linePath(values, 0, xScale, yScale);
  if (seriesD !== "") {
    out.push(`<path class="series" d="${seriesD}" fill="none" stroke="${COLORS.series}" stroke-width="1.5" stroke-linejoin="round"/>`);
  }
  if (n === 1 && Number.isFinite(values[0] as number)) {
    out.push(
      `<circle class="point" cx="${px(xScale.map(0))}" cy="${px(yScale.map(values[0] as number))}" r="2.5" fill="${COLORS.series}"/>`,
    );
  }
  if (f !== undefined) {
    const d = linePath(f.mean, f.start, xScale, yScale);
    if (d !== "") {
      out.push(
        `<path class="forecast" d="${d}" fill="none" stroke="${COLORS.forecast}" stroke-width="1.5" stroke-dasharray="5 3" stroke-linejoin="round"/>`,
      );
    }
    if (f.mean.length === 1 && Number.isFinite(f.mean[0] as number)) {
      out.push(
        `<circle class="forecast-point" cx="${px(xScale.map(f.start))}" cy="${px(yScale.map(f.mean[0] as number))}" r="2.5" fill="${COLORS.forecast}"/>`,
      );
    }
  }
  const anomalies = input.anomalies;
  let anomalyCount = 0;
  if (anomalies !== undefined && anomalies.length > 0) {
    const dots: string[] = [];
    for (let k = 0; k < anomalies.length; k++) {
      const i = anomalies[k] as number;
      if (!Number.isInteger(i) || i < 0 || i >= n) continue;
      const v = values[i] as number;
      if (!Number.isFinite(v)) continue;
      dots.push(`<circle cx="${px(xScale.map(i))}" cy="${px(yScale.map(v))}" r="4.5"/>`);
      anomalyCount++;
    }
    if (dots.length > 0) {
      out.push(`<g class="anomalies" fill="${COLORS.anomaly}" stroke="#ffffff" stroke-width="1">`);
      out.push(...dots);
      out.push(`</g>`);
    }
  }

  // plot frame
  out.push(
    `<rect x="${px(plotLeft)}" y="${px(plotTop)}" width="${px(plotRight - plotLeft)}" height="${px(plotBottom - plotTop)}" fill="none" stroke="${COLORS.axis}" stroke-width="0.5"/>`,
  );

  // title and legend
  out.push(
    `<text class="title" x="${px(plotLeft)}" y="24" font-size="16" font-weight="bold" fill="#111827">${escapeSvgText(input.title)}</text>`,
  );
  const legend: string[] = [];
  let lx = plotLeft;
  const ly = 46;
  const addEntry = (swatch: string, label: string): void => {
    legend.push(swatch.replace(/X0/g, px(lx)).replace(/X1/g, px(lx + 22)).replace(/XC/g, px(lx + 11)));
    legend.push(`<text x="${px(lx + 28)}" y="${px(ly)}" dy="0.32em">${escapeSvgText(label)}</text>`);
    // approximate text width: 6.5 px per character at 12 px
    lx += 28 + Math.ceil(label.length * 6.5) + 18;
  };
  addEntry(`<line x1="X0" y1="${ly}" x2="X1" y2="${ly}" stroke="${COLORS.series}" stroke-width="2"/>`, "observed");
  if (f !== undefined) {
    addEntry(
      `<line x1="X0" y1="${ly}" x2="X1" y2="${ly}" stroke="${COLORS.forecast}" stroke-width="2" stroke-dasharray="5 3"/>`,
      "forecast",
    );
  }
  bands.forEach((b, k) => {
    addEntry(`<rect x="X0" y="${ly - 6}" width="22" height="12" fill="${bandColor(bands.length, k)}" fill-opacity="${bandOpacity(bands.length)}"/>`, b.label);
  });
  if (showHighlight) {
    addEntry(
      `<rect x="X0" y="${ly - 6}" width="22" height="12" fill="${COLORS.highlight}" stroke="${COLORS.grid}"/>`,
      input.highlightLabel ?? "highlighted",
    );
  }
  if (anomalies !== undefined) {
    addEntry(
      `<circle cx="XC" cy="${ly}" r="4.5" fill="${COLORS.anomaly}"/>`,
      `anomaly (${anomalyCount})`,
    );
  }
  out.push(`<g class="legend" fill="#374151">`, ...legend, `</g>`);
  out.push(`</svg>`);
  return out.join("\n") + "\n";
}

/**
 * The series part of an anomaly-detection request body that {@link anomalyChartInput} reads.
 * @category Charts
 */
export interface AnomalyChartRequest {
  /** The request's series: values concatenated, with their lengths. */
  readonly series: {
    /** Values of all series, concatenated. */
    readonly y: ArrayLike<number>;
    /** Length of each series. */
    readonly sizes: ArrayLike<number>;
  };
}

/**
 * The parts of an anomaly-detection result that {@link anomalyChartInput} reads.
 * @category Charts
 */
export interface AnomalyChartResult {
  /** Forecast of each output row. */
  readonly mean: ArrayLike<number>;
  /** Output rows per series. */
  readonly sizes: ArrayLike<number>;
  /** Position of each output row in the request's y. */
  readonly idxs: ArrayLike<number>;
  /** Whether each row is flagged. */
  readonly anomaly: ArrayLike<boolean>;
  /** Interval bounds keyed `lo-<L>` / `hi-<L>`, or null. */
  readonly intervals: Readonly<Record<string, ArrayLike<number>>> | null;
}

/**
 * Builds the {@link AnomalyChartInput} of series `seriesIndex` from an
 * online-anomaly-detection request body and its result: the series' values,
 * the forecasts of its detection rows (placed at `idxs` minus the series'
 * start in `y`), the band of the first `lo-<L>`/`hi-<L>` pair (labelled
 * "L% interval"), the flagged rows, and the detection window shaded.
 *
 * @param request - the request body (only `series.y` and `series.sizes` are read).
 * @param result - the result of that request.
 * @param seriesIndex - which series, 0-based.
 * @param extra - fields to set or override (title, labels, size…).
 * @throws RangeError when `seriesIndex` is out of range or the result does not match the request.
 *
 * @example
 * ```ts
 * const request = { series: { y: [1, 2, 3, 9, 5, 6], sizes: [3, 3] } };
 * const result = {
 *   mean: [2.9, 5.1], sizes: [1, 1], idxs: [2, 5], anomaly: [false, false],
 *   intervals: { "lo-99": [2, 4], "hi-99": [4, 6] },
 * };
 * const input = anomalyChartInput(request, result, 1, { title: "second" });
 * [input.values, input.forecast?.start, input.intervalLabel];
 * // => [[9, 5, 6], 2, "99% interval"]
 * ```
 * @category Charts
 */
export function anomalyChartInput(
  request: AnomalyChartRequest,
  result: AnomalyChartResult,
  seriesIndex: number,
  extra: Partial<AnomalyChartInput> = {},
): AnomalyChartInput {
  const sizes = request.series.sizes;
  if (!Number.isInteger(seriesIndex) || seriesIndex < 0 || seriesIndex >= sizes.length) {
    throw new RangeError(`anomalyChartInput: seriesIndex must be an integer in [0, ${sizes.length - 1}]`);
  }
  if (result.sizes.length !== sizes.length) {
    throw new RangeError("anomalyChartInput: result.sizes must have one entry per series of the request");
  }
  const { start, row } = seriesStart(sizes, result.sizes, seriesIndex);
  const length = sizes[seriesIndex] as number;
  const rows = result.sizes[seriesIndex] as number;
  const values = Array.from({ length }, (_, i) => request.series.y[start + i] as number);
  let first = Infinity;
  let last = -Infinity;
  for (let r = row; r < row + rows; r++) {
    const p = (result.idxs[r] as number) - start;
    if (!Number.isInteger(p) || p < 0 || p >= length) {
      throw new RangeError(`anomalyChartInput: result.idxs[${r}] is not a position of series ${seriesIndex}`);
    }
    first = Math.min(first, p);
    last = Math.max(last, p);
  }
  const span = rows > 0 ? last - first + 1 : 0;
  const mean = new Array<number>(span).fill(NaN);
  const loKey = result.intervals === null ? undefined : Object.keys(result.intervals).find((k) => k.startsWith("lo-"));
  const hiKey = loKey === undefined ? undefined : "hi-" + loKey.slice(3);
  const loSrc = loKey === undefined ? undefined : result.intervals?.[loKey];
  const hiSrc = hiKey === undefined ? undefined : result.intervals?.[hiKey];
  const withBand = loSrc !== undefined && hiSrc !== undefined;
  const lo = withBand ? new Array<number>(span).fill(NaN) : undefined;
  const hi = withBand ? new Array<number>(span).fill(NaN) : undefined;
  const anomalies: number[] = [];
  for (let r = row; r < row + rows; r++) {
    const p = (result.idxs[r] as number) - start;
    mean[p - first] = result.mean[r] as number;
    if (lo !== undefined && hi !== undefined && loSrc !== undefined && hiSrc !== undefined) {
      lo[p - first] = loSrc[r] as number;
      hi[p - first] = hiSrc[r] as number;
    }
    if (result.anomaly[r] === true) anomalies.push(p);
  }
  const base: AnomalyChartInput = {
    title: `series ${seriesIndex}`,
    values,
    ...(rows > 0
      ? {
          forecast: lo !== undefined && hi !== undefined ? { start: first, mean, lo, hi } : { start: first, mean },
          highlightStart: first,
        }
      : {}),
    anomalies,
    ...(rows > 0 ? { highlightLabel: "detection window" } : {}),
    ...(loKey !== undefined ? { intervalLabel: `${loKey.slice(3)}% interval` } : {}),
  };
  return { ...base, ...extra };
}

/**
 * Keeps only x positions `from` onwards of a chart input (e.g. the last ten
 * years of a long series), shifting every position so that `from` becomes 0:
 * values, labels, ticks, anomalies, the highlight and the forecast (cut where
 * it starts before `from`). Pure: the input is not modified.
 *
 * @param input - a chart input.
 * @param from - first x position to keep, an integer >= 0 (0 returns an equal input).
 * @returns the cropped input.
 * @throws RangeError when `from` is not an integer >= 0.
 *
 * @example
 * ```ts
 * const cropped = cropAnomalyChartInput(
 *   { title: "t", values: [1, 2, 3, 4, 5], anomalies: [1, 4], forecast: { start: 2, mean: [3, 4, 5] }, highlightStart: 2 },
 *   3,
 * );
 * [Array.from(cropped.values), cropped.anomalies, cropped.forecast?.start, Array.from(cropped.forecast?.mean ?? []), cropped.highlightStart];
 * // => [[4, 5], [1], 0, [4, 5], 0]
 * ```
 * @category Charts
 */
export function cropAnomalyChartInput(input: AnomalyChartInput, from: number): AnomalyChartInput {
  if (!Number.isInteger(from) || from < 0) throw new RangeError("cropAnomalyChartInput: from must be an integer >= 0");
  const slice = (a: ArrayLike<number>, start: number): number[] => Array.from(a).slice(start);
  const out: { -readonly [K in keyof AnomalyChartInput]: AnomalyChartInput[K] } = { ...input, values: slice(input.values, from) };
  if (input.labels !== undefined) out.labels = input.labels.slice(from);
  if (input.xTicks !== undefined) out.xTicks = input.xTicks.filter((t) => t >= from).map((t) => t - from);
  if (input.anomalies !== undefined) {
    out.anomalies = Array.from(input.anomalies)
      .filter((i) => i >= from)
      .map((i) => i - from);
  }
  if (input.highlightStart !== undefined) out.highlightStart = Math.max(0, input.highlightStart - from);
  const f = input.forecast;
  if (f !== undefined) {
    const skip = Math.max(0, from - f.start);
    if (skip >= f.mean.length) delete out.forecast;
    else {
      out.forecast = {
        start: f.start + skip - from,
        mean: slice(f.mean, skip),
        ...(f.lo !== undefined && f.hi !== undefined ? { lo: slice(f.lo, skip), hi: slice(f.hi, skip) } : {}),
      };
    }
  }
  return out;
}

/**
 * A row of history as {@link plotForecast} and {@link plotAnomalies} read it:
 * the records API's input rows (`{unique_id, ds, y}`; other fields ignored).
 * @category Charts
 */
export interface ChartHistoryRow {
  /** Series id. */
  readonly unique_id: string | number;
  /** Timestamp: a string as written (`"1960-01-01"`) or a `Date`. */
  readonly ds: string | Date;
  /** Observed value. */
  readonly y: number;
}

/**
 * A result row as {@link plotForecast} reads it: the rows of `forecastRecords`
 * (`{unique_id, ds, mean, lo-80, hi-80, …}`).
 * @category Charts
 */
export interface ChartForecastRow {
  /** Series id. */
  readonly unique_id: string | number;
  /** Timestamp of the forecast step. */
  readonly ds: string | Date;
  /** Point forecast. The interval bounds are read from the fields `lo-<L>` / `hi-<L>` (other fields are ignored). */
  readonly mean: number;
}

/**
 * A detection row as {@link plotAnomalies} reads it: the rows of
 * `detectAnomaliesRecords` (`{unique_id, ds, y, mean, anomaly, lo-99, hi-99, …}`).
 * @category Charts
 */
export interface ChartAnomalyRow extends ChartForecastRow {
  /** Whether the row is flagged. */
  readonly anomaly: boolean;
}

/**
 * The parts of a JSON forecast result (`forecast`, `ForecastResult`) that {@link plotForecast} reads.
 * @category Charts
 */
export interface ForecastChartResult {
  /** Point forecasts, series after series. */
  readonly mean: ArrayLike<number>;
  /** Forecast rows per series. */
  readonly sizes: ArrayLike<number>;
  /** Interval bounds keyed `lo-<L>` / `hi-<L>`, or null. */
  readonly intervals: Readonly<Record<string, ArrayLike<number>>> | null;
}

/**
 * Options of {@link plotForecast} and {@link plotAnomalies}.
 * @category Charts
 */
export interface PlotOptions {
  /** Which series of record rows to draw (default: the first id of the result's rows). */
  readonly unique_id?: string | number;
  /** Which series of a JSON request and result to draw, 0-based (default 0). */
  readonly seriesIndex?: number;
  /** The levels whose bands to draw, in percent (default: every level of the result). */
  readonly level?: readonly number[];
  /** How many of the last history points to show (default: all of them). */
  readonly lastPoints?: number;
  /** Title (default: the series id and what is drawn, e.g. `"AirPassengers: forecast of 12 steps"`). */
  readonly title?: string;
  /** Width in px (default 960). */
  readonly width?: number;
  /** Height in px (default 420). */
  readonly height?: number;
}

/** A timestamp as an axis label: strings as written, `Date`s as `YYYY-MM-DD` (all midnight UTC) or `YYYY-MM-DD HH:MM`. */
function dateLabels(values: readonly (string | Date)[]): string[] {
  const midnight = values.every((d) => !(d instanceof Date) || d.getTime() % 86_400_000 === 0);
  return values.map((d) => {
    if (!(d instanceof Date)) return String(d);
    const iso = Number.isFinite(d.getTime()) ? d.toISOString() : "invalid date";
    return midnight ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  });
}

/**
 * Calendar periods of `YYYY-MM-DD[ HH:MM]` labels, coarsest first: the key
 * that changes when a new period starts, and whether a label is a period's
 * first instant (so the first point counts when it starts one).
 */
const DATE_PERIODS: readonly { key: (label: string) => string; starts: (label: string) => boolean }[] = (() => {
  const midnight = (l: string): boolean => l.length === 10 || /^00:00(:00)?$/.test(l.slice(11));
  return [
    { key: (l) => l.slice(0, 4), starts: (l) => l.slice(5, 10) === "01-01" && midnight(l) }, // year
    { key: (l) => `${l.slice(0, 4)}Q${Math.floor((Number(l.slice(5, 7)) - 1) / 3)}`, starts: (l) => ["01", "04", "07", "10"].includes(l.slice(5, 7)) && l.slice(8, 10) === "01" && midnight(l) }, // quarter
    { key: (l) => l.slice(0, 7), starts: (l) => l.slice(8, 10) === "01" && midnight(l) }, // month
    { key: (l) => l.slice(0, 10), starts: midnight }, // day
    { key: (l) => l.slice(0, 13), starts: (l) => l.length === 10 || /^\d\d:00(:00)?$/.test(l.slice(11)) }, // hour
  ];
})();
const DATE_LABEL = /^\d{4}-\d\d-\d\d(?: \d\d:\d\d(?::\d\d)?)?$/;

/**
 * Ticks at calendar boundaries for date labels (the first point of each
 * year, quarter, month, day or hour, every k-th of them), at most `fit` and
 * at least 3; null when the labels are not dates or no period gives 3 ticks
 * (the caller then spaces ticks evenly). Periods are tried whole first, finest
 * first (months before years), then every k-th, coarsest first (every 5 years
 * before every 50 months).
 */
function dateTicks(labels: readonly string[], fit: number): number[] | null {
  if (labels.length < 3 || !labels.every((l) => DATE_LABEL.test(l))) return null;
  const boundaries = DATE_PERIODS.map(({ key, starts }) => {
    const out: number[] = starts(labels[0] as string) ? [0] : [];
    for (let i = 1; i < labels.length; i++) if (key(labels[i] as string) !== key(labels[i - 1] as string)) out.push(i);
    return out;
  });
  for (let p = boundaries.length - 1; p >= 0; p--) {
    const b = boundaries[p] as number[];
    if (b.length >= 3 && b.length <= fit) return b;
  }
  for (const b of boundaries) {
    for (const k of [2, 3, 4, 5, 6, 10, 12, 15, 20, 25, 50, 100, 200, 500, 1000]) {
      const every = b.filter((_, j) => j % k === 0);
      if (every.length >= 3 && every.length <= fit) return every;
    }
  }
  return null;
}

/** Time-axis ticks of a dated chart input: calendar boundaries when its labels are dates and the input has none. */
function withDateTicks(input: AnomalyChartInput): AnomalyChartInput {
  if (input.xTicks !== undefined || input.labels === undefined) return input;
  const ticks = dateTicks(input.labels, tickFit(input.labels, (input.width ?? 960) - 92));
  return ticks === null ? input : { ...input, xTicks: ticks };
}

/** A timestamp's sort key: a `Date` by its instant, a string as written (ISO-like strings sort by time). */
function timeKey(ds: string | Date): number | string {
  return ds instanceof Date ? ds.getTime() : String(ds);
}

function compareTime(a: string | Date, b: string | Date): number {
  const ka = timeKey(a);
  const kb = timeKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** A row's field `key` when it is a number, else NaN (a gap in the chart). */
function numberField(row: object, key: string): number {
  const v = (row as Readonly<Record<string, unknown>>)[key];
  return typeof v === "number" ? v : NaN;
}

/** The levels of a result's bound keys (`lo-80` with `hi-80`), in the result's order, as written. */
function boundLevels(keys: readonly string[]): string[] {
  const set = new Set(keys);
  return keys.filter((k) => k.startsWith("lo-") && set.has(`hi-${k.slice(3)}`)).map((k) => k.slice(3));
}

/** The levels to draw: `wanted` (each must be present) or every one present. */
function chosenLevels(present: readonly string[], wanted: readonly number[] | undefined, fn: string): string[] {
  if (wanted === undefined) return [...present];
  return wanted.map((level) => {
    const key = String(level);
    if (!present.includes(key)) throw new RangeError(`${fn}: options.level ${key} is not in the result (its levels: ${present.length > 0 ? present.join(", ") : "none"})`);
    return key;
  });
}

function checkPlotOptions(options: PlotOptions, fn: string): void {
  if (options === null || typeof options !== "object") throw new RangeError(`${fn}: options must be an object`);
  if (options.lastPoints !== undefined && !(Number.isInteger(options.lastPoints) && options.lastPoints >= 0)) {
    throw new RangeError(`${fn}: options.lastPoints must be an integer >= 0`);
  }
  if (options.seriesIndex !== undefined && !(Number.isInteger(options.seriesIndex) && options.seriesIndex >= 0)) {
    throw new RangeError(`${fn}: options.seriesIndex must be an integer >= 0`);
  }
}

/** A history that is not record rows must be a request body `{series: {y, sizes}}`, else a RangeError. */
function checkRequestBody(history: unknown, fn: string): void {
  if (history === null || typeof history !== "object" || typeof (history as AnomalyChartRequest).series !== "object") {
    throw new RangeError(`${fn}: history must be record rows {unique_id, ds, y} or a request body {series: {y, sizes}}`);
  }
}

/** The first of `length` history points shown: the last `options.lastPoints` of them (all when not given). */
function firstShown(length: number, options: PlotOptions): number {
  return options.lastPoints === undefined ? 0 : Math.max(0, length - options.lastPoints);
}

/** The history rows of one series in time order, or a RangeError naming the id. */
function seriesHistory(history: readonly ChartHistoryRow[], id: string | number, fn: string): ChartHistoryRow[] {
  const rows = history.filter((r) => r !== null && typeof r === "object" && r.unique_id === id);
  rows.sort((a, b) => compareTime(a.ds, b.ds));
  if (rows.length === 0 && history.length > 0) throw new RangeError(`${fn}: the history has no rows of unique_id ${String(id)}`);
  return rows;
}

/** The rows of a records result given as the rows or as the result holding them (`{ rows }`), or a RangeError naming what they must be. */
function recordsResultRows<Row>(given: unknown, fn: string, what: string, producer: string): readonly Row[] {
  const rows: unknown = Array.isArray(given) ? given : (given as { rows?: unknown }).rows;
  if (!Array.isArray(rows)) throw new RangeError(`${fn}: with record rows as history, ${what} must be the rows of ${producer} (or its result)`);
  return rows as readonly Row[];
}

/**
 * The series a records chart shows (options.unique_id, else the first row's):
 * its id, its result rows and its history rows in time order, or a RangeError
 * when the result (`what`) has no rows, or none of that id.
 */
function chartedRecords<Row extends ChartForecastRow>(history: readonly ChartHistoryRow[], rows: readonly Row[], options: PlotOptions, fn: string, what: string): { id: string | number; own: Row[]; past: ChartHistoryRow[] } {
  if (rows.length === 0) throw new RangeError(`${fn}: ${what} has no rows`);
  const id = options.unique_id ?? (rows[0] as Row).unique_id;
  const own = rows.filter((r) => r.unique_id === id);
  if (own.length === 0) throw new RangeError(`${fn}: ${what} has no rows of unique_id ${String(id)}`);
  return { id, own, past: seriesHistory(history, id, fn) };
}

/** How {@link plotForecast} or {@link plotAnomalies} builds its chart from record rows, or from a request body and its JSON result. */
interface RecordsOrJsonChart<Row, Result> {
  /** The function's name, for its errors. */
  readonly fn: string;
  /** The second argument's name, and the records function that makes its rows (for the error when it is not rows). */
  readonly what: string;
  readonly producer: string;
  /** The fields a JSON result must have, and the fields its error lists. */
  readonly required: readonly string[];
  readonly listed: string;
  readonly records: (history: readonly ChartHistoryRow[], rows: readonly Row[], options: PlotOptions) => AnomalyChartInput;
  readonly json: (request: AnomalyChartRequest, result: Result, options: PlotOptions) => AnomalyChartInput;
}

/** The SVG of a chart whose history is record rows (dates on the time axis) or a request body, as `chart` says. */
function plotRecordsOrJson<Row, Result>(history: readonly ChartHistoryRow[] | AnomalyChartRequest, given: unknown, options: PlotOptions, chart: RecordsOrJsonChart<Row, Result>): string {
  checkPlotOptions(options, chart.fn);
  if (Array.isArray(history)) {
    const rows = recordsResultRows<Row>(given, chart.fn, chart.what, chart.producer);
    return renderAnomalyChart(withDateTicks(chart.records(history, rows, options)));
  }
  checkRequestBody(history, chart.fn);
  const result = given as Record<string, unknown> | null;
  if (Array.isArray(given) || result === null || typeof result !== "object" || chart.required.some((field) => result[field] === undefined)) {
    throw new RangeError(`${chart.fn}: with a request body as history, ${chart.what} must be its JSON result {${chart.listed}}`);
  }
  return renderAnomalyChart(chart.json(history as AnomalyChartRequest, given as Result, options));
}

/** The charts of {@link plotForecast} and {@link plotAnomalies}. */
const FORECAST_CHART: RecordsOrJsonChart<ChartForecastRow, ForecastChartResult> = { fn: "plotForecast", what: "forecast", producer: "forecastRecords", required: ["mean", "sizes"], listed: "mean, sizes, intervals", records: recordsForecastInput, json: jsonForecastInput };
const ANOMALY_CHART: RecordsOrJsonChart<ChartAnomalyRow, AnomalyChartResult> = { fn: "plotAnomalies", what: "detection", producer: "detectAnomaliesRecords", required: ["idxs"], listed: "mean, sizes, idxs, anomaly, intervals", records: recordsAnomalyInput, json: jsonAnomalyInput };

/** Size and title fields of a chart input from the options. */
function frame(options: PlotOptions, title: string): Pick<AnomalyChartInput, "title" | "width" | "height"> {
  return { title: options.title ?? title, ...(options.width !== undefined ? { width: options.width } : {}), ...(options.height !== undefined ? { height: options.height } : {}) };
}

/**
 * The chart of a forecast in one call: the history of one series, its
 * forecast and the band of every level (widest lightest), the series' id in
 * the title and its dates on the time axis, as SVG text (see
 * {@link renderAnomalyChart} for the drawing rules).
 *
 * Two forms, as the entry points return them:
 * - records: `history` the input rows `{unique_id, ds, y}` and `forecast`
 *   the rows of `forecastRecords` (or its whole result); the series is
 *   `options.unique_id`, by default the first of the forecast rows;
 * - JSON: `history` the request body (`series.y`, `series.sizes`) and
 *   `forecast` the result of `forecast`; the series is `options.seriesIndex`
 *   (default 0), and the axis counts steps (a JSON body has no dates).
 *
 * Legend: "observed", "forecast", then "L% interval" per band drawn. Cost:
 * O(rows).
 *
 * @param history - the observed rows (records) or the request body (JSON).
 * @param forecast - the forecast rows, the records result, or the JSON result.
 * @param options - which series, which levels, how much history, title and size.
 * @returns SVG text (`<svg …>…</svg>\n`); write it to a `.svg` file or serve it as `image/svg+xml`.
 * @throws RangeError naming the field when the series or a level is not in the inputs.
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 48 }, (_, t) => ({ unique_id: "sales", ds: `${2020 + Math.floor(t / 12)}-${String((t % 12) + 1).padStart(2, "0")}-01`, y: 100 + 10 * Math.sin((2 * Math.PI * t) / 12) }));
 * const fc = forecastRecords(rows, { h: 6, level: [80, 95] });
 * const svg = plotForecast(rows, fc.rows);
 * svg.includes("<title>sales: forecast of 6 steps</title>"); // => true
 * ["80% interval", "95% interval", "2024-01-01"].every((text) => svg.includes(text)); // => true
 * // the JSON form: the body and its result
 * const body = { series: { y: rows.map((r) => r.y), sizes: [48] }, freq: "MS" as const, h: 6, level: [90] };
 * plotForecast(body, forecast(body)).includes("90% interval"); // => true
 * ```
 * @category Charts
 */
export function plotForecast(
  history: readonly ChartHistoryRow[] | AnomalyChartRequest,
  forecast: readonly ChartForecastRow[] | { readonly rows: readonly ChartForecastRow[] } | ForecastChartResult,
  options: PlotOptions = {},
): string {
  return plotRecordsOrJson(history, forecast, options, FORECAST_CHART);
}

function recordsForecastInput(history: readonly ChartHistoryRow[], forecastRows: readonly ChartForecastRow[], options: PlotOptions): AnomalyChartInput {
  const fn = "plotForecast";
  const { id, own: future, past } = chartedRecords(history, forecastRows, options, fn, "forecast");
  const shown = past.slice(firstShown(past.length, options));
  const levels = chosenLevels(boundLevels(Object.keys(future[0] as ChartForecastRow)), options.level, fn);
  const column = (key: string): number[] => future.map((r) => numberField(r, key));
  return {
    ...frame(options, `${String(id)}: forecast of ${future.length} step${future.length === 1 ? "" : "s"}`),
    values: shown.map((r) => r.y),
    labels: dateLabels([...shown.map((r) => r.ds), ...future.map((r) => r.ds)]),
    forecast: { start: shown.length, mean: future.map((r) => r.mean), bands: levels.map((l) => ({ label: `${l}% interval`, lo: column(`lo-${l}`), hi: column(`hi-${l}`) })) },
  };
}

function jsonForecastInput(request: AnomalyChartRequest, result: ForecastChartResult, options: PlotOptions): AnomalyChartInput {
  const fn = "plotForecast";
  const sizes = request.series.sizes;
  const index = options.seriesIndex ?? 0;
  if (index >= sizes.length) throw new RangeError(`${fn}: options.seriesIndex must be below the number of series (${sizes.length})`);
  if (result.sizes.length !== sizes.length) throw new RangeError(`${fn}: the result has ${result.sizes.length} series, the request ${sizes.length}`);
  const { start, row } = seriesStart(sizes, result.sizes, index);
  const length = sizes[index] as number;
  const h = result.sizes[index] as number;
  const from = firstShown(length, options);
  const values = Array.from({ length: length - from }, (_, i) => request.series.y[start + from + i] as number);
  const slice = (a: ArrayLike<number>): number[] => Array.from({ length: h }, (_, k) => a[row + k] as number);
  const intervals = result.intervals ?? {};
  const levels = chosenLevels(boundLevels(Object.keys(intervals)), options.level, fn);
  // steps relative to the forecast origin: 0 is the last observation, 1 the first forecast; ticks on multiples of a nice step from it
  const origin = values.length - 1;
  const every = defaultXTicks(values.length + h - 1)[1] ?? 1;
  return {
    ...frame(options, `series ${index}: forecast of ${h} step${h === 1 ? "" : "s"}`),
    values,
    labels: Array.from({ length: values.length + h }, (_, i) => String(i - origin)),
    xTicks: Array.from({ length: values.length + h }, (_, i) => i).filter((i) => (((i - origin) % every) + every) % every === 0),
    xTitle: "steps from the last observation",
    forecast: { start: values.length, mean: slice(result.mean), bands: levels.map((l) => ({ label: `${l}% interval`, lo: slice(intervals[`lo-${l}`] as ArrayLike<number>), hi: slice(intervals[`hi-${l}`] as ArrayLike<number>) })) },
  };
}

/**
 * The chart of an anomaly detection in one call: the series, the forecasts
 * of its detection rows with their band, the flagged points and the
 * detection window shaded (legend "detection window"), with the series' id
 * in the title and its dates on the time axis.
 *
 * Two forms: records (`history` the input rows, `detection` the rows of
 * `detectAnomaliesRecords` or its result; the series is `options.unique_id`,
 * by default the first of the detection rows) and JSON (`history` the
 * request body, `detection` the result of `detectAnomaliesOnline`; the series
 * is `options.seriesIndex`, as in {@link anomalyChartInput}).
 *
 * @param history - the observed rows (records) or the request body (JSON).
 * @param detection - the detection rows, the records result, or the JSON result.
 * @param options - which series, how much history, title and size (`level` is not used: a detection has one level).
 * @returns SVG text.
 * @throws RangeError naming the field when the series is not in the inputs.
 *
 * @example
 * ```ts
 * const rows = Array.from({ length: 60 }, (_, t) => ({ unique_id: "cpu", ds: new Date(Date.UTC(2024, 0, 1, t)), y: t === 58 ? 40 : 10 + (t % 24) / 4 }));
 * const svg = plotAnomalies(rows, detectAnomaliesRecords(rows, { h: 4, detection_size: 4 }));
 * ["<title>cpu: anomalies in the last 4 points</title>", "detection window", "99% interval", "anomaly (1)", ">2024-01-02 00:00<"].every((text) => svg.includes(text)); // => true
 * ```
 * @category Charts
 */
export function plotAnomalies(
  history: readonly ChartHistoryRow[] | AnomalyChartRequest,
  detection: readonly ChartAnomalyRow[] | { readonly rows: readonly ChartAnomalyRow[] } | AnomalyChartResult,
  options: PlotOptions = {},
): string {
  return plotRecordsOrJson(history, detection, options, ANOMALY_CHART);
}

/** The chart input of one series (options.seriesIndex) of an anomaly request body and its JSON result. */
function jsonAnomalyInput(request: AnomalyChartRequest, result: AnomalyChartResult, options: PlotOptions): AnomalyChartInput {
  const index = options.seriesIndex ?? 0;
  const full = anomalyChartInput(request, result, index, frame(options, `series ${index}: anomalies in the last ${String(result.sizes[index] ?? 0)} points`));
  return cropAnomalyChartInput(full, firstShown(full.values.length, options));
}

function recordsAnomalyInput(history: readonly ChartHistoryRow[], detected: readonly ChartAnomalyRow[], options: PlotOptions): AnomalyChartInput {
  const fn = "plotAnomalies";
  const { id, own: judged, past } = chartedRecords(history, detected, options, fn, "detection");
  const position = new Map(past.map((r, i) => [timeKey(r.ds), i]));
  const at = judged.map((r) => {
    const p = position.get(timeKey(r.ds));
    if (p === undefined) throw new RangeError(`${fn}: the detection row at ${dateLabels([r.ds])[0]} of unique_id ${String(id)} is not in the history`);
    return p;
  });
  const first = Math.min(...at);
  const span = Math.max(...at) - first + 1;
  const mean = new Array<number>(span).fill(NaN);
  const level = boundLevels(Object.keys(judged[0] as ChartAnomalyRow))[0];
  const lo = new Array<number>(span).fill(NaN);
  const hi = new Array<number>(span).fill(NaN);
  judged.forEach((r, k) => {
    const p = (at[k] as number) - first;
    mean[p] = r.mean;
    if (level !== undefined) {
      lo[p] = numberField(r, `lo-${level}`);
      hi[p] = numberField(r, `hi-${level}`);
    }
  });
  const full: AnomalyChartInput = {
    ...frame(options, `${String(id)}: anomalies in the last ${judged.length} point${judged.length === 1 ? "" : "s"}`),
    values: past.map((r) => r.y),
    labels: dateLabels(past.map((r) => r.ds)),
    forecast: level === undefined ? { start: first, mean } : { start: first, mean, lo, hi },
    anomalies: judged.flatMap((r, k) => (r.anomaly === true ? [at[k] as number] : [])),
    highlightStart: first,
    highlightLabel: "detection window",
    ...(level !== undefined ? { intervalLabel: `${level}% interval` } : {}),
  };
  const from = firstShown(past.length, options);
  return cropAnomalyChartInput(full, from);
}
