// The steps of a resource's sequence, and each step's request as it is sent: create A, read it, list
// it, create B, read both, list with a limit, replace and patch A and read it after each, list it,
// delete A, read A and B, list again, delete B. A step on an item that was not made is not sent.
import type { CompiledOperation, Contract } from "../../contract/index.js";
import type { Expectation } from "../case-types.js";
import { freshValue, type Random } from "../fresh.js";
import type { StatefulTarget } from "./plan.js";
import type { ItemName, SequenceState, StepSpec } from "./state.js";
import { baseBody, bodyWith, freshId, freshKind, patchBody, plainParameters, type SequenceValues } from "./values.js";

/** Every step a resource's operations allow, in the order a sequence takes them. */
export function sequenceSteps(t: StatefulTarget): StepSpec[] {
  const { read, replace, patch, list } = t.ops;
  const remove = t.ops.delete;
  const listed = list !== undefined && (t.filter !== undefined || t.parents.length > 0);
  const steps: StepSpec[] = [...t.parents.map((_, index) => ({ kind: "parent" as const, index }))];
  const add = (when: unknown, ...more: StepSpec[]): void => void (when ? steps.push(...more) : undefined);
  add(true, { kind: "create", item: "A" });
  add(read, { kind: "read", item: "A" });
  add(listed, { kind: "list", filterBy: "A" });
  add(true, { kind: "create", item: "B" });
  add(read, { kind: "read", item: "A" }, { kind: "read", item: "B" });
  add(list !== undefined && t.limit !== undefined, { kind: "list", limit: true });
  add(replace, { kind: "replace", item: "A" });
  add(replace && read, { kind: "read", item: "A" });
  add(patch, { kind: "patch", item: "A" });
  add(patch && read, { kind: "read", item: "A" });
  add(listed && (replace || patch), { kind: "list", filterBy: "A" });
  add(remove, { kind: "delete", item: "A" });
  // B first: a delete that took the wrong item shows as B gone, before A is seen still there.
  add(remove && read, { kind: "read", item: "B" }, { kind: "read", item: "A" });
  add(remove && listed, { kind: "list", filterBy: "A" });
  add(remove, { kind: "delete", item: "B" });
  return steps;
}

/** A step in a few words: `create A`, `list by tags (A)`, `list with limit=1`. */
export function stepLabel(t: StatefulTarget, spec: StepSpec): string {
  if (spec.kind === "parent") return `make the parent ${t.parents[spec.index]!.resource.name}`;
  if (spec.kind !== "list") return `${spec.kind} ${spec.item}`;
  if (spec.limit === true) return `list with ${t.limit!.parameter.name}=${t.limit!.value}`;
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

/** A valid request the generator made: a refusal is a constraint the contract does not show (a warning). */
const MADE: Expectation = { kind: "valid", refusable: true };
/** The same on an item that may be gone: 404 or 410 is then an answer the stateful checks judge. */
const ON_ITEM: Expectation = { kind: "valid", refusable: true, missingOk: true };

/** The request of a step, or undefined when it cannot be sent (its item was not made, no body is accepted). */
export function stepRequest(inputs: StepInputs, spec: StepSpec): StepRequest | undefined {
  const t = inputs.state.target;
  if (spec.kind === "parent") return parentRequest(inputs, spec.index);
  if (spec.kind === "create") return createRequest(inputs, spec.item);
  if (spec.kind === "list") return listRequest(inputs, spec);
  const item = inputs.state.items[spec.item];
  const op = t.ops[spec.kind];
  if (op === undefined || item.madeAt === undefined || item.id === undefined) return undefined;
  const parameters = { ...pathValues(inputs, op), [`path:${t.resource.idParameter}`]: item.id };
  if (spec.kind === "read" || spec.kind === "delete") return { op, parameters, body: undefined, expect: ON_ITEM };
  const base = baseBody(inputs.contract, op, inputs.values.drawn, seedOf(inputs.values, `${spec.kind} ${spec.item}`));
  const set = freshFilter(inputs, op);
  // The item's own id, where the body has the property (a replace that sends the whole item).
  set[t.id.name] = item.id;
  const body =
    spec.kind === "replace"
      ? bodyWith(inputs.contract, op, base, set)
      : patchBody(inputs.contract, op, base, set, t.id.name);
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

function createRequest(inputs: StepInputs, item: ItemName): StepRequest | undefined {
  const t = inputs.state.target;
  const op = t.ops.create;
  const base = baseBody(inputs.contract, op, inputs.values.drawn, seedOf(inputs.values, `create ${item}`));
  const set = freshFilter(inputs, op);
  // An id the client sends is fresh for every run (where its schema takes any); one the server makes is not sent.
  const kind = freshKind(inputs.contract.document, op, t.id.name);
  if (t.idSent && kind !== undefined) set[t.id.name] = freshId(inputs.values.ids[item], kind, inputs.random);
  const body = bodyWith(inputs.contract, op, t.idSent ? base : without(base, t.id.name), set);
  if (op.requestBody?.required === true && body === undefined) return undefined;
  return { op, parameters: pathValues(inputs, op), body, expect: { kind: "valid", refusable: true } };
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
