import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isoNow } from "../clock.js";
import type { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { loadContract, type Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_SPEC, shortPath } from "../paths.js";
import { levelsToRun, type Level } from "../harness/levels.js";
import { parseTarget } from "../harness/target.js";
import { forwardExchange, type ForwardedExchange } from "./forward.js";
import { createUpstream } from "./upstream.js";
import { failedRecord, finalMask, recordExchange, type Judging } from "./record-exchange.js";
import { credentialPlaces, SecretBook } from "./secrets.js";
import { ExchangeTally, type RunFields } from "./summary.js";
import type { ExchangeRecord, ProxyEvent, ProxyResult, ProxySummary, StopReason } from "./types.js";

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
  /** A client's request head must arrive within this (default 10 s, as the kit's servers): else 408. */
  readonly headersTimeoutMs?: number;
  /** An idle keep-alive connection from a client is closed after this (default 5 s, as the kit's servers). */
  readonly keepAliveTimeoutMs?: number;
  /**
   * How many exchanges the result (and so the reports) holds, so that memory does not grow with the
   * session (default 1,000): the first ones, then only those with a finding that counts, as many
   * again. Every exchange is counted in the summary whatever is kept (`omitted` says how many are not).
   */
  readonly keepExchanges?: number;
  /** Levels beyond `contract` whose rules count toward exit code 1 (see levels.ts). */
  readonly levels?: readonly string[];
  /** Every level counts (server warnings such as an undocumented 2xx fail the run). */
  readonly strict?: boolean;
  /** Client violations count toward exit code 1. */
  readonly failOnClient?: boolean;
}

export const PROXY_DEFAULTS = {
  host: "127.0.0.1",
  port: 4012,
  maxBodyBytes: 1024 * 1024,
  timeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  keepExchanges: 1_000,
} as const;

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
  const limits = {
    maxBodyBytes: options.maxBodyBytes ?? PROXY_DEFAULTS.maxBodyBytes,
    timeoutMs: options.timeoutMs ?? PROXY_DEFAULTS.timeoutMs,
  };
  const judging = judgingFor(options, contract, base, limits.maxBodyBytes);
  const book = new SecretBook();
  const records: ExchangeRecord[] = [];
  const counter = new ExchangeTally();
  const keep = options.keepExchanges ?? PROXY_DEFAULTS.keepExchanges;
  let finished = 0;
  let keptFailing = 0;
  const pending = new Set<Promise<void>>();
  const started = performance.now();
  let arrived = 0;
  let everAnswered = false;
  let stopping: StopReason | undefined;
  let cutting = false;
  let resolveDone!: (r: ProxyResult) => void;
  const done = new Promise<ProxyResult>((resolve) => (resolveDone = resolve));

  const upstreamAnswered = (): void => {
    everAnswered = true;
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const index = ++arrived;
    const startedAt = isoNow();
    // Reached before this request was sent: a refusal now means the upstream went away, not "never there".
    const reachableBefore = everAnswered;
    // While stopping, answers close their connection (RFC 9112 section 9.6), so clients move on.
    if (stopping !== undefined) res.shouldKeepAlive = false;
    const work: Promise<void> = forwardExchange(req, res, judging.upstream, limits, upstreamAnswered).then(
      (forwarded) => {
        // Out of the set as it settles (no second promise an exchange to say so).
        pending.delete(work);
        const record = safeRecord(judging, index, startedAt, forwarded, { reachableBefore, cut: cutting }, book);
        counter.add(record);
        finished++;
        // Bounded: the first exchanges, then only failing ones, as many again; the rest are counted only.
        const failing = record.findings.some((f) => f.counts);
        if (records.length < keep) records.push(record);
        else if (failing && keptFailing < keep) {
          records.push(record);
          keptFailing++;
        }
        onEvent({ type: "exchange-finished", exchange: record });
        if (stopping !== undefined) server.closeIdleConnections();
        else if (options.maxExchanges !== undefined && finished >= options.maxExchanges) void stop("max-exchanges");
      },
    );
    pending.add(work);
  };

  // Node's defaults accept slow headers for 60 s and keep idle connections: the proxy bounds both, as the
  // kit's servers do (a slow head gets 408). A request's body has no overall limit: the exchange's
  // silence (timeoutMs) bounds it, so a long upload that keeps moving is forwarded whole.
  const headersTimeoutMs = options.headersTimeoutMs ?? PROXY_DEFAULTS.headersTimeoutMs;
  const server: Server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: 0,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? PROXY_DEFAULTS.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, headersTimeoutMs / 2)),
    },
    onRequest,
  );
  // CONNECT asks for a tunnel, which this reverse proxy does not open (RFC 9110 9.3.6): 405 with Allow.
  server.on("connect", (_req: IncomingMessage, socket: Socket) =>
    socket.end(
      "HTTP/1.1 405 Method Not Allowed\r\nallow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n" +
        "content-length: 0\r\nconnection: close\r\n\r\n",
    ),
  );
  await listen(server, options.port ?? 0, options.host ?? PROXY_DEFAULTS.host);
  const url = urlOf(server);
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
      await shutDown(server, pending, options.drainMs ?? limits.timeoutMs, () => (cutting = true));
      judging.upstream.close();
      const result = proxyResult(
        records,
        book,
        contract,
        {
          target: targetShown,
          url,
          spec: contract.source,
          stoppedBy: reason,
          levels: judging.levels,
          failOnClient: judging.failOnClient,
          durationMs: performance.now() - started,
        },
        counter.summary.bind(counter),
        finished - records.length,
      );
      onEvent({ type: "proxy-stopped", ...result });
      resolveDone(result);
      return result;
    })();
    return stopped;
  }

  return { url, stop, done };
}

