// How long loading a large contract takes: `npm run build && node dist/bench/spec-load.js`.
// Writes the ~5,000-line OpenAPI 3.1 document of bench/spec-load-document.ts to a temp folder, then in
// this one fresh process: the first loadContract (cold: it also loads the precompiled OpenAPI schema
// check and warms the JIT), a second as warm-up, then 10 timed runs of loadContract and their median,
// and 10 of its two phases (read, bundle and check against the OpenAPI schema; compile the validators).
// Prints a table and a JSON line. Not a test: nothing here asserts a time.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileContract } from "../src/contract/contract.js";
import { loadContract, readContractDocument } from "../src/contract/load-contract.js";
import { largeSpecYaml } from "./spec-load-document.js";

const RUNS = 10;
const WARM_UPS = 2;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const round = (ms: number): number => Math.round(ms * 10) / 10;

const dir = mkdtempSync(join(tmpdir(), "plantstore-spec-load-"));
try {
  const file = join(dir, "openapi.yaml");
  const yaml = largeSpecYaml();
  writeFileSync(file, yaml);
  const lines = yaml.split("\n").length - 1;

  const warmUps: number[] = [];
  let operations = 0;
  for (let i = 0; i < WARM_UPS; i++) {
    const t = performance.now();
    operations = (await loadContract(file)).operations.length;
    warmUps.push(performance.now() - t);
  }
  const load: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await loadContract(file);
    load.push(performance.now() - t);
  }
  const read: number[] = [];
  const compile: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const document = await readContractDocument(file);
    const t1 = performance.now();
    compileContract(document, file);
    read.push(t1 - t0);
    compile.push(performance.now() - t1);
  }

  const result = {
    node: process.version,
    lines,
    operations,
    coldMs: round(warmUps[0]!),
    loadContractMedianMs: round(median(load)),
    loadContractMinMs: round(Math.min(...load)),
    loadContractMaxMs: round(Math.max(...load)),
    readMedianMs: round(median(read)),
    compileMedianMs: round(median(compile)),
  };
  const out = process.stdout;
  out.write(`OpenAPI 3.1 document: ${lines} lines, ${operations} operations (Node ${process.version})\n`);
  out.write(`| loadContract | ms |\n|---|---|\n`);
  out.write(`| first, cold | ${result.coldMs} |\n`);
  out.write(`| median of ${RUNS} (after ${WARM_UPS} warm-ups) | ${result.loadContractMedianMs} |\n`);
  out.write(`| min / max | ${result.loadContractMinMs} / ${result.loadContractMaxMs} |\n`);
  out.write(`| read, bundle, check (median) | ${result.readMedianMs} |\n`);
  out.write(`| compile (median) | ${result.compileMedianMs} |\n`);
  out.write(JSON.stringify(result) + "\n");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
