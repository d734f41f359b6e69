import { STATUS_CODES, type ClientRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { TransportFailureKind } from "../harness/http-client.js";
import { dict } from "../dict.js";
import { answerCodeFor, proxyErrorAnswer } from "./error-answers.js";
import { classify, SWITCHED, type UpstreamFailure } from "./upstream-failure.js";
import { connectingNow, release } from "./connection-watch.js";
import { refusedByClient, type Leg, type Upstream } from "./upstream.js";

/**
 * Fields that describe one connection, not the message: a proxy does not forward them (RFC 9110
 * section 7.6.1), nor the fields the Connection header names. Each hop's Node stack writes its own
 * persistence fields. Transfer-Encoding is kept, so Node frames the next hop the same way: chunked
 * stays chunked, a Content-Length stays a Content-Length (RFC 9112 section 6.1).
 */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "upgrade"]);

/** A message's raw header list as the proxy needs it: what goes on to the next hop, and what the judging reads. */
export interface SplitHeaders {
  /**
   * The raw list (names as written, order and repeats kept) without hop-by-hop fields; with `host`,
   * the Host field is the upstream's authority, as a gateway's outbound request needs (RFC 9110
   * section 7.2), in the place the client put it.
   */
  readonly forwarded: string[];
  /** Lower-case names, repeated fields joined with ", " (RFC 9110 section 5.3), hop-by-hop ones too. */
  readonly map: Record<string, string>;
}

/** Both views of a raw header list, in one pass over it (a second only when Connection names fields). */
export function splitHeaders(raw: readonly string[], host?: string): SplitHeaders {
  const map = dict<string>();
  const forwarded: string[] = [];
  let hostDone = host === undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const lower = name.toLowerCase();
    const had = map[lower];
    map[lower] = had === undefined ? value : `${had}, ${value}`;
    if (HOP_BY_HOP.has(lower)) continue;
    if (lower === "host" && host !== undefined) {
      if (!hostDone) forwarded.push(name, host);
      hostDone = true;
      continue;
    }
    forwarded.push(name, value);
  }
  // An HTTP/1.0 request may come without Host; the upstream still needs one (RFC 9112 section 3.2).
  if (!hostDone) forwarded.unshift("Host", host!);
  const connection = map.connection;
  return { forwarded: connection === undefined ? forwarded : withoutNamed(forwarded, connection, host), map };
}

/** The list without the fields the Connection header names (RFC 9110 section 7.6.1). */
function withoutNamed(list: string[], connection: string, host: string | undefined): string[] {
  // Most often the one option keep-alive, a hop-by-hop field already left out.
  if (!connection.includes(",") && HOP_BY_HOP.has(connection.trim().toLowerCase())) return list;
  const named = new Set<string>();
  for (const token of connection.split(",")) {
    const name = token.trim().toLowerCase();
    if (name !== "" && !HOP_BY_HOP.has(name)) named.add(name);
  }
  if (named.size === 0) return list;
  const out: string[] = [];
  for (let i = 0; i < list.length; i += 2) if (!named.has(list[i]!.toLowerCase())) out.push(list[i]!, list[i + 1]!);
  // A Host the client's Connection named is still the upstream's authority, first.
  if (host !== undefined && named.has("host")) out.unshift("Host", host);
  return out;
}

/** Keeps a body's bytes up to a cap, for judging; past it only the count goes on. */
export class BodyCapture {
  private chunks: Buffer[] = [];
  bytes = 0;
  over = false;

  constructor(private readonly max: number) {}

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.over) return;
    if (this.bytes > this.max) {
      this.over = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
  }

  /** The whole body, or undefined when it passed the cap. */
  body(): Buffer | undefined {
    if (this.over) return undefined;
    // One chunk (a small body) is the body itself: no copy.
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.bytes);
  }
}

