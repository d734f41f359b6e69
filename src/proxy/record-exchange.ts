import type { CompiledOperation, Contract } from "../contract/index.js";
import { curlFor, maskCommand } from "../harness/curl.js";
import { decode } from "../harness/http-client.js";
import type { Level } from "../harness/levels.js";
import type { Verdict } from "../harness/outcome.js";
import { decides } from "../harness/verdict.js";
import { maskRequestTarget, type Redactor } from "../harness/redact.js";
import type { ForwardedExchange } from "./forward.js";
import type { Upstream } from "./upstream.js";
import { judgeRequest, judgeResponse, type RawFinding } from "./judge-exchange.js";
import type { CredentialPlaces, SecretBook } from "./secrets.js";
import type { ExchangeRecord, NotJudgedKind, ProxyFinding, Side } from "./types.js";

// One exchange the proxy forwarded, judged: the request as the client's, the answer as the server's,
// into a record whose evidence is masked; and the last masking of every record with every secret of
// the run.

/** What judging an exchange needs of the run. */
export interface Judging {
  readonly contract: Contract;
  readonly specSource: string;
  readonly places: CredentialPlaces;
  readonly upstream: Upstream;
  readonly levels: readonly Level[];
  readonly failOnClient: boolean;
  readonly maxBodyBytes: number;
}

/** Judges one finished exchange, both sides apart, and masks what the record keeps. */
export function recordExchange(
  j: Judging,
  index: number,
  startedAt: string,
  f: ForwardedExchange,
  context: { readonly reachableBefore: boolean; readonly cut: boolean },
  book: SecretBook,
): ExchangeRecord {
  const { secrets, redact } = book.forRequest(j.places, f.requestHeaders, f.target);
  const client = clientSide(j, f, redact);
  const server = serverSide(j, f, client, context, redact);
  const findings = proxyFindings(j, [...client.raw, ...server.raw], redact);
  const broken = (side: Side): boolean => findings.some((x) => x.side === side && decides(x, j.levels));
  const outcome = (side: Side, judged: boolean): Verdict => (!judged ? "error" : broken(side) ? "fail" : "pass");
  const reproducible = findings.some((x) => x.severity !== "note") && f.requestComplete && !f.requestBody.over;
  const operation = client.operation;
  return {
    index,
    startedAt,
    method: f.method,
    path: maskRequestTarget(f.target, redact, operation?.pathTemplate),
    operation: operation?.operationId,
    status: f.answeredWith ?? f.response?.status,
    answeredBy: f.answeredWith !== undefined ? "proxy" : f.response !== undefined ? "upstream" : "nobody",
    durationMs: f.durationMs,
    requestBytes: f.requestBody.bytes,
    responseBytes: f.responseBody.bytes,
    client: outcome("client", client.judged),
    server: outcome("server", server.notJudged === undefined),
    notJudged: server.notJudged,
    findings,
    curl: reproducible
      ? curlFor(j.upstream.base, replayable(f), secrets.primary, redact, operation?.pathTemplate)
      : undefined,
  };
}

/** A finding before its side's rules (counting, masking) are applied. */
interface SidedFinding {
  readonly side: Side;
  readonly finding: RawFinding;
}

/** How the request came out as the client's. */
interface ClientSide {
  /** The operation it asks for; undefined when the contract has none for it (or it was not judged). */
  readonly operation: CompiledOperation | undefined;
  readonly judged: boolean;
  /** Whether it is a CORS preflight. */
  readonly preflight: boolean;
  readonly raw: readonly SidedFinding[];
}

/** The request judged as the client's; a CORS preflight for no operation of the contract is not judged. */
function clientSide(j: Judging, f: ForwardedExchange, redact: Redactor): ClientSide {
  const path = pathOf(f.target);
  // A CORS preflight is the browser asking for permission (Fetch standard), not a call of an operation.
  const preflight =
    f.method === "OPTIONS" &&
    f.requestHeaders.origin !== undefined &&
    f.requestHeaders["access-control-request-method"] !== undefined;
  if (preflight && j.contract.route("OPTIONS", path).kind !== "found") {
    const why = "a CORS preflight, which the browser sends before the call: not an operation of the contract";
    return {
      operation: undefined,
      judged: false,
      preflight,
      raw: [{ side: "client", finding: note(`not judged: ${why}`, why) }],
    };
  }
  const body = f.requestComplete ? f.requestBody.body() : undefined;
  const bodyNotJudged = !f.requestComplete
    ? "the request did not arrive whole"
    : f.requestBody.over
      ? `${f.requestBody.bytes} bytes, over --max-body`
      : undefined;
  const verdict = judgeRequest(
    j.contract,
    { method: f.method, path, query: queryOf(f.target), headers: f.requestHeaders, body, bodyNotJudged },
    j.specSource,
    redact,
  );
  return {
    operation: verdict.operation,
    judged: true,
    preflight,
    raw: verdict.findings.map((finding) => ({ side: "client", finding })),
  };
}

