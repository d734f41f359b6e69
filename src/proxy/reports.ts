import { shortPath } from "../paths.js";
import { count } from "../words.js";
import { visible } from "../harness/reporters/index.js";
import { verdictLine, type Verdict } from "../harness/outcome.js";
import { jsonDocument } from "../harness/reporters/index.js";
import { junitXml, type JUnitCase } from "../harness/reporters/index.js";
import type { ExchangeRecord, ProxyEvent, ProxyFinding, ProxySummary } from "./types.js";
import type { ReportFile, Reporter } from "../harness/reporters/index.js";
import { writeFileAtomic } from "../harness/write-file.js";

/** The JSON report: the summary and every exchange with its findings. */
export function proxyJsonReport(summary: ProxySummary, exchanges: readonly ExchangeRecord[]): string {
  // Format 1 writes a side that could not be judged as "not-judged", as it always has.
  const written = exchanges.map((e) => ({ ...e, client: sideWord(e.client), server: sideWord(e.server) }));
  return jsonDocument("plantstore-kit proxy", { summary, exchanges: written });
}

const sideWord = (v: Verdict): string => (v === "error" ? NOT_JUDGED : v);

/** Exchanges grouped by what they did: operation (or method and path), and status (or why none came). */
function groups(
  exchanges: readonly ExchangeRecord[],
): Map<string, { classname: string; name: string; list: ExchangeRecord[] }> {
  const out = new Map<string, { classname: string; name: string; list: ExchangeRecord[] }>();
  for (const e of exchanges) {
    const what = e.operation ?? `${e.method} ${e.path.split("?")[0]}`;
    const result =
      e.status === undefined ? "no answer" : e.answeredBy === "proxy" ? `${e.status} from the proxy` : String(e.status);
    const key = `${what}\u0000${result}`;
    let g = out.get(key);
    if (g === undefined) {
      g = { classname: e.operation ?? "not in the contract", name: `${what} -> ${result}`, list: [] };
      out.set(key, g);
    }
    g.list.push(e);
  }
  return out;
}

/** Distinct findings of a list of exchanges, each with how often it occurred and its first exchange. */
function distinct(
  list: readonly ExchangeRecord[],
  keep: (f: ProxyFinding) => boolean,
): { f: ProxyFinding; count: number; first: ExchangeRecord }[] {
  const seen = new Map<string, { f: ProxyFinding; count: number; first: ExchangeRecord }>();
  for (const e of list) {
    for (const f of e.findings.filter(keep)) {
      const key = `${f.side}\u0000${f.check}\u0000${f.message}`;
      const entry = seen.get(key);
      if (entry === undefined) seen.set(key, { f, count: 1, first: e });
      else entry.count++;
    }
  }
  return [...seen.values()];
}

function detail(items: ReturnType<typeof distinct>): string {
  return items
    .map(({ f, count, first }) => {
      const times = count === 1 ? "" : ` (${count} times)`;
      const curl = first.curl === undefined ? "" : `\nreproduce: ${first.curl}`;
      const head = `exchange ${first.index}${times}: [${f.side} ${f.severity}] ${f.check}: ${f.message}`;
      return `${head}\nexpected: ${f.expected}\nreceived: ${f.received}\nrule: ${f.rule}${curl}`;
    })
    .join("\n\n");
}

/**
 * JUnit XML: a test case per operation and status (so a long e2e run stays a readable report),
 * `failure` for counted findings, `error` when none of the group's answers could be judged, and the
 * rest (client violations that do not count, warnings, notes) in system-out.
 */
export function proxyJunitReport(summary: ProxySummary, exchanges: readonly ExchangeRecord[]): string {
  const cases = [...groups(exchanges).values()].map(({ classname, name, list }): JUnitCase => {
    const counted = distinct(list, (f) => f.counts);
    const others = distinct(list, (f) => !f.counts);
    const out = [`${list.length} exchange(s): ${list.map((e) => e.index).join(", ")}`];
    if (others.length > 0) out.push(detail(others));
    const verdict: Pick<JUnitCase, "failure" | "error"> =
      counted.length > 0
        ? {
            failure: {
              message: counted.map(({ f }) => `${f.side} ${f.check}: ${f.message}`).join("; "),
              type: counted[0]!.f.check,
              text: detail(counted),
            },
          }
        : list.every((e) => e.server === "error" && e.answeredBy !== "upstream")
          ? { error: { message: `not judged: ${list[0]!.notJudged?.message ?? "unknown"}`, type: NOT_JUDGED } }
          : {};
    const timeMs = list.reduce((t, e) => t + e.durationMs, 0);
    return { classname, name, timeMs, ...verdict, systemOut: out.join("\n\n") };
  });
  if (cases.length === 0 && summary.runError !== undefined)
    cases.push({ classname: "proxy", name: "run", error: { message: summary.runError, type: NOT_JUDGED } });
  return junitXml({
    name: "plantstore proxy",
    suite: `proxy ${summary.target}`,
    counts: {
      tests: cases.length,
      failures: cases.filter((c) => c.failure !== undefined).length,
      errors: cases.filter((c) => c.error !== undefined).length,
      skipped: 0,
      timeMs: summary.durationMs,
    },
    properties: [
      ["spec", summary.spec],
      ["target", summary.target],
      ["exit-code", String(summary.exitCode)],
    ],
    cases,
  });
}

