// The two common answers to DELETE: tags answer 204 with no content (GitHub, Spring Data REST), bookmarks
// answer 200 with the item as it was (Stripe-like APIs, many Rails and Express apps). Either way the
// item is gone after: GET is 404, and so is a second DELETE; other items stay.
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Json, type JsonObject } from "./kit.js";

const tag = {
  type: "object",
  required: ["id", "name"],
  properties: { id: { type: "integer", format: "int64", readOnly: true }, name: { type: "string", minLength: 1 } },
};
const bookmark = {
  type: "object",
  required: ["id", "url", "title"],
  properties: {
    id: { type: "integer", format: "int64", readOnly: true },
    url: { type: "string", format: "uri" },
    title: { type: "string" },
  },
};
const error = {
  type: "object",
  required: ["code", "message"],
  properties: { code: { type: "integer" }, message: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } };

const resource = (name: string, schema: unknown, deleted: object) => ({
  [`/${name}`]: {
    post: {
      operationId: `create-${name}`,
      requestBody: { required: true, ...json(schema) },
      responses: {
        "201": { description: "created", ...json(schema) },
        "400": { description: "invalid", ...json(error) },
      },
    },
  },
  [`/${name}/{id}`]: {
    parameters: [idParam],
    get: {
      operationId: `get-${name}`,
      responses: {
        "200": { description: "the item", ...json(schema) },
        "404": { description: "none", ...json(error) },
      },
    },
    delete: {
      operationId: `delete-${name}`,
      responses: { ...deleted, "404": { description: "none", ...json(error) } },
    },
  },
});

const document = {
  openapi: "3.0.3",
  info: { title: "delete variants", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    ...resource("tags", tag, { "204": { description: "deleted; no content" } }),
    ...resource("bookmarks", bookmark, {
      "200": { description: "deleted: the bookmark as it was", ...json(bookmark) },
    }),
  },
};

