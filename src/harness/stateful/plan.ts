// What the stateful phase can do with each resource of the contract's resource model: which of its
// operations a sequence calls, where each answer keeps the item, which properties a write and a read
// share, which list filter can single out an item the sequence made, and which query parameter is
// the list's limit. Read from the model (contract/resources.ts) and the document alone.
import type { CompiledOperation, CompiledParameter, Contract, IdProperty, Resource } from "../../contract/index.js";
import {
  documentResolver,
  escapePointer,
  followRefs,
  locateRef,
  propertiesOf,
  propertySchemaAt,
  resourceModel,
  unescapePointer,
  type Resolve,
} from "../../contract/index.js";
import { bodyKind, schemaOf } from "../generate/index.js";
import { typeOf, view } from "../../contract/index.js";

/** The operations of a resource a sequence calls, by role. */
export interface StatefulOperations {
  readonly create: CompiledOperation;
  readonly read?: CompiledOperation;
  readonly replace?: CompiledOperation;
  readonly patch?: CompiledOperation;
  readonly delete?: CompiledOperation;
  readonly list?: CompiledOperation;
}

/** A list filter by a text property: the item a sequence makes holds a fresh value no other item holds. */
export interface ListFilter {
  readonly parameter: CompiledParameter;
  readonly property: string;
}

/** A resource made before the sequence's items, whose id fills a parameter of the collection's path. */
export interface ParentStep {
  readonly resource: Resource;
  readonly create: CompiledOperation;
  readonly id: IdProperty;
  /** The path parameter of the child collection its id fills. */
  readonly parameter: string;
}

/** One resource as the stateful phase tests it. */
export interface StatefulTarget {
  /** The case's id, as reports, baselines and --only/--skip name it. */
  readonly caseId: string;
  readonly resource: Resource;
  readonly ops: StatefulOperations;
  readonly id: IdProperty;
  /**
   * The client sends an id: the model reads it from the request, or the create's request requires
   * it (made fresh for each run). Otherwise the request leaves the property out. Where the model reads
   * the id from the answer, the answer's id is the item's, whatever was sent.
   */
  readonly idSent: boolean;
  /** Parents to make first, outermost first; each child collection's list then holds only the sequence's items. */
  readonly parents: readonly ParentStep[];
  readonly filter: ListFilter | undefined;
  /** The list's limit parameter (an integer), and the value sent. */
  readonly limit: { readonly parameter: CompiledParameter; readonly value: number } | undefined;
  /** Where an operation's success answer keeps the item: a JSON pointer ("" for the answer itself). */
  itemAt(op: CompiledOperation): string;
  /**
   * Where a write's request body keeps the item: the envelope the answers keep it in, where the
   * request has it too (JSON:API's `{"data": {...}}`, `{"data": {"account": {...}}}`), else "".
   */
  requestItemAt(op: CompiledOperation): string;
  /** The properties a write sends and a read shows (the request's and the answer's schemas share them); undefined: any. */
  compared(write: CompiledOperation, read: CompiledOperation): ReadonlySet<string> | undefined;
  /** The `default` a property of an operation's request body has in its schema, or undefined. */
  propertyDefault(op: CompiledOperation, name: string): unknown;
  /** The schema of a property of the item in an operation's request body (through `$ref`), or undefined. */
  requestProperty(op: CompiledOperation, name: string): Record<string, unknown> | undefined;
}

/**
 * Properties a server fills whatever a client sends, though the schema does not say `readOnly`:
 * timestamps of its own (`created_at`, `updatedAt`, `modified`, `last_modified`) and version counters
 * (`version`, `revision`, `etag`). Never compared.
 */
const SERVER_FILLED =
  /^(created|updated|modified|changed|deleted|last[_-]?(modified|updated|changed)|timestamp|version|revision|etag|lock[_-]?version|_?rev)([_-]?(at|on|date|time|timestamp))?$/i;
/** Suffixes of a server's timestamps, in their case: `created_at`, `publishedAt`, `modified_on`. */
const SERVER_TIME_SUFFIX = /[a-z0-9](_at|At|_on|On|Timestamp|_timestamp)$/;

