// The mock engine's store: each resource's items, by collection (a nested collection per parent id)
// and by id, in the order they were made. In memory; one store per engine.
import { Collection } from "./collection.js";

export type { Collection };

/**
 * One change of the store, as a journal keeps it (`--save`'s journal: save-file.ts): an item put
 * (made or replaced; `next` is the server's id counter then), one taken out, or a resource or the
 * whole store emptied. `collection` names the collection: `["plants"]`, `["plants","7"]` as JSON.
 */
export type StoreChange =
  | {
      readonly op: "put";
      readonly collection: string;
      readonly id: string;
      readonly item: unknown;
      readonly next: string;
    }
  | { readonly op: "delete"; readonly collection: string; readonly id: string }
  | { readonly op: "clear"; readonly resource?: string };

export class ResourceStore {
  readonly #collections = new Map<string, Collection>();
  /** Each resource's collections, whatever their parents: a shallow item path searches only these. */
  readonly #byResource = new Map<string, Collection[]>();
  /** The key of each top collection (no parents), made once. */
  readonly #topKeys = new Map<string, string>();
  #size = 0;
  #next = 0n;
  #version = 0;
  readonly maxItems: number;
  /** Told of every change as it is made, before the answer that follows it (a journal writes it). */
  onChange: ((change: StoreChange) => void) | undefined;

  constructor(maxItems: number) {
    this.maxItems = maxItems;
  }

  /** Counts the changes: a saver writes the store when it moved. */
  get version(): number {
    return this.#version;
  }

  /** Every item of every collection. */
  get size(): number {
    return this.#size;
  }

  /** The collection of a resource under its parents' ids (`plants` of garden 7), made when first written. */
  collection(resource: string, parents: readonly string[]): Collection {
    return this.#collectionAt(this.#keyOf(resource, parents), resource);
  }

  /** The key a collection is journalled under, and its collection by that key. */
  #keys = new WeakMap<Collection, string>();

