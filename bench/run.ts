import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { KIT_ROOT } from "../src/paths.js";
import { benchHarness, type HarnessResult } from "./harness.js";
import type { MemoryResult } from "./memory.js";
import { benchProxy, type ProxyBenchResult } from "./proxy.js";
import { benchServers, type ServerRow } from "./servers.js";

export interface BenchOptions {
  readonly sections: readonly ("servers" | "harness" | "memory" | "proxy")[];
  readonly smoke: boolean;
  readonly out: string | undefined;
}

export interface BenchResult {
  readonly when: string;
  readonly machine: {
    readonly cpus: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly node: string;
  };
  readonly settings: Record<string, unknown>;
  readonly servers?: { readonly rows: readonly ServerRow[]; readonly ratios: Record<string, number> };
  readonly harness?: HarnessResult;
  readonly memory?: MemoryResult;
  readonly proxy?: ProxyBenchResult;
}

const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : "-");

/** Runs the benchmark sections, prints a table, and writes the JSON result. */
export async function runBench(o: BenchOptions, log: (line: string) => void): Promise<BenchResult> {
  const s = o.smoke
    ? {
        warmupSeconds: 1,
        roundSeconds: 1,
        rounds: 1,
        connections: 10,
        suiteRuns: 1,
        generatedCases: 40,
        harnessRounds: 1,
        memoryCounts: [10_000, 20_000],
        sequentialRequests: 200,
      }
    : {
        warmupSeconds: 3,
        roundSeconds: 5,
        rounds: 5,
        connections: 10,
        suiteRuns: 10,
        generatedCases: 1_000,
        harnessRounds: 4,
        memoryCounts: [100_000, 1_000_000],
        sequentialRequests: 3_000,
      };
  const result: BenchResult = {
    when: new Date().toISOString(),
    machine: {
      cpus: cpus()[0]?.model ?? "?",
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
    },
    settings: s,
  } as BenchResult;
  const mutable = result as { -readonly [K in keyof BenchResult]: BenchResult[K] };

  if (o.sections.includes("servers")) {
    const rows = await benchServers({ targets: ["reference", "bare", "prism"], mixes: ["valid", "mixed"], ...s }, log);
    const get = (t: string, m: string) => rows.find((r) => r.target === t && r.mix === m)!;
    mutable.servers = {
      rows,
      ratios: {
        referenceOverBareRps: get("reference", "valid").requestsPerSecond / get("bare", "valid").requestsPerSecond,
        referenceOverBareP99: get("reference", "valid").p99Ms / get("bare", "valid").p99Ms,
        referenceOverPrismRps: get("reference", "valid").requestsPerSecond / get("prism", "valid").requestsPerSecond,
        mixedReferenceOverBareRps: get("reference", "mixed").requestsPerSecond / get("bare", "mixed").requestsPerSecond,
      },
    };
  }
  if (o.sections.includes("harness"))
    mutable.harness = await benchHarness(
      { suiteRuns: s.suiteRuns, generatedCases: s.generatedCases, rounds: s.harnessRounds },
      log,
    );
  if (o.sections.includes("memory")) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--expose-gc", join(KIT_ROOT, "dist", "bench", "memory.js"), ...s.memoryCounts.map(String)],
      { maxBuffer: 1 << 20 },
    );
    mutable.memory = JSON.parse(stdout) as MemoryResult;
  }

  if (o.sections.includes("proxy")) mutable.proxy = await benchProxy(s, log);

  for (const line of table(result)) log(line);
  if (o.out !== undefined) {
    mkdirSync(join(o.out, ".."), { recursive: true });
    writeFileSync(o.out, JSON.stringify(result, null, 2) + "\n");
    log(`result written to ${o.out}`);
  }
  return result;
}

