import { countPart, emptyTally, exitCodeOf, type Judged } from "../harness/verdict.js";
import type { ExchangeRecord, ProxySummary, Side } from "./types.js";

/** An exchange's findings on one side; its own list where all are on that side (most often, none). */
function sideOf(e: ExchangeRecord, side: Side): ExchangeRecord["findings"] {
  return e.findings.every((f) => f.side === side) ? e.findings : e.findings.filter((f) => f.side === side);
}

/** The run's fields of a summary: what was watched, how it stopped, what counts. */
export type RunFields = Pick<
  ProxySummary,
  "target" | "url" | "spec" | "stoppedBy" | "levels" | "failOnClient" | "durationMs"
>;

/**
 * The session's summary, by the harness's verdict layer: the exchanges tallied as the parts of an
 * observed whole (exit 1 when a counted finding exists, else 2 when nothing was judged, else 0), and
 * each side's findings tallied apart.
 */
export function summariseExchanges(exchanges: readonly ExchangeRecord[], run: RunFields): ProxySummary {
  const counter = new ExchangeTally();
  for (const e of exchanges) counter.add(e);
  return counter.summary(run, 0);
}

/**
 * The summary's counts, kept as each exchange is judged: the proxy holds these, not every exchange,
 * so its memory does not grow with a session's length (start-proxy.ts keeps a bounded number of
 * exchanges for the reports).
 */
export class ExchangeTally {
  #whole = emptyTally();
  #client = emptyTally();
  #server = emptyTally();
  #exchanges = 0;
  #unreachable: string | undefined;
  #upstreamAnswered = false;

  add(e: ExchangeRecord): void {
    this.#exchanges++;
    // An exchange fails the session when a finding of it counts; it is unjudged when its answer was not judged.
    const outcome: Judged["outcome"] = e.findings.some((f) => f.counts)
      ? "fail"
      : e.server === "error"
        ? "error"
        : "pass";
    // Counted in place: a tally per exchange added to the session's made three objects a side.
    countPart(this.#whole, { outcome, findings: e.findings });
    countPart(this.#client, { outcome: e.client, findings: sideOf(e, "client") });
    countPart(this.#server, { outcome: e.server, findings: sideOf(e, "server") });
    if (e.notJudged?.kind === "unreachable") this.#unreachable ??= e.notJudged.message;
    if (e.answeredBy === "upstream") this.#upstreamAnswered = true;
  }

  /** The summary of what was added; `omitted` exchanges were counted but not kept for the reports. */
  summary(run: RunFields, omitted: number): ProxySummary {
    const [whole, client, server] = [this.#whole, this.#client, this.#server];
    const judged = server.total - server.outcomes.error;
    const runError = this.#nothingJudged(judged);
    return {
      ...run,
      exchanges: this.#exchanges,
      omitted,
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
  #nothingJudged(judged: number): string | undefined {
    if (this.#exchanges === 0) return "nothing to judge: no request came through the proxy";
    if (judged > 0) return undefined;
    return this.#unreachable !== undefined && !this.#upstreamAnswered
      ? `nothing was judged: ${this.#unreachable} [PS_UPSTREAM_UNREACHABLE]`
      : "nothing was judged: no request named an operation of the contract and got a whole answer";
  }
}
