import type { Level } from "./levels.js";
import type { CaseResult, Outcome, ReportedFinding } from "./results.js";

// A case's outcome from its findings: overall, and by the rules of each level. Reporters read it too,
// so it depends on nothing but the result types.

/** A case's outcome: an error when it could not be judged, else fail, known or pass by its findings. */
export function caseOutcome(error: string | undefined, findings: readonly ReportedFinding[]): Outcome {
  if (error !== undefined) return "error";
  if (findings.some((f) => f.counts)) return "fail";
  return findings.some((f) => f.known && f.severity !== "note") ? "known" : "pass";
}

/** A case's outcome by the rules of one level alone. */
export function caseLevelOutcome(result: CaseResult, level: Level): Outcome {
  const findings = result.steps.flatMap((s) => s.findings).filter((f) => f.level === level);
  return caseOutcome(result.error, findings);
}

/** A case's outcome at each of the given levels, by name. */
export function caseLevelOutcomes(result: CaseResult, levels: readonly Level[]): Partial<Record<Level, Outcome>> {
  return Object.fromEntries(levels.map((l) => [l, caseLevelOutcome(result, l)]));
}
