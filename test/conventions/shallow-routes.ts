// Rails' shallow nesting: a config is created and listed under its product,
// `/products/{productId}/configs`, and then read, replaced, patched and deleted at its own shallow path,
// `/configs/{configId}`. Config ids are therefore global; a config lists only under its product; an
// unknown product is 404.
import { expectThat, type Convention } from "./convention.js";
import { authorised, router, sameJson, type Answer, type Client, type JsonObject } from "./kit.js";

const product = {
  type: "object",
  required: ["id", "name"],
  properties: { id: { type: "string", readOnly: true }, name: { type: "string" } },
};
const config = {
  type: "object",
  required: ["id", "productId", "key", "value"],
  properties: {
    id: { type: "string", readOnly: true, description: "global: the config's shallow path is /configs/{id}" },
    productId: { type: "string", readOnly: true },
    key: { type: "string" },
    value: { type: "string" },
    note: { type: "string" },
  },
};
const configPatch = {
  type: "object",
  properties: { key: { type: "string" }, value: { type: "string" }, note: { type: "string" } },
};
const error = { type: "object", required: ["error"], properties: { error: { type: "string" } } };
const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const fail = (description: string) => ({ description, ...json(error) });
const productParam = { name: "productId", in: "path", required: true, schema: { type: "string" } };
const configParam = { name: "configId", in: "path", required: true, schema: { type: "string" } };

const document = {
  openapi: "3.0.3",
  info: { title: "shallow routes: products and configs", version: "1" },
  components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  security: [{ bearer: [] }],
  paths: {
    "/products": {
      post: {
        operationId: "createProduct",
        requestBody: { required: true, ...json(product) },
        responses: { "201": { description: "created", ...json(product) }, "422": fail("invalid") },
      },
    },
    "/products/{productId}": {
      parameters: [productParam],
      get: {
        operationId: "showProduct",
        responses: { "200": { description: "the product", ...json(product) }, "404": fail("no such product") },
      },
    },
    "/products/{productId}/configs": {
      parameters: [productParam],
      post: {
        operationId: "createConfig",
        requestBody: { required: true, ...json(config) },
        responses: {
          "201": { description: "created under the product", ...json(config) },
          "404": fail("no such product: nothing is created"),
          "422": fail("invalid"),
        },
      },
      get: {
        operationId: "listConfigs",
        responses: {
          "200": { description: "the product's configs", ...json({ type: "array", items: config }) },
          "404": fail("no such product"),
        },
      },
    },
    "/configs/{configId}": {
      parameters: [configParam],
      get: {
        operationId: "showConfig",
        responses: { "200": { description: "the config", ...json(config) }, "404": fail("no such config") },
      },
      put: {
        operationId: "replaceConfig",
        requestBody: { required: true, ...json(config) },
        responses: {
          "200": { description: "replaced", ...json(config) },
          "404": fail("no such config"),
          "422": fail("invalid"),
        },
      },
      patch: {
        operationId: "updateConfig",
        requestBody: { required: true, ...json(configPatch) },
        responses: {
          "200": { description: "updated", ...json(config) },
          "404": fail("no such config"),
          "422": fail("invalid"),
        },
      },
      delete: {
        operationId: "destroyConfig",
        responses: { "204": { description: "deleted" }, "404": fail("no such config") },
      },
    },
  },
};

const FIELDS = ["key", "value", "note"] as const;

