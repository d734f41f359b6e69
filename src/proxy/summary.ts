import { exitCodeOf, tally, type Judged } from "../harness/verdict.js";
import type { ExchangeRecord, ProxySummary, Side } from "./types.js";

/**
 * The session's summary, by the harness's verdict layer: the exchanges tallied as the parts of an
 * observed whole (exit 1 when a counted finding exists, else 2 when nothing was judged, else 0), and
 * each side's findings tallied apart.
 */
export function summariseExchanges(
  exchanges: readonly ExchangeRecord[],
  run: Pick<ProxySummary, "target" | "url" | "spec" | "stoppedBy" | "levels" | "failOnClient" | "durationMs">,
): ProxySummary {
  // An exchange fails the session when a finding of it counts; it is unjudged when its answer was not judged.
  const whole = tally(
    exchanges.map((e): Judged => ({
      outcome: e.findings.some((f) => f.counts) ? "fail" : e.server === "error" ? "error" : "pass",
      findings: e.findings,
    })),
  );
  const side = (s: Side) =>
    tally(exchanges.map((e) => ({ outcome: e[s], findings: e.findings.filter((f) => f.side === s) })));
  const client = side("client");
  const server = side("server");
  const judged = server.total - server.outcomes.error;
  const runError = nothingJudged(exchanges, judged);
  return {
    ...run,
    exchanges: exchanges.length,
    judged,
    notJudged: server.outcomes.error,
    clientViolations: client.severities.failure,
    clientExchanges: client.withFailure,
    serverViolations: server.severities.failure,
    serverExchanges: server.withFailure,
    warnings: whole.severities.warning,
    notes: whole.severities.note,
    counted: { client: client.counted, server: server.counted },
    runError,
    exitCode: exitCodeOf(whole, { weighing: "observed", runError }),
  };
}

/** Why the session has no verdict: no exchange at all, or none whose answer could be judged. */
function nothingJudged(exchanges: readonly ExchangeRecord[], judged: number): string | undefined {
  if (exchanges.length === 0) return "nothing to judge: no request came through the proxy";
  if (judged > 0) return undefined;
  const unreachable = exchanges.find((e) => e.notJudged?.kind === "unreachable");
  return unreachable !== undefined && exchanges.every((e) => e.answeredBy !== "upstream")
    ? `nothing was judged: ${unreachable.notJudged?.message ?? ""} [PS_UPSTREAM_UNREACHABLE]`
    : "nothing was judged: no request named an operation of the contract and got a whole answer";
}
