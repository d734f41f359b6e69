// Nested resources: plants live under a garden, `/gardens/{gardenId}/plants/{plantId}`. The path is a
// hierarchy (RFC 3986 3.3): a plant is created, listed and read only under its own garden, a create
// under a garden that does not exist is the documented 404 and makes nothing, and under another garden
// the plant is not found.
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type JsonObject } from "./kit.js";

const garden = {
  type: "object",
  required: ["id", "name"],
  properties: { id: { type: "string", readOnly: true }, name: { type: "string" } },
};
const plant = {
  type: "object",
  required: ["id", "gardenId", "name"],
  properties: {
    id: { type: "string", readOnly: true },
    gardenId: { type: "string", readOnly: true, description: "the garden in whose path the plant was created" },
    name: { type: "string" },
    tag: { type: "string" },
  },
};
const error = {
  type: "object",
  required: ["message"],
  properties: { message: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const fail = (description: string) => ({ description, ...json(error) });
const gardenParam = { name: "gardenId", in: "path", required: true, schema: { type: "string" } };
const plantParam = { name: "plantId", in: "path", required: true, schema: { type: "string" } };

const document = {
  openapi: "3.1.0",
  info: { title: "nested plants under gardens", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/gardens": {
      post: {
        operationId: "createGarden",
        requestBody: { required: true, ...json(garden) },
        responses: { "201": { description: "created", ...json(garden) }, "400": fail("invalid") },
      },
    },
    "/gardens/{gardenId}": {
      parameters: [gardenParam],
      get: {
        operationId: "getGarden",
        responses: { "200": { description: "the garden", ...json(garden) }, "404": fail("no such garden") },
      },
    },
    "/gardens/{gardenId}/plants": {
      parameters: [gardenParam],
      post: {
        operationId: "createPlant",
        requestBody: { required: true, ...json(plant) },
        responses: {
          "201": { description: "created in this garden", ...json(plant) },
          "400": fail("invalid"),
          "404": fail("no such garden: nothing is created"),
        },
      },
      get: {
        operationId: "listPlants",
        responses: {
          "200": { description: "this garden's plants", ...json({ type: "array", items: plant }) },
          "404": fail("no such garden"),
        },
      },
    },
    "/gardens/{gardenId}/plants/{plantId}": {
      parameters: [gardenParam, plantParam],
      get: {
        operationId: "getPlant",
        responses: {
          "200": { description: "the plant", ...json(plant) },
          "404": fail("no such garden, or no such plant in it"),
        },
      },
      delete: {
        operationId: "deletePlant",
        responses: { "204": { description: "deleted" }, "404": fail("no such garden, or no such plant in it") },
      },
    },
  },
};

/** The reference: gardens by id, plants by id with the garden they were made under. */
function reference() {
  const gardens = new Map<string, JsonObject>();
  const plants = new Map<string, JsonObject>();
  let next = 0;
  const bad = (status: number, message: string): Answer => ({ status, body: { message } });
  const isObject = (b: unknown): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  const inGarden = (gardenId: string, plantId: string): JsonObject | undefined => {
    const p = plants.get(plantId);
    return p !== undefined && p.gardenId === gardenId ? p : undefined;
  };
  const handle = router({
    "POST /gardens": ({ body }) => {
      if (!isObject(body) || typeof body.name !== "string") return bad(400, "invalid garden");
      const id = `g${++next}`;
      gardens.set(id, { id, name: body.name });
      return { status: 201, body: gardens.get(id) };
    },
    "GET /gardens/{gardenId}": ({ params }) => {
      const g = gardens.get(params.gardenId!);
      return g === undefined ? bad(404, "no such garden") : { status: 200, body: g };
    },
    "POST /gardens/{gardenId}/plants": ({ params, body }) => {
      const gardenId = params.gardenId!;
      if (!gardens.has(gardenId)) return bad(404, "no such garden");
      if (!isObject(body) || typeof body.name !== "string" || (body.tag !== undefined && typeof body.tag !== "string"))
        return bad(400, "invalid plant");
      const id = `p${++next}`;
      plants.set(id, { id, gardenId, name: body.name, ...(body.tag === undefined ? {} : { tag: body.tag }) });
      return { status: 201, body: plants.get(id) };
    },
    "GET /gardens/{gardenId}/plants": ({ params }) => {
      if (!gardens.has(params.gardenId!)) return bad(404, "no such garden");
      return { status: 200, body: [...plants.values()].filter((p) => p.gardenId === params.gardenId) };
    },
    "GET /gardens/{gardenId}/plants/{plantId}": ({ params }) => {
      const p = inGarden(params.gardenId!, params.plantId!);
      return p === undefined ? bad(404, "no such plant in this garden") : { status: 200, body: p };
    },
    "DELETE /gardens/{gardenId}/plants/{plantId}": ({ params }) => {
      if (inGarden(params.gardenId!, params.plantId!) === undefined) return bad(404, "no such plant in this garden");
      plants.delete(params.plantId!);
      return { status: 204 };
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : ({} as JsonObject);

/** Makes a garden; its id. */
async function gardenMade(send: Client, name: string): Promise<string> {
  const made = await send("POST", "/gardens", { name });
  expectThat(made.status === 201, `POST /gardens answered ${made.status}: ${made.text}`);
  const id = obj(made.json).id;
  expectThat(typeof id === "string" && id !== "", `POST /gardens answered ${made.text}`);
  return id;
}

/** Makes a plant under a garden; its id. */
async function plantMade(send: Client, gardenId: string, name: string): Promise<string> {
  const made = await send("POST", `/gardens/${gardenId}/plants`, { name });
  expectThat(made.status === 201, `POST /gardens/${gardenId}/plants answered ${made.status}: ${made.text}`);
  const id = obj(made.json).id;
  expectThat(typeof id === "string" && id !== "", `the create answered ${made.text}`);
  return id;
}

/** The plant ids a garden's list holds. */
async function listed(send: Client, gardenId: string): Promise<unknown[]> {
  const list = await send("GET", `/gardens/${gardenId}/plants`);
  expectThat(list.status === 200 && Array.isArray(list.json), `GET /gardens/${gardenId}/plants: ${list.status}`);
  return (list.json as unknown[]).map((p) => obj(p).id);
}

export const nestedParentExists: Convention = {
  name: "nested-parent-exists",
  family: "nested resources (Rails nested routes, GitHub's /repos/{owner}/{repo}/issues): the parent must exist",
  sources: [
    "RFC 3986 section 3.3 (the path names a hierarchy)",
    "RFC 9110 sections 9.3.3 (POST), 9.3.5 (DELETE), 15.5.5 (404 Not Found)",
    "https://guides.rubyonrails.org/routing.html#nested-resources (a child is reached through its parent)",
    "the document: 404 on createPlant, listPlants and getPlant for an unknown garden",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-read-under-garden",
      says: "a plant made under a garden answers 201 and is read under that garden (RFC 9110 9.3.3)",
      async check(send, fresh) {
        const g = await gardenMade(send, `Garden ${fresh()}`);
        const name = `Fern ${fresh()}`;
        const p = await plantMade(send, g, name);
        const read = await send("GET", `/gardens/${g}/plants/${p}`);
        expectThat(read.status === 200, `GET /gardens/${g}/plants/${p} answered ${read.status}`);
        expectThat(sameJson(obj(read.json).name, name), `read back ${read.text}`);
      },
    },
    {
      id: "unknown-garden-404-creates-nothing",
      says:
        "a create under a garden that does not exist answers the documented 404, and makes neither the garden " +
        "nor a list under it (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const g = `no-garden-${fresh()}`;
        const made = await send("POST", `/gardens/${g}/plants`, { name: "Orphan" });
        expectThat(made.status === 404, `a create under an unknown garden answered ${made.status}: ${made.text}`);
        const garden = await send("GET", `/gardens/${g}`);
        expectThat(garden.status === 404, `after it, GET /gardens/${g} answered ${garden.status}: ${garden.text}`);
        const list = await send("GET", `/gardens/${g}/plants`);
        expectThat(list.status === 404, `after it, the unknown garden's list answered ${list.status}: ${list.text}`);
      },
    },
    {
      id: "lists-only-under-own-garden",
      says: "a garden's list holds the plants made under it and none made under another garden (RFC 3986 3.3)",
      async check(send, fresh) {
        const a = await gardenMade(send, `A ${fresh()}`);
        const b = await gardenMade(send, `B ${fresh()}`);
        const pa = await plantMade(send, a, "in A");
        const pb = await plantMade(send, b, "in B");
        const la = await listed(send, a);
        const lb = await listed(send, b);
        expectThat(la.filter((id) => id === pa).length === 1 && !la.includes(pb), `A's list holds ${la.join(" ")}`);
        expectThat(lb.filter((id) => id === pb).length === 1 && !lb.includes(pa), `B's list holds ${lb.join(" ")}`);
      },
    },
    {
      id: "other-garden-item-404",
      says:
        "under another garden a plant is not found: GET and DELETE there are 404, and it stays under its own " +
        "garden (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const a = await gardenMade(send, `A ${fresh()}`);
        const b = await gardenMade(send, `B ${fresh()}`);
        const pa = await plantMade(send, a, "only in A");
        const read = await send("GET", `/gardens/${b}/plants/${pa}`);
        expectThat(read.status === 404, `GET under the other garden answered ${read.status}: ${read.text}`);
        const del = await send("DELETE", `/gardens/${b}/plants/${pa}`);
        expectThat(del.status === 404, `DELETE under the other garden answered ${del.status}`);
        const still = await send("GET", `/gardens/${a}/plants/${pa}`);
        expectThat(still.status === 200, `after them, GET under its own garden answered ${still.status}`);
      },
    },
    {
      id: "delete-under-garden",
      says: "DELETE under its garden answers 204; then the plant reads 404 and the garden's list no longer holds it (RFC 9110 9.3.5)",
      async check(send, fresh) {
        const g = await gardenMade(send, `Garden ${fresh()}`);
        const p = await plantMade(send, g, "Short-lived");
        const keep = await plantMade(send, g, "Stays");
        const del = await send("DELETE", `/gardens/${g}/plants/${p}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}: ${del.text}`);
        const read = await send("GET", `/gardens/${g}/plants/${p}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const ids = await listed(send, g);
        expectThat(!ids.includes(p) && ids.includes(keep), `after DELETE the garden's list holds ${ids.join(" ")}`);
      },
    },
  ],
};
