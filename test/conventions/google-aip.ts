// Google's API Improvement Proposals (AIP) as a REST shape: the resource's `name` (`shelves/{shelf}`) is
// its id, create takes the last segment from a `shelfId` query parameter or makes one, update is a PATCH
// limited by `updateMask`, delete answers `{}`, and lists page by `pageSize`/`pageToken` with
// `nextPageToken` empty only at the end. Promises from AIP-122, 133, 134, 135, 158 and 193.
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type JsonObject } from "./kit.js";

const shelf = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string", readOnly: true, description: "shelves/{shelf}: the resource's id (AIP-122)" },
    displayName: { type: "string" },
    theme: { type: "string" },
  },
};
const error = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "status"],
      properties: {
        code: { type: "integer", format: "int32" },
        message: { type: "string" },
        status: { type: "string" },
      },
    },
  },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const fail = (description: string) => ({ description, ...json(error) });
const shelfParam = { name: "shelf", in: "path", required: true, schema: { type: "string" } };

const document = {
  openapi: "3.0.3",
  info: { title: "google aip shelves", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/v1/shelves": {
      post: {
        operationId: "CreateShelf",
        parameters: [
          {
            name: "shelfId",
            in: "query",
            description: "the last segment of the new shelf's name; the server makes one when absent (AIP-133)",
            schema: { type: "string", pattern: "^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$" },
          },
        ],
        requestBody: { required: true, ...json(shelf) },
        responses: {
          "200": { description: "the created shelf", ...json(shelf) },
          "400": fail("INVALID_ARGUMENT"),
          "409": fail("ALREADY_EXISTS: the shelf id is taken"),
        },
      },
      get: {
        operationId: "ListShelves",
        parameters: [
          { name: "pageSize", in: "query", schema: { type: "integer", format: "int32", minimum: 0 } },
          { name: "pageToken", in: "query", schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "a page of shelves",
            ...json({
              type: "object",
              properties: {
                shelves: { type: "array", items: shelf },
                nextPageToken: { type: "string", description: "empty or absent only on the last page (AIP-158)" },
              },
            }),
          },
          "400": fail("INVALID_ARGUMENT"),
        },
      },
    },
    "/v1/shelves/{shelf}": {
      parameters: [shelfParam],
      get: {
        operationId: "GetShelf",
        responses: { "200": { description: "the shelf", ...json(shelf) }, "404": fail("NOT_FOUND") },
      },
      patch: {
        operationId: "UpdateShelf",
        parameters: [
          {
            name: "updateMask",
            in: "query",
            description: "comma-separated field paths to change; absent means every populated field (AIP-134)",
            schema: { type: "string" },
          },
        ],
        requestBody: { required: true, ...json(shelf) },
        responses: {
          "200": { description: "the updated shelf", ...json(shelf) },
          "400": fail("INVALID_ARGUMENT"),
          "404": fail("NOT_FOUND"),
        },
      },
      delete: {
        operationId: "DeleteShelf",
        responses: {
          "200": {
            description: "google.protobuf.Empty (AIP-135)",
            ...json({ type: "object", properties: {}, additionalProperties: false }),
          },
          "404": fail("NOT_FOUND"),
        },
      },
    },
  },
};

