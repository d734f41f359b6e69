import { describe, expect, it } from "vitest";
import type { Finding, Severity } from "./checks.js";
import type { Credentials } from "./case-types.js";
import type { CaseResult, Coverage, ReportedFinding, StepResult } from "./results.js";
import { LEVELS, levelsToRun, type Level } from "./levels.js";
import { caseOutcome } from "./outcome.js";
import { classifier, exitCodeOf, summarize, tally, type Judged, type SummaryInput } from "./verdict.js";

const finding = (
  severity: Severity,
  check: Finding["check"] = "status.no-5xx",
  level: Level = severity === "warning" ? "accepts-all-valid" : "contract",
): Finding => ({
  check,
  severity,
  level,
  message: "m",
  expected: "e",
  received: "r",
  rule: "spec#/x",
});
const baseline = { deviations: [{ fixture: "known-case", check: "status.no-5xx" }] };

describe("classifier: a finding against the baseline and the levels run", () => {
  const all = levelsToRun([], true);
  it.each([
    ["failure", ["contract"], "some-case", { known: false, counts: true }],
    ["warning", ["contract"], "some-case", { known: false, counts: false }],
    ["warning", ["contract", "accepts-all-valid"], "some-case", { known: false, counts: true }],
    ["warning", ["contract", "http-rfc"], "some-case", { known: false, counts: false }],
    ["warning", all, "some-case", { known: false, counts: true }],
    ["note", all, "some-case", { known: false, counts: false }],
    ["failure", ["contract"], "known-case", { known: true, counts: false }],
    ["warning", all, "known-case", { known: true, counts: false }],
  ] as const)("a %s (levels %j) on %s is %j", (severity, levels, fixture, expected) => {
    const reported = classifier(baseline, levels)(fixture, finding(severity));
    expect(reported).toEqual({ ...finding(severity), ...expected });
  });
  it("counts a contract failure even when the levels given leave contract out", () => {
    expect(classifier(undefined, ["http-rfc"])("x", finding("failure")).counts).toBe(true);
  });
});

describe("levelsToRun", () => {
  it("runs contract always, then the levels asked for in a fixed order", () => {
    expect(levelsToRun()).toEqual(["contract"]);
    expect(levelsToRun(["http-rfc", "accepts-all-valid", "http-rfc"])).toEqual([
      "contract",
      "accepts-all-valid",
      "http-rfc",
    ]);
    expect(levelsToRun([], true)).toEqual([...LEVELS]);
  });
  it("names an unknown level and lists the known ones", () => {
    expect(() => levelsToRun(["acepts-all-valid"])).toThrow(
      /unknown level "acepts-all-valid": one of contract, accepts-all-valid/,
    );
  });
});

const reported = (severity: Severity, known: boolean, counts: boolean): ReportedFinding => ({
  ...finding(severity),
  known,
  counts,
});

describe("caseOutcome", () => {
  it.each([
    ["no finding", undefined, [], "pass"],
    ["a note", undefined, [reported("note", false, false)], "pass"],
    ["an uncounted warning", undefined, [reported("warning", false, false)], "pass"],
    ["a counted failure", undefined, [reported("failure", false, true)], "fail"],
    ["a known failure", undefined, [reported("failure", true, false)], "known"],
    ["a known note only", undefined, [reported("note", true, false)], "pass"],
    ["known and counted", undefined, [reported("failure", true, false), reported("failure", false, true)], "fail"],
    ["an error, whatever else", "could not judge", [reported("failure", false, true)], "error"],
  ] as const)("%s: %s", (_name, error, findings, outcome) => {
    expect(caseOutcome(error, findings)).toBe(outcome);
  });
});

const step = (
  status: number | undefined,
  findings: ReportedFinding[] = [],
  credentials: Credentials | "not-required" = "valid",
): StepResult => ({
  index: 0,
  operation: "createPlant",
  request: { method: "POST", url: "http://t/plants", ...(credentials === "not-required" ? {} : { credentials }) },
  response: status === undefined ? undefined : { status, headers: {}, body: "" },
  transportFailure: status === undefined ? "timeout" : undefined,
  durationMs: 1,
  findings,
  curl: undefined,
});
const withId = (st: StepResult): StepResult => ({ ...st, request: { ...st.request, parameters: ["path:id"] } });
const result = (fixture: string, outcome: CaseResult["outcome"], steps: StepResult[]): CaseResult => ({
  fixture,
  description: "",
  file: `${fixture}.json`,
  operation: "createPlant",
  outcome,
  steps,
  error: outcome === "error" ? "could not judge" : undefined,
  durationMs: 1,
});
const input: SummaryInput = {
  target: "http://t",
  spec: "spec.yaml",
  seed: "1",
  levels: ["contract"],
  baseline: undefined,
  ran: ["a", "b"],
  loaded: ["a", "b", "c"],
  durationMs: 5,
  startedAt: "2026-11-22T07:00:00.000Z",
  coverage: coverageOf(2, 2),
};

