import { describe, expect, it } from "vitest";
import { TOKEN } from "../test/helpers.js";
import { MULTI_OP_SPEC, multiOpContract, startMultiOpServer, type MultiOpFault } from "../test/multi-op-server.js";
import { runConformance } from "../src/harness/run.js";

// The multi-operation Plant Store (list, read, update and delete by int64 id; parameters in the path,
// query, a header and a cookie; $ref'd responses and headers): the harness exercises every operation
// with generated cases and no fixture, and catches each fault a contract can show.
const contract = await multiOpContract();

async function run(fault?: MultiOpFault, seed = 5n, levels: string[] = [], skip: string[] = []) {
  const server = await startMultiOpServer(fault === undefined ? {} : { fault });
  try {
    return await runConformance({
      target: server.url,
      token: TOKEN,
      contract,
      noFixtures: true,
      generate: { count: 25 },
      seed,
      levels,
      skip,
    });
  } finally {
    await server.close();
  }
}

describe("generated cases for every operation of a multi-operation contract", () => {
  it("pass against a correct server, every operation exercised, ids from the creates the cases make", async () => {
    for (const seed of [5n, 6n]) {
      const { summary, results } = await run(undefined, seed);
      const failing = results.filter((r) => r.outcome !== "pass");
      expect(summary.exitCode, JSON.stringify(failing, null, 1).slice(0, 3000)).toBe(0);
      expect(summary.coverage.operations).toEqual({ total: 5, exercised: 5, notExercised: [] });
      // Documented statuses seen: the 2xx of each operation, 400s of refused requests, 404s of made-up ids.
      expect(summary.coverage.statuses.exercised).toBeGreaterThanOrEqual(11);
      // Every parameter (the id, limit, tags, X-Request-Id of each operation, the units cookie) was sent and answered.
      expect(summary.coverage.parameters.notExercised).toEqual([]);
      // Each generated case has the time of all the requests it stands for, never 0 ms.
      expect(results.every((r) => r.durationMs > 0)).toBe(true);
      expect(results.map((r) => r.fixture)).toEqual([
        ...["createPlant", "listPlants", "getPlant", "updatePlant", "deletePlant"].flatMap((op) => [
          `generated-positive-${op}`,
          `generated-negative-${op}`,
          `generated-auth-${op}`,
        ]),
        "generated-stateful-createPlant",
      ]);
      // The stateful phase ran and found nothing: its level, counted by default, passes.
      expect(summary.levels.at(-1)).toEqual({ level: "stateful", verdict: "pass", failedCases: [] });
    }
  }, 120_000);

  it.each([
    ["limit-not-validated", "generated-negative-listPlants", "invalid.rejected"],
    ["500-on-id-beyond-2-53", "generated-positive-getPlant", "status.no-5xx"],
    ["read-returns-other-shape", "generated-positive-getPlant", "response.schema"],
    ["delete-200-with-body", "generated-positive-deletePlant", "response.media-type"],
    ["delete-ignores-request-id", "generated-negative-deletePlant", "invalid.rejected"],
    ["missing-rate-limit-header", "generated-positive-getPlant", "response.headers"],
    ["update-ignores-body-schema", "generated-negative-updatePlant", "invalid.rejected"],
    ["list-wrong-item-type", "generated-positive-listPlants", "response.schema"],
  ] as const)(
    "a server that %s is caught (%s, %s)",
    async (fault, fixture, check) => {
      const { summary, results } = await run(fault);
      expect(summary.exitCode).toBe(1);
      const failed = results.find((r) => r.fixture === fixture);
      expect(failed?.outcome, JSON.stringify(results.map((r) => [r.fixture, r.outcome]))).toBe("fail");
      const checks = failed!.steps.flatMap((s) => s.findings.filter((f) => f.counts).map((f) => f.check));
      expect(checks).toContain(check);
    },
    60_000,
  );

  // What no answer shows alone: "at most limit of them" and "the plant with the given id" are prose. The
  // stateful phase compares answers across a sequence: the level stateful fails, and counts by default
  // (exit 1); `--skip 'stateful.*'`, the opt-out for an eventually consistent server, leaves it out.
  it.each([
    ["ignores-limit", "stateful.list-limit"],
    ["rounds-big-ids", "stateful.id-exact"],
  ] as const)(
    "a server that %s passes the contract and fails the level stateful (%s)",
    async (fault, check) => {
      const counted = await run(fault);
      expect(counted.summary.exitCode).toBe(1);
      expect(counted.summary.levels[0]?.verdict).toBe("pass");
      expect(counted.summary.levels.at(-1)).toMatchObject({ level: "stateful", verdict: "fail" });
      const skipped = await run(fault, 5n, [], ["stateful.*"]);
      expect(skipped.summary.exitCode).toBe(0);
      const sequence = counted.results.find((r) => r.fixture === "generated-stateful-createPlant");
      const checks = sequence!.steps.flatMap((s) => s.findings.filter((f) => f.counts).map((f) => f.check));
      expect(checks).toContain(check);
    },
    60_000,
  );
});

it("the multi-operation document is the one the server implements", () => {
  expect(contract.source).toBe(MULTI_OP_SPEC);
});