/** What happened to one exchange. Bodies are kept only up to the cap. */
export interface ForwardedExchange {
  readonly method: string;
  /** The request target as the client sent it. */
  readonly target: string;
  readonly requestHeaders: Record<string, string>;
  readonly requestBody: BodyCapture;
  /** Whether the client's request arrived whole. */
  readonly requestComplete: boolean;
  /** The upstream's answer head, when one came. */
  readonly response: { readonly status: number; readonly headers: Record<string, string> } | undefined;
  readonly responseBody: BodyCapture;
  /** Whether the upstream's answer arrived whole. */
  readonly responseComplete: boolean;
  readonly failure: UpstreamFailure | undefined;
  /** The status the proxy answered itself (502, 504), when the upstream failed before its answer's head. */
  readonly answeredWith: number | undefined;
  /** The client went away (or stalled, or sent what Node cannot forward) first: not the server's fault. */
  readonly clientGone: string | undefined;
  /** The proxy could not read the upstream's answer, through no fault of the upstream's (why, in words). */
  readonly proxyFault: string | undefined;
  readonly durationMs: number;
}

/** The Error-shaped body the proxy answers with when the upstream failed: an answer of its wire-error table. */
export function upstreamErrorBody(kind: TransportFailureKind, detail: string): { status: number; body: string } {
  return proxyErrorAnswer(answerCodeFor(kind), detail);
}

/**
 * Forwards one exchange, streaming both ways (pipe, so backpressure holds and nothing is buffered
 * before it is forwarded), and records what passed, up to `maxBodyBytes` per body. Resolves when the
 * exchange is over, whatever happened; never rejects. `timeoutMs` bounds silence: no byte either way
 * for that long ends the exchange (504 if the upstream had not answered yet).
 */
export function forwardExchange(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: Upstream,
  limits: { readonly maxBodyBytes: number; readonly timeoutMs: number },
  onAnswer: () => void,
): Promise<ForwardedExchange> {
  return new Promise((resolve) => new InFlight(req, res, upstream, limits, onAnswer, resolve).forward());
}

