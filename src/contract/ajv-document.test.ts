import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/temp-dir.js";
import { checkRequest, checkResponse } from "./acceptability.js";
import { compileContract, type Contract } from "./contract.js";
import { loadContract } from "./load-contract.js";

type Json = Record<string, unknown>;
const enc = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const JSON_HEADERS = { "content-type": "application/json" };

/** A document whose one operation takes and answers `schema`, with `components.schemas`. */
function documentWith(openapi: string, schema: unknown, schemas: Json = {}): Json {
  const content = { "application/json": { schema } };
  return {
    openapi,
    info: { title: "t", version: "1" },
    paths: {
      "/a": {
        post: {
          operationId: "postA",
          requestBody: { required: true, content },
          responses: { "200": { description: "ok", content } },
        },
      },
    },
    components: { schemas },
  };
}

/** The body validator of the request and of the response, as "location keyword" lines per value. */
function judge(contract: Contract): { request: (v: unknown) => string[]; response: (v: unknown) => string[] } {
  const op = contract.operation("postA")!;
  const lines = (violations: readonly { location: string; keyword: string }[]) =>
    violations.map((v) => `${v.location} ${v.keyword}`);
  return {
    request: (v) => lines(op.requestBody!.content.get("application/json")!.validate(v)),
    response: (v) => lines(op.responses.get("200")!.content.get("application/json")!.validate(v)),
  };
}

const USER = { type: "object", required: ["login"], properties: { login: { type: "string" } } };

