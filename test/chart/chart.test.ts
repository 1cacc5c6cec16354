import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { anomalyChartInput, cropAnomalyChartInput, escapeSvgText, renderAnomalyChart, type AnomalyChartInput } from "../../src/chart/index.js";
import { checkGeometry, parseSvg, pathPoints } from "./svg-check.js";

function render(input: AnomalyChartInput) {
  const svg = renderAnomalyChart(input);
  const elements = parseSvg(svg);
  const nums = checkGeometry(elements);
  return { svg, elements, nums };
}

const byClass = (els: ReturnType<typeof parseSvg>, cls: string) => els.filter((e) => e.attrs.class === cls);

describe("renderAnomalyChart", () => {
  const base: AnomalyChartInput = {
    title: "AirPassengers <monthly> & co",
    values: [112, 118, 132, 129, 121, 135, 148, 148, 136, 119, 104, 118],
    forecast: { start: 8, mean: [140, 120, 110, 115, 125, 130], lo: [130, 110, 100, 105, 115, 120], hi: [150, 130, 120, 125, 135, 140] },
    anomalies: [10],
    labels: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
    highlightStart: 8,
    intervalLabel: "99% interval",
  };

  it("is a well-formed SVG document with title, axes, band, lines, anomalies and legend", () => {
    const { svg, elements } = render(base);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.endsWith("</svg>\n")).toBe(true);
    expect(elements[0]?.name).toBe("svg");
    expect(elements.find((e) => e.name === "title")?.text).toBe("AirPassengers &lt;monthly&gt; &amp; co");
    expect(byClass(elements, "band")).toHaveLength(1);
    expect(byClass(elements, "series")).toHaveLength(1);
    expect(byClass(elements, "forecast")).toHaveLength(1);
    expect(byClass(elements, "highlight")).toHaveLength(1);
    const anomalyGroup = elements.findIndex((e) => e.attrs.class === "anomalies");
    expect(elements[anomalyGroup + 1]?.name).toBe("circle");
    const legendTexts = elements.filter((e) => e.name === "text").map((e) => e.text);
    // a shaded region without a name is "highlighted": "detection window" only where anomalyChartInput or plotAnomalies shade one
    for (const t of ["observed", "forecast", "99% interval", "highlighted", "anomaly (1)"]) {
      expect(legendTexts).toContain(t);
    }
    // x tick labels come from `labels`
    expect(legendTexts.some((t) => ["Jan", "Mar", "May"].includes(t))).toBe(true);
    expect(svg).not.toMatch(/NaN|Infinity|undefined/);
  });

  it("maps larger values higher up (smaller y) and later points further right", () => {
    const { elements } = render({ title: "t", values: [1, 5, 3] });
    const pts = pathPoints(byClass(elements, "series")[0]?.attrs.d ?? "");
    expect(pts).toHaveLength(3);
    const [a, b, c] = pts as [[number, number], [number, number], [number, number]];
    expect(a[0]).toBeLessThan(b[0]);
    expect(b[0]).toBeLessThan(c[0]);
    expect(b[1]).toBeLessThan(c[1]);
    expect(c[1]).toBeLessThan(a[1]);
  });

  it("the band encloses the forecast line at every step", () => {
    const { elements } = render(base);
    const band = pathPoints(byClass(elements, "band")[0]?.attrs.d ?? "");
    const fc6 = pathPoints(byClass(elements, "forecast")[0]?.attrs.d ?? "");
    expect(band).toHaveLength(12);
    for (let i = 0; i < 6; i++) {
      const upper = band[i] as [number, number];
      const lower = band[11 - i] as [number, number];
      const mid = fc6[i] as [number, number];
      expect(upper[0]).toBe(mid[0]);
      expect(lower[0]).toBe(mid[0]);
      expect(upper[1]).toBeLessThan(mid[1]);
      expect(lower[1]).toBeGreaterThan(mid[1]);
    }
  });

  it("is deterministic: the same input gives the same bytes", () => {
    expect(renderAnomalyChart(base)).toBe(renderAnomalyChart(structuredClone(base)));
  });

  it("does not mutate its input", () => {
    const values = Object.freeze([3, 1, 2]);
    const mean = Object.freeze([2, 2]);
    const input = Object.freeze({ title: "x", values, forecast: Object.freeze({ start: 2, mean }) });
    expect(() => renderAnomalyChart(input)).not.toThrow();
    expect(values).toEqual([3, 1, 2]);
  });

  it("handles a constant series (no zero-height scale)", () => {
    for (const c of [0, 7, -3.5, 1e300]) {
      const { svg, elements } = render({ title: "flat", values: [c, c, c, c] });
      const pts = pathPoints(byClass(elements, "series")[0]?.attrs.d ?? "");
      expect(new Set(pts.map((p) => p[1])).size).toBe(1);
      expect(svg).not.toContain("NaN");
    }
  });

  it("handles a single point, an empty series and a forecast-only chart", () => {
    const one = render({ title: "one", values: [42] });
    expect(byClass(one.elements, "point")).toHaveLength(1);
    const empty = render({ title: "empty", values: [] });
    expect(empty.elements.some((e) => e.text === "no data")).toBe(true);
    const future = render({ title: "future", values: [], forecast: { start: 0, mean: [1, 2, 3] } });
    expect(byClass(future.elements, "forecast")).toHaveLength(1);
    const oneForecast = render({ title: "f1", values: [1, 2], forecast: { start: 2, mean: [3], lo: [2], hi: [4] } });
    expect(byClass(oneForecast.elements, "forecast-point")).toHaveLength(1);
    expect(pathPoints(byClass(oneForecast.elements, "band")[0]?.attrs.d ?? "")).toHaveLength(4);
  });

  it("leaves gaps at non-finite values and ignores out-of-range anomaly positions", () => {
    const { elements } = render({
      title: "gaps",
      values: [1, NaN, 3, 4, Infinity, 6],
      anomalies: [1, 2, -1, 99, 2.5],
      forecast: { start: 3, mean: [4, NaN, 6], lo: [3, 4, NaN], hi: [5, 6, 7] },
    });
    const d = byClass(elements, "series")[0]?.attrs.d ?? "";
    expect(d.match(/M/g)).toHaveLength(3); // [1], [3, 4], [6]
    expect(elements.filter((e) => e.name === "circle" && e.attrs.r === "4.5").length).toBe(1 + 1); // dot + legend
    expect(elements.some((e) => e.text === "anomaly (1)")).toBe(true);
  });

  it("keeps coordinates finite for huge and tiny magnitudes", () => {
    for (const values of [
      [-1.7e308, 1.7e308, 0],
      [Number.MAX_VALUE, Number.MAX_VALUE],
      [5e-324, 1e-323, 0],
      [-Number.MAX_VALUE],
    ]) {
      const { svg } = render({ title: "extreme", values });
      expect(svg).not.toMatch(/NaN|Infinity/);
    }
  });

  it("escapes every piece of user text", () => {
    const evil = `</text><script>alert("x")</script>&'`;
    const { svg, elements } = render({
      title: evil,
      values: [1, 2],
      labels: [evil, evil],
      xTitle: evil,
      yTitle: evil,
      intervalLabel: evil,
      forecast: { start: 1, mean: [2], lo: [1], hi: [3] },
    });
    expect(svg).not.toContain("<script");
    expect(elements.filter((e) => e.text.includes("&lt;script&gt;")).length).toBeGreaterThanOrEqual(5);
    expect(escapeSvgText("a\u0001b")).toBe("ab");
  });

  it("rejects malformed input with a RangeError naming the field", () => {
    expect(() => renderAnomalyChart({ title: "x", values: [1], width: NaN })).toThrow(/width/);
    expect(() => renderAnomalyChart({ title: "x", values: [1], height: 10 })).toThrow(/height/);
    expect(() => renderAnomalyChart({ title: "x", values: [1], forecast: { start: -1, mean: [1] } })).toThrow(/forecast.start/);
    expect(() => renderAnomalyChart({ title: "x", values: [1], forecast: { start: 0, mean: [1, 2], lo: [1], hi: [2] } })).toThrow(
      /forecast.lo/,
    );
    expect(() => renderAnomalyChart({ title: "x", values: [1], forecast: { start: 0, mean: [1], lo: [1] } })).toThrow(/together/);
    expect(() => renderAnomalyChart({ title: 3 as unknown as string, values: [1] })).toThrow(/title/);
  });

  const anyDouble = fc.oneof(
    fc.double({ noDefaultInfinity: false, noNaN: false }),
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.integer({ min: -5, max: 5 }),
  );

  test.prop(
    [
      fc.array(anyDouble, { maxLength: 40 }),
      fc.option(fc.record({ start: fc.nat(50), mean: fc.array(anyDouble, { maxLength: 12 }) }), { nil: undefined }),
      fc.array(fc.integer({ min: -3, max: 60 }), { maxLength: 6 }),
      fc.string({ maxLength: 20 }),
    ],
    { numRuns: 150 },
  )("any numbers give well-formed SVG with finite coordinates inside the canvas, deterministically", (values, f, anomalies, title) => {
    const forecast =
      f === undefined
        ? undefined
        : { start: f.start, mean: f.mean, lo: f.mean.map((v) => v - 1), hi: f.mean.map((v) => v + 1) };
    const input: AnomalyChartInput = { title, values, anomalies, ...(forecast ? { forecast } : {}), width: 640, height: 300 };
    const { svg, elements } = render(input);
    expect(svg).not.toMatch(/NaN|Infinity/);
    expect(renderAnomalyChart(input)).toBe(svg);
    for (const cls of ["series", "forecast", "band"]) {
      for (const el of byClass(elements, cls)) {
        for (const [x, y] of pathPoints(el.attrs.d ?? "")) {
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThanOrEqual(640);
          expect(y).toBeGreaterThanOrEqual(0);
          expect(y).toBeLessThanOrEqual(300);
        }
      }
    }
  });
});

