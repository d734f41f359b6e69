// The one exact-number tree of the kit: a parsed JSON value with its exact numbers put back
// (integers beyond 2^53 as bigints, decimals no double holds as ExactLiteral), and its writer. The
// engine stores and answers with it, the harness compares with it, certificates are hashed over it.
import { maybeUnfaithful, parseJsonExact, type ExactNumbers } from "./exact-json.js";
import { unescapePointer } from "./json-pointer.js";

/** A number kept as written: a decimal no double holds (an integer beyond 2^53 is a bigint instead). */
export class ExactLiteral {
  constructor(readonly literal: string) {}
}

type Json = Record<string, unknown>;

/**
 * A parsed value with its exact numbers put back: bigints for integers, ExactLiteral for others.
 * Copy-on-write along the path to each exact number, walked without recursion: a body nested
 * thousands deep costs no stack, and the parts without an exact number are the parsed ones.
 */
export function exactTree(value: unknown, exact: ExactNumbers): unknown {
  if (exact.size === 0) return value;
  const root: Json = { value };
  const copied = new WeakSet<object>();
  for (const pointer of exact.pointers()) {
    const e = exact.get(pointer);
    if (e === undefined) continue;
    let parent: Json | unknown[] = root;
    let key: string | number = "value";
    let reached = true;
    for (const token of pointer.split("/").slice(1).map(unescapePointer)) {
      let node: unknown = (parent as Json)[key as string];
      if (typeof node !== "object" || node === null) {
        reached = false;
        break;
      }
      if (!copied.has(node)) {
        // Spread defines own members: one named `__proto__` stays a member, never the prototype.
        node = Array.isArray(node) ? [...(node as unknown[])] : { ...(node as Json) };
        copied.add(node as object);
        put(parent, key, node);
      }
      parent = node as Json | unknown[];
      key = Array.isArray(node) ? Number(token) : token;
    }
    if (reached) put(parent, key, e.integer !== undefined ? e.integer : new ExactLiteral(e.literal));
  }
  return root.value;
}

/** Sets a member or an item, a member named `__proto__` as a member. */
function put(target: Json | unknown[], key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Whether `parseJsonExact(writeJson(value))` reads back the value itself, with no exact number: only
 * strings, booleans, null, plain objects and arrays of them, and numbers whose shortest text no reader
 * takes for an exact literal (exact-json's maybeUnfaithful: no run of 16 digits or dots, no exponent).
 * A bigint, an ExactLiteral, a member or item that is undefined, -0, a number past a double's range,
 * an object of another prototype, or nesting past 64 levels: false (judge the written text instead).
 */
export function readsBackAsItself(value: unknown, depth = 0): boolean {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return true;
  // Integers of at most 15 digits are written as themselves; others by their shortest text.
  if (typeof value === "number")
    return Number.isSafeInteger(value)
      ? value < 1e15 && value > -1e15 && !Object.is(value, -0)
      : Number.isFinite(value) && !maybeUnfaithful(String(value));
  if (typeof value !== "object" || depth > 64) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!readsBackAsItself(value[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const k in value) if (Object.hasOwn(value, k) && !readsBackAsItself((value as Json)[k], depth + 1)) return false;
  return true;
}

/**
 * JSON text of a stored value: bigints and ExactLiterals written as the numbers they are. `readsBack`
 * is `readsBackAsItself(value)` where the caller found it already.
 */
export function writeJson(value: unknown, readsBack?: boolean): string {
  // Without exact numbers, the text JSON.stringify writes is this one's, written natively.
  if (typeof value === "object" && value !== null && (readsBack ?? readsBackAsItself(value)))
    return JSON.stringify(value);
  return writeExact(value);
}

function writeExact(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (value instanceof ExactLiteral) return value.literal;
  // Written by hand rather than by arrays and join: every answer of the mock comes through here.
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += `${i === 0 ? "" : ","}${v === undefined ? "null" : writeExact(v)}`;
    }
    return `${out}]`;
  }
  let out = "{";
  let first = true;
  for (const k of Object.keys(value)) {
    const v = (value as Json)[k];
    if (v === undefined) continue;
    out += `${first ? "" : ","}${JSON.stringify(k)}:${writeExact(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** A JSON text as an exact tree; undefined when the text is not JSON. */
export function readExactJson(text: string): { value: unknown } | undefined {
  const parsed = parseJsonExact(text);
  return parsed.ok ? { value: exactTree(parsed.value, parsed.exact) } : undefined;
}
