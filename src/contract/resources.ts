// The contract's resources, from the document alone: which paths are collections and which are items,
// which operation creates, lists, reads, replaces, patches and deletes each, which property is an
// item's id, where a list answer keeps its array, and which query parameters page and filter a list.
// Every guess is said in the resource's notes; an author corrects one with `x-plantstore-role` (on an
// operation) or `x-plantstore-id` (on an operation or a path item). The mock serves from this model
// and the harness chains requests from it: neither infers resources on its own. Pure and browser-safe.

import type { CompiledOperation, CompiledParameter, Contract } from "./contract.js";
import { documentResolver, locateRef } from "./contract.js";
import { escapePointer, unescapePointer } from "./json-pointer.js";
import { shapeOfSchema } from "./parameter-shape.js";
import { followRefs, propertiesOf, propertySchemaAt, type Resolve } from "./schema-properties.js";

export const ROLES = ["create", "list", "read", "replace", "patch", "delete"] as const;
/** What an operation does to its resource. */
export type Role = (typeof ROLES)[number];

/** On an operation: its role (one of ROLES), or `none` to keep it outside the model. */
export const ROLE_EXTENSION = "x-plantstore-role";
/** On an operation or a path item: the property that holds an item's id. */
export const ID_EXTENSION = "x-plantstore-id";

/** The property that holds an item's id, and how the model knows it. */
export interface IdProperty {
  /** A property at the top of the resource's representation. */
  readonly name: string;
  /** Where a new item's id is read: the create's answer, or its request (an id the client chooses). */
  readonly in: "response" | "request";
  /** JSON pointer of the item in the create's answer: "" for the answer itself, `/data` for an envelope's. */
  readonly at: string;
  /**
   * Where in the item the id sits, when not at its top: the object holding it (`/metadata` of
   * Kubernetes' `metadata.name`); "" or absent for a top-level property.
   */
  readonly within?: string;
  /**
   * A resource name (AIP-122): the property holds the item's path without the version, its id the
   * template's last parameter (`shelves/{shelf}`); the store keys items by that parameter's value.
   */
  readonly template?: string;
  /** The create's query parameter that names the new item's id (AIP-133's `shelfId`). */
  readonly query?: string;
  /** How it was found, in words: `x-plantstore-id`, an OpenAPI link, the parameter's name, or a guess. */
  readonly source: string;
  readonly guessed: boolean;
  /**
   * Who chooses a new item's id: the client where the create's request declares it (not readOnly),
   * always (`client`, the request requires it) or when it sends one (`either`, the server choosing
   * otherwise, as AIP-133's optional id); else the server. A client's id is always the item's.
   */
  readonly chosenBy: "client" | "either" | "server";
}

/** The query parameters of a list that page it, by what they do. */
export interface Paging {
  readonly limit?: string;
  readonly offset?: string;
  readonly page?: string;
  readonly cursor?: string;
}

/**
 * Where a list answer says how to go on, as JSON pointers into the answer: a next page's URL (DRF's
 * `next`, JSON:API's `links.next`, HAL's `_links.next.href`, OData's `@odata.nextLink`) or opaque
 * token (AIP's `nextPageToken`, Kubernetes' `metadata.continue`), whether there is more (Stripe's
 * `has_more`), the total (`count`, `totalElements`, `@odata.count`), and a documented `Link` header.
 */
export interface PageFields {
  readonly nextUrl?: string;
  /** What to leave out when there is no next page: the URL's holder (`/_links/next` of `/_links/next/href`). */
  readonly nextHolder?: string;
  readonly nextToken?: string;
  readonly previousUrl?: string;
  readonly previousHolder?: string;
  readonly hasMore?: string;
  readonly total?: string;
  readonly linkHeader: boolean;
  /** The first page's number: 0 where the page parameter's minimum or default says so (Spring), else 1. */
  readonly firstPage: 0 | 1;
  /** The cursor names the last item seen (Stripe's `starting_after`) rather than a position. */
  readonly cursorIsItem: boolean;
  /** The limit caps the whole answer rather than sizing a page (OData's `$top`): no next page beyond it. */
  readonly limitIsCap: boolean;
  /** The list's own URL in its answer (Stripe's `url`): the path it was asked at. */
  readonly selfUrl?: string;
  /** The page's number, its size, the count of pages, the last page's number (HAL's `page`, Laravel's `meta`). */
  readonly pageNumber?: string;
  readonly pageSize?: string;
  readonly totalPages?: string;
  readonly lastPage?: string;
  /**
   * Newest first: a list paged by the last item seen lists the most recent first (Stripe's lists;
   * GitHub's `since`-less cursors), otherwise in the order made.
   */
  readonly newestFirst: boolean;
}

/** How a list answer is read and asked for. */
export interface ListShape {
  /** JSON pointer of the items' array in the answer: "" for the answer itself, `/data` for an envelope's array. */
  readonly itemsAt: string;
  readonly paging: Paging;
  readonly pages: PageFields;
  /** Query parameters that filter by a property of the items: parameter name to property name. */
  readonly filters: ReadonlyMap<string, string>;
}

