import { accessSync, constants } from "node:fs";
import { dirname } from "node:path";
import { KitError } from "../../errors.js";
import type { CaseResult, RunEvent, RunSummary } from "../results.js";
import { writeFileAtomic } from "../write-file.js";
import { htmlErrorReport, htmlReport } from "./html.js";
import { jsonErrorReport, jsonReport } from "./json.js";
import { junitErrorReport, junitReport } from "./junit.js";
import { markdownErrorReport, markdownReport } from "./markdown.js";

// Reporters are consumers of events, as vitest's are: the console's prints each event as it comes;
// a file's writes its report when the run (or the proxy session) finishes. Which file is written in
// which format is looked up in a map from format name to writer, so a new format is one file (its
// writers) and one line in the map.

/** A consumer of a run's (or a proxy session's) events. */
export type Reporter<E> = (event: E) => void;

/** Several reporters as one: each event goes to each, in the order given. */
export function reporters<E>(...list: readonly Reporter<E>[]): Reporter<E> {
  return (event) => {
    for (const reporter of list) reporter(event);
  };
}

/** A report format of a run: the text of a finished run's file, and of a run that could not start. */
export interface ReportFormat {
  readonly finished: (summary: RunSummary, results: readonly CaseResult[]) => string;
  readonly couldNotStart: (error: { readonly code: string; readonly message: string }) => string;
}

/** The run's report formats, by the name `--report NAME=FILE` gives. */
export const REPORT_FORMATS = {
  json: { finished: jsonReport, couldNotStart: jsonErrorReport },
  junit: { finished: junitReport, couldNotStart: junitErrorReport },
  markdown: { finished: markdownReport, couldNotStart: markdownErrorReport },
  html: { finished: htmlReport, couldNotStart: htmlErrorReport },
} as const satisfies Readonly<Record<string, ReportFormat>>;

export type ReportFormatName = keyof typeof REPORT_FORMATS;

/** A report to write: its format and its file. */
export interface ReportFile<F extends string = ReportFormatName> {
  readonly format: F;
  readonly file: string;
}

/** Checks that each file's folder exists and is writable; run first, so a typo cannot cost a run's results. */
export function checkWritable(files: readonly string[]): void {
  for (const file of files) {
    try {
      accessSync(dirname(file), constants.W_OK);
    } catch {
      const why = `the folder ${dirname(file)} does not exist or is not writable`;
      throw new KitError("PS_REPORT_UNWRITABLE", `${file}: ${why}`);
    }
  }
}

/**
 * Writes each report of a finished run. Its evidence was masked where it was made (runConformance's
 * results carry no secret), and the text is written as it is: a pass over the whole file would mask
 * a short or common-word token inside fixture ids, check ids, paths and variable names too.
 */
export function writeReports(
  reports: readonly ReportFile[],
  summary: RunSummary,
  results: readonly CaseResult[],
): void {
  for (const r of reports) writeFileAtomic(r.file, REPORT_FORMATS[r.format].finished(summary, results));
}

/** The reporter that writes each report file when the run finishes (see writeReports). */
export function reportFiles(reports: readonly ReportFile[]): Reporter<RunEvent> {
  return (event) => {
    if (event.type === "run-finished") writeReports(reports, event.summary, event.results);
  };
}

/**
 * Writes each report of a run that could not start: it says why, with the error's code. The message
 * is the one the CLI prints: the kit's errors never quote a credential (the target is shown masked).
 */
export function writeErrorReports(reports: readonly ReportFile[], error: KitError): void {
  for (const r of reports) writeFileAtomic(r.file, REPORT_FORMATS[r.format].couldNotStart(error));
}
