// An in-memory server for the multi-operation Plant Store test document
// (test/data/multi-op/plant-store-multi.yaml), correct by that document, and faulty variants of it, so
// the harness can be shown to pass the one and catch each of the others. Test infrastructure only.
// The contract module is the one judge of what a request may be: the server routes, authenticates,
// asks checkRequest, and only then does what the operation says.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  canonicalInteger,
  checkParameters,
  checkRequest,
  loadContract,
  parseJsonExact,
  parsePath,
  parseQuery,
  stringifyExact,
  styleOfCompiled,
  type CompiledOperation,
  type CompiledParameter,
  type Contract,
  type ParsedParameter,
  type RequestMessage,
} from "../src/contract/index.js";
import { KIT_ROOT } from "../src/paths.js";
import { TOKEN } from "./helpers.js";

/** The document this server implements. */
export const MULTI_OP_SPEC = join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml");

/** What a faulty variant does wrong; each breaks the document in one way, seen on the wire. */
export type MultiOpFault =
  | "ignores-limit" // GET /plants returns more than `limit` items
  | "limit-not-validated" // GET /plants?limit=0 or limit=abc answers 200 instead of 400
  | "500-on-id-beyond-2-53" // any /plants/{id} with an id > 2^53 answers 500
  | "rounds-big-ids" // stores/reads ids through Number(): 9007199254740993 becomes ...992
  | "read-returns-other-shape" // GET /plants/{id} answers 200 with {"plant": {...}} (not StoredPlant)
  | "delete-200-with-body" // DELETE answers 200 with a JSON body (only 204 is documented)
  | "delete-ignores-request-id" // DELETE without X-Request-Id answers 204 (the header is required)
  | "missing-rate-limit-header" // 200s of read/update/list lack the required X-Rate-Limit header
  | "update-ignores-body-schema" // PUT with {"name": 5} answers 200
  | "list-wrong-item-type"; // GET /plants answers items whose id is a string

export const MULTI_OP_FAULTS: readonly MultiOpFault[] = [
  "ignores-limit",
  "limit-not-validated",
  "500-on-id-beyond-2-53",
  "rounds-big-ids",
  "read-returns-other-shape",
  "delete-200-with-body",
  "delete-ignores-request-id",
  "missing-rate-limit-header",
  "update-ignores-body-schema",
  "list-wrong-item-type",
];

/** A stored plant: the id as its canonical decimal digits (exact for every int64). */
export interface StoredPlant {
  id: string;
  name: string;
  tag?: string;
}

export interface MultiOpServer {
  readonly url: string;
  close(): Promise<void>;
  /** The live store, by id digits, in insertion order. */
  readonly store: Map<string, StoredPlant>;
}

export interface MultiOpOptions {
  readonly fault?: MultiOpFault;
  /** The bearer token to accept; TOKEN from test/helpers.ts by default. */
  readonly token?: string;
}

/** The value every X-Rate-Limit header carries (the document asks for an int32 >= 0). */
export const RATE_LIMIT = "100";

let contract: Promise<Contract> | undefined;

