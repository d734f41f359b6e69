import { readFileSync } from "node:fs";
import { connect as netConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { Duplex } from "node:stream";
import { Agent, buildConnector, errors, type Dispatcher } from "undici";
import { KitError } from "../errors.js";
import type { PreparedRequest } from "./case-types.js";

export interface ClientOptions {
  /** Time allowed for one whole exchange, connect to last body byte. */
  readonly timeoutMs: number;
  /** Response bodies are read up to this many bytes; more is a failure of the target. */
  readonly maxResponseBytes: number;
  /** PEM file of a CA to trust for an https target. */
  readonly caFile?: string;
  /** Accept any certificate (private test servers only). */
  readonly insecure?: boolean;
  /**
   * Masks the parts of a failure's message that come from the network (the error's own text, a
   * Content-Encoding): a Redactor. The message's own words are not masked.
   */
  readonly mask?: (text: string) => string;
}

export interface ReceivedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** Why an exchange produced no usable answer. `unreachable` means the harness could not run. */
export type TransportFailureKind =
  "unreachable" | "timeout" | "reset" | "malformed-http" | "length-mismatch" | "too-large" | "tls";

export interface TransportFailure {
  readonly kind: TransportFailureKind;
  readonly message: string;
  /** The error's code, for a connection that could not be made (`ECONNREFUSED`). */
  readonly code?: string;
}

export type ExchangeResult =
  | { readonly ok: true; readonly response: ReceivedResponse; readonly durationMs: number }
  | {
      readonly ok: false;
      readonly failure: TransportFailure;
      readonly durationMs: number;
      /**
       * The connection closed with a FIN before any answer: the target had read the request. A host
       * that closes with unread data sends a reset instead (RFC 1122 section 4.2.2.13).
       */
      readonly closedEarly?: boolean;
      /** The answer had begun (its head came) when the exchange failed: the target had read the request. */
      readonly answerBegun?: boolean;
    };

export interface HttpClient {
  exchange(base: URL, prepared: PreparedRequest): Promise<ExchangeResult>;
  /** Opens a connection to the target, to tell "not there" apart from "answers wrongly" before a run. */
  probe(base: URL): Promise<TransportFailure | undefined>;
  close(): Promise<void>;
}

/** An undici client with every bound a broken target could break: time, size, redirects (none). */
export function createHttpClient(options: ClientOptions): HttpClient {
  const mask = options.mask ?? ((t: string) => t);
  let ca: Buffer | undefined;
  if (options.caFile !== undefined) {
    try {
      ca = readFileSync(options.caFile);
    } catch (error) {
      throw new KitError("PS_FILE_UNREADABLE", `--ca-file ${options.caFile}: ${(error as Error).message}`);
    }
  }
  // Connections are counted as they open: an exchange during which none opened went out on a
  // kept-alive one (see exchange).
  const connector = buildConnector({
    timeout: options.timeoutMs,
    ...(ca === undefined ? {} : { ca }),
    rejectUnauthorized: options.insecure !== true,
  });
  let opened = 0;
  const settings = {
    connect: (opts: buildConnector.Options, callback: buildConnector.Callback) => {
      opened++;
      connector(opts, callback);
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 1_000,
    pipelining: 1,
  };
  const agent = new Agent(settings);

  /**
   * One exchange. A kept-alive connection the server closed, gracefully and before any answer, as
   * the request went out is a race of timings, not the target's answer: when no connection opened
   * during the exchange (so it went out on a kept-alive one) and the close was a FIN, not a reset,
   * the request is sent once more, on a fresh connection. A reset, or a close on a fresh
   * connection, is the target's; so is the close when the fresh connection is refused (it went away).
   */
  async function exchange(base: URL, prepared: PreparedRequest): Promise<ExchangeResult> {
    const before = opened;
    const first = await exchangeOnce(base, prepared, agent, options, mask);
    const raced = !first.ok && first.closedEarly === true && opened === before;
    if (!raced) return first;
    // Its own agent, so the request cannot go out on another kept-alive connection.
    const fresh = new Agent(settings);
    try {
      const again = await exchangeOnce(base, prepared, fresh, options, mask);
      // Refused now: the close was the target going away (a crash), and the first failure says so.
      return !again.ok && again.failure.kind === "unreachable" ? first : again;
    } finally {
      await fresh.close().catch(() => undefined);
    }
  }

  return {
    exchange,
    probe: (base) => probeConnection(base, options.timeoutMs, ca, options.insecure === true, mask),
    close: () => agent.destroy(),
  };
}

/**
 * One request and its whole answer on a dispatcher, bounded by one timer. `closedEarly`: the
 * connection closed with a FIN before any answer (see createHttpClient's exchange).
 */
function exchangeOnce(
  base: URL,
  prepared: PreparedRequest,
  dispatcher: Agent,
  options: ClientOptions,
  mask: (text: string) => string,
): Promise<ExchangeResult & { readonly closedEarly?: boolean }> {
  return new Promise((resolve) => new OneExchange(prepared, options, mask, resolve).send(base, dispatcher));
}

type OnceResult = ExchangeResult & { readonly closedEarly?: boolean };

/**
 * One exchange through undici's dispatch API, the layer its request() is built on, taking of the
 * answer what the harness needs: its head, and its bytes up to the read cap as they come (no body
 * stream, no promise beyond the exchange's own: about 9 µs less CPU an exchange than request() and
 * a body read whole, docs/performance.md). The same connections, parser and errors as request(),
 * whose handling of 1xx answers and of an abort before the request is on a connection it keeps.
 */
class OneExchange implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private controller: Dispatcher.DispatchController | undefined;
  /** Why the deadline aborted the exchange, once it has (as an AbortSignal says it). */
  private deadline: DOMException | undefined;
  private answered = false;
  private settled = false;
  /** undici read the answer whole. */
  private ended = false;
  private status = 0;
  private readonly headers: Record<string, string> = {};
  /** 204 and 304 answers, and answers to HEAD, end with their head whatever Content-Length says (RFC 9112 section 6.3). */
  private bodiless = false;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly prepared: PreparedRequest,
    private readonly options: ClientOptions,
    private readonly mask: (text: string) => string,
    private readonly resolve: (result: OnceResult) => void,
  ) {
    // One timer bounds the whole exchange, connect to last byte (undici's own timeouts bound silences only).
    this.timer = setTimeout(() => this.expire(), options.timeoutMs);
  }

  send(base: URL, dispatcher: Agent): void {
    try {
      // What request() refuses, refused alike: to dispatch, any answer to CONNECT is a tunnel.
      if (this.prepared.method === "CONNECT") throw new errors.InvalidArgumentError("invalid method");
      // The origin, path and method request() makes of a URL and its options.
      const url = new URL(joinUrl(base, this.prepared.path));
      dispatcher.dispatch(
        {
          origin: url.origin,
          path: url.search ? `${url.pathname}${url.search}` : url.pathname,
          method: (this.prepared.method || (this.prepared.body === undefined ? "GET" : "PUT")) as Dispatcher.HttpMethod,
          headers: this.prepared.headers,
          body: this.prepared.body,
        },
        this,
      );
    } catch (error) {
      this.onResponseError(undefined, error as Error);
    }
  }

  /** The whole exchange took too long: aborted now, or as soon as undici puts it on a connection. */
  private expire(): void {
    this.deadline = new DOMException("This operation was aborted", "AbortError");
    this.controller?.abort(this.deadline);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.deadline !== undefined) controller.abort(this.deadline);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return;
    this.answered = true;
    this.status = statusCode;
    this.bodiless = statusCode === 204 || statusCode === 304 || this.prepared.method.toUpperCase() === "HEAD";
    for (const k in headers) {
      const v = headers[k];
      if (v !== undefined) this.headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled || this.bodiless) return;
    this.size += chunk.length;
    if (this.size > this.options.maxResponseBytes) {
      const max = this.options.maxResponseBytes;
      this.settle(fail("too-large", `the body passed the read cap of ${max} bytes; reading stopped`, this.started));
      // Reading stops, unless the answer ends in the same read (its connection then stays usable, as
      // with request(), whose stream had read it whole before the cap was seen).
      queueMicrotask(() => {
        if (!this.ended) controller.abort(new Error("the body passed the read cap"));
      });
      return;
    }
    this.chunks.push(chunk);
  }

  /** An upgrade (a 101 undici took as one): not an answer the harness reads; the exchange fails. */
  onRequestUpgrade(
    _controller: Dispatcher.DispatchController,
    _status: number,
    _headers: unknown,
    socket: Duplex,
  ): void {
    socket.destroy();
    this.answered = true;
    this.onResponseError(undefined, new Error("the target switched the connection to another protocol"));
  }

  onResponseEnd(): void {
    this.ended = true;
    if (this.settled) return;
    const { chunks, size } = this;
    this.finish(this.bodiless ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  }

  /** The answer whole: its body decoded, or the failure of its coding. */
  private finish(body: Buffer): void {
    const decoded = decode(body, this.headers["content-encoding"], this.options.maxResponseBytes, this.mask);
    if (!decoded.ok) return this.settle(fail(decoded.kind, decoded.message, this.started));
    this.settle({
      ok: true,
      response: { status: this.status, headers: this.headers, body: decoded.body },
      durationMs: performance.now() - this.started,
    });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.settled) return;
    // A bodiless answer was whole with its head: what undici says of the bytes after it (a stray
    // Content-Length it waited for) is not the answer.
    if (this.answered && this.bodiless) return this.finish(Buffer.alloc(0));
    const aborted = this.deadline !== undefined;
    const f = classify(error, this.options.timeoutMs, aborted, this.mask, this.options.insecure === true);
    // undici's "other side closed": a FIN. A reset is ECONNRESET.
    const fin = (error as { code?: unknown }).code === "UND_ERR_SOCKET";
    this.settle({
      ...fail(f.kind, f.message, this.started),
      closedEarly: fin && !this.answered && !aborted,
      ...(this.answered ? { answerBegun: true } : {}),
    });
  }

  private settle(result: OnceResult): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.chunks = [];
    this.resolve(result);
  }
}

