import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/temp-dir.js";
import {
  baselineFile,
  baselineFromResults,
  deviationMatcher,
  loadBaseline,
  SHIPPED_BASELINES,
  writeBaseline,
} from "./baseline.js";
import type { Severity } from "./checks.js";
import { createRedactor } from "./redact.js";
import type { CaseResult, ReportedFinding } from "./results.js";

const found = (
  check: ReportedFinding["check"],
  severity: Severity,
  known: boolean,
  counts: boolean,
  message: string = check,
): ReportedFinding => ({
  check,
  severity,
  level: severity === "warning" ? "http-rfc" : "contract",
  message,
  expected: "",
  received: "",
  rule: "",
  known,
  counts,
});
const result = (fixture: string, ...steps: ReportedFinding[][]): CaseResult => ({
  fixture,
  description: "",
  file: "",
  operation: "createPlant",
  outcome: "fail",
  steps: steps.map((findings, index) => ({
    index,
    operation: "createPlant",
    request: { method: "POST", url: "", headers: {}, body: "" },
    response: undefined,
    transportFailure: undefined,
    durationMs: 0,
    findings,
    curl: undefined,
  })),
  error: undefined,
  durationMs: 0,
});

describe("baselineFromResults", () => {
  it("lists each counted or known finding once per fixture and check, and nothing else", () => {
    const results = [
      result(
        "a",
        [found("status.no-5xx", "failure", false, true, "first"), found("status.undocumented", "note", false, false)],
        [found("status.no-5xx", "failure", false, true, "second"), found("auth.challenge", "warning", false, false)],
      ),
      result("b", [found("auth.challenge", "warning", true, false)]),
      result("c", [found("auth.challenge", "warning", false, true)]),
    ];
    expect(baselineFromResults(results, "http://t")).toEqual({
      description: "known deviations of http://t",
      deviations: [
        { fixture: "a", check: "status.no-5xx", reason: "second" },
        { fixture: "b", check: "auth.challenge", reason: "auth.challenge" },
        { fixture: "c", check: "auth.challenge", reason: "auth.challenge" },
      ],
    });
  });
});

describe("writeBaseline", () => {
  it("writes a file loadBaseline reads back, with the token masked", () => {
    const file = join(tempDir("plantstore-baseline-"), "baseline.json");
    const results = [result("a", [found("status.no-5xx", "failure", false, true, "echoed tok-s3cret")])];
    writeBaseline(file, baselineFromResults(results, "http://t"), createRedactor(["tok-s3cret"]));
    expect(readFileSync(file, "utf8")).not.toContain("tok-s3cret");
    expect(readFileSync(file, "utf8").endsWith("}\n")).toBe(true);
    const reason = "echoed [REDACTED]";
    expect(loadBaseline(file).deviations).toEqual([{ fixture: "a", check: "status.no-5xx", reason }]);
  });
});

describe("deviationMatcher: entries for one case, and entries for a behaviour on any contract", () => {
  const matches = deviationMatcher([
    { fixture: "auth-wrong-token", check: "auth.rejected" },
    { fixture: "generated-auth-*", check: "auth.rejected" },
    { fixture: "generated-*", check: "response.media-type", received: "application/problem+json" },
  ]);
  it.each([
    ["auth-wrong-token", "auth.rejected", "200", true],
    ["auth-missing", "auth.rejected", "200", false],
    ["generated-auth-GET /users", "auth.rejected", "200", true],
    ["generated-auth-GET /users", "status.no-5xx", "500", false],
    ["generated-negative-createPlant", "response.media-type", "application/problem+json; charset=utf-8", true],
    ["generated-negative-createPlant", "response.media-type", "text/html", false],
    ["valid-basic", "response.media-type", "application/problem+json", false],
  ])("%s %s (received %s): known %s", (fixture, check, received, known) => {
    expect(matches(fixture, check, received)).toBe(known);
  });

  it("every shipped baseline loads by its name, and a name that is no shipped baseline is a file path", () => {
    for (const name of SHIPPED_BASELINES) expect(loadBaseline(name).deviations.length).toBeGreaterThan(0);
    expect(baselineFile("prism-mock")).toMatch(/conformance[/\\]baselines[/\\]prism-mock\.json$/);
    expect(baselineFile("my-baseline.json")).toBe("my-baseline.json");
  });
});
