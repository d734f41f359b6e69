import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadContract, type Contract } from "../src/contract/index.js";
import type { Baseline } from "./baseline.js";
import { startPrism } from "../src/mock/prism.js";
import { KIT_ROOT } from "../src/paths.js";
import { runConformance } from "./run.js";

// The OpenAPI Initiative's own example documents (test/data/oai-examples, CC BY 4.0), each run with
// generated cases only against the real Prism mocking it: every operation exercised, a verdict of 0
// or 1, never a crash or a refusal to run. None was written for this kit.
const doc = (name: string): string => join(KIT_ROOT, "test", "data", "oai-examples", name);

// Prism's known departures, as for the Plant Store's own baseline: it takes any credentials (so every
// secured operation's auth case fails on the wrong ones), and an operation without responses (valid
// in 3.1) has nothing to mock, so Prism answers 500.
const PRISM_500S: Record<string, string[]> = {
  "v3.1/non-oauth-scopes.yaml": ["generated-positive-GET /users", "generated-auth-GET /users"],
};
const prismBaseline = (name: string, contract: Contract): Baseline => ({
  deviations: [
    ...contract.operations
      // Where Prism answers 500 anyway, the wrong credentials never succeed: no auth deviation there.
      .filter((op) => op.authRequired && !(PRISM_500S[name] ?? []).includes(`generated-auth-${op.operationId}`))
      .map((op) => ({ fixture: `generated-auth-${op.operationId}`, check: "auth.rejected" as const })),
    ...(PRISM_500S[name] ?? []).map((fixture) => ({ fixture, check: "status.no-5xx" as const })),
  ],
});

describe("the OAI example documents, against a Prism mock of each", () => {
  it.each([
    ["v3.0/api-with-examples.yaml", 2],
    ["v3.0/callback-example.yaml", 1],
    ["v3.0/link-example.yaml", 6],
    ["v3.0/petstore-expanded.yaml", 4],
    ["v3.0/petstore.yaml", 3],
    ["v3.0/uspto.yaml", 3],
    ["v3.1/non-oauth-scopes.yaml", 1],
    ["v3.1/tictactoe.yaml", 3],
  ])(
    "%s: all %i operations exercised, exit 0",
    async (name, operations) => {
      const spec = doc(name);
      const prism = await startPrism({ port: 0, spec });
      try {
        const { summary, results } = await runConformance({
          target: prism.url,
          // Prism takes any credentials; one value serves bearer, apiKey and basic (USER:PASSWORD) schemes.
          token: "user:example-credential",
          spec,
          noFixtures: true,
          generate: { count: 10 },
          seed: 3n,
          baseline: prismBaseline(name, await loadContract(spec)),
        });
        const bad = results.filter((r) => r.outcome === "fail" || r.outcome === "error");
        expect(summary.exitCode, JSON.stringify(bad, null, 1).slice(0, 3000)).toBe(0);
        expect(summary.coverage.operations).toEqual({ total: operations, exercised: operations, notExercised: [] });
        expect(summary.staleBaseline).toEqual([]);
      } finally {
        await prism.stop();
      }
    },
    90_000,
  );

  it("v3.1/webhook-example.yaml loads, and a run says there is nothing to call (webhooks are the target's to call)", async () => {
    const spec = doc("v3.1/webhook-example.yaml");
    expect((await loadContract(spec)).operations).toHaveLength(0);
    await expect(
      runConformance({ target: "http://127.0.0.1:9", spec, noFixtures: true, generate: { count: 10 } }),
    ).rejects.toThrow(/nothing to run: no fixtures, and the spec has no operations/);
  });
});
