import { count } from "../../words.js";
import type { CaseResult } from "../results.js";

/** The failing and unjudged cases a report lists one by one, and those it counts together. */
export interface HeldApart {
  readonly each: readonly CaseResult[];
  /** Cases nothing of which was sent: the target had stopped answering. */
  readonly notSent: number;
  /** Cases in flight when the target stopped, other than the one it stopped during. */
  readonly cutOff: readonly string[];
  /** Cases the time limit (--max-time) left before they began. */
  readonly notRun: number;
}

/** Splits cases that were held back as a group (a stopped target, the time limit) from the rest. */
export function heldApart(cases: readonly CaseResult[]): HeldApart {
  return {
    each: cases.filter((r) => r.held === undefined && r.timeLimit !== "before-case"),
    notSent: cases.filter((r) => r.held === "not-sent").length,
    cutOff: cases.filter((r) => r.held === "cut-off").map((r) => r.fixture),
    notRun: cases.filter((r) => r.held === undefined && r.timeLimit === "before-case").length,
  };
}

/** One line for each group of held cases: `not sent: 37 cases (the target had stopped answering)`. */
export function heldLines(h: HeldApart): string[] {
  const lines: string[] = [];
  if (h.cutOff.length > 0) {
    const names = h.cutOff.slice(0, 5).join(", ") + (h.cutOff.length > 5 ? ` and ${h.cutOff.length - 5} more` : "");
    lines.push(`cut off: ${count(h.cutOff.length, "case")} in flight when the target stopped (${names})`);
  }
  if (h.notSent > 0) lines.push(`not sent: ${count(h.notSent, "case")} (the target had stopped answering)`);
  if (h.notRun > 0) lines.push(`not run: ${count(h.notRun, "case")} (the run stopped at its time limit, --max-time)`);
  return lines;
}
