// The mock engine: any contract served statefully, in memory, from its resource model
// (contract/resources.ts). Stages as the reference server's core: CORS preflight, route, credentials,
// the contract's verdict on the request, then the operation's role on the store (create, read,
// replace, patch, delete, list) or, for an operation outside the model, its documented example.
// Every answer is judged by the contract before it is sent (engine-answers.ts).

import type {
  AcceptedRequest,
  CompiledOperation,
  Contract,
  MediaTypeEntry,
  Resource,
  ResourceModel,
  Role,
} from "../contract/portable.js";
import {
  checkRequest,
  followRefs,
  parseJsonExact,
  propertiesOf,
  resourceModel,
  escapePointer,
  propertySchemaAt,
  singular,
  unescapePointer,
} from "../contract/portable.js";
import { KitError } from "../errors.js";
import { requestPath, type CoreRequest } from "./request.js";
import { createBearerCheck } from "./auth.js";
import { corsHeaders, exposedHeaders, preflightAnswer, type CorsPolicy } from "./cors.js";
import {
  answerContext,
  documentedAnswer,
  errorFor,
  successStatus,
  Unanswerable,
  type AnswerContext,
} from "./engine-answers.js";
import { ADMIN_PREFIX, adminAnswer } from "./engine-admin.js";
import { pageOf } from "./engine-pages.js";
import { versionField, type VersionField } from "./engine-versions.js";
import { applyPatch } from "./engine-patch.js";
import { seedItems } from "./engine-seed.js";
import { DEFAULT_MAX_DEPTH } from "./defaults.js";
import { createCredentialCheck, type EngineCredentials } from "./engine-security.js";
import { ResourceStore, type Collection } from "./engine-store.js";
import { exactTree, plainValue, writeJson } from "../contract/portable.js";
import { valueAt, keyOf, projectorOf, setValueAt, type Projector } from "./engine-values.js";
import { errorAnswer, type WireResponse } from "./error-answers.js";
import { refusalError } from "./refusals.js";

export interface EngineOptions {
  readonly credentials: EngineCredentials;
  readonly cors: CorsPolicy;
  /** How many items the store holds in all; beyond it creates are refused. */
  readonly maxItems: number;
  /** Deepest nesting a JSON request body may have (DEFAULT_MAX_DEPTH when not given); deeper gets 400. */
  readonly maxDepth?: number;
  /** How the limit is called where the user set it (`--max-items`, `maxItems`), for messages. */
  readonly maxItemsName?: string;
  /** Called after every request that changed the store (a saver writes it). */
  readonly onChange?: () => void;
  /**
   * Honour `Prefer: code=NNN` (a documented status, answered with its example) and
   * `Prefer: example=NAME` (a named example of the answer), as Prism does. Off by default.
   */
  readonly errorsOnDemand?: boolean;
  /** Serve GET and DELETE /__admin/store (list, empty); needs a bearer token of `credentials.tokens`. */
  readonly admin?: boolean;
  /**
   * Told of a failure of the engine's own (a bug, or an `onChange` that threw), which answers 500
   * PS_INTERNAL; by default written to the console (the server writes it as a process warning).
   */
  readonly onFailure?: (error: unknown) => void;
}

/** How one operation is served, for the start-up report. */
export interface ServedOperation {
  readonly operation: CompiledOperation;
  /** `create plants`, or `examples only: <why>`; with why it answers 500 where it cannot answer. */
  readonly served: string;
  /** No success answer its contract accepts can be made: the operation answers 500 PS_MOCK_UNANSWERABLE. */
  readonly unanswerable?: boolean;
}

export interface Engine {
  readonly handle: (request: CoreRequest) => WireResponse;
  readonly store: ResourceStore;
  readonly model: ResourceModel;
  /** How each operation is served (made when first read: it probes every operation's answer). */
  readonly served: readonly ServedOperation[];
  /**
   * Creates the items of seed data (engine-seed.ts); how many. Throws KitError PS_DATA_INVALID naming
   * the source, the item and the reason, and the limit as `maxItemsName` calls it.
   */
  seed(text: string, source: string): number;
  /** The store as JSON text, numbers exact, for `restore` (a `--save` file). */
  snapshot(): string;
  /** Puts back a snapshot; throws KitError PS_DATA_INVALID naming the source when it is not one. */
  restore(text: string, source: string): void;
}

type Json = Record<string, unknown>;

/** Everything a request's handling reads: the contract, its model, the store, the answers. */
interface Ctx {
  readonly contract: Contract;
  readonly model: ResourceModel;
  readonly store: ResourceStore;
  readonly answers: AnswerContext;
  /** The document's server base paths, under which its paths are served too. */
  readonly bases: readonly string[];
  /** How the store's limit is called where the user set it. */
  readonly maxItemsName: string;
  /** Deepest nesting a JSON request body may have. */
  readonly maxDepth: number;
  /** The last version token given (engine-versions.ts): one counter for every item. */
  readonly versions: { last: number };
}

