// An in-memory server for the stateful test document (test/data/multi-op/plant-store-stateful.yaml):
// correct, or with one broken promise of its store (a write lost, an id rounded, a delete that does
// not delete...), or making one choice the contract leaves to it (list order, a default page size,
// extra and server-filled properties, seeded data, slow chunked answers...). Every answer of every
// variant is valid by the document alone: only comparing answers across steps tells them apart.
// Test infrastructure only; the contract module judges every request, as in multi-op-server.ts.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  canonicalInteger,
  checkRequest,
  loadContract,
  stringifyExact,
  type CompiledOperation,
  type Contract,
  type RequestMessage,
} from "../src/contract/index.js";
import type { StatefulCheckId } from "../src/harness/stateful-check-ids.js";
import { KIT_ROOT } from "../src/paths.js";
import { TOKEN } from "./helpers.js";

/** The document this server implements. */
export const STATEFUL_SPEC = join(KIT_ROOT, "test", "data", "multi-op", "plant-store-stateful.yaml");

/** The broken promises, each with the check meant to catch it. */
export const STATEFUL_FAULTS = [
  { fault: "lost-write", check: "stateful.created-available", what: "a create answers 201 and keeps nothing" },
  { fault: "rounds-big-ids", check: "stateful.id-exact", what: "ids are kept as doubles: 2^53+1 becomes 2^53" },
  { fault: "id-truncated", check: "stateful.id-exact", what: "ids are kept in 32 bits, the same way in and out" },
  { fault: "read-other-item", check: "stateful.read-back", what: "a read answers the newest plant, whatever the id" },
  { fault: "stale-after-replace", check: "stateful.update-visible", what: "a replace answers 200 and keeps the old" },
  { fault: "patch-not-applied", check: "stateful.update-visible", what: "a patch answers 200 and keeps the old" },
  { fault: "patch-drops-unsent", check: "stateful.patch-keeps-unsent", what: "a patch replaces the whole plant" },
  { fault: "no-op-delete", check: "stateful.delete-effective", what: "a delete answers 204 and keeps the plant" },
  {
    fault: "delete-wrong-item",
    check: "stateful.delete-spares-others",
    what: "a delete removes the newest other plant",
  },
  { fault: "list-misses-new", check: "stateful.list-contains", what: "a list leaves out the newest plant" },
  { fault: "list-stale-after-replace", check: "stateful.list-contains", what: "a list shows plants as first made" },
  { fault: "list-shows-deleted", check: "stateful.list-after-delete", what: "a list still shows deleted plants" },
  { fault: "ignores-limit", check: "stateful.list-limit", what: "a list ignores limit" },
  { fault: "list-duplicates", check: "stateful.list-unique", what: "a list repeats its last item" },
  {
    fault: "duplicate-overwrites",
    check: "stateful.create-keeps-stored",
    what: "a create with a stored id answers 201 and replaces the plant",
  },
  { fault: "put-merges", check: "stateful.replace-whole", what: "a replace keeps the optional fields it was not sent" },
  {
    fault: "replace-creates",
    check: "stateful.absent-untouched",
    what: "a replace of an id never made answers 200 and makes the plant",
  },
  { fault: "ids-never-freed", check: "stateful.id-reusable", what: "a deleted plant's id is refused 409 for ever" },
  {
    fault: "whole-list-misses-new",
    check: "stateful.list-complete",
    what: "a list without a tag leaves out the newest plant",
  },
  { fault: "cuts-text", check: "stateful.read-back", what: "keeps names and tags to their first 32 characters" },
] as const satisfies readonly { fault: string; check: StatefulCheckId; what: string }[];
export type StatefulFault = (typeof STATEFUL_FAULTS)[number]["fault"];

/** Choices the contract leaves to a server: each must pass. */
export const SERVER_CHOICES = [
  { choice: "list-newest-first", what: "lists the newest plant first" },
  { choice: "list-rotating", what: "lists in another order on every call" },
  { choice: "default-page-size", what: "lists 2 plants when no limit is sent" },
  { choice: "page-size-cap", what: "lists at most 3 plants, whatever the limit" },
  { choice: "extra-properties", what: "adds _links, an etag and a list total" },
  { choice: "server-filled", what: "fills createdAt, updatedAt and a revision number" },
  { choice: "seeded", what: "starts with 40 plants in the store" },
  { choice: "slow-chunked", what: "answers in chunks, a few milliseconds apart" },
  { choice: "ids-as-written", what: "writes ids and numbers back exactly as the client wrote them" },
  { choice: "normalises-text", what: "trims names and keeps tags in lower case" },
  { choice: "duplicate-idempotent", what: "answers a create with a stored id 201 with the stored plant, unchanged" },
  { choice: "tombstones", what: "answers 410 for a deleted plant and refuses its id with 409 for ever" },
  { choice: "gone-after-delete", what: "a deleted plant is answered 410 Gone" },
  { choice: "float32-height", what: "keeps the height (format float) as a float32" },
  { choice: "omits-empty", what: "leaves empty values out of its answers" },
] as const;
export type ServerChoice = (typeof SERVER_CHOICES)[number]["choice"];

