import { shortPath } from "../../paths.js";
import { coverageLine } from "../coverage.js";
import {
  caseLevelOutcome,
  COULD_NOT_JUDGE,
  COULD_NOT_RUN,
  EXIT_VERDICT,
  levelVerdictWord,
  OUTCOME_WORDS,
  verdictHeading,
} from "../outcome.js";
import { causeFirst } from "../checks.js";
import type { CaseResult, RunSummary } from "../results.js";
import { runErrorText } from "./console.js";
import { heldApart, heldLines } from "./held.js";

/**
 * Text as one Markdown table cell or inline text: no line breaks, pipes escaped, and HTML's markup
 * characters and backticks written as entities, so text from the target cannot add markup, links
 * or code spans to a CI page.
 */
export const md = (s: string): string =>
  s
    .replace(/[\r\n\t]+/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/`/g, "&#96;")
    .replace(/\|/g, "\\|")
    .replace(/[[\]]/g, (c) => `\\${c}`);

/** A short summary for `$GITHUB_STEP_SUMMARY` and merge-request comments: verdict, counts, coverage, failing cases. */
export function markdownReport(summary: RunSummary, results: readonly CaseResult[]): string {
  const s = summary;
  const lines = [
    `## Contract conformance: ${verdictHeading(EXIT_VERDICT[s.exitCode])} (exit ${s.exitCode})`,
    "",
    `Target ${md(s.target)}, spec ${md(shortPath(s.spec))}, seed ${md(s.seed)}, started ${md(s.startedAt)}, ${(s.durationMs / 1000).toFixed(1)} s.`,
    "",
    "| cases | passed | failed | known deviations | errors | failures | beyond the contract | notes |",
    "|---|---|---|---|---|---|---|---|",
    `| ${s.total} | ${s.passed} | ${s.failed} | ${s.known} | ${s.errors} | ${s.failures} | ${s.warnings} | ${s.notes} |`,
    "",
    "| level | verdict | failing cases |",
    "|---|---|---|",
    ...s.levels.map((l) => `| ${l.level} | ${levelVerdictWord(l.verdict)} | ${l.failedCases.length} |`),
    "",
    `${md(coverageLine(s.coverage).replace(/^coverage/, "Coverage"))}.`,
  ];
  for (const n of s.coverage.operations.notExercised)
    lines.push(`- not exercised: ${md(`${n.method} ${n.path} (${n.operation}): ${n.reason}`)}`);
  if (s.coverageShortfall !== undefined) lines.push("", `Coverage too low: ${md(s.coverageShortfall)}.`);
  if (s.runError !== undefined) lines.push("", `${capital(COULD_NOT_JUDGE)} the target: ${md(runErrorText(s))}.`);
  const held = heldApart(results.filter((r) => r.outcome === "fail" || r.outcome === "error"));
  if (held.each.length > 0) {
    lines.push("", "### Failing cases", "", "| case | level | check | message | rule |", "|---|---|---|---|---|");
    for (const r of held.each) {
      const first = causeFirst(r.steps.flatMap((st) => st.findings).filter((f) => f.counts))[0];
      lines.push(
        r.outcome === "error" || first === undefined
          ? `| ${md(r.fixture)} | | (${COULD_NOT_JUDGE}) | ${md(r.error ?? "")} | |`
          : `| ${md(r.fixture)} | ${first.level} | ${md(first.check)} | ${md(first.message)} | ${md(first.rule)} |`,
      );
    }
  }
  const together = heldLines(held);
  if (together.length > 0) lines.push("", ...together.map((line) => `- ${md(line)}`));
  lines.push(...sequenceSection(results));
  return lines.join("\n") + "\n";
}

/**
 * The stateful sequences: each case's verdict at the level `stateful` (whether or not the run counts
 * it), its steps, and for one with a finding its first finding and the whole sequence to paste.
 */
function sequenceSection(results: readonly CaseResult[]): string[] {
  const cases = results.filter((r) => r.sequence !== undefined);
  if (cases.length === 0) return [];
  const lines = ["", "### Stateful sequences", "", "| case | stateful | steps | first finding |", "|---|---|---|---|"];
  for (const r of cases) {
    const first = r.steps.flatMap((s) => s.findings).find((f) => f.level === "stateful" && f.severity !== "note");
    const verdict = OUTCOME_WORDS[caseLevelOutcome(r, "stateful")];
    const found = first === undefined ? "" : `${md(first.check)}: ${md(first.message)}`;
    lines.push(`| ${md(r.fixture)} | ${verdict} | ${md(r.sequence!.steps.join(" -> "))} | ${found} |`);
  }
  for (const r of cases.filter((c) => c.sequence?.reproduction !== undefined)) {
    const text = r.sequence!.reproduction!;
    // A fence longer than any run of backticks in the commands, so none can close it.
    const fence = "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    lines.push("", `Reproduce ${md(r.fixture)}:`, "", `${fence}sh`, text, fence);
  }
  return lines;
}

/** The Markdown report of a run that could not start: the error's code and message. */
export function markdownErrorReport(error: { readonly code: string; readonly message: string }): string {
  return `## Contract conformance: ${OUTCOME_WORDS.error}: ${COULD_NOT_RUN} (exit 2)\n\n${md(error.code)}: ${md(error.message)}\n`;
}

const capital = (s: string): string => s[0]!.toUpperCase() + s.slice(1);
