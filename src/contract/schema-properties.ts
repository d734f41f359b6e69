// The named properties of an object schema as a reader of the document sees them: through `$ref`s and
// `allOf` parts, the first declaration of a name winning. Pure and browser-safe.

import { unescapePointer } from "./json-pointer.js";

/** Follows a `$ref` of the document; undefined when it leads nowhere. */
export type Resolve = (ref: string) => unknown;

type Json = Record<string, unknown>;

/** How deep `$ref`s and `allOf`s are followed: a recursive schema stops there. */
const MAX_DEPTH = 16;

/** An object schema's named properties, what it requires, and which properties are readOnly or writeOnly. */
export interface ObjectProperties {
  /** By name, each property's schema as written (it may be a `$ref`). */
  readonly properties: ReadonlyMap<string, unknown>;
  readonly required: ReadonlySet<string>;
  readonly readOnly: ReadonlySet<string>;
  readonly writeOnly: ReadonlySet<string>;
  /** The schema or one of its `allOf` parts says `additionalProperties: false`: no other member is taken. */
  readonly closed: boolean;
}

/** The schema a node stands for, its top `$ref`s followed. */
export function followRefs(schema: unknown, resolve: Resolve): unknown {
  let node = schema;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const ref = typeof node === "object" && node !== null ? (node as Json).$ref : undefined;
    if (typeof ref !== "string") return node;
    node = resolve(ref);
  }
  return undefined;
}

/**
 * Found once per schema object and resolver: documents are not changed once loaded, and the mock
 * reads the same schemas on every request.
 */
const found = new WeakMap<Resolve, WeakMap<object, ObjectProperties>>();

/** The named properties of an object schema, through `$ref`s and `allOf`; empty for anything else. */
export function propertiesOf(schema: unknown, resolve: Resolve): ObjectProperties {
  if (typeof schema !== "object" || schema === null) return collectProperties(schema, resolve);
  let bySchema = found.get(resolve);
  if (bySchema === undefined) found.set(resolve, (bySchema = new WeakMap()));
  let result = bySchema.get(schema);
  if (result === undefined) bySchema.set(schema, (result = collectProperties(schema, resolve)));
  return result;
}

function collectProperties(schema: unknown, resolve: Resolve): ObjectProperties {
  const properties = new Map<string, unknown>();
  const required = new Set<string>();
  let closed = false;
  const collect = (s: unknown, depth: number): void => {
    if (typeof s !== "object" || s === null || depth > MAX_DEPTH) return;
    const o = s as Json;
    if (typeof o.$ref === "string") collect(resolve(o.$ref), depth + 1);
    for (const [k, v] of Object.entries((o.properties ?? {}) as Json)) if (!properties.has(k)) properties.set(k, v);
    if (Array.isArray(o.required)) for (const r of o.required) if (typeof r === "string") required.add(r);
    if (o.additionalProperties === false) closed = true;
    if (Array.isArray(o.allOf)) for (const part of o.allOf) collect(part, depth + 1);
  };
  collect(schema, 0);
  const flagged = (flag: "readOnly" | "writeOnly"): Set<string> =>
    new Set(
      [...properties].filter(([, p]) => (followRefs(p, resolve) as Json | undefined)?.[flag] === true).map(([k]) => k),
    );
  return { properties, required, readOnly: flagged("readOnly"), writeOnly: flagged("writeOnly"), closed };
}

/**
 * The schema of the property a JSON pointer names inside values of `schema` (`/metadata/name`),
 * through `$ref`s and `allOf`s at every step; "" names `schema` itself. Undefined where a step has
 * no such property.
 */
export function propertySchemaAt(schema: unknown, pointer: string, resolve: Resolve): unknown {
  let here = followRefs(schema, resolve);
  for (const token of pointer.split("/").slice(1))
    here = followRefs(propertiesOf(here, resolve).properties.get(unescapePointer(token)), resolve);
  return here;
}

/**
 * A schema with the keywords of its `allOf` parts laid under its own (`{"allOf": [{"$ref": uuid}],
 * "description": ...}` is a uuid): what a value must be is often in a part. An object's properties
 * are read by propertiesOf from the schema itself.
 */
export function withAllOfParts(schema: Json, resolve: Resolve, depth = 0): Json {
  if (!Array.isArray(schema.allOf) || depth > MAX_DEPTH) return schema;
  let out: Json = {};
  for (const part of schema.allOf) {
    const p = followRefs(part, resolve) as Json | undefined;
    if (typeof p === "object" && p !== null) out = { ...out, ...withAllOfParts(p, resolve, depth + 1) };
  }
  const { allOf: _parts, ...own } = schema;
  return { ...out, ...own };
}
