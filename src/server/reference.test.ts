import { beforeEach, describe, expect, it } from "vitest";
import { jsonHeaders, kitContract, storedPlant, TOKEN } from "../../test/helpers.js";
import type { MockOptions } from "./defaults.js";
import { createMockEngine } from "./mock-options.js";
import type { ResourceStore } from "./engine-store.js";
import type { WireResponse } from "./error-answers.js";
import type { CoreRequest } from "./request.js";
import { openApi } from "../../test/openapi-doc.js";

const contract = await kitContract();
const errorBody = contract.operation("createPlant")!.responseFor(400)!.content.get("application/json")!;
const plantBody = contract.operation("createPlant")!.responseFor(200)!.content.get("application/json")!;

let store: ResourceStore;
let handle: (r: CoreRequest) => WireResponse;
beforeEach(() => {
  const engine = createMockEngine(contract, { tokens: [TOKEN, "second-token"], maxItems: 3 });
  store = engine.store;
  handle = engine.handle;
});

/** The reference server as a function, with a store of 3 plants unless told otherwise. */
const createCore = (c: typeof contract, options: MockOptions) =>
  createMockEngine(c, { maxItems: 3, ...options }).handle;

const post = (body: string | undefined, headers: Record<string, string> = jsonHeaders()): WireResponse =>
  handle({ method: "POST", url: "/plants", headers, body: Buffer.from(body ?? "") });
const json = (r: WireResponse): any => JSON.parse(r.body);

