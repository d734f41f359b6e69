import { afterAll, describe, expect, it } from "vitest";
import { FAULTY, LEGITIMATE } from "../test/catalogue.js";
import { kitContract, TOKEN } from "../test/helpers.js";
import { startVariant } from "../test/variant-server.js";
import { runConformance } from "./run.js";

const contract = await kitContract();
const tally = { caught: 0, falseAlarms: 0 };

async function judgeVariant(entry: (typeof FAULTY)[number]) {
  const server = await startVariant(contract, entry.stateful?.() ?? entry.variant);
  try {
    return await runConformance({
      target: server.url,
      token: TOKEN,
      contract,
      strict: entry.strict === true,
      timeoutMs: 3_000,
    });
  } finally {
    await server.close();
  }
}

describe("every faulty server is caught by the intended check", () => {
  it.each(FAULTY.map((e) => [e.name, e] as const))("%s", async (_name, entry) => {
    const { summary, results } = await judgeVariant(entry);
    const counted = results.flatMap((r) =>
      r.steps.flatMap((s) => s.findings.filter((f) => f.counts).map((f) => `${r.fixture} ${f.check}`)),
    );
    expect(counted).toContain(`${entry.caughtBy!.fixture} ${entry.caughtBy!.check}`);
    expect(summary.exitCode).toBe(1);
    tally.caught++;
  });
});

describe("servers that refuse values where the contract shows no constraint pass with a warning by default", () => {
  it.each(FAULTY.filter((e) => e.refusal === true).map((e) => [e.name, e] as const))("%s", async (_name, entry) => {
    const { summary, results } = await judgeVariant({ ...entry, strict: false });
    const warned = results.flatMap((r) =>
      r.steps.flatMap((s) => s.findings.filter((f) => f.severity === "warning").map((f) => `${r.fixture} ${f.check}`)),
    );
    expect(warned).toContain(`${entry.caughtBy!.fixture} ${entry.caughtBy!.check}`);
    expect(summary.exitCode).toBe(0);
  });
});

describe("servers that choose differently where the contract is silent all pass", () => {
  it.each(LEGITIMATE.map((e) => [e.name, e] as const))("%s", async (_name, entry) => {
    const { summary, results } = await judgeVariant(entry);
    const counted = results.flatMap((r) =>
      r.steps.flatMap((s) => s.findings.filter((f) => f.counts).map((f) => `${r.fixture} ${f.check}: ${f.message}`)),
    );
    if (counted.length > 0) tally.falseAlarms++;
    expect(counted).toEqual([]);
    expect(summary.exitCode).toBe(0);
  });
});

afterAll(() => {
  // The README's catch rate comes from this line; it is printed, never asserted on timing.
  const strictOnly = FAULTY.filter((e) => e.strict === true).length;
  console.log(
    `catalogue: ${tally.caught}/${FAULTY.length} faulty servers caught by the intended check (${strictOnly} of them only with --strict); ${tally.falseAlarms}/${LEGITIMATE.length} legitimate servers falsely flagged`,
  );
});
