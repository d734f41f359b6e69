// OData 4.01 in its JSON format: an entity set `/Things` with items at `/Things/{ID}` (key-as-segment),
// collections as `{"value": [...], "@odata.nextLink": "..."}`, client paging by `$top`/`$skip`,
// server-driven paging (the `maxpagesize` preference) with an opaque next link absent on the last page,
// `$count=true` for `@odata.count`, PATCH that merges, DELETE 204 and `{"error": {code, message}}`.
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type Json, type JsonObject } from "./kit.js";

const thing = {
  type: "object",
  required: ["ID", "Name"],
  properties: {
    ID: { type: "integer", format: "int32", readOnly: true },
    Name: { type: "string" },
    Color: { type: ["string", "null"] },
  },
};
const thingPatch = {
  type: "object",
  properties: { Name: { type: "string" }, Color: { type: ["string", "null"] } },
};
const entity = { ...thing, properties: { "@odata.context": { type: "string" }, ...thing.properties } };
const collection = {
  type: "object",
  required: ["value"],
  properties: {
    "@odata.context": { type: "string" },
    "@odata.count": { type: "integer", minimum: 0 },
    value: { type: "array", items: thing },
    "@odata.nextLink": { type: "string" },
  },
};
const error = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" }, target: { type: "string" } },
    },
  },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const prefer = {
  name: "Prefer",
  in: "header",
  description: "`odata.maxpagesize=N` (or `maxpagesize=N`) asks for server-driven pages of at most N",
  schema: { type: "string" },
};

const document = {
  openapi: "3.1.0",
  info: { title: "OData 4.01 JSON", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/Things": {
      post: {
        operationId: "createThing",
        requestBody: { required: true, ...json(thing) },
        responses: {
          "201": {
            description: "created",
            headers: { Location: { required: true, schema: { type: "string" } } },
            ...json(entity),
          },
          "400": { description: "invalid", ...json(error) },
        },
      },
      get: {
        operationId: "listThings",
        parameters: [
          { name: "$top", in: "query", schema: { type: "integer", minimum: 0 } },
          { name: "$skip", in: "query", schema: { type: "integer", minimum: 0 } },
          { name: "$count", in: "query", schema: { type: "boolean" } },
          {
            name: "$skiptoken",
            in: "query",
            description: "opaque: only as a next link gives it",
            schema: { type: "string" },
          },
          prefer,
        ],
        responses: { "200": { description: "the things, or a page of them", ...json(collection) } },
      },
    },
    "/Things/{ID}": {
      parameters: [{ name: "ID", in: "path", required: true, schema: { type: "integer", format: "int32" } }],
      get: {
        operationId: "getThing",
        responses: {
          "200": { description: "the thing", ...json(entity) },
          "404": { description: "none", ...json(error) },
        },
      },
      patch: {
        operationId: "updateThing",
        requestBody: { required: true, ...json(thingPatch) },
        responses: {
          "200": { description: "updated (Prefer: return=representation)", ...json(entity) },
          "204": { description: "updated" },
          "400": { description: "invalid", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
      delete: {
        operationId: "deleteThing",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(error) } },
      },
    },
  },
};

