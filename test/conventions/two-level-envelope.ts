// A two-level envelope: every answer wraps the item as `{"data": {"account": item}}` and a list as
// `{"data": {"accounts": [...]}}` (rest-conventions.md section 10: the same wrapper on every response
// for the resource); requests send the bare item. Lists are paged by page number, the next page named
// by a `Link: <...>; rel="next"` header (RFC 8288), absent on the last page; updates are merge patches.
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type Json, type JsonObject } from "./kit.js";

const account = {
  type: "object",
  required: ["id", "name"],
  properties: {
    id: { type: "string", readOnly: true },
    name: { type: "string" },
    currency: { type: "string", minLength: 3, maxLength: 3 },
  },
};
const accountPatch = {
  type: "object",
  properties: { name: { type: "string" }, currency: { type: ["string", "null"], minLength: 3, maxLength: 3 } },
};
const one = {
  type: "object",
  required: ["data"],
  properties: { data: { type: "object", required: ["account"], properties: { account } } },
};
const many = {
  type: "object",
  required: ["data"],
  properties: {
    data: { type: "object", required: ["accounts"], properties: { accounts: { type: "array", items: account } } },
  },
};
const error = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" } },
    },
  },
};
const json = (schema: unknown, type = "application/json") => ({ content: { [type]: { schema } } });
const linkHeader = {
  Link: {
    description: 'RFC 8288 links; rel="next" names the next page and is absent on the last',
    schema: { type: "string" },
  },
};

const document = {
  openapi: "3.1.0",
  info: { title: "two-level envelope", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/accounts": {
      post: {
        operationId: "createAccount",
        requestBody: { required: true, ...json(account) },
        responses: {
          "201": {
            description: "created",
            headers: { Location: { required: true, schema: { type: "string" } } },
            ...json(one),
          },
          "400": { description: "invalid", ...json(error) },
        },
      },
      get: {
        operationId: "listAccounts",
        parameters: [
          { name: "page", in: "query", schema: { type: "integer", minimum: 1, default: 1 } },
          { name: "per_page", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 30 } },
        ],
        responses: { "200": { description: "a page of accounts", headers: linkHeader, ...json(many) } },
      },
    },
    "/accounts/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: {
        operationId: "getAccount",
        responses: {
          "200": { description: "the account", ...json(one) },
          "404": { description: "none", ...json(error) },
        },
      },
      patch: {
        operationId: "updateAccount",
        requestBody: { required: true, ...json(accountPatch, "application/merge-patch+json") },
        responses: {
          "200": { description: "updated", ...json(one) },
          "400": { description: "invalid", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
      delete: {
        operationId: "deleteAccount",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(error) } },
      },
    },
  },
};

