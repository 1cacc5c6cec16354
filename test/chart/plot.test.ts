/**
 * plotForecast and plotAnomalies: a chart in one call from what the entry
 * points return. Checked without a screenshot, on the parsed SVG: the series'
 * name in the title, one band per level (nested: the 95 % band holds the
 * 80 % band), ticks labelled with the rows' dates, and one legend entry per
 * element drawn (and none for what is not drawn).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectAnomaliesOnline, detectAnomaliesRecords, forecast, forecastRecords } from "../../src/api/index.js";
import { plotAnomalies, plotForecast, renderAnomalyChart } from "../../src/chart/index.js";
import { checkGeometry, parseSvg, pathPoints, type SvgElement } from "./svg-check.js";

const rData = JSON.parse(readFileSync("bench/data/r-datasets.json", "utf8")) as Record<string, { y: number[] }>;
const air = rData.AirPassengers!.y; // monthly, 1949-01 .. 1960-12
const month = (t: number): string => `${1949 + Math.floor(t / 12)}-${String((t % 12) + 1).padStart(2, "0")}-01`;
const airRows = air.map((y, t) => ({ unique_id: "AirPassengers", ds: month(t), y }));

const byClass = (els: readonly SvgElement[], cls: string): SvgElement[] => els.filter((e) => e.attrs.class === cls);
/** The texts of the legend group, in order. */
function legend(els: readonly SvgElement[]): string[] {
  const start = els.findIndex((e) => e.attrs.class === "legend");
  return els.slice(start + 1).filter((e) => e.name === "text").map((e) => e.text);
}
/** The tick labels of the time axis: the texts among the lines and texts right after the x-axis group opens. */
function xTickTexts(els: readonly SvgElement[]): string[] {
  const out: string[] = [];
  for (let i = els.findIndex((e) => e.attrs.class === "x-axis") + 1; i < els.length; i++) {
    const e = els[i]!;
    if ((e.name !== "line" && e.name !== "text") || e.attrs.class !== undefined) break;
    if (e.name === "text") out.push(e.text);
  }
  return out;
}
/** Vertical extent of a band polygon at each of its x positions. */
function bandSpans(d: string): Map<number, [number, number]> {
  const spans = new Map<number, [number, number]>();
  for (const [x, y] of pathPoints(d)) {
    const s = spans.get(x);
    spans.set(x, s === undefined ? [y, y] : [Math.min(s[0], y), Math.max(s[1], y)]);
  }
  return spans;
}

describe("plotForecast from the records API's rows", () => {
  const out = forecastRecords(airRows, { h: 12, level: [80, 95] });
  const svg = plotForecast(airRows, out.rows);
  const els = parseSvg(svg);

  it("holds the series' name, both bands (nested), dated ticks and a legend entry per drawn element", () => {
    checkGeometry(els);
    expect(els.find((e) => e.name === "title")?.text).toBe("AirPassengers: forecast of 12 steps");
    const bands = byClass(els, "band");
    expect(bands).toHaveLength(2);
    // drawn widest first: the 95 % band encloses the 80 % band at every forecast step
    const [wide, narrow] = bands.map((b) => bandSpans(b.attrs.d!)) as [Map<number, [number, number]>, Map<number, [number, number]>];
    expect(narrow.size).toBe(12);
    for (const [x, [top, bottom]] of narrow) {
      const outer = wide.get(x)!;
      expect(outer[0]).toBeLessThanOrEqual(top);
      expect(outer[1]).toBeGreaterThanOrEqual(bottom);
    }
    expect(new Set(bands.map((b) => b.attrs.fill)).size).toBe(2);
    const ticks = xTickTexts(els);
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    for (const t of ticks) expect(t).toMatch(/^(19(49|5\d|60)|1961)-\d\d-01$/);
    expect(legend(els)).toEqual(["observed", "forecast", "80% interval", "95% interval"]);
    expect(byClass(els, "series")).toHaveLength(1);
    expect(byClass(els, "forecast")).toHaveLength(1);
    // nothing is shaded, so no "detection window" (nor any highlight) in the legend
    expect(byClass(els, "highlight")).toHaveLength(0);
    expect(svg).not.toContain("detection window");
  });

  it("takes the whole records result, a chosen level, the last points and a chosen series", () => {
    expect(plotForecast(airRows, out)).toBe(svg);
    const one = parseSvg(plotForecast(airRows, out, { level: [95], lastPoints: 36 }));
    expect(byClass(one, "band")).toHaveLength(1);
    expect(legend(one)).toEqual(["observed", "forecast", "95% interval"]);
    expect(xTickTexts(one).every((t) => t >= "1958-01-01")).toBe(true);
    const two = [...airRows, ...airRows.map((r) => ({ ...r, unique_id: "copy", y: r.y * 2 }))];
    const both = forecastRecords(two, { h: 3 });
    const copy = parseSvg(plotForecast(two, both.rows, { unique_id: "copy" }));
    expect(copy.find((e) => e.name === "title")?.text).toBe("copy: forecast of 3 steps");
    expect(legend(copy)).toEqual(["observed", "forecast"]);
  });

  it("Date timestamps label the axis as dates (with the time when not all midnight)", () => {
    const hourly = Array.from({ length: 96 }, (_, t) => ({ unique_id: 3, ds: new Date(Date.UTC(2024, 2, 1, t)), y: 50 + 10 * Math.sin((2 * Math.PI * t) / 24) }));
    const els2 = parseSvg(plotForecast(hourly, forecastRecords(hourly, { h: 6, level: [90] })));
    const ticks = xTickTexts(els2);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    for (const t of ticks) expect(t).toMatch(/^2024-03-0[1-5] \d\d:00$/);
    expect(els2.find((e) => e.name === "title")?.text).toBe("3: forecast of 6 steps");
  });

  it("names what is wrong: a missing series or level", () => {
    expect(() => plotForecast(airRows, out.rows, { unique_id: "nope" })).toThrow(/forecast has no rows of unique_id nope/);
    expect(() => plotForecast(airRows, out.rows, { level: [50] })).toThrow(/options\.level 50 is not in the result \(its levels: 80, 95\)/);
    expect(() => plotForecast(airRows, [])).toThrow(/forecast has no rows/);
    expect(() => plotForecast(airRows, out.rows, { lastPoints: -1 })).toThrow(/lastPoints/);
    expect(() => plotForecast(airRows.map((r) => ({ ...r, unique_id: "other" })), out.rows)).toThrow(/history has no rows of unique_id AirPassengers/);
  });
});

