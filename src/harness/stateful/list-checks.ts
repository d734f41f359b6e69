// The stateful checks of a list: no more items than the limit sent, no item twice, and, where the
// list can single out an item the sequence made (a filter on its fresh value, or a parent the
// sequence made), the item in it as it is now, or gone from it once deleted.
import type { Finding } from "../checks.js";
import { ExactLiteral } from "../../contract/index.js";
import { at, compareIds, numericKey, sameValue, shown } from "./compare.js";
import { differences, madeName, note, onId, stateful, success, type StatefulContext } from "./findings.js";
import type { DoneStep, ItemState } from "./state.js";
import { wholeLimit } from "./steps.js";

/** The findings of a list: its limit, duplicates, and whether it shows the item it can single out. */
export function listFindings(c: StatefulContext, step: DoneStep): Finding[] {
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
  if (step.spec.whole === true) out.push(...wholeList(c, step, items));
  return out;
}

/**
 * A page shorter than the limit sent that names no next page (no next link or token, `has_more` not
 * true, no `Link: rel="next"`, no total beyond it) is the whole collection by every paging convention:
 * it holds every item the sequence made and has not deleted, as it is now, and none it deleted.
 */
function wholeList(c: StatefulContext, step: DoneStep, items: readonly unknown[]): Finding[] {
  const limit = wholeLimit(c.state.target);
  if (items.length >= limit || morePages(c, step, items.length)) return [];
  const how = `of ${items.length} items (shorter than ${c.state.target.limit!.parameter.name}=${limit}, no next page)`;
  const out: Finding[] = [];
  for (const x of [c.state.items.A, c.state.items.B]) {
    if (x.madeAt === undefined || x.id === undefined || x.unsure) continue;
    const found = items.find((i) => isItem(c, x, i));
    if (x.deletedAt !== undefined) {
      if (found !== undefined)
        out.push(
          onId("stateful.list-after-delete", c, step, `the list ${how} still shows ${x.name}, deleted`, `no ${x.name}`),
        );
    } else if (found === undefined)
      out.push(
        onId(
          "stateful.list-complete",
          c,
          step,
          `the list ${how} does not show ${x.name}, made by ${madeName(c, x)}`,
          `${x.name} in the whole list`,
        ),
      );
    else out.push(...staleInList(c, step, x, found as Record<string, unknown>, how, "stateful.list-complete"));
  }
  return out;
}

/** Whether a list answer says there is more after it, by the paging its contract documents. */
function morePages(c: StatefulContext, step: DoneStep, count: number): boolean {
  const pages = c.state.target.resource.list?.pages;
  const r = step.observed.result;
  const link = r.ok ? r.response.headers.link : undefined;
  if (typeof link === "string" && /rel="?next"?/i.test(link)) return true;
  if (pages === undefined) return false;
  const value = (pointer: string | undefined): unknown => (pointer === undefined ? undefined : at(step.body, pointer));
  const next = [value(pages.nextUrl), value(pages.nextToken)];
  if (next.some((v) => typeof v === "string" && v !== "")) return true;
  if (value(pages.hasMore) === true) return true;
  const total = value(pages.total);
  return (typeof total === "number" || typeof total === "bigint") && Number(total) > count;
}

function duplicates(c: StatefulContext, step: DoneStep, items: readonly unknown[]): Finding[] {
  const name = c.state.target.id.name;
  const seen = new Map<string, { id: unknown; n: number }>();
  for (const item of items) {
    const id = typeof item === "object" && item !== null ? (item as Record<string, unknown>)[name] : undefined;
    if (id === undefined || id === null || (typeof id === "object" && !(id instanceof ExactLiteral))) continue;
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
  return staleInList(c, step, x, found as Record<string, unknown>, how, "stateful.list-contains");
}

/** The item as listed shows its current values where it shows a property at all (a list may show fewer). */
function staleInList(
  c: StatefulContext,
  step: DoneStep,
  x: ItemState,
  element: Record<string, unknown>,
  how: string,
  check: "stateful.list-contains" | "stateful.list-complete",
): Finding[] {
  const shownOnly = Object.fromEntries([...x.expected].filter(([name]) => name in element));
  const diffs = differences({ ...x, expected: new Map(Object.entries(shownOnly)) }, element);
  if (diffs.size === 0) return [];
  const what = [...diffs.values()]
    .flat()
    .map(({ name, e, read }) => `${name} ${shown(read)}, not ${shown(e.value)} from step ${e.step + 1}`)
    .join("; ");
  return [stateful(check, c, step, `the list ${how} shows ${x.name} with ${what}`, `${x.name} as it is now`)];
}
