// A server-assigned UUID: `id` is a readOnly string of format uuid, made by the server on create; the
// item is changed with a JSON merge patch. Tables keyed by generated UUIDs (Rails `id: :uuid` on
// PostgreSQL, `gen_random_uuid()` defaults), served with the OpenAPI format registry's `uuid`.
import { randomUUID } from "node:crypto";
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, writeJson, type Answer, type Json, type JsonObject } from "./kit.js";

const note = {
  type: "object",
  required: ["id", "text"],
  properties: {
    id: { type: "string", format: "uuid", readOnly: true },
    text: { type: "string" },
    pinned: { type: "boolean" },
  },
};
const notePatch = {
  type: "object",
  description: "a JSON merge patch (RFC 7396) of a note",
  properties: { text: { type: "string" }, pinned: { type: ["boolean", "null"] } },
};
const error = {
  type: "object",
  required: ["status", "title"],
  properties: { status: { type: "integer" }, title: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } };

const document = {
  openapi: "3.1.0",
  info: { title: "server uuid id", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/notes": {
      post: {
        operationId: "createNote",
        requestBody: { required: true, ...json(note) },
        responses: {
          "201": { description: "created, with the uuid the server assigned", ...json(note) },
          "400": { description: "invalid", ...json(error) },
        },
      },
      get: {
        operationId: "listNotes",
        responses: { "200": { description: "every note", ...json({ type: "array", items: note }) } },
      },
    },
    "/notes/{id}": {
      parameters: [idParam],
      get: {
        operationId: "getNote",
        responses: {
          "200": { description: "the note", ...json(note) },
          "404": { description: "none", ...json(error) },
        },
      },
      patch: {
        operationId: "patchNote",
        requestBody: { required: true, content: { "application/merge-patch+json": { schema: notePatch } } },
        responses: {
          "200": { description: "patched", ...json(note) },
          "400": { description: "invalid", ...json(error) },
          "404": { description: "none", ...json(error) },
        },
      },
      delete: {
        operationId: "deleteNote",
        responses: { "204": { description: "deleted" }, "404": { description: "none", ...json(error) } },
      },
    },
  },
};