/** The reference: products and configs by global ids; a config remembers its product. */
function reference() {
  const products = new Map<string, JsonObject>();
  const configs = new Map<string, JsonObject>();
  let next = 0;
  const bad = (status: number, error: string): Answer => ({ status, body: { error } });
  const isObject = (b: unknown): b is JsonObject => typeof b === "object" && b !== null && !Array.isArray(b);
  /** The config's fields from a body: all of key and value when `whole`, else those sent; undefined if invalid. */
  const fields = (body: unknown, whole: boolean): JsonObject | undefined => {
    if (!isObject(body)) return undefined;
    const out: JsonObject = {};
    for (const f of FIELDS) {
      const v = body[f];
      if (v === undefined) continue;
      if (typeof v !== "string") return undefined;
      out[f] = v;
    }
    return whole && (out.key === undefined || out.value === undefined) ? undefined : out;
  };
  const handle = router({
    "POST /products": ({ body }) => {
      if (!isObject(body) || typeof body.name !== "string") return bad(422, "invalid product");
      const id = String(++next);
      products.set(id, { id, name: body.name });
      return { status: 201, body: products.get(id) };
    },
    "GET /products/{productId}": ({ params }) => {
      const p = products.get(params.productId!);
      return p === undefined ? bad(404, "no such product") : { status: 200, body: p };
    },
    "POST /products/{productId}/configs": ({ params, body }) => {
      const productId = params.productId!;
      if (!products.has(productId)) return bad(404, "no such product");
      const f = fields(body, true);
      if (f === undefined) return bad(422, "invalid config");
      const id = String(++next);
      configs.set(id, { id, productId, ...f });
      return { status: 201, body: configs.get(id) };
    },
    "GET /products/{productId}/configs": ({ params }) => {
      if (!products.has(params.productId!)) return bad(404, "no such product");
      return { status: 200, body: [...configs.values()].filter((c) => c.productId === params.productId) };
    },
    "GET /configs/{configId}": ({ params }) => {
      const c = configs.get(params.configId!);
      return c === undefined ? bad(404, "no such config") : { status: 200, body: c };
    },
    "PUT /configs/{configId}": ({ params, body }) => {
      const c = configs.get(params.configId!);
      if (c === undefined) return bad(404, "no such config");
      const f = fields(body, true);
      if (f === undefined) return bad(422, "invalid config");
      configs.set(c.id as string, { id: c.id!, productId: c.productId!, ...f });
      return { status: 200, body: configs.get(c.id as string) };
    },
    "PATCH /configs/{configId}": ({ params, body }) => {
      const c = configs.get(params.configId!);
      if (c === undefined) return bad(404, "no such config");
      const f = fields(body, false);
      if (f === undefined) return bad(422, "invalid config");
      Object.assign(c, f);
      return { status: 200, body: c };
    },
    "DELETE /configs/{configId}": ({ params }) =>
      configs.delete(params.configId!) ? { status: 204 } : bad(404, "no such config"),
  });
  return (request: Parameters<typeof handle>[0]) => authorised(request) ?? handle(request);
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : ({} as JsonObject);

/** Makes a product; its id. */
async function productMade(send: Client, name: string): Promise<string> {
  const made = await send("POST", "/products", { name });
  expectThat(made.status === 201, `POST /products answered ${made.status}: ${made.text}`);
  const id = obj(made.json).id;
  expectThat(typeof id === "string" && id !== "", `POST /products answered ${made.text}`);
  return id;
}

/** Makes a config under a product; its id. */
async function configMade(send: Client, productId: string, body: JsonObject): Promise<string> {
  const made = await send("POST", `/products/${productId}/configs`, body);
  expectThat(made.status === 201, `POST /products/${productId}/configs answered ${made.status}: ${made.text}`);
  const id = obj(made.json).id;
  expectThat(typeof id === "string" && id !== "", `the create answered ${made.text}`);
  return id;
}

/** The config ids a product's list holds. */
async function listed(send: Client, productId: string): Promise<unknown[]> {
  const list = await send("GET", `/products/${productId}/configs`);
  expectThat(list.status === 200 && Array.isArray(list.json), `GET /products/${productId}/configs: ${list.status}`);
  return (list.json as unknown[]).map((c) => obj(c).id);
}

export const shallowRoutes: Convention = {
  name: "shallow-routes",
  family: "Rails shallow nesting: collection under the parent, member at its own top-level path",
  sources: [
    "https://guides.rubyonrails.org/routing.html#shallow-nesting (index/new/create nested; show/edit/update/destroy shallow)",
    "https://guides.rubyonrails.org/routing.html#crud-verbs-and-actions (PATCH/PUT update, DELETE destroy)",
    "RFC 9110 sections 9.3.4 (PUT replaces), 9.3.5 (DELETE), 15.5.5 (404); RFC 5789 section 2 (PATCH)",
  ],
  document,
  reference,
  promises: [
    {
      id: "create-nested-read-shallow",
      says: "a config made under /products/{id}/configs answers 201 and is read at /configs/{id} (shallow nesting)",
      async check(send, fresh) {
        const p = await productMade(send, `Product ${fresh()}`);
        const value = `v${fresh()}`;
        const c = await configMade(send, p, { key: "colour", value });
        const read = await send("GET", `/configs/${c}`);
        expectThat(read.status === 200, `GET /configs/${c} answered ${read.status}`);
        const r = obj(read.json);
        expectThat(r.key === "colour" && r.value === value && r.productId === p, `read back ${read.text}`);
      },
    },
    {
      id: "ids-global",
      says: "config ids are global: configs under two products get different ids, each read at /configs/{id} as its own (shallow nesting)",
      async check(send, fresh) {
        const a = await productMade(send, `A ${fresh()}`);
        const b = await productMade(send, `B ${fresh()}`);
        const ca = await configMade(send, a, { key: "k", value: "of A" });
        const cb = await configMade(send, b, { key: "k", value: "of B" });
        expectThat(ca !== cb, `configs under two products got the same id ${ca}`);
        const ra = obj((await send("GET", `/configs/${ca}`)).json);
        const rb = obj((await send("GET", `/configs/${cb}`)).json);
        expectThat(ra.value === "of A" && ra.productId === a, `/configs/${ca} reads ${JSON.stringify(ra)}`);
        expectThat(rb.value === "of B" && rb.productId === b, `/configs/${cb} reads ${JSON.stringify(rb)}`);
      },
    },
    {
      id: "lists-only-under-own-product",
      says: "a product's list holds the configs made under it, once, and none of another product's (shallow nesting: index nested)",
      async check(send, fresh) {
        const a = await productMade(send, `A ${fresh()}`);
        const b = await productMade(send, `B ${fresh()}`);
        const ca = await configMade(send, a, { key: "k", value: "a" });
        const cb = await configMade(send, b, { key: "k", value: "b" });
        const la = await listed(send, a);
        const lb = await listed(send, b);
        expectThat(la.filter((id) => id === ca).length === 1 && !la.includes(cb), `A's list holds ${la.join(" ")}`);
        expectThat(lb.filter((id) => id === cb).length === 1 && !lb.includes(ca), `B's list holds ${lb.join(" ")}`);
      },
    },
    {
      id: "unknown-product-404",
      says: "create and list under a product that does not exist answer 404, and make no product (RFC 9110 15.5.5)",
      async check(send, fresh) {
        const p = `no-product-${fresh()}`;
        const made = await send("POST", `/products/${p}/configs`, { key: "k", value: "v" });
        expectThat(made.status === 404, `a create under an unknown product answered ${made.status}: ${made.text}`);
        const list = await send("GET", `/products/${p}/configs`);
        expectThat(list.status === 404, `the unknown product's list answered ${list.status}: ${list.text}`);
        const product = await send("GET", `/products/${p}`);
        expectThat(product.status === 404, `after them, GET /products/${p} answered ${product.status}`);
      },
    },
    {
      id: "patch-keeps-unsent",
      says: "PATCH /configs/{id} changes the fields it sends and keeps the others (RFC 5789 2; Rails update)",
      async check(send, fresh) {
        const p = await productMade(send, `Product ${fresh()}`);
        const c = await configMade(send, p, { key: "size", value: "S", note: "kept" });
        const patch = await send("PATCH", `/configs/${c}`, { value: "M" });
        expectThat(patch.status === 200, `PATCH answered ${patch.status}: ${patch.text}`);
        const read = await send("GET", `/configs/${c}`);
        expectThat(
          sameJson(read.json, { id: c, productId: p, key: "size", value: "M", note: "kept" }),
          `after the PATCH the config reads ${read.text}`,
        );
      },
    },
    {
      id: "put-replaces",
      says: "PUT /configs/{id} replaces the config: an optional field it does not send is gone, the product stays (RFC 9110 9.3.4)",
      async check(send, fresh) {
        const p = await productMade(send, `Product ${fresh()}`);
        const c = await configMade(send, p, { key: "size", value: "S", note: "dropped" });
        const put = await send("PUT", `/configs/${c}`, { key: "size", value: "L" });
        expectThat(put.status === 200, `PUT answered ${put.status}: ${put.text}`);
        const read = await send("GET", `/configs/${c}`);
        expectThat(
          sameJson(read.json, { id: c, productId: p, key: "size", value: "L" }),
          `after the PUT the config reads ${read.text}`,
        );
      },
    },
    {
      id: "delete-shallow",
      says: "DELETE /configs/{id} answers 204; then /configs/{id} is 404 and the product's list no longer holds it (RFC 9110 9.3.5)",
      async check(send, fresh) {
        const p = await productMade(send, `Product ${fresh()}`);
        const c = await configMade(send, p, { key: "k", value: "gone" });
        const keep = await configMade(send, p, { key: "k", value: "stays" });
        const del = await send("DELETE", `/configs/${c}`);
        expectThat(del.status === 204, `DELETE answered ${del.status}: ${del.text}`);
        const read = await send("GET", `/configs/${c}`);
        expectThat(read.status === 404, `GET after DELETE answered ${read.status}`);
        const ids = await listed(send, p);
        expectThat(!ids.includes(c) && ids.includes(keep), `after DELETE the product's list holds ${ids.join(" ")}`);
      },
    },
  ],
};
