// What a sequence knows as it goes: the steps it plans, and for each item it made, what the server
// should now show (its id, the values written and by which step, whether it was deleted). Each step's
// answer updates it (recordStep); the stateful checks compare the next answers with it.
import { escapePointer } from "../../contract/index.js";
import { readExactJson } from "../../contract/index.js";
import { at } from "./compare.js";
import type { ObservedStep } from "../case-runner.js";
import { serverFilled, type StatefulTarget } from "./plan.js";
import type { StepResult } from "../results.js";
import type { SequenceValues } from "./values.js";

/**
 * The items of a sequence: A is read, updated and deleted; B stays, to see that A's changes spare it;
 * C is never made: an id no create gave, which a replace, patch, delete or read must not find.
 */
export type ItemName = "A" | "B" | "C";

/** One step of a sequence, by what it does. */
export type StepSpec =
  | { readonly kind: "parent"; readonly index: number }
  | { readonly kind: "create"; readonly item: ItemName; readonly again?: "duplicate" | "recreate" }
  | { readonly kind: "read" | "replace" | "patch" | "delete"; readonly item: ItemName }
  | { readonly kind: "list"; readonly filterBy?: ItemName; readonly limit?: boolean; readonly whole?: boolean };

/** A value the server should show for a property, and the step that wrote it. */
export interface Expected {
  readonly value: unknown;
  /** The sequence step that wrote it (0-based). */
  readonly step: number;
  /** Written by the create, a replace or a patch, or kept by a patch that did not send it. */
  readonly how: "create" | "replace" | "patch" | "kept";
  /** The value before the update that wrote this one, when there was one. */
  readonly before?: unknown;
}

export interface ItemState {
  readonly name: ItemName;
  /** The step of its create, once that answered a success other than 202. */
  madeAt: number | undefined;
  id: unknown;
  /** The fresh value of the list filter's property it holds now. */
  filterValue: string | undefined;
  readonly expected: Map<string, Expected>;
  /** An update or delete answered 202 (Accepted): what the server shows now is not known. */
  unsure: boolean;
  deletedAt: number | undefined;
  /** The step of its last read that answered a success. */
  seenAt: number | undefined;
  /** A create again with its id answered a success: that step and what it sent (it must not replace the item). */
  duplicate: { readonly step: number; readonly sent: ReadonlyMap<string, unknown> } | undefined;
  /** Properties the last replace did not send, with the values they held before (RFC 9110 9.3.4: gone now). */
  readonly unsent: Map<string, Expected>;
  /** A read after its delete answered 410: the server keeps the id as gone for good (RFC 9110 15.5.11). */
  tombstoned: boolean;
}

/** One step as it went: what it was, and its exchange. */
export interface DoneStep {
  readonly spec: StepSpec;
  /** The sequence step's index (0-based). */
  readonly index: number;
  readonly label: string;
  readonly observed: ObservedStep;
  /** The answer's status and its body as an exact JSON value (undefined when it is not JSON). */
  readonly status: number | undefined;
  readonly body: unknown;
  /** What the step sent as a body, as an exact JSON value. */
  readonly sent: unknown;
}

export interface SequenceState {
  readonly target: StatefulTarget;
  readonly items: Readonly<Record<ItemName, ItemState>>;
  /** The ids the parents were made with, by the child path parameter they fill. */
  readonly parentIds: Map<string, unknown>;
  readonly done: DoneStep[];
  /** What the sequence could not judge, in words (a create refused, an answer without the id). */
  readonly notes: string[];
}

export function newState(target: StatefulTarget): SequenceState {
  const item = (name: ItemName): ItemState => ({
    name,
    madeAt: undefined,
    id: undefined,
    filterValue: undefined,
    expected: new Map(),
    unsure: false,
    deletedAt: undefined,
    seenAt: undefined,
    duplicate: undefined,
    unsent: new Map(),
    tombstoned: false,
  });
  const items = { A: item("A"), B: item("B"), C: item("C") };
  return { target, items, parentIds: new Map(), done: [], notes: [] };
}

