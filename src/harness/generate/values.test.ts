import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRequest, compileContract, stringifyExact, type CompiledOperation } from "../../contract/index.js";
import type { Charset } from "./strings.js";
import { codePointLength } from "./strings.js";
import { valuesOf, type ValueContext } from "./values.js";

// Values are judged as the contract judges a request body: the schema goes in a tiny document,
// compiled by compileContract (3.0 and 3.1 dialects), and each value is sent through checkRequest.

type Json = Record<string, unknown>;
const encoder = new TextEncoder();

function bodyOperation(
  openapi: "3.0.3" | "3.1.0",
  schema: unknown,
  schemas: Json = {},
): { op: CompiledOperation; doc: unknown } {
  const contract = compileContract(
    {
      openapi,
      info: { title: "t", version: "1" },
      paths: {
        "/x": {
          post: {
            operationId: "send",
            requestBody: { required: true, content: { "application/json": { schema } } },
            responses: { "200": { description: "ok" } },
          },
        },
      },
      components: { schemas },
    },
    "inline.yaml",
  );
  return { op: contract.operation("send")!, doc: contract.document };
}

const accepted = (op: CompiledOperation, value: unknown): boolean => {
  const checked = checkRequest(op, {
    headers: { "content-type": "application/json" },
    body: encoder.encode(stringifyExact(value)),
  });
  return checked.ok;
};

/** The values drawn for a schema (as the contract compiled it), from a fixed seed. */
function draw(openapi: "3.0.3" | "3.1.0", schema: unknown, n = 40, schemas: Json = {}, context?: ValueContext) {
  const { op, doc } = bodyOperation(openapi, schema, schemas);
  const s = (doc as { paths: Json }).paths["/x"] as { post: { requestBody: { content: Json } } };
  const compiled = (s.post.requestBody.content["application/json"] as Json).schema;
  return { op, values: fc.sample(valuesOf(doc, compiled, context), { numRuns: n, seed: 7 }) };
}

// ---- random schemas from the constraint families, every one satisfiable ----

type Dialect = "3.0.3" | "3.1.0";

const lengths = (max: number) =>
  fc
    .tuple(fc.option(fc.integer({ min: 0, max }), { nil: undefined }), fc.option(fc.nat({ max }), { nil: undefined }))
    .map(([a, b]): [number | undefined, number | undefined] =>
      a !== undefined && b !== undefined ? [Math.min(a, b), Math.max(a, b)] : [a, b],
    );

const stringSchema: fc.Arbitrary<Json> = fc.oneof(
  lengths(1_200).map(([min, max]) => ({
    type: "string",
    ...(min === undefined ? {} : { minLength: min }),
    ...(max === undefined ? {} : { maxLength: max }),
  })),
  fc.constantFrom("uuid", "date", "date-time", "email", "uri", "ipv4", "ipv6", "hostname", "byte").map((format) => ({
    type: "string",
    format,
  })),
  fc
    .tuple(fc.constantFrom("email", "uri", "hostname"), fc.integer({ min: 14, max: 60 }), fc.nat({ max: 40 }))
    .map(([format, min, extra]) => ({ type: "string", format, minLength: min, maxLength: min + extra })),
  fc.constantFrom("^[a-f0-9]+$", "^[A-Z]{2}[0-9]{4}$", "^\\d{3}-\\d{4}$", "^[a-z]*$").map((pattern) => ({
    type: "string",
    pattern,
  })),
  fc
    .tuple(
      fc.constantFrom("^[a-f0-9]+$", "^[a-z]*$", "^[0-9]{4,}$", "^#[a-z]", "[0-9]{2}"),
      fc.integer({ min: 4, max: 200 }),
      fc.nat({ max: 50 }),
    )
    .map(([pattern, min, extra]) => ({ type: "string", pattern, minLength: min, maxLength: min + extra })),
  fc.uniqueArray(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 4 }).map((e) => ({ type: "string", enum: e })),
);

