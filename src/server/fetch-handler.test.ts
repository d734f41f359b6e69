import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { jsonHeaders, kitContract, plantsIn, storedPlant, TOKEN } from "../../test/helpers.js";
import { KitError } from "../errors.js";
import { DEV_TOKEN } from "./defaults.js";
import { createPlantStoreHandler, type PlantStoreHandler, type PlantStoreHandlerOptions } from "./fetch-handler.js";
import { startReferenceServer, type ReferenceServer } from "./index.js";

const BASE = "http://plantstore.test";
const contract = await kitContract();
const errorBody = contract.operation("createPlant")!.responseFor(400)!.content.get("application/json")!;
const plantBody = contract.operation("createPlant")!.responseFor(200)!.content.get("application/json")!;

interface Send {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array;
  /** Without a token: no Authorization header. */
  readonly token?: string | null;
}

const request = (path: string, { method = "POST", headers = {}, body, token = TOKEN }: Send = {}): Request =>
  new Request(BASE + path, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body,
  });

const create = (handler: PlantStoreHandler, body: string, send: Send = {}): Promise<Response> =>
  handler(request("/plants", { body, ...send }));

const thrown = (fn: () => unknown): KitError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(KitError);
    return error as KitError;
  }
  throw new Error("expected a KitError");
};

