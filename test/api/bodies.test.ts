/**
 * The typed JSON bodies of the entry points: mistakes fail at compile time
 * (each `@ts-expect-error` below must be an error, or `tsc` fails the suite),
 * and levels given as fractions get a warning.
 */
import { describe, expect, it } from "vitest";
import { detectAnomaliesOnline, forecast, fractionLevelWarning, type ForecastRequest } from "../../src/api/index.js";

const y = Array.from({ length: 48 }, (_, t) => 10 + (t % 12));

describe("typed bodies", () => {
  it("reject a misspelt field, a string h and an unknown freq at compile time (at run time: a warning, then 422s)", () => {
    // @ts-expect-error: levle is not a field of ForecastRequest
    const typo = forecast({ series: { y, sizes: [48] }, freq: "M", h: 12, levle: [80] });
    expect(typo.intervals).toBeNull();
    expect(typo.warnings.some((w) => w.startsWith("unknown field ignored: 'levle'"))).toBe(true);
    // @ts-expect-error: h is a number
    expect(() => forecast({ series: { y, sizes: [48] }, freq: "M", h: "12" })).toThrow();
    // @ts-expect-error: "MONTHLY" is not a frequency
    expect(() => forecast({ series: { y, sizes: [48] }, freq: "MONTHLY", h: 12 })).toThrow();
    const body: ForecastRequest = { series: { y, sizes: [48] }, freq: "M", h: 12, level: [80] };
    expect(forecast(body).mean).toHaveLength(12);
    expect(forecast(JSON.stringify(body)).mean).toHaveLength(12);
  });

  it("levels given as fractions get a warning, levels in percent none", () => {
    const asFractions = forecast({ series: { y, sizes: [48] }, freq: "M", h: 6, level: [0.8, 0.95] });
    expect(asFractions.warnings.some((w) => w.startsWith("level is in percent: 0.8, 0.95"))).toBe(true);
    expect(asFractions.warnings.join(" ")).toContain("write 80, 95");
    expect(forecast({ series: { y, sizes: [48] }, freq: "M", h: 6, level: [80, 95] }).warnings).toEqual([]);
    const anomaly = detectAnomaliesOnline({ series: { y, sizes: [48] }, freq: "M", h: 6, detection_size: 6, level: 0.99 });
    expect(anomaly.warnings.some((w) => w.startsWith("level is in percent"))).toBe(true);
    expect(fractionLevelWarning([0, 50])).toBeNull();
  });
});
