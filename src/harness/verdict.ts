import type { ContractNote } from "../contract/index.js";
import { baselineKey, deviationMatcher, isPattern, type Baseline } from "./baseline.js";
import type { Finding } from "./checks.js";
import { operationCoveragePercent } from "./coverage.js";
import type { Level, LevelVerdict } from "./levels.js";
import { caseLevelOutcome } from "./outcome.js";
import type { CaseResult, Coverage, Outcome, ReportedFinding, RunSummary, StepResult } from "./results.js";

/** Turns a finding of a fixture into a reported one: known to the baseline, counted, or neither. */
export type Classify = (fixture: string, finding: Finding) => ReportedFinding;

/**
 * The classification of findings against the baseline and the levels run: a finding the baseline
 * lists is known (shown, not counted); otherwise a finding counts when it is not a note and its level
 * runs (`contract` always does).
 */
export function classifier(baseline: Baseline | undefined, levels: readonly Level[]): Classify {
  const known = deviationMatcher(baseline?.deviations ?? []);
  const run = new Set<Level>(["contract", ...levels]);
  return (fixture, finding) => {
    const isKnown = known(fixture, finding.check, finding.received);
    const counted = finding.severity !== "note" && run.has(finding.level);
    return { ...finding, known: isKnown, counts: !isKnown && counted };
  };
}

/** The verdict of each level run, over every case. */
export function levelVerdicts(
  results: readonly CaseResult[],
  levels: readonly Level[],
  runError: string | undefined,
): LevelVerdict[] {
  return levels.map((level) => {
    const outcomes = results.map((r) => ({ id: r.fixture, outcome: caseLevelOutcome(r, level) }));
    const failedCases = outcomes.filter((o) => o.outcome === "fail").map((o) => o.id);
    const error = runError !== undefined || outcomes.some((o) => o.outcome === "error");
    return { level, verdict: error ? "error" : failedCases.length > 0 ? "fail" : "pass", failedCases };
  });
}

/** What the summary is made from, besides the results. */
export interface SummaryInput {
  readonly target: string;
  readonly spec: string;
  readonly seed: string;
  /** The levels run (`contract` first), as levelsToRun gives them. */
  readonly levels: readonly Level[];
  readonly baseline: Baseline | undefined;
  /** Ids of the fixtures that ran, and of every fixture loaded (ran or left out by --only/--skip). */
  readonly ran: readonly string[];
  readonly loaded: readonly string[];
  readonly durationMs: number;
  /** When the run started (ISO 8601, UTC). */
  readonly startedAt: string;
  readonly coverage: Coverage;
  /** Percentage of operations a run must exercise (--min-coverage); undefined: no minimum. */
  readonly minCoverage?: number;
  /** Why the run stopped before judging every case (its time limit), when it did. */
  readonly stopped?: string;
  /** The contract's notes (see Contract.notes): in the summary when there are any. */
  readonly contractNotes?: readonly ContractNote[];
}

/** The run's summary and exit code: 2 if anything could not be judged, else 1 if anything counts, else 0. */
export function summarize(results: readonly CaseResult[], input: SummaryInput): RunSummary {
  const findings = results.flatMap((r) => r.steps.flatMap((s) => s.findings));
  const count = (o: Outcome): number => results.filter((r) => r.outcome === o).length;
  const steps = results.flatMap((r) => r.steps);
  // A setup mistake (a wrong token, a wrong base path) is "could not judge", never the target's failure.
  const runError = noAnswerAtAll(steps) ?? setupError(steps) ?? input.stopped;
  const percent = operationCoveragePercent(input.coverage);
  const coverageShortfall =
    input.minCoverage !== undefined && percent < input.minCoverage
      ? `${input.coverage.operations.exercised} of ${input.coverage.operations.total} operations exercised ` +
        `(${percent.toFixed(1)}%), under --min-coverage ${input.minCoverage}%`
      : undefined;
  return {
    startedAt: input.startedAt,
    target: input.target,
    spec: input.spec,
    seed: input.seed,
    total: results.length,
    passed: count("pass"),
    failed: count("fail"),
    known: count("known"),
    errors: count("error"),
    failures: findings.filter((f) => f.severity === "failure").length,
    warnings: findings.filter((f) => f.severity === "warning").length,
    notes: findings.filter((f) => f.severity === "note").length,
    staleBaseline: staleEntries(results, input),
    levels: levelVerdicts(results, input.levels, runError),
    durationMs: input.durationMs,
    runError,
    coverage: input.coverage,
    minCoverage: input.minCoverage,
    coverageShortfall,
    ...(input.contractNotes !== undefined && input.contractNotes.length > 0
      ? { contractNotes: input.contractNotes }
      : {}),
    exitCode:
      runError !== undefined || count("error") > 0 ? 2 : count("fail") > 0 || coverageShortfall !== undefined ? 1 : 0,
  };
}

/**
 * Baseline entries that did not occur. An entry naming a fixture that ran but did not deviate, or a
 * fixture that does not exist (a typo, a renamed file), is stale; entries for fixtures left out by
 * --only/--skip are not judged.
 */
function staleEntries(results: readonly CaseResult[], input: SummaryInput): { fixture: string; check: string }[] {
  const ran = new Set(input.ran);
  const loaded = new Set(input.loaded);
  const seen = new Set(
    results.flatMap((r) =>
      r.steps.flatMap((s) => s.findings.filter((f) => f.known).map((f) => baselineKey(r.fixture, f.check))),
    ),
  );
  return (input.baseline?.deviations ?? [])
    .filter((d) => !isPattern(d))
    .filter((d) => (ran.has(d.fixture) && !seen.has(baselineKey(d.fixture, d.check))) || !loaded.has(d.fixture))
    .map(({ fixture, check }) => ({ fixture, check }));
}

/**
 * Nothing came back as HTTP (a TLS port spoken to in plain HTTP, a server that resets everything):
 * there is nothing to judge, and the run says so instead of listing every case as a failure.
 */
function noAnswerAtAll(steps: readonly StepResult[]): string | undefined {
  if (steps.length === 0 || steps.some((st) => st.response !== undefined)) return undefined;
  return `the target gave no HTTP answer to any request (first failure: ${steps[0]?.transportFailure ?? "unknown"})`;
}

/**
 * A mistake in the run's setup rather than in the target, read from the whole run:
 * - every request that carried valid credentials (to an operation that requires them) was refused
 *   as unauthorised: the credentials are wrong for this target;
 * - every answer to a path without parameters was 404: nothing of the contract is under this URL (a
 *   wrong base path, another API). Paths with an id are left out: an id the run made up may be unknown.
 */
function setupError(steps: readonly StepResult[]): string | undefined {
  const answered = steps.filter((st) => st.response !== undefined);
  const fixedPaths = answered.filter((st) => !(st.request.parameters ?? []).some((p) => p.startsWith("path:")));
  if (fixedPaths.length > 0 && fixedPaths.every((st) => st.response!.status === 404)) {
    return "no documented path found under the target: every request got 404; is the base path of --target right?";
  }
  const authorised = answered.filter((st) => st.request.credentials === "valid").map((st) => st.response!.status);
  if (authorised.length > 0 && authorised.every((s) => s === 401 || s === 403)) {
    return `credentials refused: every request with valid credentials got ${authorised[0]}; is --token (or --credential) right for this target?`;
  }
  return undefined;
}
