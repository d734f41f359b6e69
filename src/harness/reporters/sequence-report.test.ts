import { describe, expect, it } from "vitest";
import { kitContract } from "../../../test/helpers.js";
import { buildCertificate } from "../certificate/certificate.js";
import { describeContract } from "../certificate/inputs.js";
import { certificateLines } from "../certificate/lines.js";
import type { CaseResult, RunSummary } from "../results.js";
import { summarize } from "../verdict.js";
import { sequenceLines, summaryLines } from "./console.js";
import { htmlReport } from "./html.js";
import { jsonReport } from "./json.js";
import { junitReport } from "./junit.js";
import { markdownReport } from "./markdown.js";

// A stateful case with a finding the run does not count (the level stateful not asked for): every
// report shows the level's verdict apart, the sequence's steps and its whole reproduction, and the
// run's verdict stays the contract's.
const COMMANDS = [
  "# step 1: create A (createPlant)",
  "curl -sS -i -X POST http://t/plants --data-binary '{\"id\":9007199254740993}'",
  "# step 2: read A (getPlant)",
  "curl -sS -i -X GET http://t/plants/9007199254740993 ```",
].join("\n");

const sequence: CaseResult = {
  fixture: "generated-stateful-createPlant",
  description: "the shortest failing sequence (2 of 17 steps, after 3 shrinking runs) on /plants",
  file: "(generated)",
  operation: "createPlant",
  outcome: "fail",
  error: undefined,
  durationMs: 3,
  steps: [
    {
      index: 0,
      operation: "createPlant",
      request: { method: "POST", url: "http://t/plants" },
      response: { status: 201 },
      transportFailure: undefined,
      durationMs: 1,
      findings: [],
      curl: "curl one",
    },
    {
      index: 1,
      operation: "getPlant",
      request: { method: "GET", url: "http://t/plants/9007199254740993" },
      response: { status: 200 },
      transportFailure: undefined,
      durationMs: 1,
      curl: "curl two",
      findings: [
        {
          check: "stateful.id-exact",
          severity: "warning",
          level: "stateful",
          message: "A is read back with id 9007199254740992, not 9007199254740993, as through a double",
          expected: "id 9007199254740993, as step 1 (create A) made it",
          received: "step 2 (read A: getPlant) answered 200",
          rule: "spec.yaml#/paths/~1plants~1{id}/get",
          known: false,
          counts: true,
        },
      ],
    },
  ],
  sequence: {
    resource: "/plants",
    steps: ["create A", "read A"],
    reproduction: COMMANDS,
    shrinking: { fromSteps: 17, runs: 3, plainValues: true },
    notes: ["create B: answered 409, so nothing is judged about B"],
  },
};

const coverage: RunSummary["coverage"] = {
  operations: { total: 2, exercised: 2, notExercised: [] },
  statuses: { total: 2, exercised: 2, notExercised: [] },
  parameters: { total: 0, exercised: 0, notExercised: [] },
};

const summary = summarize([sequence], {
  target: "http://t",
  spec: "spec.yaml",
  seed: "5",
  levels: ["contract", "stateful"],
  baseline: undefined,
  ran: [sequence.fixture],
  loaded: [sequence.fixture],
  durationMs: 10,
  startedAt: "2026-11-24T00:00:00.000Z",
  coverage,
});

describe("a stateful case in every report", () => {
  it("the summary counts the stateful verdict: the run fails", () => {
    expect(summary.exitCode).toBe(1);
    expect(summary.levels).toEqual([
      { level: "contract", verdict: "pass", failedCases: [] },
      { level: "stateful", verdict: "fail", failedCases: [sequence.fixture] },
    ]);
    const lines = summaryLines(summary);
    expect(lines).toContain("levels: contract PASS; stateful FAIL (1 case)");
    expect(lines.at(-1)).toMatch(/^verdict: FAIL.*\(exit 1\)$/);
  });

  it("the console shows the sequence, how it was shrunk, what it could not judge and its commands", () => {
    const lines = sequenceLines(sequence);
    expect(lines[0]).toBe(
      "    sequence on /plants (shrunk from 17 steps in 3 runs, plainest values): create A -> read A",
    );
    expect(lines).toContain("    not judged: create B: answered 409, so nothing is judged about B");
    expect(lines).toContain("    reproduce the sequence:");
    expect(lines.filter((l) => l.startsWith("      curl "))).toHaveLength(2);
  });

  it("JSON, JUnit, Markdown and HTML carry the verdict and the reproduction", () => {
    const json = JSON.parse(jsonReport(summary, [sequence])) as {
      summary: RunSummary;
      results: { levels: Record<string, string>; sequence: unknown }[];
    };
    expect(json.summary.levels[1]).toEqual({ level: "stateful", verdict: "fail", failedCases: [sequence.fixture] });
    expect(json.results[0]?.levels).toEqual({ contract: "pass", stateful: "fail" });
    expect(json.results[0]?.sequence).toEqual(sequence.sequence);

    const junit = junitReport(summary, [sequence]);
    expect(junit).toContain('name="level.stateful" value="fail"');
    expect(junit).toContain("reproduce the sequence:");

    const markdown = markdownReport(summary, [sequence]);
    expect(markdown).toContain("| stateful | FAIL | 1 |");
    expect(markdown).toContain("### Stateful sequences");
    expect(markdown).toContain("| generated-stateful-createPlant | FAIL | create A -&gt; read A | stateful.id-exact:");
    // The commands hold a run of three backticks: the fence is longer, so nothing can close it.
    expect(markdown).toContain("````sh\n# step 1: create A (createPlant)");

    const html = htmlReport(summary, [sequence]);
    expect(html).toContain('<section id="sequences">');
    expect(html).toContain("Reproduce the whole sequence");
  });

  it("the certificate states the level's verdict", async () => {
    const certificate = buildCertificate({
      summary,
      contract: describeContract(await kitContract()),
      fixtures: null,
      baseline: null,
    });
    expect(certificate.levels[1]).toEqual({ level: "stateful", verdict: "fail", failedCases: 1 });
    expect(certificateLines(certificate)).toContain("levels: contract PASS, stateful FAIL (1 failing cases)");
  });
});
