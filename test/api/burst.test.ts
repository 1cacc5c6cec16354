/**
 * Every answer of a burst of bad requests is its 4xx (issue 27; timing and
 * heap are measured by bench/burst-bench.ts, not here): 20 kinds (keys,
 * routes, methods, malformed and invalid bodies, limits and the work budget,
 * corrupt and hostile encodings, credits, pending jobs, jobs) and a gzip
 * bomb (alone under the default body limit, then 200 requests in waves of
 * 20 at once under a 1 MiB limit) on the stand-in pipelines.
 */
import { describe, expect, it } from "vitest";
import { badRequestBurst, badRequestKinds, burstService, gzipBomb } from "../support/bad-requests.js";
import { fakePipelines } from "./helpers.js";

describe("a burst of bad requests", () => {
  it("every kind gets its status, alone", async () => {
    const { service, finishedJob } = await burstService(fakePipelines);
    for (const bad of [...badRequestKinds(finishedJob), gzipBomb()]) {
      const res = await service.handle(bad.request);
      expect([bad.kind, res.status]).toEqual([bad.kind, bad.expected]);
    }
  });

  it("200 mixed, 20 at once (body limit 1 MiB, so each bomb is refused at the limit): every answer is its 4xx, and the service still answers a good request", async () => {
    const { service, finishedJob } = await burstService(fakePipelines, { maxBodyBytes: 1024 * 1024 });
    const burst = badRequestBurst(finishedJob, 200, 50);
    for (let i = 0; i < burst.length; i += 20) {
      const wave = burst.slice(i, i + 20);
      const statuses = await Promise.all(wave.map((bad) => service.handle(bad.request).then((r) => r.status)));
      expect(statuses).toEqual(wave.map((bad) => bad.expected));
    }
    const ok = await service.handle({ method: "POST", path: "/v2/forecast", headers: { authorization: "Bearer key-burst-paying-01" }, body: { series: { y: [1, 2, 3, 4], sizes: [4] }, freq: "D", h: 2 } });
    expect(ok.status).toBe(200);
  });
});
