import type { ContractNote } from "../contract/index.js";
import type { Finding } from "./checks.js";
import type { Credentials } from "./case-types.js";
import type { LevelVerdict } from "./levels.js";
import type { ExitCode, Outcome } from "./outcome.js";

// What a run produces, as data: every module of the harness and every reporter speaks these types,
// and none of them needs to import the module that runs cases to do so.

export type { Outcome } from "./outcome.js";

/** A finding as reported: counted or not, known to the baseline or not. */
export interface ReportedFinding extends Finding {
  /** Listed in the baseline: shown, but not counted. */
  readonly known: boolean;
  /** Counts toward exit code 1: not a note, of a level that ran, not known. */
  readonly counts: boolean;
}

/**
 * One step as sent and answered. Headers and bodies (masked, bodies cut to 500 characters) are kept
 * for steps with a finding, and for every step with the `evidence: "all"` option.
 */
export interface StepResult {
  readonly index: number;
  /** The operationId the step called. */
  readonly operation: string;
  readonly request: {
    readonly method: string;
    readonly url: string;
    /** The credentials the fixture sent; absent when the operation requires none. */
    readonly credentials?: Credentials;
    /** The operation's parameters the request carried, by `in:name`. */
    readonly parameters?: readonly string[];
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: string;
  };
  readonly response:
    | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string }
    | undefined;
  readonly transportFailure: string | undefined;
  readonly durationMs: number;
  readonly findings: readonly ReportedFinding[];
  /**
   * A command that sends the same request again (for steps with a failure or warning); the token
   * appears as $PLANTSTORE_TOKEN.
   */
  readonly curl: string | undefined;
}

/**
 * Where the run's time limit (--max-time) cut a case, as a value (Schemathesis's `StopReason`): before
 * anything of it was sent, or while it ran. A case so cut is an error whose `error` says so in words.
 */
export type TimeLimitStop = "before-case" | "during-case";

/** The error of a case the time limit left before it was sent. */
export const NOT_RUN_ERROR = "not run: the run stopped at its time limit (--max-time) before this case";

/** The error of a request or case not sent because the target had stopped answering. */
export const NOT_SENT_ERROR = "not sent: the target had stopped answering";

export interface CaseResult {
  readonly fixture: string;
  readonly description: string;
  readonly file: string;
  readonly operation: string;
  readonly outcome: Outcome;
  readonly steps: readonly StepResult[];
  /** Why the case is an error (the harness could not judge it), when it is one. */
  readonly error: string | undefined;
  /** Where the time limit cut the case, when it did (its error says so in words). */
  readonly timeLimit?: TimeLimitStop;
  /**
   * A case the target's stop kept from judgement (its error says so in words): nothing of it was
   * sent, or it was in flight when the target stopped and was not the request that stopped it.
   */
  readonly held?: "not-sent" | "cut-off";
  readonly durationMs: number;
  /** The answers of every exchange the case stands for (a generated case judges many), for the coverage. */
  readonly answers?: readonly {
    readonly operation: string;
    readonly status: number;
    readonly parameters?: readonly string[];
  }[];
  /** For a failing generated case: the smallest failing body, exactly, and the rule a negative breaks. */
  readonly generated?: {
    readonly polarity: "positive" | "negative";
    readonly body: string;
    /** The parameter values sent, by `in:name` (integers beyond 2^53 as their digits). */
    readonly parameters?: Readonly<Record<string, unknown>>;
    readonly reason: string | undefined;
  };
  /** For a stateful case: the sequence reported (the shortest failing one, or the first that ran). */
  readonly sequence?: SequenceRecord;
}

