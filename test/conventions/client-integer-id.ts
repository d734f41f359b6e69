// A client-chosen integer id: the create's request carries the id (required, int64, not readOnly) and
// every answer echoes the stored item with it. The Plant Store's own shape once its list, read,
// replace and delete are shown (NewPlant.id), and Swagger's Petstore's (`POST /pet` with `Pet.id`).
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type JsonObject } from "./kit.js";

const plant = {
  type: "object",
  required: ["id", "name"],
  properties: { id: { type: "integer", format: "int64" }, name: { type: "string" }, tag: { type: "string" } },
};
const error = {
  type: "object",
  required: ["error", "message"],
  properties: { error: { type: "integer", format: "int32" }, message: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } };

const document = {
  openapi: "3.1.0",
  info: { title: "client integer id", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/plants": {
      post: {
        operationId: "createPlant",
        requestBody: { required: true, ...json(plant) },
        responses: {
          "201": { description: "created", ...json(plant) },
          "400": { description: "invalid", ...json(error) },
          "409": { description: "the id is taken", ...json(error) },
        },
      },
      get: {
        operationId: "listPlants",
        parameters: [{ name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 1000 } }],
        responses: { "200": { description: "plants", ...json({ type: "array", items: plant }) } },
      },
    },
    "/plants/{id}": {
      parameters: [idParam],
      get: {
        operationId: "getPlant",
        responses: {
          "200": { description: "the plant", ...json(plant) },
          "404": { description: "none", ...json(error) },
        },
      },
      put: {
        operationId: "replacePlant",
        requestBody: { required: true, ...json(plant) },
        responses: {
          "200": { description: "replaced", ...json(plant) },
          "400": { description: "invalid", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
      delete: {
        operationId: "deletePlant",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(error) } },
      },
    },
  },
};