describe("the fetch handler answers as the reference server does", () => {
  it("a valid create gets 200 with the Plant, and the plant is stored", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN] });
    const res = await create(handler, '{"id":10,"name":"Boston fern","tag":"fern"}');
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const text = await res.text();
    expect(res.headers.get("content-length")).toBe(String(new TextEncoder().encode(text).byteLength));
    expect(JSON.parse(text)).toEqual({ name: "Boston fern", tag: "fern" });
    expect(plantBody.validate(JSON.parse(text))).toEqual([]);
    expect(storedPlant(handler.store, "10")).toEqual({ name: "Boston fern", tag: "fern" });
  });

  it("keeps int64 ids beyond 2^53 exact: 2^53, 2^53+1 and 2^63-1 are three plants", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN], admin: true });
    for (const id of ["9007199254740993", "9223372036854775807", "9007199254740992"]) {
      expect((await create(handler, `{"id":${id},"name":"n${id.slice(-1)}"}`)).status).toBe(200);
    }
    expect((await create(handler, '{"id":9007199254740993,"name":"again"}')).status).toBe(409);
    const list = await handler(request("/__admin/plants", { method: "GET" }));
    expect(list.status).toBe(200);
    expect(await list.text()).toBe(
      '{"count":3,"plants":[{"id":9007199254740992,"name":"n2"},{"id":9007199254740993,"name":"n3"},{"id":9223372036854775807,"name":"n7"}]}',
    );
  });

  it("an invalid body gets 400 with the Error shape and the violations", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN] });
    const res = await create(handler, '{"id":"7","tag":1}');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { violations: unknown };
    expect(errorBody.validate(body)).toEqual([]);
    expect(body).toMatchObject({ error: 400, code: "PS_BODY_INVALID" });
    expect(body.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ location: "body/id", keyword: "type" }),
        expect.objectContaining({ location: "body/name", keyword: "required" }),
        expect.objectContaining({ location: "body/tag", keyword: "type" }),
      ]),
    );
    expect(handler.store.size).toBe(0);
  });

  it.each([
    ["no token", null, 'Bearer realm="plantstore"'],
    ["a wrong token", "nope", 'Bearer realm="plantstore", error="invalid_token"'],
    ["the development token when others are configured", DEV_TOKEN, 'error="invalid_token"'],
  ])("%s gets 401 with WWW-Authenticate", async (_name, token, challenge) => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN] });
    const res = await create(handler, '{"id":1,"name":"a"}', { token });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(challenge);
    const body = await res.json();
    expect(body).toMatchObject({ error: 401, code: "PS_UNAUTHORIZED" });
    expect(errorBody.validate(body)).toEqual([]);
    expect(handler.store.size).toBe(0);
  });

  it("accepts the development token when none is configured", async () => {
    expect((await create(createPlantStoreHandler(), '{"id":1,"name":"a"}', { token: DEV_TOKEN })).status).toBe(200);
  });

  it("answers a CORS preflight without a token, with a bodiless 204, and only for configured origins", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN], corsOrigins: ["http://app.test"] });
    const preflight = (origin: string): Promise<Response> =>
      handler(
        request("/plants", {
          method: "OPTIONS",
          token: null,
          headers: {
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type",
          },
        }),
      );
    const good = await preflight("http://app.test");
    expect(good.status).toBe(204);
    expect(good.body).toBeNull();
    expect(good.headers.get("access-control-allow-origin")).toBe("http://app.test");
    expect(good.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect(good.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(good.headers.get("vary")).toBe("Origin, Access-Control-Request-Headers");
    const evil = await preflight("http://evil.test");
    expect(evil.status).toBe(204);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    const answer = await create(handler, '{"id":1,"name":"a"}', { headers: { origin: "http://app.test" } });
    expect(answer.headers.get("access-control-allow-origin")).toBe("http://app.test");
    expect(answer.headers.get("access-control-expose-headers")).toContain("www-authenticate");
  });

  it("allows the request headers a page asks for, and only listed ones with corsHeaders", async () => {
    const ask = async (handler: ReturnType<typeof createPlantStoreHandler>) =>
      (
        await handler(
          request("/plants", {
            method: "OPTIONS",
            token: null,
            headers: {
              origin: "http://app.test",
              "access-control-request-method": "POST",
              "access-control-request-headers": "authorization, traceparent",
            },
          }),
        )
      ).headers.get("access-control-allow-headers");
    expect(await ask(createPlantStoreHandler({ tokens: [TOKEN] }))).toBe(
      "authorization, content-type, prefer, traceparent",
    );
    expect(await ask(createPlantStoreHandler({ tokens: [TOKEN], corsHeaders: ["x-request-id"] }))).toBe(
      "authorization, content-type, prefer",
    );
    expect(() => createPlantStoreHandler({ corsHeaders: ["bad header"] })).toThrow(
      /corsHeaders: "bad header" is not a header name/,
    );
  });

  it("reads a body streamed in pieces, splitting a multi-byte character and an int64 beyond 2^53, exactly", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN], admin: true });
    const bytes = new TextEncoder().encode('{"id":9223372036854775807,"name":"Fougère 🌿"}');
    // Pieces of 5 bytes: the cuts fall inside the id's digits and inside "è" and the emoji.
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 5) pieces.push(bytes.slice(at, at + 5));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = pieces.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    const res = await handler(
      new Request(`${BASE}/plants`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "Fougère 🌿" });
    const listed = await handler(request("/__admin/plants", { method: "GET" }));
    expect(await listed.text()).toBe('{"count":1,"plants":[{"id":9223372036854775807,"name":"Fougère 🌿"}]}');
  });

  it("refuses a body over maxBody with 413, declared or streamed, and stores nothing", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN], maxBody: 32 });
    const body = '{"id":1,"name":"a","tag":"' + "t".repeat(20) + '"}';
    expect(body.length).toBeGreaterThan(32);
    const declared = await create(handler, body, { headers: { "content-length": String(body.length) } });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({
      error: 413,
      code: "PS_BODY_TOO_LARGE",
      message: expect.stringContaining(`${body.length} bytes declared, at most 32`),
    });
    // A stream in small chunks, with no length declared: refused once more than 32 bytes have come.
    const chunks = body.match(/.{1,8}/g) as string[];
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks[pulled++];
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const streamed = await handler(
      new Request(`${BASE}/plants`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ error: 413, message: expect.stringContaining("more than 32 bytes") });
    expect(pulled).toBeLessThan(chunks.length);
    expect(handler.store.size).toBe(0);
    // At the limit exactly: accepted.
    const atLimit = '{"id":1,"name":"' + "n".repeat(14) + '"}';
    expect(atLimit.length).toBe(32);
    expect((await create(handler, atLimit)).status).toBe(200);
  });

  it("serves the admin surface: list, reset, token needed; not there unless asked for", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN], admin: true });
    await create(handler, '{"id":2,"name":"b"}');
    await create(handler, '{"id":-1,"name":"a","tag":"t"}');
    const list = await handler(request("/__admin/plants", { method: "GET" }));
    expect(await list.json()).toEqual({
      count: 2,
      plants: [
        { id: -1, name: "a", tag: "t" },
        { id: 2, name: "b" },
      ],
    });
    expect((await handler(request("/__admin/plants", { method: "GET", token: null }))).status).toBe(401);
    const reset = await handler(request("/__admin/plants", { method: "DELETE" }));
    expect(await reset.json()).toEqual({ removed: 2 });
    expect(handler.store.size).toBe(0);
    // The store is the handler's own: a test can also fill and clear it directly.
    handler.engine.seed('[{"id":5,"name":"direct"}]', "a test");
    expect(await (await handler(request("/__admin/plants", { method: "GET" }))).json()).toEqual({
      count: 1,
      plants: [{ id: 5, name: "direct" }],
    });
    handler.store.clear();
    expect((await create(handler, '{"id":2,"name":"b"}')).status).toBe(200);
    const without = createPlantStoreHandler({ tokens: [TOKEN] });
    expect((await without(request("/__admin/plants", { method: "GET" }))).status).toBe(404);
  });

  it("answers Prefer: code=400 with the documented Error only with errorsOnDemand", async () => {
    const prefer = { headers: { prefer: "code=400" } };
    const onDemand = createPlantStoreHandler({ tokens: [TOKEN], errorsOnDemand: true });
    const res = await create(onDemand, '{"id":1,"name":"a"}', prefer);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ error: 400, code: "PS_EXAMPLE_ERROR" });
    expect(errorBody.validate(body)).toEqual([]);
    expect(onDemand.store.size).toBe(0);
    expect((await create(createPlantStoreHandler({ tokens: [TOKEN] }), '{"id":1,"name":"a"}', prefer)).status).toBe(
      200,
    );
  });

  it("answers HEAD without a body, as HTTP does", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN] });
    const res = await handler(request("/plants", { method: "HEAD" }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.body).toBeNull();
    expect(Number(res.headers.get("content-length"))).toBeGreaterThan(0);
  });

  it("takes bytes (Uint8Array) as the body, and routes absolute URLs by their path", async () => {
    const handler = createPlantStoreHandler({ tokens: [TOKEN] });
    const bytes = new TextEncoder().encode('{"id":3,"name":"\u05e9\u05dc\u05d5\u05dd 🌿"}');
    expect((await handler(request("/plants?debug=1", { body: bytes }))).status).toBe(200);
    expect(storedPlant(handler.store, "3")).toEqual({ name: "\u05e9\u05dc\u05d5\u05dd 🌿" });
    expect((await handler(request("/%70lants", { body: '{"id":4,"name":"d"}' }))).status).toBe(200);
    const invalidUtf8 = await handler(request("/plants", { body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]) }));
    expect(await invalidUtf8.json()).toMatchObject({ error: 400, code: "PS_INVALID_UTF8" });
  });

  it("waits `delay` ms before each answer, after the store has changed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    try {
      const handler = createPlantStoreHandler({ tokens: [TOKEN], delay: 1_000 });
      let answered = false;
      const pending = create(handler, '{"id":1,"name":"a"}').then((res) => {
        answered = true;
        return res;
      });
      await vi.advanceTimersByTimeAsync(999);
      expect(answered).toBe(false);
      expect(handler.store.size).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(answered).toBe(true);
      expect((await pending).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("seed data and options", () => {
  it("starts with `data`, as JSON text (ids exact) or as NewPlant objects", async () => {
    const fromText = createPlantStoreHandler({
      tokens: [TOKEN],
      data: '[{"id":9223372036854775807,"name":"max"},{"id":9007199254740993,"name":"b","tag":"t","extra":1}]',
    });
    expect(plantsIn(fromText.store)).toEqual([
      { id: "9007199254740993", plant: { name: "b", tag: "t" } },
      { id: "9223372036854775807", plant: { name: "max" } },
    ]);
    expect((await create(fromText, '{"id":9223372036854775807,"name":"again"}')).status).toBe(409);
    const fromObjects = createPlantStoreHandler({
      tokens: [TOKEN],
      data: [
        { id: 1, name: "a" },
        { id: 2, name: "b", tag: "t" },
      ],
    });
    expect(plantsIn(fromObjects.store)).toEqual([
      { id: "1", plant: { name: "a" } },
      { id: "2", plant: { name: "b", tag: "t" } },
    ]);
    // Each handler has its own store.
    expect(createPlantStoreHandler({ tokens: [TOKEN] }).store.size).toBe(0);
  });

  it.each<[string, PlantStoreHandlerOptions["data"], string]>([
    [
      "a wrong type",
      [{ id: 1, name: "a" }, { id: "2", name: "b" } as never],
      "data: item 1: [1]/id: must be an integer",
    ],
    ["a missing field", '[{"id":1}]', "data: item 0: [0]/name: is required"],
    ["a repeated id", '[{"id":1,"name":"a"},{"id":1.0,"name":"b"}]', "data: item 1: id 1 appears twice"],
    ["not JSON", "[{", "data: not valid JSON"],
    ["not an array", '{"id":1,"name":"a"}', "data: must be a JSON array"],
    ["not an array of objects", { id: 1, name: "a" } as never, "data: must be a JSON array"],
  ])("refuses data with %s, naming the item and field", (_name, data, message) => {
    const error = thrown(() => createPlantStoreHandler({ data }));
    expect(error.code).toBe("PS_DATA_INVALID");
    expect(error.message).toContain(message);
  });

  it("refuses more plants than maxPlants, and bad options, as serve does", () => {
    expect(
      thrown(() => createPlantStoreHandler({ data: '[{"id":1,"name":"a"},{"id":2,"name":"b"}]', maxPlants: 1 }))
        .message,
    ).toContain("data: more plants than maxPlants 1");
    expect(thrown(() => createPlantStoreHandler({ tokens: ["two words"] })).code).toBe("PS_USAGE");
    expect(thrown(() => createPlantStoreHandler({ tokens: [""] })).message).toContain("tokens must be non-empty");
    for (const bad of [{ maxBody: -1 }, { delay: 1.5 }, { maxPlants: Number.NaN }])
      expect(thrown(() => createPlantStoreHandler(bad)).code).toBe("PS_USAGE");
  });

  it.each([
    ["the current names", { maxItems: 1, maxBodyBytes: 24 }, { delayMs: -1 }, "maxItems", "delayMs"],
    ["the names of the release before", { maxPlants: 1, maxBody: 24 }, { delay: -1 }, "maxPlants", "delay"],
  ])("takes MockOptions by %s, and names each option as it was given", async (_how, given, bad, limit, delay) => {
    const handler = createPlantStoreHandler({ ...given, tokens: [TOKEN] });
    const create = (body: string) =>
      handler(new Request("http://x.test/plants", { method: "POST", headers: jsonHeaders(), body }));
    expect((await create('{"id":1,"name":"a"}')).status).toBe(200);
    // The second plant finds the store full; the message names the limit as it was given.
    const full = await create('{"id":2,"name":"b"}');
    expect(full.status).toBe(400);
    expect(((await full.json()) as { message: string }).message).toBe(
      `the store holds as many plants as it is configured to (${limit}): 1 plants`,
    );
    expect((await create(`{"name":"${"x".repeat(30)}"}`)).status).toBe(413);
    expect(thrown(() => createPlantStoreHandler(bad)).message).toContain(`${delay} must be a whole number`);
  });
});

describe("the same answers as the HTTP reference server", () => {
  const options = { tokens: [TOKEN], corsOrigins: ["http://app.test"], admin: true, errorsOnDemand: true } as const;
  let server: ReferenceServer;
  let handler: PlantStoreHandler;
  beforeAll(async () => {
    server = await startReferenceServer({ ...options, contract, port: 0, maxBodyBytes: 64 });
    handler = createPlantStoreHandler({ ...options, maxBody: 64 });
  });
  afterAll(async () => {
    await server?.close(100);
  });

  const auth = { authorization: `Bearer ${TOKEN}` };
  const json = { ...auth, "content-type": "application/json" };
  const preflight = {
    "access-control-request-method": "POST",
    "access-control-request-headers": "authorization, content-type",
  };
  // In order: both start empty, so each sees the same store.
  const table: [string, string, string, Record<string, string>, string | Uint8Array | undefined][] = [
    ["create", "POST", "/plants", json, '{"id":9007199254740993,"name":"Fern","tag":"fern"}'],
    ["create 2^63-1", "POST", "/plants", json, '{"id":9223372036854775807,"name":"Max"}'],
    ["duplicate id", "POST", "/plants", json, '{"id":9007199254740993.0,"name":"again"}'],
    ["invalid body", "POST", "/plants", json, '{"id":1.5,"tag":null}'],
    ["malformed JSON", "POST", "/plants", json, '{"id":1,'],
    ["no body", "POST", "/plants", json, undefined],
    ["not JSON", "POST", "/plants", { ...auth, "content-type": "text/plain" }, '{"id":1,"name":"a"}'],
    [
      "latin-1",
      "POST",
      "/plants",
      { ...json, "content-type": "application/json; charset=latin1" },
      '{"id":1,"name":"a"}',
    ],
    ["invalid UTF-8", "POST", "/plants", json, new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d])],
    ["no token", "POST", "/plants", { "content-type": "application/json" }, '{"id":1,"name":"a"}'],
    ["wrong token", "POST", "/plants", { ...json, authorization: "Bearer nope" }, '{"id":1,"name":"a"}'],
    ["other scheme", "POST", "/plants", { ...json, authorization: `Basic ${TOKEN}` }, '{"id":1,"name":"a"}'],
    ["error on demand", "POST", "/plants", { ...json, prefer: "code=400" }, '{"id":2,"name":"a"}'],
    ["too large", "POST", "/plants", json, `{"id":3,"name":"${"n".repeat(80)}"}`],
    ["wrong method", "GET", "/plants", auth, undefined],
    ["HEAD", "HEAD", "/plants", auth, undefined],
    ["unknown path", "POST", "/pets", json, "{}"],
    ["percent-encoded path", "POST", "/%70lants?x=1", json, '{"id":4,"name":"d"}'],
    ["preflight", "OPTIONS", "/plants", { origin: "http://app.test", ...preflight }, undefined],
    ["preflight, other origin", "OPTIONS", "/plants", { origin: "http://evil.test", ...preflight }, undefined],
    ["preflight, unknown path", "OPTIONS", "/pets", { origin: "http://app.test", ...preflight }, undefined],
    ["cross-origin create", "POST", "/plants", { ...json, origin: "http://app.test" }, '{"id":5,"name":"e"}'],
    [
      "cross-origin 401",
      "POST",
      "/plants",
      { "content-type": "application/json", origin: "http://app.test" },
      '{"id":6,"name":"f"}',
    ],
    ["admin list", "GET", "/__admin/plants", auth, undefined],
    ["admin without token", "GET", "/__admin/plants", {}, undefined],
    ["admin, wrong method", "PUT", "/__admin/plants", auth, undefined],
    ["admin, unknown path", "GET", "/__admin/other", auth, undefined],
    ["admin reset", "DELETE", "/__admin/plants", auth, undefined],
    ["admin list after reset", "GET", "/__admin/plants", auth, undefined],
  ];
  // Set by the transport, not by the server's decisions; Node also sends Content-Length: 0 with a 204.
  const TRANSPORT = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);
  const headersOf = (res: Response): Record<string, string> =>
    Object.fromEntries(
      [...res.headers].filter(([name]) => !TRANSPORT.has(name) && !(res.status === 204 && name === "content-length")),
    );

  it("for a table of requests: status, headers and body", async () => {
    for (const [name, method, path, headers, body] of table) {
      // fetch declares the length of a body it sends; the handler's Request says it as a client would.
      const length: Record<string, string> =
        body === undefined
          ? {}
          : {
              "content-length": String(
                typeof body === "string" ? new TextEncoder().encode(body).byteLength : body.byteLength,
              ),
            };
      const overHttp = await fetch(server.url + path, { method, headers, body });
      const inProcess = await handler(new Request(BASE + path, { method, headers: { ...headers, ...length }, body }));
      expect({ name, status: inProcess.status, headers: headersOf(inProcess), body: await inProcess.text() }).toEqual({
        name,
        status: overHttp.status,
        headers: headersOf(overHttp),
        body: await overHttp.text(),
      });
    }
    expect(handler.engine.snapshot()).toEqual(server.engine.snapshot());
  });
});
