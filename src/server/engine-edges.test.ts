import { describe, expect, it } from "vitest";
import { engineOf, ENGINE_TOKEN as TOKEN } from "../../test/engine-of.js";
import { openApi } from "../../test/openapi-doc.js";
import { checkResponse, compileContract, parseJsonExact } from "../contract/index.js";
import { exactTree } from "../contract/portable.js";
import { createMockEngine } from "./mock-options.js";

// The mock engine at the edges a review found: items two envelopes deep with server-made values,
// hostile member names, paging by whichever parameter the request used, and an engine whose failure
// reporter fails too. Each test names the request and the answer it must get.

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const param = (name: string, at = "path") => ({ name, in: at, required: at === "path", schema: { type: "integer" } });

describe("an item two envelopes deep", () => {
  const account = {
    type: "object",
    required: ["id", "name", "createdAt"],
    properties: {
      id: { type: "integer", readOnly: true },
      name: { type: "string" },
      createdAt: { type: "string", format: "date-time", readOnly: true },
    },
  };
  const wrapped = { type: "object", properties: { data: { type: "object", properties: { account } } } };
  const { send } = engineOf({
    "/accounts": {
      post: {
        operationId: "make",
        requestBody: { required: true, ...json(account) },
        responses: { "201": json(wrapped) },
      },
    },
    "/accounts/{id}": {
      parameters: [param("id")],
      get: { operationId: "read", responses: { "200": json(wrapped), "404": {} } },
    },
  });

  it("gets integer ids and its own timestamps, and each read answers its own item", () => {
    const a = send("POST", "/accounts", { name: "a" }).body.data.account;
    const b = send("POST", "/accounts", { name: "b" }).body.data.account;
    expect([typeof a.id, typeof b.id, a.id === b.id]).toEqual(["number", "number", false]);
    expect(a.createdAt).not.toBe("2026-01-01T00:00:00Z");
    expect(send("GET", `/accounts/${b.id}`).body.data.account).toEqual(b);
  });
});

describe("hostile member names", () => {
  it("a field named __proto__ in a Django-style error map is a 400, never a 500", () => {
    const book = {
      type: "object",
      required: ["title"],
      additionalProperties: false,
      properties: { title: { type: "string" } },
    };
    const fields = { type: "object", additionalProperties: { type: "array", items: { type: "string" } } };
    const { send } = engineOf({
      "/books": {
        post: {
          operationId: "make",
          requestBody: { required: true, ...json(book) },
          responses: { "201": json(book), "400": json(fields) },
        },
      },
    });
    const answer = send("POST", "/books", '{"title":"a","__proto__":1}');
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toContain("__proto__");
  });

  it("a __proto__ member beside an integer beyond 2^53 is a member, and smuggles nothing into the store", () => {
    const thing = {
      type: "object",
      properties: {
        id: { type: "integer", readOnly: true },
        big: { type: "integer" },
        color: { type: "string", enum: ["red", "blue"] },
      },
    };
    const { engine, send } = engineOf({
      "/things": {
        post: {
          operationId: "make",
          requestBody: { required: true, ...json(thing) },
          responses: { "201": json(thing) },
        },
      },
      "/things/{id}": { parameters: [param("id")], get: { operationId: "read", responses: { "200": json(thing) } } },
    });
    const made = send("POST", "/things", '{"__proto__":{"color":"green"},"big":123456789012345678901}');
    expect(made.status).toBe(201);
    // Neither stored (own or inherited) nor served: the schema's enum never sees "green".
    const stored = engine.store.itemsOf("/things")[0]?.[1] as Record<string, unknown>;
    expect([stored.color, stored.big]).toEqual([undefined, 123456789012345678901n]);
    expect(send("GET", `/things/${made.body.id}`).body.color).toBeUndefined();
  });
});

