// The two standard patch formats: profiles take a JSON Merge Patch (RFC 7396: members replace, null
// removes, absent members stay, arrays replace whole, objects merge recursively), notes take a JSON
// Patch (RFC 6902: a list of operations applied in order, all or nothing). The shape of Kubernetes'
// and Spring Data REST's PATCH, and of any API that names its patch media type.
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Json, type JsonObject } from "./kit.js";

const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";

const strings = { type: "array", items: { type: "string" } };
const profile = {
  type: "object",
  required: ["id", "name"],
  properties: {
    id: { type: "integer", format: "int64", readOnly: true },
    name: { type: "string" },
    nickname: { type: "string" },
    tags: strings,
    address: { type: "object", properties: { city: { type: "string" }, zip: { type: "string" } } },
  },
};
const profileMerge = {
  type: "object",
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    nickname: { type: "string", nullable: true },
    tags: { ...strings, nullable: true },
    address: {
      type: "object",
      nullable: true,
      additionalProperties: false,
      properties: { city: { type: "string", nullable: true }, zip: { type: "string", nullable: true } },
    },
  },
};
const note = {
  type: "object",
  required: ["id", "title"],
  properties: {
    id: { type: "integer", format: "int64", readOnly: true },
    title: { type: "string" },
    body: { type: "string" },
    tags: strings,
  },
};
const jsonPatch = {
  type: "array",
  items: {
    type: "object",
    required: ["op", "path"],
    properties: {
      op: { type: "string", enum: ["add", "remove", "replace", "test"] },
      path: { type: "string" },
      value: {},
    },
  },
};
const error = {
  type: "object",
  required: ["code", "message"],
  properties: { code: { type: "integer" }, message: { type: "string" } },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } };

