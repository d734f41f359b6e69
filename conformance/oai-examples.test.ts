import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadContract } from "../src/contract/index.js";
import { loadBaseline } from "../src/harness/baseline.js";
import { startPrism } from "../src/mock/prism.js";
import { KIT_ROOT } from "../src/paths.js";
import { runOrThrow } from "../src/harness/run.js";

// The OpenAPI Initiative's own example documents (test/data/oai-examples, CC BY 4.0), each run with
// generated cases only against the real Prism mocking it: every operation exercised, a verdict of 0
// or 1, never a crash or a refusal to run. None was written for this kit.
const doc = (name: string): string => join(KIT_ROOT, "test", "data", "oai-examples", name);

// Prism's known departures come from the shipped baseline for a Prism mock of any contract
// (conformance/baselines/prism-mock.json), as a user gets them with --baseline prism-mock: keyed by what
// Prism does (any credentials accepted, its own 500 where it has nothing to mock), not by these documents.
const prismMock = loadBaseline("prism-mock");

describe("the OAI example documents, against a Prism mock of each", () => {
  it.each([
    ["v3.0/api-with-examples.yaml", 2, false],
    ["v3.0/callback-example.yaml", 1, false],
    ["v3.0/link-example.yaml", 6, false],
    // Prism is stateless: the stateful sequences of the pets (a create, then a read) are known departures.
    ["v3.0/petstore-expanded.yaml", 4, true],
    ["v3.0/petstore.yaml", 3, true],
    ["v3.0/uspto.yaml", 3, false],
    // Prism's 500 for an operation without responses; Prism taking wrong credentials: known, and shown.
    ["v3.1/non-oauth-scopes.yaml", 1, true],
    ["v3.1/tictactoe.yaml", 3, true],
  ])(
    "%s: all %i operations exercised, exit 0 with --baseline prism-mock (known departures: %s)",
    async (name, operations, departs) => {
      const spec = doc(name);
      const prism = await startPrism({ port: 0, spec });
      try {
        const { summary, results } = await runOrThrow({
          target: prism.url,
          // Prism takes any credentials; one value serves bearer, apiKey and basic (USER:PASSWORD) schemes.
          token: "user:example-credential",
          spec,
          noFixtures: true,
          generate: { count: 10 },
          seed: 3n,
          baseline: prismMock,
        });
        const bad = results.filter((r) => r.outcome === "fail" || r.outcome === "error");
        expect(summary.exitCode, JSON.stringify(bad, null, 1).slice(0, 3000)).toBe(0);
        expect(summary.coverage.operations).toEqual({ total: operations, exercised: operations, notExercised: [] });
        expect(summary.staleBaseline).toEqual([]);
        expect(summary.known > 0).toBe(departs);
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
      runOrThrow({ target: "http://127.0.0.1:9", spec, noFixtures: true, generate: { count: 10 } }),
    ).rejects.toThrow(/nothing to run: no fixtures, and the spec has no operations/);
  });
});
