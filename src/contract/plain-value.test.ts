import { describe, expect, it } from "vitest";
import { plainValue } from "./plain-value.js";

const resolve = (ref: string): unknown => COMPONENTS[ref];
const COMPONENTS: Record<string, unknown> = {
  "#/components/schemas/uuid": { type: "string", format: "uuid", minLength: 36, maxLength: 36 },
  "#/components/schemas/source": { type: "string", enum: ["carrier", "shipengine"] },
};

describe("plainValue, the one plain value of the engine and the generator", () => {
  it("reads what a value must be from allOf parts: a wrapped $ref is that schema", () => {
    const wrapped = { allOf: [{ $ref: "#/components/schemas/uuid" }], description: "the request's id" };
    expect(plainValue(wrapped, resolve)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(plainValue({ allOf: [{ $ref: "#/components/schemas/source" }] }, resolve)).toBe("carrier");
    const object = { allOf: [{ type: "object", required: ["a"], properties: { a: { type: "integer", minimum: 3 } } }] };
    expect(plainValue(object, resolve)).toEqual({ a: 3 });
  });

  it("takes examples and defaults only when asked, and fills as much as asked", () => {
    const s = {
      type: "object",
      required: ["n", "tags"],
      properties: {
        n: { type: "integer", example: 7, default: 5, minimum: 2 },
        tags: { type: "array", items: { type: "string", minLength: 2 } },
        note: { type: "string" },
      },
    };
    expect(plainValue(s, resolve)).toEqual({ n: 7, tags: [] });
    expect(plainValue(s, resolve, { examples: false })).toEqual({ n: 2, tags: [] });
    expect(plainValue(s, resolve, { examples: false, defaults: true, fill: 1 })).toEqual({ n: 5, tags: ["string"] });
    expect(plainValue(s, resolve, { examples: false, fill: 2 })).toEqual({ n: 2, tags: ["string"], note: "string" });
  });

  it("gives a schema that tells no type an object, or text where asked (a URL or a header)", () => {
    expect(plainValue({}, resolve)).toEqual({});
    expect(plainValue({ description: "anything" }, resolve, { untyped: "string" })).toBe("string");
    expect(plainValue({ additionalProperties: { type: "string" } }, resolve, { untyped: "string" })).toEqual({});
  });

  it("keeps a required property named __proto__ a member", () => {
    const s: unknown = JSON.parse(
      '{"type":"object","required":["__proto__"],"properties":{"__proto__":{"type":"string"}}}',
    );
    const v = plainValue(s, resolve) as object;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(["__proto__"]);
  });
});
