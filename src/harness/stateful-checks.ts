// The stateful checks: each compares a step's answer with what earlier steps of the same sequence
// wrote and were told (stateful-state.ts), and says what it found with the evidence of both steps.
// Level `stateful`: the contract's structure implies these promises, its schemas do not state them.
// A legitimate choice of a server is never a finding (list order, a default page size, extra or
// server-filled properties, seeded data, values kept in another spelling: see stateful-compare.ts);
// what cannot be told apart from one is a note.
import { finding, type Finding } from "./checks.js";
import { compareIds, isEmptyValue, numericKey, sameValue, shown, at, ExactDecimal } from "./stateful-compare.js";
import type { StatefulCheckId } from "./stateful-ids.js";
import { sentId, type DoneStep, type Expected, type ItemState, type SequenceState } from "./stateful-state.js";

/** A stateful check: its id and the rule it holds a server to, as docs/checks-and-levels.md lists it. */
export interface StatefulCheck {
  readonly id: StatefulCheckId;
  readonly summary: string;
}

export const STATEFUL_CHECKS: readonly StatefulCheck[] = [
  {
    id: "stateful.created-available",
    summary: "An item whose create got a success (not 202) is there: a read by its id is not 404 or 410.",
  },
  {
    id: "stateful.id-exact",
    summary: "An item read back carries the id it was made with, exactly (an integer beyond 2^53 to the last digit).",
  },
  {
    id: "stateful.read-back",
    summary:
      "A read shows what the create wrote: each property the request and the answer share, numbers exactly, text as a server may keep it.",
  },
  {
    id: "stateful.update-visible",
    summary: "After a replace or patch got a success (not 202), the next read shows the values it sent.",
  },
  {
    id: "stateful.patch-keeps-unsent",
    summary: "A patch leaves the properties it did not send as they were.",
  },
  {
    id: "stateful.delete-effective",
    summary: "After a delete got a success (not 202), a read of the item gets 404 or 410, not the item unchanged.",
  },
  {
    id: "stateful.delete-spares-others",
    summary: "A delete of one item leaves another item the sequence made readable.",
  },
  {
    id: "stateful.list-contains",
    summary:
      "A list that can single out an item the sequence made (by a filter on a fresh value, or under a parent it made) shows it, with its current values.",
  },
  {
    id: "stateful.list-after-delete",
    summary: "A list that can single out a deleted item no longer shows it.",
  },
  {
    id: "stateful.list-limit",
    summary: "A list holds no more items than the limit sent.",
  },
  {
    id: "stateful.list-unique",
    summary: "A list holds no item twice (by its id).",
  },
  {
    id: "stateful.link-available",
    summary: "An operation an OpenAPI link leads to from a create's answer finds what the create made: not 404 or 410.",
  },
];

/** What the checks of a step read besides the step: the sequence so far and where rules point. */
export interface StatefulContext {
  readonly state: SequenceState;
  /** The spec's location, to prefix JSON pointers in rules. */
  readonly specSource: string;
}

const success = (s: number | undefined): boolean => s !== undefined && s >= 200 && s < 300;
const gone = (s: number | undefined): boolean => s === 404 || s === 410;

/** The findings of one step, judged against the sequence before it (call before recordStep). */
export function statefulFindings(c: StatefulContext, step: DoneStep): Finding[] {
  const spec = step.spec;
  if (step.status === undefined) return [];
  if (spec.kind === "read") return readFindings(c, c.state.items[spec.item], step);
  if (spec.kind === "create") return createFindings(c, step);
  if (spec.kind === "list") return listFindings(c, step);
  return [];
}

/** `step 3 (read A: getPlant)` */
export const stepName = (step: DoneStep): string =>
  `step ${step.index + 1} (${step.label}: ${step.observed.operation.operationId})`;
const madeName = (c: StatefulContext, x: ItemState): string =>
  `step ${x.madeAt! + 1} (${c.state.done[x.madeAt!]?.label ?? `create ${x.name}`})`;