const numericSchema = (dialect: Dialect): fc.Arbitrary<Json> =>
  fc
    .record({
      type: fc.constantFrom("integer", "number"),
      lo: fc.option(fc.integer({ min: -1_000, max: 1_000 }), { nil: undefined }),
      width: fc.integer({ min: 2, max: 5_000 }),
      hasHi: fc.boolean(),
      exclusiveLo: fc.boolean(),
      exclusiveHi: fc.boolean(),
      multipleOf: fc.option(fc.constantFrom(1, 2, 3, 5, 7, 0.5, 0.25), { nil: undefined }),
      format: fc.option(fc.constantFrom("int32", "int64"), { nil: undefined }),
    })
    .map((r) => {
      const s: Json = { type: r.type };
      const lo = r.lo;
      const hi = r.hasHi ? (lo ?? 0) + r.width : undefined;
      // 3.0 writes exclusive bounds as booleans beside minimum/maximum, 3.1 as numbers.
      if (lo !== undefined) {
        if (r.exclusiveLo && dialect === "3.0.3") Object.assign(s, { minimum: lo, exclusiveMinimum: true });
        else if (r.exclusiveLo) s.exclusiveMinimum = lo;
        else s.minimum = lo;
      }
      if (hi !== undefined) {
        if (r.exclusiveHi && dialect === "3.0.3") Object.assign(s, { maximum: hi, exclusiveMaximum: true });
        else if (r.exclusiveHi) s.exclusiveMaximum = hi;
        else s.maximum = hi;
      }
      // The width (at least 2) holds a multiple of 7 or less only when it spans one: keep it wide enough.
      if (r.multipleOf !== undefined && (hi === undefined || r.width > 16)) s.multipleOf = r.multipleOf;
      if (r.type === "integer" && r.format !== undefined) s.format = r.format;
      return s;
    });

const leaf = (dialect: Dialect): fc.Arbitrary<Json> =>
  fc.oneof(
    { arbitrary: stringSchema, weight: 3 },
    { arbitrary: numericSchema(dialect), weight: 3 },
    { arbitrary: fc.constant({ type: "boolean" }), weight: 1 },
    { arbitrary: fc.constant({}), weight: 1 },
  );

/** A schema made nullable the dialect's way: `nullable` (3.0) or a type list with null (3.1). */
const nullable = (dialect: Dialect, s: Json): Json =>
  typeof s.type !== "string"
    ? s
    : dialect === "3.0.3"
      ? { ...s, nullable: true }
      : { ...s, type: [s.type, "null"], ...(Array.isArray(s.enum) ? { enum: [...s.enum, null] } : {}) };

const arraySchema = (dialect: Dialect): fc.Arbitrary<Json> =>
  fc.oneof(
    fc
      .tuple(leaf(dialect), fc.nat({ max: 4 }), fc.nat({ max: 4 }))
      .map(([items, min, extra]) => ({ type: "array", items, minItems: min, maxItems: min + extra })),
    fc
      .tuple(
        fc.constantFrom<Json>(
          { type: "integer" },
          { type: "string", minLength: 6 },
          { type: "string", format: "uuid" },
        ),
        fc.nat({ max: 5 }),
      )
      .map(([items, min]) => ({ type: "array", items, uniqueItems: true, minItems: min })),
    fc.tuple(fc.nat({ max: 2 }), fc.nat({ max: 1 })).map(([min, extra]) => ({
      type: "array",
      items: { type: "boolean" },
      uniqueItems: true,
      minItems: min,
      maxItems: min + extra,
    })),
    fc
      .array(leaf(dialect), { minLength: 1, maxLength: 3 })
      .map((prefix) =>
        dialect === "3.1.0"
          ? { type: "array", prefixItems: prefix, items: false, minItems: prefix.length }
          : { type: "array", items: prefix, additionalItems: false, minItems: prefix.length },
      ),
  );

