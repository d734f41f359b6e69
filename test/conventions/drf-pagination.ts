// Django REST Framework's PageNumberPagination on a ModelViewSet: lists answer
// `{count, next, previous, results}` by `page` (from 1) and `page_size`, `next` null on the last page and
// `previous` null on the first, an out-of-range page 404; paths end in `/`; create 201, PATCH partial,
// DELETE 204, invalid input 400 `{field: [messages]}`, a missing item 404 `{detail}`.
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type Json, type JsonObject } from "./kit.js";

const book = {
  type: "object",
  required: ["id", "title", "author"],
  properties: {
    id: { type: "integer", readOnly: true },
    title: { type: "string", minLength: 1 },
    author: { type: "string" },
  },
};
const patchedBook = {
  type: "object",
  properties: { title: { type: "string", minLength: 1 }, author: { type: "string" } },
};
const paginated = {
  type: "object",
  required: ["count", "next", "previous", "results"],
  properties: {
    count: { type: "integer", minimum: 0 },
    next: { type: "string", format: "uri", nullable: true },
    previous: { type: "string", format: "uri", nullable: true },
    results: { type: "array", items: book },
  },
};
const detail = { type: "object", required: ["detail"], properties: { detail: { type: "string" } } };
const fieldErrors = { type: "object", additionalProperties: { type: "array", items: { type: "string" } } };
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer" } };

const document = {
  openapi: "3.0.3",
  info: { title: "Django REST Framework page-number pagination", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/books/": {
      get: {
        operationId: "books_list",
        parameters: [
          {
            name: "page",
            in: "query",
            description: "A page number within the paginated result set.",
            schema: { type: "integer", minimum: 1 },
          },
          {
            name: "page_size",
            in: "query",
            description: "Number of results to return per page (at most 100).",
            schema: { type: "integer", minimum: 1 },
          },
        ],
        responses: {
          "200": { description: "a page of books", ...json(paginated) },
          "404": { description: "Invalid page.", ...json(detail) },
        },
      },
      post: {
        operationId: "books_create",
        requestBody: { required: true, ...json(book) },
        responses: {
          "201": { description: "created", ...json(book) },
          "400": { description: "invalid", ...json(fieldErrors) },
        },
      },
    },
    "/books/{id}/": {
      parameters: [idParam],
      get: {
        operationId: "books_retrieve",
        responses: {
          "200": { description: "the book", ...json(book) },
          "404": { description: "none", ...json(detail) },
        },
      },
      patch: {
        operationId: "books_partial_update",
        requestBody: { required: true, ...json(patchedBook) },
        responses: {
          "200": { description: "updated", ...json(book) },
          "400": { description: "invalid", ...json(fieldErrors) },
          "404": { description: "none", ...json(detail) },
        },
      },
      delete: {
        operationId: "books_destroy",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(detail) } },
      },
    },
  },
};

