// Request defaults: the create's schema gives a `default` for its optional properties, and the server
// stores what it assumed, so a create that omits them reads back the default values and one that
// sends them keeps what it sent. A replace that omits them is assumed to mean the defaults again.
// OpenAPI's Schema Object `default`; OData's create and PUT (rest-conventions.md sections 4 and 10).
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Json, type JsonObject } from "./kit.js";

const DEFAULTS = { done: false, priority: 3, labels: [] as string[] };
const labels = { type: "array", items: { type: "string" } };
const newTodo = {
  type: "object",
  required: ["title"],
  additionalProperties: false,
  properties: {
    title: { type: "string", minLength: 1 },
    done: { type: "boolean", default: false },
    priority: { type: "integer", minimum: 1, maximum: 5, default: 3 },
    labels: { ...labels, default: [] },
  },
};
const todo = {
  type: "object",
  required: ["id", "title", "done", "priority", "labels"],
  properties: {
    id: { type: "integer", format: "int64", readOnly: true },
    title: { type: "string" },
    done: { type: "boolean" },
    priority: { type: "integer", minimum: 1, maximum: 5 },
    labels,
  },
};
const error = {
  type: "object",
  required: ["code", "message"],
  properties: { code: { type: "integer" }, message: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } };

const document = {
  openapi: "3.1.0",
  info: { title: "request defaults", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/todos": {
      post: {
        operationId: "createTodo",
        requestBody: { required: true, ...json(newTodo) },
        responses: {
          "201": { description: "created, with the defaults of what it omitted", ...json(todo) },
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
        requestBody: { required: true, ...json(newTodo) },
        responses: {
          "200": { description: "replaced, with the defaults of what it omitted", ...json(todo) },
          "400": { description: "invalid", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
    },
  },
};

function reference() {
  const todos = new Map<string, JsonObject>();
  let next = 1;
  const bad = (status: number, message: string): Answer => ({ status, body: { code: status, message } });
  /** The stored todo for a request body: what it sent, the schema's defaults for what it did not. */
  const todoOf = (b: Json | undefined, id: number): JsonObject | undefined => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return undefined;
    const o = { ...DEFAULTS, ...(b as JsonObject) } as JsonObject;
    const ok =
      Object.keys(o).every((k) => ["title", "done", "priority", "labels"].includes(k)) &&
      typeof o.title === "string" &&
      o.title !== "" &&
      typeof o.done === "boolean" &&
      Number.isInteger(o.priority) &&
      (o.priority as number) >= 1 &&
      (o.priority as number) <= 5 &&
      Array.isArray(o.labels) &&
      o.labels.every((l) => typeof l === "string");
    return ok ? { id, title: o.title!, done: o.done!, priority: o.priority!, labels: o.labels! } : undefined;
  };
  const handle = router({
    "POST /todos": ({ body }) => {
      const made = todoOf(body, next);
      if (made === undefined) return bad(400, "invalid todo");
      todos.set(String(next++), made);
      return { status: 201, body: made };
    },
    "GET /todos": () => ({ status: 200, body: [...todos.values()] }),
    "GET /todos/{id}": ({ params }) => {
      const found = todos.get(params.id!);
      return found === undefined ? bad(404, "no such todo") : { status: 200, body: found };
    },
    "PUT /todos/{id}": ({ params, body }) => {
      const found = todos.get(params.id!);
      if (found === undefined) return bad(404, "no such todo");
      const replaced = todoOf(body, found.id as number);
      if (replaced === undefined) return bad(400, "invalid todo");
      todos.set(params.id!, replaced);
      return { status: 200, body: replaced };
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const fields = (v: Json | undefined): JsonObject => {
  const o = (typeof v === "object" && v !== null && !Array.isArray(v) ? v : {}) as JsonObject;
  return { title: o.title ?? null, done: o.done ?? null, priority: o.priority ?? null, labels: o.labels ?? null };
};

export const requestDefaults: Convention = {
  name: "request-defaults",
  family: "request schemas with `default` for optional properties (OData create, any API that documents defaults)",
  sources: [
    "OpenAPI 3.1.0 Schema Object and JSON Schema Validation 2020-12 section 9.2 (`default`: the value assumed when one is not provided)",
    "OData 4.01 Part 1 Protocol 11.4.2 (Create an Entity: omitted properties take their default) and 11.4.3 (Update an Entity: a PUT sets missing properties to their default values)",
    "/work/shared/notes/rest-conventions.md section 10 (request default values are stored, so GET shows them)",
    "RFC 9110 section 9.3.4 (PUT replaces the whole representation)",
  ],
  document,
  reference,
  promises: [
    {
      id: "omitted-take-defaults",
      says: "a create that omits done, priority and labels answers and reads back their defaults false, 3 and [] (Schema Object `default`; OData 11.4.2)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = await send("POST", "/todos", { title });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        const want = { title, ...DEFAULTS };
        expectThat(sameJson(fields(made.json), want), `the create answered ${made.text}`);
        const read = await send("GET", `/todos/${String((made.json as JsonObject)?.id)}`);
        expectThat(sameJson(fields(read.json), want), `read back ${read.status} ${read.text}`);
      },
    },
    {
      id: "sent-values-kept",
      says: "a create that sends the defaulted properties keeps the values it sent, not the defaults (Schema Object `default`)",
      async check(send, fresh) {
        const sent = { title: `t-${fresh()}`, done: true, priority: 1, labels: ["home"] };
        const made = await send("POST", "/todos", sent);
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        const read = await send("GET", `/todos/${String((made.json as JsonObject)?.id)}`);
        expectThat(sameJson(fields(read.json), sent), `sent ${JSON.stringify(sent)}, read back ${read.text}`);
      },
    },
    {
      id: "partly-sent-partly-default",
      says: "each omitted property takes its own default beside the sent ones (Schema Object `default`; OData 11.4.2)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = await send("POST", "/todos", { title, priority: 5 });
        const read = await send("GET", `/todos/${String((made.json as JsonObject)?.id)}`);
        expectThat(
          sameJson(fields(read.json), { title, done: false, priority: 5, labels: [] }),
          `sent {title, priority: 5}, read back ${read.text}`,
        );
      },
    },
    {
      id: "list-shows-defaults",
      says: "the list shows each created todo with the defaults it was given (rest-conventions.md section 10)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        await send("POST", "/todos", { title, labels: ["work"] });
        const list = await send("GET", "/todos");
        const mine = (Array.isArray(list.json) ? list.json : []).filter((t) => fields(t).title === title);
        expectThat(
          mine.length === 1 && sameJson(fields(mine[0]), { title, done: false, priority: 3, labels: ["work"] }),
          `the list holds ${JSON.stringify(mine)} for ${title}`,
        );
      },
    },
    {
      id: "replace-omitting-resets-default",
      says: "a PUT that omits a defaulted property sets it to its default, not to its old value (RFC 9110 9.3.4; OData 11.4.3)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = await send("POST", "/todos", { title, done: true, priority: 1, labels: ["x"] });
        const id = String((made.json as JsonObject)?.id);
        const put = await send("PUT", `/todos/${id}`, { title });
        expectThat(put.status === 200, `PUT answered ${put.status}: ${put.text}`);
        const read = await send("GET", `/todos/${id}`);
        expectThat(
          sameJson(fields(read.json), { title, ...DEFAULTS }),
          `after PUT {title} the todo reads ${read.text}`,
        );
      },
    },
  ],
};
