// The one shared helper of the convention set (test/conventions/): exact JSON, a small HTTP server
// with a router for the hand-written reference servers, and the client the checker sends with.
// Written from RFC 8259 (JSON) and RFC 9110 (HTTP) alone: nothing here imports the kit's src/, so a
// mistake of the kit's resource model cannot pass both the mock and its judge.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A JSON value as read exactly: integers beyond 2^53 as bigint, objects without a prototype's keys. */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Parses JSON text (RFC 8259), keeping every integer exact: one beyond 2^53 becomes a bigint. */
export function parseJson(text: string): Json {
  let i = 0;
  const fail = (why: string): never => {
    throw new SyntaxError(`JSON at ${i}: ${why}`);
  };
  const ws = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const value = (): Json => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const out: JsonObject = Object.create(null) as JsonObject;
      ws();
      if (text[i] === "}") return (i++, out);
      for (;;) {
        ws();
        if (text[i] !== '"') fail("a key");
        const key = string();
        ws();
        if (text[i++] !== ":") fail("a colon");
        out[key] = value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return (i++, out);
        else fail("a comma or }");
      }
    }
    if (c === "[") {
      i++;
      const out: Json[] = [];
      ws();
      if (text[i] === "]") return (i++, out);
      for (;;) {
        out.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return (i++, out);
        else fail("a comma or ]");
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const)
      if (text.startsWith(word, i)) return ((i += word.length), v);
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (m === null) return fail("a value");
    i += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const n = Number(m[0]);
      return Number.isSafeInteger(n) ? n : BigInt(m[0]);
    }
    return Number(m[0]);
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (text[i] !== '"') fail("the end of a string");
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const out = value();
  ws();
  if (i !== text.length) fail("the end of the text");
  return out;
}

/** Writes JSON with bigints as their digits. */
export function writeJson(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map(writeJson).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${writeJson(v)}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** The same value, exactly: numbers compared as numbers whatever their JavaScript type. */
export function sameJson(a: unknown, b: unknown): boolean {
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint"))
    return BigInt(a) === BigInt(b);
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, k) => sameJson(x, b[k]));
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    return ka.length === kb.length && ka.every((k, n) => k === kb[n] && sameJson(ra[k], rb[k]));
  }
  return a === b;
}

/** A request as a reference server sees it. */
export interface Request {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The body parsed as JSON (exactly), undefined when there is none, or the text when it is not JSON. */
  readonly body: Json | undefined;
  readonly text: string;
  /** Path parameters of the matched route. */
  readonly params: Readonly<Record<string, string>>;
}

/** An answer: status, headers, and a body (written as JSON unless it is a string). */
export interface Answer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export type Route = (request: Request) => Answer;

/** Routes by method and path template (`/things/{id}`); an unmatched path 404, another method 405 with Allow. */
export function router(routes: Readonly<Record<string, Route>>): (request: Omit<Request, "params">) => Answer {
  const table = Object.entries(routes).map(([key, route]) => {
    const [method, template] = key.split(" ") as [string, string];
    const names: string[] = [];
    const source = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{([^}]+)\\?\}/g, (_m, n: string) => {
      names.push(n);
      return "([^/]+)";
    });
    return { method, names, pattern: new RegExp(`^${source}$`), route };
  });
  return (request) => {
    const matching = table.filter((r) => r.pattern.test(request.path));
    if (matching.length === 0) return { status: 404, body: { error: "no such path" } };
    const hit = matching.find((r) => r.method === request.method);
    if (hit === undefined)
      return { status: 405, headers: { allow: matching.map((r) => r.method).join(", ") }, body: { error: "method" } };
    const values = hit.pattern.exec(request.path)!.slice(1);
    const params = Object.fromEntries(hit.names.map((n, k) => [n, decodeURIComponent(values[k]!)]));
    return hit.route({ ...request, params });
  };
}

/** A running reference server. */
export interface Running {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves a handler over node:http on loopback, port 0; every answer's body written as exact JSON. */
export async function serve(handle: (request: Omit<Request, "params">) => Answer): Promise<Running> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: Json | undefined;
      try {
        body = text === "" ? undefined : parseJson(text);
      } catch {
        body = undefined;
      }
      const url = new URL(req.url ?? "/", "http://reference.test");
      const headers = req.headers as Record<string, string | undefined>;
      let answer: Answer;
      try {
        answer = handle({
          method: req.method ?? "GET",
          path: url.pathname,
          query: url.searchParams,
          headers,
          body,
          text,
        });
      } catch (error) {
        answer = { status: 500, body: { error: String(error) } };
      }
      const out =
        answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : writeJson(answer.body);
      const type = answer.body === undefined ? {} : { "content-type": "application/json" };
      res.writeHead(answer.status, { ...type, ...answer.headers });
      res.end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer as the checker reads it. */
export interface Response {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body as exact JSON, or undefined when it is empty or not JSON. */
  readonly json: Json | undefined;
}

/** Sends requests to a base URL with a bearer token; bodies written as exact JSON. */
export function client(base: string, token: string) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<Response> => {
    const url = /^https?:/.test(path) ? path : `${base}${path}`;
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : writeJson(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    let json: Json | undefined;
    try {
      json = text === "" ? undefined : parseJson(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

export type Client = ReturnType<typeof client>;

/** Bearer credentials every convention document declares and every reference server checks. */
export const CONVENTION_TOKEN = "convention-token";

/** 401 unless the request carries the convention token (RFC 6750 section 3). */
export function authorised(request: Omit<Request, "params">): Answer | undefined {
  if (request.headers.authorization === `Bearer ${CONVENTION_TOKEN}`) return undefined;
  return { status: 401, headers: { "www-authenticate": 'Bearer realm="conventions"' }, body: { error: "token" } };
}
