import { afterAll, describe, expect, it } from "vitest";
import { FAULTY, LEGITIMATE, type CatalogueEntry } from "../test/catalogue.js";
import { kitContract, TOKEN } from "../test/helpers.js";
import { startVariant } from "../test/variant-server.js";
import { LEVELS, type Level } from "../src/harness/levels.js";
import type { CaseResult, RunSummary } from "../src/harness/results.js";
import { runConformance } from "../src/harness/run.js";

const contract = await kitContract();
const tally = { caught: 0, falseAlarms: 0 };

async function judgeVariant(entry: CatalogueEntry, levels: readonly Level[] = []) {
  const server = await startVariant(contract, entry.stateful?.() ?? entry.variant);
  try {
    return await runConformance({ target: server.url, token: TOKEN, contract, levels, timeoutMs: 3_000 });
  } finally {
    await server.close();
  }
}

/** Findings that count, as `fixture check [level]`. */
const countedOf = (results: readonly CaseResult[]): string[] =>
  results.flatMap((r) =>
    r.steps.flatMap((s) => s.findings.filter((f) => f.counts).map((f) => `${r.fixture} ${f.check} [${f.level}]`)),
  );
const failingLevels = (summary: RunSummary): Level[] =>
  summary.levels.filter((l) => l.verdict !== "pass").map((l) => l.level);

describe("every faulty server is caught by the intended check, at the intended level", () => {
  it.each(FAULTY.map((e) => [e.name, e] as const))("%s", async (_name, entry) => {
    const level = entry.level ?? "contract";
    const { summary, results } = await judgeVariant(entry, [level]);
    expect(countedOf(results)).toContain(`${entry.caughtBy!.fixture} ${entry.caughtBy!.check} [${level}]`);
    expect(failingLevels(summary)).toEqual([level]);
    expect(summary.exitCode).toBe(1);
    tally.caught++;
  });
});

describe("a server that breaks a rule beyond the contract passes a run of the contract, with a warning", () => {
  it.each(FAULTY.filter((e) => e.level !== undefined).map((e) => [e.name, e] as const))("%s", async (_name, entry) => {
    const { summary, results } = await judgeVariant(entry);
    const warned = results.flatMap((r) =>
      r.steps.flatMap((s) =>
        s.findings.filter((f) => f.severity === "warning").map((f) => `${r.fixture} ${f.check} [${f.level}]`),
      ),
    );
    expect(warned).toContain(`${entry.caughtBy!.fixture} ${entry.caughtBy!.check} [${entry.level}]`);
    expect(summary.levels).toEqual([{ level: "contract", verdict: "pass", failedCases: [] }]);
    expect(summary.exitCode).toBe(0);
  });
});

describe("servers that choose differently where the contract is silent pass it; every level is judged", () => {
  it.each(LEGITIMATE.map((e) => [e.name, e] as const))("%s", async (_name, entry) => {
    // Every level runs: the contract passes, and exactly the levels the choice breaks fail.
    const { summary, results } = await judgeVariant(entry, LEVELS);
    const contractFindings = countedOf(results).filter((c) => c.endsWith("[contract]"));
    if (contractFindings.length > 0) tally.falseAlarms++;
    expect(contractFindings).toEqual([]);
    expect(failingLevels(summary)).toEqual(entry.beyond ?? []);
    expect(summary.exitCode).toBe(entry.beyond === undefined ? 0 : 1);
  });
});

afterAll(() => {
  // The README's catch rate comes from this line; it is printed, never asserted on timing.
  const beyond = FAULTY.filter((e) => e.level !== undefined).length;
  console.log(
    `catalogue: ${tally.caught}/${FAULTY.length} faulty servers caught by the intended check (${beyond} of them at a level beyond the contract); ${tally.falseAlarms}/${LEGITIMATE.length} legitimate servers falsely flagged`,
  );
});