/**
 * HAL's reserved members: a resource's links and embedded resources are the server's to write
 * (draft-kelly-json-hal section 4.1): a self link names where the server keeps the item.
 */
const HYPERMEDIA = new Set(["_links", "_embedded"]);

/** Whether a property is one a server fills whatever it is sent (see SERVER_FILLED and HYPERMEDIA). */
export const serverFilled = (name: string): boolean =>
  SERVER_FILLED.test(name) || SERVER_TIME_SUFFIX.test(name) || HYPERMEDIA.has(name);

/** The id of the stateful case of a resource (its create's operation names it). */
export const statefulCaseId = (create: CompiledOperation): string => `generated-stateful-${create.operationId}`;

type Json = Record<string, unknown>;

/**
 * The resources a sequence can test: made by a create whose item's id the model places, read or
 * listed, every operation one the generator can call (`usable`) with a JSON body or none.
 */
export function statefulTargets(contract: Contract, usable: (op: CompiledOperation) => boolean): StatefulTarget[] {
  const doc = contract.document;
  const resolve: Resolve = documentResolver(doc);
  const callable = (op: CompiledOperation | undefined): op is CompiledOperation =>
    op !== undefined && usable(op) && (op.requestBody === undefined || bodyKind(op) === "json");
  const model = resourceModel(contract);
  const out: StatefulTarget[] = [];
  for (const resource of model.resources) {
    const { create, read, replace, patch, list } = resource.operations;
    const remove = resource.operations.delete;
    if (!callable(create) || resource.id === undefined || resource.idParameter === undefined) continue;
    // An id below the item's top level (Kubernetes' `metadata.name`) or inside a resource name (AIP's
    // `shelves/{shelf}`): the sequences read ids at the top, as the path takes them, only.
    if ((resource.id.within ?? "") !== "" || resource.id.template !== undefined) continue;
    const item = (op: CompiledOperation | undefined) => (callable(op) && onItem(op, resource) ? op : undefined);
    const ops: StatefulOperations = {
      create,
      read: item(read),
      replace: item(replace),
      patch: item(patch),
      delete: item(remove),
      list: callable(list) && onCollection(list, resource) ? list : undefined,
    };
    if (ops.read === undefined && ops.list === undefined) continue;
    const parents = parentSteps(model.resources, resource, callable);
    if (parents === undefined) continue;
    out.push(target(doc, resolve, resource, ops, parents));
  }
  return out;
}

/** Keywords that limit what a value may be: where the answer's differ, it may not hold what was written. */
const LIMITS = [
  "type",
  "enum",
  "const",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "items",
  "properties",
  "required",
  "additionalProperties",
  "oneOf",
  "anyOf",
  "allOf",
] as const;

/**
 * The answer's schema of a property sets no rule the request's does not (it may set fewer: a
 * `minLength` only on the way in): only then must the answer hold what was written. Where it sets
 * another (Box's `login`: any text in, an email out; an object of two properties in, one of six
 * required out) a server cannot echo every value it took.
 */
function sameRules(request: unknown, answer: unknown, resolve: Resolve): boolean {
  if (answer === undefined) return false;
  const a = (followRefs(request, resolve) ?? {}) as Record<string, unknown>;
  const b = (followRefs(answer, resolve) ?? {}) as Record<string, unknown>;
  if (a === b) return true;
  // The answer sets no rule the request does not (it may set fewer: a `minLength` only on the way in).
  if (LIMITS.every((k) => b[k] === undefined || JSON.stringify(a[k]) === JSON.stringify(b[k]))) return true;
  // Objects whose shared properties set the same rules (JSON:API's `attributes`, the answer's with
  // readOnly ones more): compared by those, as sameValue compares objects.
  const [pa, pb] = [propertiesOf(a, resolve).properties, propertiesOf(b, resolve).properties];
  const shared = [...pa.keys()].filter((k) => pb.has(k));
  return shared.length > 0 && shared.every((k) => sameRules(pa.get(k), pb.get(k), resolve));
}

