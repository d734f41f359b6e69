// A server-assigned integer id: `id` is required and `readOnly: true` in the one schema used both ways,
// so a create's request does not carry it (OpenAPI 3.0.3: required applies to responses only) and the
// server picks it. Django REST Framework's ModelViewSet over an AutoField primary key (read-only in the
// serializer), Rails' resources scaffolding.
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, writeJson, type Answer, type Json, type JsonObject } from "./kit.js";

const todo = {
  type: "object",
  required: ["id", "title"],
  properties: {
    id: { type: "integer", format: "int64", minimum: 1, readOnly: true },
    title: { type: "string" },
    note: { type: "string" },
  },
};
const error = {
  type: "object",
  required: ["detail"],
  properties: { detail: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", format: "int64", minimum: 1 } };

const document = {
  openapi: "3.0.3",
  info: { title: "server readOnly integer id", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/todos": {
      post: {
        operationId: "createTodo",
        requestBody: { required: true, ...json(todo) },
        responses: {
          "201": { description: "created, with the id the server assigned", ...json(todo) },
          "400": { description: "invalid", ...json(error) },
        },
      },
      get: {
        operationId: "listTodos",
        responses: { "200": { description: "every todo", ...json({ type: "array", items: todo }) } },
      },
    },
    "/todos/{id}": {
      parameters: [idParam],
      get: {
        operationId: "getTodo",
        responses: {
          "200": { description: "the todo", ...json(todo) },
          "404": { description: "none", ...json(error) },
        },
      },
      put: {
        operationId: "replaceTodo",
        requestBody: { required: true, ...json(todo) },
        responses: {
          "200": { description: "replaced", ...json(todo) },
          "400": { description: "invalid", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
      delete: {
        operationId: "deleteTodo",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(error) } },
      },
    },
  },
};

/** The reference: todos by the id it assigned, counting up from 1; an id sent in a request is ignored. */
function reference() {
  const todos = new Map<number, JsonObject>();
  let last = 0;
  const bad = (status: number, detail: string): Answer => ({ status, body: { detail } });
  const valid = (b: unknown): b is JsonObject => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return false;
    const o = b as JsonObject;
    return typeof o.title === "string" && (o.note === undefined || typeof o.note === "string");
  };
  const item = (id: number, b: JsonObject): JsonObject => ({
    id,
    title: b.title!,
    ...(b.note === undefined ? {} : { note: b.note }),
  });
  const key = (raw: string): number => (/^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : 0);
  const handle = router({
    "POST /todos": ({ body }) => {
      if (!valid(body)) return bad(400, "invalid todo");
      const id = ++last;
      todos.set(id, item(id, body));
      return { status: 201, body: todos.get(id) };
    },
    "GET /todos": () => ({ status: 200, body: [...todos.values()] }),
    "GET /todos/{id}": ({ params }) => {
      const found = todos.get(key(params.id!));
      return found === undefined ? bad(404, "Not found.") : { status: 200, body: found };
    },
    "PUT /todos/{id}": ({ params, body }) => {
      const id = key(params.id!);
      if (!todos.has(id)) return bad(404, "Not found.");
      if (!valid(body)) return bad(400, "invalid todo");
      todos.set(id, item(id, body));
      return { status: 200, body: todos.get(id) };
    },
    "DELETE /todos/{id}": ({ params }) => (todos.delete(key(params.id!)) ? { status: 204 } : bad(404, "Not found.")),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const listed = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(obj) : []);
const isId = (v: Json | undefined): boolean =>
  (typeof v === "number" && Number.isInteger(v) && v >= 1) || (typeof v === "bigint" && v >= 1n);
/** An id no server counting up from 1 has reached: 4 * 10^12 past the fresh number. */
const unassigned = (fresh: () => number): number => 4_000_000_000_000 + fresh();

export const serverReadonlyIntegerId: Convention = {
  name: "server-readonly-integer-id",
  family:
    "server-assigned integer id, readOnly in the schema: Django REST Framework ModelViewSet (AutoField id, read-only), Rails resources",
  sources: [
    "OpenAPI 3.0.3 Schema Object, readOnly: sent only in responses; a required readOnly property is required in responses only",
    "RFC 9110 sections 9.3.3 (POST), 9.3.4 (PUT), 9.3.5 (DELETE), 15.3.2 (201 Created), 15.5.5 (404)",
    "https://www.django-rest-framework.org/api-guide/generic-views/ (CreateModelMixin 201, UpdateModelMixin PUT, DestroyModelMixin 204, 404 for a missing object)",
    "https://www.django-rest-framework.org/api-guide/serializers/#modelserializer (the auto id is read-only)",
    "https://www.django-rest-framework.org/api-guide/fields/#read_only (read-only fields included in the input are ignored)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-assigns-id",
      says: "a create that sends no id (readOnly: not sent in requests, OpenAPI 3.0.3) answers 201 with an integer id the server chose, and GET by that id returns the same item (RFC 9110 15.3.2)",
      async check(send, fresh) {
        const title = `Water the fern ${fresh()}`;
        const made = await send("POST", "/todos", { title, note: "twice a week" });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        const id = obj(made.json).id;
        expectThat(isId(id), `create answered id ${String(id)}: ${made.text}`);
        expectThat(sameJson(made.json, { id, title, note: "twice a week" }), `create answered ${made.text}`);
        const read = await send("GET", `/todos/${String(id)}`);
        expectThat(read.status === 200, `GET /todos/${String(id)} after its create answered ${read.status}`);
        expectThat(sameJson(read.json, made.json), `read back ${read.text}, created ${made.text}`);
      },
    },
    {
      id: "two-creates-two-ids-both-listed",
      says: "two creates get two different ids, and the list holds each of them once (a server-assigned key identifies one item)",
      async check(send, fresh) {
        const a = await send("POST", "/todos", { title: `A ${fresh()}` });
        const b = await send("POST", "/todos", { title: `B ${fresh()}` });
        expectThat(a.status === 201 && b.status === 201, `the creates answered ${a.status} and ${b.status}`);
        const ida = obj(a.json).id;
        const idb = obj(b.json).id;
        expectThat(
          isId(ida) && isId(idb) && !sameJson(ida, idb),
          `the creates answered ids ${writeJson(ida)} and ${writeJson(idb)}`,
        );
        const list = await send("GET", "/todos");
        const items = listed(list.json);
        for (const [id, made] of [
          [ida, a],
          [idb, b],
        ] as const) {
          const mine = items.filter((t) => sameJson(t.id, id));
          expectThat(mine.length === 1 && sameJson(mine[0], made.json), `the list holds ${writeJson(mine)}`);
        }
      },
    },
    {
      id: "readonly-id-in-input-ignored",
      says: "an id sent anyway in a create or a replace is ignored (DRF: read-only fields wrongly included in the input are ignored): the create gets the server's own id, the replace keeps the path's, and nothing appears at the id sent",
      async check(send, fresh) {
        const sent = unassigned(fresh);
        const made = await send("POST", "/todos", { id: sent, title: `Sent an id ${fresh()}` });
        expectThat(made.status === 201, `a create that sent an id answered ${made.status}: ${made.text}`);
        const id = obj(made.json).id;
        expectThat(isId(id) && !sameJson(id, sent), `the create that sent id ${sent} answered ${made.text}`);
        const other = unassigned(fresh);
        const put = await send("PUT", `/todos/${String(id)}`, { id: other, title: "Still here" });
        expectThat(put.status === 200, `a replace that sent another id answered ${put.status}: ${put.text}`);
        expectThat(sameJson(obj(put.json).id, id), `the replace that sent id ${other} answered ${put.text}`);
        for (const ghost of [sent, other]) {
          const read = await send("GET", `/todos/${ghost}`);
          expectThat(read.status === 404, `GET /todos/${ghost}, an id only sent, answered ${read.status}`);
        }
      },
    },
    {
      id: "replace-leaves-what-it-sent",
      says: "PUT by the assigned id replaces the whole item, keeping the id: an optional property it does not send is gone (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const made = await send("POST", "/todos", { title: `Old ${fresh()}`, note: "old note" });
        const id = obj(made.json).id;
        expectThat(made.status === 201 && isId(id), `create answered ${made.status}: ${made.text}`);
        const put = await send("PUT", `/todos/${String(id)}`, { title: "New" });
        expectThat(put.status === 200, `PUT answered ${put.status}`);
        const read = await send("GET", `/todos/${String(id)}`);
        expectThat(sameJson(read.json, { id, title: "New" }), `after the PUT the item reads ${read.text}`);
      },
    },
    {
      id: "unknown-id-404",
      says: "read, replace and delete of an id the server never assigned get 404 and create nothing (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const id = unassigned(fresh);
        const put = await send("PUT", `/todos/${id}`, { title: "Ghost" });
        expectThat(put.status === 404, `PUT of an unknown id answered ${put.status}`);
        const del = await send("DELETE", `/todos/${id}`);
        expectThat(del.status === 404, `DELETE of an unknown id answered ${del.status}`);
        const read = await send("GET", `/todos/${id}`);
        expectThat(read.status === 404, `GET of an unknown id answered ${read.status}`);
      },
    },
    {
      id: "delete-then-404",
      says: "DELETE by the assigned id answers 204; then read and a second delete get 404 (RFC 9110 9.3.5, 15.5.5)",
      async check(send, fresh) {
        const made = await send("POST", "/todos", { title: `Gone ${fresh()}` });
        const id = obj(made.json).id;
        expectThat(made.status === 201 && isId(id), `create answered ${made.status}: ${made.text}`);
        const del = await send("DELETE", `/todos/${String(id)}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/todos/${String(id)}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("DELETE", `/todos/${String(id)}`);
        expectThat(again.status === 404, `a second DELETE answered ${again.status}`);
      },
    },
    {
      id: "list-holds-current-values",
      says: "the list holds each item made, once, with its current values",
      async check(send, fresh) {
        const made = await send("POST", "/todos", { title: `Listed ${fresh()}` });
        const id = obj(made.json).id;
        expectThat(made.status === 201 && isId(id), `create answered ${made.status}: ${made.text}`);
        await send("PUT", `/todos/${String(id)}`, { title: "Renamed", note: "now" });
        const list = await send("GET", "/todos");
        const mine = listed(list.json).filter((t) => sameJson(t.id, id));
        expectThat(
          mine.length === 1 && sameJson(mine[0], { id, title: "Renamed", note: "now" }),
          `the list holds ${writeJson(mine)}`,
        );
      },
    },
  ],
};
