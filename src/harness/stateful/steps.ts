// The steps of a resource's sequence, and each step's request as it is sent: what RFC 9110 says of
// POST, PUT, PATCH and DELETE, tried on two items (A and B) and on an id never made (C). Create A, read
// it, list it, create B, read both, list with a limit and the whole list, create A again (where the
// client chooses ids), patch and replace A and read it after each, list, replace and read C, delete
// A, read A and B, list, create A again at its freed id and read it, delete A and B.
// A step on an item that was not made is not sent.
import type { CompiledOperation, Contract } from "../../contract/index.js";
import type { Expectation } from "../case-types.js";
import { freshValue, type Random } from "../fresh.js";
import type { StatefulTarget } from "./plan.js";
import type { ItemName, SequenceState, StepSpec } from "./state.js";
import { baseBody, bodyWith, freshId, freshKind, patchBody, plainParameters, type SequenceValues } from "./values.js";
import { withLongTexts, withoutOptionals, type IdKind } from "./values.js";

/** Every step a resource's operations allow, in the order a sequence takes them. */
export function sequenceSteps(t: StatefulTarget): StepSpec[] {
  const { read, replace, patch, list } = t.ops;
  const remove = t.ops.delete;
  const listed = list !== undefined && (t.filter !== undefined || t.parents.length > 0);
  // The whole list, where a limit lets a page say it is the whole collection (shorter than the limit).
  const whole = list !== undefined && t.limit !== undefined;
  // Where the client chooses ids: a create again with a stored id, and a create at an id a delete freed.
  const chosen = t.idSent && t.id.chosenBy !== "server";
  const steps: StepSpec[] = [...t.parents.map((_, index) => ({ kind: "parent" as const, index }))];
  const add = (when: unknown, ...more: StepSpec[]): void => void (when ? steps.push(...more) : undefined);
  add(true, { kind: "create", item: "A" });
  add(read, { kind: "read", item: "A" });
  add(listed, { kind: "list", filterBy: "A" });
  add(true, { kind: "create", item: "B" });
  add(read, { kind: "read", item: "A" }, { kind: "read", item: "B" });
  add(list !== undefined && t.limit !== undefined, { kind: "list", limit: true });
  add(whole, { kind: "list", whole: true });
  // Only where the create documents 409: without it, a POST may be an upsert by design.
  add(chosen && t.ops.create.responses.has("409"), { kind: "create", item: "A", again: "duplicate" });
  add(chosen && t.ops.create.responses.has("409") && read, { kind: "read", item: "A" });
  // The patch first, while A holds every optional property: it must keep those it does not send;
  // then the replace, which sends fewer: it must keep none it does not send.
  add(patch, { kind: "patch", item: "A" });
  add(patch && read, { kind: "read", item: "A" });
  add(replace, { kind: "replace", item: "A" });
  add(replace && read, { kind: "read", item: "A" });
  add(listed && (replace || patch), { kind: "list", filterBy: "A" });
  add(whole && (replace || patch), { kind: "list", whole: true });
  // An id never made: a replace finds nothing there and makes nothing (RFC 9110 9.3.4). Not tried
  // where the PUT documents 201 (it may make the item), nor a patch (RFC 5789 lets one make it) or a
  // delete (an idempotent delete may answer 204 for nothing): those leave the server its choice.
  const replaceFinds = replace !== undefined && !t.resource.upsert && !replace.responses.has("201");
  add(replaceFinds, { kind: "replace", item: "C" });
  add(replaceFinds && read, { kind: "read", item: "C" });
  add(remove, { kind: "delete", item: "A" });
  // B first: a delete that took the wrong item shows as B gone, before A is seen still there.
  add(remove && read, { kind: "read", item: "B" }, { kind: "read", item: "A" });
  add(remove && listed, { kind: "list", filterBy: "A" });
  add(remove && whole, { kind: "list", whole: true });
  add(remove && chosen, { kind: "create", item: "A", again: "recreate" });
  add(remove && chosen && read, { kind: "read", item: "A" });
  add(remove && chosen, { kind: "delete", item: "A" });
  add(remove, { kind: "delete", item: "B" });
  return steps;
}

/** A step in a few words: `create A`, `list by tags (A)`, `list with limit=1`. */
export function stepLabel(t: StatefulTarget, spec: StepSpec): string {
  if (spec.kind === "parent") return `make the parent ${t.parents[spec.index]!.resource.name}`;
  if (spec.kind === "create" && spec.again !== undefined)
    return spec.again === "duplicate" ? `create A again (its id)` : `create A again (its freed id)`;
  if (spec.kind !== "list") return `${spec.kind} ${spec.item}${spec.item === "C" ? " (never made)" : ""}`;
  if (spec.limit === true) return `list with ${t.limit!.parameter.name}=${t.limit!.value}`;
  if (spec.whole === true) return `list all (${t.limit!.parameter.name}=${wholeLimit(t)})`;
  return t.filter === undefined
    ? `list under the parent (${spec.filterBy})`
    : `list by ${t.filter.parameter.name} of ${spec.filterBy}`;
}