function reference() {
  const tags = new Map<string, JsonObject>();
  const bookmarks = new Map<string, JsonObject>();
  let next = 1;
  const bad = (status: number, message: string): Answer => ({ status, body: { code: status, message } });
  const isObject = (b: Json | undefined): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  const validTag = (b: Json | undefined): b is JsonObject => isObject(b) && typeof b.name === "string" && b.name !== "";
  const validBookmark = (b: Json | undefined): b is JsonObject =>
    isObject(b) && typeof b.url === "string" && URL.canParse(b.url) && typeof b.title === "string";
  const create =
    (store: Map<string, JsonObject>, valid: (b: Json | undefined) => b is JsonObject, keys: string[]) =>
    ({ body }: { body: Json | undefined }): Answer => {
      if (!valid(body)) return bad(400, "invalid");
      const made: JsonObject = { id: next };
      for (const k of keys) made[k] = body[k]!;
      store.set(String(next++), made);
      return { status: 201, body: made };
    };
  const read =
    (store: Map<string, JsonObject>) =>
    ({ params }: { params: Readonly<Record<string, string>> }): Answer => {
      const found = store.get(params.id!);
      return found === undefined ? bad(404, "none") : { status: 200, body: found };
    };
  const handle = router({
    "POST /tags": create(tags, validTag, ["name"]),
    "GET /tags/{id}": read(tags),
    "DELETE /tags/{id}": ({ params }) => (tags.delete(params.id!) ? { status: 204 } : bad(404, "none")),
    "POST /bookmarks": create(bookmarks, validBookmark, ["url", "title"]),
    "GET /bookmarks/{id}": read(bookmarks),
    "DELETE /bookmarks/{id}": ({ params }) => {
      const found = bookmarks.get(params.id!);
      if (found === undefined) return bad(404, "none");
      bookmarks.delete(params.id!);
      return { status: 200, body: found };
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const idOf = (v: Json | undefined): string =>
  String(typeof v === "object" && v !== null && !Array.isArray(v) ? v.id : undefined);
const aBookmark = (n: number) => ({ url: `https://example.com/pages/${n}`, title: `page ${n}` });

export const deleteVariants: Convention = {
  name: "delete-variants",
  family: "DELETE answered 204 with no content (GitHub, Spring Data REST) or 200 with the deleted item",
  sources: [
    "RFC 9110 section 9.3.5 (DELETE: 204 if no content, 200 if the answer describes the status; later the target is gone)",
    "RFC 9110 sections 15.3.5 (204 No Content: no content after the header section) and 15.5.5 (404 Not Found)",
    "RFC 9110 section 9.2.2 (DELETE is idempotent)",
    "https://docs.github.com/en/rest (deletes answer 204 with no body)",
  ],
  document,
  reference,
  promises: [
    {
      id: "delete-204-no-content",
      says: "DELETE of a tag answers 204 with no content, and then GET is 404 (RFC 9110 9.3.5, 15.3.5)",
      async check(send, fresh) {
        const made = await send("POST", "/tags", { name: `tag-${fresh()}` });
        const id = idOf(made.json);
        const del = await send("DELETE", `/tags/${id}`);
        expectThat(
          del.status === 204 && del.text === "",
          `DELETE answered ${del.status} with ${JSON.stringify(del.text)}`,
        );
        const read = await send("GET", `/tags/${id}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
      },
    },
    {
      id: "delete-200-answers-deleted-item",
      says: "DELETE of a bookmark answers 200 with the bookmark as it was, and then GET is 404 (RFC 9110 9.3.5)",
      async check(send, fresh) {
        const made = await send("POST", "/bookmarks", aBookmark(fresh()));
        const id = idOf(made.json);
        const del = await send("DELETE", `/bookmarks/${id}`);
        expectThat(del.status === 200, `DELETE answered ${del.status}`);
        expectThat(sameJson(del.json, made.json), `created ${made.text}, DELETE answered ${del.text}`);
        const read = await send("GET", `/bookmarks/${id}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
      },
    },
    {
      id: "second-delete-404",
      says: "a second DELETE of the same tag or bookmark answers 404: the first removed it (RFC 9110 9.2.2, 15.5.5)",
      async check(send, fresh) {
        const t = idOf((await send("POST", "/tags", { name: `tag-${fresh()}` })).json);
        const b = idOf((await send("POST", "/bookmarks", aBookmark(fresh()))).json);
        await send("DELETE", `/tags/${t}`);
        await send("DELETE", `/bookmarks/${b}`);
        const again = [await send("DELETE", `/tags/${t}`), await send("DELETE", `/bookmarks/${b}`)];
        expectThat(
          again.every((r) => r.status === 404),
          `the second DELETEs answered ${again.map((r) => r.status).join(", ")}`,
        );
      },
    },
    {
      id: "delete-unknown-404",
      says: "DELETE of a tag or bookmark never created answers 404 (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const id = 900_000_000 + fresh();
        const t = await send("DELETE", `/tags/${id}`);
        const b = await send("DELETE", `/bookmarks/${id}`);
        expectThat(t.status === 404 && b.status === 404, `DELETE of unknown ids answered ${t.status}, ${b.status}`);
      },
    },
    {
      id: "delete-leaves-others",
      says: "DELETE removes its target only: another tag and another bookmark still read back (RFC 9110 9.3.5)",
      async check(send, fresh) {
        const name = `tag-${fresh()}`;
        const gone = idOf((await send("POST", "/tags", { name: `tag-${fresh()}` })).json);
        const kept = idOf((await send("POST", "/tags", { name })).json);
        const page = aBookmark(fresh());
        const goneB = idOf((await send("POST", "/bookmarks", aBookmark(fresh()))).json);
        const keptB = idOf((await send("POST", "/bookmarks", page)).json);
        await send("DELETE", `/tags/${gone}`);
        await send("DELETE", `/bookmarks/${goneB}`);
        const t = await send("GET", `/tags/${kept}`);
        const b = await send("GET", `/bookmarks/${keptB}`);
        expectThat(
          t.status === 200 && (t.json as JsonObject)?.name === name,
          `the other tag reads ${t.status} ${t.text}`,
        );
        expectThat(
          b.status === 200 && (b.json as JsonObject)?.url === page.url,
          `the other bookmark reads ${b.status} ${b.text}`,
        );
      },
    },
  ],
};