/** The reference: notes by the (lowercase) UUID it made; an id sent in a request is ignored. */
function reference() {
  const notes = new Map<string, JsonObject>();
  const bad = (status: number, title: string): Answer => ({ status, body: { status, title } });
  const isObject = (b: unknown): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  const valid = (o: JsonObject): boolean =>
    typeof o.text === "string" && (o.pinned === undefined || typeof o.pinned === "boolean");
  const item = (id: string, b: JsonObject): JsonObject => ({
    id,
    text: b.text!,
    ...(b.pinned === undefined ? {} : { pinned: b.pinned }),
  });
  const key = (raw: string): string => raw.toLowerCase();
  const handle = router({
    "POST /notes": ({ body }) => {
      if (!isObject(body) || !valid(body)) return bad(400, "invalid note");
      const id = randomUUID();
      notes.set(id, item(id, body));
      return { status: 201, body: notes.get(id) };
    },
    "GET /notes": () => ({ status: 200, body: [...notes.values()] }),
    "GET /notes/{id}": ({ params }) => {
      const found = notes.get(key(params.id!));
      return found === undefined ? bad(404, "no such note") : { status: 200, body: found };
    },
    "PATCH /notes/{id}": ({ params, body }) => {
      const id = key(params.id!);
      const found = notes.get(id);
      if (found === undefined) return bad(404, "no such note");
      if (!isObject(body)) return bad(400, "a merge patch is an object");
      // RFC 7396 section 2: members replace, null removes, absent members stay.
      const merged: JsonObject = { ...found };
      for (const [k, v] of Object.entries(body)) {
        if (k === "id") continue;
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      if (!valid(merged)) return bad(400, "invalid note");
      notes.set(id, item(id, merged));
      return { status: 200, body: notes.get(id) };
    },
    "DELETE /notes/{id}": ({ params }) => (notes.delete(key(params.id!)) ? { status: 204 } : bad(404, "no such note")),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const listed = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(obj) : []);
/** RFC 9562 section 4: 32 hexadecimal digits in groups of 8-4-4-4-12. */
const isUuid = (v: Json | undefined): v is string =>
  typeof v === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
const MERGE = { "content-type": "application/merge-patch+json" };

export const serverUuidId: Convention = {
  name: "server-uuid-id",
  family: "server-generated UUID keys: Rails `id: :uuid` tables on PostgreSQL, `gen_random_uuid()` column defaults",
  sources: [
    "OpenAPI 3.1.0 Schema Object (readOnly: server-set, not sent in requests) and the OpenAPI Format Registry (uuid: RFC 4122 / RFC 9562)",
    "JSON Schema Validation 2020-12 section 9.4 (readOnly: the owning authority ignores or rejects attempts to change the value)",
    "RFC 9562 section 4 (the UUID string form, 8-4-4-4-12 hexadecimal digits)",
    "RFC 9110 sections 9.3.3 (POST), 9.3.5 (DELETE), 15.3.2 (201 Created), 15.5.5 (404)",
    "RFC 5789 (PATCH) and RFC 7396 section 2 (merge patch: members replace, null removes, absent members stay)",
    "https://guides.rubyonrails.org/active_record_postgresql.html (UUID primary keys, generated by the database)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-assigns-uuid",
      says: "a create that sends no id answers 201 with an id in the UUID string form (format uuid, RFC 9562 section 4) and what it sent (RFC 9110 15.3.2)",
      async check(send, fresh) {
        const text = `Repot the palm ${fresh()}`;
        const made = await send("POST", "/notes", { text, pinned: true });
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        const id = obj(made.json).id;
        expectThat(isUuid(id), `create answered id ${writeJson(id)}`);
        expectThat(sameJson(made.json, { id, text, pinned: true }), `create answered ${made.text}`);
      },
    },
    {
      id: "read-by-assigned-uuid",
      says: "GET /notes/{id} with the id the create answered returns the item the create made (RFC 9110 9.3.1, 15.3.2)",
      async check(send, fresh) {
        const text = `Read me ${fresh()}`;
        const made = await send("POST", "/notes", { text });
        const id = obj(made.json).id;
        expectThat(made.status === 201 && isUuid(id), `create answered ${made.status}: ${made.text}`);
        const read = await send("GET", `/notes/${id}`);
        expectThat(read.status === 200, `GET /notes/${id} after its create answered ${read.status}`);
        expectThat(sameJson(read.json, { id, text }), `read back ${read.text}`);
      },
    },
    {
      id: "two-creates-two-uuids-both-listed",
      says: "two creates get two different UUIDs, and the list holds each of them once with what was sent",
      async check(send, fresh) {
        const ta = `A ${fresh()}`;
        const tb = `B ${fresh()}`;
        const a = await send("POST", "/notes", { text: ta });
        const b = await send("POST", "/notes", { text: tb });
        const ida = obj(a.json).id;
        const idb = obj(b.json).id;
        expectThat(isUuid(ida) && isUuid(idb), `the creates answered ${a.text} and ${b.text}`);
        expectThat(ida.toLowerCase() !== idb.toLowerCase(), `both creates answered the id ${ida}`);
        const items = listed((await send("GET", "/notes")).json);
        for (const [id, text] of [
          [ida, ta],
          [idb, tb],
        ] as const) {
          const mine = items.filter((n) => n.id === id);
          expectThat(mine.length === 1 && sameJson(mine[0]!.text, text), `the list holds ${writeJson(mine)}`);
        }
      },
    },
    {
      id: "readonly-id-ignored-or-rejected",
      says: "an id sent anyway is ignored or rejected (JSON Schema Validation 2020-12 section 9.4, readOnly): a create answers 400 or 201 with another id, a patch 400 or 200 with the id unchanged, and nothing appears at the id sent",
      async check(send, fresh) {
        const sent = randomUUID();
        const made = await send("POST", "/notes", { id: sent, text: `Sent an id ${fresh()}` });
        expectThat(made.status === 400 || made.status === 201, `a create that sent an id answered ${made.status}`);
        if (made.status === 201)
          expectThat(obj(made.json).id !== sent, `the create that sent ${sent} answered ${made.text}`);
        const kept = await send("POST", "/notes", { text: `Kept ${fresh()}` });
        const id = obj(kept.json).id;
        expectThat(kept.status === 201 && isUuid(id), `create answered ${kept.status}: ${kept.text}`);
        const other = randomUUID();
        const patch = await send("PATCH", `/notes/${id}`, { id: other }, MERGE);
        expectThat(patch.status === 400 || patch.status === 200, `a patch of the id answered ${patch.status}`);
        const read = await send("GET", `/notes/${id}`);
        expectThat(
          read.status === 200 && obj(read.json).id === id,
          `after patching the id, the note reads ${read.text}`,
        );
        for (const ghost of [sent, other]) {
          const gone = await send("GET", `/notes/${ghost}`);
          expectThat(gone.status === 404, `GET /notes/${ghost}, an id only sent, answered ${gone.status}`);
        }
      },
    },
    {
      id: "unknown-uuid-404",
      says: "read, patch and delete of a well-formed UUID the server never made get 404 and create nothing (RFC 9110 15.5.5)",
      async check(send) {
        const id = randomUUID();
        const patch = await send("PATCH", `/notes/${id}`, { text: "Ghost" }, MERGE);
        expectThat(patch.status === 404, `PATCH of an unknown uuid answered ${patch.status}`);
        const del = await send("DELETE", `/notes/${id}`);
        expectThat(del.status === 404, `DELETE of an unknown uuid answered ${del.status}`);
        const read = await send("GET", `/notes/${id}`);
        expectThat(read.status === 404, `GET of an unknown uuid answered ${read.status}`);
      },
    },
    {
      id: "merge-patch-keeps-absent-members",
      says: "a merge patch changes the members it sends, removes those it sets to null and keeps the rest, the id included (RFC 7396 section 2)",
      async check(send, fresh) {
        const made = await send("POST", "/notes", { text: `Old ${fresh()}`, pinned: true });
        const id = obj(made.json).id;
        expectThat(made.status === 201 && isUuid(id), `create answered ${made.status}: ${made.text}`);
        const patch = await send("PATCH", `/notes/${id}`, { text: "New" }, MERGE);
        expectThat(patch.status === 200, `PATCH answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/notes/${id}`);
        expectThat(
          sameJson(read.json, { id, text: "New", pinned: true }),
          `after the patch the note reads ${read.text}`,
        );
        await send("PATCH", `/notes/${id}`, { pinned: null }, MERGE);
        const again = await send("GET", `/notes/${id}`);
        expectThat(sameJson(again.json, { id, text: "New" }), `after patching pinned to null it reads ${again.text}`);
      },
    },
    {
      id: "delete-then-404",
      says: "DELETE by the assigned UUID answers 204; then read and a second delete get 404 (RFC 9110 9.3.5, 15.5.5)",
      async check(send, fresh) {
        const made = await send("POST", "/notes", { text: `Gone ${fresh()}` });
        const id = obj(made.json).id;
        expectThat(made.status === 201 && isUuid(id), `create answered ${made.status}: ${made.text}`);
        const del = await send("DELETE", `/notes/${id}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}`);
        const read = await send("GET", `/notes/${id}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const again = await send("DELETE", `/notes/${id}`);
        expectThat(again.status === 404, `a second DELETE answered ${again.status}`);
      },
    },
  ],
};