const FIELDS = ["displayName", "theme"] as const;
const ID = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** The reference: shelves by their last name segment, each with its creation sequence for paging. */
function reference() {
  const shelves = new Map<string, { seq: number; shelf: JsonObject }>();
  let seq = 0;
  const bad = (code: number, status: string, message: string): Answer => ({
    status: code,
    body: { error: { code, message, status } },
  });
  const isObject = (b: unknown): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  const handle = router({
    "POST /v1/shelves": ({ query, body }) => {
      if (!isObject(body) || FIELDS.some((f) => body[f] !== undefined && typeof body[f] !== "string"))
        return bad(400, "INVALID_ARGUMENT", "invalid shelf");
      const asked = query.get("shelfId");
      if (asked !== null && !ID.test(asked)) return bad(400, "INVALID_ARGUMENT", "invalid shelfId");
      let id = asked;
      if (id === null)
        do id = `s${(++seq).toString(36)}x`;
        while (shelves.has(id));
      if (shelves.has(id)) return bad(409, "ALREADY_EXISTS", `shelves/${id} exists`);
      const made: JsonObject = { name: `shelves/${id}` };
      for (const f of FIELDS) if (body[f] !== undefined) made[f] = body[f]!;
      shelves.set(id, { seq: ++seq, shelf: made });
      return { status: 200, body: made };
    },
    "GET /v1/shelves": ({ query }) => {
      const size = Number(query.get("pageSize") ?? "0");
      if (!Number.isInteger(size) || size < 0) return bad(400, "INVALID_ARGUMENT", "pageSize");
      const limit = size === 0 ? 50 : Math.min(size, 1000);
      const token = query.get("pageToken") ?? "";
      const after =
        token === ""
          ? 0
          : Number(
              Buffer.from(token, "base64url")
                .toString()
                .replace(/^after:/, ""),
            );
      if (!Number.isInteger(after)) return bad(400, "INVALID_ARGUMENT", "pageToken");
      const rest = [...shelves.values()].filter((s) => s.seq > after).sort((a, b) => a.seq - b.seq);
      const page = rest.slice(0, limit);
      const more = rest.length > limit;
      return {
        status: 200,
        body: {
          shelves: page.map((s) => s.shelf),
          ...(more ? { nextPageToken: Buffer.from(`after:${page.at(-1)!.seq}`).toString("base64url") } : {}),
        },
      };
    },
    "GET /v1/shelves/{shelf}": ({ params }) => {
      const found = shelves.get(params.shelf!);
      return found === undefined ? bad(404, "NOT_FOUND", "no such shelf") : { status: 200, body: found.shelf };
    },
    "PATCH /v1/shelves/{shelf}": ({ params, query, body }) => {
      const found = shelves.get(params.shelf!);
      if (found === undefined) return bad(404, "NOT_FOUND", "no such shelf");
      if (!isObject(body)) return bad(400, "INVALID_ARGUMENT", "invalid shelf");
      const mask = query.get("updateMask");
      const paths =
        mask === null
          ? FIELDS.filter((f) => body[f] !== undefined && body[f] !== "")
          : mask === "*"
            ? [...FIELDS]
            : mask.split(",").map((p) => p.trim());
      if (paths.some((p) => !(FIELDS as readonly string[]).includes(p)))
        return bad(400, "INVALID_ARGUMENT", "updateMask names an unknown field");
      for (const p of paths) {
        const v = body[p];
        if (v === undefined) delete found.shelf[p];
        else if (typeof v !== "string") return bad(400, "INVALID_ARGUMENT", p);
        else found.shelf[p] = v;
      }
      return { status: 200, body: found.shelf };
    },
    "DELETE /v1/shelves/{shelf}": ({ params }) =>
      shelves.delete(params.shelf!) ? { status: 200, body: {} } : bad(404, "NOT_FOUND", "no such shelf"),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : ({} as JsonObject);

/** Walks the whole collection by page tokens; the shelves seen, in order. Breaks on a page over `size`. */
async function walk(send: Client, size: number): Promise<JsonObject[]> {
  const seen: JsonObject[] = [];
  let token = "";
  for (let pages = 0; pages < 200; pages++) {
    const query = `pageSize=${size}${token === "" ? "" : `&pageToken=${encodeURIComponent(token)}`}`;
    const page = await send("GET", `/v1/shelves?${query}`);
    expectThat(page.status === 200, `GET /v1/shelves?${query} answered ${page.status}: ${page.text}`);
    const items = obj(page.json).shelves ?? [];
    expectThat(Array.isArray(items), `shelves is not an array: ${page.text}`);
    expectThat(items.length <= size, `pageSize=${size} answered ${items.length} shelves`);
    seen.push(...items.map(obj));
    const next = obj(page.json).nextPageToken;
    if (next === undefined || next === "") return seen;
    expectThat(typeof next === "string", `nextPageToken is ${JSON.stringify(next)}`);
    token = next;
  }
  throw new Broken("200 pages and nextPageToken still not empty");
}

export const googleAip: Convention = {
  name: "google-aip",
  family: "Google APIs (AIP): resource names, shelfId on create, updateMask, pageToken paging",
  sources: [
    "https://google.aip.dev/122 (resource names: the full name is the id)",
    "https://google.aip.dev/133 (Create: {resource}_id sets the last segment, else the server makes one; ALREADY_EXISTS)",
    "https://google.aip.dev/134 (Update: PATCH, update_mask limits the change; no mask means populated fields)",
    "https://google.aip.dev/135 (Delete: google.protobuf.Empty; NOT_FOUND)",
    "https://google.aip.dev/158 (Pagination: page_size, page_token, next_page_token empty only at the end)",
    "https://google.aip.dev/193 (Errors: ALREADY_EXISTS is 409, NOT_FOUND 404)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-id-sets-name",
      says: "a create with shelfId=x makes the shelf named shelves/x, and GET there returns it (AIP-133, AIP-122)",
      async check(send, fresh) {
        const id = `s-${fresh()}`;
        const made = await send("POST", `/v1/shelves?shelfId=${id}`, { displayName: "Fiction" });
        expectThat(made.status === 200, `create answered ${made.status}: ${made.text}`);
        expectThat(sameJson(obj(made.json).name, `shelves/${id}`), `create answered name ${made.text}`);
        const read = await send("GET", `/v1/shelves/${id}`);
        expectThat(read.status === 200, `GET /v1/shelves/${id} answered ${read.status}`);
        expectThat(sameJson(read.json, { name: `shelves/${id}`, displayName: "Fiction" }), `read back ${read.text}`);
      },
    },
    {
      id: "create-without-id-server-names",
      says: "a create without shelfId gets a name the server makes, unique, and GET by it returns the shelf (AIP-133)",
      async check(send, fresh) {
        const label = `Unnamed ${fresh()}`;
        const one = await send("POST", "/v1/shelves", { displayName: label });
        const two = await send("POST", "/v1/shelves", { displayName: `${label} too` });
        expectThat(one.status === 200 && two.status === 200, `creates answered ${one.status}, ${two.status}`);
        const name = obj(one.json).name;
        expectThat(typeof name === "string" && /^shelves\/[^/]+$/.test(name), `create answered name ${one.text}`);
        expectThat(!sameJson(name, obj(two.json).name), `two creates got the same name ${String(name)}`);
        const read = await send("GET", `/v1/${name}`);
        expectThat(read.status === 200, `GET /v1/${name} answered ${read.status}`);
        expectThat(sameJson(obj(read.json).displayName, label), `read back ${read.text}`);
      },
    },
    {
      id: "duplicate-id-409",
      says: "a create with a shelfId already taken is ALREADY_EXISTS, 409, and the shelf keeps its values (AIP-133, AIP-193)",
      async check(send, fresh) {
        const id = `d-${fresh()}`;
        await send("POST", `/v1/shelves?shelfId=${id}`, { displayName: "First" });
        const again = await send("POST", `/v1/shelves?shelfId=${id}`, { displayName: "Second" });
        expectThat(again.status === 409, `the repeated create answered ${again.status}`);
        const read = await send("GET", `/v1/shelves/${id}`);
        expectThat(sameJson(obj(read.json).displayName, "First"), `after the 409 the shelf reads ${read.text}`);
      },
    },
    {
      id: "update-mask-limits-change",
      says: "PATCH with updateMask=theme changes theme only, though the body sends displayName too (AIP-134)",
      async check(send, fresh) {
        const id = `m-${fresh()}`;
        await send("POST", `/v1/shelves?shelfId=${id}`, { displayName: "Kept", theme: "old" });
        const patch = await send("PATCH", `/v1/shelves/${id}?updateMask=theme`, {
          displayName: "Ignored",
          theme: "new",
        });
        expectThat(patch.status === 200, `PATCH answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/v1/shelves/${id}`);
        expectThat(
          sameJson(read.json, { name: `shelves/${id}`, displayName: "Kept", theme: "new" }),
          `after the masked PATCH the shelf reads ${read.text}`,
        );
      },
    },
    {
      id: "update-without-mask-keeps-unsent",
      says: "PATCH without updateMask changes the populated fields only: a field not sent keeps its value (AIP-134)",
      async check(send, fresh) {
        const id = `u-${fresh()}`;
        await send("POST", `/v1/shelves?shelfId=${id}`, { displayName: "Kept", theme: "old" });
        const patch = await send("PATCH", `/v1/shelves/${id}`, { theme: "new" });
        expectThat(patch.status === 200, `PATCH answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/v1/shelves/${id}`);
        expectThat(
          sameJson(read.json, { name: `shelves/${id}`, displayName: "Kept", theme: "new" }),
          `after the PATCH the shelf reads ${read.text}`,
        );
      },
    },
    {
      id: "delete-empty-then-404",
      says: "DELETE answers 200 with the empty message {}; GET and a second DELETE are then NOT_FOUND, 404 (AIP-135)",
      async check(send, fresh) {
        const id = `x-${fresh()}`;
        await send("POST", `/v1/shelves?shelfId=${id}`, { displayName: "Gone" });
        const del = await send("DELETE", `/v1/shelves/${id}`);
        expectThat(del.status === 200 && sameJson(del.json, {}), `DELETE answered ${del.status}: ${del.text}`);
        const read = await send("GET", `/v1/shelves/${id}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("DELETE", `/v1/shelves/${id}`);
        expectThat(again.status === 404, `a second DELETE answered ${again.status}`);
      },
    },
    {
      id: "page-token-walk-once",
      says:
        "pages hold at most pageSize shelves; following nextPageToken until it is empty visits every shelf once, " +
        "with its current values (AIP-158)",
      async check(send, fresh) {
        const base = `p-${fresh()}`;
        const ids = [1, 2, 3, 4, 5].map((k) => `${base}-${k}`);
        for (const id of ids) {
          const made = await send("POST", `/v1/shelves?shelfId=${id}`, { displayName: id, theme: "first" });
          expectThat(made.status === 200, `create answered ${made.status}`);
        }
        await send("PATCH", `/v1/shelves/${ids[2]}?updateMask=theme`, { theme: "second" });
        const seen = await walk(send, 2);
        const names = seen.map((s) => String(s.name));
        expectThat(new Set(names).size === names.length, `the walk saw a shelf twice: ${names.join(" ")}`);
        for (const id of ids) {
          const mine = seen.filter((s) => s.name === `shelves/${id}`);
          expectThat(mine.length === 1, `the walk saw shelves/${id} ${mine.length} times`);
          const theme = id === ids[2] ? "second" : "first";
          expectThat(sameJson(mine[0]!.theme, theme), `the walk saw ${JSON.stringify(mine[0])}`);
        }
      },
    },
  ],
};
