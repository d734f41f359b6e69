import type { Plant } from "../types.js";

export type InsertOutcome = "created" | "duplicate" | "full";

const SHARDS = 256;

/** FNV-1a over the id's characters, to spread ids over the shards. */
function shardOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SHARDS;
}

/**
 * The in-memory store, keyed by the plant's id in canonical decimal (exact for every int64).
 * The contract never returns the id (a Plant has none), so the id is kept only as the key.
 *
 * The plants are spread over 256 Maps: a Map grows by copying itself, and one Map of a million
 * entries pauses every request for milliseconds when it does; 256 small ones grow in small steps,
 * so the cost of a create stays flat as the store fills.
 */
export class PlantStore {
  readonly #shards: Map<string, Plant>[] = Array.from({ length: SHARDS }, () => new Map());
  #size = 0;
  readonly maxPlants: number;

  constructor(maxPlants: number) {
    this.maxPlants = maxPlants;
  }

  get size(): number {
    return this.#size;
  }

  /** Adds a plant unless its id exists already or the store is full; never overwrites. */
  insert(id: string, plant: Plant): InsertOutcome {
    const shard = this.#shards[shardOf(id)] as Map<string, Plant>;
    if (shard.has(id)) return "duplicate";
    if (this.#size >= this.maxPlants) return "full";
    shard.set(id, plant);
    this.#size++;
    return "created";
  }

  get(id: string): Plant | undefined {
    return this.#shards[shardOf(id)]?.get(id);
  }

  /** Every plant with its id, ordered by id (admin listing, tests). */
  entries(): { id: string; plant: Plant }[] {
    const all = this.#shards.flatMap((shard) => [...shard].map(([id, plant]) => ({ id, plant, n: BigInt(id) })));
    all.sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
    return all.map(({ id, plant }) => ({ id, plant }));
  }

  clear(): void {
    for (const shard of this.#shards) shard.clear();
    this.#size = 0;
  }
}
