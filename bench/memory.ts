import { relative } from "node:path";
import { loadContract } from "../src/contract/index.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../src/paths.js";
import { createMockEngine, createMockHandler, type CoreRequest } from "../src/server/index.js";
import { median } from "./stats.js";

// Run as its own process with --expose-gc (bench/run.ts does):
//   node --expose-gc dist/bench/memory.js reference N1 N2       the reference server's core and store
//   node --expose-gc dist/bench/memory.js engine SPEC N1 N2     the mock engine (serve --spec SPEC)
// Plants are created through the server as a function (parse, validate, store, answer), no socket.

/** A time at a count of stored plants, beside the same on a small store, measured in turn. */
export interface Beside {
  readonly count: number;
  readonly atCount: number;
  readonly empty: number;
}

export interface MemoryResult {
  readonly server: "reference" | "engine";
  /** The document the engine served. */
  readonly spec?: string;
  /** Whether a create stored anything: the engine serves an operation outside its resource model from examples. */
  readonly stores: boolean;
  readonly counts: readonly number[];
  /** Heap used and RSS after a full GC, empty and after each count of stored plants. */
  readonly heapUsedBytes: readonly number[];
  readonly rssBytes: readonly number[];
  /** (heap used at the largest count - empty) / largest count; NaN (null in JSON) when nothing is stored. */
  readonly bytesPerPlantHeap: number;
  readonly bytesPerPlantRss: number;
  /** ns per create at each count (median of 15 batches of 2,000), beside batches on an empty store. */
  readonly createNs: readonly Beside[];
  /** Where the document has them: a read by id (spread over the store), a list of 20, beside a store of 100. */
  readonly readNs?: readonly Beside[];
  readonly listNs?: readonly Beside[];
}

interface Server {
  readonly handle: (r: CoreRequest) => { status: number };
  readonly size: () => number;
  readonly clear: () => void;
  /** The id of its next create: the full store's count up from 1 without a gap, the other's from 10^12. */
  next: number;
}

const TOKEN = "bench-token-0123456789";
const POST_HEADERS = { "content-type": "application/json", authorization: `Bearer ${TOKEN}` };
const request = (method: string, url: string, body = ""): CoreRequest => ({
  method,
  url,
  headers: method === "POST" ? POST_HEADERS : { authorization: POST_HEADERS.authorization },
  body: Buffer.from(body),
});

function create(s: Server): void {
  const id = s.next++;
  const body = `{"id":${id},"name":"Plant ${id % 100_000}","tag":"fern"}`;
  const status = s.handle(request("POST", "/plants", body)).status;
  if (status !== 200) throw new Error(`create ${id} failed: ${status}`);
}

/** ns per call of `act` (given 0, 1, 2...) over `size` calls. */
function batch(act: (i: number) => void, size: number): number {
  const t = process.hrtime.bigint();
  for (let i = 0; i < size; i++) act(i);
  return Number(process.hrtime.bigint() - t) / size;
}

/** Medians of 15 batches of each, in turn. */
function beside(count: number, onEmpty: (i: number) => void, onFull: (i: number) => void, size: number): Beside {
  const e: number[] = [];
  const f: number[] = [];
  for (let round = 0; round < 15; round++) {
    e.push(batch(onEmpty, size));
    f.push(batch(onFull, size));
  }
  return { count, atCount: median(f), empty: median(e) };
}

/** Empties `s` and creates 100 plants in it; the first one's id. */
function hundred(s: Server): number {
  s.clear();
  const first = s.next;
  for (let i = 0; i < 100; i++) create(s);
  return first;
}

/**
 * At `count` plants: reads by id (spread over the store by a stride, so that the big one's are not
 * all in the CPU's caches) and lists of 20, each beside the same on a store of 100.
 */