describe("valid creates get 200 with a Plant and are stored", () => {
  it.each([
    ['{"id":1,"name":"Fern","tag":"fern"}', "1", { name: "Fern", tag: "fern" }],
    ['{"id":2,"name":"Fern"}', "2", { name: "Fern" }],
    ['{"id":-9223372036854775808,"name":"min"}', "-9223372036854775808", { name: "min" }],
    ['{"id":9223372036854775807,"name":"max"}', "9223372036854775807", { name: "max" }],
    ['{"id":9007199254740993,"name":"2^53+1"}', "9007199254740993", { name: "2^53+1" }],
    ['{"id":0,"name":""}', "0", { name: "" }],
    ['{"id":-7,"name":"\u05e9\u05dc\u05d5\u05dd 🌿"}', "-7", { name: "\u05e9\u05dc\u05d5\u05dd 🌿" }],
    ['{"id":1.0,"name":"one point zero"}', "1", { name: "one point zero" }],
    ['{"id":5,"name":"x","extra":{"nested":[1,2]},"colour":null}', "5", { name: "x" }],
    [
      '{"id":6,"name":"p","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
      "6",
      { name: "p" },
    ],
  ])("%s", (body, id, plant) => {
    const r = post(body);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(json(r)).toEqual(plant);
    expect(plantBody.validate(json(r))).toEqual([]);
    expect(storedPlant(store, id)).toEqual(plant);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("accepts a very long name", () => {
    const name = "n".repeat(200_000);
    const r = post(JSON.stringify({ id: 1, name }));
    expect(r.status).toBe(200);
    expect(json(r).name).toHaveLength(200_000);
  });

  it("accepts Content-Type parameters such as charset=utf-8, in any case", () => {
    expect(
      post('{"id":1,"name":"a"}', { ...jsonHeaders(), "content-type": "Application/JSON; Charset=UTF-8" }).status,
    ).toBe(200);
  });

  it("accepts every configured token and the scheme in any case", () => {
    expect(post('{"id":1,"name":"a"}', { ...jsonHeaders(), authorization: `bearer ${TOKEN}` }).status).toBe(200);
    expect(post('{"id":2,"name":"a"}', { ...jsonHeaders(), authorization: "BEARER second-token" }).status).toBe(200);
  });
});

describe("invalid bodies get 400 with an Error naming the field and rule, and store nothing", () => {
  it.each([
    ["", "PS_BODY_MISSING", "required"],
    ["{", "PS_MALFORMED_JSON", "not valid JSON"],
    ["[]", "PS_BODY_INVALID", "body: must be an object"],
    ['"plant"', "PS_BODY_INVALID", "body: must be an object"],
    ["null", "PS_BODY_INVALID", "body: must be an object"],
    ['{"name":"a"}', "PS_BODY_INVALID", "body/id: is required"],
    ['{"id":1}', "PS_BODY_INVALID", "body/name: is required"],
    ['{"id":1.5,"name":"a"}', "PS_BODY_INVALID", "body/id: must be an integer"],
    ['{"id":"7","name":"a"}', "PS_BODY_INVALID", "body/id: must be an integer"],
    ['{"id":null,"name":"a"}', "PS_BODY_INVALID", "body/id: must be an integer"],
    [
      '{"id":9223372036854775808,"name":"a"}',
      "PS_BODY_INVALID",
      "body/id: must be an integer from -9223372036854775808",
    ],
    ['{"id":-9223372036854775809,"name":"a"}', "PS_BODY_INVALID", "format int64"],
    ['{"id":1e30,"name":"a"}', "PS_BODY_INVALID", "format int64"],
    ['{"id":1,"name":5}', "PS_BODY_INVALID", "body/name: must be a string"],
    ['{"id":1,"name":null}', "PS_BODY_INVALID", "body/name: must be a string"],
    ['{"id":1,"name":"a","tag":7}', "PS_BODY_INVALID", "body/tag: must be a string"],
    ['{"id":1,"name":"a","tag":null}', "PS_BODY_INVALID", "body/tag: must be a string"],
  ])("%j -> %s", (body, code, text) => {
    const r = post(body);
    expect(r.status).toBe(400);
    expect(json(r).code).toBe(code);
    expect(json(r).message).toContain(text);
    expect(errorBody.validate(json(r))).toEqual([]);
    expect(store.size).toBe(0);
  });

  it.each([
    [undefined, "Content-Type is missing"],
    ["text/plain", 'Content-Type is "text/plain"'],
    ["application/jsonx", "send application/json"],
    ["application/json; charset=iso-8859-1", 'charset "iso-8859-1"'],
  ])("Content-Type %j is refused with 400", (contentType, text) => {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
    if (contentType !== undefined) headers["content-type"] = contentType;
    const r = post('{"id":1,"name":"a"}', headers);
    expect(r.status).toBe(400);
    expect(json(r)).toMatchObject({ error: 400, code: "PS_UNSUPPORTED_MEDIA_TYPE" });
    expect(json(r).message).toContain(text);
    expect(store.size).toBe(0);
  });

  it("refuses invalid UTF-8", () => {
    const r = handle({
      method: "POST",
      url: "/plants",
      headers: jsonHeaders(),
      body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    });
    expect(json(r)).toMatchObject({ error: 400, code: "PS_INVALID_UTF8" });
  });
});

describe("authentication: a client error, never 2xx, with WWW-Authenticate", () => {
  it.each([
    ["missing", undefined, 'Bearer realm="plantstore"'],
    ["wrong token", "Bearer nope", 'error="invalid_token"'],
    ["another scheme", `Basic ${TOKEN}`, 'error="invalid_token"'],
    ["token scheme", `Token ${TOKEN}`, 'error="invalid_token"'],
    ["empty bearer", "Bearer ", 'error="invalid_token"'],
    ["bare word", "Bearer", 'error="invalid_token"'],
    ["token prefix", `Bearer ${TOKEN.slice(0, -1)}`, 'error="invalid_token"'],
    ["token with suffix", `Bearer ${TOKEN}x`, 'error="invalid_token"'],
  ])("%s", (_name, authorization, challenge) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (authorization !== undefined) headers.authorization = authorization;
    const r = post('{"id":1,"name":"a"}', headers);
    expect(r.status).toBe(401);
    expect(r.headers["www-authenticate"]).toContain(challenge);
    expect(json(r)).toMatchObject({ error: 401, code: "PS_UNAUTHORIZED" });
    expect(errorBody.validate(json(r))).toEqual([]);
    expect(r.body).not.toContain(TOKEN);
    expect(store.size).toBe(0);
  });
});

describe("choices where the contract is silent", () => {
  it("a second create with an existing id gets 409 and changes nothing", () => {
    expect(post('{"id":9223372036854775807,"name":"first"}').status).toBe(200);
    const r = post('{"id":9223372036854775807.0,"name":"second"}');
    expect(r.status).toBe(409);
    expect(json(r)).toMatchObject({ error: 409, code: "PS_DUPLICATE_ID" });
    expect(storedPlant(store, "9223372036854775807")).toEqual({ name: "first" });
  });

  it("ids 2^53 and 2^53+1 are different plants", () => {
    expect(post('{"id":9007199254740992,"name":"a"}').status).toBe(200);
    expect(post('{"id":9007199254740993,"name":"b"}').status).toBe(200);
    expect(store.size).toBe(2);
  });

  it("a full store answers 400 with an Error (no 5xx) and keeps what it has", () => {
    for (const id of [1, 2, 3]) expect(post(`{"id":${id},"name":"a"}`).status).toBe(200);
    const r = post('{"id":4,"name":"a"}');
    expect(r.status).toBe(400);
    expect(json(r)).toMatchObject({ error: 400, code: "PS_STORE_FULL" });
    expect(errorBody.validate(json(r))).toEqual([]);
    expect(store.size).toBe(3);
  });

  it("unknown path: 404; method not allowed: 405 with Allow", () => {
    const notFound = handle({ method: "POST", url: "/pets", headers: jsonHeaders(), body: Buffer.alloc(0) });
    expect(notFound.status).toBe(404);
    expect(json(notFound).code).toBe("PS_NOT_FOUND");
    const notAllowed = handle({ method: "GET", url: "/plants?x=1", headers: jsonHeaders(), body: Buffer.alloc(0) });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.allow).toBe("POST");
    expect(json(notAllowed).code).toBe("PS_METHOD_NOT_ALLOWED");
  });

  it("Prefer: code=400 is ignored unless errors on demand are switched on", () => {
    expect(post('{"id":1,"name":"a"}', { ...jsonHeaders(), prefer: "code=400" }).status).toBe(200);
    const onDemand = createCore(contract, { tokens: [TOKEN], corsOrigins: [], errorsOnDemand: true });
    const r = onDemand({
      method: "POST",
      url: "/plants",
      headers: { ...jsonHeaders(), prefer: "code=400" },
      body: Buffer.from('{"id":2,"name":"a"}'),
    });
    expect(r.status).toBe(400);
    expect(errorBody.validate(json(r))).toEqual([]);
    expect(store.size).toBe(1);
  });

  it.each([
    ["http://plants.example/plants", 200],
    ["http://user:pw@plants.example/plants?q=1", 200],
    ["/%70lants", 200],
    ["/plants%2F", 404],
    ["//plants", 404],
    ["http://[bad/plants", 404],
  ])("request target %s is routed by its path (RFC 9112 section 3.2, RFC 3986 section 6.2.2)", (url, status) => {
    const r = handle({
      method: "POST",
      url,
      headers: jsonHeaders(),
      body: Buffer.from(`{"id":${Math.floor(Math.random() * 1e9)},"name":"a"}`),
    });
    expect(r.status).toBe(status);
    expect(r.body).not.toContain("pw@");
  });
});