/** The answer of a step as evidence: status and the start of its body. */
function answered(step: DoneStep): string {
  const r = step.observed.result;
  if (!r.ok) return `${stepName(step)}: no answer`;
  const text = r.response.body.toString("utf8");
  return `${stepName(step)} answered ${r.response.status}${text === "" ? "" : `: ${text.length > 300 ? `${text.slice(0, 300)}...` : text}`}`;
}

const rule = (c: StatefulContext, step: DoneStep): string => `${c.specSource}#${step.observed.operation.pointer}`;

function stateful(id: StatefulCheckId, c: StatefulContext, step: DoneStep, message: string, expected: string): Finding {
  return finding(id, "warning", message, expected, answered(step), rule(c, step), "stateful");
}

function note(id: StatefulCheckId, c: StatefulContext, step: DoneStep, message: string, expected: string): Finding {
  return finding(id, "note", message, expected, answered(step), rule(c, step), "stateful");
}

/**
 * A create that sent an id and answers another. Where the model reads the id from the answer, a
 * server may give its own id and ignore the one sent (a note); one that is the sent id changed (the
 * nearest double, its low 32 bits, its first characters) is the id sent, not kept exactly.
 */
function createFindings(c: StatefulContext, step: DoneStep): Finding[] {
  const { id, idSent } = c.state.target;
  if (!idSent || !success(step.status) || step.status === 202 || id.in === "request") return [];
  const sent = sentId(id, step);
  const answered = at(step.body, `${id.at}/${id.name}`);
  if (sent === undefined || answered === undefined || compareIds(sent, answered) !== "different") return [];
  const how = corruption(sent, answered);
  const expected = `${id.name} ${shown(sent)}, as sent, or an id of the server's own`;
  if (how === undefined)
    return [note("stateful.id-exact", c, step, `the server gives its own ${id.name} ${shown(answered)}`, expected)];
  const message = `the create sent ${id.name} ${shown(sent)} and answers ${shown(answered)}, ${how}`;
  return [stateful("stateful.id-exact", c, step, message, expected)];
}

/** How an id answered is the id sent, changed: through a double, cut to 32 bits, cut short; undefined when it is another. */
function corruption(sent: unknown, answered: unknown): string | undefined {
  if (typeof sent === "string")
    return typeof answered === "string" && answered.length > 0 && sent.startsWith(answered) ? "cut short" : undefined;
  if (typeof sent !== "bigint" && typeof sent !== "number") return undefined;
  const value = BigInt(sent);
  if (near(value, answered)) return "as through a double";
  const low = [BigInt.asIntN(32, value), BigInt.asUintN(32, value)];
  if (low.some((v) => compareIds(v, answered) === "same")) return "cut to its low 32 bits";
  return undefined;
}

/**
 * A finding that rests on which property is the id: a note when the model guessed it (the guess may
 * name another property, whose values then say nothing of the items).
 */
function onId(id: StatefulCheckId, c: StatefulContext, step: DoneStep, message: string, expected: string): Finding {
  const guessed = c.state.target.id;
  if (!guessed.guessed) return stateful(id, c, step, message, expected);
  return note(id, c, step, `${message} (by ${guessed.name}, the id the resource model guessed)`, expected);
}

function readFindings(c: StatefulContext, x: ItemState, step: DoneStep): Finding[] {
  if (x.madeAt === undefined || x.id === undefined || x.unsure) return [];
  if (x.deletedAt !== undefined) return afterDelete(c, x, step);
  if (gone(step.status)) return missing(c, x, step);
  if (!success(step.status)) return [];
  const item = at(step.body, c.state.target.itemAt(step.observed.operation));
  if (typeof item !== "object" || item === null || Array.isArray(item)) return [];
  return [...idFindings(c, x, item as Record<string, unknown>, step), ...valueFindings(c, x, item, step)];
}