export function table(r: BenchResult): string[] {
  const lines = [
    ``,
    `Machine: ${r.machine.cores} x ${r.machine.cpus}, ${r.machine.memoryGiB} GiB, Node ${r.machine.node}`,
  ];
  if (r.servers) {
    lines.push(
      ``,
      `| target | mix | req/s | p50 ms | p99 ms | errors | non-2xx | RSS after load MB | start-up ms |`,
      `|---|---|---|---|---|---|---|---|---|`,
      ...r.servers.rows.map(
        (x) =>
          `| ${x.target} | ${x.mix} | ${fmt(x.requestsPerSecond)} | ${fmt(x.p50Ms, 1)} | ${fmt(x.p99Ms, 1)} | ${x.errors} | ${x.non2xx} | ${fmt(x.rssAfterLoadBytes / 2 ** 20)} | ${fmt(x.startupMs)} |`,
      ),
      ``,
      `reference/bare req/s ${fmt(r.servers.ratios.referenceOverBareRps!, 2)} (target >= 0.85); p99 reference/bare ${fmt(r.servers.ratios.referenceOverBareP99!, 2)} (target <= 1.5); reference/Prism req/s ${fmt(r.servers.ratios.referenceOverPrismRps!, 1)} (target >= 20); mixed reference/bare ${fmt(r.servers.ratios.mixedReferenceOverBareRps!, 2)}`,
    );
  }
  if (r.harness) {
    const h = r.harness;
    lines.push(
      ``,
      `Default conformance suite, process start to exit: median ${fmt(h.suiteWallMs.median)} ms (min ${fmt(h.suiteWallMs.min)}, max ${fmt(h.suiteWallMs.max)}, ${h.suiteWallMs.runs} runs; target < 1000)`,
      `Start-up: imports ${fmt(h.startup.importMs)} ms, spec load and compile ${fmt(h.startup.loadContractMs)} ms, fixtures ${fmt(h.startup.loadFixturesMs)} ms`,
      ...h.throughput.map(
        (t) =>
          `${h.generatedCases} generated cases at concurrency ${t.concurrency}: harness ${fmt(t.harness)} exchanges/s, raw undici ${fmt(t.rawUndici)}/s, ratio ${fmt(t.ratio, 2)} (target >= 0.70)`,
      ),
    );
  }
  if (r.proxy) {
    const p = r.proxy;
    const seq = (x: { p50Ms: number; p99Ms: number }) => `p50 ${fmt(x.p50Ms, 2)} ms, p99 ${fmt(x.p99Ms, 2)} ms`;
    lines.push(
      ``,
      `Reference server, valid creates, saturated (autocannon), medians of ${p.rounds} rounds: direct ${fmt(p.direct.requestsPerSecond)} req/s, p99 ${fmt(p.direct.p99Ms, 1)} ms; bare node:http pass-through ${fmt(p.bare.requestsPerSecond)} req/s, p99 ${fmt(p.bare.p99Ms, 1)} ms; plantstore proxy ${fmt(p.proxied.requestsPerSecond)} req/s, p99 ${fmt(p.proxied.p99Ms, 1)} ms`,
      `proxy/direct req/s ${fmt(p.ratio, 2)} (issue target >= 0.60; the bare pass-through reaches ${fmt(p.bareRatio, 2)}); proxy/bare pass-through ${fmt(p.ratioToBare, 2)}; saturated p99 added ${fmt(p.addedP99Ms, 1)} ms (issue target <= 2); errors ${p.direct.errors + p.bare.errors + p.proxied.errors}, non-2xx ${p.direct.non2xx + p.bare.non2xx + p.proxied.non2xx}`,
      `One request at a time: direct ${seq(p.sequential.direct)}; bare pass-through ${seq(p.sequential.bare)}; plantstore proxy ${seq(p.sequential.proxied)}; p99 added ${fmt(p.sequentialAddedP99Ms, 2)} ms`,
    );
  }
  if (r.memory) {
    const m = r.memory;
    lines.push(
      ``,
      `| plants stored | heap used MB | RSS MB |`,
      `|---|---|---|`,
      ...m.counts.map(
        (c, i) =>
          `| ${c.toLocaleString("en-US")} | ${fmt(m.heapUsedBytes[i]! / 2 ** 20, 1)} | ${fmt(m.rssBytes[i]! / 2 ** 20, 1)} |`,
      ),
      ``,
      `bytes per plant: ${fmt(m.bytesPerPlantHeap)} (heap), ${fmt(m.bytesPerPlantRss)} (RSS) (target <= 200)`,
      `create through the core (median of 15 batches of 2,000, each beside a batch on an empty store): ${m.createNs.map((c) => `${fmt(c.atCount / 1000, 2)} us at ${c.count.toLocaleString("en-US")} (empty beside it: ${fmt(c.empty / 1000, 2)} us)`).join("; ")}`,
    );
  }
  return lines;
}