describe("required members named as Object's own", () => {
  const make = (answer: unknown) => ({
    "/things": {
      post: {
        operationId: "make",
        requestBody: { required: true, ...json({ type: "object", properties: { name: { type: "string" } } }) },
        responses: { "201": json(answer) },
      },
    },
  });

  it("a required `constructor` or `toString` the item lacks is filled from the example, else plainly", () => {
    const shape = (example?: Record<string, unknown>) => ({
      type: "object",
      required: ["name", "constructor", "toString", "extra"],
      properties: {
        name: { type: "string" },
        extra: { type: "string" },
        constructor: { type: "string", enum: ["made"] },
        toString: { type: "string", enum: ["text"] },
      },
      ...(example === undefined ? {} : { example }),
    });
    // The example shows `extra`, not the other two, whatever its prototype has: they are filled plainly.
    const example = { name: "shown", extra: "from the example" };
    const fromExample = engineOf(make(shape(example))).send("POST", "/things", { name: "fern" });
    const filled = { name: "fern", constructor: "made", toString: "text", extra: "from the example" };
    expect([fromExample.status, fromExample.body]).toEqual([201, filled]);
    const none = engineOf(make(shape())).send("POST", "/things", { name: "fern" });
    expect([none.status, none.body]).toEqual([201, { ...filled, extra: "string" }]);
  });

  it("a required `__proto__` the item lacks is a member of the answer, never its prototype", () => {
    const answer = JSON.parse(
      '{"type":"object","required":["name","__proto__"],"properties":{"name":{"type":"string"},"__proto__":{"type":"string","enum":["own"]}}}',
    ) as unknown;
    const made = engineOf(make(answer)).send("POST", "/things", { name: "fern" });
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual(["name", "__proto__"]);
    expect(Object.getOwnPropertyDescriptor(made.body, "__proto__")?.value).toBe("own");
  });
});

describe("paging by the parameter the request used", () => {
  const book = { type: "object", properties: { id: { type: "integer", readOnly: true }, title: { type: "string" } } };
  const page = {
    type: "object",
    required: ["count", "next", "previous", "results"],
    properties: {
      count: { type: "integer" },
      next: { type: "string", nullable: true },
      previous: { type: "string", nullable: true },
      results: { type: "array", items: book },
    },
  };
  const list = {
    operationId: "list",
    parameters: ["page", "page_size", "offset"].map((n) => param(n, "query")),
    responses: { "200": json(page) },
  };
  const doc = {
    "/books": {
      get: list,
      post: { operationId: "make", requestBody: { required: true, ...json(book) }, responses: { "201": json(book) } },
    },
  };

  it("an offset walk moves on by offset, each item once, previous pointing back", () => {
    const { send } = engineOf(doc);
    for (let i = 0; i < 5; i++) send("POST", "/books", { title: `b${i}` });
    const seen: string[] = [];
    let url: string | null = "/books?offset=1&page_size=2";
    const first = send("GET", url).body;
    expect(first.previous).toBe("http://mock.test/books?offset=0&page_size=2");
    while (url !== null) {
      const body: { next: string | null; results: { title: string }[] } = send(
        "GET",
        url.replace("http://mock.test", ""),
      ).body;
      seen.push(...body.results.map((b) => b.title));
      url = body.next;
    }
    expect(seen).toEqual(["b1", "b2", "b3", "b4"]);
  });

  it("a page past the first with no size holds nothing, and a size of 0 leads nowhere", () => {
    const { send } = engineOf(doc);
    for (let i = 0; i < 3; i++) send("POST", "/books", { title: `b${i}` });
    expect(send("GET", "/books?page=1").body.results).toHaveLength(3);
    expect(send("GET", "/books?page=2").body.results).toEqual([]);
    const empty = send("GET", "/books?offset=0&page_size=0").body;
    expect([empty.results, empty.next]).toEqual([[], null]);
  });
});