describe("OpenAPI 3.0 nullable without type (GitHub's REST API document has 145)", () => {
  // [case, schema, values accepted, values refused with their "location keyword" lines]
  const cases: [string, unknown, unknown[], [unknown, string[]][]][] = [
    [
      "beside allOf: [$ref], null is accepted too",
      { nullable: true, allOf: [{ $ref: "#/components/schemas/User" }] },
      [null, { login: "octocat" }],
      [
        [{}, ["body/login required"]],
        ["x", ["body type"]],
      ],
    ],
    ["alone: no effect, anything is accepted", { nullable: true }, [null, 1, "x", {}], []],
    [
      "beside oneOf",
      { nullable: true, oneOf: [{ type: "string" }, { type: "integer" }] },
      [null, "x", 3],
      [[true, ["body type", "body type", "body oneOf"]]],
    ],
    [
      "beside anyOf",
      { nullable: true, anyOf: [{ type: "string" }, { type: "integer" }] },
      [null, "x", 3],
      [[true, ["body type", "body type", "body anyOf"]]],
    ],
    [
      "beside a $ref",
      { nullable: true, $ref: "#/components/schemas/User" },
      [null, { login: "octocat" }],
      [[{}, ["body/login required"]]],
    ],
    [
      "with type and allOf: null passes allOf too",
      { type: "object", nullable: true, allOf: [{ $ref: "#/components/schemas/User" }] },
      [null, { login: "octocat" }],
      [[{ login: 1 }, ["body/login type"]]],
    ],
    [
      "in a property: the violations keep their locations",
      {
        type: "object",
        properties: { owner: { nullable: true, allOf: [{ $ref: "#/components/schemas/User" }] } },
      },
      [{ owner: null }, { owner: { login: "octocat" } }],
      [[{ owner: { login: 5 } }, ["body/owner/login type"]]],
    ],
    [
      "nullable: false without type: no effect",
      { nullable: false, allOf: [{ $ref: "#/components/schemas/User" }] },
      [{ login: "octocat" }],
      [[null, ["body type"]]],
    ],
  ];
  it.each(cases)("%s", (_name, schema, accepted, refused) => {
    const contract = compileContract(documentWith("3.0.3", schema, { User: USER }), "inline");
    const { request, response } = judge(contract);
    for (const value of accepted) {
      expect(request(value), JSON.stringify(value)).toEqual([]);
      expect(response(value), JSON.stringify(value)).toEqual([]);
    }
    for (const [value, lines] of refused) expect(request(value), JSON.stringify(value)).toEqual(lines);
    expect(contract.notes).toEqual([]);
  });

  it("leaves the user's document as written, and $refs into what moved still resolve", () => {
    const owner = { nullable: true, allOf: [{ $ref: "#/components/schemas/User" }, { required: ["id"] }] };
    const doc = documentWith(
      "3.0.3",
      { type: "object", properties: { owner: { $ref: "#/components/schemas/Owner" } } },
      { User: USER, Owner: owner, Id: { $ref: "#/components/schemas/Owner/allOf/1" } },
    );
    const before = structuredClone(doc);
    const contract = compileContract(doc, "inline");
    expect(doc).toEqual(before);
    expect((contract.document as { components: { schemas: Json } }).components.schemas.Owner).toEqual(owner);
    expect(judge(contract).request({ owner: null })).toEqual([]);
    expect(judge(contract).request({ owner: { login: "x" } })).toEqual(["body/owner/id required"]);
  });

  it("nested: $refs into moved keywords resolve, and a note names the pointer as the document writes it", () => {
    const owner = {
      nullable: true,
      allOf: [
        {
          nullable: true,
          allOf: [{ $ref: "#/components/schemas/User" }, { required: ["x"] }, { type: "strange" }],
        },
      ],
    };
    const schema = {
      type: "object",
      properties: {
        o: { $ref: "#/components/schemas/Owner" },
        deep: { $ref: "#/components/schemas/Owner/allOf/0/allOf/1" },
      },
    };
    const contract = compileContract(documentWith("3.0.3", schema, { User: USER, Owner: owner }), "inline");
    const { request } = judge(contract);
    expect(request({ o: null })).toEqual([]);
    expect(request({ o: {} })).toEqual(["body/o/login required", "body/o/x required"]);
    expect(request({ deep: {} })).toEqual(["body/deep/x required"]);
    expect(contract.notes.map((n) => n.pointer)).toEqual(["/components/schemas/Owner/allOf/0/allOf/2"]);
  });

  it("in a schema kept outside schema places (an x- field), which a $ref names", () => {
    const doc = documentWith("3.0.3", { $ref: "#/x-shared/Maybe" }, { User: USER });
    doc["x-shared"] = { Maybe: { nullable: true, $ref: "#/components/schemas/User" } };
    const { request } = judge(compileContract(doc, "inline"));
    expect(request(null)).toEqual([]);
    expect(request({})).toEqual(["body/login required"]);
  });

  it("loads a 3.0 document with these schemas through loadContract", async () => {
    const file = join(tempDir("plantstore-nullable-"), "spec.json");
    const schema = { type: "object", properties: { a: { nullable: true, $ref: "#/components/schemas/User" } } };
    writeFileSync(file, JSON.stringify(documentWith("3.0.3", schema, { User: USER })));
    const contract = await loadContract(file);
    expect(judge(contract).response({ a: null })).toEqual([]);
    expect(judge(contract).response({ a: {} })).toEqual(["body/a/login required"]);
  });
});

describe("nullable without type in an OpenAPI 3.1 document (carried over from 3.0; Ajv reads it in both)", () => {
  it("loads with no note, and is read as in 3.0: null accepted beside allOf", () => {
    const doc = documentWith(
      "3.1.0",
      { nullable: true, allOf: [{ $ref: "#/components/schemas/User" }] },
      { User: USER },
    );
    const contract = compileContract(doc, "n31.json");
    expect(contract.notes).toEqual([]);
    const { request } = judge(contract);
    expect(request(null)).toEqual([]);
    expect(request({})).toEqual(["body/login required"]);
  });
});

describe("examples that hold an $id (Box's API document: data, not schemas)", () => {
  it("loads, examples of schemas and media types alike, and validates as written", () => {
    const doc = documentWith("3.0.3", {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string" }, example: { type: "integer" } },
      example: { $id: "12345", id: "a" },
    });
    const op = (doc.paths as Json)["/a"] as Json;
    const content = ((op.post as Json).requestBody as Json).content as Json;
    (content["application/json"] as Json).examples = { one: { value: { $id: "12345", id: "b" } } };
    const contract = compileContract(doc, "box.json");
    const { request } = judge(contract);
    expect(request({ id: "a", example: 1 })).toEqual([]);
    // A property named "example" is a property, not an example: its schema still checks.
    expect(request({ id: "a", example: "x" })).toEqual(["body/example type"]);
  });
});

