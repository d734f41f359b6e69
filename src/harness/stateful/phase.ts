// The stateful phase of a generated run: for each resource the model finds, sequences of requests
// (steps.ts) whose answers are compared with each other (checks.ts). Each step is
// sent and judged by the contract as any case's step, the stateful checks judging it too; a failing
// sequence is shrunk (shrink.ts) and reported as its shortest reproduction.
import { randomBytes } from "node:crypto";
import { Random } from "../fresh.js";
import { NOT_RUN_ERROR, NOT_SENT_ERROR, type CaseResult, type ReportedFinding, type StepResult } from "../results.js";
import { statefulFindings } from "./checks.js";
import type { StatefulTarget } from "./plan.js";
import { shrinkSequence, STATEFUL_BUDGET } from "./shrink.js";
import { doneStep, newState, recordStep, type SequenceRun, type StepSpec } from "./state.js";
import { sequenceSteps, stepLabel, stepRequest } from "./steps.js";
import type { IdKind, SequenceValues } from "./values.js";
import { sendStep, sequenceCase, type StatefulEnv } from "./send.js";
import { linkCase, type LinkChain } from "./links.js";

export type { StatefulEnv } from "./send.js";

/** The first stateful finding of a run that fails its level (a warning, not known to the baseline). */
export function statefulFailure(run: SequenceRun): ReportedFinding | undefined {
  return run.steps
    .flatMap((s) => s.findings)
    .find((f) => f.level === "stateful" && f.severity === "warning" && !f.known);
}

/** Runs the steps of one sequence in order, each step's stateful findings judged with its contract ones. */
export async function runSequence(
  env: StatefulEnv,
  target: StatefulTarget,
  specs: readonly StepSpec[],
  values: SequenceValues,
): Promise<SequenceRun> {
  const state = newState(target);
  // Ids and filter texts are fresh for every run, outside the seed: a sequence replayed with the same
  // seed against the same server must not collide with the items it made the first time.
  const random = new Random(BigInt(`0x${randomBytes(8).toString("hex")}`));
  const steps: StepResult[] = [];
  const run = (error: string | undefined, stopped: boolean): SequenceRun => ({
    specs,
    values,
    steps,
    state,
    error,
    stopped,
  });
  const context = { state, specSource: env.specSource };
  for (const spec of specs) {
    if (Date.now() >= env.deadline) return run(undefined, true);
    const request = stepRequest({ contract: env.contract, state, values, random }, spec);
    if (request === undefined) continue;
    const index = state.done.length;
    const label = stepLabel(target, spec);
    const sent = await sendStep(env, target.caseId, label, request, random, (observed) => {
      const done = doneStep(spec, index, label, observed);
      const findings = statefulFindings(context, done);
      state.done.push(done);
      recordStep(state, done);
      return findings;
    });
    if ("refused" in sent) {
      state.notes.push(sent.refused);
      continue;
    }
    steps.push(...sent.result.steps.map((s) => ({ ...s, index })));
    if (sent.result.error !== undefined) return run(sent.result.error, false);
    if (state.done.length === index) return run(undefined, false);
  }
  return run(undefined, false);
}

/** The values of the sequences a resource gets: the plainest bodies with ids beyond 2^53, then drawn ones. */
function sequenceValues(seed: bigint, target: StatefulTarget): SequenceValues[] {
  const base = Number(BigInt.asUintN(31, seed ^ BigInt(target.caseId.length)));
  const ids = (a: IdKind, b: IdKind) => ({ A: a, B: b });
  return [
    { drawn: false, ids: ids("big", "near"), seed: base },
    { drawn: true, ids: ids("ordinary", "ordinary"), seed: base + 1 },
    { drawn: true, ids: ids("big", "near"), seed: base + 2 },
  ].slice(0, STATEFUL_BUDGET.sequences);
}

/**
 * The stateful case of a resource: its sequences in turn until one fails; a stateful failure is shrunk
 * to the fewest steps and plainest values that still fail, and reported as that sequence.
 */
