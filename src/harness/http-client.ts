import { readFileSync } from "node:fs";
import { connect as netConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { Readable } from "node:stream";
import { Agent, buildConnector, request } from "undici";
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
async function exchangeOnce(
  base: URL,
  prepared: PreparedRequest,
  dispatcher: Agent,
  options: ClientOptions,
  mask: (text: string) => string,
): Promise<ExchangeResult & { readonly closedEarly?: boolean }> {
  const started = performance.now();
  const url = joinUrl(base, prepared.path);
  // One timer per exchange bounds the whole of it, connect to last byte (undici's own timeouts bound
  // silences only). A Deadline and a timer cost a fraction of AbortSignal.timeout's.
  const controller = new Deadline();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let answered = false;
  try {
    const res = await request(url, {
      method: prepared.method as "POST",
      headers: prepared.headers,
      body: prepared.body,
      dispatcher,
      signal: controller,
    });
    answered = true;
    // 1xx, 204 and 304 answers, and answers to HEAD, end with their headers whatever Content-Length
    // says (RFC 9112 section 6.3): a stray length is not a broken answer.
    const bodiless = res.statusCode < 200 || res.statusCode === 204 || res.statusCode === 304;
    if (bodiless || prepared.method.toUpperCase() === "HEAD") await res.body.dump().catch(() => undefined);
    const body =
      bodiless || prepared.method.toUpperCase() === "HEAD"
        ? Buffer.alloc(0)
        : await readCapped(res.body, options.maxResponseBytes);
    if (body === undefined)
      return fail(
        "too-large",
        `the body passed the read cap of ${options.maxResponseBytes} bytes; reading stopped`,
        started,
      );
    const headers: Record<string, string> = {};
    for (const k in res.headers) {
      const v = res.headers[k];
      if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
    }
    const decoded = decode(body, headers["content-encoding"], options.maxResponseBytes, mask);
    if (!decoded.ok) return fail(decoded.kind, decoded.message, started);
    return {
      ok: true,
      response: { status: res.statusCode, headers, body: decoded.body },
      durationMs: performance.now() - started,
    };
  } catch (error) {
    const f = classify(error, options.timeoutMs, controller.aborted, mask, options.insecure === true);
    // undici's "other side closed": a FIN. A reset is ECONNRESET.
    const fin = (error as { code?: unknown }).code === "UND_ERR_SOCKET";
    return {
      ...fail(f.kind, f.message, started),
      closedEarly: fin && !answered && !controller.aborted,
      ...(answered ? { answerBegun: true } : {}),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The abort of one exchange, as undici takes an EventEmitter for its `signal` (`on`, `once`,
 * `removeListener`, `aborted`): an AbortController is an EventTarget, whose making and listeners
 * cost a few microseconds an exchange, which a harness sending thousands of cases feels.
 */
export class Deadline {
  aborted = false;
  /** Why it aborted, as an AbortSignal says it: undici passes it on as the exchange's error. */
  reason: unknown = undefined;
  #listeners: (() => void)[] = [];

  on(_event: "abort", listener: () => void): this {
    this.#listeners.push(listener);
    return this;
  }

  once(event: "abort", listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(_event: "abort", listener: () => void): this {
    const at = this.#listeners.indexOf(listener);
    if (at >= 0) this.#listeners.splice(at, 1);
    return this;
  }

  /** Aborts once: each listener is told, then none is kept. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException("This operation was aborted", "AbortError");
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/**
 * Reads a body whole, or stops (destroying it) once it passes `max` bytes: undefined then. Plain
 * stream events, not an async iterator: a few microseconds less per exchange, which a harness
 * sending thousands of cases feels.
 */
function readCapped(body: Readable, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    body.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    body.once("error", reject);
  });
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
