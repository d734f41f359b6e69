import type { CheckId, Finding } from "../harness/checks.js";
import type { Level } from "../harness/levels.js";
import type { ExitCode, Verdict } from "../harness/outcome.js";

/** Whose bug a finding is: the client's request, or the server's answer. */
export type Side = "client" | "server";

/** Checks of the request, made by the proxy's one request-judging function. */
export type ClientCheckId = "request.path" | "request.method" | "request.parameter" | "request.body";

/** Notes the proxy itself adds: what it forwarded but could not judge, and why. */
export type ProxyNoteId = "proxy.not-judged";

/** A finding of the proxy: the harness's Finding, with the side it blames and whether it decides the verdict. */
export interface ProxyFinding extends Omit<Finding, "check"> {
  readonly check: CheckId | ClientCheckId | ProxyNoteId;
  readonly side: Side;
  /** Counts toward exit code 1: a server failure (a warning too, with strict), a client one with failOnClient. */
  readonly counts: boolean;
}

/**
 * Why an answer was not judged: the upstream was never reachable; the request named no operation
 * of the contract (a CORS preflight among them); the client left (or stalled) first; the proxy
 * stopped while it ran; the proxy itself failed on it.
 */
export type NotJudgedKind = "unreachable" | "no-operation" | "preflight" | "client-gone" | "cut" | "proxy-error";

/** One request and its answer as the proxy saw them; evidence is masked, bodies are not kept. */
export interface ExchangeRecord {
  /** 1, 2, 3... in the order requests arrived. */
  readonly index: number;
  readonly startedAt: string;
  readonly method: string;
  /** The request target as the client sent it (path and query), secrets masked. */
  readonly path: string;
  /** The contract's operationId, when the request matched one. */
  readonly operation: string | undefined;
  /** The status the client got: the upstream's, or the proxy's own 502/504; undefined when none was sent. */
  readonly status: number | undefined;
  /** Who wrote that status: the upstream, or the proxy because the upstream failed. */
  readonly answeredBy: "upstream" | "proxy" | "nobody";
  readonly durationMs: number;
  readonly requestBytes: number;
  readonly responseBytes: number;
  /**
   * How each side came out, in the run's vocabulary: error when that side could not be judged (the
   * JSON report, format 1, writes it "not-judged").
   */
  readonly client: Verdict;
  readonly server: Verdict;
  /** Why the answer could not be judged, when it could not. */
  readonly notJudged: { readonly kind: NotJudgedKind; readonly message: string } | undefined;
  readonly findings: readonly ProxyFinding[];
  /** A command that sends the same request to the upstream (for exchanges with a violation or warning). */
  readonly curl: string | undefined;
}

/** Why the proxy stopped. */
export type StopReason = "SIGINT" | "SIGTERM" | "max-exchanges" | "max-time" | "stop";

export interface ProxySummary {
  readonly target: string;
  readonly url: string;
  readonly spec: string;
  readonly stoppedBy: StopReason;
  readonly exchanges: number;
  /** Exchanges counted here but not kept for the reports (past ProxyOptions.keepExchanges). */
  readonly omitted: number;
  /** Exchanges whose answer was judged against the contract. */
  readonly judged: number;
  readonly notJudged: number;
  /** Client findings of severity failure, and the exchanges that have one. */
  readonly clientViolations: number;
  readonly clientExchanges: number;
  /** Server findings of severity failure, and the exchanges that have one. */
  readonly serverViolations: number;
  readonly serverExchanges: number;
  readonly warnings: number;
  readonly notes: number;
  /** Findings that decide the verdict, by side. */
  readonly counted: { readonly client: number; readonly server: number };
  /** The levels whose rules count (`contract` first). */
  readonly levels: readonly Level[];
  readonly failOnClient: boolean;
  readonly durationMs: number;
  /** Why there is no verdict, when there is none (exit 2). */
  readonly runError: string | undefined;
  /** 0: no answer broke the contract; 1: one did (or, with failOnClient, a request did); 2: nothing to judge. */
  readonly exitCode: ExitCode;
}

export interface ProxyResult {
  readonly summary: ProxySummary;
  readonly exchanges: readonly ExchangeRecord[];
}

export type ProxyEvent =
  | { readonly type: "proxy-started"; readonly url: string; readonly target: string; readonly spec: string }
  | { readonly type: "exchange-finished"; readonly exchange: ExchangeRecord }
  | { readonly type: "proxy-stopping"; readonly reason: StopReason; readonly inFlight: number }
  | { readonly type: "proxy-stopped"; readonly summary: ProxySummary; readonly exchanges: readonly ExchangeRecord[] };
