// The node:http host of docs/http-server.md, set up for the hosted API's
// Python SDK (NixtlaClient): its model names (SDK_MODEL_ALIASES), quarterly
// and yearly frequencies, no weights_x (featureWeights: false), one account with key $SDK_HOST_KEY (default
// "key-1") and credits enough for the whole suite, async jobs run every
// 200 ms. Run from the repo root after `npx tsc -p tsconfig.build.json`:
//   node tools/sdk-suite/host.mjs [port]     (default 8099)
// Used by tools/sdk-suite/run.sh; not part of npm test.
import { createServer } from "node:http";
import { createService, SDK_MODEL_ALIASES } from "../../dist/src/index.js";

const port = Number(process.argv[2] ?? 8099);
const key = process.env.SDK_HOST_KEY ?? "key-1";
const service = createService({
  accounts: [{ id: "sdk-suite", apiKeys: [key], credits: 1e15, hasPaymentMethod: true }],
  clock: () => new Date(),
  modelAliases: SDK_MODEL_ALIASES,
  quarterlyAndYearly: true,
  featureWeights: false,
});

const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const started = Date.now();
  const out = await service.handle({
    method: req.method ?? "GET",
    path: req.url ?? "/",
    headers: req.headers,
    body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
  });
  res.writeHead(out.status, out.headers);
  res.end(out.status === 204 ? undefined : JSON.stringify(out.body));
  // one line per request, for reading a failing test's exchange afterwards
  const detail = out.status >= 400 ? ` ${JSON.stringify(out.body).slice(0, 600)}` : "";
  process.stdout.write(`${new Date().toISOString()} ${req.method} ${req.url} ${out.status} ${Date.now() - started}ms${detail}\n`);
});
const jobs = setInterval(() => void service.runJobs(), 200);
server.on("close", () => clearInterval(jobs));
server.listen(port, "127.0.0.1", () => process.stdout.write(`sdk-suite host on http://127.0.0.1:${port}\n`));