/** A stateful case's sequence as reported. */
export interface SequenceRecord {
  /** The collection path of the resource the sequence tests. */
  readonly resource: string;
  /** What each step reported does, in order: `create A`, `read A`, `list by tags of A`. */
  readonly steps: readonly string[];
  /** The whole sequence as curl commands, in order (for a sequence with a finding). */
  readonly reproduction?: string;
  /** How a failing sequence was shrunk: the steps it had, the runs shrinking took, whether its values are the plainest. */
  readonly shrinking?: { readonly fromSteps: number; readonly runs: number; readonly plainValues: boolean };
  /** What the sequence could not judge, and why (a create refused, an answer without the id). */
  readonly notes: readonly string[];
}

export interface RunSummary {
  /** When the run started (ISO 8601, UTC). */
  readonly startedAt: string;
  readonly target: string;
  readonly spec: string;
  readonly seed: string;
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly known: number;
  readonly errors: number;
  /** Of the errors, cases not sent at all because the target had stopped answering (when any were). */
  readonly notSent?: number;
  readonly failures: number;
  /** Of the failures, those the baseline lists (known deviations, not counted), when there are any. */
  readonly knownFailures?: number;
  readonly warnings: number;
  readonly notes: number;
  /** Baseline entries that did not occur: the deviation may be fixed. */
  readonly staleBaseline: readonly { fixture: string; check: string }[];
  /** The verdict of each level run (`contract` first): --level, --strict. */
  readonly levels: readonly LevelVerdict[];
  readonly durationMs: number;
  /** Why the run as a whole could not judge the target, when it could not. */
  readonly runError: string | undefined;
  /** The error code of a run that could not start (`PS_TARGET_UNREACHABLE`, `PS_USAGE`...); docs/errors.md. */
  readonly errorCode?: string;
  /** What the contract left out or read leniently as it compiled (a pattern without the u flag...), by pointer. */
  readonly contractNotes?: readonly ContractNote[];
  /** What the run exercised of the contract. */
  readonly coverage: Coverage;
  /** With --min-coverage: the percentage of operations that had to be exercised. */
  readonly minCoverage: number | undefined;
  /** Why the coverage is below --min-coverage, when it is (exit code 1). */
  readonly coverageShortfall: string | undefined;
  /** 0: no counted findings; 1: counted findings, or coverage under --min-coverage; 2: the run could not be completed. */
  readonly exitCode: ExitCode;
}

/** One request the pre-flight sent, and what came back. */
export interface PreflightProbe {
  readonly operation: string;
  readonly method: string;
  readonly url: string;
  /** undefined: no HTTP answer (a timeout, a reset): nothing is concluded from it. */
  readonly status: number | undefined;
  /** Whether it carried the run's valid credentials (the operation requires them). */
  readonly withCredentials: boolean;
}

export type RunEvent =
  | {
      readonly type: "run-started";
      readonly target: string;
      readonly spec: string;
      readonly seed: string;
      readonly total: number;
      /** The requests sent before any case, to find a wrong token or base path (see preflight.ts). */
      readonly preflight: readonly PreflightProbe[];
      /** What the contract left out or read leniently as it compiled, each with its pointer. */
      readonly notes?: readonly ContractNote[];
    }
  | { readonly type: "case-finished"; readonly result: CaseResult; readonly index: number; readonly total: number }
  | { readonly type: "run-finished"; readonly summary: RunSummary; readonly results: readonly CaseResult[] };

/** An operation a run did not exercise, and why. */
export interface NotExercised {
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly reason: string;
}

/** What a run exercised of the contract: operations that got an answer, documented statuses seen. */
export interface Coverage {
  readonly operations: {
    readonly total: number;
    readonly exercised: number;
    readonly notExercised: readonly NotExercised[];
  };
  readonly statuses: {
    readonly total: number;
    readonly exercised: number;
    readonly notExercised: readonly { readonly operation: string; readonly status: string }[];
  };
  /** A parameter counts when a request carrying it got an answer. */
  readonly parameters: {
    readonly total: number;
    readonly exercised: number;
    readonly notExercised: readonly { readonly operation: string; readonly in: string; readonly name: string }[];
  };
}
