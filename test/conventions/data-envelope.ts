// The `data` envelope of Laravel's API resources: every answer wraps the item as `{"data": item}`, a
// list as `{"data": [...]}` beside the paginator's `links` and `meta`; the id is the server's.
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type Json, type JsonObject } from "./kit.js";

const article = {
  type: "object",
  required: ["id", "title"],
  properties: {
    id: { type: "integer", format: "int64", readOnly: true },
    title: { type: "string" },
    body: { type: "string" },
  },
};
const wrapped = (schema: unknown) => ({ type: "object", required: ["data"], properties: { data: schema } });
const link = { type: "string", nullable: true };
const page = {
  type: "object",
  required: ["data", "links", "meta"],
  properties: {
    data: { type: "array", items: article },
    links: {
      type: "object",
      required: ["first", "last", "prev", "next"],
      properties: { first: link, last: link, prev: link, next: link },
    },
    meta: {
      type: "object",
      required: ["current_page", "last_page", "per_page", "total"],
      properties: {
        current_page: { type: "integer", minimum: 1 },
        last_page: { type: "integer", minimum: 1 },
        per_page: { type: "integer", minimum: 1 },
        total: { type: "integer", minimum: 0 },
        from: { type: "integer", nullable: true },
        to: { type: "integer", nullable: true },
        path: { type: "string" },
      },
    },
  },
};
const message = { type: "object", required: ["message"], properties: { message: { type: "string" } } };
const invalid = {
  type: "object",
  required: ["message", "errors"],
  properties: {
    message: { type: "string" },
    errors: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
  },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } };

const document = {
  openapi: "3.0.3",
  info: { title: "data envelope (Laravel API resources)", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/articles": {
      post: {
        operationId: "storeArticle",
        requestBody: { required: true, ...json(article) },
        responses: {
          "201": { description: "created", ...json(wrapped(article)) },
          "422": { description: "invalid", ...json(invalid) },
        },
      },
      get: {
        operationId: "indexArticles",
        parameters: [
          { name: "page", in: "query", schema: { type: "integer", minimum: 1, default: 1 } },
          { name: "per_page", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 15 } },
        ],
        responses: { "200": { description: "a page of articles", ...json(page) } },
      },
    },
    "/articles/{id}": {
      parameters: [idParam],
      get: {
        operationId: "showArticle",
        responses: {
          "200": { description: "the article", ...json(wrapped(article)) },
          "404": { description: "none", ...json(message) },
        },
      },
      put: {
        operationId: "updateArticle",
        requestBody: { required: true, ...json(article) },
        responses: {
          "200": { description: "updated", ...json(wrapped(article)) },
          "404": { description: "none", ...json(message) },
          "422": { description: "invalid", ...json(invalid) },
        },
      },
      delete: {
        operationId: "destroyArticle",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(message) } },
      },
    },
  },
};

