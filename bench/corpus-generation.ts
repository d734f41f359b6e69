// What generating requests costs the kit on real documents, without a target: for each corpus
// document (test/corpus.ts), the load (time, memory), then for every operation the time to draw
// COUNT positive and COUNT negative candidate requests, each prepared and judged by the contract
// as a run judges it before sending (usable: the ones a run would send).
//   npm run build && node dist/bench/corpus-generation.js [NAME ...] [--count N] [--out FILE]
// Prints a table and writes JSON. Not a test: nothing here asserts a time.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { loadContract, type CompiledOperation, type Contract } from "../src/contract/index.js";
import { generatable, negativeRequests, positiveRequests } from "../src/harness/generate/requests.js";
import { negativesPossible } from "../src/harness/generate/requests.js";
import { CORPUS } from "../test/corpus.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { count: { type: "string", default: "20" }, out: { type: "string" } },
});
const count = Number(values.count);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const round = (ms: number): number => Math.round(ms * 10) / 10;
const mib = (bytes: number): number => Math.round(bytes / 1024 / 1024);

/**
 * Draws `count` candidates, as a run draws them when the contract accepts each one (a run draws
 * more, up to 20 skipped for each judged one, where candidates miss). fc.sample makes all it is
 * asked for at once, so exactly `count` are asked for.
 */
function draw(arb: fc.Arbitrary<unknown>, seed: number): { usable: number; drawn: number } {
  const values = fc.sample(arb, { numRuns: count, seed });
  return { usable: values.filter((v) => v !== null).length, drawn: values.length };
}

function measure(contract: Contract, op: CompiledOperation): { ms: number; usable: number; drawn: number } {
  const fresh = new Map<string, (type: "integer" | "string") => bigint | string>([
    ["id", (t) => (t === "string" ? "fresh" : 9007199254740993n)],
  ]);
  const started = performance.now();
  const p = draw(positiveRequests(contract, op, { fresh }), 5);
  const n = negativesPossible(op, contract.document)
    ? draw(negativeRequests(contract, op, { fresh }), 5)
    : { usable: 0, drawn: 0 };
  return { ms: performance.now() - started, usable: p.usable + n.usable, drawn: p.drawn + n.drawn };
}

const rows: object[] = [];
const chosen = positionals.length === 0 ? CORPUS : CORPUS.filter((d) => positionals.includes(d.name));
for (const doc of chosen) {
  const t = performance.now();
  let contract: Contract;
  try {
    contract = await loadContract(doc.file);
  } catch (error) {
    rows.push({ name: doc.name, loadError: (error as Error).message.slice(0, 300) });
    console.log(`${doc.name.padEnd(28)} does not load: ${(error as Error).message.slice(0, 200)}`);
    continue;
  }
  const loadMs = performance.now() - t;
  const heap = process.memoryUsage();
  const times: number[] = [];
  let worst = { operation: "", ms: 0 };
  let usable = 0;
  let left = 0;
  const started = performance.now();
  for (const op of contract.operations) {
    if (!generatable(op, contract.document).ok) {
      left++;
      continue;
    }
    const m = measure(contract, op);
    times.push(m.ms);
    usable += m.usable;
    if (m.ms > worst.ms) worst = { operation: op.operationId, ms: m.ms };
  }
  const row = {
    name: doc.name,
    operations: contract.operations.length,
    leftOut: left,
    loadMs: round(loadMs),
    rssMiB: mib(heap.rss),
    heapUsedMiB: mib(heap.heapUsed),
    generationTotalMs: round(performance.now() - started),
    perOperationMedianMs: round(median(times)),
    perOperationWorstMs: round(worst.ms),
    worstOperation: worst.operation,
    usableRequests: usable,
  };
  rows.push(row);
  console.log(
    `${row.name.padEnd(28)} ops ${String(row.operations).padStart(5)}  load ${String(row.loadMs).padStart(8)} ms` +
      `  heap ${String(row.heapUsedMiB).padStart(5)} MiB  gen median ${String(row.perOperationMedianMs).padStart(7)} ms` +
      `  worst ${String(row.perOperationWorstMs).padStart(8)} ms (${row.worstOperation})`,
  );
}
const result = { node: process.version, count, rows };
if (values.out !== undefined) writeFileSync(values.out, JSON.stringify(result, null, 2) + "\n");