/** One request, accepted by the contract, on its way to the store. */
interface Call {
  readonly op: CompiledOperation;
  readonly resource: Resource;
  readonly accepted: AcceptedRequest;
  /** Path parameter values, percent-decoded. */
  readonly path: Readonly<Record<string, string>>;
  /** The query string, without `?` (a list reads it; URLSearchParams parses it there). */
  readonly query: string;
  readonly contentType: string | undefined;
  /** The request's path as received, and its Host header: a Location names the new item absolutely. */
  readonly requestPath: string;
  readonly host: string | undefined;
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export function createEngine(contract: Contract, options: EngineOptions): Engine {
  const model = resourceModel(contract);
  const store = new ResourceStore(options.maxItems);
  const ctx: Ctx = {
    contract,
    model,
    store,
    answers: answerContext(contract),
    bases: basePaths(contract),
    maxItemsName: options.maxItemsName ?? "maxItems",
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    versions: { last: 0 },
  };
  const credentialsOf = createCredentialCheck(options.credentials);
  const adminCheck = createBearerCheck(options.credentials.tokens);
  const expose = exposedHeaders(contract);
  const onFailure = options.onFailure ?? ((error) => console.error("plantstore: unexpected failure:", error));
  // A try rather than `answered`: no closure made per request.
  const handle = (request: CoreRequest): WireResponse => {
    try {
      return handleRequest(request);
    } catch (error) {
      return failureAnswer(error, onFailure, ctx);
    }
  };
  const handleRequest = (request: CoreRequest): WireResponse => {
    const path = requestPath(request.url);
    const preflight = preflightAnswer(contract, options.cors, request.method, path, request.headers);
    if (preflight !== undefined) return preflight;
    const cors = corsHeaders(options.cors, first(request.headers.origin), expose);
    const before = store.version;
    // A failure here still gets the CORS headers, so a page can read its 500.
    let answer: WireResponse;
    try {
      answer =
        options.admin === true && path.startsWith(ADMIN_PREFIX)
          ? adminAnswer(model, store, adminCheck(first(request.headers.authorization)), request.method, path)
          : route(ctx, credentialsOf, request, path, options.errorsOnDemand === true);
      if (store.version !== before) options.onChange?.();
    } catch (error) {
      answer = failureAnswer(error, onFailure, ctx);
    }
    if (cors === undefined) return answer;
    // Member by member: V8 copies a spread of a header object slower than the answer is made.
    const headers: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const k in answer.headers) headers[k] = answer.headers[k] as string;
    for (const k in cors) headers[k] = cors[k as keyof typeof cors] as string;
    return { status: answer.status, headers, body: answer.body };
  };
  // Made when first read (the start-up report): probing every answer compiles every validator.
  let served: readonly ServedOperation[] | undefined;
  return {
    handle,
    store,
    model,
    get served() {
      return (served ??= contract.operations.map((operation) => servedAs(ctx, operation)));
    },
    seed: (text, source) => {
      const create = (method: "POST" | "PUT", path: string, body: Uint8Array, type: string): WireResponse => {
        const headers = { "content-type": type };
        return answered(() => route(ctx, TRUSTED, { method, url: path, headers, body }, path), onFailure, ctx);
      };
      return seedItems(contract, model, store, create, { text, source, limit: ctx.maxItemsName });
    },
    snapshot: () => writeJson(store.snapshot()),
    restore: (text, source) => {
      const parsed = parseJsonExact(text);
      if (!parsed.ok || !store.restore(exactTree(parsed.value, parsed.exact)))
        throw new KitError(
          "PS_DATA_INVALID",
          `${source}: not a store this mock saved (${parsed.ok ? "its shape" : parsed.message})`,
        );
    },
  };
}

/** The documented success status of a role: 201 for a create, 204 for a delete, where documented. */
function roleStatus(op: CompiledOperation, role: Role | undefined): number {
  let byRole = roleStatuses.get(op);
  if (byRole === undefined) roleStatuses.set(op, (byRole = new Map()));
  let status = byRole.get(role);
  if (status === undefined)
    byRole.set(role, (status = successStatus(op, role === "create" ? CREATED : role === "delete" ? DELETED : OK)));
  return status;
}

/** Each operation's success status by role, found once (every answer of a role has it). */
const roleStatuses = new WeakMap<CompiledOperation, Map<Role | undefined, number>>();
const CREATED = [201, 200];
const DELETED = [204, 200];
const OK = [200];

/**
 * How an operation is served, for the start-up report: its role, or why it answers from examples;
 * and, where no success answer its contract accepts can be made (its schema cannot be satisfied),
 * that it will answer 500 PS_MOCK_UNANSWERABLE, and why.
 */
function servedAs(ctx: Ctx, operation: CompiledOperation): ServedOperation {
  const role = ctx.model.roleOf(operation);
  const how =
    role !== undefined ? `${role.role} ${role.resource.name}` : `examples only: ${ctx.model.whyOutside(operation)}`;
  // A request no value can make valid is refused with 400, whatever is sent: the document's fault.
  const refused = operation.requestUnsatisfiable();
  const asks =
    refused === undefined ? "" : `; accepts no request, refuses each: ${refused.reason} (${refused.pointer})`;
  try {
    documentedAnswer(ctx.answers, operation, roleStatus(operation, role?.role), undefined);
    return { operation, served: how + asks };
  } catch (error) {
    if (!(error instanceof Unanswerable)) throw error;
    const served = `${how}${asks}; cannot answer, answers 500 PS_MOCK_UNANSWERABLE: ${error.why}`;
    return { operation, served, unanswerable: true };
  }
}

/** `make`'s answer, or the answer to its failure (failureAnswer). */
function answered(make: () => WireResponse, onFailure: (error: unknown) => void, ctx: Ctx): WireResponse {
  try {
    return make();
  } catch (error) {
    return failureAnswer(error, onFailure, ctx);
  }
}

/**
 * The one place a failure becomes an answer (as hono's `dispatch`), inside the engine that every
 * adapter wraps: an operation that cannot answer gets 500 PS_MOCK_UNANSWERABLE naming it and why;
 * anything else is the engine's own failure, told to `onFailure` and answered 500 PS_INTERNAL.
 */
function failureAnswer(error: unknown, onFailure: (error: unknown) => void, ctx: Ctx): WireResponse {
  if (error instanceof Unanswerable) return unanswerable(ctx, error);
  try {
    onFailure(error);
  } catch {
    // A reporter that fails itself must not take the answer with it: the handle never throws.
  }
  return errorAnswer("PS_INTERNAL");
}