describe("an upsert", () => {
  it("answers 201 with the Location it documents, the item at the path's id", () => {
    const setting = {
      type: "object",
      required: ["key"],
      properties: { key: { type: "string" }, value: { type: "string" } },
    };
    const { send } = engineOf({
      "/settings/{key}": {
        parameters: [{ name: "key", in: "path", required: true, schema: { type: "string" } }],
        put: {
          operationId: "put",
          requestBody: { required: true, ...json(setting) },
          responses: {
            "200": json(setting),
            "201": { ...json(setting), headers: { Location: { required: true, schema: { type: "string" } } } },
          },
        },
        get: { operationId: "read", responses: { "200": json(setting) } },
      },
    });
    const made = send("PUT", "/settings/a", { key: "b", value: "x" });
    expect([made.status, made.headers.location, made.body.key]).toEqual([201, "http://mock.test/settings/a", "a"]);
    expect(send("PUT", "/settings/a", { key: "a", value: "y" }).status).toBe(200);
  });
});

describe("a failure inside the engine", () => {
  it("is answered 500 even when the reporter of failures throws too: the handle never throws", () => {
    const thing = { type: "object", properties: { id: { type: "integer", readOnly: true } } };
    const contract = compileContract(
      openApi({
        "/things": { post: { operationId: "make", requestBody: json(thing), responses: { "201": json(thing) } } },
      }),
      "edges.json",
    );
    const fail = (what: string) => () => {
      throw new Error(what);
    };
    const engine = createMockEngine(
      contract,
      { tokens: [TOKEN] },
      { onChange: fail("a save"), onFailure: fail("a report") },
    );
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const answer = engine.handle({ method: "POST", url: "/things", headers, body: new TextEncoder().encode("{}") });
    expect([answer.status, JSON.parse(answer.body).code]).toEqual([500, "PS_INTERNAL"]);
  });
});

describe("seed data", () => {
  it("is created as the create documents its media type (JSON:API's application/vnd.api+json)", () => {
    const article = {
      type: "object",
      required: ["data"],
      properties: {
        data: {
          type: "object",
          properties: {
            id: { type: "string", readOnly: true },
            type: { type: "string", enum: ["articles"] },
            attributes: { type: "object", properties: { title: { type: "string" } } },
          },
        },
      },
    };
    const api = (schema: unknown) => ({ content: { "application/vnd.api+json": { schema } } });
    const contract = compileContract(
      openApi({
        "/articles": {
          post: {
            operationId: "make",
            requestBody: { required: true, ...api(article) },
            responses: { "201": api(article) },
          },
        },
      }),
      "edges.json",
    );
    const engine = createMockEngine(contract, { tokens: [TOKEN] });
    const made = engine.seed(
      JSON.stringify({ "/articles": [{ data: { type: "articles", attributes: { title: "a" } } }] }),
      "data",
    );
    expect([made, engine.store.size]).toEqual([1, 1]);
  });

  it("of a collection made only by upsert is put at each item's id; an item without one is named", () => {
    const setting = {
      type: "object",
      required: ["key", "value"],
      properties: { key: { type: "string" }, value: { type: "string" } },
    };
    const { engine, send } = engineOf({
      "/settings/{key}": {
        parameters: [{ name: "key", in: "path", required: true, schema: { type: "string" } }],
        put: {
          operationId: "putSetting",
          requestBody: { required: true, ...json(setting) },
          responses: { "200": json(setting), "201": json(setting) },
        },
        get: { operationId: "getSetting", responses: { "200": json(setting), "404": { description: "none" } } },
      },
    });
    const data = { "/settings": [{ key: "theme", value: "dark" }] };
    expect(engine.seed(JSON.stringify(data), "data.json")).toBe(1);
    expect(send("GET", "/settings/theme")).toMatchObject({ status: 200, body: { key: "theme", value: "dark" } });
    expect(() => engine.seed(JSON.stringify({ "/settings": [{ value: "x" }] }), "data.json")).toThrow(
      "data.json: /settings item 0: has no key to be put at",
    );
  });
});

