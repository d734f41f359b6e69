import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/temp-dir.js";
import { KitError } from "../../errors.js";
import type { RunEvent, RunSummary } from "../results.js";
import { REPORT_FORMATS, reportFiles, reporters, writeErrorReports } from "./files.js";

// A summary with what the writers read of it; the writers themselves are tested in their own files.
const summary = {
  levels: [],
  coverage: {
    operations: { total: 0, exercised: 0, notExercised: [] },
    statuses: { total: 0, exercised: 0, notExercised: [] },
    parameters: { total: 0, exercised: 0, notExercised: [] },
  },
  staleBaseline: [],
  startedAt: "2026-11-24T00:00:00.000Z",
  target: "http://t",
  spec: "spec.yaml",
  seed: "1",
  total: 0,
  exitCode: 0,
  durationMs: 0,
} as unknown as RunSummary;

describe("report files: writers looked up by format name, written by a reporter of the run's events", () => {
  it("has one writer of a finished run and one of a run that could not start for each format", () => {
    expect(Object.keys(REPORT_FORMATS)).toEqual(["json", "junit", "markdown", "html"]);
    for (const format of Object.values(REPORT_FORMATS)) {
      expect(format.finished(summary, [])).not.toBe("");
      expect(format.couldNotStart({ code: "PS_USAGE", message: "m" })).toContain("PS_USAGE");
    }
  });

  it("writes each file when the run finishes, not before, after the reporters before it", () => {
    const dir = tempDir("plantstore-files-");
    const files = (["json", "junit", "markdown", "html"] as const).map((format) => ({
      format,
      file: join(dir, `r.${format}`),
    }));
    const seen: string[] = [];
    const report = reporters<RunEvent>(
      (e) => seen.push(`${e.type}: ${existsSync(files[0]!.file)}`),
      reportFiles(files),
      (e) => seen.push(`${e.type} after: ${existsSync(files[0]!.file)}`),
    );
    report({ type: "run-started", target: "http://t", spec: "spec.yaml", seed: "1", total: 0, preflight: [] });
    expect(files.some((f) => existsSync(f.file))).toBe(false);
    report({ type: "run-finished", summary, results: [] });
    for (const f of files) expect(readFileSync(f.file, "utf8")).toBe(REPORT_FORMATS[f.format].finished(summary, []));
    expect(seen).toEqual([
      "run-started: false",
      "run-started after: false",
      "run-finished: false",
      "run-finished after: true",
    ]);
  });

  it("writes the report of a run that could not start in each format", () => {
    const dir = tempDir("plantstore-files-");
    const error = new KitError("PS_TARGET_UNREACHABLE", "http://t");
    writeErrorReports([{ format: "markdown", file: join(dir, "r.md") }], error);
    expect(readFileSync(join(dir, "r.md"), "utf8")).toBe(REPORT_FORMATS.markdown.couldNotStart(error));
  });
});