const objectSchema = (dialect: Dialect): fc.Arbitrary<Json> =>
  fc
    .record({
      props: fc.dictionary(fc.constantFrom("a", "b", "c", "d", "e"), leaf(dialect), { maxKeys: 5 }),
      requiredPick: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
      additional: fc.constantFrom<"absent" | "false" | "schema">("absent", "false", "schema"),
      additionalSchema: leaf(dialect),
      pattern: fc.option(leaf(dialect), { nil: undefined }),
      minExtra: fc.nat({ max: 3 }),
      maxExtra: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
      readOnly: fc.boolean(),
      dependent: fc.boolean(),
    })
    .map((r) => {
      const names = Object.keys(r.props);
      const required = names.filter((_, i) => r.requiredPick[i]);
      const s: Json = { type: "object", properties: { ...r.props } };
      if (required.length > 0) s.required = required;
      if (r.additional === "false") s.additionalProperties = false;
      if (r.additional === "schema") s.additionalProperties = r.additionalSchema;
      if (r.pattern !== undefined) s.patternProperties = { "^x-[a-z]+$": r.pattern };
      // As many properties as the declared, patterned or extra ones can give; the maximum above what is required.
      const open = r.additional !== "false" || r.pattern !== undefined;
      const room = open ? names.length + r.minExtra : names.length;
      s.minProperties = Math.min(room, required.length + r.minExtra);
      if (r.maxExtra !== undefined && !r.dependent) s.maxProperties = (s.minProperties as number) + r.maxExtra;
      // An optional readOnly property: never sent in a request, which the schema allows.
      if (r.readOnly && !names.includes("ro"))
        (s.properties as Json).ro = { type: "string", readOnly: true, minLength: 3 };
      if (r.dependent && names.length >= 2) {
        const [x, y] = names as [string, string];
        if (dialect === "3.1.0") s.dependentRequired = { [x]: [y] };
        else s.dependencies = { [x]: [y] };
      }
      return s;
    });

const schemaOf = (dialect: Dialect): fc.Arbitrary<Json> =>
  fc
    .tuple(
      fc.oneof(leaf(dialect), arraySchema(dialect), objectSchema(dialect), stringSchema),
      fc.integer({ min: 0, max: 4 }),
    )
    .map(([s, n]) => (n === 0 ? nullable(dialect, s) : s));

describe("values drawn from random schemas", () => {
  for (const dialect of ["3.0.3", "3.1.0"] as const) {
    it(`are accepted by the schema as the contract compiles it (OpenAPI ${dialect})`, () => {
      fc.assert(
        fc.property(schemaOf(dialect), (schema) => {
          const { op, values } = draw(dialect, schema, 25);
          // A bounded number of draws: reaching here is termination.
          expect(values).toHaveLength(25);
          for (const v of values) expect(accepted(op, v), `${JSON.stringify(schema)}\n${stringifyExact(v)}`).toBe(true);
        }),
        { seed: dialect === "3.0.3" ? 30 : 31, numRuns: 150 },
      );
    });
  }

  it("the same seed gives the same values", () => {
    const schema = { type: "object", required: ["a"], properties: { a: { type: "string", minLength: 64 } } };
    expect(stringifyExact(draw("3.1.0", schema).values)).toBe(stringifyExact(draw("3.1.0", schema).values));
  });
});

