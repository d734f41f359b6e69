import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Pool, type Dispatcher } from "undici";
import { watchConnections, type Watched } from "./connection-watch.js";

/**
 * The upstream: where requests go, and the pooled keep-alive connections to it, two ways. Most
 * requests (a body of known small length, no Expect) go through undici's dispatch API, whose client
 * costs the proxy about a fifth less CPU an exchange; the rest stream through node:http's client.
 */
export interface Upstream {
  readonly base: URL;
  /** The authority to put in Host. */
  readonly host: string;
  /**
   * Every request goes through node:http: under --insecure-http-parser (undici's parser has no lenient
   * mode, and node:http's does), or once the upstream gave an answer undici does not read as node:http
   * does (forward.ts: a 100 Continue unasked, a 204 or 304 with a length, an obs-text reason phrase).
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

/**
 * An exchange's handler for undici's dispatch (its legacy API, which gives the raw header list a
 * proxy forwards), told also of bytes on its connection after its answer's end (connection-watch.ts).
 */
export interface Leg extends Dispatcher.DispatchHandler, Watched {}

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