/** A step's exchange as the checks read it: status, exact JSON answer and body sent. */
export function doneStep(spec: StepSpec, index: number, label: string, observed: ObservedStep): DoneStep {
  const r = observed.result;
  const body = r.ok && r.response.body.length > 0 ? readExactJson(r.response.body.toString("utf8"))?.value : undefined;
  const raw = observed.prepared.body;
  const sent = raw === undefined ? undefined : readExactJson(raw.toString("utf8"))?.value;
  return { spec, index, label, observed, status: r.ok ? r.response.status : undefined, body, sent };
}

const success = (status: number | undefined): boolean => status !== undefined && status >= 200 && status < 300;
/** 202 Accepted: the request is taken, its effect may come later (RFC 9110 section 15.3.3). */
const ACCEPTED = 202;

/** What a step's answer changes in what the sequence knows. */
export function recordStep(state: SequenceState, step: DoneStep): void {
  const { spec } = step;
  // C is never made: what its steps got is judged, nothing of it is recorded.
  if (spec.kind !== "parent" && spec.kind !== "list" && spec.item === "C") return;
  if (spec.kind === "parent") recordParent(state, step, spec.index);
  else if (spec.kind === "create" && spec.again === "duplicate") recordDuplicate(state, state.items[spec.item], step);
  else if (spec.kind === "create") recordCreate(state, state.items[spec.item], step);
  else if (spec.kind === "read") {
    const item = state.items[spec.item];
    if (success(step.status)) item.seenAt = step.index;
    if (step.status === 410 && item.deletedAt !== undefined) item.tombstoned = true;
  } else if (spec.kind === "replace" || spec.kind === "patch") recordUpdate(state, state.items[spec.item], step);
  else if (spec.kind === "delete" && success(step.status)) {
    const item = state.items[spec.item];
    if (step.status === ACCEPTED) item.unsure = true;
    else item.deletedAt = step.index;
  }
}

function recordParent(state: SequenceState, step: DoneStep, index: number): void {
  const parent = state.target.parents[index]!;
  const id = success(step.status) ? madeId(parent.id, step) : undefined;
  if (id === undefined) state.notes.push(`${step.label}: no parent was made (${step.status ?? "no answer"})`);
  else state.parentIds.set(parent.parameter, id);
}

/** A create again with a stored item's id that got a success: what it sent, to tell a replaced item by. */
function recordDuplicate(state: SequenceState, item: ItemState, step: DoneStep): void {
  if (!success(step.status) || step.status === ACCEPTED) return;
  item.duplicate = { step: step.index, sent: new Map(writtenProperties(state, step.observed.operation, step.sent)) };
}

function recordCreate(state: SequenceState, item: ItemState, step: DoneStep): void {
  if (step.spec.kind === "create" && step.spec.again === "recreate") {
    // Made again after its delete: a new item at the old id, nothing of the old one expected.
    if (!success(step.status) || step.status === ACCEPTED) return;
    item.deletedAt = undefined;
    item.expected.clear();
    item.unsent.clear();
    item.duplicate = undefined;
  }
  if (!success(step.status) || step.status === ACCEPTED) {
    state.notes.push(`${step.label}: answered ${step.status ?? "nothing"}, so nothing is judged about ${item.name}`);
    return;
  }
  const { id } = state.target;
  item.id = id.in === "request" ? sentId(id, step) : (madeId(id, step) ?? sentId(id, step));
  if (item.id === undefined) {
    state.notes.push(`${step.label}: its answer holds no id where the resource model says (${idPlace(state)})`);
    return;
  }
  item.madeAt = step.index;
  const write = step.observed.operation;
  const filter = state.target.filter?.property;
  for (const [name, value] of writtenProperties(state, write, step.sent))
    item.expected.set(name, { value, step: step.index, how: "create" });
  const f = filter === undefined ? undefined : at(step.sent, `/${filter}`);
  item.filterValue = typeof f === "string" ? f : undefined;
}

const idPlace = (state: SequenceState): string => {
  const id = state.target.id;
  return `${id.in === "request" ? "the request" : "the answer"} at ${id.at}/${id.name}`;
};

/** The id a create sent, at the top of its body. */
export function sentId(id: StatefulTarget["id"], step: DoneStep): unknown {
  const found = at(step.sent, `/${escapePointer(id.name)}`);
  return typeof found === "string" || typeof found === "number" || typeof found === "bigint" ? found : undefined;
}

