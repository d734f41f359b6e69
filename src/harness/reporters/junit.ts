import { shortPath } from "../../paths.js";
import { runErrorText } from "./console.js";
import { causeFirst } from "../checks.js";
import { NOT_SENT_ERROR, type CaseResult, type RunSummary } from "../results.js";
import { caseLevelOutcomes, COULD_NOT_JUDGE } from "../outcome.js";

/** Text as XML 1.0 can carry it in an attribute or element: the one escaping function of the reports. */
export const xml = (s: string): string =>
  // Characters XML 1.0 cannot carry at all are dropped; the rest is escaped.
  s
    .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, "\ufffd")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");

/** A name and value of a <properties> list, both written escaped. */
export type JUnitProperty = readonly [name: string, value: string];

/** One test case: at most one of failure, error and skipped; times in milliseconds, written in seconds. */
export interface JUnitCase {
  readonly classname: string;
  readonly name: string;
  readonly file?: string;
  readonly timeMs?: number;
  readonly properties?: readonly JUnitProperty[];
  readonly failure?: { readonly message: string; readonly type: string; readonly text: string };
  readonly error?: { readonly message: string; readonly type: string };
  readonly skipped?: { readonly message: string };
  readonly systemOut?: string;
}

/** A JUnit document of one suite: the shape the run's and the proxy's reports both write. */
export interface JUnitDocument {
  /** The <testsuites> name. */
  readonly name: string;
  /** The <testsuite> name, and its timestamp (ISO 8601 without fraction) when it has one. */
  readonly suite: string;
  readonly timestamp?: string;
  /** The counts on both elements, in this order; skipped and time are left out when absent. */
  readonly counts: {
    readonly tests: number;
    readonly failures: number;
    readonly errors: number;
    readonly skipped?: number;
    readonly timeMs?: number;
  };
  readonly properties?: readonly JUnitProperty[];
  readonly cases: readonly JUnitCase[];
  readonly systemErr?: string;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);
const properties = (list: readonly JUnitProperty[]): string =>
  `<properties>${list.map(([name, value]) => `<property name="${xml(name)}" value="${xml(value)}"/>`).join("")}</properties>`;

