import type { CaseResult, RunSummary } from "../results.js";
import { caseLevelOutcomes } from "../outcome.js";

/** The one JSON report writer, of the run's reports and the proxy's: the tool, format 1, then the body. */
export function jsonDocument(tool: string, body: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({ tool, format: 1, ...body }, null, 2) + "\n";
}

/** The JSON report: the summary and every case with its steps, findings and outcome at each level run. */
export function jsonReport(summary: RunSummary, results: readonly CaseResult[]): string {
  const levels = summary.levels.map((l) => l.level);
  const cases = results.map((r) => ({ ...r, levels: caseLevelOutcomes(r, levels) }));
  return jsonDocument("plantstore-kit conformance", { summary, results: cases });
}

/** The JSON report of a run that could not start: the error's code and message instead of results. */
export function jsonErrorReport(error: { readonly code: string; readonly message: string }): string {
  return jsonDocument("plantstore-kit conformance", { error: { code: error.code, message: error.message } });
}
