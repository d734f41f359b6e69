import { describe, expect, it } from "vitest";
import { kitContract } from "../../test/helpers.js";
import { openApi } from "../../test/openapi-doc.js";
import { compileContract } from "../contract/index.js";
import { causeFirst, judge, type CheckContext } from "./checks.js";
import type { Expectation } from "./case-types.js";

const contract = await kitContract();
const operation = contract.operation("createPlant")!;

const answer = (
  status: number,
  body: unknown,
  contentType: string | null = "application/json",
  headers: Record<string, string> = {},
): CheckContext["result"] => ({
  ok: true,
  durationMs: 1,
  response: {
    status,
    headers: { ...(contentType === null ? {} : { "content-type": contentType }), ...headers },
    body: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
  },
});
const ctx = (
  expect: Expectation,
  result: CheckContext["result"],
  earlierStatuses: (number | undefined)[] = [],
): CheckContext => ({ operation, specSource: "spec.yaml", expect, result, earlierStatuses });
const ids = (c: CheckContext): string[] => judge(c).map((f) => `${f.severity} ${f.check}`);

describe("judge: each check on its own evidence", () => {
  it.each([
    ["valid, 200 Plant", { kind: "valid" }, answer(200, { name: "a" }), []],
    [
      "valid, 200 Plant with charset and extra fields",
      { kind: "valid" },
      answer(200, { name: "a", id: 1 }, "application/json; charset=utf-8"),
      [],
    ],
    ["valid, 201", { kind: "valid" }, answer(201, { name: "a" }), ["failure valid.accepted"]],
    ["valid, 400 Error", { kind: "valid" }, answer(400, { error: 400, message: "no" }), ["failure valid.accepted"]],
    ["valid, 200 without name", { kind: "valid" }, answer(200, {}), ["failure response.schema"]],
    ["valid, 200 not JSON", { kind: "valid" }, answer(200, "{"), ["failure response.json"]],
    [
      "valid, 200 text/plain",
      { kind: "valid" },
      answer(200, { name: "a" }, "text/plain"),
      ["failure response.media-type"],
    ],
    [
      "valid, 200 no Content-Type",
      { kind: "valid" },
      answer(200, { name: "a" }, null),
      ["failure response.media-type"],
    ],
    ["valid, 500", { kind: "valid" }, answer(500, "oops", "text/plain"), ["failure status.no-5xx"]],
    ["valid, 302", { kind: "valid" }, answer(302, ""), ["failure valid.accepted"]],
    [
      "valid, level http-rfc, 401",
      { kind: "valid", level: "http-rfc" },
      answer(401, {}),
      ["warning valid.accepted", "warning auth.challenge"],
    ],
    ["invalid, 400 Error", { kind: "invalid" }, answer(400, { error: 400, message: "no" }), []],
    ["invalid, 400 Error with int32 max", { kind: "invalid" }, answer(400, { error: 2147483647, message: "no" }), []],
    [
      "invalid, 400 error beyond int32",
      { kind: "invalid" },
      answer(400, { error: 2147483648, message: "no" }),
      ["failure response.schema"],
    ],
    ["invalid, 400 error 1e2 (an integer)", { kind: "invalid" }, answer(400, '{"error": 1e2, "message": "no"}'), []],
    [
      "invalid, 400 error 400.5",
      { kind: "invalid" },
      answer(400, '{"error": 400.5, "message": "no"}'),
      ["failure response.schema"],
    ],
    [
      "invalid, 400 without Error shape",
      { kind: "invalid" },
      answer(400, { detail: "no" }),
      ["failure response.schema", "failure response.schema"],
    ],
    ["invalid, 422 any body", { kind: "invalid" }, answer(422, "nope", "text/plain"), ["note status.undocumented"]],
    ["invalid, 200", { kind: "invalid" }, answer(200, { name: "a" }), ["failure invalid.rejected"]],
    ["invalid, 503", { kind: "invalid" }, answer(503, ""), ["failure status.no-5xx"]],
    [
      "unauthorised, 401 with challenge",
      { kind: "unauthorised" },
      answer(401, {}, "application/json", { "www-authenticate": "Bearer" }),
      ["note status.undocumented"],
    ],
    [
      "unauthorised, 401 without challenge",
      { kind: "unauthorised" },
      answer(401, {}),
      ["warning auth.challenge", "note status.undocumented"],
    ],
    ["unauthorised, 403", { kind: "unauthorised" }, answer(403, {}), ["note status.undocumented"]],
    ["unauthorised, 400 Error", { kind: "unauthorised" }, answer(400, { error: 1, message: "x" }), []],
    ["unauthorised, 200", { kind: "unauthorised" }, answer(200, { name: "a" }), ["failure auth.rejected"]],
    ["unauthorised, 302", { kind: "unauthorised" }, answer(302, ""), ["warning status.undocumented"]],
    ["duplicate, 200 Plant", { kind: "duplicate" }, answer(200, { name: "a" }), []],
    ["duplicate, 409", { kind: "duplicate" }, answer(409, { anything: true }), ["note status.undocumented"]],
    ["duplicate, 500", { kind: "duplicate" }, answer(500, ""), ["failure status.no-5xx"]],
    ["duplicate, 301", { kind: "duplicate" }, answer(301, ""), ["failure duplicate.answer"]],
    ["exact status met", { kind: "invalid", status: 400 }, answer(400, { error: 400, message: "no" }), []],
    ["exact status missed", { kind: "invalid", status: 400 }, answer(422, {}), ["failure status.expected"]],
  ] as const)("%s", (_name, expect_, result, expected) => {
    expect(ids(ctx(expect_ as Expectation, result))).toEqual(expected);
  });

  it("a transport failure is one response.received failure; unreachable is left to the runner", () => {
    expect(
      ids(ctx({ kind: "valid" }, { ok: false, durationMs: 1, failure: { kind: "timeout", message: "slow" } })),
    ).toEqual(["failure response.received"]);
    expect(
      ids(ctx({ kind: "valid" }, { ok: false, durationMs: 1, failure: { kind: "unreachable", message: "gone" } })),
    ).toEqual([]);
  });

  it("a fixed id answered like a repeated id passes with a note; any other 4xx fails", () => {
    const fixed: Expectation = { kind: "valid", existingAnswerFrom: 1 };
    expect(ids(ctx(fixed, answer(409, {}), [200, 409]))).toEqual(["note valid.accepted", "note status.undocumented"]);
    expect(ids(ctx(fixed, answer(400, { error: 400, message: "bad id" }), [200, 409]))).toEqual([
      "failure valid.accepted",
    ]);
    expect(ids(ctx(fixed, answer(400, { error: 400, message: "bad id" }), [200, 200]))).toEqual([
      "failure valid.accepted",
    ]);
  });

  it("every finding carries expected, received and the rule", () => {
    const [f] = judge(ctx({ kind: "valid" }, answer(200, {})));
    expect(f).toMatchObject({ check: "response.schema", expected: "is required", received: "{}" });
    expect(f!.rule).toBe("spec.yaml#/paths/~1plants/post/responses/200/content/application~1json/schema");
    expect(f!.message).toContain("body/name: is required");
  });

  it("a 5xx body's start is part of the evidence", () => {
    const [f] = judge(ctx({ kind: "valid" }, answer(500, { error: 500, message: "db down" })));
    expect(f!.received).toContain("db down");
  });
});

