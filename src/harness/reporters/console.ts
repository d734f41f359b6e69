import { coverageLine } from "../coverage.js";
import type { LevelVerdict } from "../levels.js";
import { COULD_NOT_JUDGE, OUTCOME_WORDS, verdictLine, type Outcome } from "../outcome.js";
import { count } from "../../words.js";
import { causeFirst } from "../checks.js";
import type { CaseResult, ReportedFinding, RunEvent, RunSummary } from "../results.js";
import { heldApart, heldLines } from "./held.js";

/** Contract notes shown on the console; the JSON report has every one. */
const MAX_NOTES = 10;

export interface ConsoleOptions {
  readonly color: boolean;
  /** Print notes and request/response evidence of passing cases too. */
  readonly verbose: boolean;
}

const paint =
  (on: boolean, code: string) =>
  (s: string): string =>
    on ? `\u001b[${code}m${s}\u001b[0m` : s;

/** A line per case, failures with expected/received/rule/curl, and a summary. */
export function consoleReporter(write: (line: string) => void, options: ConsoleOptions): (event: RunEvent) => void {
  const red = paint(options.color, "31");
  const green = paint(options.color, "32");
  const yellow = paint(options.color, "33");
  const dim = paint(options.color, "2");
  const colour: Record<Outcome, (s: string) => string> = { pass: green, fail: red, known: yellow, error: red };
  const mark = (o: Outcome): string => colour[o](word(o));
  // A rule beyond the contract is named by its level: a failure when that level runs, else a warning.
  const sev = (f: ReportedFinding): string => {
    const level = f.level === "contract" ? "" : ` [${f.level}]`;
    if (f.known) return yellow(`known ${f.severity}${level}`);
    if (f.severity === "note") return dim("note");
    return f.counts ? red(`failure${level}`) : yellow(`warning${level}`);
  };

  return (event) => {
    switch (event.type) {
      case "run-started":
        write(`Conformance run: ${count(event.total, "case")} against ${event.target}`);
        write(dim(`spec ${event.spec}, seed ${event.seed} (replay with --seed ${event.seed})`));
        // What the contract could not check as written is said before anything is judged.
        for (const n of (event.notes ?? []).slice(0, MAX_NOTES))
          write(dim(`contract note: ${visible(n.pointer)}: ${visible(n.message)}`));
        if ((event.notes?.length ?? 0) > MAX_NOTES)
          write(dim(`contract note: and ${event.notes!.length - MAX_NOTES} more (the JSON report lists them all)`));
        for (const p of event.preflight)
          write(
            dim(
              `pre-flight: ${p.method} ${p.url} got ${p.status ?? "no answer"}${p.withCredentials ? " (with credentials)" : ""}`,
            ),
          );
        return;
      case "case-finished": {
        const r = event.result;
        // Cases held back as a group are counted in one line at the end, not one error each.
        if (r.held !== undefined) return;
        const width = String(event.total).length;
        write(
          `[${String(event.index + 1).padStart(width)}/${event.total}] ${mark(r.outcome)} ${r.fixture} ${dim(`(${r.durationMs.toFixed(0)} ms)`)}`,
        );
        if (r.error !== undefined) write(`    ${red(COULD_NOT_JUDGE)}: ${visible(r.error)}`);
        for (const step of r.steps) {
          for (const f of step.findings) {
            write(`    ${sev(f)} ${f.check}: ${visible(f.message)}`);
            if (f.severity === "note" && !options.verbose) continue;
            write(`      expected: ${visible(f.expected)}`);
            write(`      received: ${visible(f.received)}`);
            write(`      rule:     ${visible(f.rule)}`);
          }
          if (
            step.curl !== undefined &&
            r.sequence === undefined &&
            (step.findings.some((f) => f.counts || f.known) || options.verbose)
          )
            write(`      reproduce (step ${step.index + 1}): ${clip(step.curl)}`);
        }
        for (const line of sequenceLines(r)) write(line);
        return;
      }
      case "run-finished":
        for (const line of recapLines(event.results)) write(line);
        for (const line of summaryLines(event.summary)) write(line);
        return;
    }
  };
}

/**
 * The failing and unjudged cases again at the end, one line each with the first counted finding's
 * check, message and rule, so a long run needs no scrolling back.
 */
export function recapLines(results: readonly CaseResult[]): string[] {
  const all = results.filter((r) => r.outcome === "fail" || r.outcome === "error");
  if (all.length === 0) return [];
  const held = heldApart(all);
  const lines = ["", `failing cases (${all.length}):`];
  for (const r of held.each) {
    if (r.outcome === "error") {
      lines.push(`  ${word("error")} ${r.fixture}: ${COULD_NOT_JUDGE}: ${visible(r.error ?? "")}`);
      continue;
    }
    const first = causeFirst(r.steps.flatMap((s) => s.findings).filter((f) => f.counts))[0];
    lines.push(
      first === undefined
        ? `  ${word("fail")} ${r.fixture}`
        : `  ${word("fail")} ${r.fixture}: ${first.check}${first.level === "contract" ? "" : ` [${first.level}]`}: ` +
            `${visible(first.message)} (${visible(first.rule)})`,
    );
  }
  for (const line of heldLines(held)) lines.push(`  ${line}`);
  return lines;
}

