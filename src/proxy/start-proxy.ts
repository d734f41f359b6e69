import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadContract, type CompiledOperation, type Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_SPEC, shortPath } from "../paths.js";
import { curlFor, maskCommand } from "../harness/curl.js";
import { decode } from "../harness/http-client.js";
import { levelsToRun, type Level } from "../harness/levels.js";
import type { Verdict } from "../harness/outcome.js";
import { parseTarget } from "../harness/target.js";
import { decides } from "../harness/verdict.js";
import { maskRequestTarget, type Redactor } from "../harness/redact.js";
import { createUpstream, forwardExchange, type ForwardedExchange, type Upstream } from "./forward.js";
import { judgeRequest, judgeResponse, type RawFinding } from "./judge-exchange.js";
import { credentialPlaces, SecretBook, secretsOf, type CredentialPlaces } from "./secrets.js";
import { summariseExchanges } from "./summary.js";
import type {
  ExchangeRecord,
  NotJudgedKind,
  ProxyEvent,
  ProxyFinding,
  ProxyResult,
  Side,
  StopReason,
} from "./types.js";

export interface ProxyOptions {
  /** The upstream's base URL, http or https; a base path is put before every request target. */
  readonly target: string;
  /** Address to listen on (default 127.0.0.1) and port (default 0: any free one). */
  readonly host?: string;
  readonly port?: number;
  /** A contract already loaded; otherwise `spec` (default: the kit's spec) is loaded. */
  readonly contract?: Contract;
  readonly spec?: string;
  /** Stop after this many exchanges have finished. */
  readonly maxExchanges?: number;
  /** Stop after this long. */
  readonly maxTimeMs?: number;
  /** Bodies are recorded for judging up to this size; bigger ones are forwarded whole, not judged. */
  readonly maxBodyBytes?: number;
  /** The longest silence of an exchange (no byte either way): 504 before the upstream's answer head. */
  readonly timeoutMs?: number;
  /** How long a stop waits for exchanges in flight (default: timeoutMs). */
  readonly drainMs?: number;
  /** Levels beyond `contract` whose rules count toward exit code 1 (see levels.ts). */
  readonly levels?: readonly string[];
  /** Every level counts (server warnings such as an undocumented 2xx fail the run). */
  readonly strict?: boolean;
  /** Client violations count toward exit code 1. */
  readonly failOnClient?: boolean;
}

export const PROXY_DEFAULTS = { host: "127.0.0.1", port: 4012, maxBodyBytes: 1024 * 1024, timeoutMs: 30_000 } as const;

export interface RunningProxy {
  /** The proxy's own URL, to point clients at. */
  readonly url: string;
  /** Stops accepting, lets exchanges in flight finish (up to drainMs), and resolves with the verdict. */
  stop(reason?: StopReason): Promise<ProxyResult>;
  /** Resolves once the proxy has stopped, for whatever reason (stop(), --max-exchanges, --max-time). */
  readonly done: Promise<ProxyResult>;
}

/**
 * Starts a reverse proxy in front of `target` that forwards every exchange unchanged and judges it
 * against the contract: the request as the client's, the answer as the server's. Start-up problems
 * (bad target, spec, port in use) throw; everything the traffic does is data, in events and in the
 * result.
 */
