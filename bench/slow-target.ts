// A slow target's verdict: the harness at its default settings (as `plantstore conformance --spec
// DOC --target URL` runs a document that is not the kit's: generated cases, --generate 100, then the
// stateful sequences, concurrency 4) against a correct server of a five-operation contract whose every
// answer comes 200 ms late. Prints the wall time, the requests sent and the verdict.
//   npm run build && node dist/bench/slow-target.js [DELAY_MS]
// Not a test: nothing here asserts. docs/performance.md has the method and the figures.
import { GENERATE_COUNT } from "../src/cli/conformance.js";
import { runConformance } from "../src/harness/index.js";
import { startStatefulServer, statefulContract } from "../test/stateful-server.js";
import { TOKEN } from "../test/helpers.js";

const delayMs = Number(process.argv[2] ?? 200);
const contract = await statefulContract();
const server = await startStatefulServer({ delayMs });
const started = performance.now();
try {
  const { summary, results } = await runConformance({
    target: server.url,
    token: TOKEN,
    contract,
    noFixtures: true,
    generate: { count: GENERATE_COUNT },
    seed: 1n,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `answers ${delayMs} ms late: verdict exit ${summary.exitCode} in ${seconds} s, ${results.length} cases, ${server.answered()} requests`,
  );
  const slowest = [...results].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5);
  for (const r of slowest)
    console.log(`  ${r.fixture}: ${(r.durationMs / 1000).toFixed(1)} s, ${r.steps.length} steps`);
} finally {
  await server.close();
}
