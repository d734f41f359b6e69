import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { kitContract } from "../../test/helpers.js";
import { tempDir } from "../../test/temp-dir.js";
import { KitError } from "../errors.js";
import { DEFAULT_SPEC, KIT_ROOT } from "../paths.js";
import { compileContract } from "./contract.js";
import { resolvePointer } from "./json-pointer.js";
import { loadContract } from "./load-contract.js";
import { matchMediaType } from "./media-type.js";
import { openApi } from "../../test/openapi-doc.js";

const run = promisify(execFile);

describe("the kit's OpenAPI document", () => {
  it("is valid OpenAPI 3.1.0 with the seed's one operation", async () => {
    const api = (await SwaggerParser.validate(DEFAULT_SPEC)) as unknown as Record<string, any>;
    expect(api.openapi).toBe("3.1.0");
    expect(api.info.version).toBe("1.0.0");
    expect(Object.keys(api.paths)).toEqual(["/plants"]);
    expect(Object.keys(api.paths["/plants"])).toEqual(["post"]);
    expect(api.security).toEqual([{ bearerAuth: [] }]);
    expect(api.components.securitySchemes.bearerAuth).toEqual({ type: "http", scheme: "bearer" });
    const op = api.paths["/plants"].post;
    expect(op.operationId).toBe("createPlant");
    expect(op.requestBody.required).toBe(true);
    expect(Object.keys(op.responses)).toEqual(["200", "400"]);
  });

  it("adds no rule the seed does not state (no limits, enums or closed objects)", () => {
    const text = readFileSync(DEFAULT_SPEC, "utf8");
    for (const keyword of [
      "maxLength",
      "minLength",
      "enum",
      "additionalProperties",
      "minimum",
      "maximum",
      "pattern",
      "uniqueItems",
    ]) {
      expect(text, keyword).not.toContain(`${keyword}:`);
    }
  });

  it("passes Spectral's OpenAPI ruleset with no errors", async () => {
    const spectral = join(KIT_ROOT, "node_modules", ".bin", "spectral");
    // Spectral exits non-zero when it finds errors; its JSON is on stdout either way.
    const stdout = await run(spectral, ["lint", "--quiet", "--format", "json", DEFAULT_SPEC], { cwd: KIT_ROOT }).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? "",
    );
    const findings = JSON.parse(stdout) as { severity: number; code: string }[];
    expect(findings.filter((f) => f.severity === 0)).toEqual([]);
  });

  it("has examples that validate against their own schemas", async () => {
    const contract = await kitContract();
    const api = (await SwaggerParser.parse(DEFAULT_SPEC)) as unknown as Record<string, any>;
    const op = contract.operation("createPlant")!;
    const checked: string[] = [];
    const entries = [
      ...[...op.requestBody!.content.values()],
      ...[...op.responses.values()].flatMap((r) => [...r.content.values()]),
    ];
    for (const entry of entries) {
      const examples =
        (resolvePointer(api, entry.pointer) as { examples?: Record<string, { value: unknown }> }).examples ?? {};
      expect(Object.keys(examples).length, entry.pointer).toBeGreaterThan(0);
      for (const [name, example] of Object.entries(examples)) {
        expect(entry.validate(example.value), `${entry.pointer} example ${name}`).toEqual([]);
        checked.push(name);
      }
    }
    expect(checked.length).toBe(3);
  });
});