  #collectionAt(key: string, resource: string): Collection {
    let c = this.#collections.get(key);
    if (c === undefined) {
      c = new Collection();
      this.#collections.set(key, c);
      this.#keys.set(c, key);
      this.#byResource.set(resource, [...(this.#byResource.get(resource) ?? []), c]);
    }
    return c;
  }

  #put(c: Collection, id: string, item: unknown): void {
    this.onChange?.({ op: "put", collection: this.#keys.get(c) ?? "", id, item, next: this.#next.toString() });
  }

  /** The collection, where one was made; a read never makes one (nothing grows from read traffic). */
  existing(resource: string, parents: readonly string[]): Collection | undefined {
    return this.#collections.get(this.#keyOf(resource, parents));
  }

  #keyOf(resource: string, parents: readonly string[]): string {
    let key = parents.length === 0 ? this.#topKeys.get(resource) : undefined;
    if (key === undefined) {
      key = JSON.stringify([resource, ...parents]);
      if (parents.length === 0) this.#topKeys.set(resource, key);
    }
    return key;
  }

  /** The collection of a resource, under whichever parents, that holds an id (a shallow item path names no parent). */
  holding(resource: string, id: string): Collection | undefined {
    return (this.#byResource.get(resource) ?? []).find((c) => c.has(id));
  }

  /** A number no earlier call gave, for server-made ids: 1, 2, 3... */
  nextNumber(): bigint {
    this.#next += 1n;
    return this.#next;
  }

  /** Adds an item unless its id exists already or the store is full; never overwrites. */
  insert(c: Collection, id: string, item: unknown): "created" | "duplicate" | "full" {
    if (this.#size >= this.maxItems) return c.has(id) ? "duplicate" : "full";
    if (!c.add(id, item)) return "duplicate";
    this.#size++;
    this.#version++;
    this.#put(c, id, item);
    return "created";
  }

  /** Replaces an existing item, keeping its place in the order. */
  replace(c: Collection, id: string, item: unknown): boolean {
    if (!c.has(id)) return false;
    c.set(id, item);
    this.#version++;
    this.#put(c, id, item);
    return true;
  }

  remove(c: Collection, id: string): boolean {
    if (!c.delete(id)) return false;
    this.#size--;
    this.#version++;
    this.onChange?.({ op: "delete", collection: this.#keys.get(c) ?? "", id });
    return true;
  }

  /** Every collection with its items, for the admin listing. */
  entries(): { resource: string; parents: string[]; items: [string, unknown][] }[] {
    return [...this.#collections].map(([key, c]) => {
      const [resource, ...parents] = JSON.parse(key) as string[];
      return { resource: resource!, parents, items: [...c.entries()] };
    });
  }

  /** Every item of one resource, under every parent, in the order made. */
  itemsOf(resource: string): [string, unknown][] {
    return this.entries()
      .filter((c) => c.resource === resource)
      .flatMap((c) => c.items);
  }

  /** Empties the store; how many items it held. */
  clear(): number {
    const removed = this.#size;
    this.#collections.clear();
    this.#byResource.clear();
    this.#size = 0;
    this.#version++;
    this.onChange?.({ op: "clear" });
    return removed;
  }

  /** Empties one resource's collections, under every parent; how many items they held. */
  clearResource(resource: string): number {
    let removed = 0;
    for (const [key, c] of this.#collections)
      if ((JSON.parse(key) as string[])[0] === resource) {
        removed += c.size;
        this.#collections.delete(key);
      }
    this.#byResource.delete(resource);
    this.#size -= removed;
    this.#version++;
    this.onChange?.({ op: "clear", resource });
    return removed;
  }

  /** Makes a change a journal kept, as it was made (no onChange); false for one that is not a change. */
  apply(change: unknown): boolean {
    const c = change as Partial<Record<string, unknown>>;
    if (typeof c !== "object" || c === null) return false;
    if (c.op === "clear") {
      const told = this.onChange;
      this.onChange = undefined;
      if (typeof c.resource === "string") this.clearResource(c.resource);
      else this.clear();
      this.onChange = told;
      return true;
    }
    if (typeof c.collection !== "string" || typeof c.id !== "string") return false;
    let resource: unknown;
    try {
      resource = (JSON.parse(c.collection) as unknown[])[0];
    } catch {
      return false;
    }
    if (typeof resource !== "string") return false;
    const collection = this.#collectionAt(c.collection, resource);
    if (c.op === "delete") {
      if (collection.delete(c.id)) this.#size--;
    } else if (c.op === "put" && typeof c.next === "string" && /^\d+$/.test(c.next)) {
      if (!collection.has(c.id)) this.#size++;
      collection.set(c.id, c.item);
      const next = BigInt(c.next);
      if (next > this.#next) this.#next = next;
    } else return false;
    this.#version++;
    return true;
  }

  /** The store as a value to write (the caller writes it exactly: ids beyond 2^53 are bigints). */
  snapshot(): {
    version: 1;
    next: string;
    collections: { resource: string; parents: string[]; items: [string, unknown][] }[];
  } {
    return { version: 1, next: this.#next.toString(), collections: this.entries() };
  }

  /** Puts back what snapshot() gave; false, with nothing changed, when the value is not one. */
  restore(value: unknown): boolean {
    const v = value as { version?: unknown; next?: unknown; collections?: unknown };
    if (typeof v !== "object" || v === null || v.version !== 1 || !Array.isArray(v.collections)) return false;
    const next = typeof v.next === "string" && /^\d+$/.test(v.next) ? BigInt(v.next) : undefined;
    const all = v.collections as { resource?: unknown; parents?: unknown; items?: unknown }[];
    const valid = all.every(
      (c) =>
        typeof c?.resource === "string" &&
        Array.isArray(c.parents) &&
        c.parents.every((p) => typeof p === "string") &&
        Array.isArray(c.items) &&
        c.items.every((i) => Array.isArray(i) && i.length === 2 && typeof i[0] === "string"),
    );
    if (next === undefined || !valid) return false;
    const told = this.onChange;
    this.onChange = undefined;
    this.clear();
    this.onChange = told;
    for (const c of all) {
      const collection = this.collection(c.resource as string, c.parents as string[]);
      // A key given twice (a file edited by hand) keeps the last item, counted once.
      for (const [key, item] of c.items as [string, unknown][])
        if (collection.add(key, item)) this.#size++;
        else collection.set(key, item);
    }
    this.#next = next;
    return true;
  }
}