/** The reference: books by id in creation order; PageNumberPagination with page_size 10, at most 100. */
function reference() {
  const books = new Map<number, JsonObject>();
  let last = 0;
  const missing: Answer = { status: 404, body: { detail: "No Book matches the given query." } };
  const isObject = (b: Json | undefined): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  /** The serializer's errors for the fields sent (all required ones when not partial). */
  const errors = (b: JsonObject, partial: boolean): JsonObject | undefined => {
    const out: JsonObject = {};
    for (const f of ["title", "author"]) {
      const v = b[f];
      if (v === undefined && !partial) out[f] = ["This field is required."];
      else if (v !== undefined && typeof v !== "string") out[f] = ["Not a valid string."];
      else if (f === "title" && v === "") out[f] = ["This field may not be blank."];
    }
    return Object.keys(out).length === 0 ? undefined : out;
  };
  const handle = router({
    "GET /books/": ({ query, headers }) => {
      const size = Math.min(Number(query.get("page_size")) > 0 ? Math.floor(Number(query.get("page_size"))) : 10, 100);
      const all = [...books.values()];
      const pages = Math.max(Math.ceil(all.length / size), 1);
      const page = query.get("page") ?? "1";
      const n = page === "last" ? pages : Number(page);
      if (!Number.isInteger(n) || n < 1 || n > pages) return { status: 404, body: { detail: "Invalid page." } };
      const url = (k: number) => {
        const q = new URLSearchParams(query);
        if (k === 1) q.delete("page");
        else q.set("page", String(k));
        const s = q.toString();
        return `http://${headers.host}/books/${s === "" ? "" : `?${s}`}`;
      };
      return {
        status: 200,
        body: {
          count: all.length,
          next: n < pages ? url(n + 1) : null,
          previous: n > 1 ? url(n - 1) : null,
          results: all.slice((n - 1) * size, n * size),
        },
      };
    },
    "POST /books/": ({ body }) => {
      if (!isObject(body)) return { status: 400, body: { non_field_errors: ["Invalid data."] } };
      const bad = errors(body, false);
      if (bad !== undefined) return { status: 400, body: bad };
      const id = ++last;
      books.set(id, { id, title: body.title!, author: body.author! });
      return { status: 201, body: books.get(id) };
    },
    "GET /books/{id}/": ({ params }) => {
      const found = books.get(Number(params.id));
      return found === undefined ? missing : { status: 200, body: found };
    },
    "PATCH /books/{id}/": ({ params, body }) => {
      const found = books.get(Number(params.id));
      if (found === undefined) return missing;
      if (!isObject(body)) return { status: 400, body: { non_field_errors: ["Invalid data."] } };
      const bad = errors(body, true);
      if (bad !== undefined) return { status: 400, body: bad };
      const next = { ...found };
      for (const f of ["title", "author"]) if (body[f] !== undefined) next[f] = body[f]!;
      books.set(found.id as number, next);
      return { status: 200, body: next };
    },
    "DELETE /books/{id}/": ({ params }) => (books.delete(Number(params.id)) ? { status: 204 } : missing),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const object = (v: unknown): JsonObject | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;

/** Creates a book; answers it as created, or breaks the promise. */
async function create(send: Client, title: string, author = "Anon"): Promise<JsonObject> {
  const made = await send("POST", "/books/", { title, author });
  const item = object(made.json);
  expectThat(made.status === 201 && item?.id !== undefined, `create answered ${made.status}: ${made.text}`);
  return item;
}

interface Page {
  readonly body: JsonObject;
  readonly items: JsonObject[];
}

/** Follows `next` from `first` until it is null; at most 100 pages. */
async function walk(send: Client, first: string): Promise<Page[]> {
  const pages: Page[] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    if (pages.length === 100) throw new Broken(`next still leads on after 100 pages (${url})`);
    const res = await send("GET", url);
    const body = object(res.json);
    expectThat(res.status === 200 && Array.isArray(body?.results), `GET ${url} answered ${res.status}: ${res.text}`);
    pages.push({ body, items: (body.results as Json[]).map((i) => object(i) ?? {}) });
    expectThat(body.next === null || typeof body.next === "string", `next of ${url} is ${JSON.stringify(body.next)}`);
    url = body.next ?? undefined;
  }
  return pages;
}

export const drfPagination: Convention = {
  name: "drf-pagination",
  family: "Django REST Framework: ModelViewSet with PageNumberPagination {count, next, previous, results}",
  sources: [
    "https://www.django-rest-framework.org/api-guide/pagination/ (PageNumberPagination: count, next, previous, results; page from 1, page_size_query_param; an invalid page raises NotFound)",
    "https://www.django-rest-framework.org/api-guide/generic-views/ (CreateModelMixin 201, UpdateModelMixin partial PATCH, DestroyModelMixin 204, get_object 404)",
    "https://www.django-rest-framework.org/api-guide/exceptions/ (ValidationError 400 {field: [messages]}; NotFound 404 {detail})",
    "https://docs.djangoproject.com/en/stable/topics/pagination/ (Paginator: pages from 1; EmptyPage past the last)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-201-read-back",
      says: "a create answers 201 with the book and a server id; GET /books/{id}/ answers the same book (generic views: CreateModelMixin, RetrieveModelMixin)",
      async check(send, fresh) {
        const title = `Book ${fresh()}`;
        const made = await create(send, title, "Austen");
        expectThat(made.title === title && made.author === "Austen", `create answered ${JSON.stringify(made)}`);
        const read = await send("GET", `/books/${String(made.id)}/`);
        expectThat(read.status === 200 && sameJson(read.json, made), `read back ${read.status} ${read.text}`);
      },
    },
    {
      id: "patch-keeps-unsent",
      says: "PATCH is a partial update: it changes the fields sent, keeps the others, and answers 200 with the book (generic views: UpdateModelMixin partial_update)",
      async check(send, fresh) {
        const made = await create(send, `Old ${fresh()}`, "Kept");
        const title = `New ${fresh()}`;
        const patch = await send("PATCH", `/books/${String(made.id)}/`, { title });
        const want = { id: made.id, title, author: "Kept" };
        expectThat(patch.status === 200 && sameJson(patch.json, want), `PATCH answered ${patch.status} ${patch.text}`);
        const read = await send("GET", `/books/${String(made.id)}/`);
        expectThat(sameJson(read.json, want), `after the PATCH the book reads ${read.text}`);
      },
    },
    {
      id: "invalid-400-field-errors",
      says: "a create without its required title answers 400 with {title: [messages]} and creates nothing (exceptions: ValidationError; serializer errors)",
      async check(send, fresh) {
        const author = `Nameless ${fresh()}`;
        const res = await send("POST", "/books/", { author });
        const messages = object(res.json)?.title;
        expectThat(res.status === 400, `a create without title answered ${res.status}: ${res.text}`);
        expectThat(
          Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === "string"),
          `the 400 said ${res.text}`,
        );
        const seen = (await walk(send, "/books/?page_size=100")).flatMap((p) => p.items);
        expectThat(!seen.some((b) => b.author === author), "the rejected book is listed");
      },
    },
    {
      id: "next-walk-each-once",
      says: "following `next` from page 1 (page_size=2) visits each book made exactly once, with current values; pages never overlap (pagination: PageNumberPagination)",
      async check(send, fresh) {
        const marker = `walk-${fresh()}`;
        const ids: Json[] = [];
        for (let k = 0; k < 3; k++) ids.push((await create(send, `${marker}-${k}`)).id!);
        await send("PATCH", `/books/${String(ids[2])}/`, { title: `${marker}-renamed` });
        const seen = (await walk(send, "/books/?page=1&page_size=2")).flatMap((p) => p.items);
        const all = seen.map((b) => String(b.id));
        expectThat(new Set(all).size === all.length, `a book is on two pages: ${all.join(",")}`);
        const want = [`${marker}-0`, `${marker}-1`, `${marker}-renamed`];
        ids.forEach((id, k) => {
          const mine = seen.filter((b) => sameJson(b.id, id));
          expectThat(
            mine.length === 1 && mine[0]!.title === want[k],
            `the walk saw ${String(id)} as ${JSON.stringify(mine)}`,
          );
        });
      },
    },
    {
      id: "count-total-next-null-at-end",
      says: "page 1 has previous null; every page says the same count, the number of books the walk sees; pages hold page_size books but the last, whose next is null (pagination: PageNumberPagination)",
      async check(send, fresh) {
        for (let k = 0; k < 3; k++) await create(send, `count-${fresh()}`);
        const pages = await walk(send, "/books/?page=1&page_size=2");
        expectThat(pages[0]!.body.previous === null, `page 1 has previous ${JSON.stringify(pages[0]!.body.previous)}`);
        const seen = pages.reduce((n, p) => n + p.items.length, 0);
        pages.forEach((p, k) => {
          expectThat(
            sameJson(p.body.count, seen),
            `page ${k + 1} says count ${String(p.body.count)}, the walk saw ${seen}`,
          );
          const full = k < pages.length - 1 ? p.items.length === 2 : p.items.length >= 1 && p.items.length <= 2;
          expectThat(full, `page ${k + 1} of ${pages.length} holds ${p.items.length} at page_size=2`);
        });
      },
    },
    {
      id: "page-past-end-404",
      says: "a page number past the last answers 404 (pagination: 'if the page is out of range' NotFound, Invalid page.)",
      async check(send, fresh) {
        await create(send, `edge-${fresh()}`);
        const first = await send("GET", "/books/?page=1&page_size=2");
        const count = object(first.json)?.count;
        expectThat(first.status === 200 && typeof count === "number", `page 1 answered ${first.status}: ${first.text}`);
        expectThat(count >= 1, `page 1 says count ${count} after a create`);
        const beyond = Math.ceil(count / 2) + 1;
        const res = await send("GET", `/books/?page=${beyond}&page_size=2`);
        expectThat(res.status === 404, `page ${beyond} of ${count} books at page_size=2 answered ${res.status}`);
      },
    },
    {
      id: "delete-204-then-404",
      says: "DELETE answers 204; then GET of that id answers 404 with {detail} (generic views: DestroyModelMixin; exceptions: NotFound)",
      async check(send, fresh) {
        const made = await create(send, `Gone ${fresh()}`);
        const del = await send("DELETE", `/books/${String(made.id)}/`);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/books/${String(made.id)}/`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        expectThat(typeof object(read.json)?.detail === "string", `the 404 said ${read.text}`);
      },
    },
  ],
};
