// Upsert by PUT with the key in the path: the client names the item in the URL and PUT is the only
// way to make one (no POST). The first PUT creates (201), a later one replaces (200 or 204), the same
// body twice leaves the same state; a body key that differs from the path key is refused and never
// used. The shape of settings and config stores (rest-conventions.md section 10, "Upsert by PUT").
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type JsonObject } from "./kit.js";

const KEY = "^[a-z0-9-]{1,64}$";
const setting = {
  type: "object",
  required: ["key", "value"],
  properties: {
    key: { type: "string", pattern: KEY },
    value: { type: "string" },
    note: { type: "string" },
  },
};
const error = {
  type: "object",
  required: ["code", "message"],
  properties: { code: { type: "integer" }, message: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });

const document = {
  openapi: "3.1.0",
  info: { title: "put upsert", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/settings": {
      get: {
        operationId: "listSettings",
        responses: { "200": { description: "every setting", ...json({ type: "array", items: setting }) } },
      },
    },
    "/settings/{key}": {
      parameters: [{ name: "key", in: "path", required: true, schema: { type: "string", pattern: KEY } }],
      get: {
        operationId: "getSetting",
        responses: {
          "200": { description: "the setting", ...json(setting) },
          "404": { description: "no setting with this key", ...json(error) },
        },
      },
      put: {
        operationId: "putSetting",
        description: "Creates the setting at this key, or replaces it. The body's key must be the path's key.",
        requestBody: { required: true, ...json(setting) },
        responses: {
          "200": { description: "replaced", ...json(setting) },
          "201": { description: "created", ...json(setting) },
          "400": { description: "invalid, or the body's key is not the path's key", ...json(error) },
        },
      },
      delete: {
        operationId: "deleteSetting",
        responses: {
          "204": { description: "deleted" },
          "404": { description: "no setting with this key", ...json(error) },
        },
      },
    },
  },
};

