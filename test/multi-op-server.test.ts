import { describe, expect, it } from "vitest";
import { checkResponse, checkResponseHeaders, type CheckedResponse } from "../src/contract/index.js";
import { TOKEN } from "./helpers.js";
import {
  multiOpContract,
  RATE_LIMIT,
  startMultiOpServer,
  type MultiOpFault,
  type MultiOpServer,
} from "./multi-op-server.js";

// The multi-operation Plant Store server, over loopback: the correct one behaves as
// test/data/multi-op/plant-store-multi.yaml says (and every documented answer it gives is judged
// acceptable by the contract module), and each faulty variant misbehaves exactly as its name says.

const RID = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const BIG = "9007199254740993"; // 2^53 + 1: a double cannot hold it
const MAX = "9223372036854775807"; // 2^63 - 1: the largest int64

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  readonly bytes: Uint8Array;
}

interface Ask {
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** The bearer token; null sends none. */
  readonly token?: string | null;
}

async function ask(server: MultiOpServer, method: string, path: string, options: Ask = {}): Promise<Answer> {
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: Record<string, string> = {
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    ...(options.body === undefined ? {} : { "content-type": "application/json" }),
    ...options.headers,
  };
  const r = await fetch(server.url + path, { method, headers, body: options.body });
  const bytes = new Uint8Array(await r.arrayBuffer());
  return { status: r.status, headers: Object.fromEntries(r.headers), text: Buffer.from(bytes).toString("utf8"), bytes };
}

const create = (s: MultiOpServer, id: string, name: string, tag?: string): Promise<Answer> =>
  ask(s, "POST", "/plants", { body: `{"id":${id},"name":${JSON.stringify(name)}${tagJson(tag)}}` });
const read = (s: MultiOpServer, id: string): Promise<Answer> => ask(s, "GET", `/plants/${id}`);
const update = (s: MultiOpServer, id: string, body: string): Promise<Answer> =>
  ask(s, "PUT", `/plants/${id}`, { body });
const remove = (s: MultiOpServer, id: string, requestId: string | null = RID): Promise<Answer> =>
  ask(s, "DELETE", `/plants/${id}`, { headers: requestId === null ? {} : { "x-request-id": requestId } });
const tagJson = (tag: string | undefined): string => (tag === undefined ? "" : `,"tag":${JSON.stringify(tag)}`);

/** The contract's verdict on an answer of an operation: the body's, then the documented headers'. */
async function judge(operationId: string, answer: Answer): Promise<{ body: CheckedResponse; headers: string[] }> {
  const operation = (await multiOpContract()).operation(operationId);
  if (operation === undefined) throw new Error(`no operation ${operationId}`);
  const body = checkResponse(operation, { status: answer.status, headers: answer.headers, body: answer.bytes });
  const headers = body.ok ? checkResponseHeaders(body.response, answer.headers).map((p) => p.detail) : [];
  return { body, headers };
}

/** Asserts the contract accepts the answer, body and headers. */
async function expectAcceptable(operationId: string, answer: Answer): Promise<void> {
  const verdict = await judge(operationId, answer);
  expect(verdict.body.ok ? "ok" : verdict.body.detail, `${operationId} ${answer.status}`).toBe("ok");
  expect(verdict.headers, `${operationId} ${answer.status} headers`).toEqual([]);
}