/** An operation that cannot answer: 500 PS_MOCK_UNANSWERABLE, in the error shape it documents for 500 where it can be made. */
function unanswerable(ctx: Ctx, error: Unanswerable): WireResponse {
  const op = ctx.contract.operations.find((o) => o.operationId === error.operationId);
  try {
    return errorFor(ctx.answers, op, "PS_MOCK_UNANSWERABLE", error.message, { status: 500 });
  } catch {
    return errorAnswer("PS_MOCK_UNANSWERABLE", error.message);
  }
}

/**
 * What `Prefer` asks for (RFC 7240; Prism's `code=` and `example=`): a status the operation
 * documents, and a named example; undefined when it asks for nothing the operation has.
 */
function preferred(
  op: CompiledOperation,
  prefer: string | undefined,
): { status: number; example?: string } | undefined {
  if (prefer === undefined) return undefined;
  const code = /(?:^|[\s,;])code=(\d{3})(?=$|[\s,;])/.exec(prefer)?.[1];
  const example = /(?:^|[\s,;])example=([^\s,;]+)/.exec(prefer)?.[1];
  if (code !== undefined && op.responseFor(Number(code)) !== undefined)
    return { status: Number(code), ...(example === undefined ? {} : { example }) };
  if (example !== undefined) return { status: successStatus(op), example };
  return undefined;
}

/** How deep a request body may nest arrays and objects (docs/errors.md, PS_BODY_TOO_DEEP). */

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, read as bytes in one pass (brackets
 * inside strings do not count); stops at the first level past the limit.
 */