describe("anomalyChartInput", () => {
  const request = { series: { y: [1, 2, 3, 4, 10, 20, 30, 40, 50], sizes: [4, 5] } };
  const result = {
    mean: [3.1, 3.9, 39, 52],
    sizes: [2, 2],
    idxs: [2, 3, 7, 8],
    anomaly: [false, true, false, false],
    intervals: { "lo-95": [2, 3, 30, 45], "hi-95": [4, 5, 45, 60] },
  };

  it("places the detection rows at their positions in the series", () => {
    const first = anomalyChartInput(request, result, 0);
    expect(first.values).toEqual([1, 2, 3, 4]);
    expect(first.forecast).toEqual({ start: 2, mean: [3.1, 3.9], lo: [2, 3], hi: [4, 5] });
    expect(first.anomalies).toEqual([3]);
    expect(first.highlightStart).toBe(2);
    expect(first.intervalLabel).toBe("95% interval");
    expect(first.highlightLabel).toBe("detection window");
    const second = anomalyChartInput(request, result, 1, { title: "B", width: 500 });
    expect(second.values).toEqual([10, 20, 30, 40, 50]);
    expect(second.forecast).toEqual({ start: 3, mean: [39, 52], lo: [30, 45], hi: [45, 60] });
    expect(second.title).toBe("B");
    expect(second.width).toBe(500);
    parseSvg(renderAnomalyChart(second));
  });

  it("draws no band when intervals are null (multivariate)", () => {
    const input = anomalyChartInput(request, { ...result, intervals: null }, 1);
    expect(input.forecast).toEqual({ start: 3, mean: [39, 52] });
    expect(input.intervalLabel).toBeUndefined();
  });

  it("rejects a series index out of range and idxs outside the series", () => {
    expect(() => anomalyChartInput(request, result, 2)).toThrow(RangeError);
    expect(() => anomalyChartInput(request, { ...result, idxs: [2, 3, 3, 8] }, 1)).toThrow(/idxs\[2\]/);
  });
});

