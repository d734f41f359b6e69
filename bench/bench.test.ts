import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { KIT_ROOT } from "../src/paths.js";
import { tempDir } from "../test/temp-dir.js";
import { runBench } from "./run.js";

// Short smoke runs of `npm run bench` (about a second per target and round), so the benchmark cannot
// rot. They assert that every part ran and reported, never how fast anything was.
it("npm run bench -- --smoke --only servers: every target against bare node:http, each request logged", async () => {
  const out = join(tempDir("plantstore-bench-"), "result.json");
  const lines: string[] = [];
  const result = await runBench({ sections: ["servers"], smoke: true, out }, (l) => lines.push(l));
  const s = result.servers!;
  // One target of each kind in a smoke run: the real run adds `serve --quiet`, the logging engine and
  // Fastify's `logger: true` (bench/fastify-server.test.ts runs that one).
  const labels = [
    "bare node:http",
    "Fastify 5 (schema-validated create)",
    "Fastify 5 + a pino line an answer",
    "serve",
    "serve --spec multi-op --quiet",
    "Prism",
  ];
  expect(s.rows.map((r) => `${r.target} ${r.mix}`).sort()).toEqual(
    labels.flatMap((t) => [`${t} valid`, `${t} mixed`]).sort(),
  );
  for (const row of s.rows) {
    expect(row.total, `${row.target} ${row.mix}`).toBeGreaterThan(0);
    expect(row.errors, `${row.target} ${row.mix}`).toBe(0);
    expect(row.rssAfterLoadBytes).toBeGreaterThan(0);
    expect(row.overBaseline.perRound).toHaveLength(1);
    expect(row.cpuUsPerRequest, row.target).toBeGreaterThan(0);
    if (!row.target.startsWith("serve") && !row.target.startsWith("Fastify")) continue;
    // Unique ids: every valid create is a 200; one in five of the mixed is invalid.
    if (row.mix === "valid") expect(row.non2xx, row.target).toBe(0);
    else expect(row.non2xx / row.total, row.target).toBeCloseTo(0.2, 1);
  }
  // Every answer the bench received was logged (a few more lines: requests cut off at a run's end).
  for (const l of s.logged)
    if (l.logging) expect(l.lines, l.target).toBeGreaterThanOrEqual(l.answered);
    else expect(l.lines, l.target).toBe(0);
  expect(s.logged.filter((l) => l.logging).map((l) => l.target)).toEqual([
    "Fastify 5 + a pino line an answer",
    "serve",
  ]);
  expect(Object.keys(s.versusPrism)).toContain("serve valid");

  expect(JSON.parse(readFileSync(out, "utf8")).servers.rows).toHaveLength(12);
  expect(lines.some((l) => l.startsWith("| Fastify 5 (schema-validated create) | valid |"))).toBe(true);
  expect(lines.some((l) => l.startsWith("| serve | valid |"))).toBe(true);
}, 240_000);

it("npm run bench -- --smoke --only reads,startup,memory: the read mix, start-up and memory per plant", async () => {
  const out = join(tempDir("plantstore-bench-"), "result.json");
  const lines: string[] = [];
  const result = await runBench({ sections: ["reads", "startup", "memory"], smoke: true, out }, (l) => lines.push(l));
  const reads = result.reads!;
  expect(reads.rows.map((r) => r.target)).toEqual([
    "bare node:http store",
    "serve --spec multi-op",
    "serve --spec multi-op --quiet",
    "Prism",
  ]);
  for (const row of reads.rows) {
    expect(row.total, row.target).toBeGreaterThan(0);
    expect(row.errors, row.target).toBe(0);
    // Every read names a seeded plant and every create a new id: all 2xx, but from Prism (no state).
    if (row.target !== "Prism") expect(row.non2xx, row.target).toBe(0);
  }

  const cases = result.startup!.cases;
  expect(cases).toHaveLength(5);
  expect(cases.map((c) => c.operations)).toEqual([undefined, 1, 1, 200, 195]);
  for (const c of cases) expect(c.wallMs.median, c.name).toBeGreaterThan(0);
  expect(result.startup!.phases.loadContractMs).toBeGreaterThan(0);

  const memory = result.memory!;
  expect(memory.map((m) => `${m.server} ${m.spec ?? ""}`)).toEqual([
    "reference ",
    "engine test/data/multi-op/plant-store-multi.yaml",
  ]);
  expect(memory.map((m) => m.stores)).toEqual([true, true]);
  for (const m of memory.filter((x) => x.stores)) {
    expect(m.counts).toEqual([0, 10_000, 20_000]);
    expect(m.bytesPerPlantHeap).toBeGreaterThan(0);
    expect(m.createNs.map((c) => c.count)).toEqual([10_000, 20_000]);
  }
  expect(memory[1]!.listNs!.map((c) => c.count)).toEqual([10_000, 20_000]);
  expect(memory[1]!.readNs!.map((c) => c.count)).toEqual([10_000, 20_000]);

  expect(existsSync(out)).toBe(true);
  expect(lines.some((l) => l.startsWith("| serve --spec generated 200-operation document | 200 |"))).toBe(true);
}, 240_000);

