import { describe, expect, it } from "vitest";
import { schemaHints } from "./schema-hints.js";

const hintsOf = (s: unknown, schemas: Record<string, unknown> = {}) =>
  schemaHints({ s, components: { schemas } }, "/s");

describe("what may keep a generator from a valid value, said as a linter would", () => {
  it("names a oneOf whose object branches nothing tells apart", () => {
    const a = { type: "object", properties: { a: { type: "string" } } };
    const b = { type: "object", properties: { b: { type: "integer" } } };
    expect(hintsOf({ oneOf: [a, { $ref: "#/components/schemas/B" }] }, { B: b })).toEqual([
      { pointer: "/s/oneOf", message: expect.stringMatching(/^nothing tells the object branches of oneOf apart/) },
    ]);
  });

  it.each([
    ["a required property", { type: "object", required: ["b"], properties: { b: { type: "integer" } } }],
    ["additionalProperties false", { type: "object", additionalProperties: false, properties: { b: {} } }],
    ["a required property in an allOf part", { allOf: [{ $ref: "#/components/schemas/Req" }] }],
  ])("says nothing when one branch has %s", (_name, branch) => {
    const a = { type: "object", properties: { a: { type: "string" } } };
    expect(hintsOf({ oneOf: [a, branch] }, { Req: { type: "object", required: ["x"] } })).toEqual([]);
  });

  it("names a pattern in /.../ delimiters anywhere below, by the pointer of the property", () => {
    const hints = hintsOf({
      type: "object",
      properties: { tags: { type: "array", items: { type: "string", pattern: "/[a-z]+/" } } },
    });
    expect(hints).toEqual([
      {
        pointer: "/s/properties/tags/items/pattern",
        message: expect.stringContaining("is written with /.../ delimiters: a JSON Schema pattern takes none"),
      },
    ]);
    expect(hints[0]!.message).toContain('write "[a-z]+"');
  });

  it("says nothing of a pattern that only begins with a slash, and survives a schema that refers to itself", () => {
    expect(hintsOf({ type: "string", pattern: "^/v1/" })).toEqual([]);
    const node = { type: "object", properties: { child: { $ref: "#/components/schemas/Node" } } };
    expect(hintsOf({ $ref: "#/components/schemas/Node" }, { Node: node })).toEqual([]);
  });
});
