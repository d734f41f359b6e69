import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/temp-dir.js";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import { loadContract, readContractDocument } from "./load-contract.js";
import { openapiSchemaProblems } from "./openapi-schema.js";
import { openApi } from "../../test/openapi-doc.js";

const OAI_EXAMPLES = join(KIT_ROOT, "test", "data", "oai-examples");
const SPLIT_SPEC = join(KIT_ROOT, "test", "data", "split-spec", "openapi.yaml");

// The OpenAPI Initiative's example documents (learn.openapis.org, examples/v3.0 and v3.1, copied
// unchanged: see test/data/oai-examples/README.md), with the operations each one has under `paths`.
const EXAMPLES: [string, string[]][] = [
  ["v3.0/api-with-examples.yaml", ["GET /", "GET /v2"]],
  ["v3.0/callback-example.yaml", ["POST /streams"]],
  [
    "v3.0/link-example.yaml",
    [
      "GET /2.0/users/{username}",
      "GET /2.0/repositories/{username}",
      "GET /2.0/repositories/{username}/{slug}",
      "GET /2.0/repositories/{username}/{slug}/pullrequests",
      "GET /2.0/repositories/{username}/{slug}/pullrequests/{pid}",
      "POST /2.0/repositories/{username}/{slug}/pullrequests/{pid}/merge",
    ],
  ],
  ["v3.0/petstore-expanded.yaml", ["GET /pets", "POST /pets", "GET /pets/{id}", "DELETE /pets/{id}"]],
  ["v3.0/petstore.yaml", ["GET /pets", "POST /pets", "GET /pets/{petId}"]],
  ["v3.0/uspto.yaml", ["GET /", "GET /{dataset}/{version}/fields", "POST /{dataset}/{version}/records"]],
  ["v3.1/non-oauth-scopes.yaml", ["GET /users"]],
  ["v3.1/tictactoe.yaml", ["GET /board", "GET /board/{row}/{column}", "PUT /board/{row}/{column}"]],
  // Webhooks only: a valid 3.1 document with no operation to call.
  ["v3.1/webhook-example.yaml", []],
];

describe("the OpenAPI Initiative's example documents", () => {
  it.each(EXAMPLES)("%s is valid against the current OpenAPI schema", async (name) => {
    const dereferenced = await SwaggerParser.dereference(join(OAI_EXAMPLES, name), {
      dereference: { circular: "ignore" },
    });
    expect(openapiSchemaProblems(dereferenced as never)).toEqual([]);
  });

  it.each(EXAMPLES)("%s loads and compiles with all its operations", async (name, operations) => {
    const contract = await loadContract(join(OAI_EXAMPLES, name));
    expect(contract.operations.map((o) => `${o.method.toUpperCase()} ${o.pathTemplate}`)).toEqual(operations);
  });

  it("tictactoe.yaml's `scheme: Bearer` (any case, as the current 3.1 schema allows) is an http bearer scheme", async () => {
    const file = join(OAI_EXAMPLES, "v3.1", "tictactoe.yaml");
    expect(readFileSync(file, "utf8")).toContain("scheme: Bearer");
    const contract = await loadContract(file);
    const bearer = contract.operations
      .flatMap((o) => o.security.flat())
      .filter((s) => s.name === "bearerHttpAuthentication");
    expect(bearer.length).toBeGreaterThan(0);
    for (const s of bearer) expect([s.type, s.scheme]).toEqual(["http", "bearer"]);
  });
});

