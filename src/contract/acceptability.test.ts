import { describe, expect, it } from "vitest";
import { checkRequest, checkRequestValue, checkResponse } from "./acceptability.js";
import type { CheckedRequest, CheckedResponse, HeaderFields } from "./acceptability.js";
import { compileContract } from "./contract.js";
import { openApi } from "../../test/openapi-doc.js";

const object = (required: string[], properties: Record<string, unknown>) => ({ type: "object", required, properties });
const string = { type: "string" };
const schemas = {
  NewPlant: object(["id", "name"], { id: { type: "integer", format: "int64" }, name: string, tag: string }),
  Plant: object(["name"], { name: string, tag: string }),
  Error: object(["error", "message"], { error: { type: "integer", format: "int32" }, message: string }),
};
const json = (name: keyof typeof schemas) => ({ schema: { $ref: `#/components/schemas/${name}` } });

const contract = compileContract(
  openApi(
    {
      "/plants": {
        post: {
          operationId: "createPlant",
          requestBody: { required: true, content: { "application/json": json("NewPlant") } },
          responses: {
            "200": { description: "ok", content: { "application/json": json("Plant") } },
            "201": { description: "text", content: { "text/plain": { schema: { type: "string" } } } },
            "202": { description: "JSON without a schema", content: { "application/json": {} } },
            "204": { description: "no content" },
            "4XX": { description: "error", content: { "application/problem+json": json("Error") } },
          },
        },
        get: { operationId: "listPlants", responses: { "200": { description: "ok" } } },
        put: {
          operationId: "notePlant",
          requestBody: { content: { "text/plain": { schema: { type: "string" } } } },
          responses: { "200": { description: "ok" } },
        },
      },
    },
    { title: "acceptability", components: { schemas } },
  ),
  "inline",
);
const create = contract.operation("createPlant")!;
const list = contract.operation("listPlants")!;
const note = contract.operation("notePlant")!;

type Body = string | readonly number[] | undefined;
const bytes = (body: Body): Uint8Array | undefined =>
  body === undefined ? undefined : typeof body === "string" ? new TextEncoder().encode(body) : Uint8Array.from(body);
/** Headers with this Content-Type (none for undefined), or exactly as given. */
const headers = (contentType: string | undefined | HeaderFields): HeaderFields =>
  typeof contentType === "object" ? contentType : contentType === undefined ? {} : { "content-type": contentType };
const JSON_TYPE = "application/json";
const PROBLEM = "application/problem+json";
const INVALID_UTF8 = [0x7b, 0x22, 0xff, 0x22, 0x7d] as const;

/** What a table row states of a result: ok and the value, or the reason and the detail. */
const summary = (checked: CheckedRequest | CheckedResponse): Record<string, unknown> =>
  checked.ok ? { ok: true, value: checked.value } : { reason: checked.reason, detail: checked.detail };
const ok = (value: unknown) => ({ ok: true, value });
const no = (reason: string, detail: unknown) => ({ reason, detail });
const notJson = expect.stringMatching(/^the body is not JSON: ./);
const containing = (text: string) => expect.stringContaining(text);
const notOneOf = (type: string | null) => `Content-Type ${JSON.stringify(type)} is not one of application/json`;

