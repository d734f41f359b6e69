// What the stateful checks share: the context they read, the evidence they quote (both steps), the
// finding they make (a warning of the level stateful, or a note), and which values read back differ
// from the values written, by the check each difference breaks.
import { finding, type Finding } from "../checks.js";
import { isEmptyValue, sameValue } from "./compare.js";
import type { StatefulCheckId } from "../stateful-check-ids.js";
import type { DoneStep, Expected, ItemState, SequenceState } from "./state.js";

/** What the checks of a step read besides the step: the sequence so far and where rules point. */
export interface StatefulContext {
  readonly state: SequenceState;
  /** The spec's location, to prefix JSON pointers in rules. */
  readonly specSource: string;
}

/** A 2xx status. */
export const success = (s: number | undefined): boolean => s !== undefined && s >= 200 && s < 300;
/** The statuses of an item that is not there (RFC 9110 sections 15.5.5 and 15.5.11). */
export const gone = (s: number | undefined): boolean => s === 404 || s === 410;

/** `step 3 (read A: getPlant)` */
export const stepName = (step: DoneStep): string =>
  `step ${step.index + 1} (${step.label}: ${step.observed.operation.operationId})`;
/** The step that made an item: `step 1 (create A)`. */
export const madeName = (c: StatefulContext, x: ItemState): string =>
  `step ${x.madeAt! + 1} (${c.state.done[x.madeAt!]?.label ?? `create ${x.name}`})`;

/** The answer of a step as evidence: status and the start of its body. */
export function answered(step: DoneStep): string {
  const r = step.observed.result;
  if (!r.ok) return `${stepName(step)}: no answer`;
  const text = r.response.body.toString("utf8");
  return `${stepName(step)} answered ${r.response.status}${text === "" ? "" : `: ${text.length > 300 ? `${text.slice(0, 300)}...` : text}`}`;
}

export const rule = (c: StatefulContext, step: DoneStep): string =>
  `${c.specSource}#${step.observed.operation.pointer}`;

/** A finding of the level stateful, of the given severity, on the step that showed it. */
const ofSeverity =
  (severity: "warning" | "note") =>
  (id: StatefulCheckId, c: StatefulContext, step: DoneStep, message: string, expected: string): Finding =>
    finding({
      check: id,
      severity,
      message,
      expected,
      received: answered(step),
      rule: rule(c, step),
      level: "stateful",
    });

export const stateful = ofSeverity("warning");
export const note = ofSeverity("note");

/**
 * A finding that rests on which property is the id: a note when the model guessed it (the guess may
 * name another property, whose values then say nothing of the items).
 */
export function onId(
  id: StatefulCheckId,
  c: StatefulContext,
  step: DoneStep,
  message: string,
  expected: string,
): Finding {
  const guessed = c.state.target.id;
  if (!guessed.guessed) return stateful(id, c, step, message, expected);
  return note(id, c, step, `${message} (by ${guessed.name}, the id the resource model guessed)`, expected);
}

/** The check a difference breaks, by what wrote the value. */
const CHECK_OF: Readonly<Record<Expected["how"], StatefulCheckId>> = {
  create: "stateful.read-back",
  replace: "stateful.update-visible",
  patch: "stateful.update-visible",
  kept: "stateful.patch-keeps-unsent",
};

/** The properties whose value read is another than the one written, by check. */
export function differences(
  x: ItemState,
  item: Record<string, unknown>,
): Map<StatefulCheckId, { name: string; e: Expected; read: unknown }[]> {
  const out = new Map<StatefulCheckId, { name: string; e: Expected; read: unknown }[]>();
  for (const [name, e] of x.expected) {
    const has = Object.prototype.hasOwnProperty.call(item, name);
    if (has ? sameValue(e.value, item[name]) : isEmptyValue(e.value) || e.value === null) continue;
    const check = CHECK_OF[e.how];
    out.set(check, [...(out.get(check) ?? []), { name, e, read: has ? item[name] : undefined }]);
  }
  return out;
}
