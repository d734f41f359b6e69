import { loadContract, type Contract } from "../src/contract/index.js";
import { DEFAULT_SPEC } from "../src/paths.js";
import type { ResourceStore } from "../src/server/engine-store.js";

let contract: Promise<Contract> | undefined;

/** The kit's contract, loaded once per test file. */
export function kitContract(): Promise<Contract> {
  contract ??= loadContract(DEFAULT_SPEC);
  return contract;
}

export const TOKEN = "test-token-7f3a9c";

export const jsonHeaders = (token: string | undefined = TOKEN): Record<string, string> => ({
  "content-type": "application/json",
  ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
});

/** Runs `fn` against a fresh reference server on port 0 (token TOKEN), and stops the server after. */
export async function withReference<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const { startReferenceServer } = await import("../src/server/index.js");
  const server = await startReferenceServer({ contract: await kitContract(), port: 0, tokens: [TOKEN] });
  try {
    return await fn(server.url);
  } finally {
    await server.close(100);
  }
}

/**
 * The plants a reference store holds, ordered by id: each `{ id, plant }`, the id in canonical
 * decimal (exact for every int64) and the plant as the store keeps it, without its id.
 */
export function plantsIn(store: ResourceStore): { id: string; plant: Record<string, unknown> }[] {
  return store
    .itemsOf("/plants")
    .map(([id, item]) => {
      const { id: _id, ...plant } = item as Record<string, unknown>;
      return { id, plant, n: BigInt(id) };
    })
    .sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0))
    .map(({ id, plant }) => ({ id, plant }));
}

/** One stored plant by its id, without the id; undefined when the store has none. */
export const storedPlant = (store: ResourceStore, id: string): Record<string, unknown> | undefined =>
  plantsIn(store).find((p) => p.id === id)?.plant;