function target(
  doc: unknown,
  resolve: Resolve,
  resource: Resource,
  ops: StatefulOperations,
  parents: readonly ParentStep[],
): StatefulTarget {
  const id = resource.id!;
  const itemAt = (op: CompiledOperation): string => itemPointer(resolve, answerSchema(doc, op), id);
  const requestItemAt = (op: CompiledOperation): string => {
    const read = ops.read ?? ops.create;
    const pointer = itemAt(read) || itemAt(ops.create);
    if (pointer === "") return "";
    const inner = propertySchemaAt(schemaOf(op, doc), pointer, resolve);
    return propertiesOf(inner, resolve).properties.size > 0 ? pointer : "";
  };
  const compared = (write: CompiledOperation, read: CompiledOperation): ReadonlySet<string> | undefined => {
    const request = propertiesOf(propertySchemaAt(schemaOf(write, doc), requestItemAt(write), resolve), resolve);
    const answer = propertiesOf(at(resolve, answerSchema(doc, read), itemAt(read)), resolve);
    const names = [...request.properties.keys()].filter(
      (n) =>
        n !== id.name &&
        !request.writeOnly.has(n) &&
        !answer.readOnly.has(n) &&
        sameRules(request.properties.get(n), answer.properties.get(n), resolve),
    );
    return answer.properties.size === 0 ? undefined : new Set(names.filter((n) => answer.properties.has(n)));
  };
  const required = propertiesOf(schemaOf(ops.create, doc), resolve).required;
  return {
    caseId: statefulCaseId(ops.create),
    resource,
    ops,
    id,
    idSent: id.in === "request" || required.has(id.name),
    parents,
    filter: ops.list === undefined ? undefined : listFilter(doc, resource, ops),
    limit: ops.list === undefined ? undefined : listLimit(doc, resource, ops.list),
    itemAt,
    requestItemAt,
    compared,
    requestProperty: (op, name) =>
      followRefs(
        propertiesOf(propertySchemaAt(schemaOf(op, doc), requestItemAt(op), resolve), resolve).properties.get(name),
        resolve,
      ) as Json | undefined,
    propertyDefault: (op, name) =>
      (followRefs(propertiesOf(schemaOf(op, doc), resolve).properties.get(name), resolve) as Json | undefined)?.default,
  };
}

/** Path parameters of an operation, by name. */
const pathNames = (op: CompiledOperation): string[] => op.parameters.filter((p) => p.in === "path").map((p) => p.name);

/** An item operation takes exactly the parents' ids and the item's id in its path. */
function onItem(op: CompiledOperation, r: Resource): boolean {
  const names = pathNames(op);
  return names.length === r.parentParameters.length + 1 && names.includes(r.idParameter!);
}

function onCollection(op: CompiledOperation, r: Resource): boolean {
  return pathNames(op).length === r.parentParameters.length;
}

/**
 * The resources to make before an item of a nested collection (`/gardens/{gardenId}/plants`): for each
 * parent parameter, the resource whose item path ends in it, made by a create the generator can call;
 * undefined when one cannot be made.
 */
function parentSteps(
  all: readonly Resource[],
  resource: Resource,
  callable: (op: CompiledOperation | undefined) => op is CompiledOperation,
): ParentStep[] | undefined {
  const steps: ParentStep[] = [];
  for (const parameter of resource.parentParameters) {
    const parent = all.find(
      (r) =>
        r.idParameter === parameter &&
        r.itemPath !== undefined &&
        resource.collectionPath.startsWith(`${r.itemPath}/`) &&
        r.parentParameters.every((p) => resource.parentParameters.includes(p)),
    );
    const create = parent?.operations.create;
    if (parent?.id === undefined || !callable(create) || pathNames(create).length !== steps.length) return undefined;
    steps.push({ resource: parent, create, id: parent.id, parameter });
  }
  return steps;
}