describe("checkRequest: each reason, in the order the contract's rules apply", () => {
  const plant = '{"id":1,"name":"a"}';
  it.each([
    ["a valid body", JSON_TYPE, plant, ok({ id: 1, name: "a" })],
    ["charset utf-8 in any case", "Application/JSON; Charset=UTF-8", plant, ok({ id: 1, name: "a" })],
    ["charset utf8", "application/json;charset=utf8", plant, ok({ id: 1, name: "a" })],
    ["the first of repeated fields", { "content-type": [JSON_TYPE, "text/plain"] }, plant, ok({ id: 1, name: "a" })],
    ["no body", JSON_TYPE, undefined, no("missing", "the body is required")],
    ["an empty body", JSON_TYPE, "", no("missing", "the body is required")],
    ["no Content-Type", undefined, plant, no("media-type", notOneOf(null))],
    ["text/plain", "text/plain", plant, no("media-type", notOneOf("text/plain"))],
    ["a longer subtype", "application/jsonx", plant, no("media-type", notOneOf("application/jsonx"))],
    ["charset latin1", "application/json; charset=latin1", plant, no("charset", 'charset "latin1" is not UTF-8')],
    ["a quoted charset", 'application/json; charset="Latin1"', plant, no("charset", 'charset "latin1" is not UTF-8')],
    ["bytes that are not UTF-8", JSON_TYPE, INVALID_UTF8, no("utf-8", "the body is not UTF-8")],
    ["text that is not JSON", JSON_TYPE, "{", no("json", notJson)],
    ["a wrong type", JSON_TYPE, '{"id":"1","name":"a"}', no("schema", "body/id: must be an integer (type)")],
    ["a property missing", JSON_TYPE, '{"id":1}', no("schema", "body/name: is required (required)")],
    ["2^63, beyond int64", JSON_TYPE, '{"id":9223372036854775808,"name":"a"}', no("schema", containing("int64)"))],
  ] as const)("%s", (_name, contentType, body, expected) => {
    expect(summary(checkRequest(create, { headers: headers(contentType), body: bytes(body) }))).toEqual(expected);
  });

  it("gives the matched media type entry and the exact numbers", () => {
    const body = bytes('{"id":9223372036854775807,"name":"max"}');
    const checked = checkRequest(create, { headers: headers(JSON_TYPE), body });
    const pointer = "/paths/~1plants/post/requestBody/content/application~1json";
    expect(checked).toMatchObject({ ok: true, entry: { mediaType: JSON_TYPE, pointer } });
    expect(checked.ok && checked.exact.get("/id")?.integer).toBe(9223372036854775807n);
  });

  it("gives the evidence of each refusal as data: Content-Type, charset, syntax, violations", () => {
    const check = (type: string, body: string) => checkRequest(create, { headers: headers(type), body: bytes(body) });
    expect(check("text/plain", "{}")).toMatchObject({ reason: "media-type", contentType: "text/plain" });
    expect(check("application/json; charset=latin1", "{}")).toMatchObject({ reason: "charset", charset: "latin1" });
    const entry = create.requestBody?.content.get(JSON_TYPE);
    expect(check(JSON_TYPE, "{")).toMatchObject({ reason: "json", syntax: expect.any(String), entry });
    const schema = check(JSON_TYPE, '{"id":1.5,"name":"a"}');
    expect(schema).toMatchObject({ reason: "schema", value: { id: 1.5, name: "a" } });
    const violations = !schema.ok && schema.reason === "schema" ? schema.violations : [];
    expect(violations.map(({ location, keyword }) => `${location} ${keyword}`)).toEqual(["body/id type"]);
  });

  it.each([
    ["an operation without a request body, whatever is sent", list, undefined, "not judged"],
    ["an optional body left out", note, undefined, ""],
    ["a media type that is not JSON: not parsed, so no charset or JSON rule", note, "text/plain; charset=latin1", "{"],
  ] as const)("accepts %s", (_name, operation, contentType, body) => {
    expect(checkRequest(operation, { headers: headers(contentType), body: bytes(body) })).toMatchObject(ok(undefined));
  });
});

describe("checkRequestValue: a body given as a value (seed data)", () => {
  it.each([
    ["a valid value", JSON_TYPE, { id: 1, name: "a" }, ok({ id: 1, name: "a" })],
    ["a parameter on the media type", "application/json; v=1", { id: 2, name: "b" }, ok({ id: 2, name: "b" })],
    ["an invalid value", JSON_TYPE, { id: 1 }, no("schema", "body/name: is required (required)")],
    ["undefined, which is no JSON value", JSON_TYPE, undefined, no("schema", "body: must be an object (type)")],
    ["a media type it does not take", "text/plain", { id: 1, name: "a" }, no("media-type", notOneOf("text/plain"))],
  ])("%s", (_name, contentType, value, expected) => {
    expect(summary(checkRequestValue(create, { contentType, value }))).toEqual(expected);
  });

  it("says when the operation takes no body at all", () => {
    const checked = checkRequestValue(list, { contentType: JSON_TYPE, value: {} });
    const detail = 'Content-Type "application/json" is not one of (no request body)';
    expect(summary(checked)).toEqual(no("media-type", detail));
  });
});

