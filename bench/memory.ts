import { loadContract } from "../src/contract/index.js";
import { DEFAULT_SPEC } from "../src/paths.js";
import { createCore, PlantStore, type CoreRequest } from "../src/server/index.js";
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
  /** Median time of one create through the core (parse, validate, store), empty and at the largest count. */
  readonly createNsEmpty: number;
  readonly createNsFull: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");

const contract = await loadContract(DEFAULT_SPEC);
const counts = process.argv.slice(2).map(Number);
const largest = Math.max(...counts);
const store = new PlantStore(largest + 1_000_000);
const handle = createCore(contract, store, { tokens: ["bench"], cors: { origins: [] } });
const headers = { "content-type": "application/json", authorization: "Bearer bench" };
let nextId = 1;
const create = (): void => {
  const id = nextId++;
  const request: CoreRequest = { method: "POST", url: "/plants", headers, body: Buffer.from(`{"id":${id},"name":"Plant ${id % 100_000}","tag":"fern"}`) };
  if (handle(request).status !== 200) throw new Error(`create ${id} failed`);
};
/** Median nanoseconds per create over batches, each batch's plants added to the store. */
const timeCreates = (batches: number, size: number): number => {
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < size; i++) create();
    samples.push(Number(process.hrtime.bigint() - t) / size);
  }
  return median(samples);
};

const measure = (): [number, number] => {
  gc();
  gc();
  return [process.memoryUsage().heapUsed, process.memoryUsage().rss];
};

timeCreates(4, 5_000); // warm-up: JIT, not counted in the store's growth below
store.clear();
const heap: number[] = [];
const rss: number[] = [];
let [h, r] = measure();
heap.push(h);
rss.push(r);
const createNsEmpty = timeCreates(5, 2_000);
store.clear();
for (const count of counts.sort((a, b) => a - b)) {
  while (store.size < count) create();
  [h, r] = measure();
  heap.push(h);
  rss.push(r);
}
const before = store.size;
const createNsFull = timeCreates(5, 2_000);
if (store.size !== before + 10_000) throw new Error("creates at the largest count did not all store");

const result: MemoryResult = {
  counts: [0, ...counts],
  heapUsedBytes: heap,
  rssBytes: rss,
  bytesPerPlantHeap: ((heap.at(-1) as number) - (heap[0] as number)) / largest,
  bytesPerPlantRss: ((rss.at(-1) as number) - (rss[0] as number)) / largest,
  createNsEmpty,
  createNsFull,
};
process.stdout.write(JSON.stringify(result) + "\n");