/** A step's request, ready to become a one-step fixture. */
export interface StepRequest {
  readonly op: CompiledOperation;
  readonly parameters: Record<string, unknown>;
  readonly body: string | undefined;
  readonly expect: Expectation;
}

/** What building a step's request needs. */
export interface StepInputs {
  readonly contract: Contract;
  readonly state: SequenceState;
  readonly values: SequenceValues;
  readonly random: Random;
}

/** The limit of a whole list: the largest the parameter takes, at most 100. */
export function wholeLimit(t: StatefulTarget): number {
  const s = (t.limit?.parameter.schema ?? {}) as { maximum?: unknown };
  return typeof s.maximum === "number" ? Math.max(1, Math.min(Math.floor(s.maximum), 100)) : 100;
}

/** A valid request the generator made: a refusal is a constraint the contract does not show (a warning). */
const MADE: Expectation = { kind: "valid", refusable: true };
/** The same on an item that may be gone: 404 or 410 is then an answer the stateful checks judge. */
const ON_ITEM: Expectation = { kind: "valid", refusable: true, missingOk: true };

/** The request of a step, or undefined when it cannot be sent (its item was not made, no body is accepted). */
export function stepRequest(inputs: StepInputs, spec: StepSpec): StepRequest | undefined {
  const t = inputs.state.target;
  if (spec.kind === "parent") return parentRequest(inputs, spec.index);
  if (spec.kind === "create") return createRequest(inputs, spec.item, spec.again);
  if (spec.kind === "list") return listRequest(inputs, spec);
  const item = inputs.state.items[spec.item];
  const op = t.ops[spec.kind];
  if (spec.item === "C" && op !== undefined) item.id ??= neverMadeId(inputs, op);
  if (op === undefined || (item.madeAt === undefined && spec.item !== "C") || item.id === undefined) return undefined;
  const parameters = { ...pathValues(inputs, op), [`path:${t.resource.idParameter}`]: item.id };
  if (spec.kind === "read" || spec.kind === "delete") return { op, parameters, body: undefined, expect: ON_ITEM };
  const words = `${spec.kind} ${spec.item}`;
  const base = baseBody(inputs.contract, op, inputs.values.drawn, seedOf(inputs.values, words), t.requestItemAt(op));
  const set = freshFilter(inputs, op);
  // The item's own id, where the body has the property (a replace that sends the whole item).
  set[t.id.name] = item.id;
  const doc = inputs.contract.document;
  let body: string | undefined;
  if (spec.kind === "replace") {
    // Without the optional properties it need not send: a replace leaves none of the old ones.
    const whole = withoutOptionals(inputs.contract, op, base, new Set(Object.keys(set)));
    const long = withLongTexts(doc, op, whole, inputs.random, new Set(Object.keys(set)));
    body = bodyWith(inputs.contract, op, long, set, t.requestItemAt(op));
  } else {
    const long = withLongTexts(doc, op, base, inputs.random, new Set([...Object.keys(set), t.id.name]));
    body = patchBody(inputs.contract, op, long, set, t.id.name, t.requestItemAt(op));
  }
  return op.requestBody?.required === true && body === undefined
    ? undefined
    : { op, parameters, body, expect: ON_ITEM };
}

/** A seed for one body of a sequence, from the sequence's seed and the step's words. */
function seedOf(values: SequenceValues, words: string): number {
  let h = values.seed | 0;
  for (const ch of words) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h >>> 1;
}

/** The plainest parameters of an operation with the path's parents filled in. */
function pathValues(inputs: StepInputs, op: CompiledOperation): Record<string, unknown> {
  const out = plainParameters(inputs.contract, op);
  for (const [name, id] of inputs.state.parentIds)
    if (op.parameters.some((p) => p.in === "path" && p.name === name)) out[`path:${name}`] = id;
  return out;
}

/** A fresh value for the property the list filters by, where the operation's body takes one. */
function freshFilter(inputs: StepInputs, op: CompiledOperation): Record<string, unknown> {
  const filter = inputs.state.target.filter;
  if (filter === undefined || freshKind(inputs.contract.document, op, filter.property) !== "string") return {};
  return { [filter.property]: freshValue("string", inputs.random) };
}