/** What format 1 of the proxy's reports calls a side, or a test case, that could not be judged. */
const NOT_JUDGED = "not-judged";

export interface ProxyConsoleOptions {
  /** Print notes and passing exchanges too. */
  readonly verbose: boolean;
}

/**
 * A line per violation as it happens (side, severity, check, rule, the exchange, and a curl command
 * that sends the request again), and the summary at the end. Text from the traffic is written with
 * control characters spelled out, so a body cannot forge a line of the log.
 */
export function proxyConsoleReporter(
  write: (line: string) => void,
  options: ProxyConsoleOptions,
): (event: ProxyEvent) => void {
  return (event) => {
    switch (event.type) {
      case "proxy-started":
        write(`Contract proxy for ${shortPath(event.spec)} listening on ${event.url} -> ${event.target}`);
        write(
          `spec ${event.spec}; point your client at the proxy; stop with Ctrl-C (SIGINT) or SIGTERM for the verdict`,
        );
        return;
      case "exchange-finished": {
        const e = event.exchange;
        const shown = e.findings.filter((f) => f.severity !== "note" || options.verbose);
        if (shown.length === 0 && !options.verbose) return;
        const where = `#${e.index} ${e.method} ${e.path} -> ${e.status ?? "no answer"}`;
        if (shown.length === 0 && options.verbose) write(visible(`ok ${where}`));
        for (const f of shown) {
          const label = f.severity === "failure" ? `${f.side.toUpperCase()} VIOLATION` : `${f.side} ${f.severity}`;
          const curl = e.curl === undefined || f.severity === "note" ? "" : ` | reproduce: ${e.curl}`;
          write(
            visible(`${label} ${f.check} ${where}: ${f.message} | expected: ${f.expected} | rule: ${f.rule}${curl}`),
          );
        }
        return;
      }
      case "proxy-stopping":
        write(`stopping (${event.reason}): ${event.inFlight} exchange(s) in flight`);
        return;
      case "proxy-stopped":
        for (const line of proxySummaryLines(event.summary)) write(line);
        return;
    }
  };
}

/** The summary: exchanges, violations by side, and the verdict with its exit code. */
export function proxySummaryLines(s: ProxySummary): string[] {
  const lines = [
    "",
    `${count(s.exchanges, "exchange")}: ${s.judged} judged, ${s.notJudged} not judged; ${(s.durationMs / 1000).toFixed(2)} s`,
    `client violations: ${s.clientViolations} (in ${count(s.clientExchanges, "exchange")})` +
      (s.failOnClient
        ? ", counted: --fail-on-client"
        : ", not counted (the client's bugs; --fail-on-client counts them)"),
    `server violations: ${s.serverViolations} (in ${count(s.serverExchanges, "exchange")}); ` +
      `beyond the contract: ${s.warnings}` +
      (s.levels.length > 1 ? ` (counted: ${s.levels.slice(1).join(", ")})` : "") +
      `; notes: ${s.notes}`,
  ];
  if (s.omitted > 0)
    lines.push(
      `${count(s.omitted, "exchange")} counted above ${s.omitted === 1 ? "is" : "are"} not in the reports (the first ones and up to as many failing ones are)`,
    );
  if (s.runError !== undefined) lines.push(visible(s.runError));
  const who = s.counted.server > 0 ? "an answer" : "a request (--fail-on-client)";
  const why = { 0: ", no answer broke the contract", 1: `, ${who} broke the contract`, 2: ", nothing to judge" };
  lines.push(verdictLine(s.exitCode, why[s.exitCode]));
  return lines;
}

/** The proxy's report formats, by the name `--report NAME=FILE` gives: the run's writers, over exchanges. */
export const PROXY_REPORT_FORMATS = {
  json: proxyJsonReport,
  junit: proxyJunitReport,
} as const satisfies Readonly<Record<string, (summary: ProxySummary, exchanges: readonly ExchangeRecord[]) => string>>;

export type ProxyReportFormatName = keyof typeof PROXY_REPORT_FORMATS;

/** Writes each report of a finished proxy run atomically; returns the lines that say so. */
export function writeProxyReports(
  reports: readonly ReportFile<ProxyReportFormatName>[],
  summary: ProxySummary,
  exchanges: readonly ExchangeRecord[],
): string[] {
  return reports.map((r) => {
    writeFileAtomic(r.file, PROXY_REPORT_FORMATS[r.format](summary, exchanges));
    return `${r.format} report written to ${r.file}`;
  });
}

/** The reporter that writes each report file when the proxy stops, and says so with `write`. */
export function proxyReportFiles(
  reports: readonly ReportFile<ProxyReportFormatName>[],
  write: (line: string) => void = () => undefined,
): Reporter<ProxyEvent> {
  return (event) => {
    if (event.type !== "proxy-stopped") return;
    for (const line of writeProxyReports(reports, event.summary, event.exchanges)) write(line);
  };
}
