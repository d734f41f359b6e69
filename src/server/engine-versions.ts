// Version tokens an item carries for optimistic concurrency (Kubernetes' `metadata.resourceVersion`,
// AIP-154's `etag`): the mock gives each write a new one, and a replace or patch that sends an old one
// is refused as a conflict (409) where the operation documents 409, changing nothing. Portable. A
// field is a place in the item, read and written as an id's is (engine-values.ts valueAt, setValueAt).
import { followRefs, propertiesOf, propertySchemaAt, type Resolve } from "../contract/portable.js";

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
    const { properties } = propertiesOf(propertySchemaAt(itemSchema, within, resolve), resolve);
    const name = NAMES.find((n) => (followRefs(properties.get(n), resolve) as Json | undefined)?.type === "string");
    if (name !== undefined) return { within, name };
  }
  return undefined;
}