/** The reference: things by ID in key order; pages of at most 50, or the `maxpagesize` preference. */
function reference() {
  const things = new Map<number, JsonObject>();
  let last = 0;
  const fail = (status: number, code: string, message: string): Answer => ({
    status,
    body: { error: { code, message } },
  });
  const missing = fail(404, "NotFound", "no Thing has this key");
  const isObject = (b: Json | undefined): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  const color = (c: Json | undefined) => c === undefined || c === null || typeof c === "string";
  const count = (v: string | null): number | undefined => (v !== null && /^\d+$/.test(v) ? Number(v) : undefined);
  const handle = router({
    "POST /Things": ({ body, headers }) => {
      if (!isObject(body) || typeof body.Name !== "string" || !color(body.Color))
        return fail(400, "BadRequest", "Name is required");
      const ID = ++last;
      // Create: omitted properties take their default, here null (Part 1, 11.4.2).
      things.set(ID, { ID, Name: body.Name, Color: body.Color ?? null });
      const location = `http://${headers.host}/Things/${ID}`;
      return {
        status: 201,
        headers: { location },
        body: { "@odata.context": "$metadata#Things/$entity", ...things.get(ID) },
      };
    },
    "GET /Things": ({ query, headers }) => {
      const all = [...things.values()];
      const token = /^(\d+)\.(\d*)$/.exec(query.get("$skiptoken") ?? "");
      const skip = token ? Number(token[1]) : (count(query.get("$skip")) ?? 0);
      const top = token ? (token[2] === "" ? undefined : Number(token[2])) : count(query.get("$top"));
      const end = Math.min(all.length, top === undefined ? Infinity : skip + top);
      const asked = /(?:^|[,;\s])(?:odata\.)?maxpagesize=(\d+)/.exec(headers.prefer ?? "");
      const size = Math.min(asked ? Math.max(Number(asked[1]), 1) : 50, 50);
      const value = all.slice(skip, Math.min(end, skip + size));
      const after = skip + value.length;
      const counted = query.get("$count") === "true";
      const next = new URLSearchParams({ $skiptoken: `${after}.${top === undefined ? "" : skip + top - after}` });
      if (counted) next.set("$count", "true");
      return {
        status: 200,
        headers: asked ? { "preference-applied": `odata.maxpagesize=${size}` } : undefined,
        body: {
          "@odata.context": "$metadata#Things",
          ...(counted ? { "@odata.count": all.length } : {}),
          value,
          ...(after < end ? { "@odata.nextLink": `http://${headers.host}/Things?${next}` } : {}),
        },
      };
    },
    "GET /Things/{ID}": ({ params }) => {
      const found = things.get(Number(params.ID));
      return found === undefined
        ? missing
        : { status: 200, body: { "@odata.context": "$metadata#Things/$entity", ...found } };
    },
    "PATCH /Things/{ID}": ({ params, body }) => {
      const found = things.get(Number(params.ID));
      if (found === undefined) return missing;
      if (!isObject(body) || (body.Name !== undefined && typeof body.Name !== "string") || !color(body.Color))
        return fail(400, "BadRequest", "Name is a string, Color a string or null");
      // PATCH merges: properties absent from the request keep their values; the key never changes.
      const { ID: _key, ...sent } = body;
      things.set(found.ID as number, { ...found, ...sent });
      return { status: 204 };
    },
    "DELETE /Things/{ID}": ({ params }) => (things.delete(Number(params.ID)) ? { status: 204 } : missing),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const object = (v: unknown): JsonObject | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;
const pathOf = (href: string): string => href.replace(/^https?:\/\/[^/]+/, "");

/** Creates a thing; answers its entity as created, or breaks the promise. */
async function create(send: Client, Name: string, Color?: string): Promise<JsonObject> {
  const made = await send("POST", "/Things", { Name, ...(Color === undefined ? {} : { Color }) });
  const entity = object(made.json);
  expectThat(made.status === 201 && entity?.ID !== undefined, `create answered ${made.status}: ${made.text}`);
  return entity;
}

interface Page {
  readonly body: JsonObject;
  readonly items: JsonObject[];
}

/** Follows `@odata.nextLink` from `first` to the page without one; at most 100 pages. */
async function walk(send: Client, first: string, headers: Record<string, string> = {}): Promise<Page[]> {
  const pages: Page[] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    if (pages.length === 100) throw new Broken(`@odata.nextLink still leads on after 100 pages (${url})`);
    const res = await send("GET", url, undefined, headers);
    const body = object(res.json);
    expectThat(res.status === 200 && Array.isArray(body?.value), `GET ${url} answered ${res.status}: ${res.text}`);
    pages.push({ body, items: (body.value as Json[]).map((i) => object(i) ?? {}) });
    const next = body["@odata.nextLink"];
    expectThat(next === undefined || typeof next === "string", `@odata.nextLink of ${url} is ${JSON.stringify(next)}`);
    url = next;
  }
  return pages;
}

/** Makes three things named with a fresh marker, the second renamed; answers their IDs and names now. */
async function three(send: Client, fresh: () => number): Promise<{ ids: Json[]; names: string[] }> {
  const marker = `walk-${fresh()}`;
  const ids: Json[] = [];
  for (let k = 0; k < 3; k++) ids.push((await create(send, `${marker}-${k}`)).ID!);
  await send("PATCH", `/Things/${String(ids[1])}`, { Name: `${marker}-renamed` });
  return { ids, names: [`${marker}-0`, `${marker}-renamed`, `${marker}-2`] };
}

/** Each of `ids` is seen exactly once, with its name now. */
function eachOnce(seen: JsonObject[], ids: Json[], names: string[]): void {
  ids.forEach((id, k) => {
    const mine = seen.filter((t) => sameJson(t.ID, id));
    expectThat(mine.length === 1 && mine[0]!.Name === names[k], `ID ${String(id)} was seen as ${JSON.stringify(mine)}`);
  });
}

const PAGED = { prefer: "odata.maxpagesize=2" };

export const odata: Convention = {
  name: "odata",
  family: "OData 4.01 JSON: value[] with @odata.nextLink, $top/$skip/$count, maxpagesize, key-as-segment /Things/{ID}",
  sources: [
    "OData 4.01 Part 1: Protocol, 11.4.2 Create an Entity (201, Location), 11.4.3 Update an Entity (PATCH merges), 11.4.5 Delete an Entity (204)",
    "OData 4.01 Part 1: Protocol, 11.2.2 Requesting Individual Entities (404 when no entity has the key)",
    "OData 4.01 Part 1: Protocol, 11.2.6.3 $top, 11.2.6.4 $skip (a stable order across requests), 11.2.6.5 $count, 11.2.6.7 Server-Driven Paging (the final partial set has no next link); 8.2.8 Prefer maxpagesize",
    "OData 4.01 JSON Format: Collection of Entities (value, nextLink, count); Error Response ({error: {code, message}})",
    "OData 4.01 Part 2: URL Conventions, 4.3.6 Key-as-Segment",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-201-location-read-back",
      says: "a create answers 201 with the entity and its key, and a Location where GET answers that entity (Part 1, 11.4.2 Create an Entity)",
      async check(send, fresh) {
        const Name = `Thing ${fresh()}`;
        const made = await send("POST", "/Things", { Name, Color: "red" });
        const entity = object(made.json);
        expectThat(made.status === 201 && entity?.ID !== undefined, `create answered ${made.status}: ${made.text}`);
        expectThat(entity.Name === Name && entity.Color === "red", `create answered ${made.text}`);
        const location = made.headers.get("location");
        expectThat(location !== null, "the 201 has no Location");
        const read = await send("GET", pathOf(location));
        const got = object(read.json);
        expectThat(
          read.status === 200 && sameJson(got?.ID, entity.ID) && got?.Name === Name && got.Color === "red",
          `GET ${location}: ${read.status} ${read.text}`,
        );
      },
    },
    {
      id: "patch-merges",
      says: "a PATCH sending only Name changes it and keeps Color; 200 or 204 (Part 1, 11.4.3 Update an Entity: PATCH merges)",
      async check(send, fresh) {
        const made = await create(send, `Old ${fresh()}`, "blue");
        const Name = `New ${fresh()}`;
        const patch = await send("PATCH", `/Things/${String(made.ID)}`, { Name });
        expectThat(patch.status === 200 || patch.status === 204, `PATCH answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/Things/${String(made.ID)}`);
        const got = object(read.json);
        expectThat(got?.Name === Name && got.Color === "blue", `after the PATCH the thing reads ${read.text}`);
      },
    },
    {
      id: "top-skip-windows-each-once",
      says: "windows of $top=2 at $skip=0,2,4,... (each followed through any next link) until one is empty visit each thing made exactly once, with current values (Part 1, 11.2.6.3 $top, 11.2.6.4 $skip: a stable order)",
      async check(send, fresh) {
        const { ids, names } = await three(send, fresh);
        const seen: JsonObject[] = [];
        for (let skip = 0; ; skip += 2) {
          if (skip > 400) throw new Broken("$skip windows still hold things after $skip=400");
          const window = (await walk(send, `/Things?$top=2&$skip=${skip}`)).flatMap((p) => p.items);
          expectThat(window.length <= 2, `$top=2&$skip=${skip} answered ${window.length} things`);
          if (window.length === 0) break;
          seen.push(...window);
        }
        eachOnce(seen, ids, names);
      },
    },
    {
      id: "next-link-walk-each-once",
      says: "following @odata.nextLink (Prefer: odata.maxpagesize=2) from /Things visits each thing made exactly once, with current values (Part 1, 11.2.6.7 Server-Driven Paging)",
      async check(send, fresh) {
        const { ids, names } = await three(send, fresh);
        eachOnce(
          (await walk(send, "/Things", PAGED)).flatMap((p) => p.items),
          ids,
          names,
        );
      },
    },
    {
      id: "last-page-no-next-link-count",
      says: "with $count=true the walk by @odata.nextLink ends at a page without one, and @odata.count is the number of things the walk saw (Part 1, 11.2.6.5 $count, 11.2.6.7: the final partial set has no next link)",
      async check(send, fresh) {
        for (let k = 0; k < 3; k++) await create(send, `count-${fresh()}`);
        const pages = await walk(send, "/Things?$count=true", PAGED);
        const seen = pages.reduce((n, p) => n + p.items.length, 0);
        const counted = pages[0]!.body["@odata.count"];
        expectThat(sameJson(counted, seen), `@odata.count ${String(counted)}, the walk saw ${seen}`);
        expectThat(seen >= 3, `the walk saw ${seen} things, 3 were just made`);
      },
    },
    {
      id: "delete-204-then-404",
      says: "DELETE answers 204; then GET of the key answers 404 with {error: {code, message}} (Part 1, 11.4.5, 11.2.2; JSON Format, Error Response)",
      async check(send, fresh) {
        const made = await create(send, `Gone ${fresh()}`);
        const del = await send("DELETE", `/Things/${String(made.ID)}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/Things/${String(made.ID)}`);
        const err = object(object(read.json)?.error);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        expectThat(typeof err?.code === "string" && typeof err.message === "string", `the 404 said ${read.text}`);
      },
    },
  ],
};
