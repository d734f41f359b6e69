import { describe, expect, it } from "vitest";
import { multiOpContract } from "../../../test/multi-op-server.js";
import { statefulContract } from "../../../test/stateful-server.js";
import { serverFilled, statefulTargets } from "./plan.js";
import { openApi } from "../../../test/openapi-doc.js";

describe("statefulTargets", () => {
  it("reads the stateful document's plants: every role, the tag filter, the limit, an id the client must send", async () => {
    const [plants, ...others] = statefulTargets(await statefulContract(), () => true);
    expect(others).toEqual([]);
    expect(plants!.caseId).toBe("generated-stateful-createPlant");
    expect(Object.entries(plants!.ops).map(([role, op]) => [role, op?.operationId])).toEqual([
      ["create", "createPlant"],
      ["read", "getPlant"],
      ["replace", "replacePlant"],
      ["patch", "patchPlant"],
      ["delete", "deletePlant"],
      ["list", "listPlants"],
    ]);
    expect([plants!.filter?.parameter.name, plants!.filter?.property]).toEqual(["tag", "tag"]);
    expect([plants!.limit?.parameter.name, plants!.limit?.value]).toEqual(["limit", 1]);
    expect(plants!.idSent).toBe(true);
    expect(plants!.itemAt(plants!.ops.read!)).toBe("");
    // The properties a replace sends and a read shows; createdAt and updatedAt are the server's (readOnly).
    expect([...plants!.compared(plants!.ops.replace!, plants!.ops.read!)!]).toEqual(["name", "tag", "height"]);
  });

  it("leaves out what the generator cannot call, and a resource no read or list shows", async () => {
    const contract = await multiOpContract();
    expect(statefulTargets(contract, (op) => op.operationId !== "createPlant")).toEqual([]);
    const [plants] = statefulTargets(contract, (op) => op.operationId !== "getPlant");
    expect(plants!.ops.read).toBeUndefined();
    expect(plants!.ops.list?.operationId).toBe("listPlants");
    // The multi-operation list filters by tags, an array of text.
    expect(plants!.filter?.parameter.name).toBe("tags");
  });
});

it("compares only the properties whose request and answer schemas set the same rules", async () => {
  const { compileContract } = await import("../../contract/index.js");
  const text = { type: "string" };
  const Out = {
    type: "object",
    required: ["id"],
    properties: { id: { type: "integer" }, name: text, login: { type: "string", format: "email" }, tag: text },
  };
  const In = { type: "object", required: ["name"], properties: { name: text, login: text, tag: { type: "integer" } } };
  const ok = (schema: unknown) => ({ description: "ok", content: { "application/json": { schema } } });
  const contract = compileContract(
    openApi(
      {
        "/users": {
          post: {
            operationId: "makeUser",
            requestBody: { required: true, content: { "application/json": { schema: In } } },
            responses: { "201": ok(Out) },
          },
        },
        "/users/{userId}": {
          parameters: [{ name: "userId", in: "path", required: true, schema: { type: "integer" } }],
          get: { operationId: "getUser", responses: { "200": ok(Out) } },
        },
      },
      { title: "users" },
    ),
    "users.yaml",
  );
  const [users] = statefulTargets(contract, () => true);
  // `login` is any text in and an email out, `tag` an integer in and text out: a server cannot echo every value.
  expect([...users!.compared(users!.ops.create, users!.ops.read!)!]).toEqual(["name"]);
});

it.each([
  ["created_at", true],
  ["updatedAt", true],
  ["last_modified", true],
  ["publishedAt", true],
  ["version", true],
  ["etag", true],
  ["name", false],
  ["format", false],
  ["status", false],
  ["birthday", false],
])("serverFilled(%s) is %s", (name, filled) => {
  expect(serverFilled(name)).toBe(filled);
});
