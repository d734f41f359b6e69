// A client-chosen string key: the create's request carries a required `slug` (any non-empty text, no
// pattern, no maxLength) and the item lives at `/articles/{slug}`, the slug percent-encoded as UTF-8 in
// the path. Kubernetes' shape for `metadata.name` (POST to the collection, an existing name 409), with
// the free text keys of stores such as CouchDB document ids.
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, writeJson, type Answer, type Client, type JsonObject } from "./kit.js";

const article = {
  type: "object",
  required: ["slug", "title"],
  properties: {
    slug: { type: "string", minLength: 1, description: "chosen by the client; any text" },
    title: { type: "string" },
    body: { type: "string" },
  },
};
const error = {
  type: "object",
  required: ["code", "message"],
  properties: { code: { type: "integer", format: "int32" }, message: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const slugParam = { name: "slug", in: "path", required: true, schema: { type: "string", minLength: 1 } };

const document = {
  openapi: "3.1.0",
  info: { title: "client string slug", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/articles": {
      post: {
        operationId: "createArticle",
        requestBody: { required: true, ...json(article) },
        responses: {
          "201": { description: "created", ...json(article) },
          "400": { description: "invalid", ...json(error) },
          "409": { description: "the slug is taken", ...json(error) },
        },
      },
      get: {
        operationId: "listArticles",
        responses: { "200": { description: "every article", ...json({ type: "array", items: article }) } },
      },
    },
    "/articles/{slug}": {
      parameters: [slugParam],
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
          "400": { description: "invalid, or a slug other than the path's", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
      delete: {
        operationId: "deleteArticle",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(error) } },
      },
    },
  },
};