describe("strings by construction", () => {
  const cases: [string, Json, Charset][] = [
    ["minLength 10", { type: "string", minLength: 10 }, "json"],
    ["minLength 64", { type: "string", minLength: 64 }, "json"],
    ["minLength 1000", { type: "string", minLength: 1_000 }, "json"],
    ["minLength 10, maxLength 10", { type: "string", minLength: 10, maxLength: 10 }, "json"],
    ["minLength 64 in a URL", { type: "string", minLength: 64 }, "text"],
    ["minLength 1000 in a header", { type: "string", minLength: 1_000, maxLength: 1_200 }, "header"],
    ["a 40-character SHA", { type: "string", pattern: "^[a-f0-9]+$", minLength: 40, maxLength: 40 }, "json"],
    ["an account number", { type: "string", pattern: "^[0-9]{10,34}$", minLength: 12 }, "json"],
    ["a prefix pattern, minLength 30", { type: "string", pattern: "^#[A-Z]", minLength: 30 }, "json"],
    ["an inner pattern, minLength 20", { type: "string", pattern: "[0-9]{3}", minLength: 20, maxLength: 25 }, "text"],
    ["an email of 30 to 40", { type: "string", format: "email", minLength: 30, maxLength: 40 }, "json"],
    ["a hostname of 100", { type: "string", format: "hostname", minLength: 100, maxLength: 100 }, "json"],
  ];
  for (const [name, schema, charset] of cases)
    it(`${name}: every value fits, in ${charset}`, () => {
      const { op, values } = draw("3.1.0", schema, 60, {}, { direction: "request", charset });
      for (const v of values) {
        expect(accepted(op, v), String(v)).toBe(true);
        const n = codePointLength(v as string);
        expect(n).toBeGreaterThanOrEqual((schema.minLength as number | undefined) ?? 0);
        if (charset !== "json")
          expect(v).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/);
        if (charset === "header") expect(v).toMatch(/^[\x21-\x7e]*$/);
      }
    });

  it("a JSON string sometimes holds a lone surrogate, even with minLength 10", () => {
    const { values } = draw("3.1.0", { type: "string", minLength: 10, maxLength: 30 }, 300);
    expect(
      values.some((v) => /[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/.test(v as string)),
    ).toBe(true);
  });
});

describe("unions, discriminators, extra properties, readOnly", () => {
  const pets: Json = {
    Cat: {
      type: "object",
      required: ["petType", "lives"],
      properties: { petType: { type: "string" }, lives: { type: "integer", minimum: 1, maximum: 9 } },
    },
    Dog: {
      type: "object",
      required: ["petType", "bark"],
      properties: { petType: { type: "string" }, bark: { type: "boolean" } },
      additionalProperties: false,
    },
  };
  const refs = [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }];

  it("a discriminator without mapping names each branch by its component name", () => {
    const { op, values } = draw("3.0.3", { oneOf: refs, discriminator: { propertyName: "petType" } }, 60, pets);
    for (const v of values) {
      const pet = v as Json;
      expect(pet.petType).toBe("lives" in pet ? "Cat" : "Dog");
      expect(accepted(op, v)).toBe(true);
    }
    expect(new Set(values.map((v) => (v as Json).petType))).toEqual(new Set(["Cat", "Dog"]));
  });

  it("a discriminator with a mapping names each branch by the mapping's key", () => {
    const discriminator = { propertyName: "petType", mapping: { cat: "#/components/schemas/Cat", dog: "Dog" } };
    const { values } = draw("3.1.0", { type: "object", oneOf: refs, discriminator }, 60, pets);
    for (const v of values) expect((v as Json).petType).toBe("lives" in (v as Json) ? "cat" : "dog");
  });

  it("a typed oneOf merges the object's own properties into each branch", () => {
    const schema = {
      type: "object",
      required: ["id"],
      properties: { id: { type: "integer" } },
      oneOf: [
        { required: ["a"], properties: { a: { type: "string" } } },
        { required: ["b"], properties: { b: { type: "integer" } } },
      ],
    };
    const { values } = draw("3.1.0", schema, 60);
    for (const v of values) {
      expect(v).toHaveProperty("id");
      expect("a" in (v as Json) || "b" in (v as Json)).toBe(true);
    }
  });

  it("additionalProperties schemas and patternProperties give the extra properties", () => {
    const schema = {
      type: "object",
      additionalProperties: false,
      patternProperties: { "^S_[A-Z]+$": { type: "string", minLength: 2 } },
      properties: { n: { type: "integer" } },
      minProperties: 3,
    };
    const { op, values } = draw("3.1.0", schema, 60);
    for (const v of values) {
      expect(Object.keys(v as Json).length).toBeGreaterThanOrEqual(3);
      expect(accepted(op, v)).toBe(true);
    }
    const map = { type: "object", additionalProperties: { type: "integer", minimum: 5 }, minProperties: 2 };
    const drawn = draw("3.0.3", map, 60);
    for (const v of drawn.values) {
      expect(Object.keys(v as Json).length).toBeGreaterThanOrEqual(2);
      expect(Object.values(v as Json).every((x) => typeof x === "bigint" && x >= 5n)).toBe(true);
    }
  });

  it("a request never carries a readOnly property, required or not; an answer never a writeOnly one", () => {
    const schema = {
      type: "object",
      required: ["id", "name"],
      properties: {
        id: { type: "integer", readOnly: true },
        name: { type: "string" },
        secret: { type: "string", writeOnly: true },
      },
    };
    const request = draw("3.0.3", schema, 60).values;
    expect(request.some((v) => "id" in (v as Json))).toBe(false);
    expect(request.some((v) => "secret" in (v as Json))).toBe(true);
    const answer = draw("3.0.3", schema, 60, {}, { direction: "response", charset: "json" }).values;
    expect(answer.every((v) => "id" in (v as Json))).toBe(true);
    expect(answer.some((v) => "secret" in (v as Json))).toBe(false);
  });
});

