// An optional client id: the create's request declares `id` (not readOnly, not required). When the
// client sends it, the item is made at that id and a second create with it is a conflict; when it is
// absent, the server makes one. Google's AIP-133 user-specified ids (an optional `{resource}_id`, else a
// system-generated id, ALREADY_EXISTS on a duplicate; AIP passes it as a query parameter) and JSON:API's
// client-generated ids (a member of the created resource), here as a member of a plain JSON body.
import { randomUUID } from "node:crypto";
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, writeJson, type Answer, type Json, type JsonObject } from "./kit.js";

const ID_PATTERN = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$";
const bookId = { type: "string", pattern: ID_PATTERN, description: "the last segment of the book's path" };
const newBook = {
  type: "object",
  required: ["title"],
  properties: {
    id: { ...bookId, description: "optional: the id to create the book at; the server makes one when absent" },
    title: { type: "string" },
  },
};
const book = {
  type: "object",
  required: ["id", "title"],
  properties: { id: bookId, title: { type: "string" } },
};
const error = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "status"],
      properties: { code: { type: "integer" }, message: { type: "string" }, status: { type: "string" } },
    },
  },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: bookId };

const document = {
  openapi: "3.1.0",
  info: { title: "optional client id", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/books": {
      post: {
        operationId: "createBook",
        requestBody: { required: true, ...json(newBook) },
        responses: {
          "201": { description: "created at the id sent, or at one the server made", ...json(book) },
          "400": { description: "invalid (INVALID_ARGUMENT)", ...json(error) },
          "409": { description: "the id is taken (ALREADY_EXISTS)", ...json(error) },
        },
      },
      get: {
        operationId: "listBooks",
        responses: { "200": { description: "every book", ...json({ type: "array", items: book }) } },
      },
    },
    "/books/{id}": {
      parameters: [idParam],
      get: {
        operationId: "getBook",
        responses: {
          "200": { description: "the book", ...json(book) },
          "404": { description: "none (NOT_FOUND)", ...json(error) },
        },
      },
      put: {
        operationId: "replaceBook",
        requestBody: { required: true, ...json(newBook) },
        responses: {
          "200": { description: "replaced", ...json(book) },
          "400": { description: "invalid, or an id other than the path's (INVALID_ARGUMENT)", ...json(error) },
          "404": { description: "none (NOT_FOUND)", ...json(error) },
        },
      },
      delete: {
        operationId: "deleteBook",
        responses: { "204": { description: "deleted" }, "404": { description: "none (NOT_FOUND)", ...json(error) } },
      },
    },
  },
};