describe("operations of other specs", () => {
  it("serves another spec's operations with no handler written: a create with an optional body, a list", async () => {
    const { compileContract } = await import("../contract/index.js");
    const other = compileContract(
      openApi({
        "/plants": {
          post: {
            operationId: "createPlant",
            requestBody: { content: { "application/json": { schema: { type: "object" } } } },
            responses: { "200": { description: "ok" } },
          },
          get: { operationId: "listPlants", responses: { "200": { description: "ok" } } },
        },
      }),
      "inline",
    );
    const h = createCore(other, { maxItems: 1, tokens: [TOKEN], corsOrigins: [] });
    // No security in this spec: no token needed. No handler is written for either operation: the
    // engine creates with an optional body absent, and serves the list the spec also has.
    const call = (method: string, body = "") =>
      h({
        method,
        url: "/plants",
        headers: body ? { "content-type": "application/json" } : {},
        body: Buffer.from(body),
      });
    expect(call("POST")).toMatchObject({ status: 200, body: "" });
    expect(call("GET")).toMatchObject({ status: 200, body: "" });
    expect(JSON.parse(call("POST", "{}").body)).toMatchObject({ code: "PS_STORE_FULL" });
  });
});

describe("CORS", () => {
  it("answers a preflight for Authorization without a token", () => {
    const r = handle({
      method: "OPTIONS",
      url: "/plants",
      headers: {
        origin: "http://app.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
      body: Buffer.alloc(0),
    });
    expect(r.status).toBe(204);
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    expect(r.headers["access-control-allow-methods"]).toContain("POST");
    expect(r.headers["access-control-allow-headers"]).toContain("authorization");
  });

  const preflight = (h: ReturnType<typeof createCore>, requested: string | undefined, origin = "http://app.test") =>
    h({
      method: "OPTIONS",
      url: "/plants",
      headers: {
        origin,
        "access-control-request-method": "POST",
        ...(requested === undefined ? {} : { "access-control-request-headers": requested }),
      },
      body: Buffer.alloc(0),
    }).headers;

  it.each([
    ["nothing asked: the contract's headers", undefined, undefined, "authorization, content-type, prefer"],
    [
      "tracing headers a page sends",
      undefined,
      "authorization, content-type, traceparent, X-Request-Id",
      "authorization, content-type, prefer, traceparent, x-request-id",
    ],
    [
      "a name that is not a token is never echoed",
      undefined,
      "traceparent, bad header, x(y)",
      "authorization, content-type, prefer, traceparent",
    ],
    [
      "--cors-headers restricts the extra ones",
      ["X-Request-Id"],
      "traceparent, x-request-id",
      "authorization, content-type, prefer, x-request-id",
    ],
    ["an empty --cors-headers allows only the contract's", [], "traceparent", "authorization, content-type, prefer"],
  ] as const)("preflight allow-headers: %s", (_name, listed, requested, expected) => {
    const h = createCore(contract, { tokens: [TOKEN], corsHeaders: listed });
    const headers = preflight(h, requested);
    expect(headers["access-control-allow-headers"]).toBe(expected);
    expect(headers.vary).toBe("Access-Control-Request-Headers");
  });

  it("keys preflight caches on the origin and the asked headers when origins are listed", () => {
    const strict = createCore(contract, { tokens: [TOKEN], corsOrigins: ["http://good.test"] });
    expect(preflight(strict, "traceparent", "http://good.test").vary).toBe("Origin, Access-Control-Request-Headers");
  });

  it("adds CORS headers to answers, errors included", () => {
    const r = post('{"id":1,"name":"a"}', { "content-type": "application/json", origin: "http://app.test" });
    expect(r.status).toBe(401);
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    expect(r.headers["access-control-expose-headers"]).toContain("www-authenticate");
  });

  it("allows only the configured origins when a list is given", () => {
    const strict = createCore(contract, { tokens: [TOKEN], corsOrigins: ["http://good.test"] });
    const ask = (origin: string) =>
      strict({
        method: "OPTIONS",
        url: "/plants",
        headers: { origin, "access-control-request-method": "POST" },
        body: Buffer.alloc(0),
      });
    expect(ask("http://good.test").headers["access-control-allow-origin"]).toBe("http://good.test");
    expect(ask("http://good.test").headers.vary).toBe("Origin, Access-Control-Request-Headers");
    expect(ask("http://evil.test").headers["access-control-allow-origin"]).toBeUndefined();
    expect(ask("http://evil.test").headers.vary).toBe("Origin, Access-Control-Request-Headers");
  });
});