describe("deeply nested bodies", () => {
  it("past 512 levels are refused with a 400 before they are parsed; below, a big integer deep down costs no stack", () => {
    const { send } = engineOf({
      "/things": {
        post: {
          operationId: "make",
          requestBody: { required: true, ...json({ type: "object" }) },
          responses: { "201": json({ type: "object" }) },
        },
      },
    });
    const nested = (depth: number, leaf: string) => `{"x":${"[".repeat(depth)}${leaf}${"]".repeat(depth)}}`;
    const deep = send("POST", "/things", nested(1700, "9007199254740993"));
    expect([deep.status, deep.body.code]).toEqual([400, "PS_BODY_TOO_DEEP"]);
    // Brackets inside strings are text, not nesting.
    expect(send("POST", "/things", `{"x":"${"[".repeat(2000)}"}`).status).toBe(201);
    expect(send("POST", "/things", nested(500, "9007199254740993")).status).toBe(201);
  });

  it("maxDepth (--max-depth) sets the limit: the body at it is taken, one level deeper refused", () => {
    const doc = openApi({
      "/things": {
        post: {
          operationId: "make",
          requestBody: { required: true, ...json({ type: "object" }) },
          responses: { "201": json({ type: "object" }) },
        },
      },
    });
    const engine = createMockEngine(compileContract(doc, "edges.json"), { tokens: [TOKEN], maxDepth: 4 });
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const post = (text: string) =>
      engine.handle({ method: "POST", url: "/things", headers, body: new TextEncoder().encode(text) });
    expect(post('{"a":{"b":{"c":[1]}}}').status).toBe(201);
    const deeper = post('{"a":{"b":{"c":[[1]]}}}');
    expect([deeper.status, JSON.parse(deeper.body).message]).toEqual([
      400,
      expect.stringContaining("more than 4 levels"),
    ]);
    expect(() => createMockEngine(compileContract(doc, "edges.json"), { maxDepth: -1 })).toThrow("maxDepth");
  });

  it("the exact-number tree walks without recursion, thousands deep", () => {
    const depth = 20_000;
    const parsed = parseJsonExact(`${"[".repeat(depth)}9007199254740993${"]".repeat(depth)}`);
    if (!parsed.ok) throw new Error(parsed.message);
    let node = exactTree(parsed.value, parsed.exact);
    for (let i = 0; i < depth; i++) node = (node as unknown[])[0];
    expect(node).toBe(9007199254740993n);
  });
});