describe("checkResponse: each reason, and what is not judged", () => {
  const documentedAs = (received: string) =>
    `status 200 is documented with application/json, but the answer's Content-Type is ${received}`;
  it.each([
    ["a documented 200", 200, JSON_TYPE, '{"name":"Fern"}', ok({ name: "Fern" })],
    ["a charset and extra fields", 200, `${JSON_TYPE}; charset=utf-8`, '{"name":"a","x":1}', ok({ name: "a", x: 1 })],
    ["a status range (4XX)", 422, PROBLEM, '{"error":422,"message":"no"}', ok({ error: 422, message: "no" })],
    ["a status without content, whatever the body", 204, "text/html", "<p>", ok(undefined)],
    ["a JSON media type without a schema: not parsed", 202, JSON_TYPE, "{", ok(undefined)],
    ["a media type that is not JSON: not parsed", 201, "text/plain", "{", ok(undefined)],
    ["an undocumented status", 500, JSON_TYPE, "{}", no("status", "500 is not documented for this operation")],
    ["an undocumented media type", 200, "text/plain", '{"name":"a"}', no("media-type", documentedAs("text/plain"))],
    ["no Content-Type", 200, undefined, '{"name":"a"}', no("media-type", documentedAs("missing"))],
    ["bytes that are not UTF-8", 200, JSON_TYPE, INVALID_UTF8, no("utf-8", "the body is not UTF-8")],
    ["an empty body where JSON is due", 200, JSON_TYPE, "", no("json", notJson)],
    ["a body breaking its schema", 200, JSON_TYPE, "{}", no("schema", "body/name: is required (required)")],
    ["2^31 beyond int32", 400, PROBLEM, '{"error":2147483648,"message":"no"}', no("schema", containing("int32)"))],
  ] as const)("%s", (_name, status, contentType, body, expected) => {
    const checked = checkResponse(create, { status, headers: headers(contentType), body: bytes(body) as Uint8Array });
    expect(summary(checked)).toEqual(expected);
  });

  it("names the documented response and the matched entry, for rules that cite the spec", () => {
    const answer = (status: number, type: string, body: string) =>
      checkResponse(create, { status, headers: headers(type), body: bytes(body) as Uint8Array });
    const range = { reason: "schema", response: { status: "4XX" }, entry: { mediaType: PROBLEM } };
    expect(answer(404, PROBLEM, "{}")).toMatchObject(range);
    const response = { pointer: "/paths/~1plants/post/responses/200" };
    expect(answer(200, "text/plain", "x")).toMatchObject({ reason: "media-type", contentType: "text/plain", response });
  });

  it("keeps the exact numbers of an answer", () => {
    const body = bytes('{"name":"a","id":9007199254740993}') as Uint8Array;
    const checked = checkResponse(create, { status: 200, headers: headers(JSON_TYPE), body });
    expect(checked.ok && checked.exact.get("/id")?.integer).toBe(9007199254740993n);
  });
});

describe("bodies of plain text, and JSON under a media range", () => {
  const ranges = compileContract(
    openApi(
      {
        "/raw": {
          post: {
            operationId: "raw",
            requestBody: { content: { "text/plain": { schema: { type: "string", maxLength: 5 } } } },
            responses: {
              "200": { description: "ok", content: { "text/*": { schema: { type: "string", pattern: "^<" } } } },
            },
          },
        },
        "/any": {
          post: {
            operationId: "any",
            requestBody: { content: { "*/*": { schema: object(["a"], { a: { type: "integer" } }) } } },
            responses: {
              "200": { description: "ok", content: { "application/*": { schema: object(["b"], { b: string }) } } },
            },
          },
        },
      },
      { openapi: "3.0.3", title: "text and ranges" },
    ),
    "ranges.yaml",
  );
  const raw = ranges.operation("raw")!;
  const any = ranges.operation("any")!;
  const request = (op: typeof raw, type: string, body: Body) =>
    summary(checkRequest(op, { headers: headers(type), body: bytes(body) }));
  const answer = (op: typeof raw, type: string, body: Body) =>
    summary(checkResponse(op, { status: 200, headers: headers(type), body: bytes(body) as Uint8Array }));

  it("a text body is judged as the string its schema describes, decoded as UTF-8", () => {
    expect(request(raw, "text/plain", "short")).toEqual(ok(undefined));
    expect(request(raw, "text/plain; charset=utf-8", "too long")).toEqual(
      no("schema", containing("must NOT have more than 5 characters")),
    );
    expect(answer(raw, "text/html", "<p>")).toEqual(ok(undefined));
    expect(answer(raw, "text/html", "p")).toEqual(no("schema", containing("pattern")));
  });

  it("a text body the contract does not say how to read is left unjudged: another charset, bytes not UTF-8", () => {
    expect(request(raw, "text/plain; charset=iso-8859-1", "too long")).toEqual(ok(undefined));
    expect(request(raw, "text/plain", [0xff, 0xfe])).toEqual(ok(undefined));
  });

  it("JSON sent under a range is judged by the schema; another type under it is not read", () => {
    expect(request(any, JSON_TYPE, '{"a":1}')).toEqual(ok({ a: 1 }));
    expect(request(any, JSON_TYPE, '{"a":"x"}')).toEqual(no("schema", containing("body/a")));
    expect(request(any, "application/vnd.api+json", "{")).toEqual(no("json", notJson));
    expect(request(any, "text/csv", "a,b")).toEqual(ok(undefined));
    expect(answer(any, JSON_TYPE, "{}")).toEqual(no("schema", "body/b: is required (required)"));
    expect(answer(any, "application/octet-stream", "{}")).toEqual(ok(undefined));
  });
});

describe("answers that carry no content by HTTP", () => {
  it("a 204 is judged without a body, even where the document gives it content (Asana's removeUser)", () => {
    const c = compileContract(
      openApi(
        {
          "/x": {
            post: {
              operationId: "x",
              responses: {
                "204": {
                  description: "empty",
                  content: { "application/json": { schema: { type: "object", required: ["data"] } } },
                },
              },
            },
          },
        },
        { openapi: "3.0.0" },
      ),
      "no-content.yaml",
    );
    const checked = checkResponse(c.operation("x")!, { status: 204, headers: {}, body: new Uint8Array() });
    expect(summary(checked)).toEqual(ok(undefined));
  });
});