/** A collection of items and the operations on it. */
export interface Resource {
  /** The collection path's last segment: `plants`. */
  readonly name: string;
  /** `/gardens/{gardenId}/plants`. */
  readonly collectionPath: string;
  /** `/gardens/{gardenId}/plants/{plantId}`; undefined when no path names one item. */
  readonly itemPath: string | undefined;
  /** The path parameter that names one item: `plantId`. */
  readonly idParameter: string | undefined;
  /** The path parameters of the collection path, the parents' ids: `gardenId`. */
  readonly parentParameters: readonly string[];
  readonly operations: Readonly<Partial<Record<Role, CompiledOperation>>>;
  readonly id: IdProperty | undefined;
  /** The create's success answer documents a `Location` header (the new item's URL). */
  readonly location: boolean;
  /**
   * No POST creates an item: the replace (a PUT that documents 201) creates the item it does not find
   * at the id in its path, and replaces it after (RFC 9110 9.3.4).
   */
  readonly upsert: boolean;
  readonly list: ListShape | undefined;
  /** What the model guessed, or could not find, in words an author reads. */
  readonly notes: readonly string[];
}

/** The resources of a contract, and the role of each operation in them. */
export interface ResourceModel {
  readonly resources: readonly Resource[];
  /** The operation's resource and role; undefined for an operation outside the model. */
  roleOf(op: CompiledOperation): { readonly resource: Resource; readonly role: Role } | undefined;
  /** Why an operation is outside the model; undefined for one with a role. */
  whyOutside(op: CompiledOperation): string | undefined;
}

type Json = Record<string, unknown>;

const models = new WeakMap<Contract, ResourceModel>();

/** The contract's resource model, made once per contract. */
export function resourceModel(contract: Contract): ResourceModel {
  let model = models.get(contract);
  if (model === undefined) {
    model = buildModel(contract);
    models.set(contract, model);
  }
  return model;
}

const ITEM_SEGMENT = /^\{([^{}]+)\}$/;
const COLLECTION_ROLE: Readonly<Record<string, Role>> = { post: "create", get: "list" };
const ITEM_ROLE: Readonly<Record<string, Role>> = { get: "read", put: "replace", patch: "patch", delete: "delete" };

function buildModel(contract: Contract): ResourceModel {
  const doc = contract.document;
  const resolve: Resolve = documentResolver(doc);
  const outside = new Map<CompiledOperation, string>();
  const roles = new Map<CompiledOperation, { resource: Resource; role: Role }>();
  // Paths compared without a format suffix: Twilio's `/Accounts.json` and `/Accounts/{Sid}.json`.
  const byPath = new Map<string, CompiledOperation[]>();
  for (const op of contract.operations) {
    const path = withoutFormat(op.pathTemplate);
    byPath.set(path, [...(byPath.get(path) ?? []), op]);
  }
  const real = (path: string | undefined): string | undefined =>
    path === undefined ? undefined : (byPath.get(path)?.[0]?.pathTemplate ?? path);

  // Item paths: every path, or path prefix, that ends in a whole-segment template (`/plants/{id}`
  // of `/plants/{id}/water` too); a collection is the path above an item path.
  const itemPaths = new Set<string>();
  for (const path of byPath.keys()) {
    const segments = path.split("/");
    for (let i = 2; i < segments.length; i++)
      if (ITEM_SEGMENT.test(segments[i]!) && !ITEM_SEGMENT.test(segments[i - 1]!))
        itemPaths.add(segments.slice(0, i + 1).join("/"));
  }
  const collections = new Set<string>();
  for (const item of itemPaths) collections.add(item.slice(0, item.lastIndexOf("/")));
  // A path with a create and a list is a collection too, whether or not a path names one item.
  for (const [path, ops] of byPath)
    if (
      !ITEM_SEGMENT.test(path.split("/").at(-1) ?? "") &&
      ops.some((o) => o.method === "post") &&
      ops.some((o) => o.method === "get")
    )
      collections.add(path);

  // A path that only takes a POST of an object and is named as a plural (`/plants`) is a collection
  // whose other operations the document does not show; so is one where an author says so.
  const createOnly = new Set<string>();
  for (const [path, ops] of byPath)
    if (!collections.has(path) && createOnlyCollection(doc, resolve, path, ops)) createOnly.add(path);

  const resources: Resource[] = [];
  for (const collectionPath of [...collections, ...createOnly].sort()) {
    const itemPath =
      [...itemPaths].find((p) => p.slice(0, p.lastIndexOf("/")) === collectionPath) ??
      shallowItemPath(collectionPath, itemPaths, byPath);
    const found = buildResource(contract, resolve, collectionPath, itemPath, byPath, outside);
    if (found === undefined) continue;
    const guess =
      createOnly.has(collectionPath) && !declared(doc, byPath.get(collectionPath))
        ? [`${real(collectionPath)} is guessed to be a collection: it takes only a POST and its name is a plural`]
        : [];
    const built = {
      ...found,
      collectionPath: real(collectionPath)!,
      itemPath: real(itemPath),
      notes: [...guess, ...found.notes],
    };
    resources.push(built);
    for (const role of ROLES) {
      const op = built.operations[role];
      if (op !== undefined) roles.set(op, { resource: built, role });
    }
  }
  for (const op of contract.operations)
    if (!roles.has(op) && !outside.has(op))
      outside.set(op, whyNoRole(op, withoutFormat(op.pathTemplate), collections, itemPaths));
  return {
    resources,
    roleOf: (op) => roles.get(op),
    whyOutside: (op) => (roles.has(op) ? undefined : outside.get(op)),
  };
}