export async function startProxy(
  options: ProxyOptions,
  onEvent: (event: ProxyEvent) => void = () => undefined,
): Promise<RunningProxy> {
  const base = parseTarget(options.target);
  const contract = options.contract ?? (await loadContract(options.spec ?? DEFAULT_SPEC));
  const specSource = shortPath(contract.source);
  const places = credentialPlaces(contract);
  const limits = {
    maxBodyBytes: options.maxBodyBytes ?? PROXY_DEFAULTS.maxBodyBytes,
    timeoutMs: options.timeoutMs ?? PROXY_DEFAULTS.timeoutMs,
  };
  const judging: Judging = {
    contract,
    specSource,
    places,
    upstream: createUpstream(base),
    levels: proxyLevels(options),
    failOnClient: options.failOnClient === true,
    maxBodyBytes: limits.maxBodyBytes,
  };
  const book = new SecretBook();
  const records: ExchangeRecord[] = [];
  const pending = new Set<Promise<void>>();
  const started = performance.now();
  let arrived = 0;
  let everAnswered = false;
  let stopping: StopReason | undefined;
  let cutting = false;
  let resolveDone!: (r: ProxyResult) => void;
  const done = new Promise<ProxyResult>((resolve) => (resolveDone = resolve));

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const index = ++arrived;
    const startedAt = new Date().toISOString();
    // Reached before this request was sent: a refusal now means the upstream went away, not "never there".
    const reachableBefore = everAnswered;
    // While stopping, answers close their connection (RFC 9112 section 9.6), so clients move on.
    if (stopping !== undefined) res.shouldKeepAlive = false;
    const work = forwardExchange(req, res, judging.upstream, limits, () => (everAnswered = true)).then((forwarded) => {
      let record: ExchangeRecord;
      try {
        record = recordExchange(judging, index, startedAt, forwarded, { reachableBefore, cut: cutting }, book);
      } catch (error) {
        // A bug of the proxy's judging makes that exchange unjudged, never a crash of the run.
        record = failedRecord(index, startedAt, forwarded, error);
      }
      records.push(record);
      onEvent({ type: "exchange-finished", exchange: record });
      if (stopping !== undefined) server.closeIdleConnections();
      else if (options.maxExchanges !== undefined && records.length >= options.maxExchanges) void stop("max-exchanges");
    });
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  const server: Server = createServer(onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? PROXY_DEFAULTS.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  const targetShown = base.href.replace(/\/$/, "");
  onEvent({ type: "proxy-started", url, target: targetShown, spec: contract.source });
  const maxTimer =
    options.maxTimeMs === undefined ? undefined : setTimeout(() => void stop("max-time"), options.maxTimeMs);

  let stopped: Promise<ProxyResult> | undefined;
  function stop(reason: StopReason = "stop"): Promise<ProxyResult> {
    stopped ??= (async () => {
      stopping = reason;
      clearTimeout(maxTimer);
      onEvent({ type: "proxy-stopping", reason, inFlight: pending.size });
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await drain(pending, options.drainMs ?? limits.timeoutMs);
      // What is still running after the grace period is cut, and recorded as such.
      cutting = true;
      server.closeAllConnections();
      while (pending.size > 0) await Promise.all([...pending]);
      await closed;
      judging.upstream.close();
      const exchanges = finalMask(
        [...records].sort((a, b) => a.index - b.index),
        book.redactor(),
        contract,
      );
      const summary = summariseExchanges(exchanges, {
        target: targetShown,
        url,
        spec: contract.source,
        stoppedBy: reason,
        levels: judging.levels,
        failOnClient: judging.failOnClient,
        durationMs: performance.now() - started,
      });
      onEvent({ type: "proxy-stopped", summary, exchanges });
      const result = { summary, exchanges };
      resolveDone(result);
      return result;
    })();
    return stopped;
  }

  return { url, stop, done };
}

interface Judging {
  readonly contract: Contract;
  readonly specSource: string;
  readonly places: CredentialPlaces;
  readonly upstream: Upstream;
  readonly levels: readonly Level[];
  readonly failOnClient: boolean;
  readonly maxBodyBytes: number;
}

/** Waits until nothing is in flight, or the grace period is over. */
async function drain(pending: Set<Promise<void>>, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
  const settled = (async () => {
    while (pending.size > 0) await Promise.all([...pending]);
  })();
  await Promise.race([grace, settled]);
  clearTimeout(timer);
}

const CODINGS = new Set(["", "identity", "gzip", "x-gzip", "deflate", "br"]);

/** Judges one finished exchange, both sides apart, and masks what the record keeps. */
function recordExchange(
  j: Judging,
  index: number,
  startedAt: string,
  f: ForwardedExchange,
  { reachableBefore, cut }: { readonly reachableBefore: boolean; readonly cut: boolean },
  book: SecretBook,
): ExchangeRecord {
  const secrets = secretsOf(j.places, f.requestHeaders, f.target);
  book.add(secrets.all);
  const redact = book.redactorFor(secrets.all);
  const path = pathOf(f.target);
  const raw: { side: Side; finding: RawFinding }[] = [];
  const status = f.answeredWith ?? f.response?.status;
  let operation: CompiledOperation | undefined;
  let clientJudged = true;

  // A CORS preflight is the browser asking for permission (Fetch standard), not a call of an operation.
  const preflight =
    f.method === "OPTIONS" &&
    f.requestHeaders.origin !== undefined &&
    f.requestHeaders["access-control-request-method"] !== undefined;
  if (preflight && j.contract.route("OPTIONS", path).kind !== "found") {
    clientJudged = false;
    const why = "a CORS preflight, which the browser sends before the call: not an operation of the contract";
    raw.push({ side: "client", finding: note(`not judged: ${why}`, why) });
  } else {
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
    operation = verdict.operation;
    for (const finding of verdict.findings) raw.push({ side: "client", finding });
  }

  let notJudged: ExchangeRecord["notJudged"];
  // The proxy's own words stay whole; a failure's message (the network's words) is evidence.
  const unjudged = (kind: NotJudgedKind, message: string) => ({ kind, message: redact.prose(message) });
  const failure = f.failure === undefined ? undefined : redact(f.failure.message);
  const failureNote = failure === undefined ? "" : ` (${failure})`;
  if (f.clientGone !== undefined) notJudged = unjudged(cut ? "cut" : "client-gone", cut ? CUT : f.clientGone);
  else if (f.failure?.kind === "unreachable" && !reachableBefore) {
    notJudged = unjudged("unreachable", `the upstream was never reachable: ${failure}`);
  } else if (operation === undefined) {
    notJudged = preflight
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

  // The checks masked what they quote of the exchange; the net masks a long secret again wherever it is.
  const findings: ProxyFinding[] = raw.map(({ side, finding }) => {
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
  const broken = (side: Side): boolean => findings.some((x) => x.side === side && decides(x, j.levels));
  const outcome = (side: Side, judged: boolean): Verdict => (!judged ? "error" : broken(side) ? "fail" : "pass");
  const reproducible = findings.some((x) => x.severity !== "note") && f.requestComplete && !f.requestBody.over;
  return {
    index,
    startedAt,
    method: f.method,
    path: maskRequestTarget(f.target, redact, operation?.pathTemplate),
    operation: operation?.operationId,
    status,
    answeredBy: f.answeredWith !== undefined ? "proxy" : f.response !== undefined ? "upstream" : "nobody",
    durationMs: f.durationMs,
    requestBytes: f.requestBody.bytes,
    responseBytes: f.responseBody.bytes,
    client: outcome("client", clientJudged),
    server: outcome("server", notJudged === undefined),
    notJudged,
    findings,
    curl: reproducible
      ? curlFor(j.upstream.base, replayable(f), secrets.primary, redact, operation?.pathTemplate)
      : undefined,
  };
}

const CUT = "the exchange was still running when the proxy stopped, after its grace period (--timeout)";

/** The record of an exchange the proxy failed to judge (a bug): forwarded, but not judged. */
function failedRecord(index: number, startedAt: string, f: ForwardedExchange, error: unknown): ExchangeRecord {
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
function finalMask(records: ExchangeRecord[], redact: Redactor, contract: Contract): ExchangeRecord[] {
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

/** The levels the options ask for; a name that is none is a usage error naming it. */
function proxyLevels(options: ProxyOptions): Level[] {
  try {
    return levelsToRun(options.levels, options.strict === true);
  } catch (error) {
    throw new KitError("PS_USAGE", `--level: ${(error as Error).message}`);
  }
}
