// The proxy's memory over a long session: N exchanges (creates, one in five invalid) through
// `startProxy` in front of the Plant Store's mock server, both in this process, 10 keep-alive
// connections; the heap after a full GC and the RSS at 20,000 exchanges and at the end.
//   npm run build && node --expose-gc dist/bench/proxy-memory.js [EXCHANGES]
// Not a test: nothing here asserts. docs/performance.md has the method and the figures.
import { Agent, request } from "undici";
import { loadContract } from "../src/contract/index.js";
import { DEFAULT_SPEC } from "../src/paths.js";
import { startProxy } from "../src/proxy/index.js";
import { startMockServer } from "../src/server/index.js";

const total = Number(process.argv[2] ?? 200_000);
const TOKEN = "proxy-memory-token";
const gc = (globalThis as { gc?: () => void }).gc;
const contract = await loadContract(DEFAULT_SPEC);
// A store that stops growing at 1,000 plants (creates past it get the documented 400): the memory measured is the proxy's.
const server = await startMockServer({ contract, port: 0, tokens: [TOKEN], maxItems: 1_000 });
const proxy = await startProxy({ target: server.url, contract, port: 0 });
const agent = new Agent({ connections: 10, pipelining: 1 });
const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MB`;
const sample = (at: number): void => {
  gc?.();
  const m = process.memoryUsage();
  console.log(`after ${at} exchanges: heap ${mb(m.heapUsed)}, RSS ${mb(m.rss)}`);
};
let sent = 0;
const worker = async (): Promise<void> => {
  while (sent < total) {
    const n = ++sent;
    const body = n % 5 === 0 ? `{"id":${n}}` : `{"id":${n},"name":"plant ${n}"}`;
    const r = await request(`${proxy.url}/plants`, {
      method: "POST",
      dispatcher: agent,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body,
    });
    await r.body.dump();
    if (n === 20_000) sample(n);
  }
};
const started = performance.now();
await Promise.all(Array.from({ length: 10 }, worker));
sample(total);
const { summary, exchanges } = await proxy.stop();
console.log(
  `${summary.exchanges} exchanges in ${((performance.now() - started) / 1000).toFixed(0)} s; ` +
    `${exchanges.length} kept for the reports, ${summary.omitted} counted only; ${summary.clientViolations} client violations`,
);
await agent.close();
await server.close(100);
