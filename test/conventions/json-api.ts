// JSON:API 1.1 (https://jsonapi.org/format/1.1/): the media type application/vnd.api+json, resource
// objects `{type, id, attributes}` with string ids the server assigns, pages by `page[number]` and
// `page[size]` linked by `links.next` (null at the end), PATCH that keeps absent attributes, DELETE 204,
// and `errors[]` documents for what fails.
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type Json, type JsonObject } from "./kit.js";

const MEDIA = "application/vnd.api+json";
const TYPE = "articles";

const attributes = { type: "object", properties: { title: { type: "string" }, body: { type: "string" } } };
const resource = {
  type: "object",
  required: ["type", "id", "attributes"],
  properties: {
    type: { type: "string", enum: [TYPE] },
    id: { type: "string", readOnly: true },
    attributes: { ...attributes, required: ["title"] },
    links: { type: "object", properties: { self: { type: "string" } } },
  },
};
const createDoc = {
  type: "object",
  required: ["data"],
  properties: {
    data: {
      type: "object",
      required: ["type", "attributes"],
      properties: { type: { type: "string" }, attributes: { ...attributes, required: ["title"] } },
    },
  },
};
const patchDoc = {
  type: "object",
  required: ["data"],
  properties: {
    data: {
      type: "object",
      required: ["type", "id"],
      properties: { type: { type: "string" }, id: { type: "string" }, attributes },
    },
  },
};
const link = { type: ["string", "null"] };
const single = { type: "object", required: ["data"], properties: { data: resource } };
const collection = {
  type: "object",
  required: ["data", "links"],
  properties: {
    data: { type: "array", items: resource },
    links: { type: "object", properties: { self: { type: "string" }, first: link, prev: link, next: link } },
  },
};
const errors = {
  type: "object",
  required: ["errors"],
  properties: {
    errors: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { status: { type: "string" }, title: { type: "string" }, detail: { type: "string" } },
      },
    },
  },
};
const body = (schema: unknown) => ({ content: { [MEDIA]: { schema } } });
const page = (name: string, description: string, dflt: number) => ({
  name,
  in: "query",
  description,
  schema: { type: "integer", minimum: 1, ...(name === "page[size]" ? { maximum: 100 } : {}), default: dflt },
});

const document = {
  openapi: "3.1.0",
  info: { title: "JSON:API 1.1", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/articles": {
      post: {
        operationId: "createArticle",
        requestBody: { required: true, ...body(createDoc) },
        responses: {
          "201": {
            description: "created, with the id the server assigned",
            headers: { Location: { schema: { type: "string" } } },
            ...body(single),
          },
          "400": { description: "malformed", ...body(errors) },
          "409": { description: "a type this collection does not hold", ...body(errors) },
        },
      },
      get: {
        operationId: "listArticles",
        parameters: [
          page("page[number]", "the page, from 1", 1),
          page("page[size]", "at most this many resources per page", 10),
        ],
        responses: { "200": { description: "a page of articles", ...body(collection) } },
      },
    },
    "/articles/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: {
        operationId: "getArticle",
        responses: {
          "200": { description: "the article", ...body(single) },
          "404": { description: "none", ...body(errors) },
        },
      },
      patch: {
        operationId: "updateArticle",
        requestBody: { required: true, ...body(patchDoc) },
        responses: {
          "200": { description: "updated", ...body(single) },
          "204": { description: "updated as sent" },
          "400": { description: "malformed", ...body(errors) },
          "404": { description: "none", ...body(errors) },
          "409": { description: "type or id differ from the URL's", ...body(errors) },
        },
      },
      delete: {
        operationId: "deleteArticle",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...body(errors) } },
      },
    },
  },
};

