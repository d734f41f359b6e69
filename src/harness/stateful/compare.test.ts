import { describe, expect, it } from "vitest";
import { ExactLiteral } from "../../contract/index.js";
import { compareIds, numericKey, sameValue, shown } from "./compare.js";

describe("sameValue: a value as a server may keep it, never a different one", () => {
  it.each([
    ["an int64 to the last digit", 9007199254740993n, 9007199254740993n, true],
    ["an int64 rounded through a double", 9007199254740993n, 9007199254740992, false],
    ["1.5 written as 1.50 or 15e-1", 1.5, new ExactLiteral("15e-1"), true],
    ["0.1 kept as a float32", 0.1, Math.fround(0.1), true],
    ["an integer kept as a float32 is another integer", 16777217, 16777216, false],
    ["a number as its digits", 42, "42", true],
    ["text trimmed, in another case, in NFC", " Caf\u0065\u0301 ", "café", true],
    ["other text", "fern", "palm", false],
    ["an instant in another zone", "2024-01-01T01:00:00+01:00", "2024-01-01T00:00:00.000Z", true],
    ["another instant", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", false],
    ["an array in another order", ["a", "b"], ["b", "a"], true],
    ["an array that lost an item", ["a", "b"], ["a"], false],
    ["an object with properties added, one it does not name dropped", { a: 1, x: 2 }, { a: 1, b: 3 }, true],
    ["an object with a property changed", { a: 1 }, { a: 2 }, false],
    ["a null written (a merge patch's remove) and a default read", null, "default", true],
    ["true and false", true, false, false],
  ])("%s", (_what, written, read, same) => {
    expect(sameValue(written, read)).toBe(same);
  });
});

describe("compareIds", () => {
  it.each([
    [9007199254740993n, 9007199254740993n, "same"],
    [9007199254740993n, 9007199254740992, "different"],
    [7n, new ExactLiteral("7.0"), "same"],
    ["AbC", "abc", "written-otherwise"],
    ["abc", "abd", "different"],
  ] as const)("%s and %s: %s", (made, read, expected) => {
    expect(compareIds(made, read)).toBe(expected);
  });
});

it("numericKey and shown write numbers exactly", () => {
  expect(numericKey(100n)).toBe(numericKey(new ExactLiteral("1e2")));
  expect(numericKey(0.5)).toBe("5e-1");
  expect(shown({ id: 9007199254740993n, d: new ExactLiteral("1.00000000000000001") })).toBe(
    '{"id":9007199254740993,"d":1.00000000000000001}',
  );
  expect(shown("x".repeat(200), 10)).toBe(`"${"x".repeat(9)}...`);
});
