// HAL as Spring Data REST serves a repository: items carry `_links.self.href` (their identity: the
// database id is not in the body), the collection embeds them as `_embedded.people[]` beside a `page`
// object `{size, totalElements, totalPages, number}`, pages are 0-based by `page` and `size`, and the
// last page has no `next` link. POST answers 201 with Location, DELETE 204.
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type Json, type JsonObject } from "./kit.js";

const HAL = "application/hal+json";

const link = {
  type: "object",
  required: ["href"],
  properties: { href: { type: "string" }, templated: { type: "boolean" } },
};
const person = {
  type: "object",
  required: ["firstName", "lastName"],
  properties: {
    firstName: { type: "string" },
    lastName: { type: "string" },
    _links: {
      type: "object",
      readOnly: true,
      required: ["self"],
      properties: { self: link, person: link },
    },
  },
};
const collection = {
  type: "object",
  required: ["_embedded", "_links", "page"],
  properties: {
    _embedded: {
      type: "object",
      required: ["people"],
      properties: { people: { type: "array", items: person } },
    },
    _links: {
      type: "object",
      required: ["self"],
      properties: { self: link, first: link, prev: link, next: link, last: link, profile: link },
    },
    page: {
      type: "object",
      required: ["size", "totalElements", "totalPages", "number"],
      properties: {
        size: { type: "integer", minimum: 1 },
        totalElements: { type: "integer", minimum: 0 },
        totalPages: { type: "integer", minimum: 0 },
        number: { type: "integer", minimum: 0 },
      },
    },
  },
};
const request = { content: { "application/json": { schema: person } } };
const halBody = (schema: unknown) => ({ content: { [HAL]: { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "string" } };

const document = {
  openapi: "3.0.3",
  info: { title: "HAL (Spring Data REST)", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/people": {
      post: {
        operationId: "createPerson",
        requestBody: { required: true, ...request },
        responses: {
          "201": {
            description: "created; Location is the new item's self link",
            headers: { Location: { required: true, schema: { type: "string" } } },
            ...halBody(person),
          },
          "400": { description: "invalid" },
        },
      },
      get: {
        operationId: "listPeople",
        parameters: [
          { name: "page", in: "query", description: "0-based", schema: { type: "integer", minimum: 0, default: 0 } },
          { name: "size", in: "query", schema: { type: "integer", minimum: 1, maximum: 2000, default: 20 } },
        ],
        responses: { "200": { description: "a page of people", ...halBody(collection) } },
      },
    },
    "/people/{id}": {
      parameters: [idParam],
      get: {
        operationId: "getPerson",
        responses: { "200": { description: "the person", ...halBody(person) }, "404": { description: "none" } },
      },
      put: {
        operationId: "replacePerson",
        requestBody: { required: true, ...request },
        responses: {
          "200": { description: "replaced", ...halBody(person) },
          "204": { description: "replaced, no body" },
          "400": { description: "invalid" },
          "404": { description: "none" },
        },
      },
      delete: {
        operationId: "deletePerson",
        responses: { "204": { description: "deleted" }, "404": { description: "none" } },
      },
    },
  },
};

/** The reference: people by a hidden numeric id; items and pages in HAL with absolute links. */
function reference() {
  const people = new Map<string, JsonObject>();
  let last = 0;
  const valid = (b: Json | undefined): b is JsonObject => {
    const o = b as JsonObject;
    return typeof b === "object" && b !== null && typeof o.firstName === "string" && typeof o.lastName === "string";
  };
  const shown = (host: string | undefined, id: string): JsonObject => {
    const href = `http://${host}/people/${id}`;
    return { ...people.get(id)!, _links: { self: { href }, person: { href } } };
  };
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
    status,
    headers: { "content-type": HAL, ...headers },
    body,
  });
  const handle = router({
    "POST /people": ({ body, headers }) => {
      if (!valid(body)) return { status: 400 };
      const id = String(++last);
      people.set(id, { firstName: body.firstName!, lastName: body.lastName! });
      const item = shown(headers.host, id);
      return answer(201, item, { location: `http://${headers.host}/people/${id}` });
    },
    "GET /people": ({ query, headers }) => {
      const size = Math.min(Math.max(Number(query.get("size") ?? 20) || 20, 1), 2000);
      const number = Math.max(Number(query.get("page") ?? 0) || 0, 0);
      const ids = [...people.keys()];
      const totalPages = Math.ceil(ids.length / size);
      const href = (n: number) => ({ href: `http://${headers.host}/people?page=${n}&size=${size}` });
      return answer(200, {
        _embedded: { people: ids.slice(number * size, (number + 1) * size).map((id) => shown(headers.host, id)) },
        _links: {
          self: href(number),
          ...(totalPages > 0 ? { first: href(0), last: href(totalPages - 1) } : {}),
          ...(number > 0 ? { prev: href(number - 1) } : {}),
          ...(number + 1 < totalPages ? { next: href(number + 1) } : {}),
        },
        page: { size, totalElements: ids.length, totalPages, number },
      });
    },
    "GET /people/{id}": ({ params, headers }) =>
      people.has(params.id!) ? answer(200, shown(headers.host, params.id!)) : { status: 404 },
    "PUT /people/{id}": ({ params, body, headers }) => {
      if (!people.has(params.id!)) return { status: 404 };
      if (!valid(body)) return { status: 400 };
      people.set(params.id!, { firstName: body.firstName!, lastName: body.lastName! });
      return answer(200, shown(headers.host, params.id!));
    },
    "DELETE /people/{id}": ({ params }) => ({ status: people.delete(params.id!) ? 204 : 404 }),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const object = (v: unknown): JsonObject | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;
/** A link's target as a request path: a URI template's expressions expanded empty (RFC 6570), the origin dropped. */
const target = (l: unknown): string | undefined => {
  const href = object(l)?.href;
  return typeof href === "string" ? href.replace(/\{[^}]*\}/g, "") : undefined;
};
const pathOf = (href: string): string => href.replace(/^https?:\/\/[^/]+/, "");
const selfOf = (item: unknown): string | undefined => {
  const href = target(object(object(item)?._links)?.self);
  return href === undefined ? undefined : pathOf(href);
};
const ACCEPT = { accept: HAL };

/** Creates a person; answers the path of its Location, or breaks the promise. */
async function create(send: Client, firstName: string, lastName = "Doe"): Promise<string> {
  const made = await send("POST", "/people", { firstName, lastName }, ACCEPT);
  const location = made.headers.get("location");
  expectThat(made.status === 201 && location !== null, `create answered ${made.status} without Location? ${made.text}`);
  return pathOf(location);
}

interface Page {
  readonly body: JsonObject;
  readonly items: JsonObject[];
}

/** Follows `_links.next` from `first` to the page without one; at most 100 pages. */
async function walk(send: Client, first: string): Promise<Page[]> {
  const pages: Page[] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    if (pages.length === 100) throw new Broken(`_links.next still leads on after 100 pages (${url})`);
    const res = await send("GET", url, undefined, ACCEPT);
    const body = object(res.json);
    const items = object(body?._embedded)?.people;
    expectThat(res.status === 200 && Array.isArray(items), `GET ${url} answered ${res.status}: ${res.text}`);
    pages.push({ body: body!, items: (items as Json[]).map((i) => object(i) ?? {}) });
    url = target(object(body!._links)?.next);
  }
  return pages;
}

