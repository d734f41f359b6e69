// The stateful checks: each compares a step's answer with what earlier steps of the same sequence
// wrote and were told (state.ts), and says what it found with the evidence of both steps.
// Level `stateful`: the contract's structure implies these promises, its schemas do not state them.
// A legitimate choice of a server is never a finding (list order, a default page size, extra or
// server-filled properties, seeded data, values kept in another spelling: see compare.ts);
// what cannot be told apart from one is a note.
import type { Finding } from "../checks.js";
import { ExactLiteral } from "../../contract/index.js";
import { at, compareIds, isEmptyValue, numericKey, sameValue, shown } from "./compare.js";
import { differences, gone, madeName, note, onId, stateful, success, type StatefulContext } from "./findings.js";
import type { StatefulCheckId } from "../stateful-check-ids.js";
import { listFindings } from "./list-checks.js";
import { sentId, type DoneStep, type ItemState } from "./state.js";

export type { StatefulContext } from "./findings.js";

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
    id: "stateful.create-keeps-stored",
    summary:
      "A create again with a stored item's id is refused (the documented 409), or its success leaves the stored item as it was (RFC 9110 9.3.3).",
  },
  {
    id: "stateful.update-visible",
    summary: "After a replace or patch got a success (not 202), the next read shows the values it sent.",
  },
  {
    id: "stateful.replace-whole",
    summary:
      "After a replace, an optional property it did not send no longer holds its old value: PUT replaces the whole representation (RFC 9110 9.3.4).",
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
    id: "stateful.absent-untouched",
    summary:
      "A replace of an id never made gets 404 or 410 where the operation documents one (and no 201), and makes nothing: a read of the id then finds nothing (RFC 9110 9.3.4).",
  },
  {
    id: "stateful.id-reusable",
    summary:
      "Where the client chooses ids, a create at the id of a deleted item succeeds, unless the server answered 410 for it (gone for good, RFC 9110 15.5.11).",
  },
  {
    id: "stateful.list-contains",
    summary:
      "A list that can single out an item the sequence made (by a filter on a fresh value, or under a parent it made) shows it, with its current values.",
  },
  {
    id: "stateful.list-complete",
    summary:
      "A list page shorter than the limit sent, that names no next page, is the whole collection: it holds every item the sequence made and has not deleted, with its current values.",
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

/** The findings of one step, judged against the sequence before it (call before recordStep). */
export function statefulFindings(c: StatefulContext, step: DoneStep): Finding[] {
  const spec = step.spec;
  if (step.status === undefined) return [];
  if (spec.kind === "read" && spec.item === "C") return neverMadeRead(c, step);
  if (spec.kind === "read") return readFindings(c, c.state.items[spec.item], step);
  if (spec.kind === "create" && spec.again === "recreate") return recreateFindings(c, c.state.items[spec.item], step);
  if (spec.kind === "create") return spec.again === undefined ? createFindings(c, step) : [];
  if (spec.kind === "list") return listFindings(c, step);
  if (spec.kind !== "parent" && spec.item === "C") return neverMadeWrite(c, step);
  return [];
}

/**
 * A replace of an id no create gave (the sequence tries no other write there): where the operation
 * documents 404 or 410 and no 201, a success (not 202) says it found, or made, what is not there.
 */
function neverMadeWrite(c: StatefulContext, step: DoneStep): Finding[] {
  if (step.spec.kind !== "replace" || !success(step.status) || step.status === 202) return [];
  const op = step.observed.operation;
  if (!op.responses.has("404") && !op.responses.has("410")) return [];
  const id = c.state.items.C.id;
  return [
    onId(
      "stateful.absent-untouched",
      c,
      step,
      `a ${step.spec.kind} of ${shown(id)}, an id no create gave, answered ${step.status}`,
      `404 or 410, as ${op.operationId} documents`,
    ),
  ];
}

/** A read of the id never made, after a replace, patch or delete of it: nothing is there. */
function neverMadeRead(c: StatefulContext, step: DoneStep): Finding[] {
  if (!success(step.status)) return [];
  const writes = c.state.done.filter((d) => d.spec.kind !== "read" && "item" in d.spec && d.spec.item === "C");
  const made = writes.find((d) => success(d.status));
  if (made === undefined) return [];
  return [
    onId(
      "stateful.absent-untouched",
      c,
      step,
      `${shown(c.state.items.C.id)}, an id no create gave, is there after step ${made.index + 1} (${made.label}) answered ${made.status}`,
      "404 or 410: a write to an id that is not there makes nothing",
    ),
  ];
}

/** A create at the id a delete freed: refused, it keeps ids once deleted (allowed only where it said 410). */
function recreateFindings(c: StatefulContext, x: ItemState, step: DoneStep): Finding[] {
  if (success(step.status) || step.status === undefined || step.status >= 500) return [];
  // Credentials and capacity say nothing of the id.
  if (step.status === 401 || step.status === 403 || step.status === 429) return [];
  if (x.tombstoned || x.unsure) return [];
  const deleted = c.state.done.find((d) => d.spec.kind === "delete" && "item" in d.spec && d.spec.item === x.name);
  return [
    stateful(
      "stateful.id-reusable",
      c,
      step,
      `a create at ${shown(x.id)}, the id of ${x.name} deleted by ${deleted === undefined ? "an earlier step" : `step ${deleted.index + 1} (${deleted.status})`}, answered ${step.status}`,
      "a success: the delete freed the id (a server that keeps it says so with 410 on a read)",
    ),
  ];
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

function readFindings(c: StatefulContext, x: ItemState, step: DoneStep): Finding[] {
  if (x.madeAt === undefined || x.id === undefined || x.unsure) return [];
  if (x.deletedAt !== undefined) return afterDelete(c, x, step);
  if (gone(step.status)) return missing(c, x, step);
  if (!success(step.status)) return [];
  const item = at(step.body, c.state.target.itemAt(step.observed.operation));
  if (typeof item !== "object" || item === null || Array.isArray(item)) return [];
  const o = item as Record<string, unknown>;
  const replaced = duplicateFindings(c, x, o, step);
  if (replaced.length > 0) return [...idFindings(c, x, o, step), ...replaced];
  return [...idFindings(c, x, o, step), ...valueFindings(c, x, item, step), ...unsentFindings(c, x, o, step)];
}

/** A read after a create again with the item's id got a success: the item is not the second create's. */
function duplicateFindings(c: StatefulContext, x: ItemState, item: Record<string, unknown>, step: DoneStep): Finding[] {
  const d = x.duplicate;
  if (d === undefined || differences(x, item).size === 0) return [];
  const changed = [...d.sent].filter(([name, v]) => {
    const before = x.expected.get(name);
    return (
      Object.prototype.hasOwnProperty.call(item, name) &&
      sameValue(v, item[name]) &&
      before !== undefined &&
      !sameValue(before.value, item[name])
    );
  });
  if (changed.length === 0) return [];
  const what = changed.map(([name, v]) => `${name} ${shown(v)}`).join("; ");
  const again = c.state.done[d.step];
  return [
    stateful(
      "stateful.create-keeps-stored",
      c,
      step,
      `${x.name} is read back with ${what}, the values of step ${d.step + 1} (${again?.label}), which answered ${again?.status}: the create replaced the stored item`,
      `${x.name} as ${madeName(c, x)} made it, or a refusal (409) of the second create`,
    ),
  ];
}

/** A read after a replace: a property it did not send holds its old value still (RFC 9110 section 9.3.4). */
function unsentFindings(c: StatefulContext, x: ItemState, item: Record<string, unknown>, step: DoneStep): Finding[] {
  const kept = [...x.unsent].filter(
    ([name, e]) =>
      Object.prototype.hasOwnProperty.call(item, name) &&
      !isEmptyValue(e.value) &&
      e.value !== null &&
      sameValue(e.value, item[name]) &&
      !sameValue(defaultOf(c, name), item[name]),
  );
  if (kept.length === 0) return [];
  const replace = c.state.done.findLast((d) => d.spec.kind === "replace" && "item" in d.spec && d.spec.item === x.name);
  const what = kept.map(([name, e]) => `${name} ${shown(item[name])} (from step ${e.step + 1})`).join("; ");
  return [
    stateful(
      "stateful.replace-whole",
      c,
      step,
      `${x.name} still holds ${what}, which step ${(replace?.index ?? 0) + 1} (${replace?.label}) did not send`,
      `${kept.map(([name]) => name).join(", ")} gone or at its default: a replace leaves what it sent`,
    ),
  ];
}

/** The default the replace's schema gives a property, where it gives one (a server may fill it). */
function defaultOf(c: StatefulContext, name: string): unknown {
  const replace = c.state.target.ops.replace;
  if (replace === undefined) return undefined;
  return c.state.target.propertyDefault(replace, name);
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
  if (typeof read !== "number" && typeof read !== "bigint" && !(read instanceof ExactLiteral)) return false;
  return numericKey(BigInt(Number(made))) === numericKey(read);
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
