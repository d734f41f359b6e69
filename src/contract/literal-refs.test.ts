import { describe, expect, it } from "vitest";
import { hideLiteralRefs, restoreLiteralRefs } from "./literal-refs.js";

type Json = Record<string, unknown>;
const ext = (file: string): Json => ({ $ref: file });

/** The document after hiding, as "$ref" paths still visible to a resolver. */
function visibleRefs(node: unknown, at = ""): string[] {
  if (typeof node !== "object" || node === null) return [];
  const own = typeof (node as Json).$ref === "string" ? [at || "/"] : [];
  return [...own, ...Object.entries(node).flatMap(([k, v]) => visibleRefs(v, `${at}/${k}`))];
}

describe("external $refs in literal values are hidden from the resolver, and given back", () => {
  const document = (): Json => ({
    openapi: "3.1.0",
    paths: {
      "/a": {
        get: {
          parameters: [{ $ref: "params.yaml#/P" }],
          responses: {
            default: ext("responses.yaml#/Default"),
            "200": {
              content: {
                "application/json": {
                  schema: {
                    properties: {
                      example: ext("schemas.yaml#/Example"),
                      default: ext("schemas.yaml#/Default"),
                      examples: ext("schemas.yaml#/Examples"),
                      n: { type: "integer", default: ext("data.yaml"), enum: [ext("e.yaml")] },
                    },
                    examples: [ext("list.yaml")],
                  },
                  example: ext("example.yaml"),
                  examples: { value: ext("schemas.yaml#/NamedValue"), one: { value: ext("one.yaml") } },
                },
              },
            },
          },
        },
      },
    },
    components: {
      examples: { E: { value: { nested: [ext("missing.yaml")] } }, F: ext("examples.yaml#/F") },
      schemas: { example: ext("schemas.yaml#/Named"), const: { const: ext("c.yaml") } },
    },
  });

  it("hides those in example, examples, value, default, enum and const; keeps the references named so", () => {
    const doc = document();
    expect(hideLiteralRefs(doc)).toBe(7);
    expect(visibleRefs(doc)).toEqual([
      "/paths//a/get/parameters/0",
      "/paths//a/get/responses/200/content/application/json/schema/properties/example",
      "/paths//a/get/responses/200/content/application/json/schema/properties/default",
      "/paths//a/get/responses/200/content/application/json/schema/properties/examples",
      "/paths//a/get/responses/200/content/application/json/examples/value",
      // After "200": JavaScript lists integer-like keys first.
      "/paths//a/get/responses/default",
      "/components/examples/F",
      "/components/schemas/example",
    ]);
    restoreLiteralRefs(doc);
    expect(doc).toEqual(document());
  });

  it("leaves internal $refs alone (the resolver reads nothing for them)", () => {
    const doc = { components: { examples: { E: { value: { $ref: "#/x" } } } } };
    expect(hideLiteralRefs(doc)).toBe(0);
    expect(doc).toEqual({ components: { examples: { E: { value: { $ref: "#/x" } } } } });
  });
});
