// What `--save` costs: creates per second against the mock server of the Plant Store with and without
// --save, the store already holding 0, 10,000, 50,000 or 100,000 plants, and the read latency another client
// sees meanwhile. Each round: a fresh server in this process, seeded through its engine, then 3 s of
// creates with 10 keep-alive connections (autocannon) while one more client reads a plant in a loop.
//   npm run build && node dist/bench/save-cost.js [SECONDS]
// Not a test: nothing here asserts. docs/performance.md has the method and the figures.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { Agent, request } from "undici";
import { loadContract } from "../src/contract/index.js";
import { DEFAULT_SPEC } from "../src/paths.js";
import { startMockServer } from "../src/server/index.js";

const seconds = Number(process.argv[2] ?? 3);
const TOKEN = "save-cost-token";
const contract = await loadContract(DEFAULT_SPEC);
const dir = mkdtempSync(join(tmpdir(), "save-cost-"));
const quantile = (xs: number[], q: number): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? 0;

interface Round {
  readonly rps: number;
  readonly non2xx: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

async function round(items: number, save: boolean): Promise<Round> {
  const saveFile = save ? join(dir, `store-${items}-${Date.now()}.json`) : undefined;
  const server = await startMockServer({
    contract,
    port: 0,
    tokens: [TOKEN],
    log: undefined,
    ...(saveFile === undefined ? {} : { saveFile }),
  });
  try {
    for (let i = 1; i <= items; i++)
      server.engine.store.insert(server.engine.store.collection("plants", []), String(i), { name: `p${i}` });
    let next = 10_000_000;
    const agent = new Agent({ connections: 1 });
    const latencies: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const t = performance.now();
        const r = await request(`${server.url}/__none`, { dispatcher: agent });
        await r.body.dump();
        latencies.push(performance.now() - t);
      }
    })();
    const result = await autocannon({
      url: `${server.url}/plants`,
      connections: 10,
      duration: seconds,
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      requests: [{ setupRequest: (req) => ({ ...req, body: `{"id":${next++},"name":"n"}` }) }],
    });
    reading = false;
    await reader;
    await agent.close();
    return {
      rps: result.requests.average,
      non2xx: result.non2xx,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      max: quantile(latencies, 1),
    };
  } finally {
    await server.close(100);
  }
}

try {
  for (const items of [0, 10_000, 50_000, 100_000]) {
    const without = await round(items, false);
    const withSave = await round(items, true);
    const f = (r: Round) =>
      `${Math.round(r.rps)} creates/s (${r.non2xx} not 2xx), another client's request p50 ${r.p50.toFixed(2)} ms, ` +
      `p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(1)} ms`;
    console.log(
      `${items} items: without --save ${f(without)}; with --save ${f(withSave)}; ratio ${(withSave.rps / without.rps).toFixed(2)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
