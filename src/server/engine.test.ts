import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileContract, loadContract, type Contract } from "../contract/index.js";
import { runConformance } from "../harness/run.js";
import { KIT_ROOT } from "../paths.js";
import { createEngine, type Engine } from "./engine.js";
import { DEFAULT_HTTP_OPTIONS, startHttpServer, type RunningServer } from "./http-adapter.js";
import { openApi } from "../../test/openapi-doc.js";

const TOKEN = "engine-test-token";
let contract: Contract;
let engine: Engine;
let server: RunningServer;

beforeAll(async () => {
  contract = await loadContract(join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml"));
  engine = createEngine(contract, {
    credentials: { tokens: [TOKEN], basic: [] },
    cors: { origins: ["*"] },
    maxItems: 1000,
  });
  server = await startHttpServer(engine.handle, { ...DEFAULT_HTTP_OPTIONS, host: "127.0.0.1", port: 0 });
});
afterAll(() => server?.close());

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text(), headers: res.headers };
};

/** The engine of a document in process (no socket): a request in, its answer out. */
function inProcess(doc: Record<string, unknown>, maxItems: number, headers: Record<string, string> = {}) {
  const engine = createEngine(compileContract(doc, "inline.yaml"), {
    credentials: { tokens: [TOKEN], basic: [] },
    cors: { origins: [] },
    maxItems,
  });
  return (method: string, url: string, body = "") =>
    engine.handle({
      method,
      url,
      headers: { ...headers, "content-type": "application/json" },
      body: new TextEncoder().encode(body),
    });
}

describe("the engine serving the multi-operation Plant Store", () => {
  it("says how it serves each operation", () => {
    expect(engine.served.map((s) => `${s.operation.operationId}: ${s.served}`)).toEqual([
      "listPlants: list plants",
      "createPlant: create plants",
      "getPlant: read plants",
      "updatePlant: replace plants",
      "deletePlant: delete plants",
    ]);
  });

  it("a create is read back exactly (an id beyond 2^53), replaced, listed, deleted, then not found", async () => {
    const created = await call("POST", "/plants", '{"id":9007199254740993,"name":"Fern","tag":"fern"}');
    expect([created.status, created.text]).toEqual([200, '{"name":"Fern","tag":"fern"}']);
    const read = await call("GET", "/plants/9007199254740993");
    expect([read.status, read.text]).toEqual([200, '{"name":"Fern","tag":"fern","id":9007199254740993}']);
    expect(read.headers.get("x-rate-limit")).toMatch(/^\d+$/);
    const replaced = await call("PUT", "/plants/9007199254740993", { name: "Palm", tag: "palm" });
    expect(replaced.status).toBe(200);
    expect((await call("GET", "/plants/9007199254740993")).text).toBe(
      '{"name":"Palm","tag":"palm","id":9007199254740993}',
    );
    await call("POST", "/plants", { id: 2, name: "Ivy" });
    expect((await call("GET", "/plants?tags=palm")).text).toBe('[{"name":"Palm","tag":"palm","id":9007199254740993}]');
    expect(JSON.parse((await call("GET", "/plants?limit=1")).text)).toHaveLength(1);
    const uuid = { "x-request-id": "00000000-0000-4000-8000-000000000001" };
    expect((await call("DELETE", "/plants/9007199254740993", undefined, uuid)).status).toBe(204);
    const gone = await call("GET", "/plants/9007199254740993");
    expect([gone.status, gone.type]).toEqual([404, "application/problem+json"]);
    expect(JSON.parse(gone.text)).toMatchObject({ status: 404, title: "Not Found" });
    expect((await call("DELETE", "/plants/2", undefined, uuid)).status).toBe(204);
  });

  it("refuses what the contract refuses, in the shape it documents", async () => {
    const duplicate = await call("POST", "/plants", { id: 5, name: "A" });
    expect(duplicate.status).toBe(200);
    const again = await call("POST", "/plants", { id: 5, name: "B" });
    // 409 Conflict: the document is silent on a repeated id, so the kit's own error body says it.
    expect([again.status, JSON.parse(again.text)]).toEqual([
      409,
      { error: 409, message: "a plant with this id already exists: id 5", code: "PS_DUPLICATE_ID" },
    ]);
    const invalid = await call("POST", "/plants", { name: 7 });
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.text)).toMatchObject({ error: 400, code: "PS_BODY_INVALID" });
    const badLimit = await call("GET", "/plants?limit=0");
    expect([badLimit.status, badLimit.type]).toEqual([400, "application/problem+json"]);
    const anonymous = await call("GET", "/plants", undefined, { authorization: "" });
    expect([anonymous.status, anonymous.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="plantstore"']);
    expect((await call("PATCH", "/plants/5")).status).toBe(405);
    await call("DELETE", "/plants/5", undefined, { "x-request-id": "00000000-0000-4000-8000-000000000001" });
  });

  it("passes the kit's own harness: every operation exercised, no failure", async () => {
    for (const seed of [1n, 2n]) {
      const { summary, results } = await runConformance({
        target: server.url,
        contract,
        token: TOKEN,
        noFixtures: true,
        generate: { count: 20 },
        seed,
      });
      const bad = results.filter((r) => r.outcome !== "pass");
      expect(summary.exitCode, JSON.stringify(bad, null, 1).slice(0, 4000)).toBe(0);
      expect(summary.coverage.operations.exercised).toBe(contract.operations.length);
    }
  });
});

