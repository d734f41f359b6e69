import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRequest, compileContract, producerFor } from "../../contract/index.js";
import fc from "fast-check";
import { negativeBodies, positiveBodies, valueArb } from "./bodies.js";
import { generatable, negativeRequests, negativesPossible, positiveRequests } from "./requests.js";
import { generatedCasesOf } from "./cases.js";
import { runConformance } from "../run.js";
import { openApi } from "../../../test/openapi-doc.js";

// A contract whose server picks the ids (readOnly in the create's answer), with a patterned query
// parameter, a huge maxLength, a header parameter OAS says to ignore, and an operation whose only
// documented answer is a redirect: generated cases must pass a correct server on all of it.
const contract = compileContract(
  openApi(
    {
      "/pets": {
        post: {
          operationId: "createPet",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["name"],
                  properties: { id: { type: "integer", readOnly: true }, name: { type: "string", minLength: 1 } },
                },
              },
            },
          },
          responses: {
            "201": {
              description: "created",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
            },
            "400": { description: "refused" },
          },
        },
      },
      "/pets/{id}": {
        get: {
          operationId: "getPet",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "integer" } },
            { name: "code", in: "query", required: true, schema: { type: "string", pattern: "^[A-Z]{3}$" } },
            { name: "note", in: "query", schema: { type: "string", maxLength: 2147483647 } },
            { name: "Accept", in: "header", required: true, schema: { type: "string", enum: ["x/never"] } },
          ],
          responses: {
            "200": {
              description: "the pet",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
            },
            "400": { description: "refused" },
            "404": { description: "no such pet" },
          },
        },
      },
      "/old": {
        get: { operationId: "moved", responses: { "302": { description: "moved to /pets" } } },
      },
    },
    {
      title: "pets",
      components: {
        schemas: {
          Pet: {
            type: "object",
            required: ["id", "name"],
            properties: { id: { type: "integer" }, name: { type: "string" } },
          },
        },
      },
    },
  ),
  "pets.yaml",
);

