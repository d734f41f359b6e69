import { describe, expect, it } from "vitest";
import { escapeRegExp } from "./regexp.js";

describe("escapeRegExp", () => {
  it.each(["/plants/{id}.json", "a+b*c?", "^$|()[]{}", "back\\slash", "1.5", "plain"])(
    "%j matches only itself",
    (text) => {
      const pattern = new RegExp(`^${escapeRegExp(text)}$`);
      expect(pattern.test(text)).toBe(true);
      expect(pattern.test(`${text}x`)).toBe(false);
      expect(pattern.test(text.replace(/./, "z"))).toBe(text.startsWith("z"));
    },
  );
});