describe("plotForecast from a JSON body and its result", () => {
  it("draws series i with its bands, steps on the axis", () => {
    const body = { series: { y: [...air, ...air.map((v) => v / 2)], sizes: [144, 144] }, freq: "MS", h: 6, level: [80, 95] } as const;
    const els = parseSvg(plotForecast(body, forecast(body), { seriesIndex: 1, lastPoints: 24 }));
    expect(els.find((e) => e.name === "title")?.text).toBe("series 1: forecast of 6 steps");
    expect(byClass(els, "band")).toHaveLength(2);
    expect(legend(els)).toEqual(["observed", "forecast", "80% interval", "95% interval"]);
    expect(xTickTexts(els)).toContain("0");
    expect(() => plotForecast(body, forecast(body), { seriesIndex: 2 })).toThrow(/seriesIndex must be below the number of series \(2\)/);
  });
});

describe("plotAnomalies", () => {
  const rows = Array.from({ length: 72 }, (_, t) => ({ unique_id: "cpu", ds: new Date(Date.UTC(2024, 0, 1, t)), y: t === 70 ? 60 : 20 + 5 * Math.sin((2 * Math.PI * t) / 24) }));

  it("from the records rows: the detection window, its band, the flags, dated ticks", () => {
    const detected = detectAnomaliesRecords(rows, { h: 6, detection_size: 6, level: 95 });
    const els = parseSvg(plotAnomalies(rows, detected));
    checkGeometry(els);
    expect(els.find((e) => e.name === "title")?.text).toBe("cpu: anomalies in the last 6 points");
    expect(byClass(els, "highlight")).toHaveLength(1);
    expect(byClass(els, "band")).toHaveLength(1);
    const flagged = detected.rows.filter((r) => r.anomaly).length;
    expect(flagged).toBeGreaterThanOrEqual(1);
    expect(legend(els)).toEqual(["observed", "forecast", "95% interval", "detection window", `anomaly (${flagged})`]);
    for (const t of xTickTexts(els)) expect(t).toMatch(/^2024-01-0[1-3] \d\d:00$/);
  });

  it("from a JSON body and its result, directly", () => {
    const body = { series: { y: rows.map((r) => r.y), sizes: [72] }, freq: "H", h: 6, detection_size: 6 } as const;
    const els = parseSvg(plotAnomalies(body, detectAnomaliesOnline(body), { lastPoints: 48 }));
    expect(els.find((e) => e.name === "title")?.text).toBe("series 0: anomalies in the last 6 points");
    expect(legend(els)).toContain("detection window");
    expect(legend(els)).toContain("99% interval");
  });

  it("the multivariate threshold has no band and no interval entry", () => {
    const two = [...rows, ...rows.map((r) => ({ ...r, unique_id: "mem" }))];
    const els = parseSvg(plotAnomalies(two, detectAnomaliesRecords(two, { h: 6, detection_size: 6, threshold_method: "multivariate" }), { unique_id: "mem" }));
    expect(byClass(els, "band")).toHaveLength(0);
    expect(legend(els).some((t) => t.endsWith("interval"))).toBe(false);
    expect(els.find((e) => e.name === "title")?.text).toBe("mem: anomalies in the last 6 points");
  });
});

describe("renderAnomalyChart's default labels", () => {
  it("a shaded region is 'highlighted' unless named; several bands each get their entry", () => {
    const els = parseSvg(
      renderAnomalyChart({
        title: "t",
        values: [1, 2, 3, 4],
        highlightStart: 2,
        forecast: { start: 4, mean: [5, 6], bands: [{ label: "a", lo: [4, 5], hi: [6, 7] }, { label: "b", lo: [3, 4], hi: [7, 8] }] },
      }),
    );
    expect(legend(els)).toEqual(["observed", "forecast", "a", "b", "highlighted"]);
    expect(() => renderAnomalyChart({ title: "t", values: [1], forecast: { start: 1, mean: [1, 2], bands: [{ label: "x", lo: [1], hi: [2] }] } })).toThrow(/forecast\.bands\[0\]/);
  });
});
