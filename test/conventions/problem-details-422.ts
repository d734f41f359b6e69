// Problem details: invalid input answers the documented 422 (the operation documents no 400) and an
// unknown item 404, each as `application/problem+json` (RFC 9457) whose `status` is the answer's
// status. The shape of APIs built on RFC 9457 / 7807 (Spring's ProblemDetail, ASP.NET Core, Zalando's
// guidelines), and of the 422 that RFC 9110 gives to well-formed but invalid content.
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Json, type JsonObject, type Response } from "./kit.js";

const PROBLEM = "application/problem+json";
const newOrder = {
  type: "object",
  required: ["item", "quantity"],
  additionalProperties: false,
  properties: {
    item: { type: "string", minLength: 1, maxLength: 100 },
    quantity: { type: "integer", minimum: 1, maximum: 100 },
    note: { type: "string" },
  },
};
const order = {
  type: "object",
  required: ["id", "item", "quantity"],
  properties: {
    id: { type: "integer", format: "int64", readOnly: true },
    item: { type: "string" },
    quantity: { type: "integer", minimum: 1, maximum: 100 },
    note: { type: "string" },
  },
};
const problem = {
  type: "object",
  required: ["title", "status"],
  properties: {
    type: { type: "string", format: "uri-reference", default: "about:blank" },
    title: { type: "string" },
    status: { type: "integer", minimum: 100, maximum: 599 },
    detail: { type: "string" },
    instance: { type: "string", format: "uri-reference" },
  },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const problemOf = (description: string) => ({ description, content: { [PROBLEM]: { schema: problem } } });

const document = {
  openapi: "3.1.0",
  info: { title: "problem details 422", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/orders": {
      post: {
        operationId: "createOrder",
        requestBody: { required: true, ...json(newOrder) },
        responses: {
          "201": { description: "created", ...json(order) },
          "422": problemOf("the order is invalid: nothing created"),
        },
      },
      get: {
        operationId: "listOrders",
        responses: { "200": { description: "every order", ...json({ type: "array", items: order }) } },
      },
    },
    "/orders/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } }],
      get: {
        operationId: "getOrder",
        responses: {
          "200": { description: "the order", ...json(order) },
          "404": problemOf("no order with this id"),
        },
      },
    },
  },
};