/** The reference: accounts by id in creation order, pages by number with a Link header. */
function reference() {
  const accounts = new Map<string, JsonObject>();
  let last = 0;
  const fail = (status: number, code: string, message: string): Answer => ({
    status,
    body: { error: { code, message } },
  });
  const missing = fail(404, "not_found", "no such account");
  const isObject = (b: Json | undefined): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  const currency = (c: Json | undefined) => typeof c === "string" && c.length === 3;
  const handle = router({
    "POST /accounts": ({ body, headers }) => {
      if (!isObject(body) || typeof body.name !== "string" || (body.currency !== undefined && !currency(body.currency)))
        return fail(400, "invalid", "name is required; currency has 3 letters");
      const id = `acc_${++last}`;
      const item = { id, name: body.name, ...(body.currency === undefined ? {} : { currency: body.currency }) };
      accounts.set(id, item);
      return {
        status: 201,
        headers: { location: `http://${headers.host}/accounts/${id}` },
        body: { data: { account: item } },
      };
    },
    "GET /accounts": ({ query, headers }) => {
      const perPage = Math.min(Math.max(Number(query.get("per_page") ?? 30) || 30, 1), 100);
      const page = Math.max(Number(query.get("page") ?? 1) || 1, 1);
      const all = [...accounts.values()];
      const url = (n: number) => `http://${headers.host}/accounts?page=${n}&per_page=${perPage}`;
      const links = [
        ...(page * perPage < all.length ? [`<${url(page + 1)}>; rel="next"`] : []),
        ...(page > 1 ? [`<${url(page - 1)}>; rel="prev"`] : []),
      ];
      return {
        status: 200,
        headers: links.length === 0 ? undefined : { link: links.join(", ") },
        body: { data: { accounts: all.slice((page - 1) * perPage, page * perPage) } },
      };
    },
    "GET /accounts/{id}": ({ params }) => {
      const found = accounts.get(params.id!);
      return found === undefined ? missing : { status: 200, body: { data: { account: found } } };
    },
    "PATCH /accounts/{id}": ({ params, body }) => {
      const found = accounts.get(params.id!);
      if (found === undefined) return missing;
      const name = isObject(body) ? body.name : undefined;
      const cur = isObject(body) ? body.currency : undefined;
      if (!isObject(body) || (name !== undefined && typeof name !== "string") || (cur != null && !currency(cur)))
        return fail(400, "invalid", "name is a string; currency has 3 letters");
      // RFC 7396: members sent replace, null removes, members absent stay.
      const next: JsonObject = { ...found, ...(name === undefined ? {} : { name }) };
      if (cur === null) delete next.currency;
      else if (cur !== undefined) next.currency = cur;
      accounts.set(params.id!, next);
      return { status: 200, body: { data: { account: next } } };
    },
    "DELETE /accounts/{id}": ({ params }) => (accounts.delete(params.id!) ? { status: 204 } : missing),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const object = (v: unknown): JsonObject | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;
/** The account inside `{"data": {"account": item}}`. */
const inside = (v: unknown): JsonObject | undefined => object(object(object(v)?.data)?.account);

/** The target of the `rel="next"` link of a Link header (RFC 8288 section 3), if any. */
function nextOf(header: string | null): string | undefined {
  for (const m of (header ?? "").matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i.exec(m[2]!);
    if ((rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/).includes("next")) return m[1];
  }
  return undefined;
}

/** Follows rel="next" from `first` to the page without one; at most 100 pages. The items of each page. */
async function walk(send: Client, first: string): Promise<JsonObject[][]> {
  const pages: JsonObject[][] = [];
  let url: string | undefined = first;
  while (url !== undefined) {
    if (pages.length === 100) throw new Broken(`rel="next" still leads on after 100 pages (${url})`);
    const res = await send("GET", url);
    const items = object(object(res.json)?.data)?.accounts;
    expectThat(res.status === 200 && Array.isArray(items), `GET ${url} answered ${res.status}: ${res.text}`);
    pages.push((items as Json[]).map((i) => object(i) ?? {}));
    url = nextOf(res.headers.get("link"));
  }
  return pages;
}

/** Makes `n` accounts named with a fresh marker; answers their ids. */
async function make(send: Client, fresh: () => number, n: number): Promise<{ ids: string[]; marker: string }> {
  const marker = `walk-${fresh()}`;
  const ids: string[] = [];
  for (let k = 0; k < n; k++) {
    const made = await send("POST", "/accounts", { name: `${marker}-${k}`, currency: "EUR" });
    const id = inside(made.json)?.id;
    expectThat(made.status === 201 && typeof id === "string", `create answered ${made.status}: ${made.text}`);
    ids.push(id);
  }
  return { ids, marker };
}

const merge = { "content-type": "application/merge-patch+json" };

export const twoLevelEnvelope: Convention = {
  name: "two-level-envelope",
  family: 'two-level envelope `{data: {account: item}}`, list `{data: {accounts: [...]}}`, Link rel="next" paging',
  sources: [
    "rest-conventions.md section 10 (`{data: {account: item}}`; the same wrapper on every response for the resource)",
    'RFC 8288 section 3 (Link header; rel="next", IANA link relations) and GitHub REST "Using pagination" (no next link on the last page)',
    "RFC 7396 section 2 (merge patch: members sent replace, absent members stay)",
    "RFC 9110 sections 9.3.3 (POST), 9.3.5 (DELETE), 15.3.2 (201 and Location), 15.5.5 (404)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-201-location-two-level",
      says: "a create answers 201, `{data: {account}}` with a server id, and a Location where GET answers the same account in the same wrapper (RFC 9110 15.3.2; section 10)",
      async check(send, fresh) {
        const name = `Account ${fresh()}`;
        const made = await send("POST", "/accounts", { name, currency: "EUR" });
        const item = inside(made.json);
        expectThat(made.status === 201 && typeof item?.id === "string", `create answered ${made.status}: ${made.text}`);
        expectThat(sameJson(item, { id: item.id, name, currency: "EUR" }), `create answered ${made.text}`);
        const location = made.headers.get("location");
        expectThat(location !== null, "the 201 has no Location");
        const read = await send("GET", location);
        expectThat(
          read.status === 200 && sameJson(inside(read.json), item),
          `GET ${location}: ${read.status} ${read.text}`,
        );
      },
    },
    {
      id: "merge-patch-keeps-unsent",
      says: "a merge patch changes the members it sends and keeps the others; the answer and a later GET show the result in the same wrapper (RFC 7396 section 2)",
      async check(send, fresh) {
        const made = inside((await send("POST", "/accounts", { name: `Old ${fresh()}`, currency: "USD" })).json);
        expectThat(typeof made?.id === "string", "the create answered no data.account.id");
        const name = `New ${fresh()}`;
        const patched = await send("PATCH", `/accounts/${made.id}`, { name }, merge);
        const want = { id: made.id, name, currency: "USD" };
        expectThat(
          patched.status === 200 && sameJson(inside(patched.json), want),
          `PATCH answered ${patched.status} ${patched.text}`,
        );
        const read = await send("GET", `/accounts/${made.id}`);
        expectThat(sameJson(inside(read.json), want), `read back ${read.text}`);
      },
    },
    {
      id: "link-next-walk-each-once",
      says: 'following rel="next" from page 1 (per_page=2) visits each account made exactly once, with its current values, every page in `{data: {accounts}}` (RFC 8288 section 3)',
      async check(send, fresh) {
        const { ids, marker } = await make(send, fresh, 3);
        await send("PATCH", `/accounts/${ids[2]}`, { name: `${marker}-renamed` }, merge);
        const seen = (await walk(send, "/accounts?page=1&per_page=2")).flat();
        const want = [`${marker}-0`, `${marker}-1`, `${marker}-renamed`];
        ids.forEach((id, k) => {
          const mine = seen.filter((i) => i.id === id);
          expectThat(
            mine.length === 1 && sameJson(mine[0]!.name, want[k]),
            `the walk saw ${id} as ${JSON.stringify(mine)}`,
          );
        });
      },
    },
    {
      id: "last-page-no-next-link",
      says: 'pages hold per_page accounts but the last, which holds at least one and has no rel="next" link (RFC 8288 section 3; page-number paging)',
      async check(send, fresh) {
        await make(send, fresh, 3);
        const pages = await walk(send, "/accounts?page=1&per_page=2");
        pages.forEach((items, k) => {
          const full = k < pages.length - 1 ? items.length === 2 : items.length >= 1 && items.length <= 2;
          expectThat(full, `page ${k + 1} of ${pages.length} holds ${items.length} accounts at per_page=2`);
        });
      },
    },
    {
      id: "delete-then-404",
      says: "DELETE answers 204; then GET and a second DELETE of that id answer 404 (RFC 9110 9.3.5, 15.5.5)",
      async check(send, fresh) {
        const made = inside((await send("POST", "/accounts", { name: `Gone ${fresh()}` })).json);
        expectThat(typeof made?.id === "string", "the create answered no data.account.id");
        const del = await send("DELETE", `/accounts/${made.id}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/accounts/${made.id}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("DELETE", `/accounts/${made.id}`);
        expectThat(again.status === 404, `a second DELETE answered ${again.status}`);
      },
    },
  ],
};
