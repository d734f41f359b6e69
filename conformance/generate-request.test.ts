import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRequest, compileContract } from "../src/contract/index.js";
import { generatable, producerFor } from "./generate-request.js";
import { runConformance } from "./run.js";

// A contract whose server picks the ids (readOnly in the create's answer), with a patterned query
// parameter, a huge maxLength, a header parameter OAS says to ignore, and an operation whose only
// documented answer is a redirect: generated cases must pass a correct server on all of it.
const contract = compileContract(
  {
    openapi: "3.1.0",
    info: { title: "pets", version: "1" },
    paths: {
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
      {
        openapi: "3.1.0",
        info: { title: "t", version: "1" },
        paths: {
          "/x": { get: { operationId: "x", security: [{ cert: [] }], responses: { "200": { description: "ok" } } } },
        },
        components: { securitySchemes: { cert: { type: "mutualTLS" } } },
      },
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