export function summaryLines(s: RunSummary): string[] {
  const lines = [
    "",
    `${count(s.total, "case")}: ${s.passed} passed, ${s.failed} failed, ${count(s.known, "known deviation")}, ` +
      `${count(s.errors, "error")}${s.notSent === undefined ? "" : ` (${s.notSent} not sent)`}`,
    `findings: ${s.failures} failures${s.knownFailures === undefined ? "" : ` (${s.knownFailures} known)`}, ${s.warnings} beyond the contract, ${s.notes} notes; ${(s.durationMs / 1000).toFixed(2)} s`,
    `levels: ${s.levels.map(levelText).join("; ")}`,
  ];
  for (const stale of s.staleBaseline)
    lines.push(`baseline entry did not occur (fixed? remove it): ${stale.fixture} ${stale.check}`);
  lines.push(coverageLine(s.coverage));
  for (const n of s.coverage.operations.notExercised)
    lines.push(`  not exercised: ${n.method} ${n.path} (${n.operation}): ${n.reason}`);
  if (s.coverageShortfall !== undefined) lines.push(`coverage too low: ${s.coverageShortfall}`);
  if (s.runError !== undefined) lines.push(`${COULD_NOT_JUDGE} the target: ${visible(runErrorText(s))}`);
  const left = s.coverage.operations.total - s.coverage.operations.exercised;
  // A pass says what it did not cover: a pass over part of a contract is not a pass over all of it.
  const partly = left === 0 ? "" : `, ${left} of ${s.coverage.operations.total} operations not exercised`;
  const failedOn =
    s.failed === 0 && s.coverageShortfall !== undefined
      ? "too little of the contract was exercised"
      : s.levels[0]?.verdict === "fail"
        ? "the target breaks the contract"
        : `the target breaks level ${s.levels
            .filter((l) => l.verdict === "fail")
            .map((l) => l.level)
            .join(", ")} (the contract itself: ${OUTCOME_WORDS.pass})`;
  const why = { 0: partly, 1: `, ${failedOn}${partly}`, 2: `, the run ${COULD_NOT_JUDGE} every case` };
  lines.push(verdictLine(s.exitCode, why[s.exitCode]));
  return lines;
}

/** Why a run could not judge, with its code (`[PS_TARGET_STOPPED]`) where the reason does not end with it. */
export function runErrorText(s: RunSummary): string {
  const reason = s.runError ?? "";
  return s.errorCode === undefined || reason.endsWith(`[${s.errorCode}]`) ? reason : `${reason} [${s.errorCode}]`;
}

/** A level's verdict in the summary line: `accepts-all-valid FAIL (3 cases)`. */
function levelText(l: LevelVerdict): string {
  const cases = l.failedCases.length;
  return `${l.level} ${OUTCOME_WORDS[l.verdict]}${cases > 0 ? ` (${cases} case${cases === 1 ? "" : "s"})` : ""}`;
}

/**
 * A stateful case's sequence: its steps, how it was shrunk, what it could not judge and, when it has
 * a finding, the whole sequence to paste (each command under a comment naming its step).
 */
export function sequenceLines(r: CaseResult): string[] {
  const s = r.sequence;
  if (s === undefined) return [];
  const shrunk =
    s.shrinking === undefined
      ? ""
      : ` (shrunk from ${s.shrinking.fromSteps} steps in ${s.shrinking.runs} runs${s.shrinking.plainValues ? ", plainest values" : ""})`;
  const lines = [`    sequence on ${s.resource}${shrunk}: ${s.steps.join(" -> ")}`];
  for (const n of s.notes) lines.push(`    not judged: ${visible(n)}`);
  if (s.reproduction !== undefined) {
    lines.push("    reproduce the sequence:");
    for (const line of s.reproduction.split("\n")) lines.push(`      ${visible(clip(line))}`);
  }
  return lines;
}

/** An outcome's word in a column of five: `PASS `, `KNOWN`. */
const word = (o: Outcome): string => OUTCOME_WORDS[o].padEnd(5);

/** Long commands (a 100,000-character name) are cut on the console; reports keep them whole. */
function clip(command: string): string {
  return command.length <= 2_000
    ? command
    : `${command.slice(0, 2_000)}... (${command.length} characters; the whole command is in the JSON and JUnit reports)`;
}

/**
 * Text from the target shown so it cannot forge lines or colours in a CI log: line breaks, escape
 * sequences and other control characters are written out as \n, \u001b and the like.
 */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === "\n"
      ? "\\n"
      : c === "\r"
        ? "\\r"
        : c === "\t"
          ? "\\t"
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