function reference() {
  const settings = new Map<string, JsonObject>();
  const bad = (status: number, message: string): Answer => ({ status, body: { code: status, message } });
  const valid = (b: unknown): b is JsonObject => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return false;
    const o = b as JsonObject;
    return (
      Object.keys(o).every((k) => ["key", "value", "note"].includes(k)) &&
      typeof o.key === "string" &&
      typeof o.value === "string" &&
      (o.note === undefined || typeof o.note === "string")
    );
  };
  const handle = router({
    "GET /settings": () => ({ status: 200, body: [...settings.values()] }),
    "GET /settings/{key}": ({ params }) => {
      const found = settings.get(params.key!);
      return found === undefined ? bad(404, "no such setting") : { status: 200, body: found };
    },
    "PUT /settings/{key}": ({ params, body }) => {
      const key = params.key!;
      if (!new RegExp(KEY).test(key)) return bad(400, "invalid key");
      if (!valid(body)) return bad(400, "invalid setting");
      if (body.key !== key) return bad(400, "the body's key is not the path's key");
      const existed = settings.has(key);
      settings.set(key, { key, value: body.value!, ...(body.note === undefined ? {} : { note: body.note }) });
      return { status: existed ? 200 : 201, body: settings.get(key) };
    },
    "DELETE /settings/{key}": ({ params }) =>
      settings.delete(params.key!) ? { status: 204 } : bad(404, "no such setting"),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const key = (fresh: () => number): string => `s-${fresh()}`;

export const putUpsert: Convention = {
  name: "put-upsert",
  family: "upsert by PUT with the client's key in the path (settings and config stores; no POST)",
  sources: [
    "RFC 9110 section 9.3.4 (PUT: 201 if it created, 200 or 204 if it replaced)",
    "RFC 9110 section 9.2.2 (PUT and DELETE are idempotent)",
    "RFC 9110 sections 9.3.5 (DELETE) and 15.5.5 (404 Not Found)",
    "/work/shared/notes/rest-conventions.md section 10 (upsert by PUT: a body key differing from the path key is rejected or ignored, never used)",
  ],
  document,
  reference,
  promises: [
    {
      id: "first-put-201",
      says: "a PUT to a key with no current representation creates it and answers 201 Created (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const k = key(fresh);
        const put = await send("PUT", `/settings/${k}`, { key: k, value: "on" });
        expectThat(put.status === 201, `the first PUT of ${k} answered ${put.status}: ${put.text}`);
      },
    },
    {
      id: "get-returns-what-was-put",
      says: "after a PUT, GET of the same URI returns the representation that was put (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const k = key(fresh);
        const sent = { key: k, value: `v-${fresh()}`, note: `n-${fresh()}` };
        await send("PUT", `/settings/${k}`, sent);
        const read = await send("GET", `/settings/${k}`);
        expectThat(read.status === 200, `GET after the PUT answered ${read.status}`);
        expectThat(sameJson(read.json, sent), `put ${JSON.stringify(sent)}, read ${read.text}`);
      },
    },
    {
      id: "second-put-replaces-200-or-204",
      says: "a PUT to a stored key replaces the whole item and answers 200 or 204; a member it omits is gone (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const k = key(fresh);
        await send("PUT", `/settings/${k}`, { key: k, value: "first", note: "old" });
        const again = await send("PUT", `/settings/${k}`, { key: k, value: "second" });
        expectThat(again.status === 200 || again.status === 204, `the second PUT answered ${again.status}`);
        const read = await send("GET", `/settings/${k}`);
        expectThat(sameJson(read.json, { key: k, value: "second" }), `after the second PUT: ${read.text}`);
      },
    },
    {
      id: "same-put-twice-same-state",
      says: "PUT is idempotent: the same body twice leaves one item with that body (RFC 9110 9.2.2)",
      async check(send, fresh) {
        const k = key(fresh);
        const sent = { key: k, value: `v-${fresh()}` };
        const first = await send("PUT", `/settings/${k}`, sent);
        const second = await send("PUT", `/settings/${k}`, sent);
        expectThat(first.status === 201, `the first PUT answered ${first.status}`);
        expectThat(second.status === 200 || second.status === 204, `the same PUT again answered ${second.status}`);
        const list = await send("GET", "/settings");
        const mine = (Array.isArray(list.json) ? (list.json as JsonObject[]) : []).filter((s) => s.key === k);
        expectThat(mine.length === 1 && sameJson(mine[0], sent), `the list holds ${JSON.stringify(mine)} for ${k}`);
      },
    },
    {
      id: "delete-then-404",
      says: "DELETE answers 204; then GET is 404, and a new PUT creates the key again with 201 (RFC 9110 9.3.5, 9.3.4)",
      async check(send, fresh) {
        const k = key(fresh);
        await send("PUT", `/settings/${k}`, { key: k, value: "once" });
        const del = await send("DELETE", `/settings/${k}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/settings/${k}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("PUT", `/settings/${k}`, { key: k, value: "twice" });
        expectThat(again.status === 201, `PUT after DELETE answered ${again.status}`);
      },
    },
    {
      id: "body-key-mismatch-never-used",
      says: "a PUT whose body key is not the path key is refused (the documented 400, nothing created) or its body key ignored (the item stored at the path key, with it); the body key is never used (rest-conventions.md section 10)",
      async check(send, fresh) {
        const path = key(fresh);
        const other = key(fresh);
        const put = await send("PUT", `/settings/${path}`, { key: other, value: "x" });
        expectThat(put.status === 400 || (put.status >= 200 && put.status < 300), `PUT answered ${put.status}`);
        const a = await send("GET", `/settings/${path}`);
        const b = await send("GET", `/settings/${other}`);
        expectThat(b.status === 404, `the body key was used: GET /settings/${other} answered ${b.status}`);
        if (put.status === 400) expectThat(a.status === 404, `after the 400, GET of the path key answered ${a.status}`);
        else
          expectThat(a.status === 200 && sameJson((a.json as JsonObject)?.key, path), `the path key reads ${a.text}`);
      },
    },
    {
      id: "body-key-mismatch-never-moves",
      says: "a PUT with a differing body key never moves the stored item: refused (it stays as it was) or applied at the path key (RFC 9110 9.3.4; rest-conventions.md section 10)",
      async check(send, fresh) {
        const k = key(fresh);
        const other = key(fresh);
        await send("PUT", `/settings/${k}`, { key: k, value: "kept" });
        const put = await send("PUT", `/settings/${k}`, { key: other, value: "new" });
        const read = await send("GET", `/settings/${k}`);
        const moved = await send("GET", `/settings/${other}`);
        expectThat(moved.status === 404, `the item moved to ${other}: ${moved.text}`);
        const want = put.status === 400 ? { key: k, value: "kept" } : { key: k, value: "new" };
        expectThat(sameJson(read.json, want), `after the PUT (${put.status}) the item reads ${read.text}`);
      },
    },
    {
      id: "unknown-key-404",
      says: "GET and DELETE of a key never put answer 404 (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const k = key(fresh);
        const read = await send("GET", `/settings/${k}`);
        expectThat(read.status === 404, `GET of an unknown key answered ${read.status}`);
        const del = await send("DELETE", `/settings/${k}`);
        expectThat(del.status === 404, `DELETE of an unknown key answered ${del.status}`);
      },
    },
  ],
};
