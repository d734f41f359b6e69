import { describe, expect, it } from "vitest";
import { compileContract } from "../contract/index.js";
import { kitContract } from "../../test/helpers.js";
import { judgeRequest, judgeResponse } from "./judge-exchange.js";
import { openApi } from "../../test/openapi-doc.js";

const contract = await kitContract();
const same = (t: string): string => t;
const json = { "content-type": "application/json" };

describe("judgeRequest: the one place a request is judged", () => {
  it.each([
    ["a valid create", "POST", "/plants", json, '{"id":1,"name":"a"}', []],
    [
      "a charset of UTF-8 in any spelling",
      "POST",
      "/plants",
      { "content-type": "application/json; charset=UTF-8" },
      '{"id":1,"name":"a"}',
      [],
    ],
    ["an unknown path", "GET", "/nowhere", {}, undefined, ["request.path"]],
    ["an undocumented method", "GET", "/plants", {}, undefined, ["request.method"]],
    ["no body", "POST", "/plants", json, "", ["request.body"]],
    [
      "a wrong media type",
      "POST",
      "/plants",
      { "content-type": "text/plain" },
      '{"id":1,"name":"a"}',
      ["request.body"],
    ],
    [
      "another charset",
      "POST",
      "/plants",
      { "content-type": "application/json; charset=iso-8859-1" },
      '{"id":1,"name":"a"}',
      ["request.body"],
    ],
    ["bytes that are not UTF-8", "POST", "/plants", json, Buffer.from([0x7b, 0xff, 0x7d]), ["request.body"]],
    ["malformed JSON", "POST", "/plants", json, "{", ["request.body"]],
    ["an id beyond int64, exactly", "POST", "/plants", json, '{"id":9223372036854775808,"name":"a"}', ["request.body"]],
    ["int64 max, exactly", "POST", "/plants", json, '{"id":9223372036854775807,"name":"a"}', []],
  ])("%s", (_name, method, path, headers, body, checks) => {
    const verdict = judgeRequest(
      contract,
      { method, path, headers, body: body === undefined ? Buffer.alloc(0) : Buffer.from(body) },
      "spec.yaml",
      same,
    );
    expect(verdict.findings.map((f) => f.check)).toEqual(checks);
    expect(verdict.findings.every((f) => f.severity === "failure")).toBe(true);
  });

  it("notes a body it did not record instead of judging it", () => {
    const verdict = judgeRequest(
      contract,
      { method: "POST", path: "/plants", headers: json, body: undefined, bodyNotJudged: "over --max-body" },
      "spec.yaml",
      same,
    );
    expect(verdict.operation?.operationId).toBe("createPlant");
    expect(verdict.findings.map((f) => [f.check, f.severity, f.received])).toEqual([
      ["proxy.not-judged", "note", "over --max-body"],
    ]);
  });
});

describe("judgeResponse: the harness's checks that need no fixture", () => {
  const op = contract.operation("createPlant")!;
  const answer = (status: number, body: string | undefined, type = "application/json") =>
    judgeResponse(
      op,
      {
        status,
        headers: { "content-type": type },
        body: body === undefined ? undefined : Buffer.from(body),
        durationMs: 1,
      },
      "spec.yaml",
      same,
    ).map((f) => [f.check, f.severity]);

  it.each([
    ["a Plant", 200, '{"name":"a"}', []],
    ["an Error", 400, '{"error":400,"message":"m"}', []],
    ["an undocumented 4xx: the contract is silent on error conditions", 409, "{}", [["status.undocumented", "note"]]],
    ["an undocumented 2xx", 201, "{}", [["status.undocumented", "warning"]]],
    ["a 5xx", 503, "{}", [["status.no-5xx", "failure"]]],
    ["a Plant without name", 200, "{}", [["response.schema", "failure"]]],
    ["an int32 overflow in error", 400, '{"error":2147483648,"message":"m"}', [["response.schema", "failure"]]],
  ])("%s", (_name, status, body, expected) => {
    expect(answer(status, body)).toEqual(expected);
  });

  it("judges status and media type but not the body when the body was not recorded", () => {
    expect(answer(200, undefined, "text/plain")).toEqual([["response.media-type", "failure"]]);
  });
});

describe("the proxy routes by OpenAPI's precedence: a concrete path before a templated one", () => {
  // `/plants/{id}` is declared first; `/plants/mine` is its own operation, and `mine` is no integer id.
  const plants = compileContract(
    openApi(
      {
        "/plants/{id}": {
          get: {
            operationId: "readPlant",
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
            responses: { "200": { description: "a plant" } },
          },
        },
        "/plants/mine": { get: { operationId: "myPlants", responses: { "200": { description: "mine" } } } },
      },
      { title: "precedence" },
    ),
    "precedence.json",
  );
  it.each([
    ["/plants/mine", "myPlants"],
    ["/plants/7", "readPlant"],
  ])("GET %s is %s, with no finding", (path, operationId) => {
    const verdict = judgeRequest(plants, { method: "GET", path, headers: {}, body: Buffer.alloc(0) }, "p.json", same);
    expect(verdict.operation?.operationId).toBe(operationId);
    expect(verdict.findings).toEqual([]);
  });
});
