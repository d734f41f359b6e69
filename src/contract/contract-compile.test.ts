import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import { checkRequest, checkResponse } from "./acceptability.js";
import { compileContract, locateRef, schemaAt, type CompiledOperation, type Contract } from "./contract.js";
import { parseJsonExact } from "./exact-json.js";
import { resolvePointer } from "./json-pointer.js";
import { loadContract } from "./load-contract.js";
import type { Violation } from "./violations.js";
import { openApi } from "../../test/openapi-doc.js";

const MULTI = join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml");
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
type Json = Record<string, any>;

/**
 * Every pointer a compiled operation exposes, with what must be there: each resolves in the document
 * to the object itself (never a `$ref` stub), and the pointers the harness builds on them resolve too.
 */
function expectPointersResolve(contract: Contract): number {
  const doc = contract.document;
  let count = 0;
  const at = (pointer: string, what: string, check: (node: Json) => boolean): void => {
    const node = resolvePointer(doc, pointer) as Json | undefined;
    expect(node, `${what} ${pointer}`).toBeTypeOf("object");
    // A schema may be a $ref (Ajv follows it); every other object is cited where it really lives.
    if (what !== "schema") expect(node!.$ref, `${what} ${pointer} is a $ref stub`).toBeUndefined();
    expect(check(node!), `${what} ${pointer}`).toBe(true);
    count++;
  };
  const media = (pointer: string, hasSchema: boolean): void => {
    at(pointer, "media type", () => true);
    if (hasSchema) at(`${pointer}/schema`, "schema", () => true);
  };
  for (const op of contract.operations) {
    at(op.pointer, "operation", (n) => typeof n.responses === "object");
    at(`${op.pointer}/responses`, "responses", () => true);
    at(op.pointerOfSecurity, "security", (n) => Array.isArray(n) || typeof n.responses === "object");
    if (op.requestBody !== undefined) {
      at(op.requestBody.pointer, "request body", (n) => typeof n.content === "object");
      at(`${op.requestBody.pointer}/content`, "request content", () => true);
      for (const entry of op.requestBody.content.values()) media(entry.pointer, entry.hasSchema);
    }
    for (const p of op.parameters) {
      at(p.pointer, "parameter", (n) => n.name === p.name && n.in === p.in);
      if (p.content === undefined) at(`${p.pointer}/schema`, "schema", () => true);
      else media(p.content.pointer, p.content.schema !== undefined);
    }
    for (const r of op.responses.values()) {
      at(r.pointer, "response", (n) => typeof n.description === "string");
      if (r.content.size > 0) at(`${r.pointer}/content`, "response content", () => true);
      for (const entry of r.content.values()) media(entry.pointer, entry.hasSchema);
      for (const h of r.headers.values()) {
        at(h.pointer, "header", (n) => n.schema !== undefined || n.content !== undefined);
        if (h.content === undefined) at(`${h.pointer}/schema`, "schema", () => true);
        else media(h.content.pointer, h.content.schema !== undefined);
      }
    }
  }
  return count;
}

