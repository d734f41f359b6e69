import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KIT_ROOT } from "../paths.js";
import { compileContract, type Contract } from "./contract.js";
import { loadContract } from "./load-contract.js";
import { producerFor, resourceModel, type Resource } from "./resources.js";

const ok = (description = "ok", schema?: unknown, extra: Record<string, unknown> = {}) => ({
  description,
  ...(schema === undefined ? {} : { content: { "application/json": { schema } } }),
  ...extra,
});
const body = (schema: unknown) => ({ required: true, content: { "application/json": { schema } } });
const pathParam = (name: string) => ({ name, in: "path", required: true, schema: { type: "string" } });
const query = (name: string, type = "string") => ({ name, in: "query", schema: { type } });
const doc = (paths: Record<string, unknown>, components: Record<string, unknown> = {}) =>
  compileContract({ openapi: "3.1.0", info: { title: "resources", version: "1" }, paths, components }, "inline.yaml");

/** A resource as a table row: its paths, its operations by role, its id and its list. */
const row = (r: Resource) => ({
  name: r.name,
  collection: r.collectionPath,
  item: r.itemPath,
  parents: r.parentParameters,
  roles: Object.fromEntries(Object.entries(r.operations).map(([role, op]) => [role, op.operationId])),
  id:
    r.id === undefined
      ? undefined
      : `${r.id.in}:${r.id.at === "" ? "" : `${r.id.at}/`}${r.id.name}${r.id.guessed ? " (guessed)" : ""}`,
  list:
    r.list === undefined
      ? undefined
      : { at: r.list.itemsAt, paging: r.list.paging, filters: Object.fromEntries(r.list.filters) },
});
const rows = (c: Contract) => resourceModel(c).resources.map(row);

describe("who chooses an item's id", () => {
  const plant = (id: Record<string, unknown>, required: string[]) => ({
    type: "object",
    required,
    properties: { id, name: { type: "string" } },
  });
  const echoed = { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } };
  it.each([
    ["the client: the request requires the id", plant({ type: "integer" }, ["id", "name"]), "client"],
    ["the client when it sends one: the id is optional", plant({ type: "integer" }, ["name"]), "either"],
    ["the server: the request's id is readOnly", plant({ type: "integer", readOnly: true }, ["name"]), "server"],
    ["the server: the request has no id", { type: "object", properties: { name: { type: "string" } } }, "server"],
  ])("%s", (_why, request, chosenBy) => {
    const c = doc({
      "/plants": {
        post: { operationId: "create", requestBody: body(request), responses: { "201": ok("made", echoed) } },
      },
      "/plants/{id}": {
        get: { operationId: "read", parameters: [pathParam("id")], responses: { "200": ok("it", echoed) } },
      },
    });
    expect(resourceModel(c).resources[0]!.id).toMatchObject({ name: "id", chosenBy });
  });
});

describe("the resource model of the multi-operation Plant Store", () => {
  it("finds plants: a create, a paged and filtered list, a read, a replace and a delete, the id chosen by the client", async () => {
    const c = await loadContract(join(KIT_ROOT, "test", "data", "multi-op", "plant-store-multi.yaml"));
    expect(rows(c)).toEqual([
      {
        name: "plants",
        collection: "/plants",
        item: "/plants/{id}",
        parents: [],
        roles: {
          create: "createPlant",
          list: "listPlants",
          read: "getPlant",
          replace: "updatePlant",
          delete: "deletePlant",
        },
        id: "request:id",
        list: { at: "", paging: { limit: "limit" }, filters: { tags: "tag" } },
      },
    ]);
    const model = resourceModel(c);
    for (const op of c.operations) expect(model.roleOf(op), op.operationId).toBeDefined();
    expect(producerFor(c, c.operation("getPlant")!)).toMatchObject({
      operation: { operationId: "createPlant" },
      expression: "$request.body#/id",
    });
  });
});