describe("enum: [] (JSON Schema: SHOULD be non-empty; Ajv refuses it)", () => {
  it.each([
    ["alone", { enum: [] }],
    ["beside not", { enum: [], not: { type: "string" } }],
  ])("%s compiles and matches nothing, with a note", (_name, schema) => {
    const contract = compileContract(
      documentWith("3.1.0", { type: "object", properties: { e: { $ref: "#/components/schemas/E" } } }, { E: schema }),
      "inline",
    );
    const { request } = judge(contract);
    expect(request({})).toEqual([]);
    for (const value of ["a", 1, null, {}]) expect(request({ e: value })).not.toEqual([]);
    expect(contract.notes).toEqual([
      { pointer: "/components/schemas/E/enum", message: "enum is empty: no value matches" },
    ]);
  });
});

describe("patterns", () => {
  it.each([
    ["an escaped quote", '^[^\\"]+$', ["ab"], ['a"b']],
    ["an escaped hyphen outside a class", "^a\\-b$", ["a-b"], ["ab"]],
  ])("valid only without the u flag (%s): compiled without it, with a note at its pointer", (_n, pattern, ok, bad) => {
    const schemas = { S: { type: "string", pattern } };
    const contract = compileContract(documentWith("3.0.3", { $ref: "#/components/schemas/S" }, schemas), "inline");
    const { request } = judge(contract);
    for (const value of ok) expect(request(value)).toEqual([]);
    for (const value of bad) expect(request(value)).toEqual(["body pattern"]);
    expect(contract.notes.map((n) => n.pointer)).toEqual(["/components/schemas/S/pattern"]);
    expect(contract.notes[0]!.message).toContain("without the u flag");
  });

  it("invalid either way: the pattern is left out with a note, the rest of the schema still checks", () => {
    const schemas = { S: { type: "string", pattern: "(", maxLength: 3 } };
    const contract = compileContract(documentWith("3.1.0", { $ref: "#/components/schemas/S" }, schemas), "inline");
    const { request } = judge(contract);
    expect(request("((")).toEqual([]);
    expect(request("abcd")).toEqual(["body maxLength"]);
    expect(contract.notes.map((n) => n.pointer)).toEqual(["/components/schemas/S/pattern"]);
  });

  it("a patternProperties name valid only without u: compiled without it, with a note", () => {
    const schema = { type: "object", patternProperties: { "^x\\-": { type: "integer" } } };
    const contract = compileContract(documentWith("3.1.0", schema), "inline");
    expect(judge(contract).request({ "x-a": "no" })).toEqual(["body/x-a type"]);
    expect(contract.notes.map((n) => n.pointer)).toEqual([
      "/paths/~1a/post/requestBody/content/application~1json/schema/patternProperties/^x\\-",
    ]);
  });
});

describe("a schema Ajv cannot compile", () => {
  // With a readOnly property, requests and responses compile from copies of their own: one note still.
  it.each([
    ["one copy for both directions", {}],
    ["a copy per direction", { id: { type: "integer", readOnly: true } }],
  ])("is left out with a note naming its pointer; the rest still validates (%s)", (_name, more) => {
    // 3.1 schemas are not checked keyword by keyword at load: an unknown type reaches the compiler.
    const schema = {
      type: "object",
      required: ["name", ...Object.keys(more)],
      properties: { name: { type: "string" }, odd: { $ref: "#/components/schemas/Odd" }, ...more },
    };
    const contract = compileContract(documentWith("3.1.0", schema, { Odd: { type: "strange" } }), "inline");
    const { request, response } = judge(contract);
    expect(request({ name: "x", odd: 1 })).toEqual([]);
    expect(request({ odd: 1 })).toEqual(["body/name required"]);
    expect(response({ name: 5, id: 1, odd: 1 })).toEqual(["body/name type"]);
    expect(contract.notes).toHaveLength(1);
    expect(contract.notes[0]!.pointer).toBe("/components/schemas/Odd");
    expect(contract.notes[0]!.message).toMatch(/cannot be compiled .*left out/);
  });

  it("a $ref to nothing is still refused: it is no valid OpenAPI", () => {
    const doc = documentWith("3.1.0", { $ref: "#/components/schemas/Missing" });
    expect(() => compileContract(doc, "inline")).toThrow(/cannot be compiled/);
  });
});

