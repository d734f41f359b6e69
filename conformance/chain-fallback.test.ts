import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { compileContract } from "../src/contract/index.js";
import { runConformance } from "../src/harness/run.js";
import { openApi } from "../test/openapi-doc.js";

// A create whose answer may hold no id (the contract does not require one), and a read by id. The
// read is called on what the create made; when the answer holds no id, a made-up one goes instead
// and 404 is an expected answer: the target is neither blamed nor left unjudged.
const DOCUMENT = openApi(
  {
    "/things": {
      post: {
        operationId: "createThing",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
        },
        responses: {
          "201": {
            description: "made",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
        },
      },
    },
    "/things/{id}": {
      get: {
        operationId: "getThing",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", maxLength: 12 } }],
        responses: {
          "200": {
            description: "the thing",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
          },
        },
      },
    },
  },
  {
    openapi: "3.0.3",
    title: "things",
    components: {
      schemas: {
        // No `type` and no required id: a string answer, or an object without id, is acceptable.
        Thing: { properties: { id: { type: "string" }, name: { type: "string", maxLength: 20 } } },
      },
    },
  },
);

/** Answers every create with `{}` (no id), every read with 404, and counts the reads' paths. */
async function startForgetful(): Promise<{ url: string; reads: string[]; close: () => Promise<void> }> {
  const reads: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/things") {
        res.writeHead(201, { "content-type": "application/json" }).end("{}");
      } else {
        if (req.method === "GET") reads.push(req.url ?? "");
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    reads,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("a read chained on a create whose answer holds no id", () => {
  it("is sent with a made-up id, 404 accepted, and reaches a verdict", async () => {
    const server = await startForgetful();
    try {
      const contract = compileContract(DOCUMENT, "things");
      const { summary, results } = await runConformance({
        target: server.url,
        contract,
        noFixtures: true,
        generate: { count: 3 },
        seed: 5n,
      });
      const read = results.find((r) => r.fixture === "generated-positive-getThing");
      expect(read?.outcome, JSON.stringify(read, null, 1).slice(0, 2000)).toBe("pass");
      expect(read?.error).toBeUndefined();
      // The chain's second step went out, with a made-up id, and its 404 was taken as expected.
      expect(server.reads.length).toBeGreaterThan(0);
      expect(server.reads.every((path) => /^\/things\/[^/]+$/.test(path))).toBe(true);
      expect(summary.coverage.operations.notExercised).toEqual([]);
      // Only getThing's cases are of interest: the create takes anything, which its negatives catch.
      const ofRead = results.filter((r) => r.operation === "getThing").map((r) => [r.fixture, r.outcome]);
      expect(ofRead).toEqual([
        ["generated-positive-getThing", "pass"],
        ["generated-negative-getThing", "pass"],
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("a read chained on a create whose answer holds an id the read's path refuses", () => {
  it("is not judged as a valid request: the target that refuses it is not blamed", async () => {
    // Answers every create with an id longer than the read's path parameter allows (maxLength 12),
    // and refuses that read with 400, as the contract lets it.
    const reads: string[] = [];
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.method === "GET") reads.push(req.url ?? "");
        if (req.method === "POST")
          res.writeHead(201, { "content-type": "application/json" }).end('{"id":"an-id-far-too-long"}');
        else res.writeHead(/\/things\/an-id-far-too-long$/.test(req.url ?? "") ? 400 : 404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { results } = await runConformance({
        target: `http://127.0.0.1:${port}`,
        contract: compileContract(DOCUMENT, "things"),
        noFixtures: true,
        generate: { count: 3 },
        seed: 5n,
        evidence: "all",
      });
      // The chain went out (create, then the read on the id it gave) and the read's 400 is no failure.
      expect(reads.some((path) => path.endsWith("/an-id-far-too-long"))).toBe(true);
      const read = results.find((r) => r.fixture === "generated-positive-getThing");
      expect([read?.outcome, read?.error]).toEqual(["pass", undefined]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 60_000);
});