describe("a document split across files (test/data/split-spec)", () => {
  it("its $refs to YAML, JSON and Markdown files are bundled into one valid document", async () => {
    const document = await readContractDocument(SPLIT_SPEC);
    const text = JSON.stringify(document);
    expect(text).not.toMatch(/"\$ref":"(?!#)/);
    expect((document.info as { description: string }).description).toBe(
      readFileSync(join(KIT_ROOT, "test", "data", "split-spec", "description.md"), "utf8"),
    );
    expect(Object.keys(document.paths as object)).toEqual(["/things", "/things/{thingId}"]);
    // The path item file's own relative $refs (../components.yaml, ../schemas.json) resolved too.
    expect(JSON.stringify((document.paths as Record<string, unknown>)["/things/{thingId}"])).toContain(
      '"name":"thingId"',
    );
  });

  // Bundling turns the second use of ./components.yaml#/responses/... into an internal $ref into another
  // operation's response: its content compiles from where it really lives.
  it("loads and compiles, with its operations and their $ref'd parameters and responses", async () => {
    const contract = await loadContract(SPLIT_SPEC);
    expect(contract.operations.map((o) => o.operationId)).toEqual([
      "listThings",
      "createThing",
      "getThing",
      "deleteThing",
    ]);
    const get = contract.operation("getThing")!;
    expect(get.matchPath("/things/7")).toEqual({ thingId: "7" });
    const thing = get.responseFor(200)!.content.get("application/json")!;
    expect(thing.validate({ id: 1, name: "a" })).toEqual([]);
    expect(thing.validate({ id: 1, name: "a", extra: true }).length).toBeGreaterThan(0);
    const problem = get.responseFor(404)!.content.get("application/problem+json")!;
    expect(problem.validate({ title: "No such thing", status: 404 })).toEqual([]);
    expect(problem.validate({ title: "No such thing" }).length).toBeGreaterThan(0);
    const bad = contract.operation("createThing")!.responseFor(400)!.content.get("application/problem+json")!;
    expect(bad.validate({ title: "Bad", status: 400 })).toEqual([]);
  });

  it("a $ref to a file that does not exist: PS_SPEC_UNREADABLE, naming the file", async () => {
    const dir = tempDir("plantstore-split-");
    writeFileSync(
      join(dir, "openapi.yaml"),
      "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    $ref: ./paths/missing.yaml\n",
    );
    const err = await loadContract(join(dir, "openapi.yaml")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KitError);
    expect((err as KitError).code).toBe("PS_SPEC_UNREADABLE");
    expect((err as KitError).message).toContain(join(dir, "openapi.yaml"));
    expect((err as KitError).message).toContain(join(dir, "paths", "missing.yaml"));
    expect((err as KitError).message).toContain("ENOENT");
  });

  it("a $ref in example data is data, not a reference: the document loads with it as written (GitHub's ghec.json)", async () => {
    const dir = tempDir("plantstore-split-");
    writeFileSync(join(dir, "schemas.json"), JSON.stringify({ Thing: { type: "object", required: ["id"] } }));
    const example = { stats: { $ref: "never-published.yaml" } };
    const doc = openApi(
      {
        "/a": {
          get: {
            responses: {
              "200": {
                description: "ok",
                content: {
                  "application/json": {
                    schema: { $ref: "schemas.json#/Thing" },
                    examples: { stats: { $ref: "#/components/examples/Stats" } },
                  },
                },
              },
            },
          },
        },
      },
      { openapi: "3.0.3", components: { examples: { Stats: { value: example } } } },
    );
    writeFileSync(join(dir, "openapi.json"), JSON.stringify(doc));
    const contract = await loadContract(join(dir, "openapi.json"));
    const loaded = contract.document as { components: { examples: { Stats: { value: unknown } } } };
    expect(loaded.components.examples.Stats.value).toEqual(example);
    const entry = contract.operation("GET /a")!.responseFor(200)!.content.get("application/json")!;
    expect(entry.validate({}).map((v) => v.location)).toEqual(["body/id"]);
  });

  it("a $ref to a pointer that another file does not have: PS_SPEC_INVALID, naming where and what", async () => {
    const dir = tempDir("plantstore-split-");
    writeFileSync(join(dir, "schemas.json"), JSON.stringify({ Thing: { type: "object" } }));
    writeFileSync(
      join(dir, "openapi.yaml"),
      "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A:\n      $ref: ./schemas.json#/Thingy\n",
    );
    const err = await loadContract(join(dir, "openapi.yaml")).catch((e: unknown) => e);
    expect((err as KitError).code).toBe("PS_SPEC_INVALID");
    expect((err as KitError).message).toContain(
      `/components/schemas/A $ref points to nothing: ${join(dir, "schemas.json")}#/Thingy does not exist`,
    );
  });
});

describe("invalid documents are refused with the JSON pointer and the reason", () => {
  const info = { title: "t", version: "1" };
  const ok = { "200": { description: "ok" } };
  it.each([
    [
      "3.1, a field of the wrong type",
      { openapi: "3.1.0", info: { title: 5, version: "1" }, paths: {} },
      "/info/title must be string",
    ],
    [
      "3.0, a field of the wrong type",
      { openapi: "3.0.3", info, paths: { "/a": { get: { responses: "x" } } } },
      "/paths/~1a/get/responses must be object",
    ],
    [
      "an unknown version",
      { openapi: "4.0.0", info, paths: {} },
      '/openapi "4.0.0" is not a supported version (3.0.x or 3.1.x)',
    ],
    [
      "OpenAPI 3.2",
      { openapi: "3.2.0", info, paths: {} },
      '/openapi "3.2.0" is not a supported version (3.0.x or 3.1.x)',
    ],
    ["Swagger 2.0", { swagger: "2.0", info, paths: {} }, '/swagger "2.0" is not a supported version (3.0.x or 3.1.x)'],
    [
      "the version as a number",
      { openapi: 3.1, info, paths: {} },
      '/openapi must be a string such as "3.1.0", not 3.1',
    ],
    ["no version", { info, paths: {} }, `/ must have required property 'openapi' (the version, "3.0.x" or "3.1.x")`],
    ["3.1 without info", { openapi: "3.1.0", paths: {} }, "/ must have required property 'info'"],
    ["3.0 without info", { openapi: "3.0.3", paths: {} }, "/ must have required property 'info'"],
    [
      "3.1, an unknown field",
      { openapi: "3.1.0", info, paths: { "/a": { get: { bogus: 1, responses: ok } } } },
      "/paths/~1a/get must NOT have unevaluated properties (bogus)",
    ],
    [
      "3.0, an unknown field",
      { openapi: "3.0.3", info, paths: {}, bogus: 1 },
      "/ must NOT have additional properties (bogus)",
    ],
    [
      "3.1, a parameter in the body",
      { openapi: "3.1.0", info, paths: { "/a": { get: { parameters: [{ name: "x", in: "body" }], responses: ok } } } },
      '/paths/~1a/get/parameters/0/in must be equal to one of the allowed values: "query", "header", "path", "cookie"',
    ],
    [
      "3.0, a parameter in the body",
      { openapi: "3.0.3", info, paths: { "/a": { get: { parameters: [{ name: "x", in: "body" }], responses: ok } } } },
      '/paths/~1a/get/parameters/0/in must be equal to one of the allowed values: "path", "query", "header", "cookie"',
    ],
    [
      "3.1, a path parameter not required",
      {
        openapi: "3.1.0",
        info,
        paths: { "/a/{x}": { get: { parameters: [{ name: "x", in: "path", schema: {} }], responses: ok } } },
      },
      "/paths/~1a~1{x}/get/parameters/0 must have required property 'required'",
    ],
    [
      "3.1, a $ref to nothing",
      { openapi: "3.1.0", info, paths: {}, components: { schemas: { A: { $ref: "#/components/schemas/B" } } } },
      '/components/schemas/A $ref points to nothing: #/components/schemas/B does not exist (no "B")',
    ],
  ])("%s", async (_name, doc, reason) => {
    const file = join(tempDir("plantstore-invalid-"), "spec.json");
    writeFileSync(file, JSON.stringify(doc));
    const err = await loadContract(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KitError);
    expect((err as KitError).code).toBe("PS_SPEC_INVALID");
    expect((err as KitError).message).toContain(`${file}: `);
    expect((err as KitError).message.split(`${file}: `)[1]!.split("; ")[0]).toBe(reason);
  });

  it("a YAML syntax error: PS_SPEC_UNREADABLE with the file and the line", async () => {
    const file = join(tempDir("plantstore-invalid-"), "spec.yaml");
    writeFileSync(file, "openapi: 3.1.0\ninfo: [\n");
    const err = await loadContract(file).catch((e: unknown) => e);
    expect((err as KitError).code).toBe("PS_SPEC_UNREADABLE");
    expect((err as KitError).message).toContain(file);
    expect((err as KitError).message).toMatch(/\(3:1\)/);
  });

  it("many problems: the most specific first, five of them and a count of the rest", () => {
    const paths = Object.fromEntries(
      [1, 2, 3, 4, 5, 6, 7].map((n) => [`/p${n}`, { get: { responses: { "200": {} } } }]),
    );
    const problems = openapiSchemaProblems({ openapi: "3.1.0", info, paths });
    expect(problems).toEqual([
      "/paths/~1p1/get/responses/200 must have required property 'description'",
      "/paths/~1p2/get/responses/200 must have required property 'description'",
      "/paths/~1p3/get/responses/200 must have required property 'description'",
      "/paths/~1p4/get/responses/200 must have required property 'description'",
      "/paths/~1p5/get/responses/200 must have required property 'description'",
      "and 2 more",
    ]);
  });
});

describe("a document in one file", () => {
  it("with circular and chained $refs loads (circular ones left in place for the schema check)", async () => {
    const file = join(tempDir("plantstore-circular-"), "spec.yaml");
    writeFileSync(
      file,
      [
        "openapi: 3.1.0",
        "info: {title: t, version: '1'}",
        "paths:",
        "  /tree:",
        "    post:",
        "      requestBody:",
        "        content:",
        "          application/json:",
        "            schema: {$ref: '#/components/schemas/Tree'}",
        "      responses:",
        "        '204': {$ref: '#/components/responses/Done'}",
        "components:",
        "  responses:",
        "    Done: {$ref: '#/components/responses/Empty'}",
        "    Empty: {description: done}",
        "  schemas:",
        "    Tree: {$ref: '#/components/schemas/Node'}",
        "    Node:",
        "      type: object",
        "      properties:",
        "        children: {type: array, items: {$ref: '#/components/schemas/Tree'}}",
        "",
      ].join("\n"),
    );
    const contract = await loadContract(file);
    const body = contract.operations[0]!.requestMediaType("application/json")!;
    expect(body.validate({ children: [{ children: [] }] })).toEqual([]);
    expect(body.validate({ children: [{ children: 5 }] }).length).toBeGreaterThan(0);
    expect(contract.operations[0]!.responseFor(204)?.status).toBe("204");
  });
});

describe("valid documents of every 3.0.x and 3.1.x shape load (swagger-parser's own parse() refuses the first)", () => {
  it.each([
    [
      "3.1 with components only, no paths",
      { openapi: "3.1.0", info: { title: "t", version: "1" }, components: { schemas: { A: { type: "object" } } } },
    ],
    [
      "3.1 with webhooks only",
      {
        openapi: "3.1.1",
        info: { title: "t", version: "1" },
        webhooks: { ping: { post: { responses: { "200": { description: "ok" } } } } },
      },
    ],
    ["3.0.4", openApi({}, { openapi: "3.0.4" })],
    ["3.1.2", openApi({}, { openapi: "3.1.2" })],
  ])("%s", async (_name, doc) => {
    const file = join(tempDir("plantstore-valid-"), "spec.json");
    writeFileSync(file, JSON.stringify(doc));
    const contract = await loadContract(file);
    expect(contract.operations).toEqual([]);
    expect(contract.openapi).toBe(doc.openapi);
  });
});

describe("GitHub's REST API document (npm @octokit/openapi, a pinned devDependency)", () => {
  const GITHUB = join(KIT_ROOT, "node_modules", "@octokit", "openapi", "generated", "api.github.com.json");
  // A large document (13 MB, 1,000+ operations, 3.0 nullable without type in 145 schemas): it takes
  // seconds to load, so this test has a time limit of its own (no assertion on the time).
  it("loads, with its 1,000+ operations, and its nullable-without-type schemas accept null", async () => {
    const contract = await loadContract(GITHUB);
    expect(contract.operations.length).toBeGreaterThan(1000);
    const op = contract.operation("apps/get-installation")!;
    const entry = op.responseFor(200)!.content.get("application/json")!;
    const examples = (contract.document as { components: { examples: Record<string, { value: object }> } }).components
      .examples;
    const example = examples["base-installation"]!.value;
    expect(entry.validate(example)).toEqual([]);
    // account: {nullable: true, anyOf: [simple-user, enterprise]}
    expect(entry.validate({ ...example, account: null })).toEqual([]);
    expect(entry.validate({ ...example, account: 5 }).map((v) => v.location)).toContain("body/account");
    expect(contract.route("GET", "/app/installations/7")).toMatchObject({ kind: "found", operation: op });
  }, 180_000);
});