describe("judge: an operation whose success answers accept no value (a document fault)", () => {
  const closed = {
    type: "object",
    additionalProperties: false,
    required: ["id"],
    allOf: [{ type: "object", properties: { id: { type: "integer" } } }],
  };
  const json = (schema: unknown) => ({ description: "x", content: { "application/json": { schema } } });
  const doc = openApi({
    "/batches": {
      post: { operationId: "makeBatch", responses: { "200": json(closed), "400": json({ type: "object" }) } },
    },
    "/tags": { post: { operationId: "makeTag", responses: { "200": json({ type: "object", required: ["id"] }) } } },
  });
  const c = compileContract(doc, "doc.json");
  const on = (id: string, result: CheckContext["result"]): string[] =>
    judge({
      operation: c.operation(id)!,
      specSource: "doc.json",
      expect: { kind: "valid" },
      result,
      earlierStatuses: [],
    }).map((f) => `${f.severity} ${f.check} ${f.rule}`);

  it("names the rule no server can keep: a 500 or a 200 there is a note, never the target's failure", () => {
    const rule = "doc.json#/paths/~1batches/post/responses/200/content/application~1json/schema/additionalProperties";
    expect(on("makeBatch", answer(500, "oops", "text/plain"))).toEqual([`note status.no-5xx ${rule}`]);
    expect(on("makeBatch", answer(200, { id: 1 }))).toEqual([`note response.schema ${rule}`]);
  });

  it("leaves every other operation's failures and a refusal's findings as they are", () => {
    expect(on("makeTag", answer(500, "oops", "text/plain"))).toEqual([
      "failure status.no-5xx doc.json#/paths/~1tags/post/responses",
    ]);
    expect(on("makeBatch", answer(400, "no", "text/plain"))[0]).toMatch(/^failure /);
  });
});

describe("causeFirst: a case's headline is the finding that says the most", () => {
  it("puts what the expectation says went wrong before the shape of the answer it got", () => {
    const f = (check: Parameters<typeof causeFirst>[0][number]["check"]) => ({ check });
    const ordered = causeFirst([
      f("response.schema"),
      f("status.no-5xx"),
      f("stateful.read-back"),
      f("invalid.rejected"),
      f("response.json"),
    ]);
    expect(ordered.map((x) => x.check)).toEqual([
      "invalid.rejected",
      "stateful.read-back",
      "status.no-5xx",
      "response.json",
      "response.schema",
    ]);
  });
});