it("npm run bench -- --smoke --only logging: serve's log lines beside its --quiet twin, at the same time", async () => {
  const result = await runBench({ sections: ["logging"], smoke: true, out: undefined }, () => undefined);
  const rows = result.logging!.rows;
  expect(rows.map((r) => `${r.target} / ${r.quiet}`)).toEqual([
    "serve --quiet / serve --quiet",
    "serve / serve --quiet",
    "serve --spec multi-op --quiet / serve --spec multi-op --quiet",
    "serve --spec multi-op / serve --spec multi-op --quiet",
  ]);
  for (const r of rows) expect(r.cpuUsPerRequest, r.target).toBeGreaterThan(0);
  expect(rows[0]!.overQuiet.median).toBe(1);
}, 120_000);

it("npm run bench -- --smoke --only harness times the suite and the harness against raw undici", async () => {
  const result = await runBench({ sections: ["harness"], smoke: true, out: undefined }, () => undefined);
  expect(result.harness!.suiteWallMs.runs).toBe(1);
  expect(result.harness!.throughput.map((t) => t.concurrency)).toEqual([1, 8]);
  for (const t of result.harness!.throughput) expect(t.overDispatch).toBeCloseTo(t.harness / t.rawDispatch!, 6);
}, 120_000);

it("npm run bench -- --smoke --only proxy measures direct, the bare and the validating pass-through and plantstore proxy", async () => {
  const out = join(tempDir("plantstore-bench-"), "result.json");
  const lines: string[] = [];
  const result = await runBench({ sections: ["proxy"], smoke: true, out }, (l) => lines.push(l));
  const p = result.proxy!;
  for (const load of [p.direct, p.bare, p.proxied]) {
    expect(load.total).toBeGreaterThan(0);
    expect(load.errors).toBe(0);
    expect(load.non2xx).toBe(0); // every create, through either proxy, reached the server and was a 200
  }
  for (const s of [p.sequential.direct, p.sequential.bare, p.sequential.proxied]) {
    expect(s.p99Ms).toBeGreaterThanOrEqual(s.p50Ms);
    expect(s.p50Ms).toBeGreaterThan(0);
  }
  expect(p.ratio).toBeCloseTo(p.proxied.requestsPerSecond / p.direct.requestsPerSecond, 6);
  expect(lines.some((l) => l.startsWith("One request at a time: direct p50"))).toBe(true);
  expect(JSON.parse(readFileSync(out, "utf8")).proxy.sequential.proxied.p99Ms).toBe(p.sequential.proxied.p99Ms);
  // The anchor forwarded every create too, and each proxy's CPU was read.
  expect([p.validating!.errors, p.validating!.non2xx]).toEqual([0, 0]);
  expect(p.ratioToValidating).toBeCloseTo(p.proxied.requestsPerSecond / p.validating!.requestsPerSecond, 6);
  for (const cpu of Object.values(p.cpuUsPerExchange!)) expect(cpu).toBeGreaterThan(0);
}, 120_000);

it("node dist/bench/engine-calls.js times the engine's creates and reads in process, and refuses a bad mode", () => {
  const script = join(KIT_ROOT, "dist", "bench", "engine-calls.js");
  for (const mode of ["creates", "reads"]) {
    const line = JSON.parse(execFileSync(process.execPath, [script, mode, "200"], { encoding: "utf8" })) as {
      mode: string;
      calls: number;
      bestMicrosecondsPerCall: number;
    };
    expect([line.mode, line.calls]).toEqual([mode, 200]);
    expect(line.bestMicrosecondsPerCall).toBeGreaterThan(0);
  }
  expect(() => execFileSync(process.execPath, [script, "deletes"], { stdio: "pipe" })).toThrow(/creates or reads/);
}, 60_000);