/**
 * The answer judged as the server's, or why it could not be: the client left first (or the proxy cut
 * the exchange), the upstream was never reachable, the request names no operation. An upstream that
 * gave no usable answer breaks HTTP itself.
 */
function serverSide(
  j: Judging,
  f: ForwardedExchange,
  client: ClientSide,
  { reachableBefore, cut }: { readonly reachableBefore: boolean; readonly cut: boolean },
  redact: Redactor,
): { notJudged: ExchangeRecord["notJudged"]; raw: SidedFinding[] } {
  const operation = client.operation;
  const raw: SidedFinding[] = [];
  let notJudged: ExchangeRecord["notJudged"];
  // The proxy's own words stay whole; a failure's message (the network's words) is evidence.
  const unjudged = (kind: NotJudgedKind, message: string) => ({ kind, message: redact.prose(message) });
  const failure = f.failure === undefined ? undefined : redact(f.failure.message);
  const failureNote = failure === undefined ? "" : ` (${failure})`;
  if (f.clientGone !== undefined) notJudged = unjudged(cut ? "cut" : "client-gone", cut ? CUT : f.clientGone);
  else if (f.proxyFault !== undefined) notJudged = unjudged("proxy-error", f.proxyFault);
  else if (f.failure?.kind === "unreachable" && !reachableBefore) {
    notJudged = unjudged("unreachable", `the upstream was never reachable: ${failure}`);
  } else if (operation === undefined) {
    notJudged = client.preflight
      ? unjudged("preflight", `a CORS preflight${failureNote}`)
      : unjudged("no-operation", `the request names no operation of the contract, so no rule applies${failureNote}`);
  } else if (f.failure !== undefined) {
    const message =
      f.failure.kind === "unreachable"
        ? "the upstream stopped accepting connections"
        : `no usable answer: ${f.failure.kind}`;
    raw.push({
      side: "server",
      finding: {
        check: "response.received",
        severity: "failure",
        message,
        expected: "a complete HTTP/1.1 response",
        received: failure ?? "",
        rule: "RFC 9112 (HTTP/1.1 message syntax)",
        level: "contract",
      },
    });
  } else if (f.response !== undefined) {
    const observed = observedBody(f, j.maxBodyBytes, redact);
    if (observed.failure !== undefined) raw.push({ side: "server", finding: observed.failure });
    else {
      const findings = judgeResponse(
        operation,
        {
          status: f.response.status,
          headers: f.response.headers,
          body: observed.body,
          bodyNotJudged: observed.why,
          durationMs: f.durationMs,
        },
        j.specSource,
        redact,
      );
      for (const finding of findings) raw.push({ side: "server", finding });
    }
  }
  return { notJudged, raw };
}

/** Each finding with its side and whether it counts, its sentences masked. */
function proxyFindings(j: Judging, raw: readonly SidedFinding[], redact: Redactor): ProxyFinding[] {
  // The checks masked what they quote of the exchange; the net masks a long secret again wherever it is.
  return raw.map(({ side, finding }) => {
    const countable = decides(finding, j.levels);
    return {
      ...finding,
      message: redact.prose(finding.message),
      expected: redact.prose(finding.expected),
      received: redact.prose(finding.received),
      side,
      counts: countable && (side === "server" || j.failOnClient),
    };
  });
}

const CUT = "the exchange was still running when the proxy stopped, after its grace period (--timeout)";

/** The record of an exchange the proxy failed to judge (a bug): forwarded, but not judged. */
export function failedRecord(index: number, startedAt: string, f: ForwardedExchange, error: unknown): ExchangeRecord {
  return {
    index,
    startedAt,
    method: f.method,
    path: pathOf(f.target),
    operation: undefined,
    status: f.answeredWith ?? f.response?.status,
    answeredBy: f.answeredWith !== undefined ? "proxy" : f.response !== undefined ? "upstream" : "nobody",
    durationMs: f.durationMs,
    requestBytes: f.requestBody.bytes,
    responseBytes: f.responseBody.bytes,
    client: "error",
    server: "error",
    notJudged: { kind: "proxy-error", message: `the proxy failed to judge this exchange: ${(error as Error).name}` },
    findings: [],
    curl: undefined,
  };
}

