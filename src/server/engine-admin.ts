// The mock engine's admin surface, outside the contract's paths and only when asked for: what a
// frontend test suite needs between tests. `GET /__admin/<resource>` lists one resource's items
// (`{"count": 2, "plants": [...]}`, each item with its id first, ordered by id where every id is an
// integer, else in the order made); `DELETE` empties it. `/__admin/store` does the same for every
// collection of every resource. Every request needs a bearer token the mock accepts.

import type { ResourceModel } from "../contract/portable.js";
import type { AuthFailure } from "./auth.js";
import type { ResourceStore } from "./engine-store.js";
import { writeJson } from "../contract/portable.js";
import { errorAnswer, type WireResponse } from "./error-answers.js";

/** The admin surface lives under this prefix. */
export const ADMIN_PREFIX = "/__admin/";

type Json = Record<string, unknown>;

const json = (body: string): WireResponse => ({ status: 200, headers: { "content-type": "application/json" }, body });

export function adminAnswer(
  model: ResourceModel,
  store: ResourceStore,
  denied: AuthFailure | undefined,
  method: string,
  path: string,
): WireResponse {
  if (denied !== undefined)
    return errorAnswer("PS_UNAUTHORIZED", "the admin surface needs the bearer token too", {
      headers: { "www-authenticate": 'Bearer realm="plantstore"' },
    });
  const name = path.slice(ADMIN_PREFIX.length);
  const resource = name === "store" ? undefined : model.resources.find((r) => r.name === name);
  if (name !== "store" && resource === undefined) return errorAnswer("PS_NOT_FOUND", path);
  if (method === "GET") {
    if (resource === undefined) {
      const collections = store.entries().map((c) => {
        const idName = model.resources.find((r) => r.collectionPath === c.resource)?.id?.name;
        return { path: c.resource, parents: c.parents, items: c.items.map(([, item]) => idFirst(item, idName)) };
      });
      return json(writeJson({ count: store.size, collections }));
    }
    const items = byId(store.itemsOf(resource.collectionPath)).map(([, item]) => idFirst(item, resource.id?.name));
    return json(writeJson({ count: items.length, [resource.name]: items }));
  }
  if (method === "DELETE") {
    const removed = resource === undefined ? store.clear() : store.clearResource(resource.collectionPath);
    return json(JSON.stringify({ removed }));
  }
  return errorAnswer("PS_METHOD_NOT_ALLOWED", `${method} ${path} (allowed: GET, DELETE)`, {
    headers: { allow: "GET, DELETE" },
  });
}

/** An item with its id property first, where it has one. */
const idFirst = (item: unknown, idName: string | undefined): unknown =>
  idName !== undefined && typeof item === "object" && item !== null && idName in item
    ? { [idName]: (item as Json)[idName], ...(item as Json) }
    : item;

/** Items ordered by id where every id is an integer (`2` before `10`), else as they are. */
function byId(items: [string, unknown][]): [string, unknown][] {
  if (!items.every(([key]) => /^-?\d+$/.test(key))) return items;
  const n = new Map(items.map(([key]) => [key, BigInt(key)]));
  return [...items].sort(([a], [b]) => (n.get(a)! < n.get(b)! ? -1 : n.get(a)! > n.get(b)! ? 1 : 0));
}
