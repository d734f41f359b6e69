import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrism, type RunningPrism } from "../src/mock/prism.js";
import { KIT_ROOT } from "../src/paths.js";
import { kitContract } from "../test/helpers.js";
import { loadBaseline } from "../src/harness/baseline.js";
import { summaryLines } from "../src/harness/reporters/console.js";
import { runConformance } from "../src/harness/run.js";

// The real Prism (@stoplight/prism-cli), started as users start it, judged by the default suite.
const contract = await kitContract();
const baselineFile = join(KIT_ROOT, "conformance", "baselines", "prism.json");
let prism: RunningPrism;

beforeAll(async () => {
  prism = await startPrism({ port: 0 });
}, 90_000);
afterAll(async () => {
  await prism?.stop();
});

describe("the Prism mock, judged by the conformance suite", () => {
  it("deviates from the contract exactly where the shipped baseline says, and nowhere else", async () => {
    const { summary, results } = await runConformance({
      target: prism.url,
      token: "any-token-prism-accepts",
      contract,
    });
    const counted = results.flatMap((r) =>
      r.steps.flatMap((s) => s.findings.filter((f) => f.counts).map((f) => `${r.fixture} ${f.check}`)),
    );
    const baseline = loadBaseline(baselineFile).deviations.map((d) => `${d.fixture} ${d.check}`);
    expect([...new Set(counted)].sort()).toEqual([...baseline].sort());
    expect(summary.exitCode).toBe(1);
  });

  it("passes with the baseline: known deviations are shown, not counted, and none is stale", async () => {
    const { summary, results } = await runConformance({
      target: prism.url,
      token: "any-token-prism-accepts",
      contract,
      baseline: loadBaseline(baselineFile),
    });
    expect(summary.exitCode).toBe(0);
    expect(summary.known).toBe(new Set(loadBaseline(baselineFile).deviations.map((d) => d.fixture)).size);
    expect(summary.staleBaseline).toEqual([]);
    expect(results.find((r) => r.fixture === "auth-wrong-token")?.outcome).toBe("known");
    // Every failure is a known one, and the summary's line says so beside the count.
    expect(summary.knownFailures).toBe(summary.failures);
    const line = summaryLines(summary).find((l) => l.startsWith("findings: "));
    expect(line).toContain(`findings: ${summary.failures} failures (${summary.failures} known),`);
  });

  it("fails on a deviation the baseline does not list", async () => {
    const baseline = loadBaseline(baselineFile);
    const trimmed = { deviations: baseline.deviations.filter((d) => d.fixture !== "invalid-id-tiny-fraction") };
    const { summary, results } = await runConformance({
      target: prism.url,
      token: "any-token-prism-accepts",
      contract,
      baseline: trimmed,
    });
    expect(summary.exitCode).toBe(1);
    expect(results.filter((r) => r.outcome === "fail").map((r) => r.fixture)).toEqual(["invalid-id-tiny-fraction"]);
  });

  it("refuses ids beyond 2^53: a warning by default (the contract shows no range), a failure with --strict", async () => {
    const { results } = await runConformance({
      target: prism.url,
      token: "any-token-prism-accepts",
      contract,
      only: ["valid-id-*"],
      strict: true,
    });
    const failed = results.filter((r) => r.outcome === "fail").map((r) => r.fixture);
    expect(failed).toEqual(
      expect.arrayContaining([
        "valid-id-beyond-2-53",
        "valid-id-below-minus-2-53",
        "valid-id-2-53-plus-1",
        "valid-id-int64-max",
        "valid-id-int64-min",
      ]),
    );
    expect(failed).not.toContain("valid-id-negative");
  });

  it("ships a baseline whose every entry gives a reason", () => {
    const data = JSON.parse(readFileSync(baselineFile, "utf8")) as { deviations: { reason?: string }[] };
    for (const d of data.deviations) expect(d.reason?.length ?? 0).toBeGreaterThan(20);
  });
});
