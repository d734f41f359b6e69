import { describe, expect, it } from "vitest";
import { canonicalJson, duplicateKeys, exactDecimalText, parseCanonicalInput } from "./canonical-json.js";

const canonicalOf = (text: string): string => {
  const parsed = parseCanonicalInput(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return canonicalJson(parsed.value);
};

describe("canonical JSON (RFC 8785 style)", () => {
  it("sorts keys by UTF-16 code units and writes no white space (RFC 8785 section 3.2.3's example)", () => {
    const value = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    const keys = [...canonicalJson(value).matchAll(/"([^"]*)":/g)].map((m) => m[1]);
    expect(keys).toEqual(["\\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"]);
    expect(canonicalJson({ b: [1, { d: true, c: null }], a: "x" })).toBe('{"a":"x","b":[1,{"c":null,"d":true}]}');
  });

  it("writes numbers and strings as ECMAScript does (RFC 8785 section 3.2.2's examples)", () => {
    expect(canonicalJson([333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001, -0, 1e21])).toBe(
      "[333333333.3333333,1e+30,4.5,0.002,1e-27,0,1e+21]",
    );
    // Read from a text, an integer beyond 2^53 keeps all its digits (up to 40), however it is written.
    expect(canonicalOf("[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001, -0, 1e21]")).toBe(
      "[333333333.3333333,1000000000000000000000000000000,4.5,0.002,1e-27,0,1000000000000000000000]",
    );
    expect(canonicalOf("[1e21]")).toBe(canonicalOf("[1000000000000000000000.0]"));
    expect(canonicalJson(["\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"/"])).toBe('["€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"]');
  });

  it("keeps integers beyond 2^53 exactly, and non-integers a double would turn into integers", () => {
    expect(canonicalOf('{"id": 9007199254740993}')).toBe('{"id":9007199254740993}');
    expect(canonicalOf('{"id": 9007199254740993}')).not.toBe(canonicalOf('{"id": 9007199254740992}'));
    // One value, written three ways: one text.
    expect(canonicalOf("[9223372036854775807]")).toBe("[9223372036854775807]");
    expect(canonicalOf("[9.223372036854775807e18]")).toBe("[9223372036854775807]");
    expect(canonicalOf("[1.00000000000000001]")).not.toBe(canonicalOf("[1]"));
    expect(canonicalOf("[1.00000000000000001]")).toBe(canonicalOf("[1.000000000000000010e0]"));
    expect(canonicalJson([2n ** 64n])).toBe("[18446744073709551616]");
  });

  it("normalises exact decimals: no leading or trailing zeros, one exponent", () => {
    expect(exactDecimalText("1.00000000000000001")).toBe("100000000000000001e-17");
    expect(exactDecimalText("-0012.3400e2")).toBe("-1234e0");
    expect(exactDecimalText("0.000")).toBe("0");
  });

  it("refuses what JSON does not have, naming where", () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow("/a/1: NaN is not a JSON number");
    expect(() => canonicalJson({ when: new Date(0) })).toThrow("/when");
  });

  it("a key named __proto__ is data, never a prototype", () => {
    expect(canonicalOf('{"__proto__": 9007199254740993, "a": 1}')).toBe('{"__proto__":9007199254740993,"a":1}');
  });

  it("handles deep nesting without recursion", () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    expect(canonicalJson(JSON.parse(deep))).toBe(deep);
  });

  it("finds members given twice, by JSON pointer", () => {
    expect(duplicateKeys('{"a": 1, "b": {"c": 1, "c": 2}, "l": [{"x": 1}, {"x": 2, "x": 3}], "a": 2}')).toEqual([
      "/b/c",
      "/l/1/x",
      "/a",
    ]);
    expect(duplicateKeys('{"a": "{\\"a\\": 1, \\"a\\": 2}", "b": ["a", "a"]}')).toEqual([]);
  });
});
