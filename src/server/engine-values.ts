// Values the mock engine stores and answers with: a stored value as a key, projected onto a documented
// schema, and read or set at a place in an item. (The exact tree and plain values are the contract's.)
import { ExactLiteral, followRefs, propertiesOf, unescapePointer, type Resolve } from "../contract/portable.js";

/** A stored value compared as text: a path parameter `9007199254740993` finds the id 9007199254740993n. */
export function keyOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof ExactLiteral) return value.literal;
  if (typeof value === "number" && Number.isFinite(value)) return numberText(value);
  if (typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * `String(n)`: a safe integer of ten digits or more written as two int32 halves, which V8 writes
 * without its double-to-text (40 ns against 90 for a 13-digit id, on every create that sends one).
 */
export function numberText(n: number): string {
  if (!Number.isSafeInteger(n) || (n < 1e9 && n > -1e9)) return String(n);
  const abs = n < 0 ? -n : n;
  const high = Math.floor(abs / 1e9);
  const low = String(abs - high * 1e9);
  return `${n < 0 ? "-" : ""}${high}${"000000000".slice(low.length)}${low}`;
}

type Json = Record<string, unknown>;

const MAX_DEPTH = 12;

/**
 * A stored value as a documented schema shows it: an object keeps the properties the schema declares
 * (through `$ref` and `allOf`), minus `writeOnly` ones, in the schema's order; an object schema that
 * declares none keeps them all; arrays project their items. Other values stay as they are. Each
 * schema's projection is made once (per resolver), then applied by value on every request.
 */
export function project(value: unknown, schema: unknown, resolve: Resolve, depth = 0): unknown {
  return projectorOf(schema, resolve)(value, depth);
}

/** A schema's projection, applied to a value at a depth (see project). */
export type Projector = (value: unknown, depth: number) => unknown;

const keep: Projector = (value) => value;
const projectors = new WeakMap<Resolve, WeakMap<object, Projector>>();

/** The projection of a schema, made when first asked for (a schema may name itself: made lazily inside). */
export function projectorOf(schema: unknown, resolve: Resolve): Projector {
  if (typeof schema !== "object" || schema === null) {
    // A `$ref` string never reaches here; anything else that is no schema keeps the value.
    return followRefs(schema, resolve) === undefined ? keep : madeProjector(schema, resolve);
  }
  let bySchema = projectors.get(resolve);
  if (bySchema === undefined) projectors.set(resolve, (bySchema = new WeakMap()));
  let made = bySchema.get(schema);
  if (made === undefined) bySchema.set(schema, (made = madeProjector(schema, resolve)));
  return made;
}

function madeProjector(schema: unknown, resolve: Resolve): Projector {
  const s = followRefs(schema, resolve) as Json | undefined;
  if (s === undefined) return keep;
  let items: Projector | undefined;
  let fields: Field[] | undefined;
  return (value, depth) => {
    if (depth > MAX_DEPTH) return value;
    if (Array.isArray(value)) {
      const each = (items ??= projectorOf(s.items, resolve));
      return value.map((v) => each(v, depth + 1));
    }
    if (typeof value !== "object" || value === null || value instanceof ExactLiteral) return value;
    fields ??= fieldsOf(s, resolve);
    if (fields.length === 0 && propertiesOf(s, resolve).properties.size === 0) return value;
    const out: Json = {};
    for (const f of fields) {
      if (!Object.hasOwn(value, f.name)) continue;
      const v = (value as Json)[f.name];
      // A request and an answer may give one name two shapes (DigitalOcean's `region`: a slug in, an
      // object out): a stored value of another type is left out, for the example or a plain value.
      if (!fitsType(v, f.types, f.nullable)) continue;
      // Only an object or a list is projected; any other value is kept as it is.
      out[f.name] =
        typeof v !== "object" || v === null ? v : (f.project ??= projectorOf(f.schema, resolve))(v, depth + 1);
    }
    return out;
  };
}

/** A declared property the projection keeps: its name, schema, the types it allows, made once. */
interface Field {
  readonly name: string;
  readonly schema: unknown;
  readonly types: readonly unknown[] | undefined;
  readonly nullable: boolean;
  project?: Projector;
}

function fieldsOf(schema: Json, resolve: Resolve): Field[] {
  const { properties, writeOnly } = propertiesOf(schema, resolve);
  const fields: Field[] = [];
  for (const [name, sub] of properties) {
    if (writeOnly.has(name)) continue;
    const s = (followRefs(sub, resolve) ?? {}) as Json;
    const types = Array.isArray(s.type) ? (s.type as unknown[]) : typeof s.type === "string" ? [s.type] : undefined;
    fields.push({ name, schema: sub, types, nullable: s.nullable === true });
  }
  return fields;
}

/** The value's JSON type is one the schema's `type` allows (a schema without `type` allows any). */
function fitsType(value: unknown, types: readonly unknown[] | undefined, nullable: boolean): boolean {
  if (types === undefined) return true;
  // The common case first: a text where the schema takes one (no list searched further).
  if (typeof value === "string" && types[0] === "string") return true;
  if (value === null) return types.includes("null") || nullable;
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
  // At the item's top (the common place): no path to walk.
  if (place.within === undefined || place.within === "")
    return typeof here === "object" && here !== null ? (here as Record<string, unknown>)[place.name] : undefined;
  for (const token of (place.within ?? "").split("/").slice(1)) {
    if (typeof here !== "object" || here === null) return undefined;
    here = (here as Record<string, unknown>)[unescapePointer(token)];
  }
  return typeof here === "object" && here !== null ? (here as Record<string, unknown>)[place.name] : undefined;
}

/** Sets the value at a place in an item, copying the objects on the way (the item's own are not shared). */
export function setValueAt(item: Record<string, unknown>, place: Place, value: unknown): void {
  let here = item;
  if (place.within === undefined || place.within === "") {
    here[place.name] = value;
    return;
  }
  for (const token of (place.within ?? "").split("/").slice(1)) {
    const key = unescapePointer(token);
    const next = here[key];
    here[key] = typeof next === "object" && next !== null && !Array.isArray(next) ? { ...(next as object) } : {};
    here = here[key] as Record<string, unknown>;
  }
  here[place.name] = value;
}