async function withServer<T>(fault: MultiOpFault | undefined, fn: (s: MultiOpServer) => Promise<T>): Promise<T> {
  const server = await startMultiOpServer(fault === undefined ? {} : { fault });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

const problemOf = (a: Answer): unknown => JSON.parse(a.text);

describe("the correct multi-operation server", () => {
  it("creates, reads, updates, lists (limit, tags) and deletes, every answer acceptable by the contract", async () => {
    await withServer(undefined, async (s) => {
      const created = await create(s, "10", "Boston fern", "fern");
      expect([created.status, created.text]).toEqual([200, '{"name":"Boston fern","tag":"fern"}']);
      await expectAcceptable("createPlant", created);
      for (const [id, name, tag] of [
        ["11", "Kentia palm", "palm"],
        ["12", "Cactus", undefined],
        ["13", "Maidenhair", "fern"],
      ] as const)
        await expectAcceptable("createPlant", await create(s, id, name, tag));

      const got = await read(s, "10");
      expect([got.status, got.text, got.headers["x-rate-limit"]]).toEqual([
        200,
        '{"id":10,"name":"Boston fern","tag":"fern"}',
        RATE_LIMIT,
      ]);
      await expectAcceptable("getPlant", got);

      const updated = await update(s, "13", '{"name":"Delta maidenhair"}');
      expect([updated.status, updated.text]).toEqual([200, '{"id":13,"name":"Delta maidenhair"}']);
      expect(updated.headers["x-rate-limit"]).toBe(RATE_LIMIT);
      await expectAcceptable("updatePlant", updated);
      expect(s.store.get("13")).toEqual({ id: "13", name: "Delta maidenhair" });

      const ids = async (query: string): Promise<unknown[]> => {
        const listed = await ask(s, "GET", `/plants${query}`);
        expect(listed.status).toBe(200);
        await expectAcceptable("listPlants", listed);
        return (JSON.parse(listed.text) as { id: number }[]).map((p) => p.id);
      };
      expect(await ids("")).toEqual([10, 11, 12, 13]);
      expect(await ids("?limit=2")).toEqual([10, 11]);
      expect(await ids("?tags=fern&tags=palm")).toEqual([10, 11]);
      expect(await ids("?tags=palm")).toEqual([11]);
      expect(await ids("?tags=fern&limit=1")).toEqual([10]);
      expect(await ids("?tags=none")).toEqual([]);

      const deleted = await remove(s, "10");
      expect([deleted.status, deleted.text, deleted.headers["x-rate-limit"]]).toEqual([204, "", RATE_LIMIT]);
      await expectAcceptable("deletePlant", deleted);
      const gone = await read(s, "10");
      expect(gone.status).toBe(404);
      expect(gone.headers["content-type"]).toBe("application/problem+json");
      expect(problemOf(gone)).toEqual({
        type: "about:blank",
        title: "Not Found",
        status: 404,
        detail: "no plant has id 10",
      });
      await expectAcceptable("getPlant", gone);
      await expectAcceptable("deletePlant", await remove(s, "10"));
      expect((await remove(s, "10")).status).toBe(404);
      const missing = await update(s, "10", '{"name":"x"}');
      expect(missing.status).toBe(404);
      await expectAcceptable("updatePlant", missing);
      expect(await ids("")).toEqual([11, 12, 13]);
    });
  });

  it("keeps ids beyond 2^53 exact: 9007199254740993 and 9223372036854775807 round-trip", async () => {
    await withServer(undefined, async (s) => {
      for (const id of ["9007199254740992", BIG, MAX]) expect((await create(s, id, `n${id}`)).status).toBe(200);
      expect([...s.store.keys()]).toEqual(["9007199254740992", BIG, MAX]);
      for (const id of [BIG, MAX]) {
        const got = await read(s, id);
        expect([got.status, got.text]).toEqual([200, `{"id":${id},"name":"n${id}"}`]);
        await expectAcceptable("getPlant", got);
        const updated = await update(s, id, '{"name":"renamed","tag":"big"}');
        expect([updated.status, updated.text]).toEqual([200, `{"id":${id},"name":"renamed","tag":"big"}`]);
      }
      const listed = await ask(s, "GET", "/plants?tags=big");
      expect(listed.text).toBe(
        `[{"id":${BIG},"name":"renamed","tag":"big"},{"id":${MAX},"name":"renamed","tag":"big"}]`,
      );
      await expectAcceptable("listPlants", listed);
      expect((await remove(s, BIG)).status).toBe(204);
      expect((await read(s, BIG)).status).toBe(404);
      expect((await read(s, "9007199254740992")).text).toBe('{"id":9007199254740992,"name":"n9007199254740992"}');
      expect((await read(s, MAX)).status).toBe(200);
      expect((await create(s, MAX, "again")).status).toBe(409);
    });
  });

  it("answers a request the contract refuses with 400: problem+json, or the Error shape for POST /plants", async () => {
    await withServer(undefined, async (s) => {
      expect((await create(s, "1", "fern")).status).toBe(200);
      const refused: [string, Answer][] = [
        ["listPlants", await ask(s, "GET", "/plants?limit=0")],
        ["listPlants", await ask(s, "GET", "/plants?limit=abc")],
        ["listPlants", await ask(s, "GET", "/plants?limit=101")],
        ["listPlants", await ask(s, "GET", "/plants?limit=1&limit=2")],
        ["listPlants", await ask(s, "GET", "/plants", { headers: { "x-request-id": "not-a-uuid" } })],
        ["getPlant", await read(s, "abc")],
        ["getPlant", await read(s, "9223372036854775808")],
        ["getPlant", await read(s, "1.5")],
        ["getPlant", await ask(s, "GET", "/plants/1", { headers: { cookie: "units=furlongs" } })],
        ["updatePlant", await update(s, "1", '{"name":5}')],
        ["updatePlant", await update(s, "1", "{")],
        ["updatePlant", await ask(s, "PUT", "/plants/1")],
        ["deletePlant", await remove(s, "1", null)],
        ["deletePlant", await remove(s, "1", "not-a-uuid")],
      ];
      for (const [operationId, answer] of refused) {
        expect(answer.status, answer.text).toBe(400);
        expect(answer.headers["content-type"]).toBe("application/problem+json");
        expect(problemOf(answer)).toMatchObject({ type: "about:blank", title: "Bad Request", status: 400 });
        await expectAcceptable(operationId, answer);
      }
      const noRequestId = problemOf(refused[12]![1]) as { detail: string };
      expect(noRequestId.detail).toMatch(/X-Request-Id.*required/);
      expect(s.store.get("1")).toEqual({ id: "1", name: "fern" }); // nothing refused changed anything

      for (const body of ['{"id":1.5,"name":"a"}', '{"name":"a"}', `{"id":9223372036854775808,"name":"a"}`, "[]"]) {
        const answer = await ask(s, "POST", "/plants", { body });
        expect([answer.status, answer.headers["content-type"]]).toEqual([400, "application/json"]);
        expect(problemOf(answer)).toMatchObject({ error: 400, message: expect.any(String) });
        await expectAcceptable("createPlant", answer);
      }
      expect([...s.store.keys()]).toEqual(["1"]);
    });
  });

  it("reads a good limit, tags, units cookie and X-Request-Id as the document allows", async () => {
    await withServer(undefined, async (s) => {
      for (const id of ["1", "2", "3"]) await create(s, id, `p${id}`, "t");
      const listed = await ask(s, "GET", "/plants?limit=100&tags=t", { headers: { "x-request-id": RID } });
      expect(JSON.parse(listed.text)).toHaveLength(3);
      expect((await ask(s, "GET", "/plants?limit=1")).text).toBe('[{"id":1,"name":"p1","tag":"t"}]');
      const got = await ask(s, "GET", "/plants/2", { headers: { cookie: "units=metric", "x-request-id": RID } });
      expect(got.text).toBe('{"id":2,"name":"p2","tag":"t"}');
    });
  });

  it("duplicates get 409; tokens, paths and methods the document does not cover get 401, 404 and 405", async () => {
    const custom = await startMultiOpServer({ token: "other-token" });
    try {
      expect((await create(custom, "1", "a")).status).toBe(401);
      expect((await ask(custom, "POST", "/plants", { body: '{"id":1,"name":"a"}', token: "other-token" })).status).toBe(
        200,
      );
    } finally {
      await custom.close();
    }
    await withServer(undefined, async (s) => {
      expect((await create(s, "1", "a")).status).toBe(200);
      const duplicate = await create(s, "1", "b");
      expect([duplicate.status, duplicate.headers["content-type"]]).toEqual([409, "application/problem+json"]);
      expect(s.store.get("1")).toEqual({ id: "1", name: "a" });
      for (const token of [null, "wrong"]) {
        const answer = await ask(s, "GET", "/plants", { token });
        expect([answer.status, answer.headers["content-type"]]).toEqual([401, "application/problem+json"]);
        expect(answer.headers["www-authenticate"]).toMatch(/^Bearer/);
        expect(problemOf(answer)).toMatchObject({ status: 401, title: "Unauthorized" });
      }
      expect((await ask(s, "GET", "/nothing")).status).toBe(404);
      const wrongMethod = await ask(s, "PATCH", "/plants/1");
      expect([wrongMethod.status, wrongMethod.headers.allow]).toEqual([405, "GET, PUT, DELETE"]);
    });
  });
});

describe("each faulty variant misbehaves as its name says", () => {
  it("ignores-limit: GET /plants?limit=2 answers all 3 plants", async () => {
    await withServer("ignores-limit", async (s) => {
      for (const id of ["1", "2", "3"]) await create(s, id, `p${id}`);
      const listed = await ask(s, "GET", "/plants?limit=2");
      expect(listed.status).toBe(200);
      expect(JSON.parse(listed.text)).toHaveLength(3);
    });
  });

  it("limit-not-validated: limit=0 and limit=abc answer 200", async () => {
    await withServer("limit-not-validated", async (s) => {
      await create(s, "1", "a");
      expect((await ask(s, "GET", "/plants?limit=0")).status).toBe(200);
      expect((await ask(s, "GET", "/plants?limit=abc")).status).toBe(200);
      expect((await ask(s, "GET", "/plants?limit=1&tags=x", { headers: { "x-request-id": "bad" } })).status).toBe(400);
    });
  });

  it("500-on-id-beyond-2-53: a created id 2^53 + 1 reads, updates and deletes as 500", async () => {
    await withServer("500-on-id-beyond-2-53", async (s) => {
      expect((await create(s, BIG, "big")).status).toBe(200);
      expect((await read(s, BIG)).status).toBe(500);
      expect((await update(s, MAX, '{"name":"x"}')).status).toBe(500);
      expect((await remove(s, BIG)).status).toBe(500);
      expect((await read(s, "9007199254740992")).status).toBe(404); // 2^53 itself is not beyond
    });
  });

  it("rounds-big-ids: 9007199254740993 is stored and read back as 9007199254740992", async () => {
    await withServer("rounds-big-ids", async (s) => {
      expect((await create(s, BIG, "big")).status).toBe(200);
      expect([...s.store.keys()]).toEqual(["9007199254740992"]);
      const got = await read(s, BIG);
      expect([got.status, got.text]).toEqual([200, '{"id":9007199254740992,"name":"big"}']);
      expect((await create(s, "9007199254740992", "other")).status).toBe(409);
    });
  });

  it("read-returns-other-shape: GET /plants/{id} answers {plant: ...}, which the contract refuses", async () => {
    await withServer("read-returns-other-shape", async (s) => {
      await create(s, "1", "a");
      const got = await read(s, "1");
      expect([got.status, got.text]).toEqual([200, '{"plant":{"id":1,"name":"a"}}']);
      expect((await judge("getPlant", got)).body).toMatchObject({ ok: false, reason: "schema" });
    });
  });

  it("delete-200-with-body: DELETE answers 200 with a JSON body, which the contract refuses", async () => {
    await withServer("delete-200-with-body", async (s) => {
      await create(s, "1", "a");
      const deleted = await remove(s, "1");
      expect([deleted.status, deleted.headers["content-type"], deleted.text]).toEqual([
        200,
        "application/json",
        '{"deleted":{"id":1,"name":"a"}}',
      ]);
      expect((await judge("deletePlant", deleted)).body.ok).toBe(false);
    });
  });

  it("delete-ignores-request-id: DELETE without X-Request-Id answers 204 and deletes", async () => {
    await withServer("delete-ignores-request-id", async (s) => {
      await create(s, "1", "a");
      expect((await remove(s, "1", null)).status).toBe(204);
      expect(s.store.size).toBe(0);
    });
  });

  it("missing-rate-limit-header: the 200s of read, update and list lack X-Rate-Limit", async () => {
    await withServer("missing-rate-limit-header", async (s) => {
      await create(s, "1", "a");
      const answers: [string, Answer][] = [
        ["getPlant", await read(s, "1")],
        ["updatePlant", await update(s, "1", '{"name":"b"}')],
        ["listPlants", await ask(s, "GET", "/plants")],
      ];
      for (const [operationId, answer] of answers) {
        expect(answer.status).toBe(200);
        expect(answer.headers["x-rate-limit"]).toBeUndefined();
        expect((await judge(operationId, answer)).headers).toEqual(["the header X-Rate-Limit is required"]);
      }
    });
  });

  it('update-ignores-body-schema: PUT {"name":5} answers 200', async () => {
    await withServer("update-ignores-body-schema", async (s) => {
      await create(s, "1", "a");
      const updated = await update(s, "1", '{"name":5}');
      expect([updated.status, updated.text]).toEqual([200, '{"id":1,"name":"5"}']);
    });
  });

  it("list-wrong-item-type: GET /plants answers ids as strings, which the contract refuses", async () => {
    await withServer("list-wrong-item-type", async (s) => {
      await create(s, "1", "a");
      const listed = await ask(s, "GET", "/plants");
      expect([listed.status, listed.text]).toEqual([200, '[{"id":"1","name":"a"}]']);
      expect((await judge("listPlants", listed)).body).toMatchObject({ ok: false, reason: "schema" });
    });
  });
});
