import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { tempDir } from "../test/temp-dir.js";
import { runBench } from "./run.js";

// A short smoke run of `npm run bench` (about a second per target), so the benchmark cannot rot.
// It asserts that every part ran and reported, never how fast anything was.
it("npm run bench -- --smoke runs every section and writes its result", async () => {
  const out = join(tempDir("plantstore-bench-"), "result.json");
  const lines: string[] = [];
  const result = await runBench({ sections: ["servers", "harness", "memory"], smoke: true, out }, (l) => lines.push(l));

  expect(result.servers?.rows.map((r) => `${r.target} ${r.mix}`).sort()).toEqual(
    ["bare mixed", "bare valid", "prism mixed", "prism valid", "reference mixed", "reference valid"].sort(),
  );
  for (const row of result.servers!.rows) {
    expect(row.total, `${row.target} ${row.mix}`).toBeGreaterThan(0);
    expect(row.errors, `${row.target} ${row.mix}`).toBe(0);
    expect(row.rssAfterLoadBytes).toBeGreaterThan(0);
  }
  const reference = (mix: string) => result.servers!.rows.find((r) => r.target === "reference" && r.mix === mix)!;
  expect(reference("valid").non2xx).toBe(0); // unique ids: every valid create is a 200
  expect(reference("mixed").non2xx / reference("mixed").total).toBeCloseTo(0.2, 1); // one in five invalid

  expect(result.harness!.suiteWallMs.runs).toBe(1);
  expect(result.harness!.throughput.map((t) => t.concurrency)).toEqual([1, 8]);
  expect(result.memory!.counts).toEqual([0, 10_000, 20_000]);
  expect(result.memory!.bytesPerPlantHeap).toBeGreaterThan(0);
  expect(result.memory!.createNs.map((c) => c.count)).toEqual([10_000, 20_000]);

  expect(existsSync(out)).toBe(true);
  expect(JSON.parse(readFileSync(out, "utf8")).servers.rows).toHaveLength(6);
  expect(lines.some((l) => l.startsWith("| reference | valid |"))).toBe(true);
}, 180_000);

it("npm run bench -- --smoke --only proxy measures direct, the bare pass-through and plantstore proxy", async () => {
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
}, 120_000);