describe("schemas of real documents that refused every built value", () => {
  // ShipEngine: `additionalProperties: false` beside an allOf sees only the properties beside it,
  // so a property the allOf part declares is not allowed there (JSON Schema 2020-12 section 10.3.2.3).
  const Partial = {
    type: "object",
    additionalProperties: false,
    properties: { name: { type: "string", minLength: 1 }, phone: { type: "string" } },
  };
  const Address = {
    type: "object",
    required: ["name"],
    additionalProperties: false,
    allOf: [{ $ref: "#/components/schemas/Partial" }],
  };
  const schemas = { Partial, Address };

  for (const dialect of ["3.0.3", "3.1.0"] as const) {
    it(`leaves out optional properties a closed schema does not see (${dialect})`, () => {
      const { op, values } = draw(
        dialect,
        { type: "object", additionalProperties: false, allOf: [{ $ref: "#/components/schemas/Partial" }] },
        40,
        schemas,
      );
      for (const v of values) expect(accepted(op, v), stringifyExact(v)).toBe(true);
    });

    it(`leaves out an optional property, and array items, no value satisfies (${dialect})`, () => {
      const { op, values } = draw(
        dialect,
        {
          type: "object",
          properties: {
            to: { $ref: "#/components/schemas/Address" },
            copies: { type: "array", items: { $ref: "#/components/schemas/Address" } },
            note: { type: "string" },
          },
        },
        40,
        schemas,
      );
      for (const v of values) expect(accepted(op, v), stringifyExact(v)).toBe(true);
      expect(values.some((v) => Object.keys(v as object).length > 0)).toBe(true);
    });
  }

  it("reads a pattern as the contract does: without the u flag where it is no Unicode pattern", () => {
    // DigitalOcean's tag names: `\:` is an error in a Unicode regular expression.
    const { op, values } = draw("3.0.3", { type: "string", maxLength: 255, pattern: "^[a-zA-Z0-9_\\-\\:]+$" });
    for (const v of values) expect(accepted(op, v), stringifyExact(v)).toBe(true);
  });
});

describe("a oneOf without a discriminator whose branches overlap", () => {
  // ShipEngine's carrier settings: closed branches of optional properties only, so `{}` matches
  // every one of them and oneOf refuses it. Each branch's values carry a property the others do not allow.
  const branches = {
    Barcode: {
      type: "object",
      additionalProperties: false,
      properties: { include_barcode: { type: "boolean" }, email_on_manifest: { type: "boolean" } },
    },
    Buyer: { type: "object", additionalProperties: false, properties: { email: { type: "string", minLength: 1 } } },
  };
  for (const dialect of ["3.0.3", "3.1.0"] as const)
    it(`builds values that match exactly one branch (${dialect})`, () => {
      const { op, values } = draw(
        dialect,
        { oneOf: [{ $ref: "#/components/schemas/Barcode" }, { $ref: "#/components/schemas/Buyer" }] },
        60,
        branches,
      );
      for (const v of values) expect(accepted(op, v), stringifyExact(v)).toBe(true);
      // Both branches are drawn.
      expect(values.some((v) => "email" in (v as object))).toBe(true);
      expect(values.some((v) => "include_barcode" in (v as object) || "email_on_manifest" in (v as object))).toBe(true);
    });
});