let server: Server;
let url: string;
beforeAll(async () => {
  const pets = new Map<string, string>();
  let next = 1000;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const [path, query = ""] = (req.url ?? "/").split("?") as [string, string?];
      const route = contract.route(req.method ?? "GET", path);
      if (route.kind !== "found") return void res.writeHead(404).end();
      const op = route.operation;
      const body = Buffer.concat(chunks);
      const checked = checkRequest(op, { headers: req.headers as Record<string, string>, body, path, query });
      if (!checked.ok) return void res.writeHead(400).end();
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      if (op.operationId === "createPet") {
        const id = next++;
        pets.set(String(id), (checked.value as { name: string }).name);
        return json(201, { id, name: pets.get(String(id)) });
      }
      if (op.operationId === "moved") return void res.writeHead(302, { location: "/pets" }).end();
      const id = path.split("/")[2]!;
      const name = pets.get(id);
      return name === undefined ? void res.writeHead(404).end() : json(200, { id: Number(id), name });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("generated requests on a contract whose server picks the ids", () => {
  it("leaves out, with the reason, an operation whose only security is mutualTLS", () => {
    const mtls = compileContract(
      openApi(
        {
          "/x": { get: { operationId: "x", security: [{ cert: [] }], responses: { "200": { description: "ok" } } } },
        },
        { components: { securitySchemes: { cert: { type: "mutualTLS" } } } },
      ),
      "mtls.yaml",
    );
    expect(generatable(mtls.operation("x")!)).toEqual({
      ok: false,
      why: "its security cannot be presented by the harness: cert (mutualTLS, which the harness cannot present)",
    });
  });

  it("read the id from the create's answer, not from an optional property of its request", () => {
    expect(producerFor(contract, contract.operation("getPet")!)).toMatchObject({
      operation: { operationId: "createPet" },
      expression: "$response.body#/id",
    });
  });

  it("ignores a header parameter named Accept, as OAS says", () => {
    expect(contract.operation("getPet")!.parameters.map((p) => p.name)).toEqual(["id", "code", "note"]);
  });

  it("pass a correct server: patterned values, a huge maxLength, a documented redirect", async () => {
    for (const seed of [1n, 2n]) {
      const { summary, results } = await runConformance({
        target: url,
        contract,
        noFixtures: true,
        generate: { count: 30 },
        seed,
      });
      const bad = results.filter((r) => r.outcome !== "pass");
      expect(summary.exitCode, JSON.stringify(bad, null, 1).slice(0, 3000)).toBe(0);
      expect(summary.coverage.operations.exercised).toBe(3);
    }
  });
});

describe("requests a server must take as the contract means them", () => {
  const doc = openApi(
    {
      "/search": {
        get: {
          operationId: "search",
          parameters: [
            { name: "topic", in: "query", required: true, schema: { type: "array", items: { type: "string" } } },
            { name: "key", in: "query", required: true, schema: { type: "string", minLength: 64 } },
            { name: "X-Trace", in: "header", required: true, schema: { type: "string", minLength: 10 } },
          ],
          responses: { "200": { description: "ok" } },
        },
      },
      "/users": {
        post: {
          operationId: "createUser",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["id", "name"],
                  properties: {
                    id: { type: "string", readOnly: true },
                    name: { type: "string", minLength: 10 },
                    kind: { type: "string" },
                  },
                },
              },
            },
          },
          responses: { "201": { description: "made" } },
        },
      },
      "/tags": {
        post: {
          operationId: "createTag",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["label"],
                  properties: { id: { type: "integer", readOnly: true }, label: { type: "string" } },
                },
              },
            },
          },
          responses: { "201": { description: "made" } },
        },
      },
      "/never": {
        post: {
          operationId: "never",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["code"],
                  properties: { code: { $ref: "#/components/schemas/Code" } },
                },
              },
            },
          },
          responses: { "200": { description: "ok" } },
        },
      },
    },
    { openapi: "3.0.3", components: { schemas: { Code: { type: "string", minLength: 8, maxLength: 4 } } } },
  );
  const c = compileContract(doc, "http.yaml");
  const options = { fresh: new Map() };

  it("a required query array is never empty (allowEmptyValue is false), and header values are visible ASCII", () => {
    const requests = fc
      .sample(positiveRequests(c, c.operation("search")!, options), { numRuns: 200, seed: 3 })
      .filter((r) => r !== null);
    expect(requests.length).toBeGreaterThan(100);
    for (const r of requests) {
      expect((r.parameters["query:topic"] as unknown[]).length).toBeGreaterThan(0);
      expect(String(r.parameters["query:key"]).length).toBeGreaterThanOrEqual(64);
      expect(r.parameters["header:X-Trace"]).toMatch(/^[\x21-\x7e]{10,}$/);
    }
  });

  it("a request body never carries a readOnly property, required or not", () => {
    const schema = { $ref: "#/paths/~1users/post/requestBody/content/application~1json/schema" };
    const drawn = fc.sample(valueArb(c.document, schema), { numRuns: 200, seed: 4 });
    expect(drawn.every((v) => typeof v === "object" && v !== null && !("id" in v) && "name" in v)).toBe(true);
    // Whatever the contract says of a required readOnly property (OAS 3.0.3: required in responses only).
    for (const b of fc.sample(positiveBodies(c, c.operation("createUser")!, c.document, options), { numRuns: 50 }))
      if (b !== null) expect(JSON.parse(b.text)).not.toHaveProperty("id");
  });

  it("no negative is built on a readOnly property: a server may ignore it in a request", () => {
    const negatives = fc
      .sample(negativeBodies(c, c.operation("createTag")!, c.document, options), { numRuns: 300, seed: 4 })
      .filter((b) => b !== null);
    const reasons = new Set(negatives.map((b) => b.reason));
    expect(reasons).toContain("body/label: required");
    expect(reasons).toContain("body/label: type string (sent integer)");
    expect([...reasons].some((r) => r!.startsWith("body/id"))).toBe(false);
  });

  it("an operation whose body no value satisfies is left out, the pointer of the rule said", () => {
    expect(generatable(c.operation("never")!, c.document)).toEqual({
      ok: false,
      why: "no request satisfies its schema at /components/schemas/Code: required property code: minLength 8 is above maxLength 4",
    });
    expect(generatable(c.operation("createUser")!, c.document)).toEqual({ ok: true });
  });
});