/**
 * The item path of a nested collection that names its items without the parents (Rails' shallow
 * nesting: create and list at `/products/{productId}/configs`, the item at `/configs/{configId}`): an
 * item path of a collection of the same name that nothing creates. Undefined for a top collection.
 */
function shallowItemPath(
  collectionPath: string,
  itemPaths: ReadonlySet<string>,
  byPath: ReadonlyMap<string, readonly CompiledOperation[]>,
): string | undefined {
  if (!collectionPath.split("/").some((s) => ITEM_SEGMENT.test(s))) return undefined;
  const name = collectionPath.split("/").at(-1);
  return [...itemPaths].find((p) => {
    const collection = p.slice(0, p.lastIndexOf("/"));
    return (
      collection !== collectionPath &&
      collection.split("/").at(-1) === name &&
      !collection.split("/").some((s) => ITEM_SEGMENT.test(s)) &&
      !(byPath.get(collection) ?? []).some((op) => op.method === "post")
    );
  });
}

/** A path's last segment read as a plural noun: `plants`, `boxes`, not `status`, `access` or `analysis`. */
const PLURAL = /^[a-z][a-z0-9_-]*[^isu]s$/i;

/** Some operation of the path has its role from x-plantstore-role. */
const declared = (doc: unknown, ops: readonly CompiledOperation[] | undefined): boolean =>
  (ops ?? []).some((op) => declaredRole(doc, op) !== undefined && declaredRole(doc, op) !== "none");

/**
 * A path that is a collection though no item path or list shows it: an author declares a create or
 * list on it, or it takes only a POST of a JSON object and its last segment is a plural.
 */
function createOnlyCollection(
  doc: unknown,
  resolve: Resolve,
  path: string,
  ops: readonly CompiledOperation[],
): boolean {
  const last = path.split("/").at(-1) ?? "";
  if (ITEM_SEGMENT.test(last) || last === "") return false;
  if (ops.some((op) => ["create", "list"].includes(declaredRole(doc, op) ?? ""))) return true;
  const posts = ops.filter((op) => op.method === "post");
  return (
    posts.length === 1 &&
    ops.every((op) => op.method === "post" || declaredRole(doc, op) === "none") &&
    PLURAL.test(decodeURIComponent(last)) &&
    shapeOfSchema(requestSchema(doc, posts[0]!), resolve).kind === "object"
  );
}

/** A path without the format suffix of its last segment (`.json`, `.xml`) or a trailing slash (Django's `/books/`). */
const withoutFormat = (path: string): string => path.replace(/\.(json|xml)$/i, "").replace(/(.)\/$/, "$1");

function whyNoRole(
  op: CompiledOperation,
  path: string,
  collections: ReadonlySet<string>,
  itemPaths: ReadonlySet<string>,
): string {
  if (collections.has(path)) return `${op.method.toUpperCase()} on a collection is neither a create nor a list`;
  if (itemPaths.has(path))
    return `${op.method.toUpperCase()} on an item is an action, not a read, replace, patch or delete`;
  return "its path is neither a collection nor an item of one (an action, or a single document)";
}

/** The role an author gave an operation with x-plantstore-role: a role, "none", or undefined. */
function declaredRole(doc: unknown, op: CompiledOperation): Role | "none" | undefined {
  const value = ((locateRef(doc, op.pointer)?.value ?? {}) as Json)[ROLE_EXTENSION];
  return value === "none" || (ROLES as readonly unknown[]).includes(value) ? (value as Role | "none") : undefined;
}