export function nestedDeeperThan(body: Uint8Array, limit: number): boolean {
  // Each level opens with a byte of its own: a body no longer than the limit cannot pass it.
  if (body.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Lets every request through: seed data is the user's own, not a client's. */
const TRUSTED = (): undefined => undefined;

function route(
  ctx: Ctx,
  credentialsOf: ReturnType<typeof createCredentialCheck>,
  request: CoreRequest,
  requestedPath: string,
  errorsOnDemand = false,
): WireResponse {
  // `path` as the contract's templates see it: without the server URL's base path, if it came with one.
  const { found, path } = routeUnder(ctx, request.method, requestedPath);
  if (found.kind === "not-found") return errorAnswer("PS_NOT_FOUND", `${request.method} ${path}`);
  if (found.kind === "method-not-allowed")
    return errorAnswer("PS_METHOD_NOT_ALLOWED", `${request.method} ${path} (allowed: ${found.allowed.join(", ")})`, {
      headers: { allow: found.allowed.join(", ") },
    });
  const op = found.operation;
  const q = request.url.indexOf("?");
  const query = q < 0 ? "" : request.url.slice(q + 1);
  const denied = credentialsOf(op, { headers: request.headers, query });
  if (denied !== undefined) {
    const challenge: Record<string, string> =
      denied.challenge === undefined ? {} : { "www-authenticate": denied.challenge };
    return errorFor(ctx.answers, op, "PS_UNAUTHORIZED", denied.detail, { headers: challenge });
  }
  if (errorsOnDemand) {
    const asked = preferred(op, first(request.headers.prefer));
    if (asked !== undefined && asked.status >= 400 && asked.example === undefined) {
      // An error asked for by status alone: the kit's error in the documented shape, nothing stored.
      const message = `an error answer asked for with Prefer: code=${asked.status}`;
      return errorFor(ctx.answers, op, "PS_EXAMPLE_ERROR", undefined, { status: asked.status, message });
    }
    if (asked !== undefined) return documentedAnswer(ctx.answers, op, asked.status, undefined, {}, asked.example);
  }
  // A body nested past the limit is refused before it is parsed: no work grows with its depth.
  if (request.body !== undefined && nestedDeeperThan(request.body, ctx.maxDepth))
    return errorFor(ctx.answers, op, "PS_BODY_TOO_DEEP", `more than ${ctx.maxDepth} levels`);
  const accepted = checkRequest(op, { headers: request.headers, body: request.body, path, query });
  if (!accepted.ok) {
    const { code, detail, extra } = refusalError(op, accepted);
    const status = code === "PS_UNSUPPORTED_MEDIA_TYPE" && op.responses.has("415") ? 415 : undefined;
    return errorFor(ctx.answers, op, code, detail, { extra, status });
  }
  const role = ctx.model.roleOf(op);
  if (role === undefined) return documentedAnswer(ctx.answers, op, successStatus(op), undefined);
  const call: Call = {
    op,
    resource: role.resource,
    accepted,
    path: decodedPath(op, path),
    query,
    contentType: first(request.headers["content-type"]),
    requestPath: requestedPath,
    host: first(request.headers.host),
  };
  // Items live under their parents: under a parent that does not exist there is nothing (RFC 9110 15.5.5).
  const orphan = missingParent(ctx, call);
  if (orphan !== undefined) return orphan;
  switch (role.role) {
    case "create":
      return create(ctx, call);
    case "list":
      return list(ctx, call);
    case "read":
      return read(ctx, call);
    case "replace":
    case "patch":
      return update(ctx, call, role.role);
    case "delete":
      return remove(ctx, call);
  }
}

/** The base paths of the document's server URLs (`/api/v1` of `https://host/api/v1`), longest first. */
function basePaths(contract: Contract): string[] {
  const servers = ((contract.document as Json).servers ?? []) as { url?: unknown }[];
  const paths = servers.flatMap((s) => {
    if (typeof s?.url !== "string") return [];
    const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(s.url) ? s.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "") : s.url;
    const trimmed = path.replace(/\/+$/, "");
    return trimmed.startsWith("/") && !trimmed.includes("{") ? [trimmed] : [];
  });
  return [...new Set(paths)].sort((a, b) => b.length - a.length);
}

/** The operation for a request, at the root or under a server URL's base path (`/api/v1/things`). */
function routeUnder(ctx: Ctx, method: string, path: string): { found: ReturnType<Contract["route"]>; path: string } {
  const found = ctx.contract.route(method, path);
  if (found.kind !== "not-found") return { found, path };
  for (const base of ctx.bases)
    if (path.startsWith(`${base}/`)) {
      const under = ctx.contract.route(method, path.slice(base.length));
      if (under.kind !== "not-found") return { found: under, path: path.slice(base.length) };
    }
  return { found, path };
}

/** The path parameters of a path that has none. */
const NO_PATH_VALUES: Readonly<Record<string, string>> = Object.freeze({});

function decodedPath(op: CompiledOperation, path: string): Readonly<Record<string, string>> {
  // A path without parameters (`/plants`) has none to decode.
  if (!op.pathTemplate.includes("{")) return NO_PATH_VALUES;
  const raw = op.matchRawPath(path) ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}

/**
 * The collection a call acts on: the resource's items under the parents named in the path; made
 * for a write, only found for a read (undefined where nothing was ever stored there).
 */
function collectionOf(ctx: Ctx, call: Call): Collection;
function collectionOf(ctx: Ctx, call: Call, write: false): Collection | undefined;
function collectionOf(ctx: Ctx, call: Call, write = true): Collection | undefined {
  const names = call.resource.parentParameters;
  const parents = names.length === 0 ? NO_PARENTS : names.map((p) => idKey(call.op, p, call.path[p] ?? ""));
  return write
    ? ctx.store.collection(call.resource.collectionPath, parents)
    : ctx.store.existing(call.resource.collectionPath, parents);
}

/** The parents' ids of a top-level collection. */
const NO_PARENTS: readonly string[] = Object.freeze([]);

/** A path id as the store keys it: an integer parameter in canonical decimal (`007` is `7`). */
function idKey(op: CompiledOperation, name: string, value: string): string {
  const p = op.parameters.find((x) => x.in === "path" && x.name === name);
  if (p?.shape.types.includes("integer") === true && /^[+-]?\d+$/.test(value)) return BigInt(value).toString();
  return value;
}

/**
 * The 404 of a call under a parent item the store does not hold (`/gardens/7/plants` without garden
 * 7), where the parent is a resource the mock serves; undefined when every parent is there.
 */
function missingParent(ctx: Ctx, call: Call): WireResponse | undefined {
  for (const parent of parentsOf(ctx, call.resource)) {
    const name = parent.idParameter!;
    // A shallow item path names no parent: the item, where it is, says which.
    if (call.path[name] === undefined) continue;
    const key = idKey(call.op, name, call.path[name]);
    const grand = parent.parentParameters.map((p) => idKey(call.op, p, call.path[p] ?? ""));
    if (ctx.store.existing(parent.collectionPath, grand)?.get(key) === undefined)
      return errorFor(ctx.answers, call.op, "PS_ITEM_NOT_FOUND", `${singular(parent.name)} ${key}`, {
        message: `no ${singular(parent.name)} has this id`,
      });
  }
  return undefined;
}

/** Each resource's parents the mock serves, nearest first, found once (a resource's path does not change). */
const parentResources = new WeakMap<Resource, readonly Resource[]>();
function parentsOf(ctx: Ctx, resource: Resource): readonly Resource[] {
  let parents = parentResources.get(resource);
  if (parents === undefined) {
    const segments = resource.collectionPath.split("/");
    const found: Resource[] = [];
    for (let end = segments.length - 1; end > 1; end--) {
      const itemPath = segments.slice(0, end).join("/");
      const parent = ctx.model.resources.find((r) => r.itemPath === itemPath && r.idParameter !== undefined);
      if (parent !== undefined) found.push(parent);
    }
    parentResources.set(resource, (parents = found));
  }
  return parents;
}

/** An item placed where the answers keep it: itself, or inside its envelope (`{"data": item}`). */
function placed(resource: Resource, item: unknown): unknown {
  const at = resource.id?.at ?? "";
  if (at === "") return item;
  return at
    .split("/")
    .slice(1)
    .reverse()
    .reduce((inner, token) => ({ [unescapePointer(token)]: inner }), item);
}

function itemOf(ctx: Ctx, call: Call): { key: string; item: unknown; collection: Collection } | WireResponse {
  const name = call.resource.idParameter;
  const key = name === undefined ? "" : idKey(call.op, name, call.path[name] ?? "");
  // An item path that names no parent (shallow nesting) finds the item under whichever parent holds it.
  const shallow = call.resource.parentParameters.some((p) => call.path[p] === undefined);
  const collection = shallow ? ctx.store.holding(call.resource.collectionPath, key) : collectionOf(ctx, call, false);
  const item = collection?.get(key);
  if (item === undefined || collection === undefined)
    return errorFor(ctx.answers, call.op, "PS_ITEM_NOT_FOUND", `${call.resource.name} ${key}`);
  return { key, item, collection };
}

const isAnswer = (v: unknown): v is WireResponse => typeof v === "object" && v !== null && "status" in v && "body" in v;

function create(ctx: Ctx, call: Call): WireResponse {
  const { resource, op } = call;
  const item = stored(ctx, call);
  const foreign = foreignType(ctx, call, item);
  if (foreign !== undefined) return foreign;
  const id = resource.id;
  let key: string;
  // The client's id, where the request declares it, is the item's whenever it is sent (model: chosenBy).
  // A resource name's id comes from the create's query (AIP-133's `shelfId`); any other from the body.
  const sent =
    id?.template !== undefined
      ? (new URLSearchParams(call.query).get(id.query ?? "") ?? undefined)
      : id === undefined
        ? undefined
        : keyOf(valueAt(item, id));
  const chosen = id === undefined || id.chosenBy === "server" ? undefined : sent;
  if (chosen !== undefined) key = chosen;
  else if (id?.chosenBy === "client") return errorFor(ctx.answers, op, "PS_BODY_INVALID", `${id.name} is required`);
  else {
    // An id of the server's own is one no item holds, a client's included (AIP-133: the server picks).
    const taken = collectionOf(ctx, call);
    let made: unknown;
    let tries = 0;
    do {
      const n = ctx.store.nextNumber();
      made = id === undefined ? n : serverId(ctx, resource, n);
      key = keyOf(made) ?? n.toString();
    } while (taken.has(key) && ++tries < 10_000);
    // Never a duplicate for a client that sent no id: the mock says it could not make one.
    if (taken.has(key)) throw new Unanswerable(op.operationId, 201, `no free id after ${tries} tries`);
    if (id !== undefined && id.template === undefined) setValueAt(item, id, made);
  }
  if (id?.template !== undefined) setValueAt(item, id, resourceNameOf(call, id.template, key));
  // A property named as a parent's path parameter (`productId` under `/products/{productId}/configs`)
  // holds that parent's id, the one the path names.
  const { properties } = itemProperties(ctx, resource);
  for (const p of resource.parentParameters)
    if (properties.has(p) && !(p in item)) item[p] = typedValue(ctx, properties.get(p), call.path[p] ?? "");
  fillServerOwned(ctx, resource, item);
  stampVersion(ctx, resource, item);
  const collection = collectionOf(ctx, call);
  const outcome = ctx.store.insert(collection, key, item);
  // 409 Conflict (RFC 9110 section 15.5.10), in the documented shape where the operation has one.
  if (outcome === "duplicate")
    return errorFor(ctx.answers, op, "PS_DUPLICATE_ID", `${id?.name ?? "id"} ${key}`, {
      message: `${anItem(resource)} with this id already exists`,
    });
  if (outcome === "full") {
    const items = ctx.model.resources.length === 1 ? resource.name : "items";
    return errorFor(ctx.answers, op, "PS_STORE_FULL", `${ctx.store.maxItems} ${items}`, {
      message: `the store holds as many ${items} as it is configured to (${ctx.maxItemsName})`,
    });
  }
  const headers: Record<string, string> = {};
  if (resource.location && resource.itemPath !== undefined) headers.location = itemUrl(call, key);
  return documentedAnswer(
    ctx.answers,
    op,
    roleStatus(op, "create"),
    placed(resource, linked(ctx, call, item, key)),
    headers,
  );
}

/** `a plant`, `an order`: one item of the resource, for messages. */
function anItem(resource: Resource): string {
  const one = singular(resource.name);
  return `${/^[aeiou]/i.test(one) ? "an" : "a"} ${one}`;
}

/**
 * What a create or replace stores: the accepted body, numbers exact, with only the properties its
 * schema declares (a schema that declares none keeps all). Nothing of the request's other keys,
 * `__proto__` included, is ever assigned onto an object of ours.
 */
function stored(ctx: Ctx, call: Call, sent: RequestItem = requestItem(ctx, call)): Json {
  const { body, schema } = sent;
  const plan = schema === undefined ? undefined : storingOf(ctx, schema);
  const value = plan === undefined ? body : plan.project(body, 0);
  // The item is the store's own: the projection made it, else a copy of what was sent. A projection
  // whose prototype a `__proto__` property set (a schema may declare one) is copied as before, so a
  // client's object never becomes the item's prototype (an id or a default read through it).
  const item: Json =
    typeof value !== "object" || value === null || Array.isArray(value)
      ? {}
      : value !== body && Object.getPrototypeOf(value) === Object.prototype
        ? (value as Json)
        : { ...(value as Json) };
  if (plan === undefined) return item;
  // A readOnly property is the server's to set (OpenAPI Schema Object): a value a client sends is not kept.
  for (const name of plan.readOnly) delete item[name];
  // A default is what the server assumes for a property left out (Schema Object `default`): stored, so
  // that it reads back as the value the item has.
  for (const [name, fallback] of plan.defaults)
    if (!(name in item)) item[name] = JSON.parse(JSON.stringify(fallback)) as unknown;
  return item;
}

/**
 * How a request schema's item is stored, found once: its projection, its readOnly properties, and
 * those with a default (readOnly ones left out).
 */
interface Storing {
  readonly project: Projector;
  readonly readOnly: readonly string[];
  readonly defaults: readonly (readonly [string, unknown])[];
}

const storings = new WeakMap<object, Storing>();
function storingOf(ctx: Ctx, schema: unknown): Storing {
  const resolve = ctx.answers.resolve;
  // A schema that is no object (`true`) declares nothing: found each time, as cheaply.
  if (typeof schema !== "object" || schema === null)
    return { project: projectorOf(schema, resolve), readOnly: [], defaults: [] };
  let found = storings.get(schema);
  if (found === undefined) {
    const { properties, readOnly } = propertiesOf(schema, resolve);
    const defaults: (readonly [string, unknown])[] = [];
    for (const [name, property] of properties) {
      const fallback = (followRefs(property, resolve) as Json | undefined)?.default;
      if (fallback !== undefined && !readOnly.has(name)) defaults.push([name, fallback]);
    }
    storings.set(schema, (found = { project: projectorOf(schema, resolve), readOnly: [...readOnly], defaults }));
  }
  return found;
}

/**
 * The item a request sends, and its schema: the body, or where the answers keep the item in an
 * envelope the request has too (JSON:API's `{"data": {...}}`), what that envelope holds.
 */
interface RequestItem {
  readonly body: unknown;
  readonly schema: unknown;
}

function requestItem(ctx: Ctx, call: Call): RequestItem {
  const body = exactTree(call.accepted.value, call.accepted.exact);
  const entry = call.accepted.entry ?? call.op.requestMediaType(call.contentType ?? "application/json");
  const schema = entry?.hasSchema === true ? entrySchema(ctx, entry) : undefined;
  const at = call.resource.id?.at ?? "";
  // The item is the body itself (the common case): no envelope to look into.
  if (at === "") return { body, schema };
  const name = unescapePointer(at.slice(1));
  const inner = schema === undefined ? undefined : propertiesOf(schema, ctx.answers.resolve).properties.get(name);
  if (inner === undefined || name.includes("/") || typeof body !== "object" || body === null || !(name in body))
    return { body, schema };
  return { body: (body as Json)[name], schema: inner };
}

/** Each request media type's schema, found once. */
const entrySchemas = new WeakMap<MediaTypeEntry, unknown>();
function entrySchema(ctx: Ctx, entry: MediaTypeEntry): unknown {
  if (!entrySchemas.has(entry)) entrySchemas.set(entry, ctx.answers.resolve(`#${entry.pointer}/schema`));
  return entrySchemas.get(entry);
}

/** The schema of the item in the create's answer, where the model found the id. */
function answerItemSchema(ctx: Ctx, resource: Resource): unknown {
  const create = (resource.operations.create ?? resource.operations.replace)!;
  for (const r of create.responses.values()) {
    if (!/^2/.test(r.status)) continue;
    for (const entry of r.content.values()) {
      if (!entry.hasSchema) continue;
      // Through every envelope the item sits in (`/data/account` too).
      const schema = ctx.answers.resolve(`#${entry.pointer}/schema`);
      return propertySchemaAt(schema, resource.id?.at ?? "", ctx.answers.resolve);
    }
  }
  return undefined;
}

/** The properties of a resource's item in the create's answer: found once per resource, read on every write. */
const itemPropertiesOf = new WeakMap<Resource, ReturnType<typeof propertiesOf>>();
function itemProperties(ctx: Ctx, resource: Resource): ReturnType<typeof propertiesOf> {
  let found = itemPropertiesOf.get(resource);
  if (found === undefined)
    itemPropertiesOf.set(resource, (found = propertiesOf(answerItemSchema(ctx, resource), ctx.answers.resolve)));
  return found;
}

/** A new id the server gives: the n-th number, or a text its schema takes (a UUID, else `n`). */
function serverId(ctx: Ctx, resource: Resource, n: bigint): unknown {
  const schema = idSchema(ctx, resource);
  const s = (followRefs(schema, ctx.answers.resolve) ?? {}) as Json;
  // The path parameter that names an item must take the id too (DigitalOcean's uuid firewall_id).
  const item = resource.operations.read ?? resource.operations.replace ?? resource.operations.delete;
  const p = item?.parameters.find((x) => x.in === "path" && x.name === resource.idParameter);
  const param = (followRefs(p?.schema, ctx.answers.resolve) ?? {}) as Json;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  if (type === "integer" || type === "number") return n;
  if (s.format === "uuid" || param.format === "uuid")
    return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
  return patterned(s, n) ?? patterned(param, n) ?? n.toString();
}

/**
 * A string id a `pattern` accepts, made unique by the number: the pattern's literal start and the
 * number (Stripe's `^cus_[A-Za-z0-9]+$` gives `cus_7`); undefined where there is no pattern or that fails.
 */
function patterned(schema: Json, n: bigint): string | undefined {
  if (typeof schema.pattern !== "string") return undefined;
  let pattern = PATTERNS.get(schema.pattern);
  if (pattern === undefined) {
    try {
      pattern = new RegExp(schema.pattern, "u");
    } catch {
      pattern = null;
    }
    PATTERNS.set(schema.pattern, pattern);
  }
  if (pattern === null) return undefined;
  const test = pattern;
  const prefix = /^\^?((?:[A-Za-z0-9_-]|\\[./-])*)/.exec(schema.pattern)?.[1]?.replace(/\\/g, "") ?? "";
  return [`${prefix}${n}`, `${prefix}${n.toString(36)}`, `${prefix}n${n}`].find((c) => test.test(c));
}

/** Each id pattern compiled once (null: one JavaScript cannot compile). */
const PATTERNS = new Map<string, RegExp | null>();

/**
 * Stripe's metadata: a key sent with an empty value is unset, and `metadata: ""` unsets them all
 * (docs.stripe.com/api/metadata). Applied to the result of an update sent as a POST to the item.
 */
function unsetMetadata(patched: unknown, body: unknown): void {
  if (typeof patched !== "object" || patched === null || typeof body !== "object" || body === null) return;
  const item = patched as Json;
  const sent = (body as Json).metadata;
  if (sent === "") delete item.metadata;
  else if (typeof sent === "object" && sent !== null && typeof item.metadata === "object" && item.metadata !== null) {
    const kept: Json = { ...(item.metadata as Json) };
    for (const [k, v] of Object.entries(sent)) if (v === "") delete kept[k];
    item.metadata = kept;
  }
}

/** A resource's version field (engine-versions.ts), found once. */
const versionFields = new WeakMap<Resource, VersionField | null>();
function versionFieldOf(ctx: Ctx, resource: Resource): VersionField | undefined {
  let field = versionFields.get(resource);
  if (field === undefined)
    versionFields.set(
      resource,
      (field = versionField(answerItemSchema(ctx, resource), resource.id?.within, ctx.answers.resolve) ?? null),
    );
  return field ?? undefined;
}

/** Every write gives the item a new version token, where its schema has one. */
function stampVersion(ctx: Ctx, resource: Resource, item: Json): void {
  const field = versionFieldOf(ctx, resource);
  if (field !== undefined) setValueAt(item, field, String(++ctx.versions.last));
}

/** A replace or patch that sends another version than the item's: 409 where documented, nothing changed. */
function staleVersion(ctx: Ctx, call: Call, item: unknown, body: unknown): WireResponse | undefined {
  const field = versionFieldOf(ctx, call.resource);
  if (field === undefined || !call.op.responses.has("409")) return undefined;
  const sent = valueAt(body, field);
  if (sent === undefined || sent === "" || sent === valueAt(item, field)) return undefined;
  return errorFor(ctx.answers, call.op, "PS_VERSION_CONFLICT", `${field.name} ${String(sent)} is not the item's`);
}

/** A resource name (AIP-122): the template's parameters filled from the path, its last with the new id. */
function resourceNameOf(call: Call, template: string, key: string): string {
  return template.replace(/\{([^{}]+)\}/g, (_, name: string) =>
    name === call.resource.idParameter ? key : (call.path[name] ?? ""),
  );
}

/** The schema of a resource's id property in the create's answer, where the model places it. */
function idSchema(ctx: Ctx, resource: Resource): unknown {
  const id = resource.id!;
  return propertySchemaAt(
    answerItemSchema(ctx, resource),
    `${id.within ?? ""}/${escapePointer(id.name)}`,
    ctx.answers.resolve,
  );
}

/** A path parameter's text as the value a property's schema takes: an integer's digits exactly (a bigint), else the text. */
function typedValue(ctx: Ctx, schema: unknown, text: string): unknown {
  const s = (followRefs(schema, ctx.answers.resolve) ?? {}) as Json;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  return (type === "integer" || type === "number") && /^-?\d+$/.test(text) ? BigInt(text) : text;
}

/** Fills the readOnly properties of the answer's item the request did not give: timestamps now, others plainly. */
function fillServerOwned(ctx: Ctx, resource: Resource, item: Json): void {
  const { properties, readOnly } = itemProperties(ctx, resource);
  let now: string | undefined;
  for (const name of readOnly) {
    if (name in item) continue;
    const s = (followRefs(properties.get(name), ctx.answers.resolve) ?? {}) as Json;
    item[name] = s.format === "date-time" ? (now ??= new Date().toISOString()) : plainValue(s, ctx.answers.resolve);
  }
}

/**
 * The new item's URL: its item path filled in, under the base path the request came through (a
 * server URL's path), absolute when the request named its host (a `format: uri` Location needs it).
 */
function itemUrl(call: Call, key: string): string {
  const fill = (template: string): string =>
    template.replace(/\{([^{}]+)\}/g, (_, name: string) =>
      encodeURIComponent(name === call.resource.idParameter ? key : (call.path[name] ?? "")),
    );
  const collection = fill(call.resource.collectionPath);
  const base = call.requestPath.endsWith(collection) ? call.requestPath.slice(0, -collection.length) : "";
  const path = `${base}${fill(call.resource.itemPath!)}`;
  return call.host === undefined || !/^[A-Za-z0-9.:[\]-]+$/.test(call.host) ? path : `http://${call.host}${path}`;
}

/**
 * JSON:API's 409 for a resource object whose `type` is not the collection's (1.1, Creating Resources:
 * "409 Conflict ... when the type does not match"), where the answers name the type the collection
 * holds (an enum or const); undefined for any other request.
 */
function foreignType(ctx: Ctx, call: Call, item: Json): WireResponse | undefined {
  if (typeof item.type !== "string" || !/vnd\.api\+json/i.test(call.contentType ?? "")) return undefined;
  const type = (followRefs(itemProperties(ctx, call.resource).properties.get("type"), ctx.answers.resolve) ??
    {}) as Json;
  const allowed = Array.isArray(type.enum) ? type.enum : type.const === undefined ? undefined : [type.const];
  if (allowed === undefined || allowed.includes(item.type)) return undefined;
  return errorFor(
    ctx.answers,
    call.op,
    "PS_TYPE_CONFLICT",
    `type ${item.type}, where ${call.resource.name} holds ${allowed.join(", ")}`,
  );
}

/**
 * An item as answered with its own link where its schema has one: HAL's `_links.self.href` (the
 * item's identity where its id is not in the body, as Spring Data REST shows it), JSON:API's
 * `links.self`. The stored item is not changed.
 */
function linked(ctx: Ctx, call: Call, item: Json, key: string): Json {
  if (call.resource.itemPath === undefined) return item;
  const kind = selfLinkOf(ctx, call.resource);
  if (kind === "none") return item;
  const url = itemUrl(call, key);
  return kind === "hal"
    ? { ...item, _links: { ...(item._links as Json | undefined), self: { href: url } } }
    : { ...item, links: { ...(item.links as Json | undefined), self: url } };
}

/** The self link a resource's items carry (HAL's `_links.self`, JSON:API's `links.self`), found once. */
const selfLinks = new WeakMap<Resource, "hal" | "json-api" | "none">();
function selfLinkOf(ctx: Ctx, resource: Resource): "hal" | "json-api" | "none" {
  let kind = selfLinks.get(resource);
  if (kind === undefined) {
    const { properties } = itemProperties(ctx, resource);
    const resolve = ctx.answers.resolve;
    const self = (name: string): boolean =>
      properties.has(name) && propertiesOf(followRefs(properties.get(name), resolve), resolve).properties.has("self");
    selfLinks.set(resource, (kind = self("_links") ? "hal" : self("links") ? "json-api" : "none"));
  }
  return kind;
}

function read(ctx: Ctx, call: Call): WireResponse {
  const found = itemOf(ctx, call);
  if (isAnswer(found)) return found;
  const shown = linked(ctx, call, found.item as Json, found.key);
  return documentedAnswer(ctx.answers, call.op, successStatus(call.op), placed(call.resource, shown));
}

function update(ctx: Ctx, call: Call, role: "replace" | "patch"): WireResponse {
  const id = call.resource.id;
  const found = itemOf(ctx, call);
  if (isAnswer(found) && role === "replace" && call.resource.upsert) return upserted(ctx, call);
  if (isAnswer(found)) return found;
  // The request's item, read once (its exact numbers put back): checked, stored or patched in.
  const sent = requestItem(ctx, call);
  const { body } = sent;
  const stale = staleVersion(ctx, call, found.item, body);
  if (stale !== undefined) return stale;
  const old = found.item as Json;
  let next: unknown;
  const mask = updateMask(call);
  if (role === "replace" || mask === "*") next = stored(ctx, call, sent);
  else {
    const patched = applyPatch(old, mask === undefined ? body : masked(body, mask), call.contentType);
    if (!patched.ok)
      return errorFor(
        ctx.answers,
        call.op,
        patched.conflict === true ? "PS_PATCH_CONFLICT" : "PS_BODY_INVALID",
        patched.detail,
      );
    next = patched.value;
    // Stripe's convention rides with Stripe's update shape: a POST to the item.
    if (call.op.method === "post") unsetMetadata(next, body);
  }
  const item: Json = typeof next === "object" && next !== null && !Array.isArray(next) ? { ...(next as Json) } : {};
  // The id and what the server owns stay as they were, whatever the request says: a body that names
  // another id than the path's is not refused (its schema accepts it), and that id is never used.
  const oldId = id === undefined ? undefined : valueAt(old, id);
  if (id !== undefined && oldId !== undefined) setValueAt(item, id, oldId);
  const { readOnly } = itemProperties(ctx, call.resource);
  for (const name of readOnly) if (name in old) item[name] = old[name];
  stampVersion(ctx, call.resource, item);
  ctx.store.replace(found.collection, found.key, item);
  const shown = linked(ctx, call, item, found.key);
  return documentedAnswer(ctx.answers, call.op, successStatus(call.op), placed(call.resource, shown));
}

/**
 * An update mask (AIP-134's `updateMask`): the fields a patch changes, `*` for all of them (a
 * replace); undefined where the operation takes none or none was sent (every field sent changes).
 */
function updateMask(call: Call): string[] | "*" | undefined {
  const parameter = call.op.parameters.find(
    (p) => p.in === "query" && ["updatemask", "fieldmask"].includes(p.name.toLowerCase().replace(/[^a-z]/g, "")),
  );
  const text = parameter === undefined ? null : new URLSearchParams(call.query).get(parameter.name);
  if (text === null || text.trim() === "") return undefined;
  if (text.trim() === "*") return "*";
  return text.split(",").map((path) => path.trim().split(".")[0]!.toLowerCase().replace(/_/g, ""));
}

/** The members of a patch body that a mask names (their first field path segment, case and `_` aside). */
function masked(body: unknown, mask: readonly string[]): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  return Object.fromEntries(Object.entries(body).filter(([k]) => mask.includes(k.toLowerCase().replace(/_/g, ""))));
}