/** The schema of an operation's first JSON success answer. */
function answerSchema(doc: unknown, op: CompiledOperation): unknown {
  for (const response of op.responses.values()) {
    if (!/^2/.test(response.status)) continue;
    for (const entry of response.content.values())
      if (/json/i.test(entry.mediaType) && entry.hasSchema) return locateRef(doc, `${entry.pointer}/schema`)?.value;
  }
  return undefined;
}

function at(resolve: Resolve, schema: unknown, pointer: string): unknown {
  if (pointer === "") return schema;
  return propertiesOf(schema, resolve).properties.get(unescapePointer(pointer.slice(1)));
}

/**
 * Where an answer keeps the item: itself when its schema names the id property (or has no envelope
 * holding it), else the object property that names it (`{"data": {...}}`), else where the create's
 * answer keeps it.
 */
function itemPointer(resolve: Resolve, schema: unknown, id: IdProperty): string {
  const { properties } = propertiesOf(schema, resolve);
  if (properties.has(id.name)) return "";
  for (const [name, property] of properties)
    if (propertiesOf(property, resolve).properties.has(id.name)) return `/${escapePointer(name)}`;
  // Two envelopes deep: `{"data": {"account": {...}}}`.
  for (const [name, property] of properties)
    for (const [inner, sub] of propertiesOf(property, resolve).properties)
      if (propertiesOf(sub, resolve).properties.has(id.name)) return `/${escapePointer(name)}/${escapePointer(inner)}`;
  return id.in === "response" && propertySchemaAt(schema, id.at, resolve) !== undefined ? id.at : "";
}

/**
 * A filter of the list by a property the create sends as free text (no enum, pattern, format or
 * short maxLength), so a fresh value singles out the sequence's item; one the replace sends too first.
 */
function listFilter(doc: unknown, resource: Resource, ops: StatefulOperations): ListFilter | undefined {
  const candidates: ListFilter[] = [];
  for (const [name, property] of resource.list?.filters ?? []) {
    // The id is the server's to fill, or the sequence's own: a fresh text must be a value nobody else sets.
    if (property === resource.id?.name) continue;
    const parameter = ops.list!.parameters.find((p) => p.in === "query" && p.name === name);
    if (parameter === undefined || !takesText(doc, parameter.schema, true)) continue;
    if (freeText(doc, schemaOf(ops.create, doc), property)) candidates.push({ parameter, property });
  }
  const alsoReplaced = candidates.find((c) => ops.replace && freeText(doc, schemaOf(ops.replace, doc), c.property));
  return alsoReplaced ?? candidates[0];
}

/** Whether a schema takes any text of 24 characters (or, for a parameter, an array of it). */
function takesText(doc: unknown, schema: unknown, orArray: boolean): boolean {
  const s = view(doc, schema ?? {});
  if (orArray && typeOf(s) === "array") return takesText(doc, s.items, false);
  return (
    typeOf(s) === "string" &&
    s.enum === undefined &&
    s.const === undefined &&
    s.pattern === undefined &&
    s.format === undefined &&
    (typeof s.maxLength !== "number" || s.maxLength >= 24) &&
    (typeof s.minLength !== "number" || s.minLength <= 24)
  );
}

/** Whether an object schema's property takes free text. */
export function freeText(doc: unknown, schema: unknown, property: string): boolean {
  const props = (view(doc, schema).properties ?? {}) as Json;
  return props[property] !== undefined && takesText(doc, props[property], false);
}

/** The list's limit parameter when it takes an integer: 1, or its minimum. */
function listLimit(doc: unknown, resource: Resource, list: CompiledOperation): StatefulTarget["limit"] {
  const name = resource.list?.paging.limit;
  const parameter = list.parameters.find((p) => p.in === "query" && p.name === name);
  if (parameter === undefined) return undefined;
  const s = view(doc, followRefs(parameter.schema, () => undefined) ?? {});
  if (typeOf(s) !== "integer" && typeOf(s) !== "number") return undefined;
  const minimum = typeof s.minimum === "number" ? Math.ceil(s.minimum) : 1;
  const value = Math.max(1, minimum);
  if (typeof s.maximum === "number" && value > s.maximum) return undefined;
  return { parameter, value };
}
