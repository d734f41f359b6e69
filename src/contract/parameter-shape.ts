// What reading a parameter needs to know of its schema (OAS 3.0 or 3.1): whether the value is an array,
// an object or a scalar, and the JSON types its texts may be coerced to. Pure and browser-safe.

/** A JSON Schema type name. */
export type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "array" | "object";

/**
 * What parsing needs to know of a parameter's schema: whether the value is an array, an object or a
 * scalar, and the types a scalar text may be coerced to. An empty type list means "unconstrained": the
 * text stays a string. Derive it once per parameter with shapeOfSchema.
 */
export interface ValueShape {
  readonly kind: "primitive" | "array" | "object";
  /** The types of the value itself (for a primitive). */
  readonly types: readonly JsonType[];
  /** The types of an array's items. */
  readonly items: readonly JsonType[];
  /** The types of an object's named properties. */
  readonly properties: ReadonlyMap<string, readonly JsonType[]>;
  /** The types of other properties; false when the schema allows none (`additionalProperties: false`). */
  readonly additionalProperties: readonly JsonType[] | false;
}

type Types = ReadonlySet<JsonType> | "any";
const JSON_TYPES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "null", "array", "object"]);
const MAX_DEPTH = 32;

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOfValue(value: unknown): JsonType[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  switch (typeof value) {
    case "string":
      return ["string"];
    case "boolean":
      return ["boolean"];
    case "number":
    case "bigint":
      return ["number", "integer"];
    case "object":
      return ["object"];
    default:
      return [];
  }
}

function intersect(a: Types, b: Types): Types {
  if (a === "any") return b;
  if (b === "any") return a;
  const out = new Set<JsonType>();
  for (const t of a) {
    if (b.has(t)) out.add(t);
    else if (t === "integer" && b.has("number")) out.add("integer");
    else if (t === "number" && b.has("integer")) out.add("integer");
  }
  return out;
}

function union(list: readonly Types[]): Types {
  const out = new Set<JsonType>();
  for (const t of list) {
    if (t === "any") return "any";
    for (const x of t) out.add(x);
  }
  return out;
}

type Resolve = (ref: string) => unknown;

/** The JSON types a schema allows, through $ref, allOf, anyOf and oneOf; "any" when it does not say. */
function typesOf(schema: unknown, resolve: Resolve | undefined, depth: number): Types {
  if (!isRecord(schema) || depth > MAX_DEPTH) return "any";
  let result: Types = "any";
  const type = schema.type;
  if (typeof type === "string" || Array.isArray(type)) {
    const names = (Array.isArray(type) ? type : [type]).filter((t): t is JsonType => JSON_TYPES.has(String(t)));
    const set = new Set<JsonType>(names);
    if (schema.nullable === true) set.add("null"); // OAS 3.0
    result = set;
  } else if (Array.isArray(schema.enum)) {
    result = new Set(schema.enum.flatMap(typeOfValue));
  } else if ("const" in schema) {
    result = new Set(typeOfValue(schema.const));
  }
  if (typeof schema.$ref === "string" && resolve !== undefined) {
    result = intersect(result, typesOf(resolve(schema.$ref), resolve, depth + 1));
  }
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) result = intersect(result, typesOf(member, resolve, depth + 1));
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      result = intersect(result, union(branches.map((b) => typesOf(b, resolve, depth + 1))));
    }
  }
  return result;
}

interface Collected {
  readonly items: unknown[];
  readonly properties: Map<string, unknown[]>;
  readonly additional: unknown[];
  closed: boolean;
}

/** Gathers the item, property and additional-property schemas of a schema and its subschemas. */
function collect(schema: unknown, resolve: Resolve | undefined, depth: number, conjunctive: boolean, out: Collected) {
  if (!isRecord(schema) || depth > MAX_DEPTH) return;
  if (isRecord(schema.items) || typeof schema.items === "boolean") out.items.push(schema.items);
  if (Array.isArray(schema.prefixItems)) out.items.push(...schema.prefixItems);
  if (isRecord(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      const list = out.properties.get(name);
      if (list === undefined) out.properties.set(name, [sub]);
      else list.push(sub);
    }
  }
  if (isRecord(schema.additionalProperties)) out.additional.push(schema.additionalProperties);
  if (conjunctive && (schema.additionalProperties === false || schema.unevaluatedProperties === false)) {
    out.closed = true;
  }
  if (typeof schema.$ref === "string" && resolve !== undefined) {
    collect(resolve(schema.$ref), resolve, depth + 1, conjunctive, out);
  }
  if (Array.isArray(schema.allOf)) for (const m of schema.allOf) collect(m, resolve, depth + 1, conjunctive, out);
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const b of branches) collect(b, resolve, depth + 1, false, out);
  }
}

function typeList(types: Types): JsonType[] {
  return types === "any" ? [] : [...types];
}

/**
 * The shape of a parameter's schema (OAS 3.0 or 3.1: `type` as a string or a list with "null",
 * `nullable`, `enum`, `const`, `items`, `prefixItems`, `properties`, `additionalProperties`, and
 * `$ref`, `allOf`, `anyOf`, `oneOf` through them). `resolve` looks up a `$ref`; without it a reference
 * says nothing, and the texts behind it stay strings.
 */
export function shapeOfSchema(schema: unknown, resolve?: Resolve): ValueShape {
  const top = typesOf(schema, resolve, 0);
  const found: Collected = { items: [], properties: new Map(), additional: [], closed: false };
  collect(schema, resolve, 0, true, found);
  let kind: ValueShape["kind"];
  if (top !== "any") kind = top.has("array") ? "array" : top.has("object") ? "object" : "primitive";
  else if (found.items.length > 0) kind = "array";
  else if (found.properties.size > 0 || found.additional.length > 0 || found.closed) kind = "object";
  else kind = "primitive";
  const properties = new Map<string, readonly JsonType[]>();
  for (const [name, subs] of found.properties) {
    properties.set(name, typeList(union(subs.map((s) => typesOf(s, resolve, 1)))));
  }
  return {
    kind,
    types: typeList(top),
    items: found.items.length === 0 ? [] : typeList(union(found.items.map((s) => typesOf(s, resolve, 1)))),
    properties,
    additionalProperties: found.closed
      ? false
      : found.additional.length === 0
        ? []
        : typeList(union(found.additional.map((s) => typesOf(s, resolve, 1)))),
  };
}
