// The mock engine (`serve --spec`) on every corpus document (test/corpus.ts), judged by the kit's own
// harness through the kit's proxy: load, start the engine on loopback, run generated cases
// (--generate 10, seed 5) through the proxy, and print per document the exit code, the operations
// exercised, the time, the answers the proxy flagged, and the findings grouped by check with one
// example each. conformance/engine-corpus.test.ts runs the quick ones in the suite.
//   npm run build && node dist/bench/engine-survey.js [NAME ...]
// Not a test: nothing here asserts.

import { loadContract } from "../src/contract/index.js";
import { startProxy } from "../src/proxy/index.js";
import { startMockServer } from "../src/server/index.js";
import { CORPUS, corpusDocuments } from "../test/corpus.js";
import { judgeEngine } from "../test/engine-run.js";

const names = process.argv.slice(2);
const documents = names.length > 0 ? corpusDocuments(names) : CORPUS.filter((d) => d.name !== "github-rest-api");
for (const d of documents) {
  const started = Date.now();
  const contract = await loadContract(d.file);
  const server = await startMockServer({ contract, host: "127.0.0.1", port: 0 });
  const proxy = await startProxy({ target: server.url, contract, port: 0 });
  try {
    const { summary, results } = await judgeEngine(contract, proxy.url);
    const watched = (await proxy.stop()).summary;
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    const exercised = `${summary.coverage.operations.exercised}/${contract.operations.length}`;
    const flagged = `the proxy flagged ${watched.serverExchanges} answers of ${watched.judged} (${watched.counted.server} counted findings)`;
    console.log(`${d.name}: exit ${summary.exitCode}, ${exercised} operations, ${flagged}, ${seconds} s`);
    const kinds = new Map<string, { n: number; example: string }>();
    for (const r of results.filter((x) => x.outcome !== "pass")) {
      const step = r.steps.find((s) => s.findings.some((f) => f.counts));
      const finding = step?.findings.find((f) => f.counts);
      const key = r.error !== undefined ? "error" : (finding?.check ?? "?");
      const example =
        r.error ??
        `${finding?.message ?? ""} [${step?.request.method} ${step?.request.url.replace(/^https?:\/\/[^/]+/, "")} -> ${step?.response?.status} ${(step?.response?.body ?? "").slice(0, 160)}]`;
      const k = kinds.get(key) ?? { n: 0, example };
      kinds.set(key, { n: k.n + 1, example: k.example });
    }
    for (const [check, { n, example }] of kinds) console.log(`  ${n} ${check}: ${example.slice(0, 400)}`);
  } finally {
    await proxy.stop();
    await server.close();
  }
}