/** A collection (POST, GET) and its items (GET, PATCH with one patch media type). */
const resource = (name: string, schema: unknown, patchType: string, patchSchema: unknown, failed: object) => ({
  [`/${name}`]: {
    post: {
      operationId: `create-${name}`,
      requestBody: { required: true, ...json(schema) },
      responses: {
        "201": { description: "created", ...json(schema) },
        "400": { description: "invalid", ...json(error) },
      },
    },
    get: {
      operationId: `list-${name}`,
      responses: { "200": { description: "all", ...json({ type: "array", items: schema }) } },
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
    patch: {
      operationId: `patch-${name}`,
      requestBody: { required: true, content: { [patchType]: { schema: patchSchema } } },
      responses: {
        "200": { description: "patched: the item as it now is", ...json(schema) },
        "400": { description: "a malformed patch document", ...json(error) },
        "404": { description: "none", ...json(error) },
        "415": { description: `the patch is not ${patchType}`, ...json(error) },
        ...failed,
      },
    },
  },
});

const document = {
  openapi: "3.0.3",
  info: { title: "merge patch and JSON patch", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    ...resource("profiles", profile, MERGE, profileMerge, {
      "422": { description: "the patched profile would be invalid; nothing applied", ...json(error) },
    }),
    ...resource("notes", note, JSON_PATCH, jsonPatch, {
      "409": { description: "an operation failed (a test, a missing target); nothing applied", ...json(error) },
      "422": { description: "the patched note would be invalid; nothing applied", ...json(error) },
    }),
  },
};

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 7396 section 2, MergePatch(Target, Patch). */
function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

class PatchFailed extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

/** RFC 6902 add, remove, replace and test on a copy of `doc`; throws PatchFailed, leaving `doc` as it was. */
function jsonPatchOf(doc: JsonObject, ops: Json | undefined): JsonObject {
  if (!Array.isArray(ops)) throw new PatchFailed(400);
  const out = structuredClone(doc);
  for (const op of ops) {
    if (!isObject(op) || typeof op.path !== "string" || !/^(\/|$)/.test(op.path)) throw new PatchFailed(400);
    if (op.op !== "remove" && !("value" in op)) throw new PatchFailed(400);
    // RFC 6901: "/a/b~1c" is ["a", "b/c"]; the whole document ("") is not patchable here.
    const tokens = op.path
      .split("/")
      .slice(1)
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (tokens.length === 0) throw new PatchFailed(409);
    let parent: Json | undefined = out;
    for (const t of tokens.slice(0, -1))
      parent = Array.isArray(parent) ? parent[Number(t)] : isObject(parent) ? parent[t] : undefined;
    const last = tokens[tokens.length - 1]!;
    if (Array.isArray(parent)) {
      const index = last === "-" && op.op === "add" ? parent.length : /^(0|[1-9]\d*)$/.test(last) ? Number(last) : -1;
      const limit = op.op === "add" ? parent.length : parent.length - 1;
      if (index < 0 || index > limit) throw new PatchFailed(409);
      if (op.op === "add") parent.splice(index, 0, op.value!);
      else if (op.op === "remove") parent.splice(index, 1);
      else if (op.op === "replace") parent[index] = op.value!;
      else if (op.op === "test") {
        if (!sameJson(parent[index], op.value)) throw new PatchFailed(409);
      } else throw new PatchFailed(400);
    } else if (isObject(parent)) {
      const has = Object.prototype.hasOwnProperty.call(parent, last);
      if (op.op !== "add" && !has) throw new PatchFailed(409);
      if (op.op === "add" || op.op === "replace") parent[last] = op.value!;
      else if (op.op === "remove") delete parent[last];
      else if (op.op === "test") {
        if (!sameJson(parent[last], op.value)) throw new PatchFailed(409);
      } else throw new PatchFailed(400);
    } else throw new PatchFailed(409);
  }
  return out;
}

const mediaType = (header: string | undefined): string => (header ?? "").split(";")[0]!.trim().toLowerCase();

function reference() {
  const profiles = new Map<string, JsonObject>();
  const notes = new Map<string, JsonObject>();
  let next = 1;
  const bad = (status: number, message: string): Answer => ({ status, body: { code: status, message } });
  const onlyStrings = (v: Json | undefined): boolean =>
    v === undefined || (Array.isArray(v) && v.every((s) => typeof s === "string"));
  const optString = (v: Json | undefined): boolean => v === undefined || typeof v === "string";
  const validProfile = (p: Json | undefined): p is JsonObject =>
    isObject(p) &&
    Object.keys(p).every((k) => ["id", "name", "nickname", "tags", "address"].includes(k)) &&
    typeof p.name === "string" &&
    optString(p.nickname) &&
    onlyStrings(p.tags) &&
    (p.address === undefined ||
      (isObject(p.address) &&
        Object.keys(p.address).every((k) => ["city", "zip"].includes(k)) &&
        optString(p.address.city) &&
        optString(p.address.zip)));
  const validNote = (n: Json | undefined): n is JsonObject =>
    isObject(n) &&
    Object.keys(n).every((k) => ["id", "title", "body", "tags"].includes(k)) &&
    typeof n.title === "string" &&
    optString(n.body) &&
    onlyStrings(n.tags);
  const collection = (store: Map<string, JsonObject>, valid: (b: Json | undefined) => b is JsonObject) => ({
    create: ({ body }: { body: Json | undefined }): Answer => {
      if (!valid(body)) return bad(400, "invalid");
      const id = next++;
      store.set(String(id), { ...body, id });
      return { status: 201, body: store.get(String(id)) };
    },
    list: (): Answer => ({ status: 200, body: [...store.values()] }),
    read: ({ params }: { params: Readonly<Record<string, string>> }): Answer => {
      const found = store.get(params.id!);
      return found === undefined ? bad(404, "none") : { status: 200, body: found };
    },
  });
  const p = collection(profiles, validProfile);
  const n = collection(notes, validNote);
  const handle = router({
    "POST /profiles": p.create,
    "GET /profiles": p.list,
    "GET /profiles/{id}": p.read,
    "PATCH /profiles/{id}": ({ params, headers, body }) => {
      if (mediaType(headers["content-type"]) !== MERGE)
        return { ...bad(415, `send ${MERGE}`), headers: { "accept-patch": MERGE } };
      const found = profiles.get(params.id!);
      if (found === undefined) return bad(404, "none");
      if (!isObject(body) || "id" in body) return bad(400, "a merge patch of a profile is an object without id");
      const patched = mergePatch(found, body);
      if (!validProfile(patched)) return bad(422, "the patched profile would be invalid");
      profiles.set(params.id!, patched);
      return { status: 200, body: patched };
    },
    "POST /notes": n.create,
    "GET /notes": n.list,
    "GET /notes/{id}": n.read,
    "PATCH /notes/{id}": ({ params, headers, body }) => {
      if (mediaType(headers["content-type"]) !== JSON_PATCH)
        return { ...bad(415, `send ${JSON_PATCH}`), headers: { "accept-patch": JSON_PATCH } };
      const found = notes.get(params.id!);
      if (found === undefined) return bad(404, "none");
      let patched: JsonObject;
      try {
        patched = jsonPatchOf(found, body);
      } catch (e) {
        if (e instanceof PatchFailed) return bad(e.status, "the patch was not applied");
        throw e;
      }
      if (!validNote(patched) || !sameJson(patched.id, found.id)) return bad(422, "the patched note would be invalid");
      notes.set(params.id!, patched);
      return { status: 200, body: patched };
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const merge = { "content-type": MERGE };
const patchJson = { "content-type": JSON_PATCH };
const idOf = (v: Json | undefined): string => String(isObject(v) ? v.id : undefined);
const without = (o: Json | undefined, ...keys: string[]): JsonObject =>
  Object.fromEntries(Object.entries(isObject(o) ? o : {}).filter(([k]) => !keys.includes(k))) as JsonObject;

export const mergeAndJsonPatch: Convention = {
  name: "merge-and-json-patch",
  family: "PATCH with a named patch format: JSON Merge Patch and JSON Patch (Kubernetes, Spring Data REST)",
  sources: [
    "RFC 7396 sections 1 and 2 (JSON Merge Patch)",
    "RFC 6902 sections 4 and 5 (JSON Patch operations; an error means the patch is not applied)",
    "RFC 5789 section 2 (PATCH applies atomically) and 2.2 (415 unsupported patch format, 409 conflicting state, 422)",
    "RFC 9110 section 15.5.5 (404 Not Found)",
  ],
  document,
  reference,
  promises: [
    {
      id: "merge-replaces-and-keeps-absent",
      says: "a merge patch replaces the members it names and leaves the absent ones as they were (RFC 7396 section 1)",
      async check(send, fresh) {
        const made = await send("POST", "/profiles", { name: `a-${fresh()}`, nickname: "nick", tags: ["x", "y"] });
        const id = idOf(made.json);
        const name = `b-${fresh()}`;
        const patch = await send("PATCH", `/profiles/${id}`, { name }, merge);
        expectThat(patch.status === 200, `PATCH answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/profiles/${id}`);
        expectThat(
          sameJson(without(read.json, "id"), { name, nickname: "nick", tags: ["x", "y"] }),
          `after merging {name: ${name}} the profile reads ${read.text}`,
        );
      },
    },
    {
      id: "merge-null-removes",
      says: "a member set to null in a merge patch is removed from the target (RFC 7396 section 1)",
      async check(send, fresh) {
        const name = `n-${fresh()}`;
        const made = await send("POST", "/profiles", { name, nickname: "gone" });
        const id = idOf(made.json);
        const patch = await send("PATCH", `/profiles/${id}`, { nickname: null }, merge);
        expectThat(patch.status === 200, `PATCH answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/profiles/${id}`);
        expectThat(
          sameJson(without(read.json, "id"), { name }),
          `after {nickname: null} the profile reads ${read.text}`,
        );
      },
    },
    {
      id: "merge-array-replaces-whole",
      says: "an array in a merge patch replaces the target's array whole, never merged by index (RFC 7396 section 1)",
      async check(send, fresh) {
        const made = await send("POST", "/profiles", { name: `t-${fresh()}`, tags: ["a", "b", "c"] });
        const id = idOf(made.json);
        await send("PATCH", `/profiles/${id}`, { tags: ["z"] }, merge);
        const read = await send("GET", `/profiles/${id}`);
        expectThat(
          sameJson((read.json as JsonObject)?.tags, ["z"]),
          `after {tags: ["z"]} the profile reads ${read.text}`,
        );
      },
    },
    {
      id: "merge-objects-recursively",
      says: "an object in a merge patch is merged into the target's object: null removes a member, others stay (RFC 7396 section 2)",
      async check(send, fresh) {
        const made = await send("POST", "/profiles", { name: `o-${fresh()}`, address: { city: "Oslo", zip: "0150" } });
        const id = idOf(made.json);
        await send("PATCH", `/profiles/${id}`, { address: { zip: null } }, merge);
        const read = await send("GET", `/profiles/${id}`);
        expectThat(
          sameJson((read.json as JsonObject)?.address, { city: "Oslo" }),
          `after {address: {zip: null}} the profile reads ${read.text}`,
        );
      },
    },
    {
      id: "json-patch-applies-in-order",
      says: "JSON Patch operations apply in order: add to the array's end (-), replace, remove (RFC 6902 sections 3, 4.1-4.3)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = await send("POST", "/notes", { title, body: "text", tags: ["a"] });
        const id = idOf(made.json);
        const ops = [
          { op: "add", path: "/tags/-", value: "b" },
          { op: "replace", path: "/title", value: `${title}-2` },
          { op: "remove", path: "/body" },
        ];
        const patch = await send("PATCH", `/notes/${id}`, ops, patchJson);
        expectThat(patch.status === 200, `PATCH answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/notes/${id}`);
        expectThat(
          sameJson(without(read.json, "id"), { title: `${title}-2`, tags: ["a", "b"] }),
          `after the patch the note reads ${read.text}`,
        );
      },
    },
    {
      id: "json-patch-test-passes-applies",
      says: "a test operation that holds lets the operations after it apply (RFC 6902 section 4.6)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = await send("POST", "/notes", { title });
        const id = idOf(made.json);
        const ops = [
          { op: "test", path: "/title", value: title },
          { op: "add", path: "/body", value: "added" },
        ];
        const patch = await send("PATCH", `/notes/${id}`, ops, patchJson);
        expectThat(patch.status === 200, `PATCH with a holding test answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/notes/${id}`);
        expectThat(sameJson(without(read.json, "id"), { title, body: "added" }), `after the patch: ${read.text}`);
      },
    },
    {
      id: "json-patch-failed-test-applies-nothing",
      says: "a failed test makes the whole patch fail: the documented 409 or 422, and no operation applied, not even those before it (RFC 6902 section 5; RFC 5789 sections 2, 2.2)",
      async check(send, fresh) {
        const title = `t-${fresh()}`;
        const made = await send("POST", "/notes", { title, tags: ["keep"] });
        const id = idOf(made.json);
        const ops = [
          { op: "replace", path: "/title", value: "changed" },
          { op: "add", path: "/tags/-", value: "added" },
          { op: "test", path: "/title", value: "not-the-title" },
        ];
        const patch = await send("PATCH", `/notes/${id}`, ops, patchJson);
        expectThat(patch.status === 409 || patch.status === 422, `a failing test answered ${patch.status}`);
        const read = await send("GET", `/notes/${id}`);
        expectThat(
          sameJson(without(read.json, "id"), { title, tags: ["keep"] }),
          `after the failed patch the note reads ${read.text}`,
        );
      },
    },
    {
      id: "patch-unknown-404",
      says: "a merge patch or a JSON patch of an item never created answers 404 (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const id = 900_000_000 + fresh();
        const a = await send("PATCH", `/profiles/${id}`, { name: "x" }, merge);
        const b = await send("PATCH", `/notes/${id}`, [{ op: "add", path: "/body", value: "x" }], patchJson);
        expectThat(a.status === 404 && b.status === 404, `merge patch answered ${a.status}, JSON patch ${b.status}`);
      },
    },
    {
      id: "other-patch-format-415",
      says: "a patch in a format the resource does not take answers 415 and changes nothing (RFC 5789 section 2.2)",
      async check(send, fresh) {
        const name = `f-${fresh()}`;
        const made = await send("POST", "/profiles", { name });
        const id = idOf(made.json);
        const ops = [{ op: "replace", path: "/name", value: "changed" }];
        const patch = await send("PATCH", `/profiles/${id}`, ops, patchJson);
        expectThat(patch.status === 415, `a JSON patch to a merge-patch resource answered ${patch.status}`);
        const read = await send("GET", `/profiles/${id}`);
        expectThat(sameJson((read.json as JsonObject)?.name, name), `after the 415 the profile reads ${read.text}`);
      },
    },
  ],
};
