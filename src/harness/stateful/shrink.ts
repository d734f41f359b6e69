// Shrinking a failing sequence: the steps after the failing one go, then each step before it that the
// failure does not need, then drawn values become the plainest ones and ids beyond 2^53 ordinary
// ones, each change kept only when a new run of the smaller sequence fails the same check again. The
// reported sequence is the last run that failed: a real exchange, never a guess. Budgeted by runs.
import type { CheckId } from "../checks.js";
import type { SequenceRun, StepSpec } from "./state.js";
import type { SequenceValues } from "./values.js";

/** Sequences per resource when none fails, and runs a failing one may take to shrink. */
export const STATEFUL_BUDGET = { sequences: 3, shrinkRuns: 24 } as const;

type Rerun = (specs: readonly StepSpec[], values: SequenceValues) => Promise<SequenceRun>;

/** Whether a run fails `check` at its level (a warning, not known), having run to its end. */
function fails(run: SequenceRun, check: CheckId): boolean {
  return (
    run.error === undefined &&
    !run.stopped &&
    run.steps.some((s) => s.findings.some((f) => f.check === check && f.severity === "warning" && !f.known))
  );
}

/** Where in its specs a run first fails `check`. */
function failingPosition(run: SequenceRun, check: CheckId): number {
  const step = run.steps.find((s) => s.findings.some((f) => f.check === check && f.severity === "warning"));
  const spec = step === undefined ? undefined : run.state.done[step.index]?.spec;
  return spec === undefined ? run.specs.length - 1 : run.specs.indexOf(spec);
}

/** The shortest, plainest sequence found that still fails `check`, and every run shrinking took. */
export async function shrinkSequence(
  rerun: Rerun,
  failed: SequenceRun,
  check: CheckId,
  deadline: number,
): Promise<{ best: SequenceRun; runs: SequenceRun[] }> {
  let best = failed;
  const runs: SequenceRun[] = [];
  const attempt = async (specs: readonly StepSpec[], values: SequenceValues): Promise<boolean> => {
    if (runs.length >= STATEFUL_BUDGET.shrinkRuns || Date.now() >= deadline) return false;
    const run = await rerun(specs, values);
    runs.push(run);
    if (!fails(run, check)) return false;
    best = run;
    return true;
  };
  const end = failingPosition(best, check);
  if (end < best.specs.length - 1) await attempt(best.specs.slice(0, end + 1), best.values);
  for (let i = failingPosition(best, check) - 1; i >= 0; i--) {
    const position = failingPosition(best, check);
    // A parent is what makes a nested collection's list the sequence's own: it stays.
    if (i >= position || best.specs[i]?.kind === "parent") continue;
    await attempt(
      best.specs.filter((_, j) => j !== i),
      best.values,
    );
  }
  if (best.values.drawn) await attempt(best.specs, { ...best.values, drawn: false });
  if (best.values.ids.A !== "ordinary" || best.values.ids.B !== "ordinary")
    await attempt(best.specs, { ...best.values, ids: { A: "ordinary", B: "ordinary" } });
  return { best, runs };
}