/** An upsert's create: the item at the path's id, answered 201 (RFC 9110 9.3.4). */
function upserted(ctx: Ctx, call: Call): WireResponse {
  const { resource, op } = call;
  const key = idKey(op, resource.idParameter!, call.path[resource.idParameter!] ?? "");
  const item = stored(ctx, call);
  const id = resource.id;
  if (id?.template !== undefined) setValueAt(item, id, resourceNameOf(call, id.template, key));
  else if (id !== undefined) setValueAt(item, id, typedValue(ctx, idSchema(ctx, resource), key));
  fillServerOwned(ctx, resource, item);
  stampVersion(ctx, resource, item);
  const outcome = ctx.store.insert(collectionOf(ctx, call), key, item);
  if (outcome === "full") return errorFor(ctx.answers, op, "PS_STORE_FULL", `${ctx.store.maxItems} items`);
  const headers: Record<string, string> = resource.location ? { location: itemUrl(call, key) } : {};
  return documentedAnswer(ctx.answers, op, 201, placed(resource, linked(ctx, call, item, key)), headers);
}

function remove(ctx: Ctx, call: Call): WireResponse {
  const found = itemOf(ctx, call);
  if (isAnswer(found)) return found;
  ctx.store.remove(found.collection, found.key);
  return documentedAnswer(ctx.answers, call.op, roleStatus(call.op, "delete"), placed(call.resource, found.item));
}

