import type { ContractNote } from "../contract/index.js";
import type { KitErrorCode } from "../errors.js";
import { count } from "../words.js";
import { baselineKey, deviationMatcher, isPattern, type Baseline } from "./baseline.js";
import type { Finding, Severity } from "./checks.js";
import { operationCoveragePercent } from "./coverage.js";
import type { Level, LevelVerdict } from "./levels.js";
import { caseLevelOutcome, EXIT_VERDICT, type ExitCode, type Outcome } from "./outcome.js";
import type { CaseResult, Coverage, ReportedFinding, RunSummary, StepResult } from "./results.js";

// The verdict layer: how findings count, and how a whole (a conformance run, a proxy session) is
// judged from its parts (cases, exchanges). The run's summary and the proxy's are made here, from
// one tally and one rule for the exit code.

/** What the summariser reads of one judged part: a case of a run, an exchange through the proxy. */
export interface Judged {
  readonly outcome: Outcome;
  readonly findings: readonly { readonly severity: Severity; readonly counts: boolean; readonly known?: boolean }[];
}

/** Parts by outcome, findings by severity, and the parts' findings that count. */
export interface Tally {
  readonly total: number;
  readonly outcomes: Readonly<Record<Outcome, number>>;
  readonly severities: Readonly<Record<Severity, number>>;
  /** Parts with at least one finding of severity failure. */
  readonly withFailure: number;
  /** Findings that count toward exit code 1. */
  readonly counted: number;
  /** Findings of severity failure that the baseline lists (known deviations): they do not count. */
  readonly knownFailures: number;
}

export function tally(parts: readonly Judged[]): Tally {
  const counts = emptyTally();
  for (const part of parts) countPart(counts, part);
  return counts;
}

/** A tally being counted, part by part (the proxy's, one exchange at a time). */
export interface Counting extends Tally {
  total: number;
  outcomes: Record<Outcome, number>;
  severities: Record<Severity, number>;
  withFailure: number;
  counted: number;
  knownFailures: number;
}

/** A tally of no part yet. */
export function emptyTally(): Counting {
  return {
    total: 0,
    outcomes: { pass: 0, fail: 0, known: 0, error: 0 },
    severities: { failure: 0, warning: 0, note: 0 },
    withFailure: 0,
    counted: 0,
    knownFailures: 0,
  };
}

/** Counts one part into a tally. */
export function countPart(counts: Counting, part: Judged): void {
  counts.total++;
  counts.outcomes[part.outcome]++;
  let failed = false;
  for (const f of part.findings) {
    counts.severities[f.severity]++;
    if (f.counts) counts.counted++;
    if (f.known && f.severity === "failure") counts.knownFailures++;
    if (f.severity === "failure") failed = true;
  }
  if (failed) counts.withFailure++;
}

/**
 * How a whole is judged from its parts. A run chose every case it judges (`chosen`): a case it
 * could not judge leaves the verdict open, and a setup mistake can look like failures, so an error
 * comes before any failure. The proxy judges whatever traffic came (`observed`): an exchange it could
 * not judge is no error of the session, and a counted failure is evidence even when nothing else
 * was judged, so the session is an error only when it has no verdict at all and nothing failed.
 */
export type Weighing = "chosen" | "observed";

/** The rule of the exit code, for run and proxy alike: 0 pass, 1 fail, 2 could not judge. */
export function exitCodeOf(
  parts: Tally,
  rule: {
    readonly weighing: Weighing;
    /** Why the whole could not be judged, when it could not. */
    readonly runError: string | undefined;
    /** Something besides a failed part that fails the whole (coverage under --min-coverage). */
    readonly alsoFails?: boolean;
  },
): ExitCode {
  const failed = parts.outcomes.fail > 0 || rule.alsoFails === true;
  const error = rule.runError !== undefined || (rule.weighing === "chosen" && parts.outcomes.error > 0);
  if (rule.weighing === "chosen") return error ? 2 : failed ? 1 : 0;
  return failed ? 1 : error ? 2 : 0;
}