/** The reference: articles by id, paged as Laravel's length-aware paginator with its query string kept. */
function reference() {
  const articles = new Map<number, JsonObject>();
  let last = 0;
  const missing: Answer = { status: 404, body: { message: "No query results for model [Article]." } };
  const valid = (b: Json | undefined): b is JsonObject => {
    const o = b as JsonObject;
    return (
      typeof b === "object" &&
      b !== null &&
      !Array.isArray(b) &&
      typeof o.title === "string" &&
      (o.body === undefined || typeof o.body === "string")
    );
  };
  const rejected: Answer = {
    status: 422,
    body: { message: "The title field is required.", errors: { title: ["The title field is required."] } },
  };
  const fill = (id: number, b: JsonObject): JsonObject => ({
    id,
    title: b.title!,
    ...(b.body === undefined ? {} : { body: b.body }),
  });
  const handle = router({
    "POST /articles": ({ body }) => {
      if (!valid(body)) return rejected;
      const id = ++last;
      articles.set(id, fill(id, body));
      return { status: 201, body: { data: articles.get(id) } };
    },
    "GET /articles": ({ query, headers }) => {
      const perPage = Math.min(Math.max(Number(query.get("per_page") ?? 15) || 15, 1), 100);
      const current = Math.max(Number(query.get("page") ?? 1) || 1, 1);
      const all = [...articles.values()];
      const lastPage = Math.max(Math.ceil(all.length / perPage), 1);
      const data = all.slice((current - 1) * perPage, current * perPage);
      const path = `http://${headers.host}/articles`;
      const url = (n: number) => `${path}?page=${n}&per_page=${perPage}`;
      const from = data.length === 0 ? null : (current - 1) * perPage + 1;
      return {
        status: 200,
        body: {
          data,
          links: {
            first: url(1),
            last: url(lastPage),
            prev: current > 1 ? url(current - 1) : null,
            next: current < lastPage ? url(current + 1) : null,
          },
          meta: {
            current_page: current,
            last_page: lastPage,
            per_page: perPage,
            total: all.length,
            from,
            to: from === null ? null : from + data.length - 1,
            path,
          },
        },
      };
    },
    "GET /articles/{id}": ({ params }) => {
      const found = articles.get(Number(params.id));
      return found === undefined ? missing : { status: 200, body: { data: found } };
    },
    "PUT /articles/{id}": ({ params, body }) => {
      const id = Number(params.id);
      if (!articles.has(id)) return missing;
      if (!valid(body)) return rejected;
      articles.set(id, fill(id, body));
      return { status: 200, body: { data: articles.get(id) } };
    },
    "DELETE /articles/{id}": ({ params }) => (articles.delete(Number(params.id)) ? { status: 204 } : missing),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const object = (v: unknown): JsonObject | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;
/** The item inside `{"data": item}`, or undefined when the answer is not so wrapped. */
const inside = (v: unknown): JsonObject | undefined => object(object(v)?.data);

interface Page {
  readonly body: JsonObject;
  readonly items: JsonObject[];
}

/** Follows `links.next` from `first` to the page whose `links.next` is null; at most 100 pages. */
async function walk(send: Client, first: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (let url: string | undefined = first; url !== undefined;) {
    if (pages.length === 100) throw new Broken(`links.next still leads on after 100 pages (${url})`);
    const res = await send("GET", url);
    const body = object(res.json);
    const items = body?.data;
    expectThat(res.status === 200 && Array.isArray(items), `GET ${url} answered ${res.status}: ${res.text}`);
    pages.push({ body: body!, items: (items as Json[]).map((i) => object(i) ?? {}) });
    const next = object(body!.links)?.next;
    expectThat(next === null || typeof next === "string", `links.next of ${url} is ${JSON.stringify(next)}`);
    url = next ?? undefined;
  }
  return pages;
}

/** Makes `n` articles titled with a fresh marker; answers their ids. */
async function make(send: Client, fresh: () => number, n: number): Promise<{ ids: Json[]; marker: string }> {
  const marker = `walk-${fresh()}`;
  const ids: Json[] = [];
  for (let k = 0; k < n; k++) {
    const made = await send("POST", "/articles", { title: `${marker}-${k}` });
    const id = inside(made.json)?.id;
    expectThat(made.status === 201 && id !== undefined, `create answered ${made.status}: ${made.text}`);
    ids.push(id);
  }
  return { ids, marker };
}

export const dataEnvelope: Convention = {
  name: "data-envelope",
  family: "Laravel API resources: `{data: item}`, paginated `{data: [...], links, meta}`, server-assigned ids",
  sources: [
    "https://laravel.com/docs/eloquent-resources (Data Wrapping; Pagination: the `links` and `meta` keys)",
    "https://laravel.com/docs/pagination (Converting Results to JSON: next_page_url null on the last page; Appending Query String Values)",
    "rest-conventions.md section 10 (the same wrapper on every response for the resource)",
    "RFC 9110 sections 9.3.3 (POST), 9.3.4 (PUT), 9.3.5 (DELETE), 15.3.2 (201), 15.5.5 (404)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-201-wrapped-read-back",
      says: "a create answers 201 with `{data: item}` holding a server id; GET at that id answers the same item inside `data` (Laravel Data Wrapping; RFC 9110 15.3.2)",
      async check(send, fresh) {
        const title = `Article ${fresh()}`;
        const made = await send("POST", "/articles", { title, body: "text" });
        const item = inside(made.json);
        expectThat(made.status === 201 && item?.id !== undefined, `create answered ${made.status}: ${made.text}`);
        expectThat(sameJson(item.title, title), `create answered ${made.text}, sent title ${title}`);
        const read = await send("GET", `/articles/${String(item.id)}`);
        expectThat(read.status === 200 && sameJson(inside(read.json), item), `read back ${read.status} ${read.text}`);
      },
    },
    {
      id: "server-ids-distinct",
      says: "two creates get two different server ids, and each id reads back its own item (the id is readOnly: the server's)",
      async check(send, fresh) {
        const a = inside((await send("POST", "/articles", { title: `A ${fresh()}` })).json);
        const b = inside((await send("POST", "/articles", { title: `B ${fresh()}` })).json);
        expectThat(a?.id !== undefined && b?.id !== undefined, "a create answered no data.id");
        expectThat(!sameJson(a.id, b.id), `two creates both answered id ${String(a.id)}`);
        for (const made of [a, b]) {
          const read = await send("GET", `/articles/${String(made.id)}`);
          expectThat(sameJson(inside(read.json)?.title, made.title), `id ${String(made.id)} reads ${read.text}`);
        }
      },
    },
    {
      id: "update-wrapped-current-values",
      says: "PUT answers 200 with the new values inside `data`, and a later GET shows them (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const made = inside((await send("POST", "/articles", { title: `Old ${fresh()}` })).json);
        expectThat(made?.id !== undefined, "the create answered no data.id");
        const title = `New ${fresh()}`;
        const put = await send("PUT", `/articles/${String(made.id)}`, { title, body: "changed" });
        expectThat(
          put.status === 200 && sameJson(inside(put.json), { id: made.id, title, body: "changed" }),
          `PUT answered ${put.status} ${put.text}`,
        );
        const read = await send("GET", `/articles/${String(made.id)}`);
        expectThat(sameJson(inside(read.json), { id: made.id, title, body: "changed" }), `read back ${read.text}`);
      },
    },
    {
      id: "page-walk-each-once",
      says: "following `links.next` from page 1 (per_page=2) visits each item made exactly once, with its current values (Laravel pagination links)",
      async check(send, fresh) {
        const { ids, marker } = await make(send, fresh, 3);
        await send("PUT", `/articles/${String(ids[1])}`, { title: `${marker}-renamed` });
        const seen = (await walk(send, "/articles?page=1&per_page=2")).flatMap((p) => p.items);
        const want = [`${marker}-0`, `${marker}-renamed`, `${marker}-2`];
        ids.forEach((id, k) => {
          const mine = seen.filter((i) => sameJson(i.id, id));
          expectThat(
            mine.length === 1 && sameJson(mine[0]!.title, want[k]),
            `the walk saw id ${String(id)} as ${JSON.stringify(mine)}`,
          );
        });
      },
    },
    {
      id: "last-page-next-null",
      says: "pages hold per_page items but the last; the last page has links.next null and current_page = last_page; meta.total counts the walk (Laravel paginator JSON)",
      async check(send, fresh) {
        await make(send, fresh, 3);
        const pages = await walk(send, "/articles?page=1&per_page=2");
        const seen = pages.reduce((n, p) => n + p.items.length, 0);
        pages.forEach((p, k) => {
          const meta = object(p.body.meta);
          const full = k < pages.length - 1 ? p.items.length === 2 : p.items.length >= 1 && p.items.length <= 2;
          expectThat(full, `page ${k + 1} of ${pages.length} holds ${p.items.length} items at per_page=2`);
          expectThat(
            sameJson(meta?.current_page, k + 1),
            `page ${k + 1} says current_page ${String(meta?.current_page)}`,
          );
          expectThat(sameJson(meta?.total, seen), `meta.total ${String(meta?.total)}, the walk saw ${seen}`);
        });
        const end = object(pages.at(-1)!.body.meta);
        expectThat(sameJson(end?.last_page, end?.current_page), `the last page's meta is ${JSON.stringify(end)}`);
      },
    },
    {
      id: "delete-then-404",
      says: "DELETE answers 204; then GET and a second DELETE of that id answer 404 (RFC 9110 9.3.5, 15.5.5)",
      async check(send, fresh) {
        const made = inside((await send("POST", "/articles", { title: `Gone ${fresh()}` })).json);
        expectThat(made?.id !== undefined, "the create answered no data.id");
        const del = await send("DELETE", `/articles/${String(made.id)}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/articles/${String(made.id)}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("DELETE", `/articles/${String(made.id)}`);
        expectThat(again.status === 404, `a second DELETE answered ${again.status}`);
      },
    },
  ],
};
