import { accessSync, constants, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { KitError } from "../../errors.js";
import type { CaseResult, RunSummary } from "../results.js";
import { htmlErrorReport, htmlReport } from "./html.js";
import { jsonErrorReport, jsonReport } from "./json.js";
import { junitErrorReport, junitReport } from "./junit.js";
import { markdownErrorReport, markdownReport } from "./markdown.js";

/** A report to write: its format and its file. */
export interface ReportFile {
  readonly format: "json" | "junit" | "markdown" | "html";
  readonly file: string;
}

/** Writes a whole file or nothing: a temporary file renamed into place. */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (error) {
    throw new KitError("PS_REPORT_UNWRITABLE", `${file}: ${(error as Error).message}`);
  }
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
  for (const r of reports) {
    const text =
      r.format === "json"
        ? jsonReport(summary, results)
        : r.format === "junit"
          ? junitReport(summary, results)
          : r.format === "markdown"
            ? markdownReport(summary, results)
            : htmlReport(summary, results);
    writeFileAtomic(r.file, text);
  }
}

/**
 * Writes each report of a run that could not start: it says why, with the error's code. The message
 * is the one the CLI prints: the kit's errors never quote a credential (the target is shown masked).
 */
export function writeErrorReports(reports: readonly ReportFile[], error: KitError): void {
  for (const r of reports) {
    const text =
      r.format === "json"
        ? jsonErrorReport(error)
        : r.format === "junit"
          ? junitErrorReport(error)
          : r.format === "markdown"
            ? markdownErrorReport(error)
            : htmlErrorReport(error);
    writeFileAtomic(r.file, text);
  }
}
