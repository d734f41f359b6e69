import { describe, expect, it } from "vitest";
import { compileContract } from "../contract/index.js";
import { computeCoverage, coverageLine } from "./coverage.js";
import type { CaseResult, StepResult } from "./results.js";
import { openApi } from "../../test/openapi-doc.js";

// A contract of three operations: statuses as exact codes, a range and default.
const contract = compileContract(
  openApi({
    "/plants": {
      get: { operationId: "listPlants", responses: { "200": { description: "ok" }, default: { description: "e" } } },
      post: {
        operationId: "createPlant",
        responses: { "200": { description: "ok" }, "4XX": { description: "refused" } },
      },
    },
    "/plants/{id}": {
      delete: {
        operationId: "deletePlant",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
        responses: { "204": { description: "gone" } },
      },
    },
  }),
  "inline.yaml",
);

const step = (operation: string, status: number | undefined): StepResult => ({
  index: 0,
  operation,
  request: { method: "X", url: "u" },
  response: status === undefined ? undefined : { status },
  transportFailure: status === undefined ? "reset" : undefined,
  durationMs: 1,
  findings: [],
  curl: undefined,
});
const result = (operation: string, ...steps: StepResult[]): CaseResult => ({
  fixture: `case-${operation}`,
  description: "",
  file: "",
  operation,
  outcome: "pass",
  steps,
  error: undefined,
  durationMs: 1,
});

describe("computeCoverage", () => {
  it("counts operations that got an answer and documented statuses matched exactly, by range or as default", () => {
    const c = computeCoverage(
      contract,
      [
        result("createPlant", step("createPlant", 200), step("createPlant", 409)),
        result("listPlants", step("listPlants", 500)),
      ],
      new Map([["deletePlant", "no fixture names it; --generate makes cases for it"]]),
    );
    expect(c.operations).toEqual({
      total: 3,
      exercised: 2,
      notExercised: [
        {
          operation: "deletePlant",
          method: "DELETE",
          path: "/plants/{id}",
          reason: "no fixture names it; --generate makes cases for it",
        },
      ],
    });
    // 200 and 4XX of createPlant (409 matched the range), default of listPlants (500); not 200 of list, not 204.
    expect(c.statuses.total).toBe(5);
    expect(c.statuses.exercised).toBe(3);
    expect(c.statuses.notExercised).toEqual([
      { operation: "listPlants", status: "200" },
      { operation: "deletePlant", status: "204" },
    ]);
    // The delete's path parameter went unanswered.
    expect(c.parameters).toEqual({
      total: 1,
      exercised: 0,
      notExercised: [{ operation: "deletePlant", in: "path", name: "id" }],
    });
    expect(coverageLine(c)).toBe("coverage: 2 of 3 operations, 3 of 5 documented statuses, 0 of 1 parameters");
  });

  it("an operation whose every request went unanswered is not exercised, and says so", () => {
    const c = computeCoverage(contract, [result("deletePlant", step("deletePlant", undefined))], new Map());
    expect(c.operations.notExercised.find((n) => n.operation === "deletePlant")?.reason).toBe(
      "no request to it got an HTTP answer",
    );
    expect(c.operations.notExercised.find((n) => n.operation === "listPlants")?.reason).toBe(
      "no case of this run names it",
    );
  });

  it("an operation whose case stopped at its producer's step says so, not that no case names it", () => {
    const c = computeCoverage(contract, [result("deletePlant", step("createPlant", 500))], new Map());
    expect(c.operations.notExercised.find((n) => n.operation === "deletePlant")?.reason).toBe(
      "case case-deletePlant sent it nothing: its step to createPlant got 500, so it never reached this one",
    );
  });
});