export interface StatefulServerOptions {
  readonly fault?: StatefulFault;
  readonly choice?: ServerChoice;
  readonly token?: string;
  /** Every answer this much later (a slow target: bench/slow-target.ts). */
  readonly delayMs?: number;
}

export interface StatefulServer {
  readonly url: string;
  /** How many requests it has answered. */
  readonly answered: () => number;
  /** The most requests it has held at once (with delayMs: the answers wait). */
  readonly mostInFlight: () => number;
  close(): Promise<void>;
}

/** A plant as the server keeps it; `idText` is the id as the client wrote it. */
interface Plant {
  id: string;
  idText: string;
  name: string;
  tag?: string;
  height?: number;
  heightText?: string;
  createdAt?: string;
  updatedAt?: string;
  revision?: number;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

let contract: Promise<Contract> | undefined;

/** The stateful document's contract, loaded once per process. */
export function statefulContract(): Promise<Contract> {
  contract ??= loadContract(STATEFUL_SPEC);
  return contract;
}

/** Starts the server (correct, with one fault, or with one choice) on 127.0.0.1, port 0. */
export async function startStatefulServer(options: StatefulServerOptions = {}): Promise<StatefulServer> {
  const c = await statefulContract();
  const handle = createHandler(c, new Store(options), options.token ?? TOKEN);
  const slow = options.choice === "slow-chunked";
  let answered = 0;
  let [inFlight, most] = [0, 0];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const target = req.url ?? "/";
      const q = target.indexOf("?");
      const message: RequestMessage = {
        headers: req.headers,
        body: Buffer.concat(chunks),
        path: q < 0 ? target : target.slice(0, q),
        query: q < 0 ? "" : target.slice(q + 1),
      };
      const answer = handle(req.method ?? "GET", message);
      answered++;
      if (options.delayMs !== undefined) {
        most = Math.max(most, ++inFlight);
        setTimeout(() => {
          inFlight--;
          res.writeHead(answer.status, answer.headers).end(answer.body);
        }, options.delayMs);
        return;
      }
      if (!slow) {
        res.writeHead(answer.status, answer.headers).end(answer.body);
        return;
      }
      void writeSlowly(res, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answered: () => answered,
    mostInFlight: () => most,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer in three chunks, 5 ms apart (chunked transfer coding: no Content-Length). */
async function writeSlowly(res: ServerResponse, answer: Answer): Promise<void> {
  res.writeHead(answer.status, answer.headers);
  const third = Math.ceil(answer.body.length / 3);
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    res.write(answer.body.slice(i * third, (i + 1) * third));
  }
  res.end();
}

/** The plants, in the order made; the list's own index may lag behind it (the list faults). */
class Store {
  readonly plants = new Map<string, Plant>();
  readonly index = new Map<string, Plant>();
  readonly fault: StatefulFault | undefined;
  readonly choice: ServerChoice | undefined;
  calls = 0;

  constructor(options: StatefulServerOptions) {
    this.fault = options.fault;
    this.choice = options.choice;
    if (this.choice === "seeded")
      for (let n = 1; n <= 40; n++) this.put({ id: String(n), idText: String(n), name: `Seed ${n}`, tag: "seed" });
  }

  /** The key an id is kept under: its digits, or (faults) the nearest double's or the low 32 bits'. */
  key(digits: string): string {
    if (this.fault === "rounds-big-ids") return BigInt(Number(digits)).toString();
    if (this.fault === "id-truncated") return BigInt.asIntN(32, BigInt(digits)).toString();
    return digits;
  }

  put(plant: Plant): void {
    this.plants.set(plant.id, plant);
    this.index.set(plant.id, plant);
  }

  newest(except?: string): Plant | undefined {
    return [...this.plants.values()].filter((p) => p.id !== except).at(-1);
  }
}

function createHandler(c: Contract, store: Store, token: string): (method: string, m: RequestMessage) => Answer {
  return (method, message) => {
    const path = message.path ?? "/";
    const route = c.route(method, path);
    if (route.kind !== "found") return problem(route.kind === "not-found" ? 404 : 405, "no such operation");
    const m = /^bearer +(\S+) *$/i.exec(String(message.headers.authorization ?? ""));
    if (m?.[1] !== token)
      return { ...problem(401, "send the server's bearer token"), headers: { "www-authenticate": "Bearer" } };
    const op = route.operation;
    const accepted = checkRequest(op, message);
    if (!accepted.ok) return problem(400, accepted.detail);
    const body = accepted.value as Record<string, unknown> | undefined;
    const idOf = (): string => store.key(pathId(op, path));
    switch (op.operationId) {
      case "createPlant":
        return create(store, body!, canonicalInteger(body!.id, accepted.exact.get("/id"))!, accepted);
      case "listPlants":
        return list(store, new URLSearchParams(message.query));
      case "getPlant":
        return read(store, idOf());
      case "replacePlant":
      case "patchPlant":
        return update(store, idOf(), body!, op.operationId === "patchPlant", accepted);
      case "deletePlant":
        return remove(store, idOf());
      default:
        return problem(501, op.operationId);
    }
  };
}

/** The id in a plant's path, as canonical digits (the contract accepted it as an int64). */
function pathId(op: CompiledOperation, path: string): string {
  const raw = op.matchRawPath(path)?.id ?? "";
  return BigInt(decodeURIComponent(raw)).toString();
}

type Accepted = Extract<ReturnType<typeof checkRequest>, { ok: true }>;

/** The fields a create, replace or patch body sets, as the server keeps them. */
function fields(store: Store, body: Record<string, unknown>, accepted: Accepted): Partial<Plant> {
  const out: Partial<Plant> = {};
  const normal = store.choice === "normalises-text";
  const cut = (t: string): string => (store.fault === "cuts-text" ? [...t].slice(0, 32).join("") : t);
  if (typeof body.name === "string") out.name = cut(normal ? body.name.trim().normalize("NFC") : body.name);
  if (typeof body.tag === "string") out.tag = cut(normal ? body.tag.toLowerCase() : body.tag);
  if (typeof body.height === "number") {
    out.height = store.choice === "float32-height" ? Math.fround(body.height) : body.height;
    out.heightText = accepted.exact.get("/height")?.literal;
  }
  return out;
}

function create(store: Store, body: Record<string, unknown>, digits: string, accepted: Accepted): Answer {
  const id = store.key(digits);
  const stored = store.plants.get(id);
  if (stored !== undefined && store.choice === "duplicate-idempotent") return json(201, plantJson(store, stored));
  if (stored !== undefined && store.fault !== "duplicate-overwrites") return problem(409, `plant ${id} exists`);
  const freed = store.fault === "ids-never-freed" || store.choice === "tombstones";
  if (freed && deleted.get(store)?.has(id) === true) return problem(409, `plant ${id} was deleted; its id is taken`);
  const written = accepted.exact.get("/id")?.literal ?? digits;
  const plant: Plant = {
    id,
    idText: store.choice === "ids-as-written" ? written : id,
    name: "",
    ...fields(store, body, accepted),
  };
  if (store.choice === "server-filled") Object.assign(plant, { createdAt: now(), updatedAt: now(), revision: 1 });
  if (store.fault !== "lost-write") store.put(plant);
  return json(201, plantJson(store, plant));
}

function read(store: Store, id: string): Answer {
  const plant = store.fault === "read-other-item" && store.plants.has(id) ? store.newest() : store.plants.get(id);
  if (plant === undefined) return gone(store, id);
  return json(200, plantJson(store, plant));
}

/** What a read of a missing plant answers: 404, or 410 for one deleted (the choice gone-after-delete). */
const deleted = new WeakMap<Store, Set<string>>();
function gone(store: Store, id: string): Answer {
  const gone = store.choice === "gone-after-delete" || store.choice === "tombstones";
  return gone && deleted.get(store)?.has(id) === true
    ? problem(410, `plant ${id} was deleted`)
    : problem(404, `no plant ${id}`);
}

function update(store: Store, id: string, body: Record<string, unknown>, patch: boolean, accepted: Accepted): Answer {
  const made: Plant = { id, idText: id, name: "" };
  const old = store.plants.get(id) ?? (store.fault === "replace-creates" && !patch ? made : undefined);
  if (old === undefined) return problem(404, `no plant ${id}`);
  const set = fields(store, body, accepted);
  const keeps = patch ? store.fault !== "patch-drops-unsent" : store.fault === "put-merges";
  const base: Plant = keeps ? { ...old } : { id: old.id, idText: old.idText, name: old.name, createdAt: old.createdAt };
  const next: Plant = { ...base, ...set };
  if (store.choice === "server-filled") Object.assign(next, { updatedAt: now(), revision: (old.revision ?? 0) + 1 });
  const ignored = (patch && store.fault === "patch-not-applied") || (!patch && store.fault === "stale-after-replace");
  if (!ignored) {
    store.plants.set(id, next);
    if (store.fault !== "list-stale-after-replace") store.index.set(id, next);
  }
  return json(200, plantJson(store, next));
}

function remove(store: Store, id: string): Answer {
  if (!store.plants.has(id)) return problem(404, `no plant ${id}`);
  const victim = store.fault === "delete-wrong-item" ? store.newest(id)?.id : id;
  if (victim !== undefined && store.fault !== "no-op-delete") {
    store.plants.delete(victim);
    if (store.fault !== "list-shows-deleted") store.index.delete(victim);
    deleted.set(store, new Set([...(deleted.get(store) ?? []), victim]));
  }
  return { status: 204, headers: {}, body: "" };
}

function list(store: Store, query: URLSearchParams): Answer {
  const tag = query.get("tag");
  const norm = (t: string | undefined) => (store.choice === "normalises-text" ? t?.toLowerCase() : t);
  let plants = [...store.index.values()].filter((p) => tag === null || norm(p.tag) === norm(tag));
  if (store.fault === "list-misses-new" || (store.fault === "whole-list-misses-new" && tag === null)) {
    const newest = store.newest()?.id;
    plants = plants.filter((p) => p.id !== newest);
  }
  plants = ordered(store, plants);
  const asked = query.get("limit") === null ? undefined : Number(query.get("limit"));
  const limit = asked ?? (store.choice === "default-page-size" ? 2 : undefined);
  const cap = store.choice === "page-size-cap" ? 3 : Infinity;
  if (store.fault !== "ignores-limit") plants = plants.slice(0, Math.min(limit ?? Infinity, cap));
  if (store.fault === "list-duplicates" && plants.length > 0) plants.push(plants.at(-1)!);
  const items = `[${plants.map((p) => plantJson(store, p)).join(",")}]`;
  const total = store.choice === "extra-properties" ? `,"total":${plants.length}` : "";
  return json(200, `{"data":${items}${total}}`);
}

function ordered(store: Store, plants: Plant[]): Plant[] {
  if (store.choice === "list-newest-first") return plants.reverse();
  if (store.choice !== "list-rotating" || plants.length === 0) return plants;
  const turn = store.calls++ % plants.length;
  return [...plants.slice(turn), ...plants.slice(0, turn)];
}

/** A plant's JSON: its id exactly (or as the client wrote it), the fields it has, and what the choice adds. */
function plantJson(store: Store, p: Plant): string {
  const omit = store.choice === "omits-empty";
  const rest: Record<string, unknown> = { name: p.name };
  if (p.tag !== undefined && !(omit && p.tag === "")) rest.tag = p.tag;
  if (p.createdAt !== undefined)
    Object.assign(rest, { createdAt: p.createdAt, updatedAt: p.updatedAt, revision: p.revision });
  if (store.choice === "extra-properties")
    Object.assign(rest, { _links: { self: `/plants/${p.id}` }, etag: `"${p.id}"` });
  let text = `{"id":${store.choice === "ids-as-written" ? p.idText : stringifyExact(BigInt(p.id))},${stringifyExact(rest).slice(1)}`;
  if (p.height !== undefined && !(omit && p.height === 0)) {
    const height =
      store.choice === "ids-as-written" && p.heightText !== undefined ? p.heightText : JSON.stringify(p.height);
    text = `${text.slice(0, -1)},"height":${height}}`;
  }
  return text;
}

const now = (): string => new Date().toISOString();

function json(status: number, body: string): Answer {
  return { status, headers: { "content-type": "application/json" }, body };
}

function problem(status: number, detail: string): Answer {
  return {
    status,
    headers: { "content-type": "application/problem+json" },
    body: JSON.stringify({ title: `error ${status}`, status, detail }),
  };
}