describe("an error shape made of allOf parts (ShipEngine's)", () => {
  it("a refusal is answered in it: the uuid and the enums of the parts, no member the closed items refuse", () => {
    const uuid = { type: "string", format: "uuid", minLength: 36, maxLength: 36 };
    const error = {
      type: "object",
      additionalProperties: false,
      required: ["error_source", "error_type", "message"],
      properties: {
        error_source: { allOf: [{ type: "string", enum: ["carrier", "shipengine"] }] },
        error_type: { allOf: [{ type: "string", enum: ["account_status", "validation"] }] },
        message: { type: "string", minLength: 1 },
      },
    };
    const body = {
      type: "object",
      additionalProperties: false,
      required: ["request_id", "errors"],
      properties: {
        request_id: { allOf: [uuid], description: "the request's id" },
        errors: { type: "array", items: { allOf: [error] } },
      },
    };
    const address = { type: "object", required: ["name"], properties: { name: { type: "string" } } };
    const { contract, send } = engineOf({
      "/addresses": {
        post: {
          operationId: "validate",
          requestBody: { required: true, ...json(address) },
          responses: { "200": json(address), "400": json(body) },
        },
      },
    });
    const answer = send("POST", "/addresses", { name: 5 });
    expect(answer.status).toBe(400);
    expect(answer.body.request_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(answer.body.errors).toEqual([
      expect.objectContaining({
        error_source: "carrier",
        error_type: "account_status",
        message: expect.stringContaining("body/name"),
      }),
    ]);
    const op = contract.operations[0]!;
    const wire = { status: 400, headers: answer.headers, body: new TextEncoder().encode(JSON.stringify(answer.body)) };
    expect(checkResponse(op, wire).ok).toBe(true);
  });
});

describe("a refusal for missing credentials", () => {
  it("names the exact header, query parameter or cookie to send, with the scheme", () => {
    const keyed = (name: string, where: string) => ({ type: "apiKey", name, in: where });
    const doc = {
      ...openApi({
        "/a": {
          get: { operationId: "a", security: [{ inAuthorization: [] }], responses: { "200": { description: "ok" } } },
        },
        "/b": {
          get: {
            operationId: "b",
            security: [{ inQuery: [] }, { inCookie: [] }, { basic: [] }],
            responses: { "200": { description: "ok" } },
          },
        },
      }),
    } as Record<string, any>;
    doc.components = {
      securitySchemes: {
        inAuthorization: keyed("Authorization", "header"),
        inQuery: keyed("api_key", "query"),
        inCookie: keyed("session", "cookie"),
        basic: { type: "http", scheme: "basic" },
      },
    };
    const engine = createMockEngine(compileContract(doc, "keys.json"), { tokens: [TOKEN] });
    const detail = (url: string) =>
      JSON.parse(engine.handle({ method: "GET", url, headers: {}, body: new Uint8Array() }).body).message as string;
    expect(detail("/a")).toContain('send the header "Authorization: <API key>" (inAuthorization)');
    expect(detail("/b")).toContain(
      'send the query parameter "api_key=<API key>" (inQuery), or the cookie "session=<API key>" (inCookie), ' +
        'or the header "Authorization: Basic <base64 of user:password>" (basic)',
    );
  });
});

describe("exact numbers in an answer", () => {
  it("a decimal no double holds, inside a nested object, is answered as it was sent (the object kept)", () => {
    const thing = {
      type: "object",
      required: ["id"],
      properties: {
        id: { type: "integer", format: "int64" },
        meta: { type: "object", properties: { weight: { type: "number" } } },
      },
    };
    const { engine } = engineOf({
      "/things": {
        post: {
          operationId: "make",
          requestBody: { required: true, ...json(thing) },
          responses: { "201": { description: "made", ...json(thing) } },
        },
      },
    });
    const sent = '{"id":9007199254740993,"meta":{"weight":1.00000000000000000001}}';
    const answer = engine.handle({
      method: "POST",
      url: "/things",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: new TextEncoder().encode(sent),
    });
    expect(answer.status).toBe(201);
    // Before, completing the answer copied the exact decimal into a plain object, which its schema
    // refused, so the answer fell back to one without `meta`.
    expect(answer.body).toBe(sent);
  });
});

describe("a schema that declares a property named __proto__", () => {
  // As JSON.parse makes it: a member, not the prototype.
  const withProto = (props: Record<string, unknown>): Record<string, unknown> =>
    Object.defineProperty({ ...props }, "__proto__", {
      value: { type: "object" },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  const crud = (schema: unknown) => ({
    "/plants": {
      post: {
        operationId: "make",
        requestBody: { required: true, ...json(schema) },
        responses: { "201": { description: "made", ...json(schema) } },
      },
    },
  });

  it("never makes a client's object the stored item's prototype: a default is stored, an id is not inherited", () => {
    const withDefault = engineOf(
      crud({
        type: "object",
        required: ["id"],
        properties: withProto({ id: { type: "integer" }, color: { type: "string", default: "red" } }),
      }),
    );
    expect(withDefault.send("POST", "/plants", '{"id":1,"__proto__":{"color":"blue"}}').body).toEqual({
      id: 1,
      color: "red",
    });
    const { send } = engineOf(
      crud({ type: "object", properties: withProto({ id: { type: "integer" }, name: { type: "string" } }) }),
    );
    expect(send("POST", "/plants", '{"id":7,"name":"a"}').status).toBe(201);
    // An id 7 read through a prototype {"id":7} would be a duplicate (409).
    expect(send("POST", "/plants", '{"name":"b","__proto__":{"id":7}}').status).toBe(201);
  });
});