describe("readOnly and writeOnly by direction (OAS 3.0.3 Schema Object; the same annotations in 3.1)", () => {
  const plant = {
    type: "object",
    required: ["id", "name", "secret"],
    properties: {
      id: { type: "integer", readOnly: true },
      name: { type: "string" },
      secret: { $ref: "#/components/schemas/Secret" },
    },
  };
  const schemas = { Plant: plant, Secret: { type: "string", writeOnly: true } };
  it.each(["3.0.3", "3.1.0"])(
    "%s: a readOnly property is required in responses only, writeOnly in requests only",
    (v) => {
      const contract = compileContract(documentWith(v, { $ref: "#/components/schemas/Plant" }, schemas), "inline");
      const { request, response } = judge(contract);
      expect(request({ name: "fern", secret: "s" })).toEqual([]);
      expect(request({ name: "fern" })).toEqual(["body/secret required"]);
      // SHOULD NOT be sent is no rule a message can be blamed for: carrying them stays acceptable.
      expect(request({ id: 1, name: "fern", secret: "s" })).toEqual([]);
      expect(response({ id: 1, name: "fern" })).toEqual([]);
      expect(response({ name: "fern" })).toEqual(["body/id required"]);
      expect(response({ id: 1, name: "fern", secret: "s" })).toEqual([]);
      expect(request({ id: "x", name: "fern", secret: "s" })).toEqual(["body/id type"]);
    },
  );

  it("sees a readOnly property composed by allOf, and checkRequest/checkResponse follow it", () => {
    const composed = {
      allOf: [{ $ref: "#/components/schemas/Base" }, { required: ["id", "name"] }],
    };
    const base = { type: "object", properties: { id: { readOnly: true, type: "integer" }, name: { type: "string" } } };
    const contract = compileContract(documentWith("3.0.3", composed, { Base: base }), "inline");
    const op = contract.operation("postA")!;
    expect(checkRequest(op, { headers: JSON_HEADERS, body: enc({ name: "fern" }) }).ok).toBe(true);
    const missing = checkResponse(op, { status: 200, headers: JSON_HEADERS, body: enc({ name: "fern" }) });
    expect(missing.ok).toBe(false);
    expect(checkResponse(op, { status: 200, headers: JSON_HEADERS, body: enc({ id: 1, name: "f" }) }).ok).toBe(true);
    expect((contract.document as { components: { schemas: Json } }).components.schemas.Base).toEqual(base);
  });
});

describe("oneOf with a discriminator (the property names the branch, OAS 3.0.3 section 4.7.25)", () => {
  const Action = { type: "object", required: ["type"], properties: { type: { type: "string" } } };
  const Snapshot = {
    type: "object",
    required: ["type"],
    properties: { type: { type: "string" }, name: { type: "string" } },
  };
  it("a value that fits two branches is accepted; one that fits none is still refused", () => {
    const doc = documentWith(
      "3.0.3",
      {
        oneOf: [{ $ref: "#/components/schemas/Action" }, { $ref: "#/components/schemas/Snapshot" }],
        discriminator: { propertyName: "type" },
      },
      { Action, Snapshot },
    );
    const { request } = judge(compileContract(doc, "d.json"));
    expect(request({ type: "Action" })).toEqual([]);
    expect(request({ name: "x" }).some((l) => l.endsWith("anyOf"))).toBe(true);
  });
  it("without a discriminator, oneOf stays exclusive", () => {
    const doc = documentWith(
      "3.0.3",
      { oneOf: [{ $ref: "#/components/schemas/Action" }, { $ref: "#/components/schemas/Snapshot" }] },
      { Action, Snapshot },
    );
    const { request } = judge(compileContract(doc, "d.json"));
    expect(request({ type: "Action" })).toEqual(["body oneOf"]);
  });
});
