import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonExact } from "./exact-json.js";
import { exactTree, ExactLiteral, readExactJson, writeJson } from "./exact-tree.js";

describe("writeJson, the text of every answer the mock engine sends", () => {
  it("writes any JSON value as JSON.stringify does", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(writeJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500, seed: 7 },
    );
  });

  it("leaves out undefined properties, writes undefined items as null, as JSON.stringify does", () => {
    const value = { a: undefined, b: [1, undefined, "x"], c: { d: undefined } };
    expect(writeJson(value)).toBe(JSON.stringify(value));
  });

  it("writes exact numbers as sent: integers beyond 2^53, a decimal a double would make an integer", () => {
    const text = '{"id":9007199254740993,"big":-9223372036854775808,"price":1.00000000000000001,"n":[1,2.5]}';
    const parsed = parseJsonExact(text);
    if (!parsed.ok) throw new Error(parsed.message);
    const tree = exactTree(parsed.value, parsed.exact);
    expect(writeJson(tree)).toBe(text);
    expect(writeJson({ id: 12345678901234567890n, p: new ExactLiteral("1e400") })).toBe(
      '{"id":12345678901234567890,"p":1e400}',
    );
  });
});

describe("readExactJson, the exact tree of a text (the engine's store, the stateful checks, certificates)", () => {
  it("keeps integers beyond 2^53 as bigints and unfaithful decimals as their literal", () => {
    expect(readExactJson('{"id":9007199254740993,"n":[1.00000000000000001],"s":"x"}')?.value).toEqual({
      id: 9007199254740993n,
      n: [new ExactLiteral("1.00000000000000001")],
      s: "x",
    });
    expect(readExactJson("not json")).toBeUndefined();
  });

  it("costs no stack however deep the text, and keeps a `__proto__` member a member", () => {
    const deep = `${"[".repeat(20_000)}9007199254740993${"]".repeat(20_000)}`;
    let node = readExactJson(deep)?.value;
    for (let i = 0; i < 20_000; i++) node = (node as unknown[])[0];
    expect(node).toBe(9007199254740993n);
    const tree = readExactJson('{"__proto__":{"tag":"smuggled"},"id":9007199254740993}')?.value as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(tree)).toBe(Object.prototype);
    expect(tree.tag).toBeUndefined();
    expect(Object.keys(tree)).toEqual(["__proto__", "id"]);
  });
});
