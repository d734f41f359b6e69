import type { CaseResult, RunSummary } from "../results.js";
import { caseLevelOutcomes } from "../outcome.js";

/** The JSON report: the summary and every case with its steps, findings and outcome at each level run. */
export function jsonReport(summary: RunSummary, results: readonly CaseResult[]): string {
  const levels = summary.levels.map((l) => l.level);
  const cases = results.map((r) => ({ ...r, levels: caseLevelOutcomes(r, levels) }));
  return JSON.stringify({ tool: "plantstore-kit conformance", format: 1, summary, results: cases }, null, 2) + "\n";
}

/** The JSON report of a run that could not start: the error's code and message instead of results. */
export function jsonErrorReport(error: { readonly code: string; readonly message: string }): string {
  const report = { tool: "plantstore-kit conformance", format: 1, error: { code: error.code, message: error.message } };
  return JSON.stringify(report, null, 2) + "\n";
}