function createRequest(
  inputs: StepInputs,
  name: ItemName,
  again: "duplicate" | "recreate" | undefined,
): StepRequest | undefined {
  const t = inputs.state.target;
  const op = t.ops.create;
  const item = inputs.state.items[name];
  if (again !== undefined && (item.id === undefined || (again === "duplicate") !== (item.deletedAt === undefined)))
    return undefined;
  const words = again === undefined ? `create ${name}` : `create ${name} ${again}`;
  const base = baseBody(inputs.contract, op, inputs.values.drawn, seedOf(inputs.values, words), t.requestItemAt(op));
  const set = freshFilter(inputs, op);
  // An id the client sends is fresh for every run (where its schema takes any); one the server makes is
  // not sent. Made again, the item's own id.
  const kind = freshKind(inputs.contract.document, op, t.id.name);
  if (again !== undefined) set[t.id.name] = item.id;
  else if (t.idSent && kind !== undefined) set[t.id.name] = freshId(idKind(inputs.values, name), kind, inputs.random);
  const skip = new Set([...Object.keys(set), t.id.name]);
  const long = withLongTexts(inputs.contract.document, op, base, inputs.random, skip);
  const body = bodyWith(inputs.contract, op, t.idSent ? long : without(long, t.id.name), set, t.requestItemAt(op));
  if (op.requestBody?.required === true && body === undefined) return undefined;
  // A create again with a stored id: 2xx or 4xx are both answers the contract leaves open.
  const expect: Expectation = again === "duplicate" ? { kind: "duplicate" } : { kind: "valid", refusable: true };
  return { op, parameters: pathValues(inputs, op), body, expect };
}

/** The kind of id an item gets: C, never made, as A. */
const idKind = (values: SequenceValues, name: ItemName): IdKind => values.ids[name === "C" ? "A" : name];

/**
 * An id no create gave, as the item path's parameter takes it: an integer far from any a store counts
 * up to (within the schema's bounds), a uuid, or a fresh text; undefined where the schema asks more.
 */
function neverMadeId(inputs: StepInputs, op: CompiledOperation): unknown {
  const t = inputs.state.target;
  const parameter = op.parameters.find((p) => p.in === "path" && p.name === t.resource.idParameter);
  const s = (parameter?.schema ?? {}) as Record<string, unknown>;
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  if (type === "integer" || type === "number") {
    const lo = typeof s.minimum === "number" ? BigInt(Math.ceil(s.minimum)) : 1n;
    const hi = typeof s.maximum === "number" ? BigInt(Math.floor(s.maximum)) : 2n ** 53n - 1n;
    if (hi < lo) return undefined;
    // The upper half of the range: a store counting up from 1 never gets there in a test.
    const from = lo + (hi - lo) / 2n;
    return from + inputs.random.between(0n, hi - from);
  }
  if (s.enum !== undefined || s.const !== undefined || typeof s.pattern === "string") return undefined;
  if (s.format === "uuid") {
    const h = inputs.random.hex(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  if (s.format !== undefined) return undefined;
  const text = `never-made-${inputs.random.hex(6)}`;
  const max = typeof s.maxLength === "number" ? s.maxLength : Infinity;
  return text.length <= max ? text : undefined;
}

/** An object body without one property. */
function without(body: unknown, name: string): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !(name in body)) return body;
  const { [name]: _left, ...rest } = body as Record<string, unknown>;
  return rest;
}

function parentRequest(inputs: StepInputs, index: number): StepRequest | undefined {
  const parent = inputs.state.target.parents[index]!;
  const op = parent.create;
  const base = baseBody(inputs.contract, op, false, 0);
  const kind = freshKind(inputs.contract.document, op, parent.id.name);
  const set = kind !== undefined ? { [parent.id.name]: freshId("ordinary", kind, inputs.random) } : {};
  const body = bodyWith(inputs.contract, op, base, set);
  if (op.requestBody?.required === true && body === undefined) return undefined;
  return { op, parameters: pathValues(inputs, op), body, expect: MADE };
}

function listRequest(inputs: StepInputs, spec: Extract<StepSpec, { kind: "list" }>): StepRequest | undefined {
  const t = inputs.state.target;
  const op = t.ops.list;
  if (op === undefined) return undefined;
  const parameters = pathValues(inputs, op);
  if (spec.limit === true && t.limit !== undefined) parameters[`query:${t.limit.parameter.name}`] = t.limit.value;
  if (spec.whole === true && t.limit !== undefined) parameters[`query:${t.limit.parameter.name}`] = wholeLimit(t);
  if (spec.filterBy !== undefined) {
    const item = inputs.state.items[spec.filterBy];
    if (item.madeAt === undefined) return undefined;
    if (t.filter !== undefined) {
      if (item.filterValue === undefined) return undefined;
      const array = t.filter.parameter.shape.kind === "array";
      parameters[`query:${t.filter.parameter.name}`] = array ? [item.filterValue] : item.filterValue;
    }
  }
  return { op, parameters, body: undefined, expect: ON_ITEM };
}
