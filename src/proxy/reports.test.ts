import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/temp-dir.js";
import { PROXY_REPORT_FORMATS, proxyJsonReport, proxyReportFiles } from "./reports.js";
import { summariseExchanges } from "./summary.js";
import type { ExchangeRecord } from "./types.js";

const run = {
  target: "http://upstream",
  url: "http://proxy",
  spec: "spec.yaml",
  stoppedBy: "stop",
  levels: ["contract"],
  failOnClient: false,
  durationMs: 5,
} as const;

const unjudged: ExchangeRecord = {
  index: 1,
  startedAt: "2026-11-24T00:00:00.000Z",
  method: "GET",
  path: "/nowhere",
  operation: undefined,
  status: 502,
  answeredBy: "proxy",
  durationMs: 1,
  requestBytes: 0,
  responseBytes: 0,
  client: "fail",
  server: "error",
  notJudged: { kind: "no-operation", message: "no operation" },
  findings: [],
  curl: undefined,
};

describe("the proxy's reports", () => {
  it('JSON, format 1: a side that could not be judged (the outcome error) is written "not-judged"', () => {
    const summary = summariseExchanges([unjudged], run);
    const report = JSON.parse(proxyJsonReport(summary, [unjudged]));
    expect(report.exchanges[0]).toMatchObject({ client: "fail", server: "not-judged" });
    expect(report.summary).toMatchObject({ judged: 0, notJudged: 1, exitCode: 2 });
  });

  it("are written by a reporter of the proxy's events when it stops, each saying so", () => {
    const dir = tempDir("plantstore-proxy-reports-");
    const reports = [
      { format: "json", file: join(dir, "p.json") },
      { format: "junit", file: join(dir, "p.xml") },
    ] as const;
    const lines: string[] = [];
    const report = proxyReportFiles(reports, (line) => lines.push(line));
    report({ type: "proxy-started", url: run.url, target: run.target, spec: run.spec });
    expect(lines).toEqual([]);
    const summary = summariseExchanges([], run);
    report({ type: "proxy-stopped", summary, exchanges: [] });
    expect(lines).toEqual([`json report written to ${reports[0].file}`, `junit report written to ${reports[1].file}`]);
    for (const r of reports) expect(readFileSync(r.file, "utf8")).toBe(PROXY_REPORT_FORMATS[r.format](summary, []));
  });
});