function reference() {
  const orders = new Map<string, JsonObject>();
  let next = 1;
  const problemAnswer = (status: number, title: string, detail: string): Answer => ({
    status,
    headers: { "content-type": PROBLEM },
    body: { type: "about:blank", title, status, detail },
  });
  const invalid = (b: Json | undefined): string | undefined => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return "the body is not an object";
    const o = b as JsonObject;
    const extra = Object.keys(o).find((k) => !["item", "quantity", "note"].includes(k));
    if (extra !== undefined) return `unknown member ${extra}`;
    if (typeof o.item !== "string" || o.item.length < 1 || o.item.length > 100) return "item: 1 to 100 characters";
    if (typeof o.quantity !== "number" || !Number.isInteger(o.quantity) || o.quantity < 1 || o.quantity > 100)
      return "quantity: an integer from 1 to 100";
    if (o.note !== undefined && typeof o.note !== "string") return "note: a string";
    return undefined;
  };
  const handle = router({
    "POST /orders": ({ body }) => {
      const why = invalid(body);
      if (why !== undefined) return problemAnswer(422, "Unprocessable Content", why);
      const o = body as JsonObject;
      const made = {
        id: next,
        item: o.item!,
        quantity: o.quantity!,
        ...(o.note === undefined ? {} : { note: o.note }),
      };
      orders.set(String(next++), made);
      return { status: 201, headers: { location: `/orders/${made.id}` }, body: made };
    },
    "GET /orders": () => ({ status: 200, body: [...orders.values()] }),
    "GET /orders/{id}": ({ params }) => {
      const found = /^\d+$/.test(params.id!) ? orders.get(String(BigInt(params.id!))) : undefined;
      return found === undefined
        ? problemAnswer(404, "Not Found", `no order ${params.id}`)
        : { status: 200, body: found };
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const mediaType = (r: Response): string => (r.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
const obj = (v: Json | undefined): JsonObject =>
  (typeof v === "object" && v !== null && !Array.isArray(v) ? v : {}) as JsonObject;

/** The answer is problem details for `status`: that status, the media type, and the same `status` member. */
function expectProblem(r: Response, status: number, what: string): void {
  expectThat(r.status === status, `${what} answered ${r.status}: ${r.text}`);
  expectThat(mediaType(r) === PROBLEM, `${what} answered content-type ${r.headers.get("content-type")}`);
  const p = obj(r.json);
  expectThat(sameJson(p.status, status), `${what} answered ${status} with problem status ${String(p.status)}`);
  expectThat(p.title === undefined || typeof p.title === "string", `${what}: title ${String(p.title)}`);
}

export const problemDetails422: Convention = {
  name: "problem-details-422",
  family:
    "RFC 9457 problem details with 422 for invalid input (Spring ProblemDetail, ASP.NET Core, Zalando guidelines)",
  sources: [
    "RFC 9457 sections 3 and 3.1 (application/problem+json; `status` must be the HTTP status code)",
    "RFC 9110 sections 15.5.21 (422 Unprocessable Content) and 15.5.5 (404 Not Found)",
    "RFC 9110 section 9.3.3 (POST creates; 201) and 15.3.2 (201 Created)",
    "https://opensource.zalando.com/restful-api-guidelines/#176 (use problem JSON)",
  ],
  document,
  reference,
  promises: [
    {
      id: "out-of-range-422-problem",
      says: "a well-formed order with a quantity out of range answers the documented 422 as problem+json whose status is 422 (RFC 9110 15.5.21; RFC 9457 3.1)",
      async check(send, fresh) {
        const r = await send("POST", "/orders", { item: `i-${fresh()}`, quantity: 0 });
        expectProblem(r, 422, "an order of quantity 0");
      },
    },
    {
      id: "missing-member-422-problem",
      says: "an order without its required item answers 422 problem details, not an undocumented 400 (RFC 9110 15.5.21; RFC 9457 3)",
      async check(send) {
        const r = await send("POST", "/orders", { quantity: 2 });
        expectProblem(r, 422, "an order without item");
      },
    },
    {
      id: "wrong-type-422-problem",
      says: "an order whose quantity is a string answers 422 problem details (RFC 9110 15.5.21; RFC 9457 3)",
      async check(send, fresh) {
        const r = await send("POST", "/orders", { item: `i-${fresh()}`, quantity: "two" });
        expectProblem(r, 422, 'an order of quantity "two"');
      },
    },
    {
      id: "invalid-creates-nothing",
      says: "an order answered 422 is not stored: the list does not hold it (RFC 9110 15.5.21: the server cannot process it)",
      async check(send, fresh) {
        const item = `ghost-${fresh()}`;
        const r = await send("POST", "/orders", { item, quantity: 1000 });
        expectThat(r.status === 422, `an order of quantity 1000 answered ${r.status}`);
        const list = await send("GET", "/orders");
        expectThat(list.status === 200, `the list answered ${list.status}`);
        const mine = (Array.isArray(list.json) ? list.json : []).map(obj).filter((o) => o.item === item);
        expectThat(mine.length === 0, `after the 422 the list holds ${JSON.stringify(mine)}`);
      },
    },
    {
      id: "unknown-404-problem",
      says: "GET of an order never created answers 404 as problem+json whose status is 404 (RFC 9110 15.5.5; RFC 9457 3.1)",
      async check(send, fresh) {
        const r = await send("GET", `/orders/${900_000_000 + fresh()}`);
        expectProblem(r, 404, "GET of an unknown order");
      },
    },
    {
      id: "valid-create-then-read",
      says: "a valid order answers 201 with what was sent and reads back at its id (RFC 9110 9.3.3, 15.3.2)",
      async check(send, fresh) {
        const sent = { item: `i-${fresh()}`, quantity: 7, note: "leave at the door" };
        const made = await send("POST", "/orders", sent);
        expectThat(made.status === 201, `a valid order answered ${made.status}: ${made.text}`);
        const m = obj(made.json);
        expectThat(m.item === sent.item && sameJson(m.quantity, 7), `the create answered ${made.text}`);
        const read = await send("GET", `/orders/${String(m.id)}`);
        expectThat(read.status === 200, `GET of the created order answered ${read.status}`);
        expectThat(sameJson(read.json, made.json), `created ${made.text}, read ${read.text}`);
      },
    },
  ],
};