describe("the engine's lists: filtered, then paged, in the order made", () => {
  const Plant = {
    type: "object",
    required: ["id", "name"],
    properties: { id: { type: "integer" }, name: { type: "string" }, tag: { type: "string" } },
  };
  const doc = openApi(
    {
      "/plants": {
        get: {
          operationId: "listPlants",
          parameters: [
            { name: "tag", in: "query", schema: { type: "string" } },
            { name: "offset", in: "query", schema: { type: "integer", minimum: 0 } },
            { name: "limit", in: "query", schema: { type: "integer", minimum: 0, default: 3 } },
          ],
          responses: {
            "200": {
              description: "a page",
              content: { "application/json": { schema: { type: "array", items: Plant } } },
            },
          },
        },
        post: {
          operationId: "createPlant",
          requestBody: { required: true, content: { "application/json": { schema: Plant } } },
          responses: { "201": { description: "made", content: { "application/json": { schema: Plant } } } },
        },
      },
    },
    { title: "lists" },
  );
  it("skips the offset among the matching items only, stops at the limit, and takes the limit's default", async () => {
    const send = inProcess(doc, 100);
    for (let id = 1; id <= 30; id++)
      expect(
        send("POST", "/plants", JSON.stringify({ id, name: `p${id}`, tag: id % 3 === 0 ? "palm" : "fern" })).status,
      ).toBe(201);
    const ids = (url: string): number[] => (JSON.parse(send("GET", url).body) as { id: number }[]).map((p) => p.id);
    expect(ids("/plants?tag=palm&offset=2&limit=4")).toEqual([9, 12, 15, 18]);
    expect(ids("/plants?tag=palm&offset=8&limit=4")).toEqual([27, 30]);
    expect(ids("/plants?offset=28&limit=10")).toEqual([29, 30]);
    expect(ids("/plants")).toEqual([1, 2, 3]);
    expect(ids("/plants?limit=0")).toEqual([]);
    expect(ids("/plants?tag=cactus&limit=10")).toEqual([]);
    expect(ids("/plants?tag=palm,fern&offset=1&limit=2")).toEqual([2, 3]);
  });
});