export async function statefulCase(env: StatefulEnv, target: StatefulTarget): Promise<CaseResult> {
  const started = performance.now();
  const specs = sequenceSteps(target);
  const runs: SequenceRun[] = [];
  for (const values of sequenceValues(env.seed, target)) {
    const run = await runSequence(env, target, specs, values);
    runs.push(run);
    const failure = statefulFailure(run);
    if (run.error !== undefined || run.stopped) return caseOf(target, run, runs, started);
    if (failure !== undefined) {
      const shrunk = await shrinkSequence((s, v) => runSequence(env, target, s, v), run, failure.check, env.deadline);
      runs.push(...shrunk.runs);
      return caseOf(target, shrunk.best, runs, started, { fromSteps: run.state.done.length, runs: shrunk.runs.length });
    }
    if (run.steps.some((s) => s.findings.some((f) => f.counts))) return caseOf(target, run, runs, started);
  }
  return caseOf(target, runs[0]!, runs, started);
}

function caseOf(
  target: StatefulTarget,
  run: SequenceRun,
  runs: readonly SequenceRun[],
  started: number,
  shrinking?: { fromSteps: number; runs: number },
): CaseResult {
  const timeLimit = run.error === undefined && run.stopped ? "during-case" : undefined;
  const error =
    run.error ??
    (timeLimit === undefined
      ? undefined
      : "not judged: the run stopped at its time limit (--max-time) during this sequence");
  const labels = run.state.done.map((d) => d.label);
  const what = `${target.resource.collectionPath}: ${labels.join(" -> ")}`;
  return sequenceCase({
    caseId: target.caseId,
    operation: target.ops.create.operationId,
    description:
      shrinking === undefined
        ? `${runs.length} sequence${runs.length === 1 ? "" : "s"} on ${what}`
        : `the shortest failing sequence (${labels.length} of ${shrinking.fromSteps} steps, after ${shrinking.runs} shrinking runs) on ${what}`,
    steps: run.steps,
    labels,
    record: {
      resource: target.resource.collectionPath,
      ...(shrinking === undefined ? {} : { shrinking: { ...shrinking, plainValues: !run.values.drawn } }),
      notes: [...new Set(run.state.notes)],
    },
    error,
    timeLimit,
    heard: runs.flatMap((r) => r.steps),
    durationMs: performance.now() - started,
  });
}

/** The stateful cases of a run, one resource at a time, each given to `onCase` as it finishes; those the time limit left are said so. */
export async function runStatefulCases(
  env: StatefulEnv,
  targets: readonly StatefulTarget[],
  chains: readonly LinkChain[],
  onCase: (result: CaseResult) => void = () => {},
): Promise<{ results: CaseResult[]; stopped: boolean }> {
  const results: CaseResult[] = [];
  const finished = (result: CaseResult): void => {
    results.push(result);
    onCase(result);
  };
  let stopped = false;
  const cases = [
    ...targets.map((t) => ({ id: t.caseId, operation: t.ops.create.operationId, run: () => statefulCase(env, t) })),
    ...chains.map((c) => ({ id: c.caseId, operation: c.start.operationId, run: () => linkCase(env, c) })),
  ];
  for (const c of cases) {
    if (env.gone?.() === true) {
      finished(notSent(c.id, c.operation));
      continue;
    }
    if (stopped || Date.now() >= env.deadline) {
      stopped = true;
      finished(notRun(c.id, c.operation));
      continue;
    }
    const result = await c.run();
    if (result.timeLimit !== undefined) stopped = true;
    finished(result);
  }
  return { results, stopped };
}

function notSent(fixture: string, operation: string): CaseResult {
  return { ...notRun(fixture, operation), error: NOT_SENT_ERROR, timeLimit: undefined, held: "not-sent" };
}

function notRun(fixture: string, operation: string): CaseResult {
  return {
    fixture,
    description: "a stateful sequence",
    file: "(generated)",
    operation,
    outcome: "error",
    steps: [],
    error: NOT_RUN_ERROR,
    timeLimit: "before-case",
    durationMs: 0,
  };
}
