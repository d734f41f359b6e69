import { describe, expect, it } from "vitest";
import type { CaseResult, RunSummary } from "../results.js";
import { markdownErrorReport, markdownReport, md } from "./markdown.js";

const summary: RunSummary = {
  startedAt: "2026-11-22T07:00:00.000Z",
  target: "http://127.0.0.1:4010",
  spec: "spec/openapi.yaml",
  seed: "42",
  total: 2,
  passed: 1,
  failed: 1,
  known: 0,
  errors: 0,
  failures: 1,
  warnings: 0,
  notes: 0,
  staleBaseline: [],
  levels: [
    { level: "contract", verdict: "fail", failedCases: ["valid-basic"] },
    { level: "accepts-all-valid", verdict: "pass", failedCases: [] },
  ],
  durationMs: 1234,
  runError: undefined,
  coverage: {
    operations: {
      total: 2,
      exercised: 1,
      notExercised: [{ operation: "getPlant", method: "GET", path: "/plants/{id}", reason: "no fixture names it" }],
    },
    statuses: { total: 3, exercised: 2, notExercised: [] },
    parameters: { total: 1, exercised: 0, notExercised: [] },
  },
  minCoverage: undefined,
  coverageShortfall: undefined,
  exitCode: 1,
};
const failing: CaseResult = {
  fixture: "valid-basic",
  description: "",
  file: "fixtures/valid-basic.json",
  operation: "createPlant",
  outcome: "fail",
  steps: [
    {
      index: 0,
      operation: "createPlant",
      request: { method: "POST", url: "u" },
      response: { status: 500 },
      transportFailure: undefined,
      durationMs: 1,
      curl: undefined,
      findings: [
        {
          check: "status.no-5xx",
          severity: "failure",
          level: "contract",
          message: "server error 500 | <script>alert(1)</script>\n`x` [link](http://evil)",
          expected: "",
          received: "",
          rule: "spec/openapi.yaml#/paths/~1plants/post/responses",
          known: false,
          counts: true,
        },
      ],
    },
  ],
  error: undefined,
  durationMs: 1,
};

describe("the Markdown report", () => {
  it("gives the verdict, the counts, the coverage and one table row per failing case", () => {
    const text = markdownReport(summary, [failing]);
    expect(text.split("\n").slice(0, 14)).toEqual([
      "## Contract conformance: FAIL (exit 1)",
      "",
      "Target http://127.0.0.1:4010, spec spec/openapi.yaml, seed 42, started 2026-11-22T07:00:00.000Z, 1.2 s.",
      "",
      "| cases | passed | failed | known deviations | errors | failures | beyond the contract | notes |",
      "|---|---|---|---|---|---|---|---|",
      "| 2 | 1 | 1 | 0 | 0 | 1 | 0 | 0 |",
      "",
      "| level | verdict | failing cases |",
      "|---|---|---|",
      "| contract | FAIL | 1 |",
      "| accepts-all-valid | PASS | 0 |",
      "",
      "Coverage: 1 of 2 operations, 2 of 3 documented statuses, 0 of 1 parameters.",
    ]);
    expect(text).toContain("- not exercised: GET /plants/{id} (getPlant): no fixture names it");
    expect(text).toContain("| case | level | check | message | rule |");
  });

  it("keeps text from the target from adding markup, links, code or table cells", () => {
    const row = markdownReport(summary, [failing])
      .split("\n")
      .find((l) => l.startsWith("| valid-basic"))!;
    expect(row).toBe(
      "| valid-basic | contract | status.no-5xx | server error 500 \\| &lt;script&gt;alert(1)&lt;/script&gt; &#96;x&#96; \\[link\\](http://evil) | spec/openapi.yaml#/paths/~1plants/post/responses |",
    );
    expect(md("a\r\nb|c")).toBe("a b\\|c");
  });

  it("says why a run could not start", () => {
    expect(markdownErrorReport({ code: "PS_USAGE", message: "--timeout <bad>" })).toBe(
      "## Contract conformance: ERROR: could not run (exit 2)\n\nPS_USAGE: --timeout &lt;bad&gt;\n",
    );
  });
});