describe("negatives of a parameter whose only rule is a format the contract does not check", () => {
  it("are not possible: Airflow's `format: path` is an annotation, no value breaks it", () => {
    const doc = openApi(
      {
        "/variables/{key}": {
          get: {
            operationId: "getVariable",
            parameters: [{ name: "key", in: "path", required: true, schema: { type: "string", format: "path" } }],
            responses: { "200": { description: "ok" } },
          },
        },
        "/numbers/{id}": {
          get: {
            operationId: "getNumber",
            // Telnyx's ids: int64 is a number format, so a string with it takes any text.
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", format: "int64" } }],
            responses: { "200": { description: "ok" } },
          },
        },
        "/days/{day}": {
          get: {
            operationId: "getDay",
            parameters: [{ name: "day", in: "path", required: true, schema: { type: "string", format: "date" } }],
            responses: { "200": { description: "ok" } },
          },
        },
      },
      { openapi: "3.0.3" },
    );
    const c = compileContract(doc, "formats.json");
    expect(negativesPossible(c.operation("getVariable")!)).toBe(false);
    expect(negativesPossible(c.operation("getNumber")!)).toBe(false);
    expect(negativesPossible(c.operation("getDay")!)).toBe(true);
  });
});

describe("negatives of a body with no rule a request can break", () => {
  // ReadMe's createAPI (multipart fields without types, none required) and Twilio's CreateAccount (a
  // urlencoded string field): every form value is text, so no field can be broken, and no negative
  // case is planned (before, the case was planned and ended as an error no candidate could fix).
  const form = (type: string, schema: unknown, operationId: string) => ({
    post: {
      operationId,
      requestBody: { content: { [type]: { schema } } },
      responses: { "200": { description: "ok" } },
    },
  });
  const doc = openApi({
    "/untyped": form(
      "multipart/form-data",
      { type: "object", additionalProperties: false, properties: { schema: {}, url: {} } },
      "untypedParts",
    ),
    "/strings": form(
      "application/x-www-form-urlencoded",
      { type: "object", properties: { FriendlyName: { type: "string" } } },
      "stringField",
    ),
    "/count": form(
      "application/x-www-form-urlencoded",
      { type: "object", properties: { count: { type: "integer" } } },
      "integerField",
    ),
    "/required": form(
      "application/x-www-form-urlencoded",
      { type: "object", required: ["name"], properties: { name: { type: "string" } } },
      "requiredField",
    ),
    "/json": form(
      "application/json",
      { type: "object", properties: { FriendlyName: { type: "string" } } },
      "jsonString",
    ),
  });
  const c = compileContract(doc, "forms.json");
  const negatives = (id: string) =>
    fc.sample(negativeRequests(c, c.operation(id)!, { fresh: new Map() }), { numRuns: 50, seed: 1 });

  it("are not planned for form fields that take any text", () => {
    for (const id of ["untypedParts", "stringField"]) {
      expect(negativesPossible(c.operation(id)!, c.document)).toBe(false);
      expect(generatedCasesOf(c.operation(id)!, c.document).map((g) => g.kind)).toEqual(["positive"]);
      expect(negatives(id).every((r) => r === null)).toBe(true);
    }
  });

  it("are planned, and built, where a field can be broken (a number, a required one) or the body is JSON", () => {
    for (const id of ["integerField", "requiredField", "jsonString"]) {
      expect(negativesPossible(c.operation(id)!, c.document)).toBe(true);
      expect(negatives(id).some((r) => r !== null)).toBe(true);
    }
  });
});

describe("operations a URL cannot reach", () => {
  it("are left out with the reason: a fragment in the path key is never sent (Box's /shared_items#folders)", () => {
    const c = compileContract(
      openApi(
        {
          "/shared_items": { get: { operationId: "sharedFile", responses: { "200": { description: "a file" } } } },
          "/shared_items#folders": {
            get: { operationId: "sharedFolder", responses: { "200": { description: "a folder" } } },
          },
          "/alone#only": { get: { operationId: "alone", responses: { "200": { description: "ok" } } } },
        },
        { openapi: "3.0.2" },
      ),
      "fragments.yaml",
    );
    expect(generatable(c.operation("sharedFolder")!, c.document, c)).toEqual({
      ok: false,
      why: "its path holds a fragment, which is never sent: its requests reach GET /shared_items (sharedFile)",
    });
    expect(generatable(c.operation("sharedFile")!, c.document, c)).toEqual({ ok: true });
    expect(generatable(c.operation("alone")!, c.document, c)).toEqual({ ok: true });
  });
});