/** The one JUnit XML writer, of the run's reports and the proxy's: every text escaped here. */
export function junitXml(doc: JUnitDocument): string {
  const { tests, failures, errors, skipped, timeMs } = doc.counts;
  const attrs =
    `tests="${tests}" failures="${failures}" errors="${errors}"` +
    (skipped === undefined ? "" : ` skipped="${skipped}"`) +
    (timeMs === undefined ? "" : ` time="${seconds(timeMs)}"`);
  const cases = doc.cases.map((c) => {
    const head =
      `classname="${xml(c.classname)}" name="${xml(c.name)}"` +
      (c.file === undefined ? "" : ` file="${xml(c.file)}"`) +
      (c.timeMs === undefined ? "" : ` time="${seconds(c.timeMs)}"`);
    let body = c.properties === undefined ? "" : properties(c.properties);
    if (c.failure !== undefined)
      body += `<failure message="${xml(c.failure.message)}" type="${xml(c.failure.type)}">${xml(c.failure.text)}</failure>`;
    if (c.error !== undefined) body += `<error message="${xml(c.error.message)}" type="${xml(c.error.type)}"/>`;
    if (c.skipped !== undefined) body += `<skipped message="${xml(c.skipped.message)}"/>`;
    if (c.systemOut !== undefined) body += `<system-out>${xml(c.systemOut)}</system-out>`;
    return `    <testcase ${head}>${body}</testcase>`;
  });
  const timestamp = doc.timestamp === undefined ? "" : ` timestamp="${xml(doc.timestamp)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(doc.name)}" ${attrs}>`,
    `  <testsuite name="${xml(doc.suite)}"${timestamp} ${attrs}>`,
    ...(doc.properties === undefined ? [] : [`    ${properties(doc.properties)}`]),
    ...cases,
    ...(doc.systemErr === undefined ? [] : [`    <system-err>${xml(doc.systemErr)}</system-err>`]),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/**
 * JUnit XML as Jenkins, GitLab and GitHub's test reporters read it: a test case per fixture,
 * `failure` for counted findings, `error` where the harness could not judge, `skipped` for
 * deviations known to the baseline and for cases not sent because the target had stopped.
 */
export function junitReport(summary: RunSummary, results: readonly CaseResult[]): string {
  const levels = summary.levels.map((l) => l.level);
  const cases = results.map((r): JUnitCase => {
    const findings = r.steps.flatMap((s) => s.findings.map((f) => ({ f, curl: s.curl, step: s.index + 1 })));
    const detail = (list: typeof findings): string =>
      list
        .map(
          ({ f, curl, step }) =>
            `step ${step}: [${f.severity}${f.level === "contract" ? "" : ` ${f.level}`}] ${f.check}: ${f.message}\nexpected: ${f.expected}\nreceived: ${f.received}\nrule: ${f.rule}${curl === undefined ? "" : `\nreproduce: ${curl}`}`,
        )
        .join("\n\n");
    const sequence =
      r.sequence?.reproduction === undefined
        ? ""
        : `\n\nsequence: ${r.sequence.steps.join(" -> ")}\nreproduce the sequence:\n${r.sequence.reproduction}`;
    // Cause first: the message and type name the finding that says the most (checks.ts causeFirst).
    const counted = causeFirst(findings.filter((x) => x.f.counts).map((x) => ({ ...x, check: x.f.check })));
    const known = findings.filter((x) => x.f.known);
    const notes = findings.filter((x) => !x.f.counts && !x.f.known);
    // A case not sent (the target had stopped) was not run: skipped, as CI pages count cases not run.
    const verdict: Pick<JUnitCase, "error" | "failure" | "skipped"> =
      r.held === "not-sent"
        ? { skipped: { message: r.error ?? NOT_SENT_ERROR } }
        : r.outcome === "error"
          ? { error: { message: r.error ?? COULD_NOT_JUDGE, type: "harness-error" } }
          : counted.length > 0
            ? {
                failure: {
                  message: counted.map((x) => `${x.f.check}: ${x.f.message}`).join("; "),
                  type: counted[0]!.f.check,
                  text: detail(counted) + sequence,
                },
              }
            : r.outcome === "known"
              ? { skipped: { message: `known deviation (baseline): ${known.map((x) => x.f.check).join(", ")}` } }
              : {};
    return {
      classname: r.operation,
      name: r.fixture,
      file: shortPath(r.file),
      timeMs: r.durationMs,
      // The fixture's description, as a property CI pages show beside the test's name.
      // Its outcome at each level run beside it: a case may pass the contract and fail a stricter level.
      properties: [
        ["description", r.description],
        ...Object.entries(caseLevelOutcomes(r, levels)).map(([level, outcome]): JUnitProperty => [
          `level.${level}`,
          outcome,
        ]),
      ],
      ...verdict,
      ...(notes.length > 0 || known.length > 0
        ? { systemOut: detail([...known, ...notes]) + (counted.length > 0 ? "" : sequence) }
        : {}),
    };
  });
  return junitXml({
    name: "plantstore conformance",
    // A name without the target's host and port, so a CI's history of the suite survives a new port.
    suite: "conformance",
    timestamp: summary.startedAt.replace(/\.\d+Z$/, ""),
    counts: {
      tests: summary.total,
      failures: summary.failed,
      errors: summary.errors - (summary.notSent ?? 0),
      skipped: summary.known + (summary.notSent ?? 0),
      timeMs: summary.durationMs,
    },
    properties: [
      ["seed", summary.seed],
      ["spec", shortPath(summary.spec)],
      ["target", summary.target],
      ["coverage.operations", `${summary.coverage.operations.exercised}/${summary.coverage.operations.total}`],
      ["coverage.statuses", `${summary.coverage.statuses.exercised}/${summary.coverage.statuses.total}`],
      ...summary.levels.map((l): JUnitProperty => [`level.${l.level}`, l.verdict]),
    ],
    cases,
    ...(summary.runError === undefined ? {} : { systemErr: `${COULD_NOT_JUDGE} the target: ${runErrorText(summary)}` }),
  });
}

/**
 * The JUnit report of a run that could not start: one test case whose `error` carries the code, so CI
 * shows the reason where it looks for results.
 */
export function junitErrorReport(error: { readonly code: string; readonly message: string }): string {
  return junitXml({
    name: "plantstore conformance",
    suite: "conformance",
    counts: { tests: 1, failures: 0, errors: 1 },
    cases: [
      {
        classname: "conformance",
        name: "run",
        error: { message: `${error.code}: ${error.message}`, type: error.code },
      },
    ],
  });
}
