// A create that answers 201 with no content and a `Location` header naming the new item: the client
// learns the server-assigned id only from that header. Keycloak's Admin REST API (POST .../users
// answers 201 Created, empty, with Location .../users/{id}), Spring Data REST with
// returnBodyOnCreate off; the item's PUT answers 204, as Keycloak's does.
import { randomUUID } from "node:crypto";
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, writeJson, type Answer, type Client, type JsonObject } from "./kit.js";

const user = {
  type: "object",
  required: ["id", "username"],
  properties: {
    id: { type: "string", readOnly: true },
    username: { type: "string", minLength: 1 },
    email: { type: "string", format: "email" },
  },
};
const error = {
  type: "object",
  required: ["errorMessage"],
  properties: { errorMessage: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "string" } };

const document = {
  openapi: "3.0.3",
  info: { title: "create 201 with no body and a Location", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/users": {
      post: {
        operationId: "createUser",
        requestBody: { required: true, ...json(user) },
        responses: {
          "201": {
            description: "created; no content, the new user named by Location",
            headers: {
              Location: {
                description: "the URI of the new user, /users/{id}",
                required: true,
                schema: { type: "string", format: "uri-reference" },
              },
            },
          },
          "400": { description: "invalid", ...json(error) },
        },
      },
      get: {
        operationId: "listUsers",
        responses: { "200": { description: "every user", ...json({ type: "array", items: user }) } },
      },
    },
    "/users/{id}": {
      parameters: [idParam],
      get: {
        operationId: "getUser",
        responses: {
          "200": { description: "the user", ...json(user) },
          "404": { description: "none", ...json(error) },
        },
      },
      put: {
        operationId: "replaceUser",
        requestBody: { required: true, ...json(user) },
        responses: {
          "204": { description: "replaced; no content" },
          "400": { description: "invalid", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
      delete: {
        operationId: "deleteUser",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(error) } },
      },
    },
  },
};

