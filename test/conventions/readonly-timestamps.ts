// Server-set fields: the id and the `createdAt`/`updatedAt` timestamps are `readOnly` (one schema for
// request and answer, as OpenAPI 3.0 allows), set by the server, answered by the create and kept:
// a replace keeps `createdAt` and never moves `updatedAt` backwards, and what a client sends for them
// sets nothing. The shape of most CRUD APIs with audit timestamps (AIP-148 createTime/updateTime, Rails).
import { randomUUID } from "node:crypto";
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, type Answer, type Json, type JsonObject } from "./kit.js";

const stamp = (description: string) => ({ type: "string", format: "date-time", readOnly: true, description });
const article = {
  type: "object",
  required: ["id", "title", "createdAt", "updatedAt"],
  properties: {
    id: { type: "string", format: "uuid", readOnly: true },
    title: { type: "string", minLength: 1 },
    body: { type: "string" },
    createdAt: stamp("when the server created the article; never changes"),
    updatedAt: stamp("when the server last stored the article"),
  },
};
const error = {
  type: "object",
  required: ["code", "message"],
  properties: { code: { type: "integer" }, message: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });

const document = {
  openapi: "3.0.3",
  info: { title: "read-only timestamps", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/articles": {
      post: {
        operationId: "createArticle",
        requestBody: { required: true, ...json(article) },
        responses: {
          "201": { description: "created, with the server's id and timestamps", ...json(article) },
          "400": { description: "invalid", ...json(error) },
        },
      },
      get: {
        operationId: "listArticles",
        responses: { "200": { description: "every article", ...json({ type: "array", items: article }) } },
      },
    },
    "/articles/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
      get: {
        operationId: "getArticle",
        responses: {
          "200": { description: "the article", ...json(article) },
          "404": { description: "none", ...json(error) },
        },
      },
      put: {
        operationId: "replaceArticle",
        requestBody: { required: true, ...json(article) },
        responses: {
          "200": { description: "replaced", ...json(article) },
          "400": { description: "invalid", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
    },
  },
};

function reference() {
  const articles = new Map<string, JsonObject>();
  const bad = (status: number, message: string): Answer => ({ status, body: { code: status, message } });
  /** The client's part of a body: title and body; the read-only members it may send are ignored. */
  const written = (b: Json | undefined): JsonObject | undefined => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return undefined;
    const o = b as JsonObject;
    const known = Object.keys(o).every((k) => ["id", "title", "body", "createdAt", "updatedAt"].includes(k));
    if (!known || typeof o.title !== "string" || o.title === "") return undefined;
    if (o.body !== undefined && typeof o.body !== "string") return undefined;
    return { title: o.title, ...(o.body === undefined ? {} : { body: o.body }) };
  };
  const handle = router({
    "POST /articles": ({ body }) => {
      const w = written(body);
      if (w === undefined) return bad(400, "invalid article");
      const now = new Date().toISOString();
      const made = { id: randomUUID(), ...w, createdAt: now, updatedAt: now };
      articles.set(made.id, made);
      return { status: 201, body: made };
    },
    "GET /articles": () => ({ status: 200, body: [...articles.values()] }),
    "GET /articles/{id}": ({ params }) => {
      const found = articles.get(params.id!);
      return found === undefined ? bad(404, "no such article") : { status: 200, body: found };
    },
    "PUT /articles/{id}": ({ params, body }) => {
      const found = articles.get(params.id!);
      if (found === undefined) return bad(404, "no such article");
      const w = written(body);
      if (w === undefined) return bad(400, "invalid article");
      const now = new Date().toISOString();
      const updatedAt = now > (found.updatedAt as string) ? now : found.updatedAt!;
      const replaced = { id: found.id!, ...w, createdAt: found.createdAt!, updatedAt };
      articles.set(params.id!, replaced);
      return { status: 200, body: replaced };
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const LONG_AGO = "2001-02-03T04:05:06Z";
const obj = (v: Json | undefined): JsonObject =>
  (typeof v === "object" && v !== null && !Array.isArray(v) ? v : {}) as JsonObject;
/** The instant of an RFC 3339 date-time, or NaN. */
const at = (v: Json | undefined): number => (typeof v === "string" && RFC3339.test(v) ? Date.parse(v) : NaN);

export const readonlyTimestamps: Convention = {
  name: "readonly-timestamps",
  family: "server-set readOnly id and createdAt/updatedAt (AIP-148 create_time/update_time, Rails timestamps)",
  sources: [
    "OpenAPI 3.0.3 Schema Object, readOnly: sent in answers, never in requests; required applies to answers only",
    "RFC 3339 section 5.6 (date-time) via the OpenAPI format date-time",
    "https://google.aip.dev/148 (create_time, update_time: output only, set by the server)",
    "RFC 9110 sections 9.3.3 (POST) and 9.3.4 (PUT)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-answers-server-fields",
      says: "the create's answer carries the stored article: the title sent, the server's id, createdAt and updatedAt as date-time, updatedAt not before createdAt (OpenAPI 3.0.3 readOnly; RFC 3339 5.6)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = await send("POST", "/articles", { title });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        const a = obj(made.json);
        expectThat(a.title === title, `sent title ${title}, the create answered ${made.text}`);
        expectThat(typeof a.id === "string" && a.id !== "", `the create's id is ${String(a.id)}`);
        expectThat(
          at(a.updatedAt) >= at(a.createdAt),
          `createdAt ${String(a.createdAt)}, updatedAt ${String(a.updatedAt)}`,
        );
      },
    },
    {
      id: "read-back-same-server-fields",
      says: "GET of the created article answers the same id, title, createdAt and updatedAt as the create (RFC 9110 9.3.3)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = obj((await send("POST", "/articles", { title })).json);
        const read = await send("GET", `/articles/${String(made.id)}`);
        const r = obj(read.json);
        expectThat(read.status === 200, `GET of the created article answered ${read.status}`);
        expectThat(
          r.id === made.id && r.title === title && r.createdAt === made.createdAt && r.updatedAt === made.updatedAt,
          `created ${JSON.stringify(made)}, read ${read.text}`,
        );
      },
    },
    {
      id: "server-ids-differ",
      says: "two creates get two server-set ids, each reading back its own title (readOnly id: the server identifies each)",
      async check(send, fresh) {
        const one = `t-${fresh()}`;
        const two = `t-${fresh()}`;
        const a = obj((await send("POST", "/articles", { title: one })).json);
        const b = obj((await send("POST", "/articles", { title: two })).json);
        expectThat(a.id !== b.id, `both creates answered id ${String(a.id)}`);
        const ra = obj((await send("GET", `/articles/${String(a.id)}`)).json);
        const rb = obj((await send("GET", `/articles/${String(b.id)}`)).json);
        expectThat(ra.title === one && rb.title === two, `read back titles ${String(ra.title)}, ${String(rb.title)}`);
      },
    },
    {
      id: "replace-keeps-created-at",
      says: "a PUT replaces the title but keeps createdAt, and updatedAt does not move backwards (AIP-148; RFC 9110 9.3.4)",
      async check(send, fresh) {
        const made = obj((await send("POST", "/articles", { title: `t-${fresh()}` })).json);
        const title = `t-${fresh()}`;
        const put = await send("PUT", `/articles/${String(made.id)}`, { title });
        expectThat(put.status === 200, `PUT answered ${put.status}: ${put.text}`);
        const r = obj((await send("GET", `/articles/${String(made.id)}`)).json);
        expectThat(r.title === title, `after the PUT the title is ${String(r.title)}`);
        expectThat(
          r.createdAt === made.createdAt,
          `createdAt was ${String(made.createdAt)}, now ${String(r.createdAt)}`,
        );
        expectThat(
          at(r.updatedAt) >= at(made.updatedAt),
          `updatedAt was ${String(made.updatedAt)}, after the PUT ${String(r.updatedAt)}`,
        );
      },
    },
    {
      id: "client-created-at-not-set",
      says: "a create that sends createdAt does not set it: the server refuses it (400) or answers its own value (OpenAPI 3.0.3 readOnly)",
      async check(send, fresh) {
        const made = await send("POST", "/articles", {
          title: `t-${fresh()}`,
          createdAt: LONG_AGO,
          updatedAt: LONG_AGO,
        });
        if (made.status === 400) return;
        expectThat(made.status === 201, `create with createdAt answered ${made.status}`);
        const a = obj(made.json);
        const r = obj((await send("GET", `/articles/${String(a.id)}`)).json);
        expectThat(
          at(a.createdAt) !== at(LONG_AGO) && at(r.createdAt) !== at(LONG_AGO) && !Number.isNaN(at(r.createdAt)),
          `sent createdAt ${LONG_AGO}; answered ${String(a.createdAt)}, read ${String(r.createdAt)}`,
        );
      },
    },
    {
      id: "replace-created-at-not-set",
      says: "a PUT that sends createdAt leaves the stored createdAt as the server set it (OpenAPI 3.0.3 readOnly)",
      async check(send, fresh) {
        const made = obj((await send("POST", "/articles", { title: `t-${fresh()}` })).json);
        const put = await send("PUT", `/articles/${String(made.id)}`, { title: `t-${fresh()}`, createdAt: LONG_AGO });
        expectThat(put.status === 200 || put.status === 400, `PUT with createdAt answered ${put.status}`);
        const r = obj((await send("GET", `/articles/${String(made.id)}`)).json);
        expectThat(
          r.createdAt === made.createdAt,
          `createdAt was ${String(made.createdAt)}, now ${String(r.createdAt)}`,
        );
      },
    },
    {
      id: "list-carries-server-fields",
      says: "the list holds each article once with its server-set id and timestamps (OpenAPI 3.0.3 readOnly: returned in answers)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = obj((await send("POST", "/articles", { title })).json);
        const list = await send("GET", "/articles");
        const mine = (Array.isArray(list.json) ? list.json : []).map(obj).filter((a) => a.title === title);
        expectThat(
          mine.length === 1 && mine[0]!.id === made.id && mine[0]!.createdAt === made.createdAt,
          `the list holds ${JSON.stringify(mine)} for ${title}`,
        );
      },
    },
  ],
};
