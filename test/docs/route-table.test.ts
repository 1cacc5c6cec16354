/**
 * docs/architecture.md's copy of the route table says what `ROUTES` says:
 * the same routes in the same order, each with its method, path, key header,
 * whether it counts as a call and whether it is paid.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/api/routes.js";

/** The rows of the markdown table under "## The route table", as cells. */
function documentedRows(): string[][] {
  const text = readFileSync("docs/architecture.md", "utf8");
  const section = text.slice(text.indexOf("## The route table"));
  const lines = section.split("\n").filter((l) => l.startsWith("| "));
  return lines.slice(1).map((l) => l.slice(1, -1).split("|").map((c) => c.trim()));
}

describe("docs/architecture.md's route table", () => {
  it("lists every route of ROUTES, in order, with its method, path, key, call and paid flags", () => {
    const documented = documentedRows().map((cells) => cells.slice(0, 6));
    const actual = ROUTES.map((r) => [r.method, `\`${r.path}\``, r.name, r.key, r.countsAsCall ? "yes" : "no", r.paid ? "yes" : "no"]);
    expect(documented).toEqual(actual);
  });
});
