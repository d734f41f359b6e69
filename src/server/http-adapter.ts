import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { requestPath, type CoreRequest } from "./request.js";
import { REQUEST_LINE_PARTS, requestLine, type RequestLog } from "./request-line.js";
import { DEFAULT_MAX_BODY_BYTES } from "./defaults.js";
import { errorAnswer, REASON_HEADER, type ErrorAnswerCode, type WireResponse } from "./error-answers.js";

export interface HttpOptions {
  readonly host: string;
  readonly port: number;
  /** Bodies above this are refused with 413; the rest is read and thrown away, up to discardCap. */
  readonly maxBodyBytes: number;
  /** Time allowed for the request headers (slow-loris protection). */
  readonly headersTimeoutMs: number;
  /** Time allowed for the whole request, body included. */
  readonly requestTimeoutMs: number;
  /** Artificial latency before each answer, so frontends can build loading states. */
  readonly delayMs: number;
  /**
   * Receives one line per request, without headers, query or body (they may hold secrets); or its
   * parts, where it takes them (request-line.ts).
   */
  readonly log: RequestLog | undefined;
}

export const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  host: "127.0.0.1",
  port: 4010,
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  delayMs: 0,
  log: undefined,
};

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Stops accepting, lets requests in flight finish (up to graceMs), then closes every socket. */
  close(graceMs?: number): Promise<void>;
}

/** Serves an engine's `handle` (which answers its own failures) over node:http. This adapter only moves bytes. */
export async function startHttpServer(
  handle: (request: CoreRequest) => WireResponse,
  options: HttpOptions,
): Promise<RunningServer> {
  const server = createServer({
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    keepAliveTimeout: 5_000,
    // Node checks the two timeouts above only this often (30 s by default), too coarse for them.
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, options.headersTimeoutMs / 2)),
  });
  let closing = false;
  const onRequest = requestListener(
    handle,
    options,
    answerWriter(options, () => closing),
  );
  server.on("request", onRequest);
  // Expect: 100-continue: an oversized body is refused before the client is invited to send it.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers["content-length"] ?? 0) <= options.maxBodyBytes) res.writeContinue();
    onRequest(req, res);
  });
  server.on("clientError", answerClientError);
  // CONNECT asks for a tunnel, which this server is not (RFC 9110 9.3.6): 405, and the methods it serves.
  server.on("connect", (_req: IncomingMessage, socket: Socket) => {
    const detail = "CONNECT: this server is not a proxy";
    socket.end(rawResponse(errorAnswer("PS_METHOD_NOT_ALLOWED", detail, { headers: { allow: SERVED_METHODS } })));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    server,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        // Answers sent from now on close their connection, so keep-alive sockets end with them.
        closing = true;
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** Writes an answer to a request. */
type Send = (req: IncomingMessage, res: ServerResponse, started: number, answer: WireResponse, close?: boolean) => void;

/** Writes answers after the delay, if any, their connection closed when asked or while the server closes; logs each. */
function answerWriter(options: HttpOptions, closing: () => boolean): Send {
  const log = options.log;
  const parts = log?.[REQUEST_LINE_PARTS];
  const write = (
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
    answer: WireResponse,
    close: boolean,
  ): void => {
    if (res.writableEnded || res.destroyed) return;
    // As a flat list of names and values (node:http takes one): no object made per answer, and a
    // header named `__proto__` stays a header.
    const headers: string[] = [];
    for (const k in answer.headers) headers.push(k, answer.headers[k] as string);
    headers.push("content-length", String(Buffer.byteLength(answer.body)));
    if (close || closing()) headers.push("connection", "close");
    res.writeHead(answer.status, headers);
    res.end(answer.body);
    if (log !== undefined) {
      // In tenths of a millisecond as integers: `toFixed(1)` costs a fifth of the line.
      const tenths = Math.round((performance.now() - started) * 10);
      const method = String(req.method);
      const path = requestPath(req.url ?? "");
      const reason = answer.headers[REASON_HEADER];
      if (parts !== undefined) parts(method, path, answer.status, tenths, reason);
      else log(requestLine(method, path, answer.status, tenths, reason));
    }
  };
  // Without a delay (none, 0, or not a number), written at once: no closure made per answer.
  if (!(options.delayMs > 0))
    return (req, res, started, answer, close = false) => write(req, res, started, answer, close);
  return (req, res, started, answer, close = false) => {
    setTimeout(() => write(req, res, started, answer, close), options.delayMs).unref();
  };
}

/** How much of a refused body is read and thrown away before the connection is reset: 4 limits, 16 MiB at least. */
export const discardCap = (maxBodyBytes: number): number => Math.max(4 * maxBodyBytes, 16 * 1024 * 1024);

/** Reads a request's body up to the limit (a larger one is refused with 413, unread) and answers with `handle`. */
function requestListener(
  handle: (request: CoreRequest) => WireResponse,
  options: HttpOptions,
  send: Send,
): (req: IncomingMessage, res: ServerResponse) => void {
  // A body past the limit gets its 413 at once, and the rest is read and thrown away (up to a cap)
  // rather than cut off: closing a socket with unread bytes resets it, and a client still sending
  // (fetch, Node's http, a proxy) would see the reset instead of the 413. Past the cap it is reset.
  const tooLarge = (req: IncomingMessage, res: ServerResponse, started: number, detail: string): void => {
    send(req, res, started, errorAnswer("PS_BODY_TOO_LARGE", detail));
    const cap = discardCap(options.maxBodyBytes);
    let discarded = 0;
    req.removeAllListeners("data");
    req.on("data", (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > cap) req.destroy();
    });
    req.resume();
  };
  return (req, res) => {
    // Monotonic, as a double: no bigint made per request.
    const started = options.log === undefined ? 0 : performance.now();
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > options.maxBodyBytes)
      return tooLarge(req, res, started, `${declared} bytes declared, at most ${options.maxBodyBytes}`);

    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > options.maxBodyBytes) {
        refused = true;
        chunks.length = 0;
        tooLarge(req, res, started, `more than ${options.maxBodyBytes} bytes`);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (refused) return;
      // The engine's handle answers its own failures (engine.ts `failureAnswer`): it never throws.
      const answer = handle({
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers,
        // One chunk (a small body) is the body itself: no copy.
        body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size),
      });
      send(req, res, started, answer);
    });
    // A client that goes away mid-body gets no answer; nothing was stored for it.
    req.on("error", () => req.destroy());
  };
}

/** A request Node could not parse (or that took too long) gets its error answer, and the connection ends. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const code: ErrorAnswerCode =
    error.code === "HPE_HEADER_OVERFLOW"
      ? "PS_HEADERS_TOO_LARGE"
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "PS_REQUEST_TIMEOUT"
        : "PS_MALFORMED_HTTP";
  socket.end(rawResponse(errorAnswer(code)));
}

/** The methods an HTTP server of the kit serves on some path, for the Allow of a CONNECT's 405. */
export const SERVED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

function rawResponse(answer: WireResponse): string {
  const headers = Object.entries({
    ...answer.headers,
    "content-length": String(Buffer.byteLength(answer.body)),
    connection: "close",
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ""}\r\n${headers}\r\n${answer.body}`;
}
