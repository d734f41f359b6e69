// Stripe's REST shape: ids the server makes with a type prefix (`cus_`), an `object` field naming the
// type, create and update answering 200, update as a POST to the item that leaves unsent parameters,
// delete answering a `deleted: true` stub, and lists `{object: "list", data, has_more, url}` walked by
// `starting_after`. Bodies are JSON here (Stripe takes form encoding; the semantics are the same).
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type Json, type JsonObject } from "./kit.js";

const metadata = { type: "object", additionalProperties: { type: "string" } };
const customer = {
  type: "object",
  required: ["id", "object", "created"],
  properties: {
    id: { type: "string", readOnly: true, pattern: "^cus_[A-Za-z0-9]+$" },
    object: { type: "string", readOnly: true, enum: ["customer"] },
    created: { type: "integer", format: "int64", readOnly: true, description: "Unix seconds" },
    name: { type: "string", nullable: true },
    email: { type: "string", nullable: true },
    description: { type: "string", nullable: true },
    metadata,
  },
};
const params = {
  type: "object",
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    email: { type: "string" },
    description: { type: "string" },
    metadata: { type: "object", additionalProperties: { type: "string" }, description: 'a key sent as "" is unset' },
  },
};
const deleted = {
  type: "object",
  required: ["id", "object", "deleted"],
  properties: {
    id: { type: "string", pattern: "^cus_[A-Za-z0-9]+$" },
    object: { type: "string", enum: ["customer"] },
    deleted: { type: "boolean", enum: [true] },
  },
};
const list = {
  type: "object",
  required: ["object", "data", "has_more", "url"],
  properties: {
    object: { type: "string", enum: ["list"] },
    data: { type: "array", items: customer },
    has_more: { type: "boolean" },
    url: { type: "string" },
  },
};
const error = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["type", "message"],
      properties: {
        type: { type: "string" },
        code: { type: "string" },
        message: { type: "string" },
        param: { type: "string" },
      },
    },
  },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const fail = (description: string) => ({ description, ...json(error) });

const document = {
  openapi: "3.0.3",
  info: { title: "stripe-style customers", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/v1/customers": {
      post: {
        operationId: "PostCustomers",
        requestBody: { required: false, ...json(params) },
        responses: { "200": { description: "the customer", ...json(customer) }, "400": fail("invalid_request_error") },
      },
      get: {
        operationId: "GetCustomers",
        parameters: [
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 10 } },
          { name: "starting_after", in: "query", schema: { type: "string" } },
          { name: "ending_before", in: "query", schema: { type: "string" } },
          { name: "email", in: "query", description: "only customers with this email", schema: { type: "string" } },
        ],
        responses: {
          "200": { description: "customers, newest first", ...json(list) },
          "400": fail("invalid_request_error"),
        },
      },
    },
    "/v1/customers/{customer}": {
      parameters: [{ name: "customer", in: "path", required: true, schema: { type: "string" } }],
      get: {
        operationId: "GetCustomersCustomer",
        responses: {
          "200": { description: "the customer, or the stub of a deleted one", ...json({ anyOf: [customer, deleted] }) },
          "404": fail("resource_missing"),
        },
      },
      post: {
        operationId: "PostCustomersCustomer",
        requestBody: { required: false, ...json(params) },
        responses: {
          "200": { description: "the updated customer", ...json(customer) },
          "400": fail("invalid_request_error"),
          "404": fail("resource_missing"),
        },
      },
      delete: {
        operationId: "DeleteCustomersCustomer",
        responses: { "200": { description: "the deleted stub", ...json(deleted) }, "404": fail("resource_missing") },
      },
    },
  },
};

const FIELDS = ["name", "email", "description"] as const;