/**
 * Undoes a content coding. The harness asks for identity, but RFC 9110 section 12.5.3 lets a server
 * send a coding anyway, and judging compressed bytes as JSON would fail a correct server.
 */
export function decode(
  body: Buffer,
  coding: string | undefined,
  max: number,
  mask: (text: string) => string = (t) => t,
): { ok: true; body: Buffer } | { ok: false; kind: TransportFailureKind; message: string } {
  const c = (coding ?? "identity").trim().toLowerCase();
  if (c === "" || c === "identity") return { ok: true, body };
  try {
    if (c === "gzip" || c === "x-gzip") return { ok: true, body: gunzipSync(body, { maxOutputLength: max }) };
    if (c === "deflate") return { ok: true, body: inflateSync(body, { maxOutputLength: max }) };
    if (c === "br") return { ok: true, body: brotliDecompressSync(body, { maxOutputLength: max }) };
  } catch (error) {
    const tooBig = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    return tooBig
      ? { ok: false, kind: "too-large", message: `the ${c}-decoded body passed the read cap of ${max} bytes` }
      : {
          ok: false,
          kind: "malformed-http",
          message: `the body is not valid ${c} (${mask((error as Error).message)})`,
        };
  }
  return {
    ok: false,
    kind: "malformed-http",
    message: `Content-Encoding ${mask(JSON.stringify(coding))} was not asked for and is not one the harness can decode`,
  };
}