/** Turns a finding of a fixture into a reported one: known to the baseline, counted, or neither. */
export type Classify = (fixture: string, finding: Finding) => ReportedFinding;

/**
 * The classification of findings against the baseline and the levels run: a finding the baseline
 * lists is known (shown, not counted); otherwise a finding counts when it is not a note and its level
 * runs (`contract` always does).
 */
export function classifier(baseline: Baseline | undefined, levels: readonly Level[]): Classify {
  const known = deviationMatcher(baseline?.deviations ?? []);
  return (fixture, finding) => {
    const isKnown = known(fixture, finding.check, finding.received);
    return { ...finding, known: isKnown, counts: !isKnown && decides(finding, levels) };
  };
}

/**
 * Whether a finding decides a verdict, for a run and for the proxy alike: it is not a note, and its
 * level runs (`contract` always does). A run leaves out what its baseline knows; the proxy, the
 * client's findings unless --fail-on-client.
 */
export function decides(
  finding: { readonly severity: Severity; readonly level: Level },
  levels: readonly Level[],
): boolean {
  return finding.severity !== "note" && (finding.level === "contract" || levels.includes(finding.level));
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
    const parts = tally(outcomes.map((o) => ({ outcome: o.outcome, findings: [] })));
    return { level, verdict: EXIT_VERDICT[exitCodeOf(parts, { weighing: "chosen", runError })], failedCases };
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
  /** How the target stopped answering during the run, when it did (see TargetWatch). */
  readonly targetStopped?: string;
  /** It stopped by answering nothing in time, rather than by its connections breaking. */
  readonly targetStoppedByTimeouts?: boolean;
  /** The contract's notes (see Contract.notes): in the summary when there are any. */
  readonly contractNotes?: readonly ContractNote[];
}

/** The run's summary and exit code: 2 if anything could not be judged, else 1 if anything counts, else 0. */
export function summarize(results: readonly CaseResult[], input: SummaryInput): RunSummary {
  const parts = tally(results.map((r) => ({ outcome: r.outcome, findings: r.steps.flatMap((s) => s.findings) })));
  const steps = results.flatMap((r) => r.steps);
  // A setup mistake (a wrong token, a wrong base path) is "could not judge", never the target's failure.
  const notSent = results.filter((r) => r.held === "not-sent").length;
  const stoppedError =
    input.targetStopped === undefined
      ? undefined
      : notSent === 0
        ? input.targetStopped
        : `${input.targetStopped}; ${count(notSent, "case")} not sent`;
  // A target that went silent and never answered a case is said so first ("stopped" would suggest
  // it had worked); one whose connections broke, by how it stopped (it may have answered the pre-flight).
  const silent = noAnswerAtAll(steps);
  const crashed = input.targetStoppedByTimeouts === true ? undefined : stoppedError;
  const runError =
    crashed ??
    (silent === undefined || notSent === 0 ? silent : `${silent}; ${count(notSent, "case")} not sent`) ??
    stoppedError ??
    setupError(steps) ??
    input.stopped;
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
    total: parts.total,
    passed: parts.outcomes.pass,
    failed: parts.outcomes.fail,
    known: parts.outcomes.known,
    errors: parts.outcomes.error,
    failures: parts.severities.failure,
    ...(parts.knownFailures === 0 ? {} : { knownFailures: parts.knownFailures }),
    warnings: parts.severities.warning,
    notes: parts.severities.note,
    staleBaseline: staleEntries(results, input),
    levels: levelVerdicts(results, input.levels, runError),
    durationMs: input.durationMs,
    runError,
    ...(stoppedError === undefined ? {} : { errorCode: "PS_TARGET_STOPPED" satisfies KitErrorCode }),
    ...(notSent === 0 ? {} : { notSent }),
    coverage: input.coverage,
    minCoverage: input.minCoverage,
    coverageShortfall,
    ...(input.contractNotes !== undefined && input.contractNotes.length > 0
      ? { contractNotes: input.contractNotes }
      : {}),
    exitCode: exitCodeOf(parts, { weighing: "chosen", runError, alsoFails: coverageShortfall !== undefined }),
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
