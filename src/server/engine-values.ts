// Values the mock engine stores and answers with: a stored value as a key, projected onto a documented
// schema, and read or set at a place in an item. (The exact tree and plain values are the contract's.)
import { ExactLiteral, followRefs, propertiesOf, unescapePointer, type Resolve } from "../contract/portable.js";

/** A stored value compared as text: a path parameter `9007199254740993` finds the id 9007199254740993n. */
export function keyOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof ExactLiteral) return value.literal;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return String(value);
  return undefined;
}

type Json = Record<string, unknown>;

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
