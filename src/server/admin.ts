import { readFileSync } from "node:fs";
import type { Contract } from "../contract/index.js";
import { canonicalInteger, describeViolation, parseJsonExact } from "../contract/index.js";
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
    return { status: 200, headers: { "content-type": "application/json" }, body: `{"count":${items.length},"plants":[${items.join(",")}]}` };
  }
  if (method === "DELETE") {
    const removed = store.size;
    store.clear();
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ removed }) };
  }
  return errorAnswer("PS_METHOD_NOT_ALLOWED", `${method} ${path} (allowed: GET, DELETE)`, { allow: "GET, DELETE" });
}

/**
 * Reads a JSON array of NewPlant objects to start the store with. Each is checked by the contract's
 * own request schema (ids exact); any problem names the file, the index and the field.
 */
export function loadSeedData(file: string, contract: Contract): { id: string; plant: Plant }[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--data ${file}: ${(error as Error).message}`);
  }
  const parsed = parseJsonExact(text);
  if (!parsed.ok) throw new KitError("PS_DATA_INVALID", `${file}: not valid JSON: ${parsed.message}`);
  if (!Array.isArray(parsed.value)) throw new KitError("PS_DATA_INVALID", `${file}: must be a JSON array of plants ({"id", "name", "tag"})`);
  const entry = contract.operation("createPlant")?.requestMediaType("application/json");
  if (entry === undefined) throw new KitError("PS_DATA_INVALID", `${file}: the spec has no createPlant operation taking application/json`);
  const seen = new Set<string>();
  return parsed.value.map((item: unknown, i) => {
    const violations = entry.validate(item);
    if (violations.length > 0) throw new KitError("PS_DATA_INVALID", `${file}: item ${i}: ${violations.map((v) => describeViolation({ ...v, location: v.location.replace(/^body/, `[${i}]`) })).join("; ")}`);
    const p = item as NewPlant;
    const id = canonicalInteger(p.id, parsed.exact.get(`/${i}/id`)) as string;
    if (seen.has(id)) throw new KitError("PS_DATA_INVALID", `${file}: item ${i}: id ${id} appears twice`);
    seen.add(id);
    return { id, plant: p.tag === undefined ? { name: p.name } : { name: p.name, tag: p.tag } };
  });
}
