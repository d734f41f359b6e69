// Seed data for the mock engine (`--data FILE`, the fetch handler's `data`): the items a store starts
// with, each created as a client's create would be, judged by the contract. Pure and browser-safe.

import type { Contract, RequestRefusal, Resource, ResourceModel } from "../contract/portable.js";
import { checkRequest, describeViolation, parseJsonExact } from "../contract/portable.js";
import { KitError } from "../errors.js";
import type { ResourceStore } from "./engine-store.js";
import { exactTree, writeJson } from "../contract/portable.js";
import { valueAt, keyOf } from "./engine-values.js";
import type { WireResponse } from "./error-answers.js";

type Json = Record<string, unknown>;

/** Sends one create (a POST, or an upsert's PUT), with no credentials needed: seed data is the user's own. */
export type TrustedCreate = (
  method: "POST" | "PUT",
  path: string,
  body: Uint8Array,
  contentType: string,
) => WireResponse;

const encoder = new TextEncoder();

/**
 * Seed data is a JSON object whose keys are collection paths as a client would send them (`/plants`,
 * `/gardens/7/plants`) and whose values are arrays of create bodies; where the contract has one
 * collection at the top, a JSON array of its create bodies will do. The first item refused names the
 * source, the path, the index and the reason; `limit` names the setting a full store hits. How many
 * items were made.
 */
export function seedItems(
  contract: Contract,
  model: ResourceModel,
  store: ResourceStore,
  create: TrustedCreate,
  input: { readonly text: string; readonly source: string; readonly limit: string },
): number {
  const { source } = input;
  const parsed = parseJsonExact(input.text);
  if (!parsed.ok) throw new KitError("PS_DATA_INVALID", `${source}: not valid JSON: ${parsed.message}`);
  const data = exactTree(parsed.value, parsed.exact);
  const top = model.resources.filter((r) => r.operations.create !== undefined && r.parentParameters.length === 0);
  const only = top.length === 1 ? top[0]! : undefined;
  const shape = only === undefined ? "" : `a JSON array of ${only.name}, or `;
  const collections: [string, unknown][] | undefined = Array.isArray(data)
    ? only === undefined
      ? undefined
      : [[only.collectionPath, data]]
    : typeof data === "object" && data !== null && Object.keys(data).every((k) => k.startsWith("/"))
      ? Object.entries(data as Json)
      : undefined;
  if (collections === undefined)
    throw new KitError("PS_DATA_INVALID", `${source}: must be ${shape}an object of collection paths, each an array`);
  let made = 0;
  for (const [path, items] of collections) {
    if (!Array.isArray(items)) throw new KitError("PS_DATA_INVALID", `${source}: ${path} must be an array of items`);
    const upserted = upsertOf(model, path);
    const target = contract.route("POST", path);
    const role = target.kind === "found" ? model.roleOf(target.operation) : undefined;
    if (upserted === undefined && (target.kind !== "found" || role?.role !== "create"))
      throw new KitError("PS_DATA_INVALID", `${source}: ${path} is not a collection this contract creates items in`);
    for (const [i, item] of items.entries()) {
      const at = `${source}: ${Array.isArray(data) ? "" : `${path} `}item ${i}`;
      // An upsert's item is put at its id (the property the model reads it from): `/settings/theme`.
      const key = upserted?.id === undefined ? undefined : keyOf(valueAt(item, upserted.id));
      if (upserted !== undefined && key === undefined)
        throw new KitError("PS_DATA_INVALID", `${at}: has no ${upserted.id?.name ?? "id"} to be put at`);
      const url = key === undefined ? path : `${path.replace(/\/$/, "")}/${encodeURIComponent(key)}`;
      const method = upserted === undefined ? "POST" : "PUT";
      const found = contract.route(method, url);
      if (found.kind !== "found") throw new KitError("PS_DATA_INVALID", `${at}: ${method} ${url} is not served`);
      const body = encoder.encode(writeJson(item));
      // Sent as the create documents it: JSON:API's `application/vnd.api+json`, else JSON.
      const types = [...(found.operation.requestBody?.content.keys() ?? [])];
      const type = types.find((t) => /json/i.test(t) && !t.includes("*")) ?? "application/json";
      const headers = { "content-type": type };
      const checked = checkRequest(found.operation, { headers, body, path: url, query: "" });
      if (!checked.ok) throw new KitError("PS_DATA_INVALID", `${at}: ${itemProblem(checked, i)}`);
      const resource = upserted ?? role!.resource;
      const items = model.resources.length === 1 ? resource.name : "items";
      if (store.size >= store.maxItems)
        throw new KitError("PS_DATA_INVALID", `${source}: more ${items} than ${input.limit} ${store.maxItems}`);
      const answer = create(method, url, body, type);
      const id = resource.id;
      if (answer.status === 409 && id !== undefined)
        throw new KitError("PS_DATA_INVALID", `${at}: ${id.name} ${keyOf(valueAt(item, id))} appears twice`);
      if (answer.status >= 300)
        throw new KitError("PS_DATA_INVALID", `${at}: ${answer.status} ${answer.body.slice(0, 300)}`);
      made++;
    }
  }
  return made;
}

/**
 * The resource a path is the collection of where items are made only by an upsert (a PUT at the
 * item's id that documents 201): `/settings` of `PUT /settings/{key}`.
 */
function upsertOf(model: ResourceModel, path: string): Resource | undefined {
  for (const r of model.resources) {
    const replace = r.operations.replace;
    if (!r.upsert || replace === undefined || r.id === undefined) continue;
    if (replace.matchPath(`${path.replace(/\/$/, "")}/x`) !== undefined) return r;
  }
  return undefined;
}

/** What is wrong with a seed item, its violations located by index (`[3]/id`) rather than `body/id`. */
function itemProblem(refusal: RequestRefusal, index: number): string {
  if (refusal.reason !== "schema") return refusal.detail;
  const located = refusal.violations.map((v) => ({ ...v, location: v.location.replace(/^body/, `[${index}]`) }));
  return located.map(describeViolation).join("; ");
}