function buildResource(
  contract: Contract,
  resolve: Resolve,
  collectionPath: string,
  itemPath: string | undefined,
  byPath: ReadonlyMap<string, readonly CompiledOperation[]>,
  outside: Map<CompiledOperation, string>,
): Resource | undefined {
  const doc = contract.document;
  const notes: string[] = [];
  const operations: Partial<Record<Role, CompiledOperation>> = {};
  const place = (ops: readonly CompiledOperation[] | undefined, byMethod: Readonly<Record<string, Role>>): void => {
    for (const op of ops ?? []) {
      const declared = declaredRole(doc, op);
      if (declared === "none") {
        outside.set(op, `${ROLE_EXTENSION}: none`);
        continue;
      }
      const role = declared ?? byMethod[op.method];
      if (role === undefined || operations[role] !== undefined) continue;
      operations[role] = op;
      if (declared !== undefined) notes.push(`${op.operationId} is its ${role}, as ${ROLE_EXTENSION} says`);
    }
  };
  place(byPath.get(collectionPath), COLLECTION_ROLE);
  if (itemPath !== undefined) place(byPath.get(itemPath), ITEM_ROLE);
  // A POST to the item itself, where nothing PATCHes it, is its update (Stripe's `POST /v1/customers/{id}`):
  // what it sends changes, what it leaves out stays.
  const itemPost = itemPath === undefined ? undefined : byPath.get(itemPath)?.find((op) => op.method === "post");
  const updates =
    itemPost !== undefined &&
    shapeOfSchema(requestSchema(doc, itemPost), resolve).kind === "object" &&
    shapeOfSchema(answerSchema(doc, itemPost), resolve).kind === "object";
  if (updates && operations.patch === undefined && declaredRole(doc, itemPost!) === undefined) {
    operations.patch = itemPost!;
    notes.push(`${itemPost!.operationId}, a POST to the item, is its update (nothing PATCHes it)`);
  }
  const name = decodeURIComponent(collectionPath.split("/").at(-1) ?? collectionPath);
  // Without a POST, a PUT that documents 201 creates what it does not find (RFC 9110 9.3.4): an upsert.
  const upsert =
    operations.create === undefined && operations.replace !== undefined && operations.replace.responses.has("201");
  const create = operations.create ?? (upsert ? operations.replace : undefined);
  if (create === undefined) {
    // Without a create the store never holds an item: its operations answer from examples.
    for (const op of Object.values(operations))
      outside.set(op, `no operation creates ${name} (no POST on ${collectionPath}, no PUT that answers 201)`);
    return undefined;
  }
  if (upsert) notes.push(`${create.operationId} creates ${name} it does not find (it documents 201): an upsert`);
  const idParameter = itemPath === undefined ? undefined : ITEM_SEGMENT.exec(itemPath.split("/").at(-1)!)![1];
  const parentParameters = collectionPath.split("/").flatMap((s) => ITEM_SEGMENT.exec(s)?.[1] ?? []);
  let list: ListShape | undefined;
  if (operations.list !== undefined) {
    list = listShape(doc, resolve, operations.list, name);
    if (list === undefined) {
      outside.set(operations.list, "its success answer holds no array of items");
      delete operations.list;
    }
  }
  // Without an item path, the id is sought as a parameter `{plantId}` would name it.
  const found =
    idProperty(doc, resolve, create, operations, idParameter ?? `${singular(name)}Id`, name, !idParameter) ??
    (itemPath === undefined ? undefined : resourceName(doc, resolve, create, itemPath, name));
  const id = found === undefined ? undefined : { ...found, chosenBy: chooser(doc, resolve, create, found) };
  if (id?.guessed) notes.push(`the id of ${name} is guessed: property ${id.name} (${id.source})`);
  if (idParameter !== undefined && id === undefined) {
    // An item path whose id no property holds: a client finds an item only by the URL an answer gives
    // (a Location, a self link such as HAL's); without one, the item operations answer their examples
    // rather than claim a role the mock cannot keep.
    const why = `no property of ${create.operationId}'s answer or request is the id {${idParameter}}`;
    notes.push(why);
    const linked = documentsLocation(create) || selfLinked(doc, resolve, create);
    for (const role of linked ? [] : (["read", "replace", "patch", "delete"] as const)) {
      const op = operations[role];
      if (op === undefined || op === create) continue;
      outside.set(op, why);
      delete operations[role];
    }
  }
  return {
    name,
    collectionPath,
    itemPath,
    idParameter,
    parentParameters,
    operations,
    id,
    location: documentsLocation(create),
    upsert,
    list,
    notes,
  };
}

/**
 * A resource name (AIP-122): where the create's answer holds a string `name`, no property is named as
 * the item path's parameter, and AIP's cues are there (a create query parameter named as the
 * resource's id, `shelfId` of AIP-133, or a readOnly `name` under a versioned path), `name` is the
 * item's path without its version (`shelves/{shelf}` of `/v1/shelves/{shelf}`).
 */
function resourceName(
  doc: unknown,
  resolve: Resolve,
  create: CompiledOperation,
  itemPath: string,
  collection: string,
): Omit<IdProperty, "chosenBy"> | undefined {
  const answer = propertiesOf(followRefs(answerSchema(doc, create), resolve), resolve);
  const nameSchema = (followRefs(answer.properties.get("name"), resolve) ?? {}) as Json;
  if (nameSchema.type !== "string") return undefined;
  const template = itemPath
    .split("/")
    .filter((s) => s !== "" && !/^v\d+[a-z0-9]*$/i.test(s))
    .join("/");
  // `{shelf}` is named by `shelfId` (AIP-133), as is the collection in the singular.
  const parameter = ITEM_SEGMENT.exec(itemPath.split("/").at(-1) ?? "")?.[1] ?? "";
  const wanted = [`${loose(parameter)}id`, `${loose(singular(collection))}id`];
  const query = create.parameters.find((p) => p.in === "query" && wanted.includes(loose(p.name)))?.name;
  // Only with AIP's own cues: the create's `{shelf}Id`, or a readOnly `name` under a versioned path.
  const versioned = /^\/v\d+[a-z0-9]*\//i.test(itemPath) && nameSchema.readOnly === true;
  if (query === undefined && !versioned) return undefined;
  const source = `name, the resource name ${template} (AIP-122)`;
  return {
    name: "name",
    in: "response",
    at: "",
    template,
    ...(query === undefined ? {} : { query }),
    source,
    guessed: false,
  };
}

/** The create's answer gives each item a self link (HAL's `_links.self`, JSON:API's `links.self`). */
function selfLinked(doc: unknown, resolve: Resolve, create: CompiledOperation): boolean {
  const { properties } = propertiesOf(followRefs(answerSchema(doc, create), resolve), resolve);
  return ["_links", "links"].some(
    (name) =>
      properties.has(name) && propertiesOf(followRefs(properties.get(name), resolve), resolve).properties.has("self"),
  );
}

/** Who chooses an id: the client where the create's request declares it and not as readOnly (IdProperty). */
function chooser(
  doc: unknown,
  resolve: Resolve,
  create: CompiledOperation,
  id: Omit<IdProperty, "chosenBy">,
): IdProperty["chosenBy"] {
  if (id.template !== undefined) return id.query === undefined ? "server" : "either";
  const name = id.name;
  const request = propertiesOf(propertySchemaAt(requestSchema(doc, create), id.within ?? "", resolve), resolve);
  if (!request.properties.has(name) || request.readOnly.has(name)) return "server";
  return request.required.has(name) ? "client" : "either";
}

