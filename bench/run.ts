import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { KIT_ROOT } from "../src/paths.js";
import { benchHarness } from "./harness.js";
import { benchLoggingCost, type Twin } from "./logging-cost.js";
import type { MemoryResult } from "./memory.js";
import { benchProxy } from "./proxy.js";
import { report } from "./report.js";
import { settings, type BenchResult, type ServersResult, type Settings } from "./result.js";
import { benchServeStartup } from "./serve-startup.js";
import { benchServers, versus, type Ratio, type ServerBench } from "./servers.js";
import type { TargetSpec } from "./targets.js";

export type { BenchResult, ServersResult, Settings } from "./result.js";

export const SECTIONS = ["servers", "logging", "reads", "startup", "memory", "harness", "proxy"] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  readonly sections: readonly Section[];
  readonly smoke: boolean;
  readonly out: string | undefined;
  /**
   * A copy of the kit with another build in its dist/ (an earlier commit's): the servers section
   * adds its `serve` and `serve --quiet`, "[compared]", measured in the same rounds as this build's.
   */
  readonly compare?: string;
}

const MULTI_SPEC = join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml");

const loadNow = (): number[] => loadavg().map((l) => Math.round(l * 100) / 100);

/** Runs the benchmark sections, prints a report, and writes the JSON result. */
export async function runBench(o: BenchOptions, log: (line: string) => void): Promise<BenchResult> {
  const s = settings(o.smoke);
  const before = loadNow();
  const r: { -readonly [K in keyof BenchResult]: BenchResult[K] } = {
    when: new Date().toISOString(),
    machine: {
      cpus: cpus()[0]?.model ?? "?",
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      load: { before, after: [] },
    },
    settings: s,
    ...(o.compare === undefined ? {} : { compared: o.compare }),
  };
  if (o.sections.includes("servers")) r.servers = await servers(s, o.smoke, o.compare, log);
  if (o.sections.includes("logging"))
    r.logging = await benchLoggingCost({ ...s.logging, targets: twins(o.compare) }, log);
  if (o.sections.includes("reads")) r.reads = await reads(s, log);
  if (o.sections.includes("startup")) r.startup = await benchServeStartup(s.startupRuns, log, !o.smoke);
  if (o.sections.includes("memory")) r.memory = await memory(s.memoryCounts);
  if (o.sections.includes("harness"))
    r.harness = await benchHarness(
      { suiteRuns: s.suiteRuns, generatedCases: s.generatedCases, rounds: s.harnessRounds },
      log,
    );
  if (o.sections.includes("proxy")) r.proxy = await benchProxy(s, log);
  r.machine = { ...r.machine, load: { before, after: loadNow() } };

  for (const line of report(r)) log(line);
  if (o.out !== undefined) {
    mkdirSync(join(o.out, ".."), { recursive: true });
    writeFileSync(o.out, JSON.stringify(r, null, 2) + "\n");
    log(`result written to ${o.out}`);
  }
  return r;
}

/** Each target's req/s over Prism's, round by round, keyed `label mix`. */
function versusPrism(bench: ServerBench): Record<string, Ratio> {
  const out: Record<string, Ratio> = {};
  for (const row of bench.rows) {
    const prism = bench.rows.find((x) => x.target === "Prism" && x.mix === row.mix);
    if (prism !== undefined && row !== prism) out[`${row.target} ${row.mix}`] = versus(row, prism);
  }
  return out;
}

/**
 * `plantstore serve` on the Plant Store (the mock engine with the kit's spec), and the engine on the
 * multi-operation document (whose create is the Plant Store's), each with and without its log lines;
 * the Fastify anchor without a log, with one line an answer and with `logger: true`'s lines.
 * A --smoke run starts one of each kind (`smoke: true`): the same code paths, in half the time.
 */
const SERVERS: readonly (TargetSpec & { readonly smoke?: true })[] = [
  { label: "Fastify 5 (schema-validated create)", kind: "fastify", smoke: true },
  { label: "Fastify 5 + a pino line an answer", kind: "fastify", logging: true, smoke: true },
  { label: "Fastify 5 + logger: true", kind: "fastify", logging: true, fastifyLog: "default" },
  { label: "serve", kind: "reference", logging: true, smoke: true },
  { label: "serve --quiet", kind: "reference" },
  { label: "serve --spec multi-op", kind: "engine", logging: true, spec: MULTI_SPEC },
  { label: "serve --spec multi-op --quiet", kind: "engine", spec: MULTI_SPEC, smoke: true },
  { label: "Prism", kind: "prism", smoke: true },
];

