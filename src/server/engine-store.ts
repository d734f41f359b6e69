// The mock engine's store: each resource's items, by collection (a nested collection per parent id)
// and by id, in the order they were made. In memory; one store per engine.

/** One collection: its items by id key, in insertion order (a Map keeps it). */
export type Collection = Map<string, unknown>;

export class ResourceStore {
  readonly #collections = new Map<string, Collection>();
  #size = 0;
  #next = 0n;
  readonly maxItems: number;

  constructor(maxItems: number) {
    this.maxItems = maxItems;
  }

  /** Every item of every collection. */
  get size(): number {
    return this.#size;
  }

  /** The collection of a resource under its parents' ids (`plants` of garden 7). */
  collection(resource: string, parents: readonly string[]): Collection {
    const key = JSON.stringify([resource, ...parents]);
    let c = this.#collections.get(key);
    if (c === undefined) {
      c = new Map();
      this.#collections.set(key, c);
    }
    return c;
  }

  /** A number no earlier call gave, for server-made ids: 1, 2, 3... */
  nextNumber(): bigint {
    this.#next += 1n;
    return this.#next;
  }

  /** Adds an item unless its id exists already or the store is full; never overwrites. */
  insert(c: Collection, id: string, item: unknown): "created" | "duplicate" | "full" {
    if (c.has(id)) return "duplicate";
    if (this.#size >= this.maxItems) return "full";
    c.set(id, item);
    this.#size++;
    return "created";
  }

  /** Replaces an existing item, keeping its place in the order. */
  replace(c: Collection, id: string, item: unknown): boolean {
    if (!c.has(id)) return false;
    c.set(id, item);
    return true;
  }

  remove(c: Collection, id: string): boolean {
    if (!c.delete(id)) return false;
    this.#size--;
    return true;
  }

  /** Every collection with its items, for the admin listing. */
  entries(): { resource: string; parents: string[]; items: [string, unknown][] }[] {
    return [...this.#collections].map(([key, c]) => {
      const [resource, ...parents] = JSON.parse(key) as string[];
      return { resource: resource!, parents, items: [...c] };
    });
  }

  clear(): void {
    this.#collections.clear();
    this.#size = 0;
  }
}