/** The reference: users by a random UUID it makes, named by a relative Location; a sent id is ignored. */
function reference() {
  const users = new Map<string, JsonObject>();
  const bad = (status: number, errorMessage: string): Answer => ({ status, body: { errorMessage } });
  const valid = (b: unknown): b is JsonObject => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return false;
    const o = b as JsonObject;
    return (
      typeof o.username === "string" && o.username !== "" && (o.email === undefined || typeof o.email === "string")
    );
  };
  const item = (id: string, b: JsonObject): JsonObject => ({
    id,
    username: b.username!,
    ...(b.email === undefined ? {} : { email: b.email }),
  });
  const handle = router({
    "POST /users": ({ body }) => {
      if (!valid(body)) return bad(400, "invalid user");
      const id = randomUUID();
      users.set(id, item(id, body));
      return { status: 201, headers: { location: `/users/${id}` } };
    },
    "GET /users": () => ({ status: 200, body: [...users.values()] }),
    "GET /users/{id}": ({ params }) => {
      const found = users.get(params.id!);
      return found === undefined ? bad(404, "User not found") : { status: 200, body: found };
    },
    "PUT /users/{id}": ({ params, body }) => {
      const id = params.id!;
      if (!users.has(id)) return bad(404, "User not found");
      if (!valid(body)) return bad(400, "invalid user");
      users.set(id, item(id, body));
      return { status: 204 };
    },
    "DELETE /users/{id}": ({ params }) => (users.delete(params.id!) ? { status: 204 } : bad(404, "User not found")),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const listed = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(obj) : []);

/** A created user: where Location points (resolved against the request's URI, RFC 9110 10.2.2) and its id. */
interface Made {
  readonly status: number;
  readonly text: string;
  /** A path on the server under test, or an absolute URL when Location names another origin. */
  readonly location: string;
  /** The last path segment of Location, decoded. */
  readonly id: string;
}

const TARGET = "http://target.invalid/users";
async function create(send: Client, body: JsonObject): Promise<Made> {
  const res = await send("POST", "/users", body);
  const raw = res.headers.get("location") ?? "";
  let location = "";
  let id = "";
  if (raw !== "") {
    const url = new URL(raw, TARGET);
    location = url.origin === new URL(TARGET).origin ? `${url.pathname}${url.search}` : url.href;
    id = decodeURIComponent(url.pathname.split("/").pop() ?? "");
  }
  return { status: res.status, text: res.text, location, id };
}
/** Creates and holds the answer to the convention's shape: 201, no content, a Location. */
async function created(send: Client, body: JsonObject): Promise<Made> {
  const made = await create(send, body);
  expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
  expectThat(made.location !== "" && made.id !== "", `create answered no usable Location`);
  return made;
}
const at = (id: string): string => `/users/${encodeURIComponent(id)}`;

export const create201NoBodyLocation: Convention = {
  name: "create-201-no-body-location",
  family:
    "201 Created with no content and a Location: Keycloak Admin REST API (POST /users), Spring Data REST with returnBodyOnCreate off",
  sources: [
    "RFC 9110 section 15.3.2 (201 Created: the new resource is identified by a Location header field)",
    "RFC 9110 section 10.2.2 (Location; a relative reference is resolved against the target URI)",
    "RFC 9110 sections 9.3.4 (PUT), 9.3.5 (DELETE), 15.3.5 (204 No Content), 15.5.5 (404)",
    "https://www.keycloak.org/docs-api/latest/rest-api/index.html (Users: create answers 201 with Location, update 204, delete 204)",
    "https://docs.spring.io/spring-data/rest/reference/repository-resources.html (POST: 201 Created with Location)",
  ],
  document,
  reference,
  promises: [
    {
      id: "created-at-location",
      says: "the create answers 201 with no content (the document's 201 has none) and a Location; GET of that Location returns what was sent (RFC 9110 15.3.2, 10.2.2)",
      async check(send, fresh) {
        const username = `ada-${fresh()}`;
        const made = await created(send, { username, email: "ada@example.com" });
        expectThat(made.text === "", `the 201 carried content: ${made.text}`);
        const read = await send("GET", made.location);
        expectThat(read.status === 200, `GET ${made.location} answered ${read.status}`);
        const got = obj(read.json);
        expectThat(
          sameJson({ username: got.username, email: got.email }, { username, email: "ada@example.com" }),
          `GET ${made.location} answered ${read.text}`,
        );
      },
    },
    {
      id: "location-id-is-the-id",
      says: "the last segment of Location is the item's id: the item read there carries it, and PUT and DELETE by it act on the item (RFC 9110 10.2.2, 9.3.4, 9.3.5)",
      async check(send, fresh) {
        const username = `grace-${fresh()}`;
        const made = await created(send, { username });
        const read = await send("GET", at(made.id));
        expectThat(read.status === 200, `GET ${at(made.id)} answered ${read.status}`);
        expectThat(sameJson(read.json, { id: made.id, username }), `GET ${at(made.id)} answered ${read.text}`);
        const put = await send("PUT", at(made.id), { username: `${username}-renamed` });
        expectThat(put.status === 204, `PUT ${at(made.id)} answered ${put.status}`);
        const after = await send("GET", made.location);
        expectThat(sameJson(obj(after.json).username, `${username}-renamed`), `after the PUT it reads ${after.text}`);
        const del = await send("DELETE", at(made.id));
        expectThat(del.status === 204, `DELETE ${at(made.id)} answered ${del.status}`);
        const gone = await send("GET", made.location);
        expectThat(gone.status === 404, `GET ${made.location} after the DELETE answered ${gone.status}`);
      },
    },
    {
      id: "two-creates-two-locations-both-listed",
      says: "two creates name two different items, and the list holds each once, at the id its Location names",
      async check(send, fresh) {
        const ua = `a-${fresh()}`;
        const ub = `b-${fresh()}`;
        const a = await created(send, { username: ua });
        const b = await created(send, { username: ub });
        expectThat(a.id !== b.id, `both creates answered Location ${a.location}`);
        const items = listed((await send("GET", "/users")).json);
        for (const [id, username] of [
          [a.id, ua],
          [b.id, ub],
        ] as const) {
          const mine = items.filter((u) => u.id === id);
          expectThat(mine.length === 1 && sameJson(mine[0], { id, username }), `the list holds ${writeJson(mine)}`);
        }
      },
    },
    {
      id: "replace-leaves-what-it-sent",
      says: "PUT replaces the whole user and answers 204: an optional property it does not send is gone (RFC 9110 9.3.4, 15.3.5)",
      async check(send, fresh) {
        const made = await created(send, { username: `old-${fresh()}`, email: "old@example.com" });
        const put = await send("PUT", at(made.id), { username: "new" });
        expectThat(put.status === 204 && put.text === "", `PUT answered ${put.status}: ${put.text}`);
        const read = await send("GET", at(made.id));
        expectThat(sameJson(read.json, { id: made.id, username: "new" }), `after the PUT the user reads ${read.text}`);
      },
    },
    {
      id: "unknown-id-404",
      says: "read, replace and delete of an id no create named get 404 and create nothing (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const id = `ghost-${fresh()}-${randomUUID()}`;
        const put = await send("PUT", at(id), { username: "ghost" });
        expectThat(put.status === 404, `PUT of an unknown id answered ${put.status}`);
        const del = await send("DELETE", at(id));
        expectThat(del.status === 404, `DELETE of an unknown id answered ${del.status}`);
        const read = await send("GET", at(id));
        expectThat(read.status === 404, `GET of an unknown id answered ${read.status}`);
      },
    },
  ],
};