describe("the multi-operation Plant Store (test/data/multi-op/plant-store-multi.yaml)", () => {
  let contract: Contract;
  const op = (id: string): CompiledOperation => contract.operation(id)!;
  beforeAll(async () => {
    contract = await loadContract(MULTI);
  });

  it("loads, with every operation and POST /plants exactly as in spec/openapi.yaml", async () => {
    expect(contract.operations.map((o) => `${o.method.toUpperCase()} ${o.pathTemplate} ${o.operationId}`)).toEqual([
      "GET /plants listPlants",
      "POST /plants createPlant",
      "GET /plants/{id} getPlant",
      "PUT /plants/{id} updatePlant",
      "DELETE /plants/{id} deletePlant",
    ]);
    const kit = (await SwaggerParser.parse(join(KIT_ROOT, "spec", "openapi.yaml"))) as unknown as Json;
    const multi = (await SwaggerParser.parse(MULTI)) as unknown as Json;
    expect(multi.paths["/plants"].post).toEqual(kit.paths["/plants"].post);
    expect(multi.security).toEqual(kit.security);
    expect(multi.components.securitySchemes).toEqual(kit.components.securitySchemes);
    for (const name of ["Plant", "NewPlant", "Error"])
      expect(multi.components.schemas[name], name).toEqual(kit.components.schemas[name]);
    for (const o of contract.operations) expect(o.authRequired, o.operationId).toBe(true);
  });

  it("passes Spectral's OpenAPI ruleset with no finding at all", async () => {
    const spectral = join(KIT_ROOT, "node_modules", ".bin", "spectral");
    // Spectral exits non-zero when it finds errors; its JSON is on stdout either way.
    const stdout = await promisify(execFile)(spectral, ["lint", "--quiet", "--format", "json", MULTI], {
      cwd: KIT_ROOT,
    }).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? "",
    );
    expect(JSON.parse(stdout)).toEqual([]);
  });

  it("exposes only pointers that resolve in the document, to the objects themselves", () => {
    expect(expectPointersResolve(contract)).toBeGreaterThan(60);
    // Inline objects keep their operation-relative pointers; $ref'd ones are cited where they live.
    expect(op("createPlant").responses.get("400")!.pointer).toBe("/paths/~1plants/post/responses/400");
    expect(op("listPlants").responses.get("400")!.pointer).toBe("/components/responses/BadRequest");
    expect(op("updatePlant").requestBody!.pointer).toBe("/components/requestBodies/PlantUpdate");
    expect(op("updatePlant").requestBody!.content.get("application/json")!.pointer).toBe(
      "/components/requestBodies/PlantUpdate/content/application~1json",
    );
  });

  it("compiles every parameter, with the OpenAPI defaults and the path item's merged in", () => {
    const summary = (id: string) =>
      op(id).parameters.map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required,
        style: p.style,
        explode: p.explode,
        pointer: p.pointer,
      }));
    const limit = { name: "limit", in: "query", required: false, style: "form", explode: true };
    const tags = { name: "tags", in: "query", required: false, style: "form", explode: true };
    const requestId = { name: "X-Request-Id", in: "header", required: false, style: "simple", explode: false };
    const id = { name: "id", in: "path", required: true, style: "simple", explode: false };
    const units = { name: "units", in: "cookie", required: false, style: "form", explode: true };
    const at = (name: string) => ({ pointer: `/components/parameters/${name}` });
    expect(summary("listPlants")).toEqual([
      { ...limit, ...at("Limit") },
      { ...tags, ...at("Tags") },
      { ...requestId, ...at("RequestId") },
    ]);
    expect(summary("createPlant")).toEqual([]);
    expect(summary("getPlant")).toEqual([
      { ...id, ...at("PlantId") },
      { ...requestId, ...at("RequestId") },
      { ...units, ...at("Units") },
    ]);
    expect(summary("updatePlant")).toEqual([
      { ...id, ...at("PlantId") },
      { ...requestId, ...at("RequestId") },
    ]);
    // The delete's own X-Request-Id (required) replaces the path item's.
    expect(summary("deletePlant")).toEqual([
      { ...id, ...at("PlantId") },
      { ...requestId, required: true, pointer: "/paths/~1plants~1{id}/delete/parameters/0" },
    ]);
    const limitParam = op("listPlants").parameters[0]!;
    expect(limitParam).toMatchObject({ deprecated: false, allowReserved: false, allowEmptyValue: false });
    expect(limitParam.content).toBeUndefined();
    expect(limitParam.schema).toEqual({ type: "integer", format: "int32", minimum: 1, maximum: 100, default: 20 });
  });

  it("validates deserialised parameter values: accepted and refused by their schemas", () => {
    const [limit, tags, requestId] = op("listPlants").parameters;
    const units = op("getPlant").parameters[2]!;
    const keywords = (v: readonly Violation[]) => v.map((x) => `${x.location} ${x.keyword}`);
    for (const ok of [1, 20, 100]) expect(limit!.validate(ok), String(ok)).toEqual([]);
    expect(keywords(limit!.validate(0))).toEqual(["query/limit minimum"]);
    expect(keywords(limit!.validate(101))).toEqual(["query/limit maximum"]);
    expect(keywords(limit!.validate(1.5))).toEqual(["query/limit type"]);
    expect(keywords(limit!.validate("5"))).toEqual(["query/limit type"]);
    expect(tags!.validate(["fern", "palm"])).toEqual([]);
    expect(tags!.validate([])).toEqual([]);
    expect(keywords(tags!.validate([1]))).toEqual(["query/tags/0 type"]);
    expect(keywords(tags!.validate("fern"))).toEqual(["query/tags type"]);
    expect(requestId!.validate("0b3f5c1e-4d2a-4f6b-9c8d-7e6f5a4b3c2d")).toEqual([]);
    expect(keywords(requestId!.validate("not-a-uuid"))).toEqual(["header/X-Request-Id format"]);
    expect(units.validate("metric")).toEqual([]);
    expect(keywords(units.validate("kelvin"))).toEqual(["cookie/units enum"]);
  });

  it("judges int64 path ids exactly, beyond 2^53, as bigints or as exact JSON's stand-ins", () => {
    const id = op("getPlant").parameters[0]!;
    const refused = (v: unknown) => id.validate(v).map((x) => `${x.location} ${x.keyword}`);
    for (const ok of [0, 1, -1, 2 ** 53, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 10n])
      expect(id.validate(ok), String(ok)).toEqual([]);
    expect(refused(2n ** 63n)).toEqual(["path/id format"]);
    expect(refused(-(2n ** 63n) - 1n)).toEqual(["path/id format"]);
    expect(refused(10n ** 30n)).toEqual(["path/id format"]);
    expect(refused(1.5)).toEqual(["path/id type"]);
    expect(refused("10")).toEqual(["path/id type"]);
    // The representation a parsed body has: a stand-in double on the same side of the bounds.
    const standIn = (text: string) => (parseJsonExact(text) as { value: unknown }).value;
    expect(id.validate(standIn("9223372036854775807"))).toEqual([]);
    expect(refused(standIn("9223372036854775808"))).toEqual(["path/id format"]);
  });

  it("compiles response headers ($ref'd to components/headers) and bodiless responses", () => {
    const rateLimit = op("listPlants").responses.get("200")!.headers.get("x-rate-limit")!;
    expect(rateLimit).toMatchObject({
      name: "X-Rate-Limit",
      required: true,
      deprecated: false,
      explode: false,
      pointer: "/components/headers/X-Rate-Limit",
      schema: { type: "integer", format: "int32", minimum: 0 },
    });
    expect(rateLimit.validate(10)).toEqual([]);
    expect(rateLimit.validate(-1).map((v) => `${v.location} ${v.keyword}`)).toEqual(["header/X-Rate-Limit minimum"]);
    expect(rateLimit.validate("10").map((v) => v.keyword)).toEqual(["type"]);
    const deleted = op("deletePlant").responses.get("204")!;
    expect(deleted.content.size).toBe(0);
    expect([...deleted.headers.keys()]).toEqual(["x-rate-limit"]);
    expect([...op("getPlant").responses.get("200")!.headers.keys()]).toEqual(["x-rate-limit"]);
    expect(op("getPlant").responses.get("404")!.headers.size).toBe(0);
    expect(checkResponse(op("deletePlant"), { status: 204, headers: {}, body: new Uint8Array() }).ok).toBe(true);
  });

  it("judges bodies through $ref'd responses and request bodies (application/problem+json too)", () => {
    const problem = { "content-type": "application/problem+json" };
    const notFound = { type: "about:blank", title: "Not Found", status: 404, detail: "no plant has id 12" };
    const get = op("getPlant");
    expect(checkResponse(get, { status: 404, headers: problem, body: enc(JSON.stringify(notFound)) }).ok).toBe(true);
    const bad = checkResponse(get, {
      status: 404,
      headers: problem,
      body: enc('{"title":"Not Found","status":"404"}'),
    });
    expect(bad).toMatchObject({ ok: false, reason: "schema", detail: "body/status: must be an integer (type)" });
    expect(checkResponse(get, { status: 503, headers: problem, body: enc(JSON.stringify(notFound)) })).toMatchObject({
      ok: true,
      response: { status: "default", pointer: "/components/responses/Unexpected" },
    });
    const json = { "content-type": "application/json" };
    expect(checkRequest(op("updatePlant"), { headers: json, body: enc('{"name":"Kentia palm"}') }).ok).toBe(true);
    expect(checkRequest(op("updatePlant"), { headers: json, body: enc('{"tag":"palm"}') })).toMatchObject({
      ok: false,
      reason: "schema",
    });
    expect(checkRequest(op("updatePlant"), { headers: json })).toMatchObject({ ok: false, reason: "missing" });
  });

  it("has examples that validate against their own schemas", () => {
    let checked = 0;
    for (const o of contract.operations) {
      const entries = [
        ...(o.requestBody?.content.values() ?? []),
        ...[...o.responses.values()].flatMap((r) => [...r.content.values()]),
      ];
      for (const entry of entries) {
        const examples = (resolvePointer(contract.document, entry.pointer) as Json).examples ?? {};
        expect(Object.keys(examples).length, entry.pointer).toBeGreaterThan(0);
        for (const [name, example] of Object.entries(examples as Record<string, { value: unknown }>)) {
          expect(entry.validate(example.value), `${entry.pointer} ${name}`).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it("lets generators follow $refs: schemaAt and locateRef", () => {
    const put = op("updatePlant");
    const entry = put.requestBody!.content.get("application/json")!;
    expect(schemaAt(contract, `${entry.pointer}/schema`)).toMatchObject({ type: "object", required: ["name"] });
    expect(locateRef(contract.document, "/paths/~1plants~1{id}/put/requestBody")).toMatchObject({
      pointer: "/components/requestBodies/PlantUpdate",
    });
    expect(locateRef(contract.document, "/paths/~1plants~1{id}/parameters/0")?.pointer).toBe(
      "/components/parameters/PlantId",
    );
    expect(schemaAt(contract, "/nowhere")).toBeUndefined();
  });
});

/** A 3.1 document where everything that can be a $ref is one, some through chains of $refs. */
const multiRef = openApi(
  {
    "/things/{id}": { $ref: "#/components/pathItems/Thing" },
    "/aliases/{id}": { $ref: "#/components/pathItems/Alias" },
    "x-note": { get: { responses: { "200": { description: "not a path" } } } },
  },
  {
    title: "refs",
    components: {
      pathItems: {
        Alias: { $ref: "#/components/pathItems/Thing" },
        Thing: {
          parameters: [{ $ref: "#/components/parameters/IdAlias" }, { $ref: "#/components/parameters/Trace" }],
          get: {
            operationId: "getThing",
            parameters: [
              { $ref: "#/components/parameters/Filter" },
              { name: "Trace", in: "header", schema: { type: "string" } },
            ],
            responses: {
              "200": { $ref: "#/components/responses/ThingAlias" },
              "4XX": { $ref: "#/components/responses/Problem" },
              default: { $ref: "#/components/responses/Problem" },
              "x-internal": true,
            },
          },
          put: {
            operationId: "putThing",
            parameters: [{ name: "trace", in: "header", required: true, schema: { type: "string", minLength: 3 } }],
            requestBody: { $ref: "#/components/requestBodies/ThingBodyAlias" },
            responses: { "2XX": { description: "stored" } },
          },
        },
      },
      parameters: {
        IdAlias: { $ref: "#/components/parameters/Id" },
        Id: { name: "id", in: "path", required: true, schema: { $ref: "#/components/schemas/Id" } },
        Filter: {
          name: "filter",
          in: "query",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Filter" } } },
        },
        Trace: { name: "trace", in: "header", schema: { type: "string" } },
      },
      headers: {
        RateAlias: { $ref: "#/components/headers/Rate" },
        Rate: { required: true, schema: { type: "integer" } },
        Ids: { explode: true, schema: { type: "array", items: { type: "integer", format: "int64" } } },
      },
      responses: {
        ThingAlias: { $ref: "#/components/responses/Thing" },
        Thing: {
          description: "a thing",
          headers: {
            "Content-Type": { schema: { type: "string" } },
            "X-Rate": { $ref: "#/components/headers/RateAlias" },
            "X-Ids": { $ref: "#/components/headers/Ids" },
          },
          content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
        },
        Problem: {
          description: "a problem",
          content: { "application/problem+json": { schema: { type: "object", required: ["title"] } } },
        },
      },
      requestBodies: {
        ThingBodyAlias: { $ref: "#/components/requestBodies/ThingBody" },
        ThingBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
        },
      },
      schemas: {
        Id: { type: "integer", format: "int64" },
        Filter: { type: "object", properties: { size: { type: "integer" } }, additionalProperties: false },
        Thing: { type: "object", required: ["id"], properties: { id: { $ref: "#/components/schemas/Id" } } },
      },
    },
  },
);

describe("compiling $ref'd objects from where they live", () => {
  const contract = compileContract(multiRef, "inline");
  const get = contract.operation("getThing")!;

  it("follows $ref'd path items (chained too) and every $ref'd part of an operation", () => {
    expect(contract.operations.map((o) => `${o.operationId} ${o.pathTemplate} ${o.pointer}`)).toEqual([
      "getThing /things/{id} /components/pathItems/Thing/get",
      "putThing /things/{id} /components/pathItems/Thing/put",
      "getThing /aliases/{id} /components/pathItems/Thing/get",
      "putThing /aliases/{id} /components/pathItems/Thing/put",
    ]);
    expect(contract.route("GET", "/aliases/7")).toMatchObject({ kind: "found", params: { id: "7" } });
    expect(expectPointersResolve(contract)).toBeGreaterThan(40);
    expect([...get.responses.keys()]).toEqual(["200", "4XX", "DEFAULT"]);
    const ok = get.responses.get("200")!;
    expect(ok.pointer).toBe("/components/responses/Thing");
    expect(ok.content.get("application/json")!.validate({ id: 1 })).toEqual([]);
    expect(ok.content.get("application/json")!.validate({ id: "1" })[0]?.location).toBe("body/id");
    const put = contract.operation("putThing")!;
    expect(put.requestBody).toMatchObject({ required: true, pointer: "/components/requestBodies/ThingBody" });
    expect(put.pointerOfSecurity).toBe(put.pointer);
  });

  it("compiles $ref'd and content-typed parameters and merges header names without case", () => {
    expect(get.parameters.map((p) => `${p.in} ${p.name} ${p.pointer}`)).toEqual([
      "path id /components/parameters/Id",
      "query filter /components/parameters/Filter",
      "header Trace /components/pathItems/Thing/get/parameters/1",
    ]);
    const [id, filter] = get.parameters;
    expect(id!.schema).toEqual({ type: "integer", format: "int64" });
    expect(id!.validate(2n ** 63n).map((v) => v.keyword)).toEqual(["format"]);
    expect(filter!.schema).toBeUndefined();
    expect(filter!.content).toEqual({
      mediaType: "application/json",
      pointer: "/components/parameters/Filter/content/application~1json",
      schema: multiRef.components.schemas.Filter,
    });
    expect(filter!.validate({ size: 2 })).toEqual([]);
    expect(filter!.validate({ colour: "red" }).map((v) => v.location)).toEqual(["query/filter/colour"]);
    const put = contract.operation("putThing")!;
    expect(put.parameters.map((p) => `${p.in} ${p.name} ${p.required}`)).toEqual(["path id true", "header trace true"]);
    expect(put.parameters[1]!.validate("ab").map((v) => v.keyword)).toEqual(["minLength"]);
  });

  it("compiles response headers through chains of $refs, ignoring Content-Type", () => {
    const headers = get.responses.get("200")!.headers;
    expect([...headers.keys()]).toEqual(["x-rate", "x-ids"]);
    expect(headers.get("x-rate")).toMatchObject({
      name: "X-Rate",
      required: true,
      pointer: "/components/headers/Rate",
    });
    const ids = headers.get("x-ids")!;
    expect(ids).toMatchObject({ required: false, explode: true });
    expect(ids.validate([1n, 2n ** 62n])).toEqual([]);
    expect(ids.validate([1n, 2n ** 64n]).map((v) => `${v.location} ${v.keyword}`)).toEqual(["header/X-Ids/1 format"]);
  });

  it("finds responses: exact status, then the range, then default", () => {
    expect(get.responseFor(200)?.status).toBe("200");
    expect(get.responseFor(404)).toMatchObject({ status: "4XX", pointer: "/components/responses/Problem" });
    expect(get.responseFor(500)?.status).toBe("default");
    expect(get.responseFor(201)?.status).toBe("default");
    const put = contract.operation("putThing")!;
    expect(put.responseFor(204)?.status).toBe("2XX");
    expect(put.responseFor(400)).toBeUndefined();
  });

  it("refuses a $ref that leads nowhere or round in a circle, naming where it was met", () => {
    const refuse = (responses: unknown, components: unknown): KitError => {
      const doc = openApi({ "/a": { get: { responses } } });
      try {
        compileContract({ ...doc, components }, "inline");
      } catch (error) {
        return error as KitError;
      }
      throw new Error("compiled");
    };
    const dangling = refuse({ "200": { $ref: "#/components/responses/Missing" } }, {});
    expect(dangling.code).toBe("PS_SPEC_INVALID");
    expect(dangling.message).toContain("#/components/responses/Missing at /paths/~1a/get/responses/200");
    const circle = refuse(
      { "200": { $ref: "#/components/responses/A" } },
      { responses: { A: { $ref: "#/components/responses/B" }, B: { $ref: "#/components/responses/A" } } },
    );
    expect(circle.code).toBe("PS_SPEC_INVALID");
    expect(locateRef({ a: { $ref: "#/b" }, b: { $ref: "#/a" } }, "/a")).toBeUndefined();
  });
});

describe("response lookup in an OpenAPI 3.0 document with $ref'd responses", () => {
  it("finds exact codes, ranges and default, compiled from where the responses live", () => {
    const contract = compileContract(
      openApi(
        {
          "/a/{n}": {
            parameters: [{ $ref: "#/components/parameters/N" }],
            get: {
              operationId: "getA",
              responses: {
                "200": { $ref: "#/components/responses/Ok" },
                "2XX": { description: "other success" },
                "5XX": { $ref: "#/components/responses/Failure" },
                default: { $ref: "#/components/responses/Failure" },
              },
            },
          },
        },
        {
          openapi: "3.0.3",
          components: {
            parameters: {
              N: {
                name: "n",
                in: "path",
                required: true,
                schema: { type: "number", minimum: 0, exclusiveMinimum: true },
              },
            },
            responses: {
              Ok: {
                description: "ok",
                headers: { "X-Count": { required: true, schema: { type: "integer", nullable: true } } },
                content: { "application/json": { schema: { type: "string", nullable: true } } },
              },
              Failure: {
                description: "failure",
                content: { "application/problem+json": { schema: { type: "object", required: ["title"] } } },
              },
            },
          },
        },
      ),
      "inline",
    );
    const op = contract.operation("getA")!;
    expect(op.responseFor(200)?.pointer).toBe("/components/responses/Ok");
    expect(op.responseFor(204)?.status).toBe("2XX");
    expect(op.responseFor(503)).toMatchObject({ status: "5XX", pointer: "/components/responses/Failure" });
    expect(op.responseFor(404)?.status).toBe("default");
    const ok = op.responseFor(200)!;
    expect(ok.content.get("application/json")!.validate(null)).toEqual([]);
    expect(ok.headers.get("x-count")!.validate(null)).toEqual([]);
    expect(
      ok.headers
        .get("x-count")!
        .validate("1")
        .map((v) => v.keyword),
    ).toEqual(["type"]);
    const failure = op.responseFor(500)!.content.get("application/problem+json")!;
    expect(failure.validate({}).map((v) => v.location)).toEqual(["body/title"]);
    const n = op.parameters[0]!;
    expect(n).toMatchObject({ name: "n", in: "path", required: true, pointer: "/components/parameters/N" });
    expect(n.validate(0).map((v) => v.keyword)).toEqual(["exclusiveMinimum"]);
    expect(n.validate(0.5)).toEqual([]);
    expect(expectPointersResolve(contract)).toBeGreaterThan(10);
  });
});

describe("compiling each schema once", () => {
  it("shares validators between schemas written alike, never their locations or place-bound meanings", () => {
    const int = { type: "integer", minimum: 1 };
    const contract = compileContract(
      openApi(
        {
          "/a": {
            get: {
              parameters: [
                { name: "a", in: "query", schema: { ...int } },
                { name: "b", in: "query", schema: { ...int } },
                { name: "c", in: "query", schema: { $ref: "#/components/schemas/Int" } },
                {
                  name: "d",
                  in: "query",
                  schema: { $id: "https://example.com/d", type: "string" },
                },
              ],
              responses: {
                "200": {
                  description: "ok",
                  headers: { "X-A": { schema: { ...int } } },
                  content: { "application/json": { schema: { $ref: "#/components/schemas/Int" } } },
                },
              },
            },
          },
        },
        { components: { schemas: { Int: { type: "integer", minimum: 10 } } } },
      ),
      "inline",
    );
    const op = contract.operation("GET /a")!;
    const where = (v: readonly Violation[]) => v.map((x) => `${x.location} ${x.keyword}`);
    const [a, b, c, d] = op.parameters;
    expect(where(a!.validate(0))).toEqual(["query/a minimum"]);
    expect(where(b!.validate(0))).toEqual(["query/b minimum"]);
    expect(where(c!.validate(5))).toEqual(["query/c minimum"]);
    expect(c!.schema).toEqual({ type: "integer", minimum: 10 });
    expect(d!.validate("x")).toEqual([]);
    expect(where(d!.validate(1))).toEqual(["query/d type"]);
    const ok = op.responses.get("200")!;
    expect(where(ok.headers.get("x-a")!.validate(0))).toEqual(["header/X-A minimum"]);
    expect(where(ok.content.get("application/json")!.validate(5))).toEqual(["body minimum"]);
  });
});
