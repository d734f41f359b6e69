import { describe, expect, it } from "vitest";
import { unsatisfiable } from "./unsatisfiable.js";

// Each schema sits at /s of a tiny document; components hold what a $ref names.
const at = (s: unknown, components: Record<string, unknown> = {}) =>
  unsatisfiable({ s, components: { schemas: components } }, "/s");

describe("schemas no value satisfies are said, with the pointer of the rule", () => {
  const cases: [string, unknown, string | undefined, RegExp][] = [
    [
      "minLength above maxLength",
      { type: "string", minLength: 5, maxLength: 4 },
      "/s",
      /minLength 5 is above maxLength 4/,
    ],
    ["minimum above maximum", { type: "number", minimum: 3, maximum: 2 }, "/s", /no number/],
    ["equal exclusive bounds (3.1)", { type: "number", exclusiveMinimum: 2, maximum: 2 }, "/s", /exclusive/],
    [
      "equal exclusive bounds (3.0)",
      { type: "number", minimum: 2, exclusiveMinimum: true, maximum: 2 },
      "/s",
      /exclusive/,
    ],
    ["no integer between", { type: "integer", minimum: 0.2, maximum: 0.8 }, "/s", /no integer/],
    ["an empty enum", { enum: [] }, "/s", /enum is empty/],
    ["not: {}", { not: {} }, "/s", /not/],
    ["false", false, "/s", /false/],
    ["minItems above maxItems", { type: "array", minItems: 3, maxItems: 1 }, "/s", /minItems 3 is above maxItems 1/],
    [
      "more required than maxProperties",
      { type: "object", required: ["a", "b"], maxProperties: 1 },
      "/s",
      /maxProperties/,
    ],
    [
      "a required property whose schema is unsatisfiable",
      { type: "object", required: ["a"], properties: { a: { type: "string", minLength: 2, maxLength: 1 } } },
      "/s/properties/a",
      /required property a: minLength 2/,
    ],
    [
      "a required property no schema declares, additionalProperties false",
      { type: "object", required: ["a"], additionalProperties: false },
      "/s/required",
      /property a is required/,
    ],
    [
      "types that exclude each other in allOf",
      { allOf: [{ type: "string" }, { type: "integer" }] },
      "/s",
      /types exclude each other/,
    ],
    [
      "an unsatisfiable part of allOf",
      { allOf: [{ type: "object" }, { type: "string", minLength: 3, maxLength: 2 }] },
      "/s/allOf/1",
      /minLength 3/,
    ],
    ["every branch of a oneOf", { oneOf: [{ enum: [] }, { not: {} }] }, "/s", /no branch of oneOf/],
    [
      "unique booleans, three of them",
      { type: "array", items: { type: "boolean" }, uniqueItems: true, minItems: 3 },
      "/s",
      /only 2 values/,
    ],
    ["a satisfiable schema", { type: "string", minLength: 1_000 }, undefined, /./],
    [
      "a readOnly required property, in a request",
      {
        type: "object",
        required: ["id"],
        properties: { id: { type: "integer", readOnly: true, minimum: 2, maximum: 1 } },
      },
      undefined,
      /./,
    ],
    ["a satisfiable union", { oneOf: [{ enum: [] }, { type: "string" }] }, undefined, /./],
    ["an enum of strings, the type integer", { type: "integer", enum: ["a", "b"] }, "/s", /no value of its enum/],
    ["an enum of fractions, the type integer", { type: "integer", enum: [1.5] }, "/s", /of its type integer/],
    ["an enum with one value of the type", { type: "integer", enum: ["a", 2] }, undefined, /./],
    [
      "a pattern written with /.../ delimiters",
      { type: "string", pattern: "/^[a-z]+$/" },
      "/s",
      /written with \/...\/ delimiters.*write "\^\[a-z\]\+\$"/,
    ],
    ["a pattern with flags and delimiters", { type: "string", pattern: "/^a/i" }, "/s", /delimiters/],
    // Slashes without an anchor match text that holds them: odd, and a hint, but not unsatisfiable.
    ["slashes around an unanchored pattern", { type: "string", pattern: "/a+/" }, undefined, /./],
    ["a path pattern", { type: "string", pattern: "^/v1/.+$" }, undefined, /./],
    [
      "a oneOf of two branches that refuse nothing",
      {
        type: "object",
        oneOf: [
          { type: "object", title: "A" },
          { description: "any", "x-note": 1 },
        ],
      },
      "/s",
      /branches 0 and 1 of oneOf accept every value/,
    ],
    [
      "a oneOf whose branches refuse something",
      {
        type: "object",
        oneOf: [
          { type: "object", required: ["a"] },
          { type: "object", required: ["b"] },
        ],
      },
      undefined,
      /./,
    ],
    ["an anyOf of two branches that refuse nothing", { anyOf: [{}, {}] }, undefined, /./],
    // The validator reads a oneOf with a discriminator as anyOf, and leaves out a pattern it cannot compile.
    [
      "a oneOf of two open branches, with a discriminator",
      { type: "object", discriminator: { propertyName: "kind" }, oneOf: [{ title: "Ping" }, { title: "Pong" }] },
      undefined,
      /./,
    ],
    ["delimiters around an alternation, which matches b/", { type: "string", pattern: "/^a|b/" }, undefined, /./],
    [
      "delimiters around a pattern ECMA-262 cannot compile",
      { type: "string", pattern: "/^(?i)[a-z]+$/" },
      undefined,
      /./,
    ],
  ];
  for (const [name, schema, pointer, reason] of cases)
    it(name, () => {
      const found = at(schema);
      expect(found?.pointer).toBe(pointer);
      if (found !== undefined) expect(found.reason).toMatch(reason);
    });

  it("names the referenced schema where the rule lives", () => {
    const found = at(
      { type: "object", required: ["tag"], properties: { tag: { $ref: "#/components/schemas/Tag" } } },
      { Tag: { type: "string", minLength: 9, maxLength: 3 } },
    );
    expect(found).toEqual({ pointer: "/components/schemas/Tag", reason: expect.stringMatching(/minLength 9/) });
  });

  it("a closed schema whose required properties only an allOf part declares (additionalProperties sees its siblings only)", () => {
    const components = {
      Partial: { type: "object", additionalProperties: false, properties: { name: { type: "string" } } },
      Address: {
        type: "object",
        required: ["name"],
        additionalProperties: false,
        allOf: [{ $ref: "#/components/schemas/Partial" }],
      },
    };
    expect(at({ $ref: "#/components/schemas/Address" }, components)).toEqual({
      pointer: "/components/schemas/Address/additionalProperties",
      reason: expect.stringMatching(/property name is required, but additionalProperties false here sees only/),
    });
    // Nested in a required property, the pointer still names the closed schema.
    const nested = at(
      { type: "object", required: ["to"], properties: { to: { $ref: "#/components/schemas/Address" } } },
      components,
    );
    expect(nested?.pointer).toBe("/components/schemas/Address/additionalProperties");
    // The same parts, open at the top (the part's own additionalProperties sees its own properties): satisfiable.
    expect(
      at({ type: "object", required: ["name"], allOf: [{ $ref: "#/components/schemas/Partial" }] }, components),
    ).toBeUndefined();
    // Declared beside the keyword, or matched by a pattern beside it: satisfiable.
    expect(
      at({
        type: "object",
        required: ["name", "x-tag"],
        additionalProperties: false,
        properties: { name: {} },
        patternProperties: { "^x-": {} },
      }),
    ).toBeUndefined();
  });

  it("ends on a self-referencing schema", () => {
    const found = at(
      { $ref: "#/components/schemas/Node" },
      { Node: { type: "object", properties: { next: { $ref: "#/components/schemas/Node" } } } },
    );
    expect(found).toBeUndefined();
  });
});