/** The reference: customers by id, each with its creation sequence (newest first in lists). */
function reference() {
  const customers = new Map<string, { seq: number; c: JsonObject }>();
  let seq = 0;
  const bad = (status: number, message: string, code?: string): Answer => ({
    status,
    body: { error: { type: "invalid_request_error", message, ...(code === undefined ? {} : { code }) } },
  });
  const missing = (id: string) => bad(404, `No such customer: '${id}'`, "resource_missing");
  const isObject = (b: unknown): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  /** Applies parameters to a customer; a message when they are invalid. */
  const apply = (c: JsonObject, body: Json | undefined): string | undefined => {
    const b = body ?? {};
    if (!isObject(b)) return "the body is not an object";
    for (const k of Object.keys(b)) if (![...FIELDS, "metadata"].includes(k)) return `unknown parameter ${k}`;
    for (const f of FIELDS) {
      const v = b[f];
      if (v === undefined) continue;
      if (typeof v !== "string") return `${f} is not a string`;
      c[f] = v === "" ? null : v;
    }
    const m = b.metadata;
    if (m === undefined) return undefined;
    if (m === "") return ((c.metadata = {}), undefined);
    if (!isObject(m) || Object.values(m).some((v) => typeof v !== "string")) return "metadata";
    const kept = { ...(c.metadata as JsonObject) };
    for (const [k, v] of Object.entries(m))
      if (v === "") delete kept[k];
      else kept[k] = v;
    c.metadata = kept;
    return undefined;
  };
  const handle = router({
    "POST /v1/customers": ({ body }) => {
      let id: string;
      do id = `cus_${(++seq).toString(36)}${Math.random().toString(36).slice(2, 10)}`;
      while (customers.has(id));
      const c: JsonObject = {
        id,
        object: "customer",
        created: Math.floor(Date.now() / 1000),
        name: null,
        email: null,
        description: null,
        metadata: {},
      };
      const why = apply(c, body);
      if (why !== undefined) return bad(400, why);
      customers.set(id, { seq, c });
      return { status: 200, body: c };
    },
    "GET /v1/customers": ({ query }) => {
      const limit = Number(query.get("limit") ?? "10");
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return bad(400, "limit", "parameter_invalid_integer");
      const after = query.get("starting_after");
      const before = query.get("ending_before");
      if (after !== null && before !== null) return bad(400, "starting_after and ending_before together");
      const email = query.get("email");
      const cursor = after ?? before;
      const at = cursor === null ? undefined : customers.get(cursor)?.seq;
      if (cursor !== null && at === undefined) return missing(cursor);
      const all = [...customers.values()]
        .filter((x) => email === null || x.c.email === email)
        .sort((a, b) => b.seq - a.seq);
      let data: typeof all;
      let more: boolean;
      if (before !== null) {
        const newer = all.filter((x) => x.seq > at!);
        data = newer.slice(-limit);
        more = newer.length > limit;
      } else {
        const older = after === null ? all : all.filter((x) => x.seq < at!);
        data = older.slice(0, limit);
        more = older.length > limit;
      }
      return {
        status: 200,
        body: { object: "list", data: data.map((x) => x.c), has_more: more, url: "/v1/customers" },
      };
    },
    "GET /v1/customers/{customer}": ({ params }) => {
      const found = customers.get(params.customer!);
      return found === undefined ? missing(params.customer!) : { status: 200, body: found.c };
    },
    "POST /v1/customers/{customer}": ({ params, body }) => {
      const found = customers.get(params.customer!);
      if (found === undefined) return missing(params.customer!);
      const next = { ...found.c };
      const why = apply(next, body);
      if (why !== undefined) return bad(400, why);
      found.c = next;
      return { status: 200, body: next };
    },
    "DELETE /v1/customers/{customer}": ({ params }) => {
      const id = params.customer!;
      if (!customers.delete(id)) return missing(id);
      return { status: 200, body: { id, object: "customer", deleted: true } };
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : ({} as JsonObject);

/** Creates a customer; its answer's body, after checking the 200. */
async function create(send: Client, params: JsonObject): Promise<JsonObject> {
  const made = await send("POST", "/v1/customers", params);
  expectThat(made.status === 200, `create answered ${made.status}: ${made.text}`);
  return obj(made.json);
}

/** Walks the list filtered by email, `limit` a page, by starting_after = the page's last id. */
async function walk(send: Client, email: string, limit: number): Promise<JsonObject[]> {
  const seen: JsonObject[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const query = `limit=${limit}&email=${encodeURIComponent(email)}${after === undefined ? "" : `&starting_after=${after}`}`;
    const page = await send("GET", `/v1/customers?${query}`);
    expectThat(page.status === 200, `GET /v1/customers?${query} answered ${page.status}: ${page.text}`);
    const body = obj(page.json);
    const data = body.data;
    expectThat(Array.isArray(data), `the list has no data array: ${page.text}`);
    expectThat(data.length <= limit, `limit=${limit} answered ${data.length} customers`);
    expectThat(typeof body.has_more === "boolean", `has_more is ${JSON.stringify(body.has_more)}`);
    seen.push(...data.map(obj));
    if (body.has_more === false) return seen;
    expectThat(data.length > 0, "an empty page says has_more: true");
    after = String(obj(data.at(-1)).id);
  }
  throw new Broken("200 pages and has_more still true");
}

export const stripe: Convention = {
  name: "stripe",
  family: "Stripe: prefixed server ids, object field, POST to update, deleted stubs, cursor lists",
  sources: [
    "https://docs.stripe.com/api/customers/create (Returns: the Customer object; HTTP 200)",
    "https://docs.stripe.com/api/customers/update (any parameters not provided are left unchanged)",
    "https://docs.stripe.com/api/metadata (metadata keys merge; a key posted empty is unset)",
    "https://docs.stripe.com/api/customers/delete and /retrieve (deleted: true stub)",
    "https://docs.stripe.com/api/customers/list (newest first; email filter)",
    "https://docs.stripe.com/api/pagination (object list, data, has_more, url; limit, starting_after)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-200-prefixed-id",
      says: "a create answers 200 (not 201) with an id prefixed cus_ and object customer; GET by that id returns it",
      async check(send, fresh) {
        const name = `Ada ${fresh()}`;
        const made = await send("POST", "/v1/customers", { name });
        expectThat(made.status === 200, `create answered ${made.status}: ${made.text}`);
        const c = obj(made.json);
        expectThat(typeof c.id === "string" && c.id.startsWith("cus_"), `create answered id ${String(c.id)}`);
        expectThat(c.object === "customer", `create answered object ${String(c.object)}`);
        const read = await send("GET", `/v1/customers/${c.id}`);
        expectThat(read.status === 200, `GET /v1/customers/${c.id} answered ${read.status}`);
        const r = obj(read.json);
        expectThat(r.id === c.id && r.name === name && r.object === "customer", `read back ${read.text}`);
      },
    },
    {
      id: "update-keeps-unsent",
      says: "POST /v1/customers/{id} changes what it sends; parameters not provided are left unchanged (update)",
      async check(send, fresh) {
        const email = `keep-${fresh()}@example.com`;
        const c = await create(send, { name: "Ada", email, description: "old" });
        const upd = await send("POST", `/v1/customers/${c.id}`, { description: "new" });
        expectThat(upd.status === 200, `update answered ${upd.status}: ${upd.text}`);
        const r = obj((await send("GET", `/v1/customers/${c.id}`)).json);
        expectThat(
          r.name === "Ada" && r.email === email && r.description === "new",
          `after the update the customer reads ${JSON.stringify(r)}`,
        );
      },
    },
    {
      id: "update-merges-metadata",
      says: 'metadata sent on update merges by key: new keys added, a key sent as "" unset, others kept (metadata)',
      async check(send) {
        const c = await create(send, { name: "Meta", metadata: { a: "1", b: "2" } });
        const upd = await send("POST", `/v1/customers/${c.id}`, { metadata: { b: "", c: "3" } });
        expectThat(upd.status === 200, `update answered ${upd.status}: ${upd.text}`);
        const r = obj((await send("GET", `/v1/customers/${c.id}`)).json);
        expectThat(sameJson(r.metadata, { a: "1", c: "3" }), `after the update metadata reads ${JSON.stringify(r)}`);
      },
    },
    {
      id: "delete-answers-deleted-stub",
      says:
        "DELETE answers 200 {id, object: customer, deleted: true}; then GET is 404 (or the deleted stub, as " +
        "retrieve documents), never the live customer, and the list no longer holds it (delete, retrieve)",
      async check(send, fresh) {
        const email = `gone-${fresh()}@example.com`;
        const c = await create(send, { name: "Gone", email });
        const del = await send("DELETE", `/v1/customers/${c.id}`);
        expectThat(
          del.status === 200 && sameJson(del.json, { id: c.id!, object: "customer", deleted: true }),
          `DELETE answered ${del.status}: ${del.text}`,
        );
        const read = await send("GET", `/v1/customers/${c.id}`);
        expectThat(
          read.status === 404 || (read.status === 200 && obj(read.json).deleted === true),
          `GET after DELETE answered ${read.status}: ${read.text}`,
        );
        const listed = obj((await send("GET", `/v1/customers?limit=100&email=${encodeURIComponent(email)}`)).json);
        const data = Array.isArray(listed.data) ? listed.data.map(obj) : [];
        expectThat(!data.some((x) => x.id === c.id), `the list still holds ${String(c.id)}`);
      },
    },
    {
      id: "list-envelope",
      says: "a list answers {object: list, data (at most limit), has_more (boolean), url /v1/customers} (pagination)",
      async check(send) {
        await create(send, { name: "One" });
        await create(send, { name: "Two" });
        const list = await send("GET", "/v1/customers?limit=1");
        expectThat(list.status === 200, `GET /v1/customers answered ${list.status}`);
        const b = obj(list.json);
        expectThat(b.object === "list", `object is ${JSON.stringify(b.object)}`);
        expectThat(Array.isArray(b.data) && b.data.length === 1, `limit=1 answered data ${JSON.stringify(b.data)}`);
        expectThat(b.has_more === true, `two customers or more, limit=1: has_more is ${JSON.stringify(b.has_more)}`);
        expectThat(typeof b.url === "string" && b.url.startsWith("/v1/customers"), `url is ${JSON.stringify(b.url)}`);
      },
    },
    {
      id: "list-newest-first",
      says: "customers list sorted by creation, the most recent first (customers list)",
      async check(send, fresh) {
        const email = `order-${fresh()}@example.com`;
        const ids: Json[] = [];
        for (const name of ["first", "second", "third"]) ids.push((await create(send, { name, email })).id!);
        const list = await send("GET", `/v1/customers?limit=100&email=${encodeURIComponent(email)}`);
        const data = Array.isArray(obj(list.json).data) ? (obj(list.json).data as Json[]).map(obj) : [];
        const mine = data.map((x) => x.id).filter((id) => ids.includes(id!));
        expectThat(sameJson(mine, [...ids].reverse()), `the list orders them ${JSON.stringify(mine)}, made ${ids}`);
      },
    },
    {
      id: "starting-after-walk-once",
      says:
        "walking with starting_after = the last id of each page visits every customer once, pages hold at most " +
        "limit, and has_more is false on the last page (pagination)",
      async check(send, fresh) {
        const email = `walk-${fresh()}@example.com`;
        const ids: string[] = [];
        for (let k = 0; k < 5; k++) ids.push(String((await create(send, { name: `w${k}`, email })).id));
        await send("POST", `/v1/customers/${ids[1]}`, { description: "updated" });
        const seen = await walk(send, email, 2);
        const got = seen.map((x) => String(x.id));
        expectThat(new Set(got).size === got.length, `the walk saw a customer twice: ${got.join(" ")}`);
        for (const id of ids) {
          const mine = seen.filter((x) => x.id === id);
          expectThat(mine.length === 1, `the walk saw ${id} ${mine.length} times`);
        }
        const second = seen.find((x) => x.id === ids[1]);
        expectThat(second?.description === "updated", `the walk saw ${JSON.stringify(second)}`);
      },
    },
  ],
};