/** The reference: articles by string id; pages by number; every document in the JSON:API media type. */
function reference() {
  const articles = new Map<string, JsonObject>();
  let last = 0;
  const doc = (status: number, content: unknown, headers: Record<string, string> = {}): Answer => ({
    status,
    headers: { "content-type": MEDIA, ...headers },
    body: content,
  });
  const fail = (status: number, title: string): Answer => doc(status, { errors: [{ status: String(status), title }] });
  const isObject = (b: Json | undefined): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  const goodAttributes = (a: Json | undefined) =>
    isObject(a) && Object.entries(a).every(([k, v]) => ["title", "body"].includes(k) && typeof v === "string");
  const shown = (host: string | undefined, id: string): JsonObject => ({
    type: TYPE,
    id,
    attributes: articles.get(id)!,
    links: { self: `http://${host}/articles/${id}` },
  });
  const handle = router({
    "POST /articles": ({ body, headers }) => {
      const data = isObject(body) ? body.data : undefined;
      if (!isObject(data) || typeof data.type !== "string") return fail(400, "a resource object is required");
      if (data.type !== TYPE) return fail(409, `this collection holds ${TYPE}`);
      if (!goodAttributes(data.attributes) || typeof (data.attributes as JsonObject).title !== "string")
        return fail(400, "attributes.title is required");
      const id = String(++last);
      articles.set(id, { ...(data.attributes as JsonObject) });
      const made = shown(headers.host, id);
      return doc(201, { data: made }, { location: (made.links as JsonObject).self as string });
    },
    "GET /articles": ({ query, headers }) => {
      const size = Math.min(Math.max(Number(query.get("page[size]") ?? 10) || 10, 1), 100);
      const number = Math.max(Number(query.get("page[number]") ?? 1) || 1, 1);
      const ids = [...articles.keys()];
      const url = (n: number) =>
        `http://${headers.host}/articles?${new URLSearchParams({ "page[number]": String(n), "page[size]": String(size) })}`;
      return doc(200, {
        data: ids.slice((number - 1) * size, number * size).map((id) => shown(headers.host, id)),
        links: {
          self: url(number),
          first: url(1),
          prev: number > 1 ? url(number - 1) : null,
          next: number * size < ids.length ? url(number + 1) : null,
        },
      });
    },
    "GET /articles/{id}": ({ params, headers }) =>
      articles.has(params.id!) ? doc(200, { data: shown(headers.host, params.id!) }) : fail(404, "no such article"),
    "PATCH /articles/{id}": ({ params, body, headers }) => {
      if (!articles.has(params.id!)) return fail(404, "no such article");
      const data = isObject(body) ? body.data : undefined;
      if (!isObject(data) || (data.attributes !== undefined && !goodAttributes(data.attributes)))
        return fail(400, "a resource object is required");
      if (data.type !== TYPE || data.id !== params.id) return fail(409, "type and id must match the URL");
      // Attributes absent from the request keep their current values (JSON:API 1.1, Updating a Resource's Attributes).
      articles.set(params.id!, {
        ...articles.get(params.id!)!,
        ...((data.attributes as JsonObject | undefined) ?? {}),
      });
      return doc(200, { data: shown(headers.host, params.id!) });
    },
    "DELETE /articles/{id}": ({ params }) =>
      articles.delete(params.id!) ? { status: 204 } : fail(404, "no such article"),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const object = (v: unknown): JsonObject | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;
const dataOf = (v: unknown): JsonObject | undefined => object(object(v)?.data);
const WRITE = { "content-type": MEDIA, accept: MEDIA };
const READ = { accept: MEDIA };

/** Creates an article; answers its resource object, or breaks the promise. */
async function create(send: Client, attrs: JsonObject): Promise<JsonObject & { id: string }> {
  const made = await send("POST", "/articles", { data: { type: TYPE, attributes: attrs } }, WRITE);
  const data = dataOf(made.json);
  expectThat(
    made.status === 201 && typeof data?.id === "string" && data.id !== "",
    `create answered ${made.status}: ${made.text}`,
  );
  return data as JsonObject & { id: string };
}

interface Page {
  readonly body: JsonObject;
  readonly items: JsonObject[];
}

/** Follows `links.next` from `first` until it is null or absent; at most 100 pages. */
async function walk(send: Client, first: string): Promise<Page[]> {
  const pages: Page[] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    if (pages.length === 100) throw new Broken(`links.next still leads on after 100 pages (${url})`);
    const res = await send("GET", url, undefined, READ);
    const body = object(res.json);
    expectThat(res.status === 200 && Array.isArray(body?.data), `GET ${url} answered ${res.status}: ${res.text}`);
    pages.push({ body, items: (body.data as Json[]).map((i) => object(i) ?? {}) });
    const next = object(body.links)?.next;
    expectThat(next == null || typeof next === "string", `links.next of ${url} is ${JSON.stringify(next)}`);
    url = next ?? undefined;
  }
  return pages;
}

const FIRST = `/articles?${new URLSearchParams({ "page[number]": "1", "page[size]": "2" })}`;

export const jsonApi: Convention = {
  name: "json-api",
  family: "JSON:API 1.1: application/vnd.api+json, {type, id, attributes}, page[number]/page[size], links.next",
  sources: [
    "https://jsonapi.org/format/1.1/#content-negotiation-servers (Content-Type: application/vnd.api+json)",
    "https://jsonapi.org/format/1.1/#document-resource-object-identification (id and type are strings)",
    "https://jsonapi.org/format/1.1/#crud-creating-responses-201 and #crud-creating-responses-409",
    "https://jsonapi.org/format/1.1/#crud-updating-resource-attributes (missing attributes keep their values)",
    "https://jsonapi.org/format/1.1/#crud-deleting-responses-204 and #fetching-resources-responses-404",
    "https://jsonapi.org/format/1.1/#fetching-pagination (links.next omitted or null when unavailable)",
    "https://jsonapi.org/format/1.1/#errors (errors[], status as a string; never beside data)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-201-string-id",
      says: "a create answers 201 in application/vnd.api+json with a resource object of type `articles`, a string id the server chose and the attributes sent; GET at that id answers it (1.1: Creating Resources 201, Identification, Content Negotiation)",
      async check(send, fresh) {
        const attrs = { title: `Article ${fresh()}`, body: "text" };
        const made = await send("POST", "/articles", { data: { type: TYPE, attributes: attrs } }, WRITE);
        const type = made.headers.get("content-type") ?? "";
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        expectThat(type.split(";")[0]!.trim() === MEDIA, `create answered Content-Type ${type}`);
        const data = dataOf(made.json);
        expectThat(typeof data?.id === "string" && data.id !== "", `create answered ${made.text}`);
        expectThat(data.type === TYPE && sameJson(data.attributes, attrs), `create answered ${made.text}`);
        const read = await send("GET", `/articles/${encodeURIComponent(data.id)}`, undefined, READ);
        const got = dataOf(read.json);
        expectThat(
          read.status === 200 && got?.id === data.id && got.type === TYPE && sameJson(got.attributes, attrs),
          `read back ${read.status} ${read.text}`,
        );
      },
    },
    {
      id: "server-ids-distinct",
      says: "two creates get two different ids, and each id reads back its own attributes (1.1: Identification, type and id identify one resource)",
      async check(send, fresh) {
        const a = await create(send, { title: `A ${fresh()}` });
        const b = await create(send, { title: `B ${fresh()}` });
        expectThat(a.id !== b.id, `two creates both answered id ${a.id}`);
        for (const made of [a, b]) {
          const read = await send("GET", `/articles/${encodeURIComponent(made.id)}`, undefined, READ);
          expectThat(sameJson(dataOf(read.json)?.attributes, made.attributes), `id ${made.id} reads ${read.text}`);
        }
      },
    },
    {
      id: "patch-keeps-absent-attributes",
      says: "a PATCH sending only `title` changes it and keeps `body` (missing attributes are their current values, never null); 200 with the document or 204 (1.1: Updating a Resource's Attributes)",
      async check(send, fresh) {
        const made = await create(send, { title: `Old ${fresh()}`, body: "kept" });
        const title = `New ${fresh()}`;
        const patch = { data: { type: TYPE, id: made.id, attributes: { title } } };
        const res = await send("PATCH", `/articles/${encodeURIComponent(made.id)}`, patch, WRITE);
        const want = { title, body: "kept" };
        expectThat(
          res.status === 204 || (res.status === 200 && sameJson(dataOf(res.json)?.attributes, want)),
          `PATCH answered ${res.status} ${res.text}`,
        );
        const read = await send("GET", `/articles/${encodeURIComponent(made.id)}`, undefined, READ);
        expectThat(sameJson(dataOf(read.json)?.attributes, want), `after the PATCH the article reads ${read.text}`);
      },
    },
    {
      id: "foreign-type-409",
      says: "a create whose resource object has a type the collection does not hold answers 409 with errors[] and no data (1.1: Creating Resources 409, Errors)",
      async check(send, fresh) {
        const res = await send(
          "POST",
          "/articles",
          { data: { type: "people", attributes: { title: `P ${fresh()}` } } },
          WRITE,
        );
        const body = object(res.json);
        expectThat(res.status === 409, `a create of type people answered ${res.status}: ${res.text}`);
        expectThat(Array.isArray(body?.errors) && body.data === undefined, `the 409 said ${res.text}`);
      },
    },
    {
      id: "links-next-walk-each-once",
      says: "following links.next from page[number]=1&page[size]=2 visits each article made exactly once, with its current attributes (1.1: Pagination)",
      async check(send, fresh) {
        const marker = `walk-${fresh()}`;
        const made = [];
        for (let k = 0; k < 3; k++) made.push(await create(send, { title: `${marker}-${k}` }));
        const renamed = { data: { type: TYPE, id: made[0]!.id, attributes: { title: `${marker}-renamed` } } };
        await send("PATCH", `/articles/${encodeURIComponent(made[0]!.id)}`, renamed, WRITE);
        const seen = (await walk(send, FIRST)).flatMap((p) => p.items);
        const want = [`${marker}-renamed`, `${marker}-1`, `${marker}-2`];
        made.forEach((m, k) => {
          const mine = seen.filter((i) => i.type === TYPE && i.id === m.id);
          expectThat(
            mine.length === 1 && sameJson(object(mine[0]!.attributes)?.title, want[k]),
            `the walk saw ${m.id} as ${JSON.stringify(mine)}`,
          );
        });
      },
    },
    {
      id: "last-page-next-null",
      says: "the first page has no prev link, no page holds more than page[size], and the walk ends at a page whose links.next is null or absent (1.1: Pagination, 'omitted or null when unavailable')",
      async check(send, fresh) {
        for (let k = 0; k < 3; k++) await create(send, { title: `page-${fresh()}` });
        const pages = await walk(send, FIRST);
        const prev = object(pages[0]!.body.links)?.prev;
        expectThat(prev == null, `the first page's links.prev is ${JSON.stringify(prev)}`);
        pages.forEach((p, k) =>
          expectThat(p.items.length <= 2, `page ${k + 1} holds ${p.items.length} at page[size]=2`),
        );
        expectThat(pages.flatMap((p) => p.items).length >= 3, "the walk saw fewer than the 3 articles just made");
      },
    },
    {
      id: "delete-204-then-404",
      says: "DELETE answers 204; then GET of that id answers 404 with an errors[] document and no data (1.1: Deleting Resources 204, Fetching Resources 404, Errors)",
      async check(send, fresh) {
        const made = await create(send, { title: `Gone ${fresh()}` });
        const del = await send("DELETE", `/articles/${encodeURIComponent(made.id)}`, undefined, READ);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/articles/${encodeURIComponent(made.id)}`, undefined, READ);
        const body = object(read.json);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const errs = body?.errors;
        expectThat(Array.isArray(errs) && errs.length > 0 && body!.data === undefined, `the 404 said ${read.text}`);
        const status = object(errs[0])?.status;
        expectThat(status === undefined || status === "404", `the error's status is ${JSON.stringify(status)}`);
      },
    },
  ],
};
