import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAjv } from "./ajv.js";
import { canonicalInteger } from "./exact-json.js";
import { parseCookie, parseHeader, parsePath, parseQuery, splitCookies, splitQuery } from "./parameter-parse.js";
import type { ParsedParameter } from "./parameter-read.js";
import {
  buildQueryString,
  isFieldValue,
  serializeCookie,
  serializeHeader,
  serializePath,
  serializeQuery,
} from "./parameter-serialize.js";
import { shapeOfSchema, type ValueShape } from "./parameter-shape.js";
import { parameterStyle, type ParameterLocation, type ParameterStyle } from "./parameter-style.js";

const param = (
  location: ParameterLocation,
  style: string,
  explode: boolean,
  extra: Partial<ParameterStyle> = {},
): ParameterStyle => ({ name: "color", in: location, style, explode, ...extra });

function valueOf(result: ParsedParameter): unknown {
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function failureOf(result: ParsedParameter): string {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result.message;
}

const STRING = shapeOfSchema({ type: "string" });
const STRINGS = shapeOfSchema({ type: "array", items: { type: "string" } });
const RGB = shapeOfSchema({
  type: "object",
  properties: { R: { type: "integer" }, G: { type: "integer" }, B: { type: "integer" } },
});
const STRING_MAP = shapeOfSchema({ type: "object", additionalProperties: { type: "string" } });

/** Serialises as the table shows it: the path text, or the query string with its "?". */
function serialize(p: ParameterStyle, value: unknown): string {
  return p.in === "query" ? buildQueryString(serializeQuery(p, value)) : serializePath(p, value);
}

function parse(p: ParameterStyle, text: string, shape: ValueShape): ParsedParameter {
  return p.in === "query" ? parseQuery(p, text, shape) : parsePath(p, text, shape);
}

// The OpenAPI Specification 3.1.1, section 4.8.12.4 "Style Examples" (versions/3.1.1.md in
// OAI/OpenAPI-Specification), copied cell by cell: a parameter named `color` with the value string ->
// "blue", array -> ["blue", "black", "brown"], object -> { "R": 100, "G": 200, "B": 150 }. The
// `undefined` column (called `empty` in 3.1.0) is what RFC 6570 makes of an empty value; this kit
// writes the empty string, null, [] and {} that way. Cells marked n/a (undefined behaviour) are left out.
const OAS_311_STYLE_EXAMPLES: readonly (readonly [
  style: string,
  explode: boolean,
  cells: readonly (string | null)[],
])[] = [
  ["matrix", false, [";color", ";color=blue", ";color=blue,black,brown", ";color=R,100,G,200,B,150"]],
  ["matrix", true, [";color", ";color=blue", ";color=blue;color=black;color=brown", ";R=100;G=200;B=150"]],
  ["label", false, [".", ".blue", ".blue,black,brown", ".R,100,G,200,B,150"]],
  ["label", true, [".", ".blue", ".blue.black.brown", ".R=100.G=200.B=150"]],
  ["simple", false, ["", "blue", "blue,black,brown", "R,100,G,200,B,150"]],
  ["simple", true, ["", "blue", "blue,black,brown", "R=100,G=200,B=150"]],
  ["form", false, ["?color=", "?color=blue", "?color=blue,black,brown", "?color=R,100,G,200,B,150"]],
  ["form", true, ["?color=", "?color=blue", "?color=blue&color=black&color=brown", "?R=100&G=200&B=150"]],
  ["spaceDelimited", false, [null, null, "?color=blue%20black%20brown", "?color=R%20100%20G%20200%20B%20150"]],
  ["pipeDelimited", false, [null, null, "?color=blue%7Cblack%7Cbrown", "?color=R%7C100%7CG%7C200%7CB%7C150"]],
  ["deepObject", true, [null, null, null, "?color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"]],
];

const COLUMNS = [
  { column: "undefined", value: "", shape: STRING },
  { column: "string", value: "blue", shape: STRING },
  { column: "array", value: ["blue", "black", "brown"], shape: STRINGS },
  { column: "object", value: { R: 100, G: 200, B: 150 }, shape: RGB },
] as const;

const TABLE_CASES = OAS_311_STYLE_EXAMPLES.flatMap(([style, explode, cells]) =>
  cells.flatMap((expected, i) => {
    const { column, value, shape } = COLUMNS[i] as (typeof COLUMNS)[number];
    const location: ParameterLocation = ["matrix", "label", "simple"].includes(style) ? "path" : "query";
    return expected === null ? [] : [{ style, explode, column, value, shape, expected, location }];
  }),
);

describe("the OAS 3.1.1 style examples table (section 4.8.12.4)", () => {
  it("has every cell that is not n/a", () => {
    expect(TABLE_CASES).toHaveLength(37);
  });

  it.each(TABLE_CASES)(
    "$style explode=$explode $column -> $expected",
    ({ style, explode, value, shape, expected, location }) => {
      const p = param(location, style, explode);
      expect(serialize(p, value)).toBe(expected);
      expect(valueOf(parse(p, expected, shape))).toEqual(value);
    },
  );

  it.each(TABLE_CASES.filter((c) => c.style === "simple"))(
    "header simple explode=$explode $column -> $expected",
    ({ explode, value, shape, expected }) => {
      const p = param("header", "simple", explode);
      expect(serializeHeader(p, value)).toBe(expected);
      expect(valueOf(parseHeader(p, expected, shape))).toEqual(value);
    },
  );

  it("writes null, [] and {} as the undefined column", () => {
    for (const [style, explode, cells] of OAS_311_STYLE_EXAMPLES) {
      const expected = cells[0];
      if (expected === null || expected === undefined) continue;
      const location: ParameterLocation = ["matrix", "label", "simple"].includes(style) ? "path" : "query";
      const p = param(location, style, explode);
      expect(serialize(p, null)).toBe(expected);
      expect(serialize(p, [])).toBe(expected);
      // An exploded empty object in a query is absent (RFC 6570 section 2.3: an empty map is undefined).
      expect(serialize(p, {})).toBe(location === "query" && explode ? "" : expected);
      expect(valueOf(parse(p, expected, STRINGS))).toEqual([]);
      if (!(location === "query" && explode)) expect(valueOf(parse(p, expected, RGB))).toEqual({});
    }
  });

  it("reads the OAS 3.1.0 table's unencoded spellings of the same values (3.1.0 section 4.8.12.4)", () => {
    expect(valueOf(parseQuery(param("query", "pipeDelimited", false), "color=blue|black|brown", STRINGS))).toEqual([
      "blue",
      "black",
      "brown",
    ]);
    expect(valueOf(parseQuery(param("query", "pipeDelimited", false), "color=R|100|G|200|B|150", RGB))).toEqual({
      R: 100,
      G: 200,
      B: 150,
    });
    expect(
      valueOf(parseQuery(param("query", "deepObject", true), "color[R]=100&color[G]=200&color[B]=150", RGB)),
    ).toEqual({ R: 100, G: 200, B: 150 });
    expect(valueOf(parseQuery(param("query", "spaceDelimited", false), "color=blue+black+brown", STRINGS))).toEqual([
      "blue",
      "black",
      "brown",
    ]);
    // 3.1.0 shows label explode=false as ".blue.black.brown", an erratum fixed in 3.1.1: RFC 6570 section
    // 3.2.5 expands {.list} to ".red,green,blue". This kit follows 3.1.1 and RFC 6570.
    expect(serializePath(param("path", "label", false), ["blue", "black", "brown"])).toBe(".blue,black,brown");
  });
});

describe("the OAS 3.2.0 cookie style examples (section 4.12.12.4 Style Examples, style cookie)", () => {
  const rows = [
    [false, ["color=", "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"]],
    [true, ["color=", "color=blue", "color=blue; color=black; color=brown", "R=100; G=200; B=150"]],
  ] as const;
  it.each(rows)("cookie explode=%s", (explode, cells) => {
    cells.forEach((expected, i) => {
      const { value, shape } = COLUMNS[i] as (typeof COLUMNS)[number];
      for (const style of ["cookie", "form"]) {
        const p = param("cookie", style, explode);
        expect(serializeCookie(p, value)).toBe(expected);
        expect(valueOf(parseCookie(p, expected, shape))).toEqual(value);
      }
    });
  });

  it("percent-encodes form cookies and leaves cookie-style cookies as they are (OAS 3.2 parameter examples)", () => {
    const form = parameterStyle({ name: "greeting", in: "cookie" });
    expect(serializeCookie(form, "Hello, world!")).toBe("greeting=Hello%2C%20world%21");
    expect(valueOf(parseCookie(form, "greeting=Hello%2C%20world%21", STRING))).toBe("Hello, world!");
    const cookie = parameterStyle({ name: "cookie", in: "cookie", style: "cookie" });
    const shape = shapeOfSchema({
      type: "object",
      properties: { greeting: { type: "string" }, code: { type: "integer" } },
    });
    const value = { greeting: "Hello%2C world!", code: 42 };
    expect(serializeCookie(cookie, value)).toBe("greeting=Hello%2C world!; code=42");
    expect(valueOf(parseCookie(cookie, "greeting=Hello%2C world!; code=42", shape))).toEqual(value);
  });
});

describe("percent-encoding", () => {
  it("encodes every RFC 3986 reserved character in a path value, and % and space", () => {
    const p = param("path", "simple", false);
    const reserved = ":/?#[]@!$&'()*+,;=";
    expect(serializePath(p, reserved + "% ")).toBe("%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%25%20");
    expect(serializePath(p, "AZaz09-._~")).toBe("AZaz09-._~");
    expect(valueOf(parsePath(p, serializePath(p, reserved + "% "), STRING))).toBe(reserved + "% ");
  });

  it("encodes non-ASCII characters as UTF-8 (OAS 3.2 path parameter examples)", () => {
    const p = parameterStyle({ name: "username", in: "path" });
    expect(serializePath(p, "diṅnāga")).toBe("di%E1%B9%85n%C4%81ga");
    expect(serializePath(p, "الخوارزميّ")).toBe("%D8%A7%D9%84%D8%AE%D9%88%D8%A7%D8%B1%D8%B2%D9%85%D9%8A%D9%91");
    expect(valueOf(parsePath(p, "di%E1%B9%85n%C4%81ga", STRING))).toBe("diṅnāga");
    expect(serializePath(p, "😀")).toBe("%F0%9F%98%80");
  });

  it("encodes a parameter name that is not a URI name (OAS 3.1.1 Appendix C, illegal variable names)", () => {
    const p = parameterStyle({ name: "❤️", in: "query" });
    expect(buildQueryString(serializeQuery(p, "love!"))).toBe("?%E2%9D%A4%EF%B8%8F=love%21");
    expect(valueOf(parseQuery(p, "?%E2%9D%A4%EF%B8%8F=love%21", STRING))).toBe("love!");
  });

  it("serialises the OAS 3.1.1 Appendix C examples exactly", () => {
    const formulas = { a: "x+y", b: "x/y", c: "x^y" };
    const words = ["math", "is", "fun"];
    const mapShape = STRING_MAP;
    const plain = [
      ...serializeQuery(parameterStyle({ name: "formulas", in: "query", explode: true }), formulas),
      ...serializeQuery(parameterStyle({ name: "words", in: "query", explode: false }), words),
    ];
    expect(buildQueryString(plain)).toBe("?a=x%2By&b=x%2Fy&c=x%5Ey&words=math,is,fun");
    const reservedFormulas = parameterStyle({ name: "formulas", in: "query", explode: true, allowReserved: true });
    const spaced = parameterStyle({ name: "words", in: "query", style: "spaceDelimited", explode: false });
    const query = buildQueryString([...serializeQuery(reservedFormulas, formulas), ...serializeQuery(spaced, words)]);
    expect(query).toBe("?a=x%2By&b=x/y&c=x%5Ey&words=math%20is%20fun");
    // The spec's pre-encoded data (a: "x%2By") gives the same text: reserved expansion keeps triples.
    expect(serializeQuery(reservedFormulas, { a: "x%2By" })).toEqual(["a=x%2By"]);
    expect(valueOf(parseQuery(reservedFormulas, query, mapShape, new Set(["words"])))).toEqual(formulas);
    expect(valueOf(parseQuery(spaced, query, STRINGS))).toEqual(words);
    // Undefined values: an empty exploded object leaves no trace (Appendix C, "Undefined Values").
    expect(
      buildQueryString([...serializeQuery(reservedFormulas, {}), ...serializeQuery(spaced, ["hello", "world"])]),
    ).toBe("?words=hello%20world");
  });

  it("allowReserved keeps reserved characters and triples, and still encodes #[]&=+, space and %", () => {
    const p = param("query", "form", true, { allowReserved: true });
    expect(serializeQuery(p, ":/?@!$'()*,;")).toEqual(["color=:/?@!$'()*,;"]);
    expect(serializeQuery(p, "#[]&=+ %zz%41é")).toEqual(["color=%23%5B%5D%26%3D%2B%20%25zz%41%C3%A9"]);
    expect(valueOf(parseQuery(p, "color=:/?@!$'()*,;", STRING))).toBe(":/?@!$'()*,;");
    expect(serializeQuery({ ...p, allowReserved: false }, ":/?@!$'()*,;")).toEqual([
      "color=%3A%2F%3F%40%21%24%27%28%29%2A%2C%3B",
    ]);
  });

  it("splits before decoding, so encoded delimiters stay inside values (OAS 3.1.1 Appendix C)", () => {
    const p = param("query", "form", false);
    expect(serializeQuery(p, ["a,b", "c"])).toEqual(["color=a%2Cb,c"]);
    expect(valueOf(parseQuery(p, "color=a%2Cb,c", STRINGS))).toEqual(["a,b", "c"]);
    const label = param("path", "label", true);
    expect(serializePath(label, ["a.b", "c"])).toBe(".a%2Eb.c");
    expect(valueOf(parsePath(label, ".a%2Eb.c", STRINGS))).toEqual(["a.b", "c"]);
    expect(valueOf(parseQuery(param("query", "form", true), "color=a+b&color=c%2Bd", STRINGS))).toEqual(["a b", "c+d"]);
    expect(valueOf(parsePath(param("path", "simple", false), "a+b", STRING))).toBe("a+b");
  });

  it("does not percent-encode headers", () => {
    const p = param("header", "simple", false);
    expect(serializeHeader(p, "a b%/é")).toBe("a b%/é");
    expect(valueOf(parseHeader(p, "a%20b", STRING))).toBe("a%20b");
    expect(valueOf(parseHeader(p, ["a", "b , c"], STRINGS))).toEqual(["a", "b", "c"]);
    expect(isFieldValue("a b")).toBe(true);
    expect(isFieldValue(" a")).toBe(false);
    expect(isFieldValue("é")).toBe(false);
    expect(isFieldValue("a\r\nb")).toBe(false);
    expect(serializeHeader(p, undefined)).toBeUndefined();
    expect(valueOf(parseHeader(p, undefined, STRING))).toBeUndefined();
  });
});

describe("content-typed parameters", () => {
  const json = (location: ParameterLocation): ParameterStyle =>
    parameterStyle({ name: "filter", in: location, content: { "application/json": {} } });
  const value = { name: "Monstera, deliciosa", tags: ["a&b", "c=d"], id: 9007199254740993n, ok: true, none: null };
  const text = '{"name":"Monstera, deliciosa","tags":["a&b","c=d"],"id":9007199254740993,"ok":true,"none":null}';

  it("writes a JSON object into a query parameter as percent-encoded JSON text and reads it back exactly", () => {
    const p = json("query");
    const pieces = serializeQuery(p, value);
    expect(pieces).toEqual([
      `filter=${encodeURIComponent(text).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())}`,
    ]);
    const result = parseQuery(p, buildQueryString(pieces), shapeOfSchema({ type: "object" }));
    expect(result.ok && canonicalInteger((result.value as { id: unknown }).id, result.exact.get("/id"))).toBe(
      "9007199254740993",
    );
    expect({ ...(valueOf(result) as object), id: 0 }).toEqual({ ...value, id: 0 });
  });

  it("writes it raw into a header, encoded into a path and a cookie, and reads each back", () => {
    expect(serializeHeader(json("header"), value)).toBe(text);
    expect(valueOf(parseHeader(json("header"), text, STRING))).toMatchObject({ name: "Monstera, deliciosa" });
    const path = serializePath(json("path"), value);
    expect(path).not.toMatch(/[{}",:[\]]/);
    expect(valueOf(parsePath(json("path"), path, STRING))).toMatchObject({ tags: ["a&b", "c=d"] });
    const cookie = serializeCookie(json("cookie"), value) as string;
    expect(cookie).toMatch(/^filter=[^;, "]+$/);
    expect(valueOf(parseCookie(json("cookie"), `a=1; ${cookie}; b=2`, STRING))).toMatchObject({ ok: true });
  });

  it("refuses text that is not JSON, and takes text/plain as it is", () => {
    expect(failureOf(parseQuery(json("query"), "filter=%7Bnope", STRING))).toMatch(
      /^query parameter "filter": .*not JSON/,
    );
    const plain = parameterStyle({ name: "q", in: "query", content: { "text/plain": {} } });
    expect(serializeQuery(plain, "a b")).toEqual(["q=a%20b"]);
    expect(valueOf(parseQuery(plain, "q=123", shapeOfSchema({ type: "integer" })))).toBe("123");
    const problem = parameterStyle({ name: "q", in: "query", content: { "application/problem+json": {} } });
    expect(valueOf(parseQuery(problem, "q=%5B1%5D", STRING))).toEqual([1]);
  });
});

describe("coercion by the schema", () => {
  const q = param("query", "form", true);
  const read = (text: string, schema: unknown): unknown =>
    valueOf(parseQuery(q, `color=${text}`, shapeOfSchema(schema)));

  it("reads integers, numbers and booleans, and leaves strings and texts that are not of the type", () => {
    expect(read("42", { type: "integer" })).toBe(42);
    expect(read("-1.5e3", { type: "number" })).toBe(-1500);
    expect(read("1.5", { type: "integer" })).toBe(1.5); // the validator says "must be integer"
    expect(read("abc", { type: "integer" })).toBe("abc");
    expect(read("007", { type: "integer" })).toBe("007");
    expect(read("true", { type: "boolean" })).toBe(true);
    expect(read("false", { type: "boolean" })).toBe(false);
    expect(read("TRUE", { type: "boolean" })).toBe("TRUE");
    expect(read("42", { type: "string" })).toBe("42");
    expect(read("42", {})).toBe("42");
  });

  it("handles 3.1 type lists with null, 3.0 nullable, enum and const", () => {
    expect(read("", { type: ["integer", "null"] })).toBeNull();
    expect(read("", { type: "integer", nullable: true })).toBeNull();
    expect(read("", { type: ["string", "null"] })).toBe("");
    expect(read("7", { type: ["integer", "null"] })).toBe(7);
    expect(read("1.5", { type: ["integer", "string"] })).toBe("1.5");
    expect(read("2", { type: ["integer", "string"] })).toBe(2);
    expect(read("2", { enum: [1, 2, 3] })).toBe(2);
    expect(read("true", { const: true })).toBe(true);
  });

  it("follows $ref, allOf, anyOf and oneOf", () => {
    const doc: Record<string, unknown> = {
      Id: { type: "integer", format: "int64" },
      Ids: { type: "array", items: { $ref: "#/Id" } },
    };
    const resolve = (ref: string): unknown => doc[ref.slice(2)];
    const shape = shapeOfSchema({ $ref: "#/Ids" }, resolve);
    expect(shape.kind).toBe("array");
    expect(shape.items).toEqual(["integer"]);
    expect(shapeOfSchema({ allOf: [{ $ref: "#/Id" }, { minimum: 1 }] }, resolve).types).toEqual(["integer"]);
    expect(shapeOfSchema({ anyOf: [{ type: "integer" }, { type: "boolean" }] }).types).toEqual(["integer", "boolean"]);
    expect(shapeOfSchema({ oneOf: [{ type: "integer" }, {}] }).types).toEqual([]);
    expect(shapeOfSchema({ $ref: "#/Id" }).types).toEqual([]); // no resolver: the texts stay strings
    const cyclic: Record<string, unknown> = { A: { $ref: "#/A" } };
    expect(shapeOfSchema({ $ref: "#/A" }, (ref) => cyclic[ref.slice(2)]).kind).toBe("primitive");
    const obj = shapeOfSchema({
      allOf: [{ type: "object", properties: { a: { type: "integer" } } }, { properties: { b: { type: "boolean" } } }],
      additionalProperties: false,
    });
    expect(obj.kind).toBe("object");
    expect([...obj.properties]).toEqual([
      ["a", ["integer"]],
      ["b", ["boolean"]],
    ]);
    expect(obj.additionalProperties).toBe(false);
    expect(shapeOfSchema({ properties: { a: {} } }).kind).toBe("object");
    expect(shapeOfSchema({ items: { type: "number" } }).kind).toBe("array");
  });

  it("reads nested arrays and objects written as JSON where the schema has them", () => {
    const p = param("query", "deepObject", true);
    const shape = shapeOfSchema({
      type: "object",
      properties: { tags: { type: "array" }, meta: { type: "object" }, n: { type: "integer" } },
    });
    const value = { tags: ["a", 1], meta: { big: 9007199254740993n }, n: 1 };
    const pieces = serializeQuery(p, value);
    expect(pieces[0]).toBe("color%5Btags%5D=%5B%22a%22%2C1%5D");
    const result = parseQuery(p, buildQueryString(pieces), shape);
    expect(valueOf(result)).toMatchObject({ tags: ["a", 1], n: 1 });
    expect(result.ok && result.exact.get("/meta/big")?.integer).toBe(9007199254740993n);
  });
});

describe("int64 beyond 2^53", () => {
  const ajv = createAjv("openapi-3.1");
  const int64 = ajv.compile({ type: "integer", format: "int64" });
  const ids = ajv.compile({ type: "array", items: { type: "integer", format: "int64" } });

  it("keeps a path id exactly, as exact-json keeps it in bodies, so the int64 validator judges it right", () => {
    const p = parameterStyle({ name: "id", in: "path" });
    const shape = shapeOfSchema({ type: "integer", format: "int64" });
    expect(serializePath(p, 9007199254740993n)).toBe("9007199254740993");
    const result = parsePath(p, "9007199254740993", shape);
    if (!result.ok) throw new Error(result.message);
    expect(canonicalInteger(result.value, result.exact.get(""))).toBe("9007199254740993");
    expect(int64(result.value)).toBe(true);
    const above = parsePath(p, "9223372036854775808", shape);
    expect(above.ok && int64(above.value)).toBe(false);
    const max = parsePath(p, "9223372036854775807", shape);
    expect(max.ok && int64(max.value)).toBe(true);
    expect(max.ok && max.exact.get("")?.integer).toBe(9223372036854775807n);
  });

  it("keeps array items and object properties exactly, by JSON pointer", () => {
    const p = parameterStyle({ name: "ids", in: "query", explode: false });
    const result = parseQuery(
      p,
      "ids=1,9007199254740993,-9223372036854775808",
      shapeOfSchema({ type: "array", items: { type: "integer" } }),
    );
    if (!result.ok) throw new Error(result.message);
    const items = result.value as unknown[];
    expect(items.map((x, i) => canonicalInteger(x, result.exact.get(`/${i}`)))).toEqual([
      "1",
      "9007199254740993",
      "-9223372036854775808",
    ]);
    expect(ids(result.value)).toBe(true);
    const deep = parseQuery(
      parameterStyle({ name: "f", in: "query", style: "deepObject" }),
      "f[a/b]=18446744073709551616&f[]=1",
      shapeOfSchema({ type: "object", additionalProperties: { type: "integer" } }),
    );
    expect(deep.ok && deep.exact.get("/a~1b")?.integer).toBe(18446744073709551616n);
    expect(valueOf(deep)).toEqual({ "a/b": 2 ** 64, "": 1 }); // the stand-in beside the exact value; [] is the key ""
  });

  it("round-trips every int64 exactly in every style", () => {
    const shape = shapeOfSchema({ type: "array", items: { type: "integer", format: "int64" } });
    const styles: ParameterStyle[] = [
      param("path", "simple", false),
      param("path", "label", true),
      param("path", "matrix", true),
      param("query", "form", true),
      param("query", "pipeDelimited", false),
      param("header", "simple", false),
      param("cookie", "form", true),
    ];
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { minLength: 1, maxLength: 5 }),
        (list) => {
          for (const p of styles) {
            const result = roundTrip(p, list, shape);
            if (!result.ok) throw new Error(result.message);
            const back = (result.value as unknown[]).map((x, i) => canonicalInteger(x, result.exact.get(`/${i}`)));
            expect(back).toEqual(list.map(String));
            expect(ids(result.value)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("malformed parameters are failures, not exceptions", () => {
  it.each([
    [
      "matrix without its prefix",
      parsePath(param("path", "matrix", false), "color=blue", STRING),
      /starts with ";color"/,
    ],
    [
      "matrix of another name",
      parsePath(param("path", "matrix", false), ";colour=blue", STRING),
      /";color=\.\.\." once/,
    ],
    ["matrix repeated", parsePath(param("path", "matrix", false), ";color=a;color=b", STRING), /once/],
    [
      "exploded matrix with a stray name",
      parsePath(param("path", "matrix", true), ";color=a;x=b", STRINGS),
      /";x" is not/,
    ],
    ["label without its dot", parsePath(param("path", "label", false), "blue", STRING), /starts with "\."/],
    ["an odd object", parsePath(param("path", "simple", false), "R,100,G", RGB), /3 items are odd/],
    [
      "an exploded object item without =",
      parsePath(param("path", "simple", true), "R=100,G", RGB),
      /"G" is not a key=value/,
    ],
    ["a repeated key", parsePath(param("path", "simple", false), "R,1,R,2", RGB), /"R" is given more than once/],
    [
      "bad percent-encoding",
      parsePath(param("path", "simple", false), "%E0%A4%A", STRING),
      /not valid percent-encoded/,
    ],
    ["encoded bytes that are not UTF-8", parseQuery(param("query", "form", true), "color=%FF", STRING), /not valid/],
    ["deepObject without its brackets", parseQuery(param("query", "deepObject", true), "color=1", RGB), /color\[key\]/],
    ["deepObject left open", parseQuery(param("query", "deepObject", true), "color%5BR=1", RGB), /not color\[key\]/],
    [
      "deepObject left open, unencoded",
      parseQuery(param("query", "deepObject", true), "color[R=1", RGB),
      /not color\[key\]/,
    ],
    ["a repeated primitive", parseQuery(param("query", "form", true), "color=a&color=b", STRING), /given 2 times/],
    ["a repeated unexploded array", parseQuery(param("query", "form", false), "color=a&color=b", STRINGS), /2 times/],
  ])("%s", (_name, result, message) => {
    expect(failureOf(result)).toMatch(message);
  });

  it("names the parameter and its location, and quotes the text it got, cut short", () => {
    expect(failureOf(parsePath(param("path", "label", false), "x", STRING))).toMatch(/^path parameter "color": /);
    const message = failureOf(parsePath(param("path", "label", false), "\n" + "x".repeat(10_000), STRING));
    expect(message).toContain('"\\nxxx');
    expect(message.length).toBeLessThan(200);
  });
});

describe("absent parameters, other names and edge values", () => {
  it("is undefined when absent", () => {
    for (const shape of [STRING, STRINGS, RGB]) {
      expect(valueOf(parseQuery(param("query", "form", true), "other=1", shape, new Set(["other"])))).toBeUndefined();
      expect(valueOf(parseQuery(param("query", "deepObject", true), "", shape))).toBeUndefined();
      expect(valueOf(parseCookie(param("cookie", "form", false), "other=1", shape))).toBeUndefined();
      expect(valueOf(parseCookie(param("cookie", "form", false), undefined, shape))).toBeUndefined();
    }
    expect(serializeQuery(param("query", "form", true), undefined)).toEqual([]);
    expect(serializeCookie(param("cookie", "form", true), undefined)).toBeUndefined();
    expect(serializeCookie(param("cookie", "form", true), {})).toBeUndefined();
    expect(buildQueryString([])).toBe("");
  });

  it("gives an exploded object the pairs its schema names, and the others but otherNames unless it is closed", () => {
    const p = param("query", "form", true);
    const query = "R=1&page=2&X=3&G=4";
    expect(valueOf(parseQuery(p, query, RGB, new Set(["page"])))).toEqual({ R: 1, X: "3", G: 4 });
    const closed = shapeOfSchema({
      type: "object",
      properties: { R: { type: "integer" } },
      additionalProperties: false,
    });
    expect(valueOf(parseQuery(p, query, closed))).toEqual({ R: 1 });
    const cookies = param("cookie", "form", true);
    expect(valueOf(parseCookie(cookies, "R=1; session=x; G=2", RGB, new Set(["session"])))).toEqual({ R: 1, G: 2 });
  });

  it("takes the first of repeated cookies and splits several Cookie lines", () => {
    const p = param("cookie", "form", false);
    expect(valueOf(parseCookie(p, "color=a; color=b", STRING))).toBe("a");
    expect(valueOf(parseCookie(p, ["x=1", "color=c"], STRING))).toBe("c");
    expect(splitCookies(" a=1 ;b= 2;;c")).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["c", ""],
    ]);
    expect(valueOf(parseCookie(p, splitCookies("color=d"), STRING))).toBe("d");
  });

  it("keeps __proto__ an own key and never touches Object.prototype", () => {
    const result = parseQuery(
      param("query", "deepObject", true),
      "color[__proto__]=1&color[constructor]=2",
      STRING_MAP,
    );
    const value = valueOf(result) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(Object.keys(value)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it("splits a query string into decoded names and raw values", () => {
    expect(splitQuery("?a+b=1%2C2&&c&%ZZ=3")).toEqual([
      ["a b", "1%2C2"],
      ["c", ""],
      ["%ZZ", "3"],
    ]);
    expect(splitQuery("")).toEqual([]);
  });

  it("writes numbers, booleans, bigints and nested values as texts", () => {
    const p = param("path", "simple", false);
    expect(serializePath(p, [1, -0, 1.5e-7, true, 12345678901234567890n])).toBe("1,0,1.5e-7,true,12345678901234567890");
    expect(serializePath(p, { a: { b: [1] }, u: undefined })).toBe("a,%7B%22b%22%3A%5B1%5D%7D");
    expect(serializeHeader(parameterStyle({ name: "X-Token", in: "header" }), [12345678, 90099])).toBe(
      "12345678,90099",
    );
  });

  it("applies the Parameter Object defaults (OAS 3.1 section 4.8.12.2)", () => {
    expect(parameterStyle({ name: "a", in: "query" })).toEqual({
      name: "a",
      in: "query",
      style: "form",
      explode: true,
    });
    expect(parameterStyle({ name: "a", in: "cookie" })).toEqual({
      name: "a",
      in: "cookie",
      style: "form",
      explode: true,
    });
    expect(parameterStyle({ name: "a", in: "path" })).toEqual({
      name: "a",
      in: "path",
      style: "simple",
      explode: false,
    });
    expect(parameterStyle({ name: "a", in: "header" })).toEqual({
      name: "a",
      in: "header",
      style: "simple",
      explode: false,
    });
    expect(parameterStyle({ name: "a", in: "query", style: "deepObject" }).explode).toBe(false);
    expect(parameterStyle({ name: "a", in: "query", style: "form", explode: false, allowReserved: true })).toEqual({
      name: "a",
      in: "query",
      style: "form",
      explode: false,
      allowReserved: true,
    });
    expect(parameterStyle({ name: "a", in: "query", content: { "application/json": {} } }).contentType).toBe(
      "application/json",
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Round trips

/** Cookies of other parameters around the one read (no generator's alphabet spells these names but grapheme's, and that one all but never). */
const OTHER_COOKIES: ReadonlySet<string> = new Set(["sid", "theme"]);

function roundTrip(p: ParameterStyle, value: unknown, shape: ValueShape): ParsedParameter {
  switch (p.in) {
    case "path":
      return parsePath(p, serializePath(p, value), shape);
    case "query":
      return parseQuery(p, buildQueryString(serializeQuery(p, value)), shape);
    case "header":
      return parseHeader(p, serializeHeader(p, value), shape);
    case "cookie":
      return parseCookie(
        p,
        ["sid=1", serializeCookie(p, value), "theme=dark"].filter((x) => x !== undefined).join("; "),
        shape,
        OTHER_COOKIES,
      );
  }
}

/** Characters that break naive encoders: delimiters of every style, %, +, space, quotes, non-ASCII. */
const UNSAFE = [..."abc,;=.&+%|[]#?/: \"'!*()~-_é😀\u0000\t"];
const anyString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...UNSAFE), maxLength: 12 }),
);
const headerString = fc
  .string({ unit: fc.constantFrom(..."abcXYZ019-_.~!#$%&'*+/:;<=>?@[]^`{|}\" "), maxLength: 12 })
  .filter((s) => s === s.trim());
const cookieString = fc.string({ unit: fc.constantFrom(..."abcXYZ019-_.~!#$%&'*+/:<>?@[]^`{|}"), maxLength: 12 });

interface Case {
  readonly p: ParameterStyle;
  /** The characters a value of this style may hold and still be read back unambiguously. */
  readonly text: fc.Arbitrary<string>;
}

const CASES: readonly Case[] = [
  ...[false, true].flatMap((explode) => [
    { p: param("path", "simple", explode), text: anyString },
    { p: param("path", "label", explode), text: anyString },
    { p: param("path", "matrix", explode), text: anyString },
    { p: param("query", "form", explode), text: anyString },
    { p: param("query", "form", explode, { allowReserved: true }), text: anyString.filter((s) => !/[%,]/.test(s)) },
    // OAS 3.1.1 Appendix E: a space or a pipe inside a value cannot be told from the delimiter.
    { p: param("query", "spaceDelimited", explode), text: anyString.filter((s) => !s.includes(" ")) },
    { p: param("query", "pipeDelimited", explode), text: anyString.filter((s) => !s.includes("|")) },
    { p: param("header", "simple", explode), text: headerString.filter((s) => !/[,=]/.test(s)) },
    { p: param("cookie", "form", explode), text: anyString },
    { p: param("cookie", "cookie", explode), text: cookieString.filter((s) => !s.includes("=")) },
  ]),
  { p: param("query", "deepObject", true), text: anyString },
];

const label = (c: Case): string =>
  `${c.p.in} ${c.p.style} explode=${c.p.explode}${c.p.allowReserved ? " allowReserved" : ""}`;

describe("round trips (fast-check)", () => {
  it.each(CASES.filter((c) => c.p.style !== "deepObject").map((c) => [label(c), c] as const))(
    "strings: %s",
    (_l, c) => {
      fc.assert(
        fc.property(c.text, (s) => {
          expect(valueOf(roundTrip(c.p, s, STRING))).toBe(s);
        }),
        { numRuns: 150 },
      );
    },
  );

  it.each(CASES.filter((c) => c.p.style !== "deepObject").map((c) => [label(c), c] as const))("arrays: %s", (_l, c) => {
    const list = fc.array(c.text, { maxLength: 5 }).filter((a) => !(a.length === 1 && a[0] === "")); // [""] reads as []
    fc.assert(
      fc.property(list, (a) => {
        expect(valueOf(roundTrip(c.p, a, STRINGS))).toEqual(a);
      }),
      { numRuns: 150 },
    );
  });

  it.each(CASES.map((c) => [label(c), c] as const))("objects: %s", (_l, c) => {
    const absentWhenEmpty = c.p.explode && (c.p.in === "query" || c.p.in === "cookie");
    const map = fc
      .dictionary(c.text, c.text, { maxKeys: 4, noNullPrototype: true })
      .filter((o) => !(absentWhenEmpty && Object.keys(o).length === 0))
      // `;color` is the empty object in exploded matrix style, and {color: ""} would write it too.
      .filter((o) => !(c.p.style === "matrix" && c.p.explode && Object.keys(o).length === 1 && o["color"] === ""));
    fc.assert(
      fc.property(map, (o) => {
        expect(valueOf(roundTrip(c.p, o, STRING_MAP))).toEqual(o);
      }),
      { numRuns: 150 },
    );
  });

  it("numbers and booleans come back as themselves when the schema says so", () => {
    const scalar = shapeOfSchema({ type: ["number", "boolean", "null"] });
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
      fc.boolean(),
    );
    fc.assert(
      fc.property(value, (v) => {
        for (const c of CASES.filter((x) => x.p.style !== "deepObject")) {
          expect(valueOf(roundTrip(c.p, v, scalar))).toBe(v);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("never throws on any text", () => {
    const shapes = [STRING, STRINGS, RGB, STRING_MAP];
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...UNSAFE, "%2", "%E0", "%ZZ", "[", "]"), maxLength: 20 }),
        (text) => {
          for (const c of CASES) {
            for (const shape of shapes) {
              parsePath(c.p, text, shape);
              parseQuery(c.p, text, shape);
              parseHeader(c.p, text, shape);
              parseCookie(c.p, text, shape);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