describe("loadContract", () => {
  const write = (name: string, doc: unknown): string => {
    const dir = tempDir("plantstore-spec-");
    const file = join(dir, name);
    writeFileSync(file, typeof doc === "string" ? doc : JSON.stringify(doc));
    return file;
  };

  it("reports an unreadable document with PS_SPEC_UNREADABLE and the path", async () => {
    const err = await loadContract("/nonexistent/spec.yaml").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KitError);
    expect((err as KitError).code).toBe("PS_SPEC_UNREADABLE");
    expect((err as KitError).message).toContain("/nonexistent/spec.yaml");
  });

  it("reports a document that is not OpenAPI with PS_SPEC_INVALID", async () => {
    const file = write("bad.json", {
      openapi: "3.1.0",
      info: { title: "x" },
      paths: { "/a": { get: { responses: "nope" } } },
    });
    const err = await loadContract(file).catch((e: unknown) => e);
    expect((err as KitError).code).toBe("PS_SPEC_INVALID");
  });

  it("compiles an OpenAPI 3.0 document in its own dialect (nullable, boolean exclusiveMinimum)", async () => {
    const file = write(
      "v30.json",
      openApi(
        {
          "/things/{id}": {
            put: {
              operationId: "putThing",
              requestBody: {
                required: true,
                content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
              },
              responses: {
                "2XX": { description: "ok" },
                default: { description: "err", content: { "application/json": { schema: { type: "object" } } } },
              },
            },
          },
        },
        {
          openapi: "3.0.3",
          components: {
            schemas: {
              Thing: {
                type: "object",
                properties: {
                  size: { type: "number", minimum: 0, exclusiveMinimum: true },
                  note: { type: "string", nullable: true },
                },
              },
            },
          },
        },
      ),
    );
    const contract = await loadContract(file);
    expect(contract.dialect).toBe("openapi-3.0");
    const route = contract.route("PUT", "/things/a%20b");
    expect(route.kind).toBe("found");
    if (route.kind !== "found") return;
    expect(route.params).toEqual({ id: "a b" });
    const entry = route.operation.requestMediaType("application/json")!;
    expect(entry.validate({ size: 1, note: null })).toEqual([]);
    expect(entry.validate({ size: 0 }).map((v) => v.keyword)).toEqual(["exclusiveMinimum"]);
    expect(route.operation.responseFor(204)?.status).toBe("2XX");
    expect(route.operation.responseFor(503)?.status).toBe("default");
    expect(route.operation.security).toEqual([]);
  });

  it("compiles circular schemas", () => {
    const contract = compileContract(
      openApi(
        {
          "/tree": {
            post: {
              requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } },
              responses: { "200": { description: "ok" } },
            },
          },
        },
        {
          components: {
            schemas: {
              Node: {
                type: "object",
                properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
              },
            },
          },
        },
      ),
      "inline",
    );
    const op = contract.operation("POST /tree")!;
    const entry = op.requestMediaType("application/json")!;
    expect(entry.validate({ children: [{ children: [] }] })).toEqual([]);
    expect(entry.validate({ children: [{ children: 3 }] })[0]?.location).toBe("body/children/0/children");
  });

  it("knows when an operation needs no credentials: no requirement, or an empty one among them", () => {
    const doc = (security: unknown) =>
      compileContract(
        openApi(
          { "/a": { get: { responses: { "200": { description: "ok" } } } } },
          { security, components: { securitySchemes: { b: { type: "http", scheme: "bearer" } } } },
        ),
        "inline",
      );
    expect(doc([{ b: [] }]).operation("GET /a")!.authRequired).toBe(true);
    expect(doc([{}, { b: [] }]).operation("GET /a")!.authRequired).toBe(false);
    expect(doc([]).operation("GET /a")!.authRequired).toBe(false);
  });

  it("routes: found, method not allowed with the allowed list, not found", async () => {
    const contract = await kitContract();
    expect(contract.route("POST", "/plants").kind).toBe("found");
    expect(contract.route("GET", "/plants")).toEqual({ kind: "method-not-allowed", allowed: ["POST"] });
    expect(contract.route("POST", "/plants/1")).toEqual({ kind: "not-found" });
  });
});

describe("matchMediaType", () => {
  const keys = new Map([
    ["application/json", 1],
    ["text/*", 2],
    ["*/*", 3],
  ]);
  it.each([
    ["application/json", 1],
    ["Application/JSON; charset=utf-8", 1],
    ["text/plain", 2],
    ["image/png", 3],
  ])("%s -> %s", (header, value) => {
    expect(matchMediaType(keys, header)?.value).toBe(value);
  });
  it("matches nothing for a missing or malformed header", () => {
    expect(matchMediaType(keys, undefined)).toBeUndefined();
    expect(matchMediaType(keys, "json")).toBeUndefined();
  });
  it("reads a documented bare `*` as `*/*`, the range its authors mean (Telnyx)", () => {
    const bare = new Map([["*", 4]]);
    expect(matchMediaType(bare, "application/pdf")).toEqual({ key: "*", value: 4 });
    expect(matchMediaType(bare, "*")).toBeUndefined();
  });
});

describe("parseMediaType", () => {
  it.each([
    ["application/json", "application/json", {}],
    ["Application/JSON; Charset=UTF-8", "application/json", { charset: "UTF-8" }],
    [
      'application/json; foo="a;charset=latin1"; charset=utf-8',
      "application/json",
      { foo: "a;charset=latin1", charset: "utf-8" },
    ],
    ['text/plain; x="q\\"uote"', "text/plain", { x: 'q"uote' }],
  ])("%s", async (header, essence, parameters) => {
    const { parseMediaType } = await import("./media-type.js");
    const parsed = parseMediaType(header)!;
    expect(parsed.essence).toBe(essence);
    expect({ ...parsed.parameters }).toEqual(parameters);
  });
});

describe("header parameters that are HTTP's own", () => {
  it("are left to HTTP as Accept, Content-Type and Authorization are, each with a note", () => {
    const header = (name: string) => ({ name, in: "header", required: true, schema: { type: "integer", minimum: 1 } });
    const doc = openApi({
      "/uploads": {
        post: {
          operationId: "upload",
          parameters: [header("Content-Length"), header("Transfer-Encoding"), header("Host"), header("X-Trace")],
          requestBody: { content: { "application/json": { schema: { type: "object" } } } },
          responses: { "201": { description: "made" } },
        },
      },
    });
    const contract = compileContract(doc, "doc.json");
    expect(contract.operation("upload")!.parameters.map((p) => p.name)).toEqual(["X-Trace"]);
    expect(contract.notes.map((n) => n.message)).toEqual([
      "the header parameter Content-Length is HTTP's own (RFC 9110 7.6.1, RFC 9112 6): left to HTTP, not judged",
      "the header parameter Transfer-Encoding is HTTP's own (RFC 9110 7.6.1, RFC 9112 6): left to HTTP, not judged",
      "the header parameter Host is HTTP's own (RFC 9110 7.6.1, RFC 9112 6): left to HTTP, not judged",
    ]);
  });
});