/** The reference: a map of plants by the id the client sent, as the decimal digits of the integer. */
function reference() {
  const plants = new Map<string, JsonObject>();
  const bad = (status: number, message: string): Answer => ({ status, body: { error: status, message } });
  const valid = (b: unknown): b is JsonObject => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return false;
    const o = b as JsonObject;
    const known = Object.keys(o).every((k) => ["id", "name", "tag"].includes(k));
    const id = typeof o.id === "bigint" || Number.isInteger(o.id);
    return known && id && typeof o.name === "string" && (o.tag === undefined || typeof o.tag === "string");
  };
  const item = (b: JsonObject): JsonObject => ({
    id: b.id!,
    name: b.name!,
    ...(b.tag === undefined ? {} : { tag: b.tag }),
  });
  const handle = router({
    "POST /plants": ({ body }) => {
      if (!valid(body)) return bad(400, "invalid plant");
      const key = String(body.id);
      if (plants.has(key)) return bad(409, "the id is taken");
      plants.set(key, item(body));
      return { status: 201, body: plants.get(key) };
    },
    "GET /plants": ({ query }) => ({
      status: 200,
      body: [...plants.values()].slice(0, Number(query.get("limit") ?? 1000)),
    }),
    "GET /plants/{id}": ({ params }) => {
      const found = plants.get(BigInt(params.id!).toString());
      return found === undefined ? bad(404, "no such plant") : { status: 200, body: found };
    },
    "PUT /plants/{id}": ({ params, body }) => {
      const key = BigInt(params.id!).toString();
      if (!plants.has(key)) return bad(404, "no such plant");
      if (!valid(body) || String(body.id) !== key) return bad(400, "invalid plant");
      plants.set(key, item(body));
      return { status: 200, body: plants.get(key) };
    },
    "DELETE /plants/{id}": ({ params }) => {
      const key = BigInt(params.id!).toString();
      return plants.delete(key) ? { status: 204 } : bad(404, "no such plant");
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const BIG = 9007199254740993n; // 2^53 + 1: a float would read it as ...992

export const clientIntegerId: Convention = {
  name: "client-integer-id",
  family: "client-chosen integer id: Swagger Petstore (POST /pet with Pet.id), the Plant Store's NewPlant.id",
  sources: [
    "RFC 9110 sections 9.3.3 (POST), 9.3.4 (PUT), 9.3.5 (DELETE), 15.5.10 (409 Conflict)",
    "https://petstore3.swagger.io/ (addPet, getPetById, updatePet, deletePet: the id is the client's)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-keeps-client-id",
      says: "a create that sends its id is found at that id, with that id (the request declares the id)",
      async check(send, fresh) {
        const id = fresh();
        const made = await send("POST", "/plants", { id, name: "Fern" });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        expectThat(
          sameJson((made.json as JsonObject)?.id, id),
          `create answered id ${String((made.json as JsonObject)?.id)}, sent ${id}`,
        );
        const read = await send("GET", `/plants/${id}`);
        expectThat(read.status === 200, `GET /plants/${id} after its create answered ${read.status}`);
        expectThat(sameJson((read.json as JsonObject)?.name, "Fern"), `read back ${read.text}`);
      },
    },
    {
      id: "int64-beyond-2-53-exact",
      says: "an int64 id beyond 2^53 is kept to the last digit (format int64)",
      async check(send) {
        await send("DELETE", `/plants/${BIG}`);
        const made = await send("POST", "/plants", { id: BIG, name: "Big" });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        const read = await send("GET", `/plants/${BIG}`);
        expectThat(
          read.status === 200 && sameJson((read.json as JsonObject).id, BIG),
          `read ${read.status} ${read.text}`,
        );
      },
    },
    {
      id: "duplicate-id-409",
      says: "a second create with a stored id gets the documented 409 and leaves the stored item (RFC 9110 15.5.10)",
      async check(send, fresh) {
        const id = fresh();
        await send("POST", "/plants", { id, name: "First" });
        const again = await send("POST", "/plants", { id, name: "Second" });
        expectThat(again.status === 409, `the repeated create answered ${again.status}`);
        const read = await send("GET", `/plants/${id}`);
        expectThat(sameJson((read.json as JsonObject)?.name, "First"), `after the 409 the item reads ${read.text}`);
      },
    },
    {
      id: "replace-leaves-what-it-sent",
      says: "PUT replaces the whole item: an optional property it does not send is gone (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const id = fresh();
        await send("POST", "/plants", { id, name: "Fern", tag: "green" });
        const put = await send("PUT", `/plants/${id}`, { id, name: "Palm" });
        expectThat(put.status === 200, `PUT answered ${put.status}`);
        const read = await send("GET", `/plants/${id}`);
        expectThat(sameJson(read.json, { id, name: "Palm" }), `after the PUT the item reads ${read.text}`);
      },
    },
    {
      id: "unknown-id-404",
      says: "read, replace and delete of an id never created get 404 and create nothing (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const id = fresh();
        const put = await send("PUT", `/plants/${id}`, { id, name: "Ghost" });
        expectThat(put.status === 404, `PUT of an unknown id answered ${put.status}`);
        const del = await send("DELETE", `/plants/${id}`);
        expectThat(del.status === 404, `DELETE of an unknown id answered ${del.status}`);
        const read = await send("GET", `/plants/${id}`);
        expectThat(read.status === 404, `GET of an unknown id answered ${read.status}`);
      },
    },
    {
      id: "delete-frees-id",
      says: "after a delete the item reads 404, and the client may create its id again (RFC 9110 9.3.5)",
      async check(send, fresh) {
        const id = fresh();
        await send("POST", "/plants", { id, name: "Once" });
        const del = await send("DELETE", `/plants/${id}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/plants/${id}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("POST", "/plants", { id, name: "Twice" });
        expectThat(again.status === 201, `a create of the freed id answered ${again.status}`);
      },
    },
    {
      id: "list-holds-current-values",
      says: "the list holds each item made, once, with its current values",
      async check(send, fresh) {
        const id = fresh();
        await send("POST", "/plants", { id, name: "Listed" });
        await send("PUT", `/plants/${id}`, { id, name: "Renamed" });
        const list = await send("GET", "/plants?limit=1000");
        const items = Array.isArray(list.json) ? (list.json as JsonObject[]) : [];
        const mine = items.filter((p) => sameJson(p.id, id));
        expectThat(mine.length === 1 && sameJson(mine[0]!.name, "Renamed"), `the list holds ${JSON.stringify(mine)}`);
      },
    },
  ],
};
