// PATCH bodies applied to a stored item: JSON Patch (RFC 6902) for `application/json-patch+json`,
// JSON Merge Patch (RFC 7396) for anything else (`application/merge-patch+json`, plain JSON).

import { unescapePointer } from "../contract/portable.js";
import { ExactLiteral } from "../contract/portable.js";

type Json = Record<string, unknown>;

/**
 * A patch applied, or why not: a malformed patch, or (`conflict`) a well-formed one the item as it is
 * refuses, such as a failed `test` or a path to nothing (RFC 5789 section 2.2: 409 Conflict).
 */
export type Patched =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly detail: string; readonly conflict?: boolean };

export function applyPatch(target: unknown, patch: unknown, contentType: string | undefined): Patched {
  if (/json-patch\+json/i.test(contentType ?? "")) return jsonPatch(target, patch);
  return { ok: true, value: mergePatch(target, patch) };
}

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof ExactLiteral);

/** RFC 7396: objects merge member by member, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const clone = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(clone)
    : isObject(v)
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)]))
      : v;

function tokens(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  return pointer.slice(1).split("/").map(unescapePointer);
}

/** RFC 6902: add, remove, replace, move, copy and test, in order; any failure leaves the item as it was. */
export function jsonPatch(target: unknown, patch: unknown): Patched {
  if (!Array.isArray(patch)) return { ok: false, detail: "a JSON Patch is an array of operations" };
  let doc = clone(target);
  for (const [i, raw] of patch.entries()) {
    const op = (isObject(raw) ? raw : {}) as Json;
    const path = typeof op.path === "string" ? tokens(op.path) : undefined;
    if (path === undefined) return { ok: false, detail: `operation ${i}: path must be a JSON pointer` };
    const from = typeof op.from === "string" ? tokens(op.from) : undefined;
    let result: { ok: true; doc: unknown } | { ok: false; why: string };
    switch (op.op) {
      case "add":
        result = add(doc, path, clone(op.value));
        break;
      case "remove":
        result = removeAt(doc, path);
        break;
      case "replace": {
        const removed = removeAt(doc, path);
        result = removed.ok ? add(removed.doc, path, clone(op.value)) : removed;
        break;
      }
      case "move":
      case "copy": {
        if (from === undefined) return { ok: false, detail: `operation ${i}: from must be a JSON pointer` };
        const value = get(doc, from);
        if (value === undefined)
          return { ok: false, detail: `operation ${i}: nothing at ${String(op.from)}`, conflict: true };
        const base = op.op === "move" ? removeAt(doc, from) : { ok: true as const, doc };
        result = base.ok ? add(base.doc, path, clone(value)) : base;
        break;
      }
      case "test":
        result =
          JSON.stringify(get(doc, path)) === JSON.stringify(op.value)
            ? { ok: true, doc }
            : { ok: false, why: "test failed" };
        break;
      default:
        return { ok: false, detail: `operation ${i}: unknown op ${JSON.stringify(op.op)}` };
    }
    if (!result.ok)
      return {
        ok: false,
        detail: `operation ${i} (${String(op.op)} ${String(op.path)}): ${result.why}`,
        conflict: true,
      };
    doc = result.doc;
  }
  return { ok: true, value: doc };
}

function get(doc: unknown, path: readonly string[]): unknown {
  let node = doc;
  for (const t of path) {
    if (Array.isArray(node)) node = /^\d+$/.test(t) ? node[Number(t)] : undefined;
    else if (isObject(node)) node = Object.hasOwn(node, t) ? node[t] : undefined;
    else return undefined;
  }
  return node;
}

function add(
  doc: unknown,
  path: readonly string[],
  value: unknown,
): { ok: true; doc: unknown } | { ok: false; why: string } {
  if (path.length === 0) return { ok: true, doc: value };
  const parent = get(doc, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const i = last === "-" ? parent.length : /^\d+$/.test(last) ? Number(last) : -1;
    if (i < 0 || i > parent.length) return { ok: false, why: "index out of range" };
    parent.splice(i, 0, value);
  } else if (isObject(parent)) parent[last] = value;
  else return { ok: false, why: "no such place" };
  return { ok: true, doc };
}

function removeAt(doc: unknown, path: readonly string[]): { ok: true; doc: unknown } | { ok: false; why: string } {
  if (path.length === 0) return { ok: true, doc: undefined };
  const parent = get(doc, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (Array.isArray(parent) && /^\d+$/.test(last) && Number(last) < parent.length) parent.splice(Number(last), 1);
  else if (isObject(parent) && Object.hasOwn(parent, last)) delete parent[last];
  else return { ok: false, why: "nothing there" };
  return { ok: true, doc };
}