function readsAndLists(
  count: number,
  full: Server,
  empty: Server,
  reads: number,
  lists: number,
): { read: () => Beside; list: () => Beside } {
  const first = hundred(empty);
  const size = full.size();
  const get = (s: Server, url: string): number => s.handle(request("GET", url)).status;
  const spread = (i: number, n: number): number => (i * 7919) % n;
  return {
    read: () =>
      beside(
        count,
        (i) => get(empty, `/plants/${first + spread(i, 100)}`),
        (i) => get(full, `/plants/${1 + spread(i, size)}`),
        reads,
      ),
    list: () =>
      beside(
        count,
        () => get(empty, "/plants?limit=20"),
        () => get(full, "/plants?limit=20"),
        lists,
      ),
  };
}

async function main(): Promise<MemoryResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with node --expose-gc");
  const [mode, ...rest] = process.argv.slice(2);
  if (mode !== "reference" && mode !== "engine") throw new Error("memory.js reference|engine [SPEC] N...");
  const spec = mode === "engine" ? (rest.shift() as string) : DEFAULT_SPEC;
  const contract = await loadContract(spec);
  const counts = rest.map(Number).sort((a, b) => a - b);
  const max = Math.max(...counts) + 10_000_000;
  const server = (next: number): Server => {
    if (mode === "reference") {
      const { handle, store } = createMockEngine(contract, { tokens: [TOKEN], corsOrigins: [], maxItems: max });
      return { handle, size: () => store.size, clear: () => store.clear(), next };
    }
    const { engine } = createMockHandler({ contract, tokens: [TOKEN], maxItems: max });
    return { handle: engine.handle, size: () => engine.store.size, clear: () => engine.store.clear(), next };
  };
  const full = server(1);
  const empty = server(1_000_000_000_000);
  const probe = hundred(empty);
  const head = {
    server: mode as MemoryResult["server"],
    ...(mode === "engine" ? { spec: relative(KIT_ROOT, spec) } : {}),
  };
  if (empty.size() === 0) return { ...head, stores: false, counts: [], heapUsedBytes: [], rssBytes: [], ...NOTHING };
  // A read and a list, where the document has them (answered 200 once a plant exists).
  const readable = empty.handle(request("GET", `/plants/${probe}`)).status === 200;
  const listable = empty.handle(request("GET", "/plants?limit=20")).status === 200;
  for (let i = 0; i < 20_000; i++) create(empty); // warm-up: JIT
  empty.clear();
  const measure = (): [number, number] => {
    gc();
    gc();
    return [process.memoryUsage().heapUsed, process.memoryUsage().rss];
  };
  const [heap0, rss0] = measure();
  const heap = [heap0];
  const rss = [rss0];
  const times = { createNs: [] as Beside[], readNs: [] as Beside[], listNs: [] as Beside[] };
  for (const count of counts) {
    while (full.size() < count) create(full);
    const [h, r] = measure();
    heap.push(h);
    rss.push(r);
    const onEmpty = (i: number): void => {
      if (i === 0) empty.clear();
      create(empty);
    };
    times.createNs.push(beside(count, onEmpty, () => create(full), 2_000));
    const { read, list } = readsAndLists(count, full, empty, 2_000, 10);
    if (readable) times.readNs.push(read());
    if (listable) times.listNs.push(list());
  }
  const largest = counts.at(-1) as number;
  return {
    ...head,
    stores: true,
    counts: [0, ...counts],
    heapUsedBytes: heap,
    rssBytes: rss,
    bytesPerPlantHeap: ((heap.at(-1) as number) - heap0) / largest,
    bytesPerPlantRss: ((rss.at(-1) as number) - rss0) / largest,
    createNs: times.createNs,
    ...(readable ? { readNs: times.readNs } : {}),
    ...(listable ? { listNs: times.listNs } : {}),
  };
}

const NOTHING = { bytesPerPlantHeap: NaN, bytesPerPlantRss: NaN, createNs: [] } as const;

process.stdout.write(JSON.stringify(await main()) + "\n");
