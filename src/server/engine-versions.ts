// Version tokens an item carries for optimistic concurrency (Kubernetes' `metadata.resourceVersion`,
// AIP-154's `etag`): the mock gives each write a new one, and a replace or patch that sends an old one
// is refused as a conflict (409) where the operation documents 409, changing nothing. Portable.
import { followRefs, propertiesOf, unescapePointer, type Resolve } from "../contract/portable.js";

type Json = Record<string, unknown>;

/** Where an item's version token sits: the object holding it (`/metadata`, or "" for the top) and its name. */
export interface VersionField {
  readonly within: string;
  readonly name: string;
}

const NAMES = ["resourceVersion", "etag"];

/** The item's version field, at its top or in the object that holds its id (`metadata`); undefined where it has none. */
export function versionField(
  itemSchema: unknown,
  idWithin: string | undefined,
  resolve: Resolve,
): VersionField | undefined {
  for (const within of [...new Set([idWithin ?? "", ""])]) {
    let schema = itemSchema;
    for (const token of within.split("/").slice(1))
      schema = propertiesOf(followRefs(schema, resolve), resolve).properties.get(unescapePointer(token));
    const { properties } = propertiesOf(followRefs(schema, resolve), resolve);
    const name = NAMES.find((n) => (followRefs(properties.get(n), resolve) as Json | undefined)?.type === "string");
    if (name !== undefined) return { within, name };
  }
  return undefined;
}

/** An item's version token, or undefined. */
export function versionOf(item: unknown, field: VersionField): unknown {
  let here = item;
  for (const token of field.within.split("/").slice(1))
    here = typeof here === "object" && here !== null ? (here as Json)[unescapePointer(token)] : undefined;
  return typeof here === "object" && here !== null ? (here as Json)[field.name] : undefined;
}

/** Gives an item a new version token, copying the objects on the way. */
export function stamp(item: Json, field: VersionField, version: string): void {
  let here = item;
  for (const token of field.within.split("/").slice(1)) {
    const key = unescapePointer(token);
    const next = here[key];
    here[key] = typeof next === "object" && next !== null && !Array.isArray(next) ? { ...(next as Json) } : {};
    here = here[key] as Json;
  }
  here[field.name] = version;
}
