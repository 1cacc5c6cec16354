/**
 * How long the API takes to validate a forecast body of 10^6 values (1,000
 * hourly series of 1,000 points, h 24, levels 80 and 95; forecast-bench's
 * seeded values): `validateEndpointBody` on the parsed body (limits, schema,
 * rules across fields), and that plus `endpointRequest` (the typed request,
 * series packed into a Float64Array). Median of 30 rounds after 3 warm-up
 * rounds (the two cases interleaved), one thread.
 *
 *   npm run build && node dist/bench/validation-bench.js [series=1000] [points=1000]
 *
 * Uses only functions that predate the route table, so the same file times an
 * older build (copy it into that tree and build it there).
 */
import { endpointRequest } from "../src/api/entry-points.js";
import { DEFAULT_SERVICE_LIMITS, validateEndpointBody } from "../src/api/requests.js";
import { forecastBenchValues } from "./bench-data.js";

const seriesCount = Number(process.argv[2] ?? 1000);
const points = Number(process.argv[3] ?? 1000);
const y = Array.from(forecastBenchValues(seriesCount, points));
const body = { series: { y, sizes: new Array<number>(seriesCount).fill(points) }, freq: "H", h: 24, level: [80, 95] };
const options = { core: false, limits: DEFAULT_SERVICE_LIMITS };

/** Median milliseconds of each case, the cases interleaved round by round (the first 3 rounds are warm-up). */
function medianMs(cases: readonly (() => void)[], rounds = 33): number[] {
  const times = cases.map((): number[] => []);
  for (let i = 0; i < rounds; i++) {
    cases.forEach((run, c) => {
      const t0 = process.hrtime.bigint();
      run();
      if (i >= 3) times[c]!.push(Number(process.hrtime.bigint() - t0) / 1e6);
    });
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!);
}

const names = ["validateEndpointBody", "validateEndpointBody + endpointRequest"];
const medians = medianMs([
  () => void validateEndpointBody("forecast", body, options),
  () => void endpointRequest("forecast", validateEndpointBody("forecast", body, options), null),
]);
const rows = names.map((name, i): [string, number] => [name, medians[i]!]);
console.log(`forecast body: ${seriesCount} series × ${points} points = ${(seriesCount * points).toLocaleString("en")} values`);
console.log("| step | median ms |\n|---|---|");
for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(1)} |`);