/** One exchange on its way: what has passed so far, and the handlers of both connections' events. */
class InFlight implements Leg {
  private readonly started = performance.now();
  private readonly method: string;
  private readonly target: string;
  private readonly requestBody: BodyCapture;
  private readonly responseBody: BodyCapture;
  /** The request's fields: what goes on to the upstream, and what the judging reads. */
  private readonly requestHeaders: SplitHeaders;
  private response: ForwardedExchange["response"];
  private answer: IncomingMessage | undefined;
  private failure: UpstreamFailure | undefined;
  private answeredWith: number | undefined;
  private clientGone: string | undefined;
  private proxyFault: string | undefined;
  private timedOut = false;
  private settled = false;
  /** The upstream answered whole before the client's request was: the rest of it is not forwarded. */
  private abandoned = false;
  private outbound: ClientRequest | undefined;
  private readonly watchdog: NodeJS.Timeout;
  /** Through undici (`Leg`): its abort, its resume after backpressure, whether its answer ended as framed. */
  private abortLeg: ((error?: Error) => void) | undefined;
  private resumeLeg: (() => void) | undefined;
  private legEnded = false;
  /** While undici is given the request: a refusal now means it sent nothing. */
  private dispatching = false;
  private refused: unknown;
  /** The error of undici's that a bodiless answer with a Content-Length ended on (not the upstream's fault). */
  private forgiven: Error | undefined;
  /** What went to undici, kept to send again through node:http (see `onError`). */
  private sent: { readonly forwarded: string[]; readonly body: Buffer | null } | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly upstream: Upstream,
    private readonly limits: { readonly maxBodyBytes: number; readonly timeoutMs: number },
    private readonly onAnswer: () => void,
    private readonly resolve: (exchange: ForwardedExchange) => void,
  ) {
    this.method = req.method ?? "GET";
    this.target = req.url ?? "/";
    this.requestHeaders = splitHeaders(req.rawHeaders, upstream.host);
    this.requestBody = new BodyCapture(limits.maxBodyBytes);
    this.responseBody = new BodyCapture(limits.maxBodyBytes);
    // The Date and Connection fields are the upstream's to write (or not); the proxy adds none.
    res.sendDate = false;
    this.watchdog = setTimeout(() => this.silent(), limits.timeoutMs);
  }

  /** Sends the request on, streaming its body, and follows both connections until the exchange is over. */
  forward(): void {
    const { req, res, requestHeaders: headers } = this;
    req.on("error", () => undefined); // the client's reset shows as res "close" below
    res.on("close", () => {
      if (!res.writableFinished && this.failure === undefined && this.clientGone === undefined) {
        this.clientGone = "the client closed the connection before the answer was complete";
        this.outbound?.destroy();
        this.abortLeg?.();
      }
      this.settle();
    });
    if (!this.upstream.nodeOnly && wholeFirst(this.method, this.target, headers.map)) this.sendWhole(headers.forwarded);
    else this.stream(headers.forwarded);
  }

  /** Through node:http's client, the body streamed as it comes. */
  private stream(forwarded: string[]): void {
    const outbound = this.byNode(forwarded);
    if (outbound === undefined) return;
    this.req.on("data", (chunk: Buffer) => {
      this.requestBody.add(chunk);
      this.progress();
    });
    this.req.pipe(outbound);
  }

  /** Through node:http's client, the body already read (undici refused the request, or it is sent again). */
  private sendByNode(forwarded: string[], body: Buffer | null): void {
    this.byNode(forwarded)?.end(body ?? undefined);
  }

  /** The request's head on its way through node:http (undefined when node:http refused it: answered already). */
  private byNode(forwarded: string[]): ClientRequest | undefined {
    let outbound: ClientRequest;
    try {
      outbound = this.upstream.request(this.method, originForm(this.target), forwarded);
    } catch (error) {
      this.unforwardable(error);
      return undefined;
    }
    this.outbound = outbound;
    outbound.on("error", (error) => this.fail(error));
    outbound.on("response", (incoming) => this.answered(incoming));
    outbound.on("upgrade", (_incoming: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      this.switched("an Upgrade answer");
    });
    return outbound;
  }

  /**
   * Through undici's dispatch: the request's body (small, its length declared) read first, then sent
   * with it. A request undici will not build goes through node:http instead, which sends it or refuses
   * it as before.
   */
  private sendWhole(forwarded: string[]): void {
    const req = this.req;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      this.requestBody.add(chunk);
      chunks.push(chunk);
      this.progress();
    });
    req.on("end", () => {
      if (this.clientGone !== undefined || this.settled) return;
      const body = chunks.length === 0 ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      this.dispatching = true;
      this.sent = { forwarded, body };
      this.upstream.dispatch(this.method, originForm(this.target), forwarded, body, this);
      this.dispatching = false;
      if (this.refused !== undefined) this.sendByNode(forwarded, body);
    });
  }

  /** Leg: undici writes the request now. */
  onConnect(abort: (error?: Error) => void): void {
    this.abortLeg = abort;
    // Over before undici had a connection (the watchdog, the client gone): nothing goes out.
    if (this.over()) return abort();
    connectingNow(this);
  }

  /** The exchange has its outcome (a failure, the client gone, the record made): undici's leg is not wanted. */
  private over(): boolean {
    return this.settled || this.failure !== undefined || this.clientGone !== undefined;
  }

  /** Leg: the answer's head; it goes to the client as it is. An informational (1xx) head is not forwarded. */
  onHeaders(status: number, raw: Buffer[], resume: () => void, statusText: string): boolean {
    if (this.over()) {
      this.abortLeg?.();
      return false;
    }
    if (status < 200) return true;
    this.sent = undefined;
    this.resumeLeg = resume;
    const list: string[] = [];
    for (const b of raw) list.push(b.toString("latin1"));
    this.progress();
    this.onAnswer();
    const headers = splitHeaders(list);
    this.response = { status, headers: headers.map };
    try {
      this.res.writeHead(status, this.reasonPhrase(status, statusText), headers.forwarded);
    } catch (error) {
      this.unwritable("answer head", error);
      return false;
    }
    return true;
  }

  /**
   * undici decodes the reason phrase as UTF-8; node:http reads it as Latin-1 and writes it so. The
   * bytes are recovered, unless they were not UTF-8 (obs-text, RFC 9112 section 4): then the status's
   * usual phrase goes to the client (a client ignores the phrase, RFC 9112 section 4), and this
   * upstream's answers go through node:http from now on.
   */
  private reasonPhrase(status: number, decoded: string): string {
    // Most phrases are ASCII ("OK"), the same text either way: no copy per answer.
    if (ASCII.test(decoded)) return decoded;
    if (!decoded.includes("\uFFFD")) return Buffer.from(decoded, "utf8").toString("latin1");
    this.upstream.nodeOnly = true;
    return STATUS_CODES[status] ?? "unknown";
  }

  /** Leg: a piece of the answer's body, written on; undici waits while the client's connection is full. */
  onData(chunk: Buffer): boolean {
    if (this.over()) {
      this.abortLeg?.();
      return false;
    }
    this.responseBody.add(chunk);
    this.progress();
    if (this.res.write(chunk)) return true;
    this.res.once("drain", () => this.resumeLeg?.());
    return false;
  }

  /** Leg: the answer ended as its framing said, with its trailers. */
  onComplete(trailers: readonly (Buffer | string)[] | null): void {
    if (trailers !== null && trailers.length > 0) {
      const list = trailers.map((t) => (typeof t === "string" ? t : t.toString("latin1")));
      if (!this.forwardTrailers(list)) return;
    }
    this.legEnded = true;
    this.res.end();
  }

  /** Leg: the exchange failed, or undici refused to build the request (then nothing went out). */
  onError(error: Error): void {
    if (this.dispatching && refusedByClient(error)) this.refused = error;
    else if (this.bodilessWithLength(error)) {
      // A 304's Content-Length is its representation's (RFC 9110 section 8.6); undici expects the
      // bytes. The answer is whole: it ends here, and undici's closing of the connection is no fault.
      // Bytes after it undici does not read: this upstream's answers go through node:http from now on.
      this.forgiven = error;
      this.upstream.nodeOnly = true;
      this.onComplete(null);
    } else if (this.response === undefined && this.sent !== undefined && unaskedContinue(error))
      this.continued(this.sent);
    else this.fail(error);
  }

  /**
   * The upstream answered 100 Continue to a request without Expect, which RFC 9110 section 15.2
   * allows and undici does not read past (it closes the connection). From now on every request to
   * this upstream goes through node:http, which reads on to the final answer. This one is sent again
   * that way if its method is idempotent, as a proxy may (RFC 9110 section 9.2.2); otherwise the
   * client gets a 502 and the exchange is not judged: the fault is the proxy's.
   */
  private continued(sent: NonNullable<InFlight["sent"]>): void {
    if (this.over()) return;
    this.upstream.nodeOnly = true;
    this.abortLeg = undefined;
    if (IDEMPOTENT.has(this.method)) return this.sendByNode(sent.forwarded, sent.body);
    const why =
      "the upstream answered 100 Continue to a request without Expect (RFC 9110 section 15.2 allows it), " +
      `which the proxy's client for small requests cannot read past, and a ${this.method} is not sent twice; ` +
      "later requests to this upstream go through a client that reads past it";
    this.proxyFault = why;
    this.answerOwn("reset", why);
  }

  /**
   * The proxy's own answer (502, 504), from its wire-error table. The reason phrase is written out:
   * a head of the upstream's that node:http refused may have left its own behind, refused again.
   */
  private answerOwn(kind: TransportFailureKind, detail: string): void {
    const own = upstreamErrorBody(kind, detail);
    this.answeredWith = own.status;
    this.res.writeHead(own.status, STATUS_CODES[own.status], {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(own.body)),
    });
    this.res.end(own.body);
  }

  /** Writes the answer's trailers on; false when node:http will not write them (then the answer is broken off). */
  private forwardTrailers(raw: readonly string[]): boolean {
    try {
      this.res.addTrailers(pairs(raw));
      return true;
    } catch (error) {
      this.unwritable("trailer fields", error);
      return false;
    }
  }

  /** The upstream switched protocols (101), which no request through the proxy asks for (Upgrade is hop-by-hop). */
  private switched(detail: string): void {
    this.fail(new Error(detail), {
      kind: "malformed-http",
      message: `${SWITCHED} (${detail})`,
    });
  }

  /** Part of the upstream's answer holds what node:http will not write (a control character): a malformed answer. */
  private unwritable(part: "answer head" | "trailer fields", error: unknown): void {
    const code = (error as { code?: unknown }).code;
    const named = typeof code === "string" ? `${code}: ` : "";
    this.fail(error, {
      kind: "malformed-http",
      message: `the upstream's ${part} cannot be forwarded (${named}${(error as Error).message})`,
    });
  }

  /** undici's complaint that a 204 or 304, which has no body, had none of the length its Content-Length says. */
  private bodilessWithLength(error: Error & { code?: unknown }): boolean {
    const status = this.response?.status;
    return (
      error.code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH" &&
      (status === 204 || status === 304) &&
      this.responseBody.bytes === 0 &&
      !this.legEnded
    );
  }

  /** Leg: bytes or an error on the connection after the answer ended. */
  afterEnd(error: Error): void {
    if (this.legEnded && !this.settled && error !== this.forgiven) this.fail(error);
  }

  /** The rest of the client's request is read and thrown away (up to DISCARD_CAP), not forwarded. */
  private abandon(): void {
    this.abandoned = true;
    const { req } = this;
    if (this.outbound !== undefined) req.unpipe(this.outbound);
    this.outbound?.destroy();
    let discarded = 0;
    req.removeAllListeners("data");
    req.on("data", (chunk: Buffer) => {
      this.requestBody.add(chunk);
      discarded += chunk.length;
      if (discarded > DISCARD_CAP) req.destroy();
    });
    // The exchange's watchdog is gone with its answer: a client that stalls here is let go after the same silence.
    req.setTimeout(this.limits.timeoutMs, () => req.destroy());
    req.resume();
  }

  /** A byte went either way: the silence starts again. */
  private progress(): void {
    void this.watchdog.refresh();
  }

  /** Resolves with what passed, once. */
  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    release(this);
    clearTimeout(this.watchdog);
    this.resolve({
      method: this.method,
      target: this.target,
      requestHeaders: this.requestHeaders.map,
      requestBody: this.requestBody,
      requestComplete: this.req.complete,
      response: this.response,
      responseBody: this.responseBody,
      responseComplete: (this.legEnded || this.answer?.complete === true) && this.failure === undefined,
      failure: this.failure,
      answeredWith: this.answeredWith,
      clientGone: this.clientGone,
      proxyFault: this.proxyFault,
      durationMs: performance.now() - this.started,
    });
  }

  /**
   * The upstream failed (`known` says how, else its error is classified): the client gets the
   * proxy's own answer, or a broken one if the upstream's head is out.
   */
  private fail(error: unknown, known?: UpstreamFailure): void {
    if (this.failure !== undefined || this.clientGone !== undefined || this.abandoned) return;
    const res = this.res;
    if (known === undefined && (this.legEnded || this.answer?.complete === true)) {
      // The answer ended as its framing said, and then more bytes came (a Content-Length shorter than
      // the body): the client gets the answer Node read, and the upstream is held to the extra bytes.
      const detail = (error as { code?: unknown }).code;
      this.failure = {
        kind: "malformed-http",
        message:
          "the upstream sent bytes after the end of its answer (a Content-Length shorter than the body?)" +
          (typeof detail === "string" ? ` (${detail})` : ""),
      };
      return;
    }
    const declared = this.response?.headers["content-length"];
    const failure =
      known ??
      classify(
        error,
        this.timedOut,
        this.limits.timeoutMs,
        this.response !== undefined,
        declared,
        this.responseBody.bytes,
      );
    this.failure = failure;
    if (!res.headersSent && !res.destroyed) this.answerOwn(failure.kind, failure.message);
    else {
      // The head is out: the client must see the same broken answer the upstream gave, not a complete one.
      res.destroy();
    }
    this.outbound?.destroy();
    this.abortLeg?.();
  }

  /** No byte either way for the timeout. */
  private silent(): void {
    if (!this.req.complete) {
      // The client stopped sending its request: that is the client's stall, not the upstream's.
      this.clientGone = `the client sent nothing for ${this.limits.timeoutMs} ms before its request was whole`;
      this.outbound?.destroy();
      this.abortLeg?.();
      this.res.destroy();
      return;
    }
    this.timedOut = true;
    this.fail(new Error("timeout"));
  }

  /**
   * Node refused to write the request on (a character it will not send): the upstream never saw
   * it, so it is no one's violation; the client still gets an answer.
   */
  private unforwardable(error: unknown): void {
    const code = (error as { code?: unknown }).code;
    const clientGone = `the request could not be forwarded (${typeof code === "string" ? code : "unknown"})`;
    this.clientGone = clientGone;
    this.answerOwn("reset", clientGone);
    this.settle();
  }

  /** The upstream's answer head came: it goes to the client as it is, its body streamed after it. */
  private answered(incoming: IncomingMessage): void {
    const res = this.res;
    if (incoming.statusCode === 101) return this.switched("101 without Upgrade");
    this.answer = incoming;
    this.progress();
    this.onAnswer();
    const headers = splitHeaders(incoming.rawHeaders);
    this.response = { status: incoming.statusCode ?? 0, headers: headers.map };
    try {
      res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, headers.forwarded);
    } catch (error) {
      this.unwritable("answer head", error);
      return;
    }
    incoming.on("data", (chunk: Buffer) => {
      this.responseBody.add(chunk);
      this.progress();
    });
    // Registered before pipe's own "end" handler, so the trailers go out before the last chunk.
    incoming.on("end", () => {
      if (incoming.rawTrailers.length > 0 && !this.forwardTrailers(incoming.rawTrailers)) return;
      if (!this.req.complete) this.abandon();
    });
    incoming.on("error", (error) => this.fail(error));
    incoming.on("close", () => {
      if (!incoming.complete)
        this.fail(Object.assign(new Error("the upstream's answer ended early"), { code: "ECONNRESET" }));
    });
    incoming.pipe(res);
  }
}