/** The success answers of an operation (1xx to 3xx, as the harness counts them). */
function successes(op: CompiledOperation) {
  return [...op.responses.values()].filter((r) => /^[123]/.test(r.status));
}

function documentsLocation(op: CompiledOperation): boolean {
  return successes(op).some((r) => [...r.headers.keys()].some((h) => h.toLowerCase() === "location"));
}

/** The schema of an operation's JSON success answer (the first), or of its JSON request body. */
function answerSchema(doc: unknown, op: CompiledOperation): unknown {
  for (const response of successes(op))
    for (const entry of response.content.values())
      if (/json/i.test(entry.mediaType) && entry.hasSchema) return locateRef(doc, `${entry.pointer}/schema`)?.value;
  return undefined;
}

function requestSchema(doc: unknown, op: CompiledOperation): unknown {
  const entries = [...(op.requestBody?.content.values() ?? [])].filter((e) => e.hasSchema);
  const entry = entries.find((e) => /json/i.test(e.mediaType)) ?? entries[0];
  return entry === undefined ? undefined : locateRef(doc, `${entry.pointer}/schema`)?.value;
}

/**
 * Which property is an item's id: `x-plantstore-id`, then an OpenAPI link from the create to an item
 * operation, then a property named as the path parameter (in the create's answer, else required in
 * its request), then a guess: the id-like property the parameter's name ends with (`{plantId}`:
 * `id`), else the one readOnly property of the answer whose name ends in id. The answer's top level is searched first, then the
 * item of an envelope (`{"data": {...}}`).
 */
function idProperty(
  doc: unknown,
  resolve: Resolve,
  create: CompiledOperation,
  operations: Partial<Record<Role, CompiledOperation>>,
  parameter: string,
  name: string,
  notional = false,
): Omit<IdProperty, "chosenBy"> | undefined {
  // A create that answers no body (201 and a Location) shows its item where the read does.
  const answerTop =
    answerSchema(doc, create) ?? (operations.read === undefined ? undefined : answerSchema(doc, operations.read));
  const request = propertiesOf(requestSchema(doc, create), resolve);
  const declared = [create, ...Object.values(operations)]
    .map((op) => ((locateRef(doc, op.pointer)?.value ?? {}) as Json)[ID_EXTENSION])
    .find((v) => typeof v === "string") as string | undefined;
  // The document's word for the kit (x-plantstore-id) comes first, wherever the answer holds it; an
  // answer that does not show it takes it as said (below). Without it, a link decides.
  if (declared !== undefined)
    for (const { at, schema } of representations(answerTop, resolve, name)) {
      const answer = propertiesOf(schema, resolve);
      if (
        answer.properties.has(declared) &&
        shapeOfSchema(answer.properties.get(declared), resolve).kind === "primitive"
      )
        return { name: declared, in: "response", at, source: ID_EXTENSION, guessed: false };
    }
  const linked = declared === undefined ? linkedId(doc, resolve, create, operations, parameter) : undefined;
  if (linked !== undefined) return { ...linked, source: "an OpenAPI link", guessed: false };
  for (const { at, schema } of representations(answerTop, resolve, name)) {
    const answer = propertiesOf(schema, resolve);
    // An id is a scalar: DigitalOcean's `{floating_ip}` names an id, its answer's `floating_ip` an envelope.
    const scalar = (props: { readonly properties: ReadonlyMap<string, unknown> }, name: string): boolean =>
      props.properties.has(name) && shapeOfSchema(props.properties.get(name), resolve).kind === "primitive";
    const where = (name: string): "response" | "request" | undefined =>
      scalar(answer, name)
        ? "response"
        : at === "" && request.required.has(name) && !request.readOnly.has(name) && scalar(request, name)
          ? "request"
          : undefined;
    const found = (name: string, source: string, guessed: boolean): Omit<IdProperty, "chosenBy"> | undefined => {
      const place = where(name);
      return place === undefined ? undefined : { name, in: place, at: place === "request" ? "" : at, source, guessed };
    };
    // The request's required properties are candidates too where the item is the answer itself.
    const requiredInRequest = [...request.properties].filter(
      ([k]) => at === "" && request.required.has(k) && !request.readOnly.has(k),
    );
    const named = { properties: new Map([...answer.properties, ...requiredInRequest]) };
    // A declared id is never second to a guess: found here (in the request, say) or said as it is.
    if (declared !== undefined) {
      const id = found(declared, ID_EXTENSION, false);
      if (id !== undefined) return id;
      continue;
    }
    const id =
      found(parameter, notional ? "the resource's name with Id" : "the parameter's name", notional) ??
      idSuffix(parameter, named, (n) =>
        found(n, notional ? `${n}, an id-like property` : `${n}, the end of the parameter {${parameter}}`, true),
      );
    if (id !== undefined) return id;
    const readOnlyIds = [...answer.readOnly].filter((n) => /id$/i.test(n));
    if (readOnlyIds.length === 1)
      return {
        name: readOnlyIds[0]!,
        in: "response",
        at,
        source: "the answer's one readOnly id property",
        guessed: true,
      };
  }
  if (declared !== undefined) return { name: declared, in: "response", at: "", source: ID_EXTENSION, guessed: false };
  return nestedId(answerTop, requestSchema(doc, create), resolve, parameter);
}

