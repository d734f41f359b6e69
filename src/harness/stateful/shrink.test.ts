import { describe, expect, it } from "vitest";
import type { ReportedFinding, StepResult } from "../results.js";
import { shrinkSequence, STATEFUL_BUDGET } from "./shrink.js";
import type { DoneStep, SequenceRun, SequenceState, StepSpec } from "./state.js";
import type { SequenceValues } from "./values.js";

// A store whose delete does nothing, simulated: a sequence fails stateful.delete-effective at the
// first read of A after a delete of A, when A was made before. Shrinking must find that alone.
const spec = (kind: "create" | "read" | "delete" | "replace", item: "A" | "B" = "A"): StepSpec => ({ kind, item });
const FULL: StepSpec[] = [
  spec("create"),
  spec("read"),
  spec("create", "B"),
  spec("replace"),
  spec("read", "B"),
  spec("delete"),
  spec("read", "B"),
  spec("read"),
  spec("delete", "B"),
];
const DRAWN: SequenceValues = { drawn: true, ids: { A: "big", B: "near" }, seed: 1 };

const failure: ReportedFinding = {
  check: "stateful.delete-effective",
  severity: "warning",
  level: "stateful",
  message: "A is still there",
  expected: "404",
  received: "200",
  rule: "x",
  known: false,
  counts: true,
};

function simulate(specs: readonly StepSpec[], values: SequenceValues, failsWhenDrawn = false): SequenceRun {
  const done: DoneStep[] = [];
  const steps: StepResult[] = [];
  let made = false;
  let deleted = false;
  specs.forEach((s, index) => {
    done.push({ spec: s, index } as unknown as DoneStep);
    const fails = s.kind === "read" && s.item === "A" && made && deleted && (!failsWhenDrawn || values.drawn);
    if (s.kind === "create" && s.item === "A") made = true;
    if (s.kind === "delete" && s.item === "A") deleted = made;
    steps.push({ index, operation: s.kind, findings: fails ? [failure] : [] } as unknown as StepResult);
  });
  const state = { done, notes: [] } as unknown as SequenceState;
  return { specs, values, steps, state, error: undefined, stopped: false };
}

describe("shrinkSequence", () => {
  it("keeps only the steps the failure needs, and the plainest values and ordinary ids", async () => {
    const runs: SequenceRun[] = [];
    const rerun = async (s: readonly StepSpec[], v: SequenceValues) => {
      const r = simulate(s, v);
      runs.push(r);
      return r;
    };
    const { best } = await shrinkSequence(rerun, simulate(FULL, DRAWN), "stateful.delete-effective", Infinity);
    expect(best.specs).toEqual([spec("create"), spec("delete"), spec("read")]);
    expect(best.values).toEqual({ drawn: false, ids: { A: "ordinary", B: "ordinary" }, seed: 1 });
    expect(runs.length).toBeLessThanOrEqual(STATEFUL_BUDGET.shrinkRuns);
  });

  it("keeps drawn values when only they fail, and reports a run that really failed", async () => {
    const rerun = async (s: readonly StepSpec[], v: SequenceValues) => simulate(s, v, true);
    const { best } = await shrinkSequence(rerun, simulate(FULL, DRAWN, true), "stateful.delete-effective", Infinity);
    expect(best.values.drawn).toBe(true);
    expect(best.steps.some((s) => s.findings.includes(failure))).toBe(true);
  });

  it("stops at the time limit with what it had", async () => {
    const first = simulate(FULL, DRAWN);
    const { best, runs } = await shrinkSequence(async () => first, first, "stateful.delete-effective", 0);
    expect(runs).toEqual([]);
    expect(best).toBe(first);
  });
});
