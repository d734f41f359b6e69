import type { Verdict } from "./outcome.js";

// Conformance levels: named sets of rules, each with its own verdict. `contract` is what the
// contract states and always runs; the others go beyond it and run when asked for (--level NAME),
// all of them with --strict.

export const LEVELS = [
  "contract",
  "accepts-all-valid",
  "rejects-all-invalid",
  "http-rfc",
  "documented-statuses",
  "stateful",
] as const;
export type Level = (typeof LEVELS)[number];

/** One sentence per level, for --help, reports and the README. */
export const LEVEL_SUMMARIES: Readonly<Record<Level, string>> = {
  contract: "what the contract states: documented answers valid by their schemas, invalid requests refused",
  "accepts-all-valid": "every value the schema allows is accepted where the contract shows no further constraint",
  "rejects-all-invalid": "requests the contract does not describe (another media type, a body not UTF-8) are refused",
  "http-rfc": "HTTP's own rules: WWW-Authenticate on a 401, auth schemes matched without case",
  "documented-statuses": "every answer has a status its operation documents (OpenAPI allows undocumented ones)",
  stateful:
    "answers agree across a sequence: what is made can be read back as written, updates and deletes take effect, a list holds what is made, once, and no more than its limit",
};

/** The levels a run judges: `contract` always, then those asked for, in LEVELS order; --strict asks for all. */
export function levelsToRun(asked: readonly string[] = [], strict = false): Level[] {
  const unknown = asked.filter((a) => !(LEVELS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    throw new RangeError(`unknown level ${unknown.map((u) => `"${u}"`).join(", ")}: one of ${LEVELS.join(", ")}`);
  }
  return LEVELS.filter((l) => l === "contract" || strict || asked.includes(l));
}

/** The verdict of one level over a run. */
export interface LevelVerdict {
  readonly level: Level;
  /** error: the run (or a case) could not be judged; fail: a case broke a rule of this level. */
  readonly verdict: Verdict;
  /** Ids of the cases that broke a rule of this level (findings the baseline lists are not counted). */
  readonly failedCases: readonly string[];
}
