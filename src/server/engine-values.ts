// Values the mock engine stores and answers with: request values kept exactly (integers beyond 2^53
// and decimals a double cannot hold stay as written), written back as JSON; a stored value projected
// onto a documented schema; and a plain value for a schema, made the same way every time.

import fc from "fast-check";
import { followRefs, propertiesOf, unescapePointer, type ExactNumbers, type Resolve } from "../contract/portable.js";

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

/** JSON text of a stored value: bigints and ExactLiterals written as the numbers they are. */
export function writeJson(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (value instanceof ExactLiteral) return value.literal;
  // Written by hand rather than by arrays and join: every answer of the mock comes through here.
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += `${i === 0 ? "" : ","}${v === undefined ? "null" : writeJson(v)}`;
    }
    return `${out}]`;
  }
  let out = "{";
  let first = true;
  for (const k of Object.keys(value)) {
    const v = (value as Json)[k];
    if (v === undefined) continue;
    out += `${first ? "" : ","}${JSON.stringify(k)}:${writeJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** A stored value compared as text: a path parameter `9007199254740993` finds the id 9007199254740993n. */
export function keyOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof ExactLiteral) return value.literal;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return String(value);
  return undefined;
}

const MAX_DEPTH = 12;

/**
 * A stored value as a documented schema shows it: an object keeps the properties the schema declares
 * (through `$ref` and `allOf`), minus `writeOnly` ones, in the schema's order; an object schema that
 * declares none keeps them all; arrays project their items. Other values stay as they are.
 */
export function project(value: unknown, schema: unknown, resolve: Resolve, depth = 0): unknown {
  const s = followRefs(schema, resolve) as Json | undefined;
  if (s === undefined || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => project(v, s.items, resolve, depth + 1));
  if (typeof value !== "object" || value === null || value instanceof ExactLiteral) return value;
  const { properties, writeOnly } = propertiesOf(s, resolve);
  if (properties.size === 0) return value;
  const out: Json = {};
  for (const [name, sub] of properties) {
    if (!Object.hasOwn(value, name) || writeOnly.has(name)) continue;
    const v = (value as Json)[name];
    // A request and an answer may give one name two shapes (DigitalOcean's `region`: a slug in, an
    // object out): a stored value of another type is left out, for the example or a plain value.
    if (fitsType(v, followRefs(sub, resolve))) out[name] = project(v, sub, resolve, depth + 1);
  }
  return out;
}

/** The value's JSON type is one the schema's `type` allows (a schema without `type` allows any). */
function fitsType(value: unknown, schema: unknown): boolean {
  const s = (schema ?? {}) as Json;
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : typeof s.type === "string" ? [s.type] : undefined;
  if (types === undefined) return true;
  if (value === null) return types.includes("null") || s.nullable === true;
  if (typeof value === "bigint") return types.includes("integer") || types.includes("number");
  if (value instanceof ExactLiteral) return types.includes("number");
  if (typeof value === "number")
    return types.includes("number") || (types.includes("integer") && Number.isInteger(value));
  if (Array.isArray(value)) return types.includes("array");
  return types.includes(typeof value);
}

const FORMATS: Readonly<Record<string, string>> = {
  "date-time": "2026-01-01T00:00:00Z",
  date: "2026-01-01",
  time: "00:00:00Z",
  duration: "P1D",
  uuid: "00000000-0000-4000-8000-000000000000",
  email: "user@example.com",
  "idn-email": "user@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  "uri-reference": "/",
  iri: "https://example.com/",
  "iri-reference": "/",
  "uri-template": "/",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  byte: "AAAA",
  binary: "",
  "json-pointer": "",
  regex: ".*",
};

/** How full a plain value is: 0 as little as the schema needs, 1 arrays with an item, 2 optional properties too. */
export type Fill = 0 | 1 | 2;

/**
 * A value a schema accepts, plain and the same every time: `const`, the first of `enum`, the
 * schema's example or default, else one built from its type and bounds (a format's usual value, a
 * pattern's first match from a fixed seed, the least number in range, the required properties).
 * With `examples` false, examples and defaults are passed over (a document's example may break its
 * own schema); with `fill` 1, arrays hold at least one item, with 2 the first levels' objects their
 * optional properties too (an empty array or object may match every branch of a `oneOf`, which the
 * oneOf refuses). Not a promise: the caller judges the answer it goes in by the contract.
 */
export function plainValue(schema: unknown, resolve: Resolve, depth = 0, examples = true, fill: Fill = 0): unknown {
  const s = followRefs(schema, resolve) as Json | undefined;
  if (s === undefined || typeof s !== "object") return null;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (examples && s.example !== undefined) return s.example;
  if (examples && Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (examples && s.default !== undefined) return s.default;
  if (depth > MAX_DEPTH) return null;
  for (const key of ["oneOf", "anyOf"] as const)
    if (Array.isArray(s[key]) && (s[key] as unknown[]).length > 0)
      return plainValue((s[key] as unknown[])[0], resolve, depth + 1, examples, fill);
  const type = typeOf(s, resolve);
  switch (type) {
    case "string":
      return plainString(s);
    case "integer":
    case "number":
      return plainNumber(s, type);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const least = typeof s.minItems === "number" ? s.minItems : 0;
      const n = fill > 0 && (typeof s.maxItems !== "number" || s.maxItems > 0) ? Math.max(least, 1) : least;
      return Array.from({ length: n }, () => plainValue(s.items, resolve, depth + 1, examples, fill));
    }
    default: {
      const { properties, required } = propertiesOf(s, resolve);
      const out: Json = {};
      for (const name of required) out[name] = plainValue(properties.get(name), resolve, depth + 1, examples, fill);
      // Fuller, the first levels' optional properties too: an `enum` or `type` that tells one
      // branch of a oneOf from another is often optional.
      if (fill > 1 && depth < 2)
        for (const [name, sub] of properties)
          if (!(name in out)) out[name] = plainValue(sub, resolve, depth + 1, examples, fill);
      return out;
    }
  }
}

/** The schema's type, the first that is not null; from `allOf` parts or the keywords when it has none. */
function typeOf(s: Json, resolve: Resolve): string {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  if (typeof t === "string") return t;
  for (const part of Array.isArray(s.allOf) ? s.allOf : []) {
    const p = followRefs(part, resolve) as Json | undefined;
    if (p !== undefined && typeof p === "object") {
      const inner = typeOf(p, resolve);
      if (inner !== "object" || p.type === "object") return inner;
    }
  }
  if (s.items !== undefined) return "array";
  if (typeof s.minLength === "number" || typeof s.pattern === "string" || typeof s.format === "string") return "string";
  return "object";
}

/** A pattern's first match from the fixed seed, made once (making it costs far more than using it). */
const matches = new Map<string, string | undefined>();

function firstMatch(pattern: string): string | undefined {
  if (matches.has(pattern)) return matches.get(pattern);
  let found: string | undefined;
  try {
    found = fc.sample(fc.stringMatching(new RegExp(pattern, "u")), { numRuns: 1, seed: 42 })[0];
  } catch {
    // a pattern fast-check cannot read: the answer is judged anyway
  }
  if (matches.size >= 4_096) matches.clear();
  matches.set(pattern, found);
  return found;
}

function plainString(s: Json): string {
  let text = typeof s.format === "string" && s.format in FORMATS ? FORMATS[s.format]! : "string";
  if (typeof s.pattern === "string") {
    try {
      if (!new RegExp(s.pattern, "u").test(text)) text = firstMatch(s.pattern) ?? text;
    } catch {
      // a pattern no RegExp reads: the answer is judged anyway
    }
  }
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : Infinity;
  if ([...text].length < min) text = text.padEnd(min, "x");
  if ([...text].length > max) text = [...text].slice(0, max).join("");
  return text;
}

function plainNumber(s: Json, type: "integer" | "number"): number {
  const lo =
    typeof s.minimum === "number"
      ? s.minimum
      : typeof s.exclusiveMinimum === "number"
        ? s.exclusiveMinimum + (type === "integer" ? 1 : 0.5)
        : undefined;
  const hi =
    typeof s.maximum === "number"
      ? s.maximum
      : typeof s.exclusiveMaximum === "number"
        ? s.exclusiveMaximum - 1
        : undefined;
  let n = lo ?? (hi !== undefined && hi < 1 ? hi : 1);
  if (type === "integer") n = Math.ceil(n);
  const step = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : undefined;
  if (step !== undefined) n = Math.ceil(n / step) * step;
  return n;
}

/** A place in an item: a member `name`, at the item's top or within an object (`/metadata`). */
type Place = { readonly name: string; readonly within?: string };

/** The value at a place in an item (an id where the model places it, a version token), or undefined. */
export function valueAt(item: unknown, place: Place): unknown {
  let here = item;
  for (const token of (place.within ?? "").split("/").slice(1)) {
    if (typeof here !== "object" || here === null) return undefined;
    here = (here as Record<string, unknown>)[unescapePointer(token)];
  }
  return typeof here === "object" && here !== null ? (here as Record<string, unknown>)[place.name] : undefined;
}

/** Sets the value at a place in an item, copying the objects on the way (the item's own are not shared). */
export function setValueAt(item: Record<string, unknown>, place: Place, value: unknown): void {
  let here = item;
  for (const token of (place.within ?? "").split("/").slice(1)) {
    const key = unescapePointer(token);
    const next = here[key];
    here[key] = typeof next === "object" && next !== null && !Array.isArray(next) ? { ...(next as object) } : {};
    here = here[key] as Record<string, unknown>;
  }
  here[place.name] = value;
}