/** A read of an item the sequence made, not deleted, got 404 or 410: lost, or deleted with another. */
function missing(c: StatefulContext, x: ItemState, step: DoneStep): Finding[] {
  // Only an item seen readable before another's delete was taken by it; one never seen was not kept.
  const seen = x.seenAt;
  const other = Object.values(c.state.items).find(
    (y) => y !== x && seen !== undefined && y.deletedAt !== undefined && y.deletedAt > seen,
  );
  if (other !== undefined) {
    const deleted = `step ${other.deletedAt! + 1} (${c.state.done[other.deletedAt!]?.label})`;
    return [
      stateful(
        "stateful.delete-spares-others",
        c,
        step,
        `${x.name} is gone after ${deleted} deleted ${other.name}: the delete took another item with it`,
        `${x.name} (made by ${madeName(c, x)}${x.seenAt === undefined ? "" : `, read at step ${x.seenAt + 1}`}) still there`,
      ),
    ];
  }
  const id = c.state.target.id;
  const message = `${x.name}, made by ${madeName(c, x)} with id ${shown(x.id)}, is not found: the create's success was not kept`;
  const expected = `a success for ${x.name} (its create answered ${c.state.done[x.madeAt!]?.status})`;
  // A guessed id property may be the wrong one: the read then names something else.
  if (id.guessed)
    return [
      note("stateful.created-available", c, step, `${message} (or the guessed id ${id.name} is not the id)`, expected),
    ];
  return [stateful("stateful.created-available", c, step, message, expected)];
}

function idFindings(c: StatefulContext, x: ItemState, item: Record<string, unknown>, step: DoneStep): Finding[] {
  const name = c.state.target.id.name;
  if (!Object.prototype.hasOwnProperty.call(item, name)) return [];
  const read = item[name];
  const compared = compareIds(x.id, read);
  if (compared === "same") return [];
  const expected = `${name} ${shown(x.id)}, as ${madeName(c, x)} made it`;
  if (compared === "written-otherwise")
    return [
      note("stateful.id-exact", c, step, `${x.name}'s ${name} comes back written otherwise (${shown(read)})`, expected),
    ];
  const other = Object.values(c.state.items).find(
    (y) => y !== x && y.id !== undefined && compareIds(y.id, read) === "same",
  );
  const whose = other === undefined ? "" : ` (the id of ${other.name})`;
  const rounded =
    typeof x.id === "bigint" && typeof read !== "string" && near(x.id, read) ? ", as through a double" : "";
  return [
    stateful(
      "stateful.id-exact",
      c,
      step,
      `${x.name} is read back with ${name} ${shown(read)}${whose}, not ${shown(x.id)}${rounded}`,
      expected,
    ),
  ];
}

/** Whether a number read is the nearest double of a bigint made (an id rounded beyond 2^53). */
function near(made: bigint, read: unknown): boolean {
  if (typeof read !== "number" && typeof read !== "bigint" && !(read instanceof ExactDecimal)) return false;
  return numericKey(BigInt(Number(made))) === numericKey(read);
}

/** The check a difference breaks, by what wrote the value. */
const CHECK_OF: Readonly<Record<Expected["how"], StatefulCheckId>> = {
  create: "stateful.read-back",
  replace: "stateful.update-visible",
  patch: "stateful.update-visible",
  kept: "stateful.patch-keeps-unsent",
};

/** The properties whose value read is another than the one written, by check. */
function differences(
  x: ItemState,
  item: Record<string, unknown>,
): Map<StatefulCheckId, { name: string; e: Expected; read: unknown }[]> {
  const out = new Map<StatefulCheckId, { name: string; e: Expected; read: unknown }[]>();
  for (const [name, e] of x.expected) {
    const has = Object.prototype.hasOwnProperty.call(item, name);
    if (has ? sameValue(e.value, item[name]) : isEmptyValue(e.value) || e.value === null) continue;
    const check = CHECK_OF[e.how];
    out.set(check, [...(out.get(check) ?? []), { name, e, read: has ? item[name] : undefined }]);
  }
  return out;
}

