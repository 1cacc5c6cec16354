/**
 * POST /v2/anomaly_detection takes `level` as a number (or a one-element
 * list): a bad number is reported where the client put it (issue 27).
 */
import { describe, expect, it } from "vitest";
import { post, testService } from "./helpers.js";

const series = { y: Array.from({ length: 140 }, (_, t) => 10 + (t % 7)), sizes: [140] };
const detail = async (level: unknown) => {
  const answer = await testService().handle(post("/v2/anomaly_detection", { series, freq: "D", level }));
  expect(answer.status).toBe(422);
  return (answer.body as { detail: { loc: (string | number)[]; type: string; input: unknown }[] }).detail;
};

describe("/v2/anomaly_detection level locations", () => {
  it.each([
    [100, "less_than"],
    [-1, "greater_than_equal"],
    ["a", "float_type"],
    [true, "float_type"],
  ])("a scalar level %j is reported at [body, level] (%s), with the number as input", async (level, type) => {
    const items = await detail(level);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ loc: ["body", "level"], type, input: level });
  });

  it("a one-element list keeps the element's location; a list of several is at [body, level]; a good level answers 200", async () => {
    expect((await detail([100]))[0]).toMatchObject({ loc: ["body", "level", 0], type: "less_than" });
    expect((await detail([80, 90]))[0]).toMatchObject({ loc: ["body", "level"] });
    for (const level of [95, [95], null]) {
      const answer = await testService().handle(post("/v2/anomaly_detection", { series, freq: "D", level }));
      expect({ level, status: answer.status }).toEqual({ level, status: 200 });
    }
  });

  it("other items of a scalar-level request keep their locations", async () => {
    const answer = await testService().handle(post("/v2/anomaly_detection", { series: { y: [1, 2, 3], sizes: [3] }, freq: "D", level: 100 }));
    const locs = (answer.body as { detail: { loc: (string | number)[] }[] }).detail.map((d) => d.loc.join("."));
    expect(locs).toContain("body.level");
    expect(locs.every((l) => l === "body.level" || !l.startsWith("body.level"))).toBe(true);
  });
});