/**
 * An id one object down in the item, named as the path parameter (Kubernetes' `metadata.name` for
 * `{name}`), where both the create's request and its answer hold it there.
 */
function nestedId(
  answer: unknown,
  request: unknown,
  resolve: Resolve,
  parameter: string,
): Omit<IdProperty, "chosenBy"> | undefined {
  const inner = (schema: unknown, holder: string): ReadonlyMap<string, unknown> | undefined => {
    const p = propertiesOf(followRefs(schema, resolve), resolve).properties.get(holder);
    return p === undefined || shapeOfSchema(p, resolve).kind !== "object"
      ? undefined
      : propertiesOf(followRefs(p, resolve), resolve).properties;
  };
  for (const holder of propertiesOf(followRefs(answer, resolve), resolve).properties.keys()) {
    const inAnswer = inner(answer, holder);
    if (inAnswer?.has(parameter) !== true || inner(request, holder)?.has(parameter) !== true) continue;
    if (shapeOfSchema(inAnswer.get(parameter), resolve).kind !== "primitive") continue;
    const within = `/${escapePointer(holder)}`;
    return {
      name: parameter,
      in: "response",
      at: "",
      within,
      source: `${holder}.${parameter}, named as the parameter`,
      guessed: false,
    };
  }
  return undefined;
}

/** Id-like property names a parameter may end with: `{plantId}` is `id`, `{MessagingServiceSid}` is `sid`. */
const ID_LIKE = /(id|sid|uuid|guid|key|slug)$/;

/** The longest id-like property of the answer that the parameter's name ends with, as `found` makes it. */
function idSuffix(
  parameter: string,
  answer: { readonly properties: ReadonlyMap<string, unknown> },
  found: (name: string) => Omit<IdProperty, "chosenBy"> | undefined,
): Omit<IdProperty, "chosenBy"> | undefined {
  const candidates = [...answer.properties.keys()]
    .filter((k) => ID_LIKE.test(loose(k)) && loose(parameter).endsWith(loose(k)))
    .sort((a, b) => loose(b).length - loose(a).length);
  return candidates.length === 0 ? undefined : found(candidates[0]!);
}

/** A plural name in the singular: `plants` is `plant`, `boxes` `box`, `categories` `category`. */
export function singular(name: string): string {
  if (/ies$/i.test(name)) return `${name.slice(0, -3)}y`;
  if (/(s|x|z|ch|sh)es$/i.test(name)) return name.slice(0, -2);
  if (/[^s]s$/i.test(name)) return name.slice(0, -1);
  return name;
}

/** Names an envelope gives the one item it holds. */
const ENVELOPES = new Set(["data", "item", "result", "resource", "record", "object", "value"]);

/**
 * Where an answer may hold an item: itself, then each object property of an envelope, the usual
 * names first (`/data`), then one named as the resource in the singular (`{"droplet": {...}}`).
 */
function representations(schema: unknown, resolve: Resolve, name: string): { at: string; schema: unknown }[] {
  const singular = loose(name).replace(/(es|s)$/, "");
  const rank = (k: string): number =>
    ENVELOPES.has(loose(k)) ? 0 : loose(k).replace(/(es|s)$/, "") === singular ? 1 : 2;
  const { properties } = propertiesOf(schema, resolve);
  const envelopes = [...properties]
    .filter(([k, p]) => rank(k) < 2 && shapeOfSchema(p, resolve).kind === "object")
    .sort(([a], [b]) => rank(a) - rank(b));
  const first = envelopes.map(([k, p]) => ({ at: `/${pointerToken(k)}`, schema: p }));
  // Two levels: `{"data": {"account": {...}}}`, the item inside an envelope's envelope.
  const second = first.flatMap((outer) =>
    [...propertiesOf(followRefs(outer.schema, resolve), resolve).properties]
      .filter(([k, p]) => rank(k) < 2 && shapeOfSchema(p, resolve).kind === "object")
      .sort(([a], [b]) => rank(a) - rank(b))
      .map(([k, p]) => ({ at: `${outer.at}/${pointerToken(k)}`, schema: p })),
  );
  return [{ at: "", schema }, ...first, ...second];
}

const pointerToken = escapePointer;

/** An OpenAPI link of the create's answer that gives an item operation the parameter from the answer or request body. */
function linkedId(
  doc: unknown,
  resolve: Resolve,
  create: CompiledOperation,
  operations: Partial<Record<Role, CompiledOperation>>,
  parameter: string,
): Omit<IdProperty, "source" | "guessed" | "chosenBy"> | undefined {
  const targets = new Set(Object.values(operations).map((o) => o.operationId));
  for (const response of successes(create)) {
    const links = ((locateRef(doc, response.pointer)?.value ?? {}) as Json).links as Json | undefined;
    for (const raw of Object.values(links ?? {})) {
      const link = (followRefs(raw, resolve) ?? {}) as Json;
      if (typeof link.operationId !== "string" || !targets.has(link.operationId)) continue;
      const parameters = (link.parameters ?? {}) as Json;
      const expression = parameters[parameter] ?? parameters[`path.${parameter}`];
      const m =
        typeof expression === "string" ? /^\$(response|request)\.body#((?:\/[^/]+)*)\/([^/]+)$/.exec(expression) : null;
      if (m !== null) return { name: unescapePointer(m[3]!), in: m[1] as "response" | "request", at: m[2]! };
    }
  }
  return undefined;
}