/** The reference: a map of articles by their slug, the exact string the client sent. */
function reference() {
  const articles = new Map<string, JsonObject>();
  const bad = (status: number, message: string): Answer => ({ status, body: { code: status, message } });
  const valid = (b: unknown): b is JsonObject => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return false;
    const o = b as JsonObject;
    return (
      typeof o.slug === "string" &&
      o.slug !== "" &&
      typeof o.title === "string" &&
      (o.body === undefined || typeof o.body === "string")
    );
  };
  const item = (b: JsonObject): JsonObject => ({
    slug: b.slug!,
    title: b.title!,
    ...(b.body === undefined ? {} : { body: b.body }),
  });
  const handle = router({
    "POST /articles": ({ body }) => {
      if (!valid(body)) return bad(400, "invalid article");
      const key = body.slug as string;
      if (articles.has(key)) return bad(409, "the slug is taken");
      articles.set(key, item(body));
      return { status: 201, body: articles.get(key) };
    },
    "GET /articles": () => ({ status: 200, body: [...articles.values()] }),
    "GET /articles/{slug}": ({ params }) => {
      const found = articles.get(params.slug!);
      return found === undefined ? bad(404, "no such article") : { status: 200, body: found };
    },
    "PUT /articles/{slug}": ({ params, body }) => {
      const key = params.slug!;
      if (!articles.has(key)) return bad(404, "no such article");
      if (!valid(body) || body.slug !== key) return bad(400, "invalid article");
      articles.set(key, item(body));
      return { status: 200, body: articles.get(key) };
    },
    "DELETE /articles/{slug}": ({ params }) =>
      articles.delete(params.slug!) ? { status: 204 } : bad(404, "no such article"),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const at = (slug: string): string => `/articles/${encodeURIComponent(slug)}`;
const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const listed = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(obj) : []);

/** Creates the slug, reads it back at its percent-encoded path, and finds it once in the list. */
async function roundTrip(send: Client, slug: string): Promise<void> {
  const made = await send("POST", "/articles", { slug, title: "Round trip" });
  expectThat(made.status === 201, `create answered ${made.status}: ${made.text.slice(0, 200)}`);
  expectThat(sameJson(obj(made.json).slug, slug), `create answered slug ${JSON.stringify(obj(made.json).slug)}`);
  const read = await send("GET", at(slug));
  expectThat(read.status === 200, `GET of the percent-encoded slug answered ${read.status}`);
  expectThat(sameJson(obj(read.json).slug, slug), `read back slug ${JSON.stringify(obj(read.json).slug)}`);
  const list = await send("GET", "/articles");
  const mine = listed(list.json).filter((a) => a.slug === slug);
  expectThat(mine.length === 1, `the list holds the slug ${mine.length} times`);
}

export const clientStringSlug: Convention = {
  name: "client-string-slug",
  family:
    "client-chosen string key: Kubernetes metadata.name (POST to the collection, an existing name 409 AlreadyExists); free-text keys such as CouchDB document ids",
  sources: [
    "RFC 9110 sections 9.3.3 (POST), 9.3.4 (PUT), 9.3.5 (DELETE), 15.5.5 (404), 15.5.10 (409 Conflict)",
    "RFC 9110 section 4.1 (URIs of at least 8000 octets should be supported)",
    "RFC 3986 sections 2.1, 2.5 and 3.3 (text in a path segment: UTF-8 octets, percent-encoded); RFC 3987 section 3.1",
    "RFC 8259 sections 7 and 8.3 (JSON strings, compared code unit by code unit)",
    "https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md (names chosen by the client; create of an existing name is 409 AlreadyExists)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-then-read-by-slug",
      says: "a create with its slug answers 201 with that slug, and GET /articles/{slug} returns it (RFC 9110 9.3.3, 15.3.2)",
      async check(send, fresh) {
        const slug = `first-steps-${fresh()}`;
        const made = await send("POST", "/articles", { slug, title: "First steps", body: "Hello" });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        expectThat(sameJson(obj(made.json).slug, slug), `create answered ${made.text}`);
        const read = await send("GET", at(slug));
        expectThat(read.status === 200, `GET ${at(slug)} after its create answered ${read.status}`);
        expectThat(sameJson(read.json, { slug, title: "First steps", body: "Hello" }), `read back ${read.text}`);
      },
    },
    {
      id: "duplicate-slug-409",
      says: "a second create with a stored slug gets the documented 409 and leaves the stored item (RFC 9110 15.5.10; Kubernetes AlreadyExists)",
      async check(send, fresh) {
        const slug = `taken-${fresh()}`;
        await send("POST", "/articles", { slug, title: "First" });
        const again = await send("POST", "/articles", { slug, title: "Second" });
        expectThat(again.status === 409, `the repeated create answered ${again.status}`);
        const read = await send("GET", at(slug));
        expectThat(sameJson(obj(read.json).title, "First"), `after the 409 the item reads ${read.text}`);
      },
    },
    {
      id: "non-ascii-slug-round-trips",
      says: "a slug of non-ASCII text (accents, CJK, an emoji, a combining mark) is kept exactly and found at its percent-encoded UTF-8 path (RFC 3986 2.5, RFC 8259 8.3)",
      async check(send, fresh) {
        await roundTrip(send, `caf\u00e9-${fresh()}-\u65e5\u672c\u8a9e-\u{1F331}-e\u0301 \u00fc`);
      },
    },
    {
      id: "long-slug-round-trips",
      says: "a long slug (the schema sets no maxLength; URIs up to 8000 octets should work, RFC 9110 4.1) is kept to the last character",
      async check(send, fresh) {
        await roundTrip(send, `long-${fresh()}-${"\u00df\u6f22".repeat(100)}-${"x".repeat(1000)}-end`);
      },
    },
    {
      id: "replace-leaves-what-it-sent",
      says: "PUT replaces the whole item: an optional property it does not send is gone (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const slug = `replaced-${fresh()}`;
        await send("POST", "/articles", { slug, title: "Old", body: "old text" });
        const put = await send("PUT", at(slug), { slug, title: "New" });
        expectThat(put.status === 200, `PUT answered ${put.status}`);
        const read = await send("GET", at(slug));
        expectThat(sameJson(read.json, { slug, title: "New" }), `after the PUT the item reads ${read.text}`);
      },
    },
    {
      id: "replace-never-moves-slug",
      says: "a PUT whose body names another slug than its path is rejected (the document's 400) or ignored, never used: the item stays at its slug and none appears at the other (the key is the path's, RFC 9110 9.3.4)",
      async check(send, fresh) {
        const slug = `stays-${fresh()}`;
        const other = `moved-${fresh()}`;
        await send("POST", "/articles", { slug, title: "Stays" });
        const put = await send("PUT", at(slug), { slug: other, title: "Moved" });
        expectThat(put.status === 400 || put.status === 200, `PUT with another slug answered ${put.status}`);
        const read = await send("GET", at(slug));
        expectThat(
          read.status === 200 && sameJson(obj(read.json).slug, slug),
          `after the PUT ${at(slug)} answers ${read.status} ${read.text}`,
        );
        const moved = await send("GET", at(other));
        expectThat(moved.status === 404, `after the PUT ${at(other)} answers ${moved.status} ${moved.text}`);
      },
    },
    {
      id: "unknown-slug-404",
      says: "read, replace and delete of a slug never created get 404 and create nothing (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const slug = `ghost-${fresh()}`;
        const put = await send("PUT", at(slug), { slug, title: "Ghost" });
        expectThat(put.status === 404, `PUT of an unknown slug answered ${put.status}`);
        const del = await send("DELETE", at(slug));
        expectThat(del.status === 404, `DELETE of an unknown slug answered ${del.status}`);
        const read = await send("GET", at(slug));
        expectThat(read.status === 404, `GET of an unknown slug answered ${read.status}`);
      },
    },
    {
      id: "delete-frees-slug",
      says: "after a delete the item reads 404, and the client may create its slug again (RFC 9110 9.3.5)",
      async check(send, fresh) {
        const slug = `once-${fresh()}`;
        await send("POST", "/articles", { slug, title: "Once" });
        const del = await send("DELETE", at(slug));
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", at(slug));
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("POST", "/articles", { slug, title: "Twice" });
        expectThat(again.status === 201, `a create of the freed slug answered ${again.status}`);
      },
    },
    {
      id: "list-holds-current-values",
      says: "the list holds each article made, once, with its current values",
      async check(send, fresh) {
        const slug = `listed-${fresh()}`;
        await send("POST", "/articles", { slug, title: "Listed" });
        await send("PUT", at(slug), { slug, title: "Renamed" });
        const list = await send("GET", "/articles");
        const mine = listed(list.json).filter((a) => a.slug === slug);
        expectThat(mine.length === 1 && sameJson(mine[0]!.title, "Renamed"), `the list holds ${writeJson(mine)}`);
      },
    },
  ],
};
