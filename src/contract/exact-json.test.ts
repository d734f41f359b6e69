import { describe, expect, it } from "vitest";
import { canonicalInteger, maybeUnfaithful, parseJsonExact, stringifyExact } from "./exact-json.js";

const idOf = (text: string): string | undefined => {
  const r = parseJsonExact(text);
  if (!r.ok) throw new Error(r.message);
  return canonicalInteger((r.value as { id: unknown }).id, r.exact.get("/id"));
};

describe("parseJsonExact", () => {
  it.each([
    ['{"id":0}', "0"],
    ['{"id":-0}', "0"],
    ['{"id":1.0}', "1"],
    ['{"id":1e2}', "100"],
    ['{"id":123456789012345}', "123456789012345"],
    ['{"id":9007199254740992}', "9007199254740992"],
    ['{"id":9007199254740993}', "9007199254740993"],
    ['{"id":9223372036854775807}', "9223372036854775807"],
    ['{"id":-9223372036854775808}', "-9223372036854775808"],
    ['{"id":9223372036854775806}', "9223372036854775806"],
    ['{"id":92233720368547758.07e2}', "9223372036854775807"],
    ['{"id":9223372036854775807.000}', "9223372036854775807"],
  ])("keeps %s exact as %s", (text, id) => {
    expect(idOf(text)).toBe(id);
  });

  it.each([['{"id":1.5}'], ['{"id":1.00000000000000001}'], ['{"id":9007199254740993.5}'], ['{"id":1e-400}']])(
    "knows %s is not an integer",
    (text) => {
      expect(idOf(text)).toBeUndefined();
      const r = parseJsonExact(text);
      expect(r.ok && Number.isInteger((r.value as { id: number }).id)).toBe(false);
    },
  );

  it("records exact values by JSON pointer, escaping ~ and /", () => {
    const r = parseJsonExact('{"a/b":{"c~d":[1,12345678901234567890]}}');
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.exact.get("/a~1b/c~0d/1")?.integer).toBe(12345678901234567890n);
  });

  it("leaves numbers inside strings alone", () => {
    const r = parseJsonExact('{"name":"12345678901234567890 and 1e5"}');
    expect(r.ok && (r.value as { name: string }).name).toBe("12345678901234567890 and 1e5");
  });

  it("handles a text that is a single big number", () => {
    const r = parseJsonExact("18446744073709551616");
    expect(r.ok && r.exact.get("")?.integer).toBe(18446744073709551616n);
  });

  it.each(["", "{", '{"id":}', "01", '{"id":1}x', "[1,]", "\u00ff"])(
    "reports a syntax error for %j without throwing",
    (text) => {
      const r = parseJsonExact(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message.length).toBeGreaterThan(0);
    },
  );

  it("does not compute astronomically large exponents", () => {
    const r = parseJsonExact('{"id":1e1000000000}');
    expect(r.ok && r.exact.get("/id")).toMatchObject({ isInteger: true, integer: undefined });
  });

  it("parses deep nesting with a big number without overflowing the stack", () => {
    const depth = 50_000;
    const r = parseJsonExact("[".repeat(depth) + "12345678901234567890" + "]".repeat(depth));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.exact.size).toBe(1);
  });

  it("keeps a __proto__ key as plain data", () => {
    const r = parseJsonExact('{"__proto__":{"polluted":12345678901234567890}}');
    expect(r.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    if (r.ok) expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
  });
});

describe("parseJsonExact on hostile texts (review findings)", () => {
  it.each(['{"id":15,"name":"a",1e99:1}', '{1e400:"x"}', '{"a":1, 12345678901234567890 : 2}'])(
    "rejects a number where a key belongs: %s",
    (text) => {
      expect(parseJsonExact(text).ok).toBe(false);
    },
  );

  it("reports syntax errors at positions in the text as sent", () => {
    const r = parseJsonExact("[1e400 x]");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain("position 7");
  });

  it("handles a million-digit number with a long run of zeros (linear, not quadratic)", () => {
    const r = parseJsonExact(`{"id":1${"0".repeat(1_000_000)}1,"name":"a"}`);
    expect(r.ok && r.exact.get("/id")).toMatchObject({ isInteger: true, integer: undefined });
  });

  it("handles deep nesting holding many big numbers, and finds a value by pointer", () => {
    const depth = 20_000;
    const nums = Array(40_000).fill("1e99").join(",");
    const r = parseJsonExact(`{"x":${"[".repeat(depth)}${nums}${"]".repeat(depth)},"id":12345678901234567890}`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.exact.size).toBe(40_001);
    expect(r.exact.get("/id")?.integer).toBe(12345678901234567890n);
    expect(r.exact.get("/missing/0")).toBeUndefined();
  });
});

describe("stringifyExact", () => {
  it("writes bigints as exact integer literals and leaves strings that look like markers alone", () => {
    const text = stringifyExact({ a: 9223372036854775807n, b: [-1n], c: "bigint-0" });
    expect(text).toBe('{"a":9223372036854775807,"b":[-1],"c":"bigint-0"}');
  });
});

describe("maybeUnfaithful", () => {
  // Its meaning, as the regular expression it replaced states it.
  const meaning = /[\d.]{16}|\d[eE]/;

  it.each([
    ["1e5", true],
    ["1E5", true],
    [".e5", false],
    ["1.e5", false],
    ["e1", false],
    ["9007199254740993", true],
    ["900719925474099", false],
    ["1.2345678901234", false],
    ["1.23456789012345", true],
    ["...............", false],
    ["................", true],
    ['{"id":1000000000123,"name":"Bench fern"}', false],
    ['{"name":"Fern 3e"}', true],
    ["", false],
  ])("%j: %s", (text, expected) => {
    expect(maybeUnfaithful(text)).toBe(expected);
    expect(meaning.test(text)).toBe(expected);
  });

  it("agrees with the regular expression on 20,000 random texts", () => {
    const alphabet = '0123456789.eE-+ a"{}:,';
    let seed = 33;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      const length = Math.floor(next() * 40);
      // Mostly digits and dots, so that runs near 16 are common.
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() ** 3 * alphabet.length)];
      if (maybeUnfaithful(text) !== meaning.test(text)) expect(text).toBe("judged as the regular expression does");
    }
  });
});