/** A parameter or property name compared loosely: case, `_`, `-`, `$`, `.` and brackets ignored (`page[size]` is `pagesize`). */
const loose = (name: string): string => name.toLowerCase().replace(/[_$.[\]-]/g, "");

const PAGING: Readonly<Record<keyof Paging, ReadonlySet<string>>> = {
  limit: new Set([
    "limit",
    "perpage",
    "pagesize",
    "size",
    "count",
    "max",
    "maxresults",
    "top",
    "first",
    "take",
    "pagelimit",
  ]),
  offset: new Set(["offset", "skip", "start", "startindex", "from"]),
  page: new Set(["page", "pagenumber", "pageno", "pageindex"]),
  cursor: new Set([
    "cursor",
    "after",
    "pagetoken",
    "nexttoken",
    "continuationtoken",
    "continue",
    "startingafter",
    "marker",
    "pagecursor",
  ]),
};

/** Where a list answer keeps its items, and which query parameters page and filter it; undefined when it holds no array. */
function listShape(doc: unknown, resolve: Resolve, list: CompiledOperation, name: string): ListShape | undefined {
  const schema = followRefs(answerSchema(doc, list), resolve);
  if (schema === undefined) return undefined;
  let itemsAt: string | undefined;
  let arraySchema: unknown;
  if (shapeOfSchema(schema, resolve).kind === "array") [itemsAt, arraySchema] = ["", schema];
  else {
    const { properties } = propertiesOf(schema, resolve);
    const arrays = [...properties].filter(([, p]) => shapeOfSchema(p, resolve).kind === "array");
    const preferred = ["data", "items", "results", "records", "values", "entries", "content", loose(name)];
    const chosen = arrays.length === 1 ? arrays[0] : arrays.find(([k]) => preferred.includes(loose(k)));
    if (chosen !== undefined) [itemsAt, arraySchema] = [`/${pointerToken(chosen[0])}`, chosen[1]];
    else {
      // Two levels down: HAL's `_embedded.people`, `{"data": {"accounts": [...]}}`: an envelope's one array.
      for (const [k, p] of properties) {
        if (shapeOfSchema(p, resolve).kind !== "object") continue;
        const inner = [...propertiesOf(followRefs(p, resolve), resolve).properties].filter(
          ([, q]) => shapeOfSchema(q, resolve).kind === "array",
        );
        if (inner.length !== 1) continue;
        [itemsAt, arraySchema] = [`/${pointerToken(k)}/${pointerToken(inner[0]![0])}`, inner[0]![1]];
        break;
      }
    }
  }
  if (itemsAt === undefined) return undefined;
  const item = propertiesOf(((followRefs(arraySchema, resolve) ?? {}) as Json).items, resolve);
  const itemNames = new Map([...item.properties.keys()].map((k) => [loose(k), k] as const));
  const paging: { -readonly [K in keyof Paging]?: string } = {};
  const filters = new Map<string, string>();
  for (const p of list.parameters) {
    if (p.in !== "query") continue;
    const n = loose(p.name);
    const kind = (Object.keys(PAGING) as (keyof Paging)[]).find((k) => PAGING[k].has(n));
    if (kind !== undefined && paging[kind] === undefined) paging[kind] = p.name;
    else {
      const property = itemNames.get(n) ?? (n.endsWith("s") ? itemNames.get(n.slice(0, -1)) : undefined);
      if (property !== undefined) filters.set(p.name, property);
    }
  }
  return { itemsAt, paging, filters, pages: pageFields(schema, resolve, itemsAt, list, paging) };
}

const plain = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");
const NEXT_URL = new Set(["next", "nextlink", "odatanextlink", "nextpage", "nexturl", "nextpageurl"]);
const NEXT_TOKEN = new Set(["nextpagetoken", "nextcursor", "continue", "continuationtoken", "nexttoken", "endcursor"]);
const PREVIOUS_URL = new Set(["previous", "prev", "previouspage", "prevpage", "previouslink", "prevpageurl"]);
const HAS_MORE = new Set(["hasmore", "hasnext", "hasnextpage", "more"]);
const PAGE_NUMBER = new Set(["number", "currentpage", "page", "pagenumber"]);
const PAGE_SIZE = new Set(["size", "perpage", "pagesize", "limit"]);
const TOTAL_PAGES = new Set(["totalpages", "pagecount"]);
const TOTAL = new Set([
  "count",
  "total",
  "totalcount",
  "totalelements",
  "totalsize",
  "odatacount",
  "totalitems",
  "totalresults",
]);

