// The Kubernetes API's REST shape for a namespaced custom resource: the id is `metadata.name`, chosen by
// the client and unique within its namespace; POST answers 201 and an existing name 409 AlreadyExists;
// PUT replaces, guarded by an opaque `resourceVersion` that changes on every write; lists are
// `{items, metadata: {continue}}` read in chunks by `limit` and `continue`.
import { Broken, expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type JsonObject } from "./kit.js";

const DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const objectMeta = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string", maxLength: 253, pattern: DNS_SUBDOMAIN },
    namespace: { type: "string", readOnly: true },
    uid: { type: "string", readOnly: true },
    resourceVersion: { type: "string", description: "opaque; changes on every write; a stale one on PUT is 409" },
    creationTimestamp: { type: "string", format: "date-time", readOnly: true },
    labels: { type: "object", additionalProperties: { type: "string" } },
  },
};
const widget = {
  type: "object",
  required: ["metadata"],
  properties: {
    apiVersion: { type: "string", enum: ["example.io/v1"] },
    kind: { type: "string", enum: ["Widget"] },
    metadata: objectMeta,
    spec: {
      type: "object",
      properties: { size: { type: "integer", format: "int32" }, color: { type: "string" } },
    },
  },
};
const widgetList = {
  type: "object",
  required: ["items", "metadata"],
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string", enum: ["WidgetList"] },
    metadata: {
      type: "object",
      properties: {
        continue: { type: "string", description: "empty or absent on the last chunk" },
        resourceVersion: { type: "string" },
      },
    },
    items: { type: "array", items: widget },
  },
};
const status = {
  type: "object",
  required: ["kind", "status"],
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string", enum: ["Status"] },
    status: { type: "string", enum: ["Success", "Failure"] },
    message: { type: "string" },
    reason: { type: "string" },
    code: { type: "integer", format: "int32" },
    details: { type: "object", properties: { name: { type: "string" }, kind: { type: "string" } } },
  },
};
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const failure = (description: string) => ({ description, ...json(status) });
const namespaceParam = { name: "namespace", in: "path", required: true, schema: { type: "string" } };
const nameParam = { name: "name", in: "path", required: true, schema: { type: "string" } };
const BASE = "/apis/example.io/v1/namespaces";

const document = {
  openapi: "3.1.0",
  info: { title: "kubernetes-style widgets", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    [`${BASE}/{namespace}/widgets`]: {
      parameters: [namespaceParam],
      post: {
        operationId: "createNamespacedWidget",
        requestBody: { required: true, ...json(widget) },
        responses: {
          "201": { description: "Created", ...json(widget) },
          "400": failure("BadRequest"),
          "409": failure("AlreadyExists: the name is taken in this namespace"),
          "422": failure("Invalid"),
        },
      },
      get: {
        operationId: "listNamespacedWidget",
        parameters: [
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1 } },
          { name: "continue", in: "query", schema: { type: "string" } },
        ],
        responses: { "200": { description: "OK", ...json(widgetList) }, "400": failure("BadRequest") },
      },
    },
    [`${BASE}/{namespace}/widgets/{name}`]: {
      parameters: [namespaceParam, nameParam],
      get: {
        operationId: "readNamespacedWidget",
        responses: { "200": { description: "OK", ...json(widget) }, "404": failure("NotFound") },
      },
      put: {
        operationId: "replaceNamespacedWidget",
        requestBody: { required: true, ...json(widget) },
        responses: {
          "200": { description: "OK", ...json(widget) },
          "400": failure("BadRequest"),
          "404": failure("NotFound"),
          "409": failure("Conflict: a stale resourceVersion"),
          "422": failure("Invalid"),
        },
      },
      delete: {
        operationId: "deleteNamespacedWidget",
        responses: { "200": { description: "OK", ...json(status) }, "404": failure("NotFound") },
      },
    },
  },
};

