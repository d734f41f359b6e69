import { shortPath } from "../../paths.js";
import type { CaseResult, RunSummary } from "../results.js";
import { caseLevelOutcomes } from "../outcome.js";

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

/**
 * JUnit XML as Jenkins, GitLab and GitHub's test reporters read it: a test case per fixture,
 * `failure` for counted findings, `error` where the harness could not judge, `skipped` for
 * deviations known to the baseline.
 */
export function junitReport(summary: RunSummary, results: readonly CaseResult[]): string {
  const seconds = (ms: number): string => (ms / 1000).toFixed(3);
  const levels = summary.levels.map((l) => l.level);
  const cases = results.map((r) => {
    const findings = r.steps.flatMap((s) => s.findings.map((f) => ({ f, curl: s.curl, step: s.index + 1 })));
    const detail = (list: typeof findings): string =>
      list
        .map(
          ({ f, curl, step }) =>
            `step ${step}: [${f.severity}${f.level === "contract" ? "" : ` ${f.level}`}] ${f.check}: ${f.message}\nexpected: ${f.expected}\nreceived: ${f.received}\nrule: ${f.rule}${curl === undefined ? "" : `\nreproduce: ${curl}`}`,
        )
        .join("\n\n");
    const counted = findings.filter((x) => x.f.counts);
    const known = findings.filter((x) => x.f.known);
    const notes = findings.filter((x) => !x.f.counts && !x.f.known);
    let body = "";
    if (r.outcome === "error") body += `<error message="${xml(r.error ?? "could not judge")}" type="harness-error"/>`;
    else if (counted.length > 0) {
      body += `<failure message="${xml(counted.map((x) => `${x.f.check}: ${x.f.message}`).join("; "))}" type="${xml(counted[0]!.f.check)}">${xml(detail(counted))}</failure>`;
    } else if (r.outcome === "known")
      body += `<skipped message="${xml(`known deviation (baseline): ${known.map((x) => x.f.check).join(", ")}`)}"/>`;
    if (notes.length > 0 || known.length > 0) body += `<system-out>${xml(detail([...known, ...notes]))}</system-out>`;
    // The fixture's description, as a property CI pages show beside the test's name.
    // Its outcome at each level run beside it: a case may pass the contract and fail a stricter level.
    const outcomes = Object.entries(caseLevelOutcomes(r, levels))
      .map(([level, outcome]) => `<property name="level.${xml(level)}" value="${outcome}"/>`)
      .join("");
    const description = `<properties><property name="description" value="${xml(r.description)}"/>${outcomes}</properties>`;
    return `    <testcase classname="${xml(r.operation)}" name="${xml(r.fixture)}" file="${xml(shortPath(r.file))}" time="${seconds(r.durationMs)}">${description}${body}</testcase>`;
  });
  const attrs = `tests="${summary.total}" failures="${summary.failed}" errors="${summary.errors}" skipped="${summary.known}" time="${seconds(summary.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plantstore conformance" ${attrs}>`,
    // A name without the target's host and port, so a CI's history of the suite survives a new port.
    `  <testsuite name="conformance" timestamp="${xml(summary.startedAt.replace(/\.\d+Z$/, ""))}" ${attrs}>`,
    `    <properties><property name="seed" value="${xml(summary.seed)}"/><property name="spec" value="${xml(shortPath(summary.spec))}"/><property name="target" value="${xml(summary.target)}"/><property name="coverage.operations" value="${summary.coverage.operations.exercised}/${summary.coverage.operations.total}"/><property name="coverage.statuses" value="${summary.coverage.statuses.exercised}/${summary.coverage.statuses.total}"/>${summary.levels.map((l) => `<property name="level.${xml(l.level)}" value="${l.verdict}"/>`).join("")}</properties>`,
    ...cases,
    ...(summary.runError === undefined
      ? []
      : [`    <system-err>${xml(`could not judge the target: ${summary.runError}`)}</system-err>`]),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/**
 * The JUnit report of a run that could not start: one test case whose `error` carries the code, so CI
 * shows the reason where it looks for results.
 */
export function junitErrorReport(error: { readonly code: string; readonly message: string }): string {
  const attrs = 'tests="1" failures="0" errors="1"';
  const testcase = `<error message="${xml(`${error.code}: ${error.message}`)}" type="${xml(error.code)}"/>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plantstore conformance" ${attrs}>`,
    `  <testsuite name="conformance" ${attrs}>`,
    `    <testcase classname="conformance" name="run">${testcase}</testcase>`,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