describe("cropAnomalyChartInput", () => {
  const input: AnomalyChartInput = {
    title: "t",
    values: [1, 2, 3, 4, 5, 6],
    labels: ["a", "b", "c", "d", "e", "f"],
    xTicks: [0, 2, 4],
    anomalies: [1, 4, 5],
    forecast: { start: 2, mean: [3, 4, 5, 6, 7], lo: [2, 3, 4, 5, 6], hi: [4, 5, 6, 7, 8] },
    highlightStart: 2,
  };

  it("shifts every position and cuts the forecast", () => {
    const c = cropAnomalyChartInput(input, 3);
    expect(c.values).toEqual([4, 5, 6]);
    expect(c.labels).toEqual(["d", "e", "f"]);
    expect(c.xTicks).toEqual([1]);
    expect(c.anomalies).toEqual([1, 2]);
    expect(c.forecast).toEqual({ start: 0, mean: [4, 5, 6, 7], lo: [3, 4, 5, 6], hi: [5, 6, 7, 8] });
    expect(c.highlightStart).toBe(0);
    expect(input.values).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("drops a forecast that ends before the crop and keeps one that starts after it", () => {
    expect(cropAnomalyChartInput(input, 7).forecast).toBeUndefined();
    expect(cropAnomalyChartInput(input, 1).forecast?.start).toBe(1);
    expect(cropAnomalyChartInput(input, 0)).toEqual({ ...input, values: [1, 2, 3, 4, 5, 6], anomalies: [1, 4, 5], forecast: { ...input.forecast, mean: [3, 4, 5, 6, 7], lo: [2, 3, 4, 5, 6], hi: [4, 5, 6, 7, 8] } });
    expect(() => cropAnomalyChartInput(input, -1)).toThrow(RangeError);
  });

  test.prop([fc.integer({ min: 0, max: 8 })], { numRuns: 20 })("a cropped chart is still well-formed", (from) => {
    render(cropAnomalyChartInput(input, from));
  });
});
