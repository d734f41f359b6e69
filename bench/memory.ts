import { loadContract } from "../src/contract/index.js";
import { DEFAULT_SPEC } from "../src/paths.js";
import { createReferenceEngine, type CoreRequest, type Engine } from "../src/server/index.js";
import { median } from "./load.js";

// Run as its own process with --expose-gc (bench/run.ts does): node --expose-gc dist/bench/memory.js N1 N2
export interface MemoryResult {
  readonly counts: readonly number[];
  /** Heap used and RSS after a full GC, empty and after each count of stored plants. */
  readonly heapUsedBytes: readonly number[];
  readonly rssBytes: readonly number[];
  /** (heap used at the largest count - empty) / largest count. */
  readonly bytesPerPlantHeap: number;
  readonly bytesPerPlantRss: number;
  /**
   * Median time of one create through the core (parse, validate, store) at each count, measured in
   * batches interleaved with batches on an empty store, so that both see the same machine and heap.
   */
  readonly createNs: readonly { readonly count: number; readonly atCount: number; readonly empty: number }[];
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");

const contract = await loadContract(DEFAULT_SPEC);
const counts = process.argv
  .slice(2)
  .map(Number)
  .sort((a, b) => a - b);
const largest = Math.max(...counts);
const headers = { "content-type": "application/json", authorization: "Bearer bench" };
const makeEngine = (): Engine =>
  createReferenceEngine(contract, { tokens: ["bench"], cors: { origins: [] }, maxPlants: largest + 10_000_000 });
const fullEngine = makeEngine();
const emptyEngine = makeEngine();
const [full, empty] = [fullEngine.store, emptyEngine.store];
const [onFull, onEmpty] = [fullEngine.handle, emptyEngine.handle];
let nextId = 1;
const create = (handle: (r: CoreRequest) => { status: number }): void => {
  const id = nextId++;
  const request: CoreRequest = {
    method: "POST",
    url: "/plants",
    headers,
    body: Buffer.from(`{"id":${id},"name":"Plant ${id % 100_000}","tag":"fern"}`),
  };
  if (handle(request).status !== 200) throw new Error(`create ${id} failed`);
};
const batch = (handle: (r: CoreRequest) => { status: number }, size: number): number => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < size; i++) create(handle);
  return Number(process.hrtime.bigint() - t) / size;
};
const measure = (): [number, number] => {
  gc();
  gc();
  return [process.memoryUsage().heapUsed, process.memoryUsage().rss];
};

for (let i = 0; i < 20_000; i++) create(onEmpty); // warm-up: JIT
empty.clear();
const heap: number[] = [];
const rss: number[] = [];
let [h, r] = measure();
heap.push(h);
rss.push(r);
const createNs: { count: number; atCount: number; empty: number }[] = [];
for (const count of counts) {
  while (full.size < count) create(onFull);
  [h, r] = measure();
  heap.push(h);
  rss.push(r);
  const emptySamples: number[] = [];
  const atCountSamples: number[] = [];
  for (let round = 0; round < 15; round++) {
    emptySamples.push(batch(onEmpty, 2_000));
    empty.clear();
    atCountSamples.push(batch(onFull, 2_000));
  }
  createNs.push({ count, atCount: median(atCountSamples), empty: median(emptySamples) });
}
const result: MemoryResult = {
  counts: [0, ...counts],
  heapUsedBytes: heap,
  rssBytes: rss,
  bytesPerPlantHeap: ((heap.at(-1) as number) - (heap[0] as number)) / largest,
  bytesPerPlantRss: ((rss.at(-1) as number) - (rss[0] as number)) / largest,
  createNs,
};
process.stdout.write(JSON.stringify(result) + "\n");