/**
 * A list: the collection's items in the order made (newest first where its cursor names an item),
 * filtered, then paged as the request asks. In the order made the collection is walked, not copied:
 * a page of 20 of a million items reads as far as its last item, unless the answer states a total
 * (then every matching item is counted). Newest first copies the collection's entries once.
 */
function list(ctx: Ctx, call: Call): WireResponse {
  const shape = call.resource.list!;
  const query = new URLSearchParams(call.query);
  const filters: [string, string[]][] = [];
  for (const [parameter, property] of shape.filters) {
    const wanted = query.getAll(parameter).flatMap((v) => v.split(","));
    if (wanted.length > 0) filters.push([property, wanted]);
  }
  const limitDefault = call.op.parameters.find((p) => p.name === shape.paging.limit)?.schema as Json | undefined;
  function* matching(): Generator<Json> {
    const collection = collectionOf(ctx, call, false)?.entries() ?? [];
    for (const [key, value] of shape.pages.newestFirst ? [...collection].reverse() : collection) {
      const item = value as Json;
      if (filters.every(([property, wanted]) => wanted.includes(keyOf(item[property]) ?? "\u0000")))
        yield linked(ctx, call, item, key);
    }
  }
  const page = pageOf(
    shape,
    matching(),
    {
      query,
      path: call.requestPath,
      host: call.host,
      defaultLimit: typeof limitDefault?.default === "number" ? limitDefault.default : undefined,
      idOf: (item) => (call.resource.id === undefined ? undefined : valueAt(item, call.resource.id)),
    },
    listAnswerSchema(ctx, call.op),
    ctx.answers.resolve,
  );
  // A page past the last where the list documents 404 (Django REST Framework: "Invalid page").
  if (page.pastTheEnd && call.op.responses.has("404"))
    return errorFor(ctx.answers, call.op, "PS_PAGE_NOT_FOUND", `${shape.paging.page}=${query.get(shape.paging.page!)}`);
  return documentedAnswer(ctx.answers, call.op, successStatus(call.op), page.value, page.headers);
}

/** The schema of a list's JSON success answer, where its paging fields are. */
function listAnswerSchema(ctx: Ctx, op: CompiledOperation): unknown {
  const entry = [...(op.responseFor(successStatus(op))?.content.values() ?? [])].find((e) => e.hasSchema);
  return entry === undefined ? undefined : ctx.answers.resolve(`#${entry.pointer}/schema`);
}