export const hal: Convention = {
  name: "hal",
  family: "HAL / Spring Data REST: _links.self as identity, _embedded.<rel>[], 0-based page/size with a page object",
  sources: [
    "https://datatracker.ietf.org/doc/html/draft-kelly-json-hal (sections 4.1.1 _links, 4.1.2 _embedded, 5.1 href, 5.2 templated, 8.1 self)",
    "https://docs.spring.io/spring-data/rest/reference/repository-resources.html (collection POST 201; item GET, PUT, DELETE 204; 404)",
    "https://docs.spring.io/spring-data/rest/reference/paging-and-sorting.html (page is 0-based, size; page object; no next link on the last page, no prev on the first)",
    "RFC 9110 sections 9.3.4 (PUT), 15.3.2 (201 and Location); RFC 6570 (templated links)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-201-location-self",
      says: "a create answers 201 with Location and an item whose _links.self.href names the same resource; GET there answers the person sent (Spring Data REST: POST 201; HAL 8.1 self)",
      async check(send, fresh) {
        const firstName = `Ada ${fresh()}`;
        const made = await send("POST", "/people", { firstName, lastName: "Lovelace" }, ACCEPT);
        const location = made.headers.get("location");
        expectThat(made.status === 201 && location !== null, `create answered ${made.status}, Location ${location}`);
        expectThat(selfOf(made.json) === pathOf(location), `Location ${location}, self ${selfOf(made.json)}`);
        const read = await send("GET", location, undefined, ACCEPT);
        const got = object(read.json);
        expectThat(
          read.status === 200 && got?.firstName === firstName && got.lastName === "Lovelace",
          `GET ${location}: ${read.status} ${read.text}`,
        );
        expectThat(selfOf(got) === pathOf(location), `the item read says self ${selfOf(got)}`);
      },
    },
    {
      id: "distinct-self-links",
      says: "two creates name two different resources, and each self link reads back its own person (HAL 8.1: self is the resource's URI)",
      async check(send, fresh) {
        const names = [`A ${fresh()}`, `B ${fresh()}`];
        const paths = [await create(send, names[0]!), await create(send, names[1]!)];
        expectThat(paths[0] !== paths[1], `two creates both answered Location ${paths[0]}`);
        for (const [k, p] of paths.entries()) {
          const read = await send("GET", p, undefined, ACCEPT);
          expectThat(object(read.json)?.firstName === names[k], `${p} reads ${read.status} ${read.text}`);
        }
      },
    },
    {
      id: "put-replaces-at-self",
      says: "PUT at the self link answers 200 (or 204) and a later GET shows exactly the values sent (Spring Data REST item resource PUT; RFC 9110 9.3.4)",
      async check(send, fresh) {
        const path = await create(send, `Old ${fresh()}`, "Before");
        const firstName = `New ${fresh()}`;
        const put = await send("PUT", path, { firstName, lastName: "After" }, ACCEPT);
        expectThat(put.status === 200 || put.status === 204, `PUT answered ${put.status}`);
        const read = await send("GET", path, undefined, ACCEPT);
        const got = object(read.json);
        expectThat(
          got?.firstName === firstName && got.lastName === "After",
          `after the PUT ${path} reads ${read.text}`,
        );
      },
    },
    {
      id: "page-walk-each-once",
      says: "following _links.next from page=0&size=2 visits each person made exactly once (by self link), with current values (Spring Data REST paging; HAL _embedded)",
      async check(send, fresh) {
        const marker = `walk-${fresh()}`;
        const paths = [];
        for (let k = 0; k < 3; k++) paths.push(await create(send, `${marker}-${k}`));
        await send("PUT", paths[1]!, { firstName: `${marker}-renamed`, lastName: "Doe" }, ACCEPT);
        const seen = (await walk(send, "/people?page=0&size=2")).flatMap((p) => p.items);
        const want = [`${marker}-0`, `${marker}-renamed`, `${marker}-2`];
        paths.forEach((p, k) => {
          const mine = seen.filter((i) => selfOf(i) === p);
          expectThat(
            mine.length === 1 && mine[0]!.firstName === want[k],
            `the walk saw ${p} as ${JSON.stringify(mine)}`,
          );
        });
      },
    },
    {
      id: "pages-0-based-last-no-next",
      says: "page=0 is the first page (page.number 0, no prev link); pages count up by one, hold `size` items but the last, which has no next link and number totalPages-1; totalElements is what the walk saw (Spring Data REST paging)",
      async check(send, fresh) {
        for (let k = 0; k < 3; k++) await create(send, `page-${fresh()}`);
        const pages = await walk(send, "/people?page=0&size=2");
        expectThat(object(pages[0]!.body._links)?.prev === undefined, "the first page has a prev link");
        const seen = pages.reduce((n, p) => n + p.items.length, 0);
        pages.forEach((p, k) => {
          const page = object(p.body.page);
          const lastPage = k === pages.length - 1;
          expectThat(sameJson(page?.number, k) && sameJson(page?.size, 2), `page ${k} says ${JSON.stringify(page)}`);
          expectThat(sameJson(page?.totalElements, seen), `totalElements ${String(page?.totalElements)}, seen ${seen}`);
          expectThat(
            sameJson(page?.totalPages, pages.length),
            `totalPages ${String(page?.totalPages)}, walked ${pages.length}`,
          );
          const full = lastPage ? p.items.length >= 1 && p.items.length <= 2 : p.items.length === 2;
          expectThat(full, `page ${k} of ${pages.length} holds ${p.items.length} at size=2`);
        });
      },
    },
    {
      id: "delete-204-then-404",
      says: "DELETE at the self link answers 204; then GET there answers 404 (Spring Data REST item resource DELETE; RFC 9110 15.5.5)",
      async check(send, fresh) {
        const path = await create(send, `Gone ${fresh()}`);
        const del = await send("DELETE", path, undefined, ACCEPT);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", path, undefined, ACCEPT);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
      },
    },
  ],
};