describe("resources of other shapes", () => {
  const Garden = {
    type: "object",
    properties: { gardenId: { type: "integer", readOnly: true }, name: { type: "string" } },
  };
  const Plant = {
    type: "object",
    required: ["id"],
    properties: { id: { type: "string", readOnly: true }, name: { type: "string" }, color: { type: "string" } },
  };
  const nested = doc(
    {
      "/gardens": {
        post: { operationId: "makeGarden", requestBody: body(Garden), responses: { "201": ok("made", Garden) } },
      },
      "/gardens/{gardenId}": {
        parameters: [pathParam("gardenId")],
        get: { operationId: "getGarden", responses: { "200": ok("one", Garden) } },
        post: { operationId: "waterGarden", responses: { "204": ok() } },
      },
      "/gardens/{gardenId}/plants": {
        parameters: [pathParam("gardenId")],
        post: {
          operationId: "plantIn",
          requestBody: body(Plant),
          responses: { "201": ok("planted", Plant, { headers: { Location: { schema: { type: "string" } } } }) },
        },
        get: {
          operationId: "plantsIn",
          parameters: [query("page_size", "integer"), query("pageToken"), query("colors"), query("q")],
          responses: {
            "200": ok("page", {
              type: "object",
              properties: {
                next: { type: "string" },
                plants: { type: "array", items: { $ref: "#/components/schemas/P" } },
              },
            }),
          },
        },
      },
      "/gardens/{gardenId}/plants/{plantId}": {
        parameters: [pathParam("gardenId"), pathParam("plantId")],
        get: { operationId: "plantOf", responses: { "200": ok("one", Plant) } },
        patch: { operationId: "tendPlant", requestBody: body(Plant), responses: { "200": ok("one", Plant) } },
      },
      "/gardens/mine": { get: { operationId: "myGardens", responses: { "200": ok("mine", { type: "array" }) } } },
      "/status": { get: { operationId: "status", responses: { "200": ok() } } },
    },
    { schemas: { P: Plant } },
  );

  it("nested collections with their parents' ids, an envelope list, paging by cursor, ids by name and by guess", () => {
    expect(rows(nested)).toEqual([
      {
        name: "gardens",
        collection: "/gardens",
        item: "/gardens/{gardenId}",
        parents: [],
        roles: { create: "makeGarden", read: "getGarden" },
        id: "response:gardenId",
        list: undefined,
      },
      {
        name: "plants",
        collection: "/gardens/{gardenId}/plants",
        item: "/gardens/{gardenId}/plants/{plantId}",
        parents: ["gardenId"],
        roles: { create: "plantIn", list: "plantsIn", read: "plantOf", patch: "tendPlant" },
        id: "response:id (guessed)",
        list: { at: "/plants", paging: { limit: "page_size", cursor: "pageToken" }, filters: { colors: "color" } },
      },
    ]);
    const plants = resourceModel(nested).resources[1]!;
    expect(plants.location).toBe(true);
    expect(plants.notes).toEqual(["the id of plants is guessed: property id (id, the end of the parameter {plantId})"]);
  });

  it("says why an operation is outside the model", () => {
    const why = (id: string) => resourceModel(nested).whyOutside(nested.operation(id)!);
    expect(why("waterGarden")).toBe("POST on an item is an action, not a read, replace, patch or delete");
    expect(why("myGardens")).toBe(
      "its path is neither a collection nor an item of one (an action, or a single document)",
    );
    expect(why("status")).toBe("its path is neither a collection nor an item of one (an action, or a single document)");
    expect(why("plantOf")).toBeUndefined();
  });

  it("a collection no operation creates is outside, with the reason", () => {
    const c = doc({
      "/cron": { get: { operationId: "crons", responses: { "200": ok("all", { type: "array", items: {} }) } } },
      "/cron/{task}": { parameters: [pathParam("task")], post: { operationId: "runCron", responses: { "204": ok() } } },
    });
    expect(rows(c)).toEqual([]);
    expect(resourceModel(c).whyOutside(c.operation("crons")!)).toBe(
      "no operation creates cron (no POST on /cron, no PUT that answers 201)",
    );
  });

  it("an id one object down, named as the parameter, where request and answer hold it (Kubernetes' metadata.name)", () => {
    const widget = {
      type: "object",
      required: ["metadata"],
      properties: {
        metadata: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
        spec: { type: "object" },
      },
    };
    const c = doc({
      "/ns/{namespace}/widgets": {
        parameters: [pathParam("namespace")],
        post: { operationId: "make", requestBody: body(widget), responses: { "201": ok("made", widget) } },
      },
      "/ns/{namespace}/widgets/{name}": {
        parameters: [pathParam("namespace"), pathParam("name")],
        get: { operationId: "read", responses: { "200": ok("it", widget) } },
      },
    });
    expect(resourceModel(c).resources[0]!.id).toMatchObject({ name: "name", within: "/metadata", chosenBy: "client" });
    expect(rows(c)[0]!.roles).toEqual({ create: "make", read: "read" });
  });

  it("a resource name (AIP-122): `name` is the item's path without its version, `shelfId` the client's id", () => {
    const shelf = {
      type: "object",
      properties: { name: { type: "string", readOnly: true }, theme: { type: "string" } },
    };
    const shelves = (create: Record<string, unknown>) =>
      doc({
        "/v1/shelves": {
          post: { operationId: "make", requestBody: body(shelf), responses: { "200": ok("it", shelf) }, ...create },
        },
        "/v1/shelves/{shelf}": {
          parameters: [pathParam("shelf")],
          get: { operationId: "read", responses: { "200": ok("it", shelf) } },
        },
      });
    expect(resourceModel(shelves({ parameters: [query("shelfId")] })).resources[0]!.id).toMatchObject({
      name: "name",
      template: "shelves/{shelf}",
      query: "shelfId",
      chosenBy: "either",
    });
    expect(resourceModel(shelves({})).resources[0]!.id).toMatchObject({
      template: "shelves/{shelf}",
      chosenBy: "server",
    });
  });

  it("a POST of an object to the item, where nothing PATCHes it, is the item's update (Stripe)", () => {
    const customer = {
      type: "object",
      properties: { id: { type: "string", readOnly: true }, name: { type: "string" } },
    };
    const c = doc({
      "/customers": {
        post: { operationId: "make", requestBody: body(customer), responses: { "200": ok("made", customer) } },
      },
      "/customers/{customer}": {
        parameters: [pathParam("customer")],
        get: { operationId: "read", responses: { "200": ok("it", customer) } },
        post: { operationId: "update", requestBody: body(customer), responses: { "200": ok("it", customer) } },
      },
    });
    expect(rows(c)[0]!.roles).toEqual({ create: "make", read: "read", patch: "update" });
    expect(resourceModel(c).resources[0]!.notes).toContain(
      "update, a POST to the item, is its update (nothing PATCHes it)",
    );
  });

  it("a PUT that answers 201 where no POST creates is an upsert: the resource's create and replace", () => {
    const setting = { type: "object", required: ["key"], properties: { key: { type: "string" }, value: {} } };
    const put = { operationId: "put", requestBody: body(setting), responses: { "200": ok("replaced", setting) } };
    const item = (responses: Record<string, unknown>) => ({
      "/settings": { get: { operationId: "list", responses: { "200": ok("all", { type: "array", items: setting }) } } },
      "/settings/{key}": { parameters: [pathParam("key")], put: { ...put, responses } },
    });
    const upsert = resourceModel(doc(item({ "200": ok("replaced", setting), "201": ok("made", setting) })));
    expect(upsert.resources.map((r) => [r.name, r.upsert, r.id?.name, r.id?.chosenBy])).toEqual([
      ["settings", true, "key", "client"],
    ]);
    expect(upsert.resources[0]!.notes).toContain("put creates settings it does not find (it documents 201): an upsert");
    // Without a documented 201 the PUT only replaces: nothing creates, so the resource is outside.
    expect(resourceModel(doc(item({ "200": ok("replaced", setting) }))).resources).toEqual([]);
  });

  it("the Plant Store: a path that takes only a POST of an object, named as a plural, is a collection; the client's id is its key", async () => {
    const c = await loadContract(join(KIT_ROOT, "spec", "openapi.yaml"));
    expect(rows(c)).toEqual([
      {
        name: "plants",
        collection: "/plants",
        item: undefined,
        parents: [],
        roles: { create: "createPlant" },
        id: "request:id (guessed)",
        list: undefined,
      },
    ]);
    expect(resourceModel(c).resources[0]!.notes).toEqual([
      "/plants is guessed to be a collection: it takes only a POST and its name is a plural",
      "the id of plants is guessed: property id (id, an id-like property)",
    ]);
  });

  it("a POST-only path is no collection when its name is no plural, its body no object, or it has other methods", () => {
    const post = (operationId: string, schema: unknown = Plant) => ({
      post: { operationId, requestBody: body(schema), responses: { "200": ok("done", Plant) } },
    });
    const c = doc({
      "/search": post("search"),
      "/status": post("status"),
      "/analysis": post("analyse"),
      "/messages": post("send", { type: "string" }),
      "/jobs": { ...post("runJob"), put: { operationId: "putJobs", responses: { "204": ok() } } },
      "/tasks": { post: { ...post("addTask").post, "x-plantstore-role": "none" } },
      "/boxes": post("addBox"),
      "/cron": { post: { ...post("schedule").post, "x-plantstore-role": "create" } },
    });
    expect(rows(c).map((r) => [r.collection, r.roles])).toEqual([
      ["/boxes", { create: "addBox" }],
      ["/cron", { create: "schedule" }],
    ]);
    expect(resourceModel(c).resources.find((r) => r.name === "cron")!.notes[0]).toBe(
      "schedule is its create, as x-plantstore-role says",
    );
    expect(resourceModel(c).whyOutside(c.operation("addTask")!)).toBe("x-plantstore-role: none");
  });

  it("a list whose answer holds no array is outside; the create and read stay", () => {
    const c = doc({
      "/notes": {
        get: {
          operationId: "count",
          responses: { "200": ok("n", { type: "object", properties: { n: { type: "integer" } } }) },
        },
        post: { operationId: "addNote", requestBody: body(Plant), responses: { "201": ok("made", Plant) } },
      },
    });
    // No item path names one note: the answer's `id` is the id, guessed.
    expect(rows(c)[0]).toMatchObject({ roles: { create: "addNote" }, item: undefined, id: "response:id (guessed)" });
    expect(resourceModel(c).whyOutside(c.operation("count")!)).toBe("its success answer holds no array of items");
  });

  it("an OpenAPI link says which property is the id, over the parameter's name", () => {
    const Thing = { type: "object", properties: { uuid: { type: "string" }, thingId: { type: "string" } } };
    const c = doc({
      "/things": {
        post: {
          operationId: "makeThing",
          requestBody: body(Thing),
          responses: {
            "201": ok("made", Thing, {
              links: { read: { operationId: "getThing", parameters: { thingId: "$response.body#/uuid" } } },
            }),
          },
        },
      },
      "/things/{thingId}": {
        parameters: [pathParam("thingId")],
        get: { operationId: "getThing", responses: { "200": ok("one", Thing) } },
      },
    });
    expect(rows(c)[0]!.id).toBe("response:uuid");
    expect(producerFor(c, c.operation("getThing")!)).toMatchObject({ expression: "$response.body#/uuid" });
  });

  it("an envelope's item holds the id (Telnyx's `{data: {...}}`), and bracketed paging parameters are read", () => {
    const Item = { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } };
    const one = { type: "object", properties: { data: Item } };
    const c = doc({
      "/numbers": {
        post: { operationId: "order", requestBody: body(Item), responses: { "200": ok("made", one) } },
        get: {
          operationId: "orders",
          parameters: [query("page[number]", "integer"), query("page[size]", "integer")],
          responses: {
            "200": ok("page", { type: "object", properties: { data: { type: "array", items: Item }, meta: {} } }),
          },
        },
      },
      "/numbers/{number_id}": {
        parameters: [pathParam("number_id")],
        get: { operationId: "numberOf", responses: { "200": ok("one", one) } },
      },
    });
    expect(rows(c)[0]).toMatchObject({
      id: "response:/data/id (guessed)",
      list: { at: "/data", paging: { page: "page[number]", limit: "page[size]" } },
    });
    expect(producerFor(c, c.operation("numberOf")!)).toMatchObject({ expression: "$response.body#/data/id" });
  });

  it("paths with a format suffix pair up as collection and item (Twilio's `/Accounts.json`, `/Accounts/{Sid}.json`)", () => {
    const Account = { type: "object", properties: { sid: { type: "string" }, friendly_name: { type: "string" } } };
    const c = doc({
      "/Accounts.json": {
        post: { operationId: "CreateAccount", requestBody: body(Account), responses: { "201": ok("made", Account) } },
        get: {
          operationId: "ListAccount",
          parameters: [query("PageSize", "integer")],
          responses: {
            "200": ok("page", { type: "object", properties: { accounts: { type: "array", items: Account } } }),
          },
        },
      },
      "/Accounts/{Sid}.json": {
        parameters: [pathParam("Sid")],
        get: { operationId: "FetchAccount", responses: { "200": ok("one", Account) } },
      },
    });
    expect(rows(c)[0]).toMatchObject({
      collection: "/Accounts.json",
      item: "/Accounts/{Sid}.json",
      roles: { create: "CreateAccount", list: "ListAccount", read: "FetchAccount" },
      id: "response:sid (guessed)",
      list: { at: "/accounts", paging: { limit: "PageSize" } },
    });
    expect(producerFor(c, c.operation("FetchAccount")!)).toMatchObject({ expression: "$response.body#/sid" });
  });

  it("x-plantstore-role and x-plantstore-id correct a guess, and `none` keeps an operation out", () => {
    const Doc = { type: "object", properties: { key: { type: "string" }, id: { type: "string" } } };
    const c = doc({
      "/docs": {
        post: {
          operationId: "search",
          "x-plantstore-role": "none",
          responses: { "200": ok("found", { type: "array" }) },
        },
        put: {
          operationId: "upload",
          "x-plantstore-role": "create",
          "x-plantstore-id": "key",
          requestBody: body(Doc),
          responses: { "200": ok("up", Doc) },
        },
      },
      "/docs/{docId}": {
        parameters: [pathParam("docId")],
        get: { operationId: "getDoc", responses: { "200": ok("one", Doc) } },
      },
    });
    expect(rows(c)[0]).toMatchObject({ roles: { create: "upload", read: "getDoc" }, id: "response:key" });
    expect(resourceModel(c).resources[0]!.notes).toEqual(["upload is its create, as x-plantstore-role says"]);
    expect(resourceModel(c).whyOutside(c.operation("search")!)).toBe("x-plantstore-role: none");
  });
});