/**
 * The upstream answered whole (a 413 for a body over its limit) while the client still sends: the
 * rest of the request goes nowhere (the upstream connection, its request unfinished, is dropped), and
 * is read and thrown away up to a cap, so the client reads its answer rather than a reset.
 */
const DISCARD_CAP = 64 * 1024 * 1024;

const ASCII = /^[\x00-\x7f]*$/;

/** Methods a proxy may send again when the connection failed before an answer (RFC 9110 section 9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/** undici's error for a 100 Continue it did not ask for (the only "bad response" while a request of its runs). */
function unaskedContinue(error: Error & { code?: unknown }): boolean {
  return error.code === "UND_ERR_SOCKET" && error.message === "bad response";
}

/** The most a body may be to be read whole before it is sent on (through undici); a larger one streams. */
const WHOLE_FIRST_BYTES = 64 * 1024;

/**
 * Whether a request goes through undici, its body read first: a declared length up to
 * WHOLE_FIRST_BYTES or no body, and nothing undici sends otherwise than node:http. Not HEAD (undici
 * closes the connection after one), not Expect (undici does not send it), not Transfer-Encoding
 * (undici frames a body itself).
 */
function wholeFirst(method: string, target: string, headers: Record<string, string>): boolean {
  if (method === "HEAD" || headers.expect !== undefined || headers["transfer-encoding"] !== undefined) return false;
  // undici sends only an origin-form target (`OPTIONS *` it refuses, and a refusal costs its pool a client).
  if (!originForm(target).startsWith("/")) return false;
  const length = headers["content-length"];
  return length === undefined || (/^\d{1,6}$/.test(length) && Number(length) <= WHOLE_FIRST_BYTES);
}

/** The request target in origin-form: an absolute-form one (RFC 9112 section 3.2.2) loses scheme and authority. */
function originForm(target: string): string {
  if (target.startsWith("/") || target === "*") return target;
  try {
    const u = new URL(target);
    return u.pathname + u.search;
  } catch {
    return target;
  }
}

function pairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}