function fail(kind: TransportFailureKind, message: string, started: number): ExchangeResult {
  return { ok: false, failure: { kind, message }, durationMs: performance.now() - started };
}

/** The target's URL with the operation's path appended to its base path. */
export function joinUrl(base: URL, path: string): string {
  return base.href.replace(/\/+$/, "") + path;
}

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/** Sorts a transport error by its code (never by its message text). */
function classify(
  error: unknown,
  timeoutMs: number,
  aborted: boolean,
  mask: (text: string) => string = (t) => t,
  insecure = false,
): TransportFailure {
  const e = error as { code?: unknown; name?: string; message?: string; cause?: { code?: unknown; message?: string } };
  // A DOMException's code is a number; only string codes (Node's and undici's) name a cause.
  const code = typeof e.code === "string" ? e.code : typeof e.cause?.code === "string" ? e.cause.code : "";
  // One line whatever the library wrote: OpenSSL's messages end in a line break.
  const text = `${e.message ?? e.cause?.message ?? String(error)}`.replace(/\s+/g, " ").trim();
  const detail = mask(`${code === "" ? "" : `${code}: `}${text}`);
  if (UNREACHABLE.has(code)) return { kind: "unreachable", message: `could not connect (${detail})`, code };
  // A TLS handshake answered by something that is not TLS: advice about certificates would mislead.
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "ERR_SSL_PACKET_LENGTH_TOO_LONG")
    return {
      kind: "tls",
      message: `TLS failed (${detail}): the target does not speak TLS on this port; is it plain HTTP (http://)?`,
    };
  if (
    code.startsWith("ERR_TLS") ||
    code.startsWith("CERT_") ||
    code.includes("SELF_SIGNED") ||
    code.startsWith("UNABLE_TO_")
  ) {
    const advice = insecure
      ? "--insecure skips the certificate check only; the handshake itself failed"
      : "trust the target's CA with --ca-file FILE, or use --insecure for a private test server";
    return { kind: "tls", message: `TLS failed (${detail}); ${advice}` };
  }
  if (
    aborted ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    e.name === "TimeoutError" ||
    e.name === "AbortError"
  ) {
    return { kind: "timeout", message: `no complete answer within ${timeoutMs} ms (${detail})` };
  }
  if (code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH")
    return { kind: "length-mismatch", message: `the body's length differs from its Content-Length (${detail})` };
  if (code.startsWith("HPE_") || e.name === "HTTPParserError")
    return { kind: "malformed-http", message: `the answer is not valid HTTP/1.1 (${detail})` };
  if (code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_CLOSED") {
    return { kind: "reset", message: `the connection closed before a complete answer (${detail})` };
  }
  return { kind: "reset", message: `the exchange failed (${detail})` };
}

/** Opens (and closes) one TCP or TLS connection; undefined when the target is there. */
function probeConnection(
  base: URL,
  timeoutMs: number,
  ca: Buffer | undefined,
  insecure: boolean,
  mask: (text: string) => string,
): Promise<TransportFailure | undefined> {
  return new Promise((resolve) => {
    const https = base.protocol === "https:";
    const host = base.hostname.replace(/^\[|\]$/g, "");
    const port = Number(base.port || (https ? 443 : 80));
    const socket = https
      ? tlsConnect({
          host,
          port,
          servername: /^[\d.:]+$/.test(host) ? undefined : host,
          ca,
          rejectUnauthorized: !insecure,
        })
      : netConnect({ host, port });
    const done = (failure: TransportFailure | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(failure);
    };
    // A target that accepts no connection within the timeout cannot be judged either.
    const timer = setTimeout(
      () => done({ kind: "unreachable", message: `no connection within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.once(https ? "secureConnect" : "connect", () => done(undefined));
    socket.once("error", (error) => {
      const f = classify(error, timeoutMs, false, mask, insecure);
      done(
        f.kind === "tls" || f.kind === "unreachable"
          ? f
          : { kind: "unreachable", message: `could not connect (${f.message})` },
      );
    });
  });
}
