import type { CaseResult, RunSummary } from "../results.js";

/** The JSON report: the summary and every case with its steps and findings. */
export function jsonReport(summary: RunSummary, results: readonly CaseResult[]): string {
  return JSON.stringify({ tool: "plantstore-kit conformance", format: 1, summary, results }, null, 2) + "\n";
}