function note(message: string, why: string): RawFinding {
  return {
    check: "proxy.not-judged",
    severity: "note",
    message,
    expected: "an operation of the contract",
    received: why,
    rule: "plantstore proxy",
    level: "contract",
  };
}

const CODINGS = new Set(["", "identity", "gzip", "x-gzip", "deflate", "br"]);

/**
 * The answer's body as the checks should see it: undefined (with the reason) when it was not recorded
 * whole, has no content by HTTP's rules (RFC 9110 sections 9.3.2 and 15.4.5), or has a coding the proxy
 * cannot undo; decoded from gzip, deflate or br (RFC 9110 section 8.4), as the harness does.
 */
function observedBody(
  f: ForwardedExchange,
  maxBodyBytes: number,
  redact: Redactor,
): { body?: Buffer; why?: string; failure?: RawFinding } {
  if (f.method === "HEAD") return { why: "an answer to HEAD has no content (RFC 9110 section 9.3.2)" };
  if (f.response?.status === 304) return { why: "a 304 has no content (RFC 9110 section 15.4.5)" };
  if (f.responseBody.over) return { why: `${f.responseBody.bytes} bytes, over --max-body` };
  const body = f.responseBody.body() ?? Buffer.alloc(0);
  const coding = (f.response?.headers["content-encoding"] ?? "").trim().toLowerCase();
  if (!CODINGS.has(coding))
    return { why: `Content-Encoding ${redact(JSON.stringify(coding))} is not one the proxy decodes` };
  const decoded = decode(body, coding, maxBodyBytes, redact);
  if (decoded.ok) return { body: decoded.body };
  if (decoded.kind === "too-large") return { why: `the decoded body is over --max-body` };
  return {
    failure: {
      check: "response.received",
      severity: "failure",
      message: "the body cannot be decoded",
      expected: `a valid ${coding} body`,
      received: decoded.message,
      rule: "RFC 9110 section 8.4",
      level: "contract",
    },
  };
}

/** The request as curl should send it again: end-to-end headers only (curl writes its own Host and length). */
function replayable(f: ForwardedExchange): {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
} {
  const skip = new Set([
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "upgrade",
  ]);
  const headers = Object.fromEntries(Object.entries(f.requestHeaders).filter(([name]) => !skip.has(name)));
  const body = f.requestBody.body();
  return {
    method: f.method,
    path: originPath(f.target),
    headers,
    body: body === undefined || body.length === 0 ? undefined : body,
  };
}

/** The request target in origin-form, query kept. */
function originPath(target: string): string {
  if (target.startsWith("/")) return target;
  try {
    const u = new URL(target);
    return u.pathname + u.search;
  } catch {
    return target;
  }
}

/** The query of a request target, without `?` ("" when none). */
function queryOf(target: string): string {
  const origin = originPath(target);
  const q = origin.indexOf("?");
  return q < 0 ? "" : origin.slice(q + 1);
}

/** The path the contract's routes are matched against: origin-form, without the query. */
function pathOf(target: string): string {
  const origin = originPath(target);
  const q = origin.indexOf("?");
  return q < 0 ? origin : origin.slice(0, q);
}

/**
 * Masks every record's evidence again with every secret seen in the run, so an upstream that echoes
 * one client's token in another's answer cannot carry it out (each record was masked with its own):
 * the path (but its operation's own words) and what a finding received as evidence; the sentences,
 * whose quotes were masked with the record's own secrets, and the curl command (a request, which
 * holds another client's secret only if this client sent it) for long secrets, its variable kept.
 */
export function finalMask(records: ExchangeRecord[], redact: Redactor, contract: Contract): ExchangeRecord[] {
  return records.map((r) =>
    r.findings.length === 0 && r.curl === undefined
      ? r
      : {
          ...r,
          path: maskRequestTarget(
            r.path,
            redact,
            r.operation === undefined ? undefined : contract.operation(r.operation)?.pathTemplate,
          ),
          notJudged:
            r.notJudged === undefined ? undefined : { ...r.notJudged, message: redact.prose(r.notJudged.message) },
          curl: r.curl === undefined ? undefined : maskCommand(r.curl, redact.prose, ["PLANTSTORE_TOKEN"]),
          findings: r.findings.map((x) => ({
            ...x,
            message: redact.prose(x.message),
            expected: redact.prose(x.expected),
            received: redact(x.received),
          })),
        },
  );
}