/** The multi-operation document's contract, loaded once per process. */
export function multiOpContract(): Promise<Contract> {
  contract ??= loadContract(MULTI_OP_SPEC);
  return contract;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface Incoming {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: Uint8Array;
}

const TWO_53 = 2n ** 53n;
const MAX_BODY = 1_000_000;

/** Starts the server (correct, or with one fault) on 127.0.0.1, port 0. */
export async function startMultiOpServer(options: MultiOpOptions = {}): Promise<MultiOpServer> {
  const c = await multiOpContract();
  const store = new Map<string, StoredPlant>();
  const handle = createHandler(c, store, options.fault, options.token ?? TOKEN);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on("end", () => {
      const target = req.url ?? "/";
      const q = target.indexOf("?");
      let answer: Answer;
      if (size > MAX_BODY) answer = problem(413, "Content Too Large", `the body is larger than ${MAX_BODY} bytes`);
      else {
        try {
          answer = handle({
            method: req.method ?? "GET",
            path: q < 0 ? target : target.slice(0, q),
            query: q < 0 ? "" : target.slice(q + 1),
            headers: req.headers,
            body: Buffer.concat(chunks),
          });
        } catch (error) {
          answer = problem(500, "Internal Server Error", error instanceof Error ? error.message : String(error));
        }
      }
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function createHandler(
  c: Contract,
  store: Map<string, StoredPlant>,
  fault: MultiOpFault | undefined,
  token: string,
): (request: Incoming) => Answer {
  /** The store's key for an id: its exact digits, or (fault) the digits of the nearest double. */
  const key = (digits: string): string => (fault === "rounds-big-ids" ? String(Number(digits)) : digits);
  const rateLimited = (a: Answer): Answer =>
    fault === "missing-rate-limit-header" && a.status === 200
      ? a
      : { ...a, headers: { ...a.headers, "x-rate-limit": RATE_LIMIT } };
  const notFound = (id: string): Answer => problem(404, "Not Found", `no plant has id ${id}`);

  return (request) => {
    const route = c.route(request.method, request.path);
    if (route.kind === "not-found") return problem(404, "Not Found", `no operation at ${request.path}`);
    if (route.kind === "method-not-allowed") {
      const answer = problem(405, "Method Not Allowed", `${request.method} ${request.path}`);
      return { ...answer, headers: { ...answer.headers, allow: route.allowed.join(", ") } };
    }
    const operation = route.operation;
    if (operation.authRequired && !authorised(request.headers.authorization, token)) {
      const answer = problem(401, "Unauthorized", "send Authorization: Bearer with the server's token");
      return { ...answer, headers: { ...answer.headers, "www-authenticate": 'Bearer realm="plantstore"' } };
    }
    const rawId = rawPathParams(operation, request.path)?.id;
    if (fault === "500-on-id-beyond-2-53" && rawId !== undefined && /^\d+$/.test(rawId) && BigInt(rawId) > TWO_53)
      return problem(500, "Internal Server Error", "the id does not fit");

    const message: RequestMessage = {
      headers: request.headers,
      body: request.body,
      path: request.path,
      query: request.query,
    };
    const id = (): string => {
      const p = param(operation, "path", "id");
      const parsed = parsePath(styleOfCompiled(p), rawId ?? "", p.shape) as ParsedParameter & { ok: true };
      // The contract accepted the id as an int64, so it has exact digits.
      return canonicalInteger(parsed.value, parsed.exact.get("")) as string;
    };

    switch (operation.operationId) {
      case "createPlant": {
        const accepted = checkRequest(operation, message);
        if (!accepted.ok) return json(400, { error: 400, message: accepted.detail });
        const body = accepted.value as { name: string; tag?: string };
        const digits = key(
          canonicalInteger((accepted.value as { id: unknown }).id, accepted.exact.get("/id")) as string,
        );
        if (store.has(digits)) return problem(409, "Conflict", `a plant with id ${digits} already exists`);
        const plant = body.tag === undefined ? { name: body.name } : { name: body.name, tag: body.tag };
        store.set(digits, { id: digits, ...plant });
        return json(200, plant);
      }
      case "listPlants": {
        let checked = message;
        if (fault === "limit-not-validated") {
          const others = request.query.split("&").filter((piece) => !/^limit(=|$)/.test(piece));
          checked = { ...message, query: others.join("&") };
        }
        const accepted = checkRequest(operation, checked);
        if (!accepted.ok) return problem(400, "Bad Request", accepted.detail);
        const limit = readLimit(operation, request.query, fault === "limit-not-validated");
        const tags = readQuery(operation, "tags", request.query) as string[] | undefined;
        let plants = [...store.values()].filter(
          (p) => tags === undefined || (p.tag !== undefined && tags.includes(p.tag)),
        );
        if (fault !== "ignores-limit") plants = plants.slice(0, limit);
        const items =
          fault === "list-wrong-item-type"
            ? JSON.stringify(plants.map((p) => ({ ...p })))
            : `[${plants.map(storedJson).join(",")}]`;
        return rateLimited({ status: 200, headers: { "content-type": "application/json" }, body: items });
      }
      case "getPlant": {
        const accepted = checkRequest(operation, message);
        if (!accepted.ok) return problem(400, "Bad Request", accepted.detail);
        const plant = store.get(key(id()));
        if (plant === undefined) return notFound(id());
        const body = fault === "read-returns-other-shape" ? `{"plant":${storedJson(plant)}}` : storedJson(plant);
        return rateLimited({ status: 200, headers: { "content-type": "application/json" }, body });
      }
      case "updatePlant": {
        let body: { name: string; tag?: string };
        if (fault === "update-ignores-body-schema") {
          const refused = checkParameters(operation, message);
          if (refused !== undefined) return problem(400, "Bad Request", refused.detail);
          const parsed = parseJsonExact(Buffer.from(request.body).toString("utf8"));
          if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null)
            return problem(400, "Bad Request", "the body is not a JSON object");
          const loose = parsed.value as { name?: unknown; tag?: unknown };
          body = { name: String(loose.name ?? ""), ...(loose.tag === undefined ? {} : { tag: String(loose.tag) }) };
        } else {
          const accepted = checkRequest(operation, message);
          if (!accepted.ok) return problem(400, "Bad Request", accepted.detail);
          body = accepted.value as { name: string; tag?: string };
        }
        const digits = key(id());
        const plant = store.get(digits);
        if (plant === undefined) return notFound(id());
        const updated: StoredPlant =
          body.tag === undefined ? { id: plant.id, name: body.name } : { id: plant.id, name: body.name, tag: body.tag };
        store.set(digits, updated);
        return rateLimited({ status: 200, headers: { "content-type": "application/json" }, body: storedJson(updated) });
      }
      case "deletePlant": {
        let checked = message;
        if (fault === "delete-ignores-request-id" && request.headers["x-request-id"] === undefined)
          checked = {
            ...message,
            headers: { ...message.headers, "x-request-id": "00000000-0000-4000-8000-000000000000" },
          };
        const accepted = checkRequest(operation, checked);
        if (!accepted.ok) return problem(400, "Bad Request", accepted.detail);
        const digits = key(id());
        const plant = store.get(digits);
        if (plant === undefined) return notFound(id());
        store.delete(digits);
        if (fault === "delete-200-with-body")
          return rateLimited({
            status: 200,
            headers: { "content-type": "application/json" },
            body: `{"deleted":${storedJson(plant)}}`,
          });
        return rateLimited({ status: 204, headers: {}, body: "" });
      }
      default:
        return problem(501, "Not Implemented", `${operation.operationId} is not implemented`);
    }
  };
}

/** The StoredPlant JSON of a plant, its id written as its exact digits. */
function storedJson(plant: StoredPlant): string {
  const { id, ...rest } = plant;
  return stringifyExact({ id: BigInt(id), ...rest });
}

function json(status: number, value: unknown): Answer {
  return { status, headers: { "content-type": "application/json" }, body: stringifyExact(value) };
}

/** An RFC 9457 problem details answer. */
function problem(status: number, title: string, detail: string): Answer {
  return {
    status,
    headers: { "content-type": "application/problem+json" },
    body: JSON.stringify({ type: "about:blank", title, status, detail }),
  };
}

function authorised(authorization: string | undefined, token: string): boolean {
  const m = /^bearer +(\S+) *$/i.exec(authorization ?? "");
  return m !== null && m[1] === token;
}

function param(operation: CompiledOperation, where: CompiledParameter["in"], name: string): CompiledParameter {
  const p = operation.parameters.find((o) => o.in === where && o.name === name);
  if (p === undefined) throw new Error(`${operation.operationId} has no ${where} parameter ${name}`);
  return p;
}

/** A query parameter's value, read by its style (the contract has accepted it); undefined when absent. */
function readQuery(operation: CompiledOperation, name: string, query: string): unknown {
  const p = param(operation, "query", name);
  const others = new Set(operation.parameters.filter((o) => o !== p && o.in === "query").map((o) => o.name));
  const parsed = parseQuery(styleOfCompiled(p), query, p.shape, others);
  return parsed.ok ? parsed.value : undefined;
}

/** `limit`, or the schema's default when absent; the fault "limit-not-validated" takes any number given. */
function readLimit(operation: CompiledOperation, query: string, loose: boolean): number {
  const p = param(operation, "query", "limit");
  const fallback = (p.schema as { default?: unknown } | undefined)?.default;
  const byDefault = typeof fallback === "number" ? fallback : 20;
  const value = readQuery(operation, "limit", query);
  if (typeof value === "number" && (!loose || Number.isInteger(value))) return value;
  return byDefault;
}

/** The path's segments for the operation's template parameters, still percent-encoded. */
function rawPathParams(operation: CompiledOperation, path: string): Record<string, string> | undefined {
  const template = operation.pathTemplate.split("/");
  const segments = path.split("/");
  if (template.length !== segments.length) return undefined;
  const out: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const name = /^\{([^}]+)\}$/.exec(template[i] as string)?.[1];
    if (name !== undefined) out[name] = segments[i] as string;
    else if (template[i] !== segments[i]) return undefined;
  }
  return out;
}