/** The reference: books by id, the id sent or, when none is, a random UUID (which fits the pattern). */
function reference() {
  const books = new Map<string, JsonObject>();
  const pattern = new RegExp(ID_PATTERN);
  const STATUS: Record<number, string> = { 400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 409: "ALREADY_EXISTS" };
  const bad = (code: number, message: string): Answer => ({
    status: code,
    body: { error: { code, message, status: STATUS[code]! } },
  });
  const valid = (b: unknown): b is JsonObject => {
    if (typeof b !== "object" || b === null || Array.isArray(b)) return false;
    const o = b as JsonObject;
    return typeof o.title === "string" && (o.id === undefined || (typeof o.id === "string" && pattern.test(o.id)));
  };
  const handle = router({
    "POST /books": ({ body }) => {
      if (!valid(body)) return bad(400, "invalid book");
      const id = (body.id as string | undefined) ?? randomUUID();
      if (books.has(id)) return bad(409, `book ${id} already exists`);
      books.set(id, { id, title: body.title! });
      return { status: 201, body: books.get(id) };
    },
    "GET /books": () => ({ status: 200, body: [...books.values()] }),
    "GET /books/{id}": ({ params }) => {
      const found = books.get(params.id!);
      return found === undefined ? bad(404, "no such book") : { status: 200, body: found };
    },
    "PUT /books/{id}": ({ params, body }) => {
      const id = params.id!;
      if (!books.has(id)) return bad(404, "no such book");
      if (!valid(body) || (body.id !== undefined && body.id !== id)) return bad(400, "invalid book");
      books.set(id, { id, title: body.title! });
      return { status: 200, body: books.get(id) };
    },
    "DELETE /books/{id}": ({ params }) => (books.delete(params.id!) ? { status: 204 } : bad(404, "no such book")),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const listed = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(obj) : []);
const isId = (v: Json | undefined): v is string => typeof v === "string" && v !== "";
const at = (id: string): string => `/books/${encodeURIComponent(id)}`;

export const optionalClientId: Convention = {
  name: "optional-client-id",
  family:
    "optional client-chosen id: Google AIP-133 user-specified ids ({resource}_id, else server-assigned), JSON:API client-generated ids",
  sources: [
    "https://google.aip.dev/133 (User-specified IDs: an optional {resource}_id, else a system-generated ID; an ID that would duplicate a resource name is ALREADY_EXISTS)",
    "https://google.aip.dev/122 (resource ID segments) and https://google.aip.dev/193 (ALREADY_EXISTS maps to HTTP 409, NOT_FOUND to 404)",
    "https://jsonapi.org/format/1.1/#crud-creating-client-ids (a client-generated id that already exists: 409 Conflict)",
    "RFC 9110 sections 9.3.3 (POST), 9.3.5 (DELETE), 15.3.2 (201 Created), 15.5.5 (404), 15.5.10 (409 Conflict)",
  ],
  document,
  reference,
  promises: [
    {
      id: "sent-id-used",
      says: "a create that sends an id answers 201 with that id, and GET /books/{id} returns the book (AIP-133 user-specified IDs)",
      async check(send, fresh) {
        const id = `book-${fresh()}`;
        const made = await send("POST", "/books", { id, title: "Dune" });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        expectThat(sameJson(made.json, { id, title: "Dune" }), `create answered ${made.text}, sent id ${id}`);
        const read = await send("GET", at(id));
        expectThat(read.status === 200, `GET ${at(id)} after its create answered ${read.status}`);
        expectThat(sameJson(read.json, { id, title: "Dune" }), `read back ${read.text}`);
      },
    },
    {
      id: "duplicate-sent-id-409",
      says: "a second create that sends a stored id gets 409 (AIP-133 ALREADY_EXISTS; JSON:API client ids; RFC 9110 15.5.10) and leaves the stored book",
      async check(send, fresh) {
        const id = `book-${fresh()}`;
        await send("POST", "/books", { id, title: "First" });
        const again = await send("POST", "/books", { id, title: "Second" });
        expectThat(again.status === 409, `the repeated create answered ${again.status}`);
        const read = await send("GET", at(id));
        expectThat(sameJson(obj(read.json).title, "First"), `after the 409 the book reads ${read.text}`);
      },
    },
    {
      id: "absent-id-assigned",
      says: "a create without an id answers 201 with an id the server made, and GET by that id returns the book (AIP-133: the service assigns one)",
      async check(send, fresh) {
        const title = `Untitled ${fresh()}`;
        const made = await send("POST", "/books", { title });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        const id = obj(made.json).id;
        expectThat(isId(id), `create answered id ${writeJson(id)}`);
        const read = await send("GET", at(id));
        expectThat(read.status === 200, `GET ${at(id)} after its create answered ${read.status}`);
        expectThat(sameJson(read.json, { id, title }), `read back ${read.text}`);
      },
    },
    {
      id: "assigned-id-fits-the-id-schema",
      says: "an id the server makes is a valid id by the document's own schema (the pattern of Book.id; AIP-122 resource ID segments)",
      async check(send, fresh) {
        const made = await send("POST", "/books", { title: `Untitled ${fresh()}` });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        const id = obj(made.json).id;
        expectThat(
          isId(id) && new RegExp(ID_PATTERN).test(id),
          `the assigned id ${writeJson(id)} is not ${ID_PATTERN}`,
        );
      },
    },
    {
      id: "sent-id-clashing-with-assigned-409",
      says: "a create that sends an id the server already assigned gets 409 and leaves that book: sent and assigned ids share one namespace (AIP-133: an ID that would duplicate a resource name is ALREADY_EXISTS)",
      async check(send, fresh) {
        const title = `Assigned ${fresh()}`;
        const made = await send("POST", "/books", { title });
        const id = obj(made.json).id;
        expectThat(made.status === 201 && isId(id), `create answered ${made.status}: ${made.text}`);
        const again = await send("POST", "/books", { id, title: "Clash" });
        expectThat(again.status === 409, `a create sending the assigned id ${id} answered ${again.status}`);
        const read = await send("GET", at(id));
        expectThat(sameJson(read.json, { id, title }), `after the 409 the book reads ${read.text}`);
      },
    },
    {
      id: "sent-and-assigned-both-listed",
      says: "one book made at a sent id and two at assigned ids: three different ids, and the list holds each book once",
      async check(send, fresh) {
        const sent = `book-${fresh()}`;
        const made = [
          await send("POST", "/books", { id: sent, title: `Sent ${fresh()}` }),
          await send("POST", "/books", { title: `Assigned ${fresh()}` }),
          await send("POST", "/books", { title: `Assigned ${fresh()}` }),
        ];
        expectThat(
          made.every((m) => m.status === 201),
          `the creates answered ${made.map((m) => m.status).join(", ")}`,
        );
        const ids = made.map((m) => obj(m.json).id);
        expectThat(ids.every(isId) && new Set(ids).size === 3, `the creates answered ids ${writeJson(ids)}`);
        expectThat(ids[0] === sent, `the create that sent ${sent} answered id ${writeJson(ids[0])}`);
        const items = listed((await send("GET", "/books")).json);
        for (const m of made) {
          const mine = items.filter((b) => b.id === obj(m.json).id);
          expectThat(mine.length === 1 && sameJson(mine[0], m.json), `the list holds ${writeJson(mine)} for ${m.text}`);
        }
      },
    },
    {
      id: "replace-never-moves-id",
      says: "a PUT whose body names another id than its path is rejected (the document's 400) or ignored, never used: the book stays at its id and none appears at the other (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const id = `book-${fresh()}`;
        const other = `book-${fresh()}`;
        await send("POST", "/books", { id, title: "Stays" });
        const put = await send("PUT", at(id), { id: other, title: "Moved" });
        expectThat(put.status === 400 || put.status === 200, `PUT with another id answered ${put.status}`);
        const read = await send("GET", at(id));
        expectThat(read.status === 200 && obj(read.json).id === id, `after the PUT ${at(id)} answers ${read.text}`);
        const moved = await send("GET", at(other));
        expectThat(moved.status === 404, `after the PUT ${at(other)} answers ${moved.status} ${moved.text}`);
      },
    },
    {
      id: "unknown-id-404",
      says: "read, replace and delete of an id never created get 404 and create nothing (AIP-131/135 NOT_FOUND; RFC 9110 15.5.5)",
      async check(send, fresh) {
        const id = `ghost-${fresh()}`;
        const put = await send("PUT", at(id), { id, title: "Ghost" });
        expectThat(put.status === 404, `PUT of an unknown id answered ${put.status}`);
        const del = await send("DELETE", at(id));
        expectThat(del.status === 404, `DELETE of an unknown id answered ${del.status}`);
        const read = await send("GET", at(id));
        expectThat(read.status === 404, `GET of an unknown id answered ${read.status}`);
      },
    },
    {
      id: "delete-frees-sent-id",
      says: "after a delete the book reads 404, and a create may send its id again (RFC 9110 9.3.5)",
      async check(send, fresh) {
        const id = `book-${fresh()}`;
        await send("POST", "/books", { id, title: "Once" });
        const del = await send("DELETE", at(id));
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", at(id));
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("POST", "/books", { id, title: "Twice" });
        expectThat(again.status === 201, `a create of the freed id answered ${again.status}`);
        const back = await send("GET", at(id));
        expectThat(sameJson(back.json, { id, title: "Twice" }), `the book made again reads ${back.text}`);
      },
    },
  ],
};
