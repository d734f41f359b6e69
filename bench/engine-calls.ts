// The mock engine's own cost per request, without a socket: `engine.handle` called in a loop.
//
//   node dist/bench/engine-calls.js [creates|reads] [calls]
//
// creates: POST /plants of the Plant Store spec through the reference server's engine, a new id each
// time. reads: on the multi-operation document with 100 plants stored, four reads by id to one list
// of 20. After 2,000 untimed calls, 7 batches of `calls` (default 10,000); the best batch, in µs a
// call, as one JSON line. The best, not the median: on a shared machine other work only ever adds.
// docs/performance.md quotes it before and after the engine's per-request work.
import { join } from "node:path";
import { loadContract } from "../src/contract/index.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../src/paths.js";
import { createEngine, createMockEngine, type CoreRequest } from "../src/server/index.js";
import { engineCredentials } from "../src/server/engine-security.js";

const TOKEN = "bench-token";
const encoder = new TextEncoder();
const mode = process.argv[2] ?? "creates";
const calls = Number(process.argv[3] ?? 10_000);
if (mode !== "creates" && mode !== "reads") throw new Error(`creates or reads, not ${mode}`);
if (!Number.isInteger(calls) || calls < 1) throw new Error(`calls must be a positive integer, not ${process.argv[3]}`);

const auth = { authorization: `Bearer ${TOKEN}` };
const create = (id: number): CoreRequest => ({
  method: "POST",
  url: "/plants",
  headers: { ...auth, "content-type": "application/json" },
  body: encoder.encode(JSON.stringify({ id, name: "Bench fern", tag: "fern" })),
});

let handle: (request: CoreRequest) => { status: number };
let next: () => CoreRequest;
if (mode === "creates") {
  const engine = createMockEngine(await loadContract(DEFAULT_SPEC), {
    tokens: [TOKEN],
    corsOrigins: [],
    maxItems: 100_000_000,
  });
  handle = engine.handle;
  let id = 0;
  next = () => create(++id);
} else {
  const contract = await loadContract(join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml"));
  const engine = createEngine(contract, {
    credentials: engineCredentials([TOKEN], undefined, "--token"),
    cors: { origins: [] },
    maxItems: 1_000,
  });
  handle = engine.handle;
  for (let id = 1; id <= 100; id++) if (handle(create(id)).status !== 200) throw new Error("seeding failed");
  let n = 0;
  const none = new Uint8Array(0);
  next = () =>
    ++n % 5 === 0
      ? { method: "GET", url: "/plants?limit=20", headers: auth, body: none }
      : { method: "GET", url: `/plants/${(n % 100) + 1}`, headers: auth, body: none };
}

for (let i = 0; i < 2_000; i++) handle(next());
let best = Infinity;
for (let batch = 0; batch < 7; batch++) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) handle(next());
  best = Math.min(best, Number(process.hrtime.bigint() - started) / 1_000 / calls);
}
process.stdout.write(`${JSON.stringify({ mode, calls, batches: 7, bestMicrosecondsPerCall: best })}\n`);
