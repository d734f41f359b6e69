import { describe, expect, it } from "vitest";
import { keyOf, numberText } from "./engine-values.js";

// The oracle is ECMAScript's Number::toString (String(n)): numberText must write exactly its text.
describe("numberText", () => {
  it.each([
    0,
    -0,
    1,
    -1,
    7,
    999_999_999,
    -999_999_999,
    1e9,
    -1e9,
    1_000_000_001,
    1e12,
    1_000_000_000_000_000,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    2 ** 53,
    2 ** 53 + 2,
    1e21,
    1.5,
    -2.25,
    1e-7,
    0.1,
  ])("writes %s as String does", (n) => {
    expect(numberText(n)).toBe(String(n));
  });

  it("writes 50,000 random integers of every length as String does", () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 50_000; i++) {
      const digits = 1 + Math.floor(random() * 16);
      const n = Math.floor(random() * 10 ** digits) * (random() < 0.5 ? -1 : 1);
      expect(numberText(n)).toBe(String(n));
    }
  });

  it("is the key of a number", () => {
    expect(keyOf(1_000_000_000_007)).toBe("1000000000007");
    expect(keyOf(-1_000_000_000_007)).toBe("-1000000000007");
  });
});
