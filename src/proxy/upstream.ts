import { subscribe } from "node:diagnostics_channel";
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { Pool, type Dispatcher } from "undici";

/**
 * The upstream: where requests go, and the pooled keep-alive connections to it, two ways. Most
 * requests (a body of known small length, no Expect) go through undici's dispatch API, whose client
 * costs a third of node:http's per exchange; the rest stream through node:http's client.
 */
export interface Upstream {
  readonly base: URL;
  /** The authority to put in Host. */
  readonly host: string;
  /**
   * Every request goes through node:http: under --insecure-http-parser (undici's parser has no lenient
   * mode, and node:http's does), or once the upstream answered 100 Continue unasked (forward.ts `continued`).
   */
  nodeOnly: boolean;
  /** Through node:http: streams the body, sends Expect, keeps every field as written. */
  request(method: string, target: string, headers: string[]): ClientRequest;
  /**
   * Through undici (see `Leg`): the whole body given at once. A request undici will not build (a
   * field or target it refuses) reaches `leg.onError` before this returns, with `refusedByClient` true.
   */
  dispatch(method: string, target: string, headers: string[], body: Buffer | null, leg: Leg): void;
  close(): void;
}

/** An exchange's handler for undici's dispatch, told also when its connection breaks after its answer ended. */
export interface Leg extends Dispatcher.DispatchHandler {
  /** Bytes or an error came on the connection after the answer's end (a Content-Length shorter than the body). */
  afterEnd(error: Error): void;
}

/** An upstream for a base URL (http or https, maybe with a base path the request targets are appended to). */
export function createUpstream(base: URL): Upstream {
  const https = base.protocol === "https:";
  const agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  // The exchange's own watchdog bounds every wait (silence of --timeout), so undici's do not; a
  // server's Keep-Alive timeout is trusted to within 1 s (undici's default margin, 2 s, would make
  // `timeout=2` close every connection after one answer).
  const pool = new Pool(base.origin, {
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: { timeout: 0 },
    keepAliveTimeoutThreshold: 1_000,
  });
  const basePath = base.pathname.replace(/\/+$/, "");
  watchConnections();
  return {
    base,
    host: base.host,
    nodeOnly: lenientParsing(),
    request(method, target, headers) {
      const options = {
        protocol: base.protocol,
        hostname: base.hostname.replace(/^\[|\]$/g, ""),
        port: base.port || (https ? 443 : 80),
        method,
        path: basePath + target,
        headers,
        agent,
        setHost: false,
      };
      return https ? httpsRequest(options) : httpRequest(options);
    },
    dispatch(method, target, headers, body, leg) {
      pool.dispatch({ method, path: basePath + target, headers, body }, leg);
    },
    close: () => {
      agent.destroy();
      void pool.destroy().catch(() => undefined);
    },
  };
}

/** Whether node:http parses leniently here (--insecure-http-parser, on the command line or in NODE_OPTIONS). */
function lenientParsing(): boolean {
  const flag = "--insecure-http-parser";
  return process.execArgv.includes(flag) || (process.env.NODE_OPTIONS ?? "").split(/\s+/).includes(flag);
}

/** Whether undici refused to build the request (before any byte went out), rather than the exchange failing. */
export function refusedByClient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "UND_ERR_INVALID_ARG" || code === "UND_ERR_NOT_SUPPORTED";
}

/*
 * Bytes after the end of an answer. undici reads on after an answer ends as its Content-Length says;
 * bytes that follow on the connection are no answer to anything, and it closes the connection with
 * an error that no request hears. node:http gives that error to the request whose answer it read, and
 * the proxy holds the upstream to it: the same here, by watching each connection. undici's
 * `undici:client:sendHeaders` channel (docs/api/DiagnosticsChannel.md) names the socket a request
 * goes out on; it is published in the same synchronous step as the request's `onConnect`, after it
 * and before any other request's, so the leg that was just told `onConnect` owns that socket.
 */
let connecting: Leg | undefined;
const owners = new WeakMap<Socket, Leg>();
let watching = false;

/** The leg whose request undici is writing now: called from its `onConnect`. */
export function connectingLeg(leg: Leg): void {
  connecting = leg;
}

function watchConnections(): void {
  if (watching) return;
  watching = true;
  subscribe("undici:client:sendHeaders", (message) => {
    const leg = connecting;
    connecting = undefined;
    // Another undici client's request (the process's fetch, say): not the proxy's.
    if (leg === undefined) return;
    const { socket } = message as { socket: Socket };
    if (!owners.has(socket))
      socket.on("error", (error: Error & { code?: unknown }) => {
        // undici's own closing of a connection it is done with (Connection: close, an abort) is no fault.
        if (error.code !== "UND_ERR_INFO") owners.get(socket)?.afterEnd(error);
      });
    owners.set(socket, leg);
  });
}