/** The new item's id: where the model says (the request or the answer), else the last segment of Location. */
export function madeId(id: StatefulTarget["id"], step: DoneStep): unknown {
  const place = id.in === "request" ? step.sent : step.body;
  const found = at(place, `${id.at}/${escapePointer(id.name)}`);
  if (typeof found === "string" || typeof found === "number" || typeof found === "bigint") return found;
  const r = step.observed.result;
  const location = r.ok ? r.response.headers.location : undefined;
  const last = location
    ?.split("?")[0]
    ?.split("/")
    .filter((s) => s !== "")
    .at(-1);
  if (last === undefined) return undefined;
  try {
    const text = decodeURIComponent(last);
    return /^-?\d+$/.test(text) ? BigInt(text) : text;
  } catch {
    return undefined;
  }
}

/** The properties of a body the checks compare later: sent, and shared by the write's request and the read's answer. */
function writtenProperties(state: SequenceState, write: ObservedStep["operation"], body: unknown): [string, unknown][] {
  // The item where the request keeps it: the body, or inside the envelope the answers use too.
  const sent = at(body, state.target.requestItemAt(write));
  if (typeof sent !== "object" || sent === null || Array.isArray(sent)) return [];
  const read = state.target.ops.read ?? state.target.ops.list;
  const shared = read === undefined ? undefined : state.target.compared(write, read);
  return Object.entries(sent as Record<string, unknown>).filter(
    ([name]) => name !== state.target.id.name && !serverFilled(name) && (shared === undefined || shared.has(name)),
  );
}

function recordUpdate(state: SequenceState, item: ItemState, step: DoneStep): void {
  if (!success(step.status)) return;
  if (step.status === ACCEPTED) {
    item.unsure = true;
    return;
  }
  const how = step.spec.kind as "replace" | "patch";
  const written = new Map(writtenProperties(state, step.observed.operation, step.sent));
  // A property the patch sent is not kept, even where its value cannot be compared (a merge patch's
  // null removes it, RFC 7396; a request and an answer may shape it differently): it is no longer known.
  const sentItem = at(step.sent, state.target.requestItemAt(step.observed.operation));
  const sent = typeof sentItem === "object" && sentItem !== null ? new Set(Object.keys(sentItem)) : new Set();
  if (how === "patch")
    for (const [name, e] of item.expected)
      if (sent.has(name) && !written.has(name)) item.expected.delete(name);
      else if (!written.has(name)) item.expected.set(name, { ...e, how: "kept", before: undefined });
  if (how === "replace") {
    item.unsent.clear();
    for (const [name, e] of [...item.expected]) {
      if (written.has(name)) continue;
      item.expected.delete(name);
      if (!sent.has(name) && replacedAway(state, step, name)) item.unsent.set(name, e);
    }
  }
  for (const name of sent) item.unsent.delete(name as string);
  for (const [name, value] of written)
    item.expected.set(name, { value, step: step.index, how, before: item.expected.get(name)?.value });
  const filter = state.target.filter?.property;
  const f = filter === undefined ? undefined : written.get(filter);
  if (typeof f === "string") item.filterValue = f;
}

/**
 * Whether a property a replace did not send must be gone after it: the replace's request takes it
 * (one it does not take may be the create's alone, kept by design), and its value is no value a
 * server may fill of its own (an enum, a const, a boolean: its own default may be the value sent).
 */
function replacedAway(state: SequenceState, step: DoneStep, name: string): boolean {
  const p = state.target.requestProperty(step.observed.operation, name);
  if (p === undefined || p.enum !== undefined || p.const !== undefined) return false;
  const types = Array.isArray(p.type) ? p.type : [p.type];
  return !types.includes("boolean");
}

/** One run of a sequence: its steps as reported, what it learnt, and why it stopped early, if it did. */
export interface SequenceRun {
  readonly specs: readonly StepSpec[];
  readonly values: SequenceValues;
  readonly steps: readonly StepResult[];
  readonly state: SequenceState;
  /** Why the sequence could not be judged further (the target unreachable, refusing for capacity). */
  readonly error: string | undefined;
  readonly stopped: boolean;
}
