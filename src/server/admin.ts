import type { Contract, ExactNumbers, RequestRefusal } from "../contract/portable.js";
import { canonicalInteger, checkRequestValue, describeViolation, parseJsonExact } from "../contract/portable.js";
import { KitError } from "../errors.js";
import type { NewPlant, Plant } from "../types.js";
import { errorAnswer, type WireResponse } from "./error-answers.js";
import type { PlantStore } from "./store.js";

/** The admin surface lives under this prefix, outside the contract's paths, and only with --admin. */
export const ADMIN_PREFIX = "/__admin/";

/**
 * What a frontend test suite needs between tests: `GET /__admin/plants` lists the store ordered by id
 * (ids as exact JSON integers), `DELETE /__admin/plants` empties it. The caller has been authenticated already.
 */
export function handleAdmin(store: PlantStore, method: string, path: string): WireResponse {
  if (path !== `${ADMIN_PREFIX}plants`) return errorAnswer("PS_NOT_FOUND", path);
  if (method === "GET") {
    // Ids are canonical decimal integers, so they are written as JSON numbers exactly, even beyond 2^53.
    const items = store.entries().map(({ id, plant }) => `{"id":${id},${JSON.stringify(plant).slice(1)}`);
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: `{"count":${items.length},"plants":[${items.join(",")}]}`,
    };
  }
  if (method === "DELETE") {
    const removed = store.size;
    store.clear();
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ removed }) };
  }
  return errorAnswer("PS_METHOD_NOT_ALLOWED", `${method} ${path} (allowed: GET, DELETE)`, { allow: "GET, DELETE" });
}

/** Seed items are NewPlant objects, the body of a create sent as JSON. */
const SEED_MEDIA_TYPE = "application/json";

/** One plant to start the store with: its id in canonical decimal and the Plant stored under it. */
export interface SeedPlant {
  readonly id: string;
  readonly plant: Plant;
}

/**
 * Checks seed data, a JSON array of NewPlant objects (as text, ids exact) or the array itself, by the
 * contract's own request schema; any problem names `source`, the index and the field. Pure: the
 * `--data FILE` reader (seed-file.ts) and the fetch handler's `data` option both come here.
 */
export function parseSeedData(input: string | readonly unknown[], contract: Contract, source: string): SeedPlant[] {
  let items: readonly unknown[];
  let exact: ExactNumbers | undefined;
  if (typeof input === "string") {
    const parsed = parseJsonExact(input);
    if (!parsed.ok) throw new KitError("PS_DATA_INVALID", `${source}: not valid JSON: ${parsed.message}`);
    if (!Array.isArray(parsed.value))
      throw new KitError("PS_DATA_INVALID", `${source}: must be a JSON array of plants ({"id", "name", "tag"})`);
    items = parsed.value;
    exact = parsed.exact;
  } else {
    if (!Array.isArray(input))
      throw new KitError("PS_DATA_INVALID", `${source}: must be an array of plants ({"id", "name", "tag"})`);
    items = input;
  }
  const operation = contract.operation("createPlant");
  if (operation?.requestMediaType(SEED_MEDIA_TYPE) === undefined) {
    throw new KitError("PS_DATA_INVALID", `${source}: the spec has no createPlant operation taking ${SEED_MEDIA_TYPE}`);
  }
  const seen = new Set<string>();
  return items.map((item: unknown, i) => {
    // Each item is judged as the body of a create would be (contract/acceptability.ts).
    const checked = checkRequestValue(operation, { contentType: SEED_MEDIA_TYPE, value: item });
    if (!checked.ok) throw new KitError("PS_DATA_INVALID", `${source}: item ${i}: ${itemProblem(checked, i)}`);
    const p = item as NewPlant;
    const id = canonicalInteger(p.id, exact?.get(`/${i}/id`)) as string;
    if (seen.has(id)) throw new KitError("PS_DATA_INVALID", `${source}: item ${i}: id ${id} appears twice`);
    seen.add(id);
    return { id, plant: p.tag === undefined ? { name: p.name } : { name: p.name, tag: p.tag } };
  });
}

/** What is wrong with a seed item, its violations located by index (`[3]/id`) rather than `body/id`. */
function itemProblem(refusal: RequestRefusal, index: number): string {
  if (refusal.reason !== "schema") return refusal.detail;
  const located = refusal.violations.map((v) => ({ ...v, location: v.location.replace(/^body/, `[${index}]`) }));
  return located.map(describeViolation).join("; ");
}

/** Puts checked seed plants in the store; more than it holds is an error naming the limit. */
export function seedStore(store: PlantStore, plants: readonly SeedPlant[], source: string, limit: string): void {
  for (const { id, plant } of plants) {
    if (store.insert(id, plant) === "full")
      throw new KitError("PS_DATA_INVALID", `${source}: more plants than ${limit} ${store.maxPlants}`);
  }
}