/** The reference: widgets by `namespace/name`; one resourceVersion counter for all writes. */
function reference() {
  const widgets = new Map<string, JsonObject>();
  let version = 0;
  const isObject = (b: unknown): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  const fail = (code: number, reason: string, message: string): Answer => ({
    status: code,
    body: { apiVersion: "v1", kind: "Status", metadata: {}, status: "Failure", message, reason, code },
  });
  const valid = (b: unknown): string | undefined => {
    if (!isObject(b) || !isObject(b.metadata)) return "metadata is required";
    const { name, labels } = b.metadata;
    if (typeof name !== "string" || name.length > 253 || !new RegExp(DNS_SUBDOMAIN).test(name))
      return "metadata.name: Invalid value";
    if (labels !== undefined && (!isObject(labels) || Object.values(labels).some((v) => typeof v !== "string")))
      return "metadata.labels: Invalid value";
    if (b.spec !== undefined && !isObject(b.spec)) return "spec: Invalid value";
    return undefined;
  };
  const handle = router({
    [`POST ${BASE}/{namespace}/widgets`]: ({ params, body }) => {
      const why = valid(body);
      if (why !== undefined) return fail(422, "Invalid", why);
      const b = body as JsonObject;
      const meta = b.metadata as JsonObject;
      if (meta.namespace !== undefined && meta.namespace !== params.namespace)
        return fail(400, "BadRequest", "the namespace of the object does not match the request's");
      const key = `${params.namespace}/${String(meta.name)}`;
      if (widgets.has(key)) return fail(409, "AlreadyExists", `widgets "${String(meta.name)}" already exists`);
      const made: JsonObject = {
        apiVersion: "example.io/v1",
        kind: "Widget",
        metadata: {
          name: meta.name!,
          namespace: params.namespace!,
          uid: `uid-${++version}`,
          resourceVersion: String(version),
          creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
          ...(meta.labels === undefined ? {} : { labels: meta.labels }),
        },
        spec: b.spec ?? {},
      };
      widgets.set(key, made);
      return { status: 201, body: made };
    },
    [`GET ${BASE}/{namespace}/widgets`]: ({ params, query }) => {
      const limit = query.has("limit") ? Number(query.get("limit")) : Infinity;
      if (limit !== Infinity && (!Number.isInteger(limit) || limit < 1)) return fail(400, "BadRequest", "limit");
      const token = query.get("continue") ?? "";
      let after = "";
      if (token !== "") {
        const decoded = Buffer.from(token, "base64url").toString();
        if (!decoded.startsWith("after:")) return fail(400, "BadRequest", "continue: invalid token");
        after = decoded.slice("after:".length);
      }
      const prefix = `${params.namespace}/`;
      const all = [...widgets.entries()]
        .filter(([k]) => k.startsWith(prefix) && k.slice(prefix.length) > after)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([, w]) => w);
      const items = all.slice(0, limit);
      const last = items.at(-1);
      const more = all.length > items.length && last !== undefined;
      const cont = more ? Buffer.from(`after:${String((last.metadata as JsonObject).name)}`).toString("base64url") : "";
      return {
        status: 200,
        body: {
          apiVersion: "example.io/v1",
          kind: "WidgetList",
          metadata: { resourceVersion: String(version), ...(cont === "" ? {} : { continue: cont }) },
          items,
        },
      };
    },
    [`GET ${BASE}/{namespace}/widgets/{name}`]: ({ params }) => {
      const found = widgets.get(`${params.namespace}/${params.name}`);
      return found === undefined
        ? fail(404, "NotFound", `widgets "${params.name}" not found`)
        : { status: 200, body: found };
    },
    [`PUT ${BASE}/{namespace}/widgets/{name}`]: ({ params, body }) => {
      const key = `${params.namespace}/${params.name}`;
      const found = widgets.get(key);
      if (found === undefined) return fail(404, "NotFound", `widgets "${params.name}" not found`);
      const why = valid(body);
      if (why !== undefined) return fail(422, "Invalid", why);
      const b = body as JsonObject;
      const meta = b.metadata as JsonObject;
      if (meta.name !== params.name) return fail(400, "BadRequest", "the name of the object does not match the URL");
      const old = found.metadata as JsonObject;
      if (meta.resourceVersion !== undefined && meta.resourceVersion !== old.resourceVersion)
        return fail(409, "Conflict", "the object has been modified; apply your changes to the latest version");
      const next: JsonObject = {
        apiVersion: "example.io/v1",
        kind: "Widget",
        metadata: {
          name: old.name!,
          namespace: old.namespace!,
          uid: old.uid!,
          resourceVersion: String(++version),
          creationTimestamp: old.creationTimestamp!,
          ...(meta.labels === undefined ? {} : { labels: meta.labels }),
        },
        spec: b.spec ?? {},
      };
      widgets.set(key, next);
      return { status: 200, body: next };
    },
    [`DELETE ${BASE}/{namespace}/widgets/{name}`]: ({ params }) => {
      if (!widgets.delete(`${params.namespace}/${params.name}`))
        return fail(404, "NotFound", `widgets "${params.name}" not found`);
      version++;
      return {
        status: 200,
        body: { apiVersion: "v1", kind: "Status", status: "Success", details: { name: params.name!, kind: "widgets" } },
      };
    },
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : ({} as JsonObject);
const widgetOf = (name: string, spec: JsonObject, resourceVersion?: string): JsonObject => ({
  apiVersion: "example.io/v1",
  kind: "Widget",
  metadata: { name, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
  spec,
});
const rvOf = (w: unknown): unknown => obj(obj(w).metadata).resourceVersion;

/** Reads a namespace's widgets in chunks of `limit` by `continue` until it is empty; the widgets seen. */
async function walk(send: Client, namespace: string, limit: number): Promise<JsonObject[]> {
  const seen: JsonObject[] = [];
  let token = "";
  for (let chunks = 0; chunks < 200; chunks++) {
    const query = `limit=${limit}${token === "" ? "" : `&continue=${encodeURIComponent(token)}`}`;
    const page = await send("GET", `${BASE}/${namespace}/widgets?${query}`);
    expectThat(page.status === 200, `list ?${query} answered ${page.status}: ${page.text}`);
    const items = obj(page.json).items;
    expectThat(Array.isArray(items), `the list has no items array: ${page.text}`);
    expectThat(items.length <= limit, `limit=${limit} answered ${items.length} items`);
    seen.push(...items.map(obj));
    const next = obj(obj(page.json).metadata).continue;
    if (next === undefined || next === "") return seen;
    expectThat(typeof next === "string", `metadata.continue is ${JSON.stringify(next)}`);
    token = next;
  }
  throw new Broken("200 chunks and metadata.continue still not empty");
}

export const kubernetes: Convention = {
  name: "kubernetes",
  family: "Kubernetes API: metadata.name chosen by the client, 409 AlreadyExists, resourceVersion, continue chunks",
  sources: [
    "https://kubernetes.io/docs/reference/using-api/api-concepts/ (Standard API terminology; Retrieving large results sets in chunks)",
    "https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md " +
      "(Metadata: name unique in its namespace; Concurrency Control and Consistency; HTTP Status codes: 201, 409)",
    "RFC 9110 sections 9.3.4 (PUT replaces), 9.3.5 (DELETE), 15.5.5 (404)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-201-read-by-name",
      says: "POST of a new name answers 201 with that metadata.name; GET by the name returns its spec (api-conventions, 201 Created)",
      async check(send, fresh) {
        const ns = `ns-${fresh()}`;
        const name = `w-${fresh()}`;
        const made = await send("POST", `${BASE}/${ns}/widgets`, widgetOf(name, { size: 3, color: "red" }));
        expectThat(made.status === 201, `create answered ${made.status}: ${made.text}`);
        expectThat(obj(obj(made.json).metadata).name === name, `create answered ${made.text}`);
        const read = await send("GET", `${BASE}/${ns}/widgets/${name}`);
        expectThat(read.status === 200, `GET by name answered ${read.status}`);
        expectThat(sameJson(obj(read.json).spec, { size: 3, color: "red" }), `read back ${read.text}`);
      },
    },
    {
      id: "existing-name-409",
      says: "POST of a name that exists in the namespace answers 409 (AlreadyExists) and leaves the stored object (api-conventions)",
      async check(send, fresh) {
        const ns = `ns-${fresh()}`;
        const name = `w-${fresh()}`;
        await send("POST", `${BASE}/${ns}/widgets`, widgetOf(name, { size: 1 }));
        const again = await send("POST", `${BASE}/${ns}/widgets`, widgetOf(name, { size: 9 }));
        expectThat(again.status === 409, `the repeated create answered ${again.status}`);
        const read = await send("GET", `${BASE}/${ns}/widgets/${name}`);
        expectThat(sameJson(obj(read.json).spec, { size: 1 }), `after the 409 the widget reads ${read.text}`);
      },
    },
    {
      id: "name-unique-per-namespace",
      says: "a name is unique within its namespace only: the same name in another namespace is a different object (api-conventions, Metadata)",
      async check(send, fresh) {
        const [a, b] = [`ns-${fresh()}`, `ns-${fresh()}`];
        const name = `w-${fresh()}`;
        const one = await send("POST", `${BASE}/${a}/widgets`, widgetOf(name, { size: 1 }));
        const two = await send("POST", `${BASE}/${b}/widgets`, widgetOf(name, { size: 2 }));
        expectThat(one.status === 201 && two.status === 201, `creates answered ${one.status}, ${two.status}`);
        const ra = await send("GET", `${BASE}/${a}/widgets/${name}`);
        const rb = await send("GET", `${BASE}/${b}/widgets/${name}`);
        expectThat(sameJson(obj(ra.json).spec, { size: 1 }), `in ${a} the widget reads ${ra.text}`);
        expectThat(sameJson(obj(rb.json).spec, { size: 2 }), `in ${b} the widget reads ${rb.text}`);
      },
    },
    {
      id: "put-replaces",
      says: "PUT replaces the object: a spec field it does not send is gone (RFC 9110 9.3.4; api-concepts, update)",
      async check(send, fresh) {
        const ns = `ns-${fresh()}`;
        const name = `w-${fresh()}`;
        await send("POST", `${BASE}/${ns}/widgets`, widgetOf(name, { size: 1, color: "red" }));
        const put = await send("PUT", `${BASE}/${ns}/widgets/${name}`, widgetOf(name, { size: 2 }));
        expectThat(put.status === 200, `PUT answered ${put.status}: ${put.text}`);
        const read = await send("GET", `${BASE}/${ns}/widgets/${name}`);
        expectThat(sameJson(obj(read.json).spec, { size: 2 }), `after the PUT the widget reads ${read.text}`);
      },
    },
    {
      id: "resource-version-guards-put",
      says:
        "resourceVersion changes on every write; a PUT carrying a stale resourceVersion answers 409 Conflict and " +
        "changes nothing (api-conventions, Concurrency Control and Consistency)",
      async check(send, fresh) {
        const ns = `ns-${fresh()}`;
        const name = `w-${fresh()}`;
        const made = await send("POST", `${BASE}/${ns}/widgets`, widgetOf(name, { size: 1 }));
        const rv1 = rvOf(made.json);
        expectThat(typeof rv1 === "string" && rv1 !== "", `create answered resourceVersion ${JSON.stringify(rv1)}`);
        const put = await send("PUT", `${BASE}/${ns}/widgets/${name}`, widgetOf(name, { size: 2 }, rv1));
        expectThat(put.status === 200, `PUT with the current resourceVersion answered ${put.status}: ${put.text}`);
        const rv2 = rvOf(put.json);
        expectThat(typeof rv2 === "string" && rv2 !== rv1, `after the write resourceVersion is ${JSON.stringify(rv2)}`);
        const stale = await send("PUT", `${BASE}/${ns}/widgets/${name}`, widgetOf(name, { size: 3 }, rv1));
        expectThat(stale.status === 409, `PUT with a stale resourceVersion answered ${stale.status}`);
        const read = await send("GET", `${BASE}/${ns}/widgets/${name}`);
        expectThat(sameJson(obj(read.json).spec, { size: 2 }), `after the 409 the widget reads ${read.text}`);
      },
    },
    {
      id: "delete-then-404",
      says: "DELETE answers 200; then GET by the name is 404 and the namespace's list no longer holds it (RFC 9110 9.3.5)",
      async check(send, fresh) {
        const ns = `ns-${fresh()}`;
        const name = `w-${fresh()}`;
        await send("POST", `${BASE}/${ns}/widgets`, widgetOf(name, { size: 1 }));
        const del = await send("DELETE", `${BASE}/${ns}/widgets/${name}`);
        expectThat(del.status === 200 || del.status === 202, `DELETE answered ${del.status}: ${del.text}`);
        const read = await send("GET", `${BASE}/${ns}/widgets/${name}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const list = await send("GET", `${BASE}/${ns}/widgets`);
        const items = obj(list.json).items;
        expectThat(
          list.status === 200 && Array.isArray(items) && !items.some((w) => obj(obj(w).metadata).name === name),
          `after DELETE the list answers ${list.status}: ${list.text}`,
        );
      },
    },
    {
      id: "continue-walk-once",
      says:
        "a list by limit and continue returns at most limit items a chunk, continue empty only on the last chunk, " +
        "and the walk visits every object once with its current spec (api-concepts, chunks)",
      async check(send, fresh) {
        const ns = `ns-${fresh()}`;
        const names = [1, 2, 3, 4, 5].map((k) => `w-${k}-${fresh()}`);
        for (const name of names) {
          const made = await send("POST", `${BASE}/${ns}/widgets`, widgetOf(name, { size: 1 }));
          expectThat(made.status === 201, `create answered ${made.status}`);
        }
        await send("PUT", `${BASE}/${ns}/widgets/${names[3]}`, widgetOf(names[3]!, { size: 4 }));
        const seen = await walk(send, ns, 2);
        const got = seen.map((w) => String(obj(w.metadata).name));
        expectThat(sameJson([...got].sort(), [...names].sort()), `the walk of ${ns} saw ${got.join(" ")}`);
        const fourth = seen.find((w) => obj(w.metadata).name === names[3]);
        expectThat(sameJson(obj(fourth).spec, { size: 4 }), `the walk saw ${JSON.stringify(fourth)}`);
      },
    },
  ],
};