describe("the engine's Location and envelopes", () => {
  const Item = {
    type: "object",
    required: ["id", "name"],
    properties: {
      id: { type: "string", readOnly: true },
      name: { type: "string" },
      created: { type: "string", format: "date-time", readOnly: true },
    },
  };
  const one = { type: "object", required: ["data"], properties: { data: Item } };
  const doc = openApi(
    {
      "/things": {
        post: {
          operationId: "makeThing",
          requestBody: { required: true, content: { "application/json": { schema: Item } } },
          responses: {
            "201": {
              description: "made",
              headers: { Location: { required: true, schema: { type: "string", format: "uri" } } },
              content: { "application/json": { schema: one } },
            },
          },
        },
      },
      "/things/{thingId}": {
        parameters: [{ name: "thingId", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
        get: {
          operationId: "getThing",
          responses: {
            "200": { description: "one", content: { "application/json": { schema: one } } },
            "404": { description: "none" },
          },
        },
      },
    },
    { openapi: "3.0.3", title: "things", servers: [{ url: "/api/v1" }] },
  );
  it("makes the id and the timestamps the server owns, answers 201 with an absolute Location, and reads it back in its envelope", async () => {
    const send = inProcess(doc, 10, { host: "mock.test:4010" });
    const made = send("POST", "/api/v1/things", '{"name":"Fern"}');
    expect(made.status).toBe(201);
    const { data } = JSON.parse(made.body) as { data: { id: string; name: string; created: string } };
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(data.created))).toBe(false);
    expect(made.headers.location).toBe(`http://mock.test:4010/api/v1/things/${data.id}`);
    const read = send("GET", new URL(made.headers.location!).pathname);
    expect([read.status, JSON.parse(read.body)]).toEqual([200, { data }]);
    expect(send("GET", "/api/v1/things/00000000-0000-4000-8000-00000000ffff").status).toBe(404);
  });
});

describe("a document that admits no valid request", () => {
  it.each([
    ["a pattern in /.../ delimiters", { type: "string", pattern: "/^[a-z]+$/" }, /written with \/...\/ delimiters/],
    ["an enum that breaks its type", { type: "integer", enum: ["small", "large"] }, /no value of its enum/],
    ["a oneOf of two open branches", { oneOf: [{}, { description: "any" }] }, /branches 0 and 1 of oneOf/],
  ])("%s: the start-up report says every request is refused, and why, with the pointer", (_name, schema, reason) => {
    const doc = openApi({
      "/things": {
        post: {
          operationId: "makeThing",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { type: "object", required: ["size"], properties: { size: schema } },
              },
            },
          },
          responses: { "204": { description: "made" } },
        },
      },
    });
    const engine = createEngine(compileContract(doc, "no-request.yaml"), {
      credentials: { tokens: [TOKEN], basic: [] },
      cors: { origins: [] },
      maxItems: 10,
    });
    const served = engine.served[0]!.served;
    expect(served).toMatch(/; accepts no request, refuses each: required property size: /);
    expect(served).toMatch(reason);
    expect(served).toContain("(/paths/~1things/post/requestBody/content/application~1json/schema/properties/size)");
  });
});

describe("a document whose answers cannot be made", () => {
  it("says so in how it serves the operation, and answers 500 PS_MOCK_UNANSWERABLE naming the operation and the schema", async () => {
    const impossible = {
      type: "object",
      required: ["code"],
      properties: { code: { type: "string", minLength: 5, maxLength: 2 } },
    };
    const doc = openApi(
      {
        "/status": {
          get: {
            operationId: "getStatus",
            responses: { "200": { description: "ok", content: { "application/json": { schema: impossible } } } },
          },
        },
        "/ping": { get: { operationId: "ping", responses: { "204": { description: "pong" } } } },
      },
      { title: "impossible" },
    );
    const broken = createEngine(compileContract(doc, "impossible.yaml"), {
      credentials: { tokens: [TOKEN], basic: [] },
      cors: { origins: [] },
      maxItems: 10,
    });
    const served = Object.fromEntries(broken.served.map((s) => [s.operation.operationId, s]));
    expect(served.getStatus!.unanswerable).toBe(true);
    expect(served.getStatus!.served).toContain(
      "cannot answer, answers 500 PS_MOCK_UNANSWERABLE: the schema at /paths/~1status/get/responses/200/content/application~1json/schema accepts no value: required property code: minLength 5 is above maxLength 2",
    );
    expect(served.ping!.unanswerable).toBeUndefined();
    const answer = broken.handle({ method: "GET", url: "/status", headers: {}, body: new Uint8Array() });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 500, code: "PS_MOCK_UNANSWERABLE" });
    expect(JSON.parse(answer.body).message).toContain("getStatus 200");
    expect(broken.handle({ method: "GET", url: "/ping", headers: {}, body: new Uint8Array() }).status).toBe(204);
  });
});