/** serve and the engine with their log lines, each beside its --quiet twin; the compared build's too. */
function twins(compare: string | undefined): Twin[] {
  const bin = compare === undefined ? undefined : resolve(compare, "dist", "src", "cli", "bin.js");
  return [
    { label: "serve --quiet", quiet: "serve --quiet", kind: "reference" },
    { label: "serve", quiet: "serve --quiet", kind: "reference", logging: true },
    {
      label: "serve --spec multi-op --quiet",
      quiet: "serve --spec multi-op --quiet",
      kind: "engine",
      spec: MULTI_SPEC,
    },
    {
      label: "serve --spec multi-op",
      quiet: "serve --spec multi-op --quiet",
      kind: "engine",
      logging: true,
      spec: MULTI_SPEC,
    },
    ...(bin === undefined
      ? []
      : [
          { label: "serve --quiet [compared]", quiet: "serve --quiet [compared]", kind: "reference", bin } as const,
          {
            label: "serve [compared]",
            quiet: "serve --quiet [compared]",
            kind: "reference",
            logging: true,
            bin,
          } as const,
        ]),
  ];
}

async function servers(
  s: Settings,
  smoke: boolean,
  compare: string | undefined,
  log: (line: string) => void,
): Promise<ServersResult> {
  const baseline: TargetSpec = { label: "bare node:http", kind: "bare" };
  const bin = compare === undefined ? undefined : resolve(compare, "dist", "src", "cli", "bin.js");
  const compared: TargetSpec[] =
    bin === undefined
      ? []
      : [
          { label: "serve [compared]", kind: "reference", logging: true, bin },
          { label: "serve --quiet [compared]", kind: "reference", bin },
        ];
  const targets = [...SERVERS.filter((t) => !smoke || t.smoke === true), ...compared];
  const bench = await benchServers({ ...s, targets, baseline, mixes: ["valid", "mixed"] }, log);
  return { ...bench, versusPrism: versusPrism(bench) };
}

/** The read-heavy mix on the multi-operation document, plants 1 to `seeded` there from the start. */
async function reads(s: Settings, log: (line: string) => void): Promise<NonNullable<BenchResult["reads"]>> {
  const dir = mkdtempSync(join(tmpdir(), "plantstore-bench-seed-"));
  try {
    const data = join(dir, "seed.json");
    const plants = Array.from({ length: s.seeded }, (_, i) => ({ id: i + 1, name: `Seeded ${i + 1}`, tag: "fern" }));
    writeFileSync(data, JSON.stringify({ "/plants": plants }));
    const targets: TargetSpec[] = [
      { label: "serve --spec multi-op", kind: "engine", logging: true, spec: MULTI_SPEC, data },
      { label: "serve --spec multi-op --quiet", kind: "engine", spec: MULTI_SPEC, data },
      { label: "Prism", kind: "prism", spec: MULTI_SPEC },
    ];
    const baseline: TargetSpec = { label: "bare node:http store", kind: "bare-store", data };
    const bench = await benchServers({ ...s, targets, baseline, mixes: ["reads"] }, log);
    return { ...bench, versusPrism: versusPrism(bench), spec: relative(KIT_ROOT, MULTI_SPEC), seeded: s.seeded };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The reference server's store (the engine with the Plant Store spec), then the engine's on the
 * multi-operation document.
 */
async function memory(counts: readonly number[]): Promise<MemoryResult[]> {
  const script = join(KIT_ROOT, "dist", "bench", "memory.js");
  // The reference server is the engine with spec/openapi.yaml: measured once, as `serve` starts it.
  const runs = [["reference"], ["engine", MULTI_SPEC]];
  const out: MemoryResult[] = [];
  for (const args of runs) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--expose-gc", script, ...args, ...counts.map(String)],
      { maxBuffer: 1 << 20 },
    );
    out.push(JSON.parse(stdout) as MemoryResult);
  }
  return out;
}
