// What every sequence of the stateful phase shares: the run it belongs to, how one step is sent (a
// one-step case, judged by the contract checks and by the caller's own), and how a sequence becomes
// the case the reports show.
import type { Contract } from "../../contract/index.js";
import type { CaseRunner, ObservedStep } from "../case-runner.js";
import type { Finding } from "../checks.js";
import { checkPrepared } from "../request-honesty.js";
import { prepareRequest } from "../prepare-request.js";
import type { Random } from "../fresh.js";
import { requestFixture } from "../generate/index.js";
import { caseOutcome } from "../outcome.js";
import type { CaseResult, SequenceRecord, StepResult, TimeLimitStop } from "../results.js";
import type { StepRequest } from "./steps.js";

/** What every sequence of a run shares. */
export interface StatefulEnv {
  readonly contract: Contract;
  /** The spec's location as rules cite it. */
  readonly specSource: string;
  readonly runCase: CaseRunner;
  readonly seed: bigint;
  /** The outer guard (--max-time), as a Date.now() instant. */
  readonly deadline: number;
  /** Whether the target has stopped answering: a case not begun then is not sent. */
  readonly gone?: () => boolean;
}

const SAMPLE_SECRETS = { token: "sample-token", wrongToken: "sample-wrong" };

/**
 * Sends one step of a sequence as a one-step case: `judge` adds its findings on the exchange, every
 * step keeps its evidence and curl command. A request the contract refuses (a value an earlier answer
 * gave does not fit) is not sent: its reason comes back instead.
 */
export async function sendStep(
  env: StatefulEnv,
  caseId: string,
  label: string,
  request: StepRequest,
  random: Random,
  judge: (observed: ObservedStep) => readonly Finding[],
): Promise<{ readonly result: CaseResult } | { readonly refused: string }> {
  const body = request.body === undefined ? undefined : { text: request.body };
  const fixture = requestFixture(request.op, caseId, label, { parameters: request.parameters, body }, request.expect);
  const checked = checkPrepared(request.op, prepareRequest(fixture, 0, new Map(), random, SAMPLE_SECRETS));
  if (!checked.ok)
    return { refused: `${label}: not sent, the contract refuses it as made from earlier answers (${checked.detail})` };
  return { result: await env.runCase(fixture, random, { keepAll: true, judgeStep: judge }) };
}

/** A sequence as reported: what it is, the steps it took, and what it could not judge. */
export interface SequenceReport {
  readonly caseId: string;
  readonly operation: string;
  readonly description: string;
  readonly steps: readonly StepResult[];
  /** Each step's words, by step index. */
  readonly labels: readonly string[];
  readonly record: Omit<SequenceRecord, "steps" | "reproduction">;
  readonly error: string | undefined;
  /** Where the time limit cut the sequence, when it did. */
  readonly timeLimit?: TimeLimitStop;
  /** Every step of every run the case made, for the coverage. */
  readonly heard: readonly StepResult[];
  readonly durationMs: number;
}

/** The commands of a sequence's steps, in order, each under a comment naming it. */
function reproduction(steps: readonly StepResult[], labels: readonly string[]): string {
  return steps
    .map((s) => `# step ${s.index + 1}: ${labels[s.index] ?? ""} (${s.operation})\n${s.curl ?? "(not reproducible)"}`)
    .join("\n");
}

/**
 * The case of a sequence. One with a finding (or an error) keeps every step's evidence and the whole
 * sequence as commands; a passing one keeps each step's method, URL, status and notes.
 */
export function sequenceCase(report: SequenceReport): CaseResult {
  const findings = report.steps.flatMap((s) => s.findings);
  const failing = findings.some((f) => f.severity !== "note" && !f.known) || report.error !== undefined;
  const steps = failing
    ? report.steps
    : report.steps.map((s) => ({
        ...s,
        request: { method: s.request.method, url: s.request.url },
        response: s.response && { status: s.response.status },
        curl: undefined,
      }));
  return {
    fixture: report.caseId,
    description: report.description,
    file: "(generated)",
    operation: report.operation,
    outcome: caseOutcome(report.error, findings),
    steps,
    error: report.error,
    ...(report.timeLimit === undefined ? {} : { timeLimit: report.timeLimit }),
    durationMs: report.durationMs,
    answers: report.heard.flatMap((s) =>
      s.response === undefined
        ? []
        : [{ operation: s.operation, status: s.response.status, parameters: s.request.parameters }],
    ),
    sequence: {
      ...report.record,
      steps: report.steps.map((s) => report.labels[s.index] ?? s.operation),
      ...(failing ? { reproduction: reproduction(report.steps, report.labels) } : {}),
    },
  };
}
