import type { Plant } from "../types.js";

export type InsertOutcome = "created" | "duplicate" | "full";

/**
 * The in-memory store, keyed by the plant's id in canonical decimal (exact for every int64).
 * The contract never returns the id (a Plant has none), so the id is kept only as the key.
 */
export class PlantStore {
  readonly #plants = new Map<string, Plant>();
  readonly maxPlants: number;

  constructor(maxPlants: number) {
    this.maxPlants = maxPlants;
  }

  get size(): number {
    return this.#plants.size;
  }

  /** Adds a plant unless its id exists already or the store is full; never overwrites. */
  insert(id: string, plant: Plant): InsertOutcome {
    if (this.#plants.has(id)) return "duplicate";
    if (this.#plants.size >= this.maxPlants) return "full";
    this.#plants.set(id, plant);
    return "created";
  }

  get(id: string): Plant | undefined {
    return this.#plants.get(id);
  }

  /** Every plant with its id, in insertion order. */
  entries(): { id: string; plant: Plant }[] {
    return [...this.#plants].map(([id, plant]) => ({ id, plant }));
  }

  clear(): void {
    this.#plants.clear();
  }
}
