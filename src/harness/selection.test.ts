import { describe, expect, it } from "vitest";
import { KitError } from "../errors.js";
import type { CheckId } from "./checks.js";
import type { Fixture } from "./case-types.js";
import { selectCases, selectFixtures } from "./selection.js";

// Selection looks at fixture ids only.
const ALL = ["auth-missing", "auth-wrong-token", "valid-basic", "valid-name-empty"];
const fixtures = ALL.map((id) => ({ id }) as Fixture);
const ids = (only: string[], skip: string[]): string[] =>
  selectFixtures(fixtures, only, skip).fixtures.map((f) => f.id);

describe("selectFixtures (--only, --skip)", () => {
  it.each([
    [[], [], ALL],
    [["auth-*"], [], ["auth-missing", "auth-wrong-token"]],
    [["auth-*"], ["auth-missing"], ["auth-wrong-token"]],
    [[], ["valid-*"], ["auth-missing", "auth-wrong-token"]],
    [["valid-basic", "auth-missing"], [], ["auth-missing", "valid-basic"]],
    // A pattern that matches a check id selects checks, not fixtures.
    [["status.*"], [], ALL],
  ])("--only %j --skip %j runs %j", (only, skip, expected) => {
    expect(ids(only, skip)).toEqual(expected);
  });

  it.each([
    [[], [], { "status.no-5xx": true, "status.undocumented": true }],
    [["status.no-5xx"], [], { "status.no-5xx": true, "status.undocumented": false, "response.received": true }],
    [[], ["status.*"], { "status.no-5xx": false, "status.undocumented": false, "response.schema": true }],
    [[], ["response.*"], { "response.schema": false, "response.received": true }],
  ])("--only %j --skip %j runs the checks %j", (only, skip, expected) => {
    const { checkFilter } = selectFixtures(fixtures, only, skip);
    for (const [check, runs] of Object.entries(expected)) {
      expect(checkFilter?.(check as CheckId) ?? true, check).toBe(runs);
    }
  });

  it.each([
    [["no-such-thing"], [], '--only "no-such-thing" matches no case id, no operation and no check id'],
    [[], ["nothing*here"], '--skip "nothing*here" matches no case id, no operation and no check id'],
    [["auth-*"], ["auth-*"], "--only/--skip leave no case to run"],
  ])("--only %j --skip %j is a usage error", (only, skip, message) => {
    expect(() => selectFixtures(fixtures, only, skip)).toThrow(KitError);
    expect(() => selectFixtures(fixtures, only, skip)).toThrow(message);
  });
});

describe("selectCases (--only, --skip over fixtures and generated cases)", () => {
  const cases = [
    { id: "valid-basic", operationId: "createPlant" },
    { id: "generated-positive-createPlant", operationId: "createPlant" },
    { id: "generated-negative-createPlant", operationId: "createPlant" },
    { id: "generated-positive-GET /plants", operationId: "GET /plants" },
    { id: "generated-auth-GET /plants", operationId: "GET /plants" },
  ];
  const chosen = (only: string[], skip: string[]): string[] => [...selectCases(cases, only, skip).chosen];

  it.each([
    [["generated-positive-*"], [], ["generated-positive-createPlant", "generated-positive-GET /plants"]],
    [[], ["generated-*"], ["valid-basic"]],
    // A pattern that names no case but an operation selects that operation's cases, fixtures included.
    [["GET /plants"], [], ["generated-positive-GET /plants", "generated-auth-GET /plants"]],
    [[], ["createPlant"], ["generated-positive-GET /plants", "generated-auth-GET /plants"]],
    [["generated-auth-*"], [], ["generated-auth-GET /plants"]],
  ])("--only %j --skip %j runs %j", (only, skip, expected) => {
    expect(chosen(only, skip)).toEqual(expected);
  });

  it("a pattern that matches no case, operation or check is a usage error, with generated cases too", () => {
    expect(() => selectCases(cases, ["generated-positive-nothing"], [])).toThrow(
      '--only "generated-positive-nothing" matches no case id, no operation and no check id',
    );
  });
});
