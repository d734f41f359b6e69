import { describe, expect, it } from "vitest";
import { checkRequest, checkResponseHeaders } from "./acceptability.js";
import { loadContract } from "./load-contract.js";

const contract = await loadContract(
  new URL("../../test/data/multi-op/plant-store-multi.yaml", import.meta.url).pathname,
);
const op = (id: string) => contract.operation(id)!;
const uuid = "3f1c8f4e-2b7a-4d2e-9c1a-5e6f7a8b9c0d";

describe("checkRequest judges parameters when the path or query is given", () => {
  it.each([
    ["an int64 id beyond 2^53", "getPlant", "/plants/9007199254740993", "", {}, true],
    ["the largest int64", "getPlant", "/plants/9223372036854775807", "", {}, true],
    ["an id past int64", "getPlant", "/plants/9223372036854775808", "", {}, 'path parameter "id"'],
    ["an id that is not an integer", "getPlant", "/plants/abc", "", {}, "id"],
    ["a cookie from the enum", "getPlant", "/plants/1", "", { cookie: "units=metric; other=1" }, true],
    ["a cookie outside the enum", "getPlant", "/plants/1", "", { cookie: "units=kelvin" }, 'cookie parameter "units"'],
    ["limit and exploded tags", "listPlants", "/plants", "limit=5&tags=fern&tags=palm", {}, true],
    ["limit below its minimum", "listPlants", "/plants", "limit=0", {}, 'query parameter "limit"'],
    ["limit not a number", "listPlants", "/plants", "limit=ten", {}, "limit"],
    ["limit given twice", "listPlants", "/plants", "limit=1&limit=2", {}, "limit"],
    [
      "a delete without its required header",
      "deletePlant",
      "/plants/1",
      "",
      {},
      'header parameter "X-Request-Id" is required',
    ],
    [
      "a delete with a request id that is not a uuid",
      "deletePlant",
      "/plants/1",
      "",
      { "x-request-id": "nope" },
      "X-Request-Id",
    ],
    ["a delete with a uuid", "deletePlant", "/plants/1", "", { "x-request-id": uuid }, true],
  ])("%s", (_name, id, path, query, headers, expected) => {
    const checked = checkRequest(op(id), { headers, path, query });
    if (expected === true) expect(checked).toMatchObject({ ok: true });
    else {
      expect(checked).toMatchObject({ ok: false, reason: "parameter" });
      expect(checked.ok === false && checked.detail).toContain(expected);
      // Every refusal lists at least one violation, located at the parameter.
      const violations = checked.ok === false && "violations" in checked ? checked.violations : [];
      expect(violations.length).toBeGreaterThan(0);
      expect(violations[0]!.location).toMatch(/^(path|query|header|cookie)\//);
    }
  });

  it("judges parameters before the body, and only the body when neither path nor query is given", () => {
    const body = new TextEncoder().encode('{"name":"x"}');
    const update = op("updatePlant");
    const headers = { "content-type": "application/json" };
    expect(checkRequest(update, { headers, body, path: "/plants/abc", query: "" })).toMatchObject({
      reason: "parameter",
    });
    expect(checkRequest(update, { headers, body })).toMatchObject({ ok: true });
  });
});

describe("checkResponseHeaders", () => {
  const onePlant = op("getPlant").responseFor(200)!;
  it.each([
    ["present and valid", { "x-rate-limit": "5" }, []],
    ["missing though required", {}, ["the header X-Rate-Limit is required"]],
    ["not an integer", { "x-rate-limit": "many" }, ["X-Rate-Limit"]],
    ["below its minimum", { "x-rate-limit": "-1" }, ["X-Rate-Limit"]],
  ])("%s", (_name, headers: Record<string, string>, expected: string[]) => {
    const problems = checkResponseHeaders(onePlant, headers);
    expect(problems).toHaveLength(expected.length);
    problems.forEach((p, i) => expect(p.detail).toContain(expected[i]));
  });

  it("a bodiless 204 documents its header too", () => {
    expect(checkResponseHeaders(op("deletePlant").responseFor(204)!, {})).toHaveLength(1);
  });
});
