import { describe, expect, it } from "vitest";
import { compileContract } from "./contract.js";
import { compareTemplates } from "./routing.js";
import { openApi } from "../../test/openapi-doc.js";

const ok = { "200": { description: "ok" } };
const op = (operationId: string) => ({ operationId, responses: ok });
const param = (name: string) => ({ name, in: "path", required: true, schema: { type: "string" } });

// Declared least specific first wherever it can be, so declaration order alone would route wrongly.
const contract = compileContract(
  openApi(
    {
      "/plants/{id}": {
        parameters: [param("id")],
        get: op("getPlant"),
        put: op("putPlant"),
        delete: op("deletePlant"),
      },
      "/plants/mine": { get: op("getMine"), post: op("postMine") },
      "/plants": { get: op("listPlants") },
      "/plants/{id}/leaves/{leaf}": { parameters: [param("id"), param("leaf")], get: op("getLeaf") },
      "/plants/{id}/leaves/first": { parameters: [param("id")], get: op("getFirstLeaf") },
      "/plants/mine/leaves/{leaf}": { parameters: [param("leaf")], get: op("getMyLeaf") },
      "/a/{x}/c": { parameters: [param("x")], get: op("getAxC") },
      "/a/b/{y}": { parameters: [param("y")], get: op("getAbY") },
      "/files/{name}": { parameters: [param("name")], get: op("getFile") },
      "/files/{name}.json": { parameters: [param("name")], get: op("getJsonFile") },
      "/files/readme.json": { post: op("postReadme") },
      "/twins/{a}": { parameters: [param("a")], get: op("getTwinA") },
      "/twins/{b}": { parameters: [param("b")], get: op("getTwinB"), post: op("postTwinB") },
    },
    { title: "routing" },
  ),
  "inline",
);

describe("routing by OpenAPI's precedence (OAS 3.1 Paths Object: concrete paths before templated ones)", () => {
  // [method, path, the operation (with its params), or "404", or "405 <allowed>"]
  const cases: [string, string, string][] = [
    ["GET", "/plants/mine", "getMine"],
    ["get", "/plants/mine", "getMine"],
    ["POST", "/plants/mine", "postMine"],
    ["GET", "/plants/42", "getPlant id=42"],
    ["GET", "/plants/my%20fern", "getPlant id=my fern"],
    ["GET", "/plants", "listPlants"],
    // The most specific path lacks the method, a less specific one has it: the plant whose id is "mine".
    ["DELETE", "/plants/mine", "deletePlant id=mine"],
    ["PUT", "/plants/mine", "putPlant id=mine"],
    // No matching path has the method: every method of every matching path, most specific first.
    ["PATCH", "/plants/mine", "405 GET,POST,PUT,DELETE"],
    ["PATCH", "/plants/7", "405 GET,PUT,DELETE"],
    ["POST", "/plants", "405 GET"],
    ["GET", "/plants/7/leaves/first", "getFirstLeaf id=7"],
    ["GET", "/plants/7/leaves/3", "getLeaf id=7 leaf=3"],
    ["GET", "/plants/mine/leaves/3", "getMyLeaf leaf=3"],
    // Left to right: the literal second segment of /plants/mine/leaves/{leaf} wins over {id}/leaves/first.
    ["GET", "/plants/mine/leaves/first", "getMyLeaf leaf=first"],
    ["GET", "/a/b/c", "getAbY y=c"],
    ["GET", "/a/z/c", "getAxC x=z"],
    ["GET", "/a/b/d", "getAbY y=d"],
    ["GET", "/files/readme.json", "getJsonFile name=readme"],
    ["POST", "/files/readme.json", "postReadme"],
    ["GET", "/files/notes.json", "getJsonFile name=notes"],
    ["GET", "/files/notes.txt", "getFile name=notes.txt"],
    ["DELETE", "/files/notes.json", "405 GET"],
    // Templates alike: declaration order.
    ["GET", "/twins/1", "getTwinA a=1"],
    ["POST", "/twins/1", "postTwinB b=1"],
    ["PUT", "/twins/1", "405 GET,POST"],
    ["GET", "/nowhere", "404"],
    ["GET", "/plants/7/roots", "404"],
    ["GET", "/plants/", "404"],
    ["GET", "/plants/mine/", "404"],
  ];
  it.each(cases)("%s %s: %s", (method, path, expected) => {
    const r = contract.route(method, path);
    const got =
      r.kind === "found"
        ? [r.operation.operationId, ...Object.entries(r.params).map(([k, v]) => `${k}=${v}`)].join(" ")
        : r.kind === "method-not-allowed"
          ? `405 ${r.allowed.join(",")}`
          : "404";
    expect(got).toBe(expected);
  });
});

describe("compareTemplates", () => {
  it.each([
    ["/plants/mine", "/plants/{id}", -1],
    ["/plants/{id}", "/plants/mine", 1],
    ["/a/b/{y}", "/a/{x}/c", -1],
    ["/files/{name}.json", "/files/{name}", -1],
    ["/files/readme.json", "/files/{name}.json", -1],
    ["/twins/{a}", "/twins/{b}", 0],
    ["/x", "/x/y", -1],
  ])("%s against %s: %d", (a, b, sign) => {
    expect(Math.sign(compareTemplates(a, b))).toBe(sign);
  });
});