function coverageOf(total: number, exercised: number): Coverage {
  const notExercised = Array.from({ length: total - exercised }, (_, i) => ({
    operation: `op${i}`,
    method: "GET",
    path: `/op${i}`,
    reason: "no fixture names it",
  }));
  return {
    operations: { total, exercised, notExercised },
    statuses: { total: 0, exercised: 0, notExercised: [] },
    parameters: { total: 0, exercised: 0, notExercised: [] },
  };
}

describe("summarize", () => {
  it.each([
    ["no minimum, half the operations exercised", coverageOf(4, 2), undefined, 0, undefined],
    ["all exercised, minimum 100", coverageOf(3, 3), 100, 0, undefined],
    ["2 of 3 exercised, minimum 66", coverageOf(3, 2), 66, 0, undefined],
    [
      "2 of 3 exercised, minimum 67",
      coverageOf(3, 2),
      67,
      1,
      "2 of 3 operations exercised (66.7%), under --min-coverage 67%",
    ],
  ] as const)("coverage %s: exit %s", (_name, coverage, minCoverage, exitCode, shortfall) => {
    const summary = summarize([result("a", "pass", [step(200)])], { ...input, coverage, minCoverage });
    expect(summary.exitCode).toBe(exitCode);
    expect(summary.coverageShortfall).toBe(shortfall);
    expect(summary.coverage).toBe(coverage);
  });

  it("a run that could not judge stays exit 2 under a coverage shortfall", () => {
    const summary = summarize([result("a", "error", [step(200)])], {
      ...input,
      coverage: coverageOf(2, 0),
      minCoverage: 100,
    });
    expect(summary.exitCode).toBe(2);
  });

  it.each([
    ["every case passed", [result("a", "pass", [step(200)])], 0],
    ["a known deviation only", [result("a", "known", [step(500, [reported("failure", true, false)])])], 0],
    ["a failed case", [result("a", "pass", [step(200)]), result("b", "fail", [step(500)])], 1],
    ["a case that could not be judged", [result("a", "fail", [step(500)]), result("b", "error", [step(200)])], 2],
    ["no HTTP answer at all", [result("a", "fail", [step(undefined)])], 2],
  ] as const)("%s: exit %s", (_name, results, exitCode) => {
    expect(summarize(results, input).exitCode).toBe(exitCode);
  });

  it("counts outcomes and findings, and names the run error when nothing answered", () => {
    const summary = summarize([result("a", "fail", [step(undefined, [reported("failure", false, true)])])], input);
    expect(summary).toMatchObject({ total: 1, passed: 0, failed: 1, known: 0, errors: 0, failures: 1, warnings: 0 });
    expect(summary.runError).toBe("the target gave no HTTP answer to any request (first failure: timeout)");
  });

  it("lists baseline entries that did not occur, leaving out fixtures --only/--skip did not run", () => {
    const deviations = [
      { fixture: "a", check: "status.no-5xx" }, // ran, deviated: not stale
      { fixture: "b", check: "status.no-5xx" }, // ran, did not deviate: stale
      { fixture: "c", check: "status.no-5xx" }, // loaded, not run: not judged
      { fixture: "gone", check: "status.no-5xx" }, // no such fixture: stale
    ];
    const results = [
      result("a", "known", [step(500, [reported("failure", true, false)])]),
      result("b", "pass", [step(200)]),
    ];
    expect(summarize(results, { ...input, baseline: { deviations } }).staleBaseline).toEqual([
      { fixture: "b", check: "status.no-5xx" },
      { fixture: "gone", check: "status.no-5xx" },
    ]);
  });

  it.each([
    [
      "every request with valid credentials got 401",
      [step(401), step(401), step(200, [], "wrong")],
      "credentials refused: every request with valid credentials got 401; is --token (or --credential) right for this target?",
    ],
    [
      "every answer was 404",
      [step(404), step(404, [], "wrong")],
      "no documented path found under the target: every request got 404; is the base path of --target right?",
    ],
    ["one request with the token got 200", [step(401), step(200)], undefined],
    ["only requests without the token got 401", [step(401, [], "wrong"), step(200)], undefined],
    // A lower-case scheme carries the right token, and a server may refuse it (RFC 9110 says the
    // scheme is case-insensitive, the contract does not show it): not a sign of a wrong token.
    [
      "only requests with the right token in a lower-case scheme got 401",
      [step(401, [], "lowercase-scheme"), step(200)],
      undefined,
    ],
    ["requests to operations that need no credentials got 401", [step(401, [], "not-required"), step(200)], undefined],
    ["some answers were 404", [step(404), step(200)], undefined],
    // Made-up ids on a path that takes one may be unknown: those 404s say nothing of the base path.
    ["every answer was 404, all on paths with an id", [withId(step(404)), withId(step(404))], undefined],
  ] as const)("setup mistakes: %s", (_name, steps, runError) => {
    const summary = summarize([result("a", "fail", [...steps])], input);
    expect(summary.runError).toBe(runError);
    // A setup mistake is "could not judge" (exit 2), never the target's failure (exit 1).
    expect(summary.exitCode).toBe(runError === undefined ? 1 : 2);
  });
});