function valueFindings(c: StatefulContext, x: ItemState, item: object, step: DoneStep): Finding[] {
  const o = item as Record<string, unknown>;
  const out: Finding[] = [];
  for (const [check, diffs] of differences(x, o)) {
    const other = Object.values(c.state.items).find(
      (y) => y !== x && y.madeAt !== undefined && y.expected.size > 0 && differences(y, o).size === 0,
    );
    const what = diffs
      .map(({ name, e, read }) => {
        const stale =
          e.before !== undefined && read !== undefined && sameValue(e.before, read) ? " (the value before)" : "";
        return `${name} ${shown(read)}${stale}, not ${shown(e.value)} from step ${e.step + 1}`;
      })
      .join("; ");
    const whose = other === undefined ? "" : `: the values of ${other.name}, another item`;
    out.push(
      stateful(
        check,
        c,
        step,
        `${x.name} is read back with ${what}${whose}`,
        diffs.map(({ name, e }) => `${name} ${shown(e.value)} (written by step ${e.step + 1}, ${e.how})`).join("; "),
      ),
    );
  }
  return out;
}

/** A read after a delete: 404 or 410, or a changed representation (a soft delete): not the item unchanged. */
function afterDelete(c: StatefulContext, x: ItemState, step: DoneStep): Finding[] {
  if (gone(step.status) || !success(step.status)) return [];
  const deleted = `step ${x.deletedAt! + 1} (${c.state.done[x.deletedAt!]?.label})`;
  const expected = `404 or 410 after ${deleted} answered ${c.state.done[x.deletedAt!]?.status}`;
  const item = at(step.body, c.state.target.itemAt(step.observed.operation));
  const unchanged =
    typeof item === "object" &&
    item !== null &&
    !Array.isArray(item) &&
    differences(x, item as Record<string, unknown>).size === 0 &&
    idFindings(c, x, item as Record<string, unknown>, step).length === 0;
  if (!unchanged)
    return [
      note(
        "stateful.delete-effective",
        c,
        step,
        `${x.name} still answers ${step.status} after ${deleted}, with a changed representation (a soft delete is allowed)`,
        expected,
      ),
    ];
  return [
    stateful("stateful.delete-effective", c, step, `${x.name} is still there, unchanged, after ${deleted}`, expected),
  ];
}

/** The findings of a list: its limit, duplicates, and whether it shows the item it can single out. */
function listFindings(c: StatefulContext, step: DoneStep): Finding[] {
  if (!success(step.status) || step.spec.kind !== "list") return [];
  const { target } = c.state;
  const items = at(step.body, target.resource.list?.itemsAt ?? "");
  if (!Array.isArray(items)) return [];
  const out: Finding[] = [];
  const limit = target.limit;
  if (step.spec.limit === true && limit !== undefined && items.length > limit.value)
    out.push(
      stateful(
        "stateful.list-limit",
        c,
        step,
        `the list holds ${items.length} items, past the ${limit.parameter.name}=${limit.value} sent`,
        `at most ${limit.value} items`,
      ),
    );
  out.push(...duplicates(c, step, items));
  if (step.spec.filterBy !== undefined) out.push(...singledOut(c, step, c.state.items[step.spec.filterBy], items));
  return out;
}

function duplicates(c: StatefulContext, step: DoneStep, items: readonly unknown[]): Finding[] {
  const name = c.state.target.id.name;
  const seen = new Map<string, { id: unknown; n: number }>();
  for (const item of items) {
    const id = typeof item === "object" && item !== null ? (item as Record<string, unknown>)[name] : undefined;
    if (id === undefined || id === null || (typeof id === "object" && !(id instanceof ExactDecimal))) continue;
    const key =
      typeof id === "string" ? `s:${id}` : typeof id === "boolean" ? `b:${id}` : numericKey(id as number | bigint);
    seen.set(key, { id, n: (seen.get(key)?.n ?? 0) + 1 });
  }
  const twice = [...seen.values()].filter(({ n }) => n > 1);
  if (twice.length === 0) return [];
  const ids = twice.map(({ id, n }) => `${shown(id)} (${n} times)`).join(", ");
  return [
    onId("stateful.list-unique", c, step, `the list holds the same ${name} more than once: ${ids}`, "each item once"),
  ];
}