/** Where a list answer keeps its paging fields (PageFields): its properties searched to three levels, the items left out. */
function pageFields(
  schema: unknown,
  resolve: Resolve,
  itemsAt: string,
  list: CompiledOperation,
  paging: Paging,
): PageFields {
  const found: { -readonly [K in keyof PageFields]?: PageFields[K] } = {};
  const visit = (s: unknown, at: string, depth: number): void => {
    if (depth > 3) return;
    for (const [name, p] of propertiesOf(followRefs(s, resolve), resolve).properties) {
      const here = `${at}/${pointerToken(name)}`;
      if (here === itemsAt) continue;
      const kind = shapeOfSchema(p, resolve).kind;
      const n = plain(name);
      const has = (key: keyof PageFields): boolean => found[key] !== undefined;
      if (kind === "object") {
        // HAL's `_links.next.href`: a link object's href is the URL.
        const href = propertiesOf(followRefs(p, resolve), resolve).properties.has("href");
        if (href && NEXT_URL.has(n) && !has("nextUrl")) [found.nextUrl, found.nextHolder] = [`${here}/href`, here];
        else if (href && PREVIOUS_URL.has(n) && !has("previousUrl"))
          [found.previousUrl, found.previousHolder] = [`${here}/href`, here];
        else visit(p, here, depth + 1);
        continue;
      }
      const type = ((followRefs(p, resolve) ?? {}) as Json).type;
      const types = Array.isArray(type) ? type : [type];
      if (types.includes("string") && NEXT_URL.has(n) && !has("nextUrl"))
        [found.nextUrl, found.nextHolder] = [here, here];
      else if (types.includes("string") && NEXT_TOKEN.has(n) && !has("nextToken")) found.nextToken = here;
      else if (types.includes("string") && PREVIOUS_URL.has(n) && !has("previousUrl"))
        [found.previousUrl, found.previousHolder] = [here, here];
      else if (types.includes("boolean") && HAS_MORE.has(n) && !has("hasMore")) found.hasMore = here;
      else if (types.includes("integer") && TOTAL.has(n) && !has("total")) found.total = here;
      else if (types.includes("string") && depth === 0 && ["url", "self", "href"].includes(n)) found.selfUrl = here;
      else if (types.includes("integer") && depth > 0 && PAGE_NUMBER.has(n) && !has("pageNumber"))
        found.pageNumber = here;
      else if (types.includes("integer") && depth > 0 && PAGE_SIZE.has(n) && !has("pageSize")) found.pageSize = here;
      else if (types.includes("integer") && TOTAL_PAGES.has(n) && !has("totalPages")) found.totalPages = here;
      else if (types.includes("integer") && n === "lastpage" && !has("lastPage")) found.lastPage = here;
    }
  };
  if (itemsAt !== "") visit(schema, "", 0);
  const pageParameter = list.parameters.find((p) => p.name === paging.page);
  const pageSchema = (followRefs(pageParameter?.schema, resolve) ?? {}) as Json;
  const linkHeader = successes(list).some((r) => [...r.headers.keys()].some((h) => h.toLowerCase() === "link"));
  return {
    ...found,
    linkHeader,
    firstPage: pageSchema.minimum === 0 || pageSchema.default === 0 ? 0 : 1,
    cursorIsItem: paging.cursor !== undefined && ["startingafter", "afterid", "sinceid"].includes(plain(paging.cursor)),
    limitIsCap: paging.limit !== undefined && plain(paging.limit) === "top",
    newestFirst: paging.cursor !== undefined && ["startingafter", "afterid", "sinceid"].includes(plain(paging.cursor)),
  };
}

/** Where a path parameter's value comes from: an earlier answer or request of another operation. */
export interface Producer {
  readonly operation: CompiledOperation;
  /** The path parameter it gives a value for. */
  readonly parameter: CompiledParameter;
  /** The runtime expression, on the producer's exchange, that gives it. */
  readonly expression: string;
}

/**
 * How to get an existing resource's id for an operation with one path parameter: an OpenAPI link from
 * an operation without path parameters (the contract says so), else the create of the resource whose
 * item the operation acts on, the id read where the model says.
 */
export function producerFor(contract: Contract, op: CompiledOperation): Producer | undefined {
  const pathParams = op.parameters.filter((p) => p.in === "path");
  if (pathParams.length !== 1) return undefined;
  const parameter = pathParams[0]!;
  const linked = linkedProducer(contract, op, parameter);
  if (linked !== undefined) return linked;
  const path = withoutFormat(op.pathTemplate);
  const resource = resourceModel(contract).resources.find((r) => {
    const item = r.itemPath === undefined ? undefined : withoutFormat(r.itemPath);
    return r.idParameter === parameter.name && item !== undefined && (path === item || path.startsWith(`${item}/`));
  });
  const create = resource?.operations.create;
  if (resource?.id === undefined || create === undefined) return undefined;
  // An id below the top or inside a resource name is no value an expression reads as the parameter.
  if ((resource.id.within ?? "") !== "" || resource.id.template !== undefined) return undefined;
  const { in: place, at, name } = resource.id;
  return { operation: create, parameter, expression: `$${place}.body#${at}/${pointerToken(name)}` };
}

/** A link, in a success answer of an operation without path parameters, that names op and says where the parameter comes from. */
function linkedProducer(contract: Contract, op: CompiledOperation, parameter: CompiledParameter): Producer | undefined {
  for (const other of contract.operations) {
    if (other === op || other.parameters.some((p) => p.in === "path")) continue;
    for (const response of other.responses.values()) {
      if (!response.status.startsWith("2")) continue;
      const links = ((locateRef(contract.document, response.pointer)?.value ?? {}) as Json).links as Json | undefined;
      for (const raw of Object.values(links ?? {})) {
        const link = (raw ?? {}) as Json;
        const parameters = (link.parameters ?? {}) as Json;
        const expression = parameters[parameter.name] ?? parameters[`path.${parameter.name}`];
        if (link.operationId === op.operationId && typeof expression === "string" && expression.startsWith("$"))
          return { operation: other, parameter, expression };
      }
    }
  }
  return undefined;
}
