import { describe, expect, it } from "vitest";
import { escapePointer, resolvePointer, unescapePointer } from "./json-pointer.js";

describe("JSON Pointer reference tokens (RFC 6901)", () => {
  it.each([
    ["plain", "plain"],
    ["/plants", "~1plants"],
    ["application/json", "application~1json"],
    ["a~b", "a~0b"],
    ["~1", "~01"],
    ["/~", "~1~0"],
    ["", ""],
  ])("%j <-> %j", (segment, token) => {
    expect(escapePointer(segment)).toBe(token);
    expect(unescapePointer(token)).toBe(segment);
  });

  it("resolves pointers through objects and arrays, and nowhere else", () => {
    const doc = { paths: { "/plants": { post: { tags: ["a", "b"] } } }, "a~b": 1 };
    expect(resolvePointer(doc, "")).toBe(doc);
    expect(resolvePointer(doc, "/paths/~1plants/post/tags/1")).toBe("b");
    expect(resolvePointer(doc, "/a~0b")).toBe(1);
    expect(resolvePointer(doc, "/paths/~1pets")).toBeUndefined();
    expect(resolvePointer(doc, "/paths/~1plants/post/tags/1/length")).toBeUndefined();
    expect(resolvePointer(doc, "/toString")).toBeUndefined();
  });
});
