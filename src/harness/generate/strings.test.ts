import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { patternArb } from "./strings.js";

describe("patternArb, strings for a schema's pattern", () => {
  it("makes each pattern's arbitrary once, and draws the same strings for the same seed", () => {
    const pattern = "^[a-z][a-z0-9-]{2,8}\\.example$";
    const first = patternArb(pattern);
    expect(first).toBeDefined();
    expect(patternArb(pattern)).toBe(first);
    const draw = (): string[] => fc.sample(patternArb(pattern)!, { numRuns: 20, seed: 11 });
    const drawn = draw();
    expect(draw()).toEqual(drawn);
    for (const s of drawn) expect(s).toMatch(new RegExp(pattern, "u"));
  });

  it("reads a pattern without the u flag where Unicode mode refuses it, and gives none for no pattern", () => {
    // `\:` is an error in Unicode mode (DigitalOcean's tag names).
    const arb = patternArb("^[a-z\\:]+$");
    expect(fc.sample(arb!, { numRuns: 5, seed: 3 }).every((s) => /^[a-z:]+$/.test(s))).toBe(true);
    expect(patternArb(undefined)).toBeUndefined();
    expect(patternArb("(")).toBeUndefined();
  });
});