/** Whether a list element is the item x: by its id, else (no id shown) by the fresh filter value it holds. */
function isItem(c: StatefulContext, x: ItemState, element: unknown): boolean {
  if (typeof element !== "object" || element === null) return false;
  const o = element as Record<string, unknown>;
  const id = o[c.state.target.id.name];
  if (id !== undefined) return compareIds(x.id, id) !== "different";
  const filter = c.state.target.filter?.property;
  return filter !== undefined && x.filterValue !== undefined && holds(o[filter], x.filterValue);
}

/** Whether a value holds a filter's text (equal, or within it, or an array with it). */
function holds(value: unknown, text: string): boolean {
  if (Array.isArray(value)) return value.some((v) => holds(v, text));
  return typeof value === "string" && (sameValue(text, value) || value.toLowerCase().includes(text.toLowerCase()));
}

/**
 * A list in which the item can be singled out: filtered by the fresh value only it holds (every
 * element showing the property holds the value, or the filter was not applied and nothing is judged),
 * or under a parent the sequence made. A deleted item is gone from it; another is in it, as it is now.
 */
function singledOut(c: StatefulContext, step: DoneStep, x: ItemState, items: readonly unknown[]): Finding[] {
  if (x.madeAt === undefined || x.id === undefined || x.unsure) return [];
  const filter = c.state.target.filter;
  const sentValue = filter === undefined ? undefined : x.filterValue;
  if (filter !== undefined && sentValue === undefined) return [];
  // Without a filter, only a list under parents this sequence made holds nothing but its items.
  const { parents } = c.state.target;
  if (filter === undefined && (parents.length === 0 || parents.some((p) => !c.state.parentIds.has(p.parameter))))
    return [];
  const showing = items.filter(
    (i) => typeof i === "object" && i !== null && filter !== undefined && filter.property in (i as object),
  );
  const filtered =
    filter === undefined || showing.every((i) => holds((i as Record<string, unknown>)[filter.property], sentValue!));
  const how = filter === undefined ? "under the parent the sequence made" : `by ${filter.parameter.name}=${sentValue}`;
  if (!filtered)
    return [
      note(
        "stateful.list-contains",
        c,
        step,
        `the list ${how} holds items without that value: not filtered, not judged`,
        "",
      ),
    ];
  const found = items.find((i) => isItem(c, x, i));
  if (x.deletedAt !== undefined) {
    if (found === undefined) return [];
    const deleted = `step ${x.deletedAt + 1} (${c.state.done[x.deletedAt]?.label})`;
    return [
      onId(
        "stateful.list-after-delete",
        c,
        step,
        `the list ${how} still shows ${x.name}, deleted by ${deleted}`,
        `no ${x.name}`,
      ),
    ];
  }
  const complete = filter === undefined || showing.length === items.length;
  if (found === undefined)
    return complete
      ? [
          onId(
            "stateful.list-contains",
            c,
            step,
            `the list ${how} does not show ${x.name}, made by ${madeName(c, x)}`,
            `${x.name} in the list`,
          ),
        ]
      : [
          note(
            "stateful.list-contains",
            c,
            step,
            `the list ${how} does not show ${x.name}; its items do not show ${filter!.property}, so it is not judged`,
            "",
          ),
        ];
  return staleInList(c, step, x, found as Record<string, unknown>, how);
}

/** The item as listed shows its current values where it shows a property at all (a list may show fewer). */
function staleInList(
  c: StatefulContext,
  step: DoneStep,
  x: ItemState,
  element: Record<string, unknown>,
  how: string,
): Finding[] {
  const shownOnly = Object.fromEntries([...x.expected].filter(([name]) => name in element));
  const diffs = differences({ ...x, expected: new Map(Object.entries(shownOnly)) }, element);
  if (diffs.size === 0) return [];
  const what = [...diffs.values()]
    .flat()
    .map(({ name, e, read }) => `${name} ${shown(read)}, not ${shown(e.value)} from step ${e.step + 1}`)
    .join("; ");
  return [
    stateful(
      "stateful.list-contains",
      c,
      step,
      `the list ${how} shows ${x.name} with ${what}`,
      `${x.name} as it is now`,
    ),
  ];
}