describe("a name the request and the answer shape differently", () => {
  it("answers with the stored item's id and values, the differing one from the example", async () => {
    const region = { type: "object", required: ["slug"], properties: { slug: { type: "string" } } };
    const Out = {
      type: "object",
      required: ["id", "name", "region"],
      properties: { id: { type: "integer", readOnly: true }, name: { type: "string" }, region },
    };
    const In = {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string" }, region: { type: "string" } },
    };
    const example = { id: 77, name: "example", region: { slug: "ams3" } };
    const answer = (status: string) => ({
      [status]: { description: "ok", content: { "application/json": { schema: Out, example } } },
    });
    const doc = openApi(
      {
        "/droplets": {
          post: {
            operationId: "make",
            requestBody: { required: true, content: { "application/json": { schema: In } } },
            responses: answer("201"),
          },
        },
        "/droplets/{droplet_id}": {
          parameters: [{ name: "droplet_id", in: "path", required: true, schema: { type: "integer" } }],
          get: { operationId: "read", responses: { ...answer("200"), "404": { description: "none" } } },
        },
      },
      { openapi: "3.0.3", title: "regions" },
    );
    const e = createEngine(compileContract(doc, "regions.yaml"), {
      credentials: { tokens: [TOKEN], basic: [] },
      cors: { origins: [] },
      maxItems: 10,
    });
    const body = new TextEncoder().encode('{"name":"web-1","region":"nyc3"}');
    const made = e.handle({ method: "POST", url: "/droplets", headers: { "content-type": "application/json" }, body });
    expect([made.status, JSON.parse(made.body)]).toEqual([201, { id: 1, name: "web-1", region: { slug: "ams3" } }]);
    const read = e.handle({ method: "GET", url: "/droplets/1", headers: {}, body: new Uint8Array() });
    expect(JSON.parse(read.body)).toEqual({ id: 1, name: "web-1", region: { slug: "ams3" } });
  });
});

describe("what a page on another origin can read", () => {
  it("exposes Location first, then every header the contract documents, then the kit's own", async () => {
    const r = await call("GET", "/plants", undefined, { origin: "http://app.test" });
    const exposed = (r.headers.get("access-control-expose-headers") ?? "").split(", ");
    expect(exposed[0]).toBe("location");
    expect(exposed).toEqual(
      expect.arrayContaining(["x-rate-limit", "www-authenticate", "allow", "x-plantstore-reason"]),
    );
    expect(exposed).not.toContain("content-type");
  });

  it("a refusal documented without a body says why in X-Plantstore-Reason, and in the log line", async () => {
    const doc = openApi({
      "/things/{id}": {
        get: {
          operationId: "getThing",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
          responses: { "200": { description: "it" }, "400": { description: "bad id, no body" } },
        },
      },
    });
    const lines: string[] = [];
    const bodiless = createEngine(compileContract(doc, "inline.yaml"), {
      credentials: { tokens: [TOKEN], basic: [] },
      cors: { origins: ["*"] },
      maxItems: 10,
    });
    const running = await startHttpServer(bodiless.handle, {
      ...DEFAULT_HTTP_OPTIONS,
      port: 0,
      log: (l) => lines.push(l),
    });
    try {
      const res = await fetch(`${running.url}/things/abc`, { headers: { origin: "http://app.test" } });
      expect(res.status).toBe(400);
      expect(await res.text()).toBe("");
      const reason = res.headers.get("x-plantstore-reason") ?? "";
      expect(reason).toContain("a parameter of the request does not match the contract");
      expect(res.headers.get("access-control-expose-headers")).toContain("x-plantstore-reason");
      await new Promise((r) => setTimeout(r, 20));
      expect(lines.join("\n")).toContain(`GET /things/abc 400`);
      expect(lines.join("\n")).toContain(`(${reason})`);
    } finally {
      await running.close(100);
    }
  });
});