/** What judging the exchanges needs: the contract, where credentials go, the upstream, the levels counted. */
function judgingFor(options: ProxyOptions, contract: Contract, base: URL, maxBodyBytes: number): Judging {
  return {
    contract,
    specSource: shortPath(contract.source),
    places: credentialPlaces(contract),
    upstream: createUpstream(base),
    levels: proxyLevels(options),
    failOnClient: options.failOnClient === true,
    maxBodyBytes,
  };
}

/** Listens on the port and host; a port in use rejects. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** The URL a listening server is reached at (an IPv6 address in brackets). */
function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  return `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
}

/** The run's result once every exchange is over: the records in arrival order, masked again, and their summary. */
function proxyResult(
  records: readonly ExchangeRecord[],
  book: SecretBook,
  contract: Contract,
  run: RunFields,
  summarise: (run: RunFields, omitted: number) => ProxySummary,
  omitted: number,
): ProxyResult {
  const exchanges = finalMask(
    [...records].sort((a, b) => a.index - b.index),
    book.redactor(),
    contract,
  );
  return { summary: summarise(run, omitted), exchanges };
}

/** The record of a finished exchange: a bug of the proxy's judging makes that exchange unjudged, never a crash of the run. */
function safeRecord(
  judging: Judging,
  index: number,
  startedAt: string,
  forwarded: ForwardedExchange,
  context: { readonly reachableBefore: boolean; readonly cut: boolean },
  book: SecretBook,
): ExchangeRecord {
  try {
    return recordExchange(judging, index, startedAt, forwarded, context, book);
  } catch (error) {
    return failedRecord(index, startedAt, forwarded, error);
  }
}

/**
 * Stops accepting and waits for the exchanges in flight, up to the grace period; then cuts the
 * connections still open (after `cut`, so their records say so) and waits for the last records.
 */
async function shutDown(server: Server, pending: Set<Promise<void>>, graceMs: number, cut: () => void): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await drain(pending, graceMs);
  // What is still running after the grace period is cut, and recorded as such.
  cut();
  server.closeAllConnections();
  while (pending.size > 0) await Promise.all([...pending]);
  await closed;
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

/** The levels the options ask for; a name that is none is a usage error naming it. */
function proxyLevels(options: ProxyOptions): Level[] {
  try {
    return levelsToRun(options.levels, options.strict === true);
  } catch (error) {
    throw new KitError("PS_USAGE", `--level: ${(error as Error).message}`);
  }
}