describe("summarize: a verdict per level", () => {
  const beyond = (level: Level, counts: boolean): ReportedFinding => ({
    ...finding("warning", "valid.accepted", level),
    known: false,
    counts,
  });
  it("fails only the level whose rule a case broke, and lists that case", () => {
    const levels = levelsToRun(["accepts-all-valid", "http-rfc"]);
    const results = [
      result("empty-name", "fail", [step(400, [beyond("accepts-all-valid", true)])]),
      result("plain", "pass", [step(200)]),
    ];
    const summary = summarize(results, { ...input, levels });
    expect(summary.levels).toEqual([
      { level: "contract", verdict: "pass", failedCases: [] },
      { level: "accepts-all-valid", verdict: "fail", failedCases: ["empty-name"] },
      { level: "http-rfc", verdict: "pass", failedCases: [] },
    ]);
    expect(summary.exitCode).toBe(1);
  });
  it("a level that did not run reports nothing, and its findings do not count", () => {
    const results = [result("empty-name", "pass", [step(400, [beyond("accepts-all-valid", false)])])];
    const summary = summarize(results, input);
    expect(summary.levels).toEqual([{ level: "contract", verdict: "pass", failedCases: [] }]);
    expect(summary.exitCode).toBe(0);
  });
  it("every level is an error when the run could not judge", () => {
    const results = [result("a", "error", [step(200)])];
    const summary = summarize(results, { ...input, levels: levelsToRun([], true) });
    expect(summary.levels.map((l) => l.verdict)).toEqual(LEVELS.map(() => "error"));
  });
});

describe("tally and exitCodeOf: one rule for a run (chosen cases) and the proxy (observed traffic)", () => {
  const part = (outcome: Judged["outcome"], ...findings: [Severity, boolean][]): Judged => ({
    outcome,
    findings: findings.map(([severity, counts]) => ({ severity, counts })),
  });
  it("counts parts by outcome, findings by severity, parts with a failure and counted findings", () => {
    const t = tally([
      part("fail", ["failure", true], ["note", false]),
      part("pass", ["warning", false]),
      part("error"),
    ]);
    expect(t).toEqual({
      total: 3,
      outcomes: { pass: 1, fail: 1, known: 0, error: 1 },
      severities: { failure: 1, warning: 1, note: 1 },
      withFailure: 1,
      counted: 1,
      knownFailures: 0,
    });
    // A failure the baseline knows is counted apart, and does not count.
    const known = tally([{ outcome: "known", findings: [{ severity: "failure", counts: false, known: true }] }]);
    expect([known.knownFailures, known.counted, known.severities.failure]).toEqual([1, 0, 1]);
  });
  it.each([
    ["a failed and an unjudged part", [part("fail"), part("error")], undefined, 2, 1],
    ["an unjudged part only", [part("pass"), part("error")], undefined, 2, 0],
    ["a failed part, and no verdict for the whole", [part("fail")], "nothing judged", 2, 1],
    ["no verdict for the whole", [part("error")], "nothing judged", 2, 2],
    ["a known deviation", [part("known")], undefined, 0, 0],
    ["a failed part", [part("pass"), part("fail")], undefined, 1, 1],
  ] as const)("%s: a run exits %s, a proxy session %s", (_name, parts, runError, chosen, observed) => {
    expect(exitCodeOf(tally(parts), { weighing: "chosen", runError })).toBe(chosen);
    expect(exitCodeOf(tally(parts), { weighing: "observed", runError })).toBe(observed);
  });
  it("fails a whole on something besides its parts (coverage), after an error of a run", () => {
    expect(exitCodeOf(tally([part("pass")]), { weighing: "chosen", runError: undefined, alsoFails: true })).toBe(1);
    expect(exitCodeOf(tally([part("error")]), { weighing: "chosen", runError: undefined, alsoFails: true })).toBe(2);
  });
});
