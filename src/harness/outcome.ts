// The verdict vocabulary, one for a conformance run and for the proxy: what anything judged came to
// (a case, a case at one level, a level over a run, one side of an exchange, a whole run or proxy
// session), the words every report writes for it, and a case's outcome from its findings. It imports
// nothing, so the results' types, the levels, the reporters and the proxy all read it.

/** What a judgement came to: passed, failed, or could not be judged (an error of the run, not of the target). */
export type Verdict = "pass" | "fail" | "error";

/** A case's outcome: a verdict, or known (it deviates only where the baseline says it does). */
export type Outcome = Verdict | "known";

/** 0: pass; 1: fail; 2: could not judge. The exit code of a run and of a proxy session. */
export type ExitCode = 0 | 1 | 2;

/** The verdict an exit code stands for. */
export const EXIT_VERDICT: Readonly<Record<ExitCode, Verdict>> = { 0: "pass", 1: "fail", 2: "error" };

/** An outcome or verdict as the reports write it. */
export const OUTCOME_WORDS: Readonly<Record<Outcome, string>> = {
  pass: "PASS",
  fail: "FAIL",
  known: "KNOWN",
  error: "ERROR",
};

/** What an error means, wherever a report spells it out. */
export const COULD_NOT_JUDGE = "could not judge";

/** What a run that could not start is, wherever a report spells it out. */
export const COULD_NOT_RUN = "could not run";

/** A run's verdict as a heading writes it: PASS, FAIL, ERROR: could not judge. */
export function verdictHeading(verdict: Verdict): string {
  return verdict === "error" ? `${OUTCOME_WORDS.error}: ${COULD_NOT_JUDGE}` : OUTCOME_WORDS[verdict];
}

/** A level's verdict in a table: PASS, FAIL, could not judge. */
export function levelVerdictWord(verdict: Verdict): string {
  return verdict === "error" ? COULD_NOT_JUDGE : OUTCOME_WORDS[verdict];
}

/** The console's last line: `verdict: FAIL, why (exit 1)`; `rest` starts with ", " when there is one. */
export function verdictLine(exitCode: ExitCode, rest: string): string {
  return `verdict: ${OUTCOME_WORDS[EXIT_VERDICT[exitCode]]}${rest} (exit ${exitCode})`;
}

/** What a case's outcome is read from, of each finding. */
export interface OutcomeFinding {
  readonly severity: string;
  /** Listed in the baseline. */
  readonly known: boolean;
  /** Counts toward exit code 1. */
  readonly counts: boolean;
}

/** A case's outcome: an error when it could not be judged, else fail, known or pass by its findings. */
export function caseOutcome(error: string | undefined, findings: readonly OutcomeFinding[]): Outcome {
  if (error !== undefined) return "error";
  if (findings.some((f) => f.counts)) return "fail";
  return findings.some((f) => f.known && f.severity !== "note") ? "known" : "pass";
}

/** What a case's outcome at a level is read from: its error and its steps' findings, each with its level. */
export interface LevelledCase<L extends string> {
  readonly error: string | undefined;
  readonly steps: readonly { readonly findings: readonly (OutcomeFinding & { readonly level: L })[] }[];
}

/**
 * A case's outcome by the rules of one level alone: a finding of the level that is not a note and
 * not known fails it, whether or not the run counts the level (the same as `counts` for a level that
 * runs; for one shown but not counted, its verdict as if it ran).
 */
export function caseLevelOutcome<L extends string>(result: LevelledCase<L>, level: L): Outcome {
  const findings = result.steps
    .flatMap((s) => s.findings)
    .filter((f) => f.level === level)
    .map((f) => ({ ...f, counts: f.counts || (!f.known && f.severity !== "note") }));
  return caseOutcome(result.error, findings);
}

/** A case's outcome at each of the given levels, by name. */
export function caseLevelOutcomes<L extends string>(
  result: LevelledCase<L>,
  levels: readonly L[],
): Partial<Record<L, Outcome>> {
  return Object.fromEntries(levels.map((l) => [l, caseLevelOutcome(result, l)])) as Partial<Record<L, Outcome>>;
}
