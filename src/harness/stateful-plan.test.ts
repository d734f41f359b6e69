import { describe, expect, it } from "vitest";
import { multiOpContract } from "../../test/multi-op-server.js";
import { statefulContract } from "../../test/stateful-server.js";
import { serverFilled, statefulTargets } from "./stateful-plan.js";

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
