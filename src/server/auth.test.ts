import { describe, expect, it } from "vitest";
import { KitError } from "../errors.js";
import { acceptedTokens, createBearerCheck, oneOf } from "./auth.js";
import { DEV_TOKEN } from "./defaults.js";

describe("the bearer check", () => {
  const check = createBearerCheck(["short", "a-much-longer-token-0123456789", "x"]);

  it.each([
    ["Bearer short", undefined],
    ["Bearer a-much-longer-token-0123456789", undefined],
    ["bearer x", undefined],
    ["Bearer shor", "invalid"],
    ["Bearer shortt", "invalid"],
    ["Bearer shorT", "invalid"],
    ["Bearer s", "invalid"],
    ["Bearer xx", "invalid"],
    ["Bearer a-much-longer-token-012345678", "invalid"],
    ["Bearer a-much-longer-token-01234567890", "invalid"],
    // A short token that is a repeat of a prefix of a configured one (the comparison wraps around it).
    ["Bearer shortshort", "invalid"],
    ["Bearer sss", "invalid"],
    ["Bearer " + "x".repeat(5_000), "invalid"],
    [undefined, "missing"],
    ["  ", "missing"],
  ])("%j -> %s", (authorization, verdict) => {
    expect(check(authorization)).toBe(verdict);
    // The cache of proven values gives the same verdict the second time.
    expect(check(authorization)).toBe(verdict);
  });
});

describe("an API key or basic credentials among the configured ones (constant time, as bearer tokens)", () => {
  const expected = ["key-1", "a-much-longer-api-key-0123", "user:pass"];
  it.each([
    ["key-1", true],
    ["user:pass", true],
    ["a-much-longer-api-key-0123", true],
    ["key-", false],
    ["key-11", false],
    ["KEY-1", false],
    ["", false],
    ["user:pas", false],
    ["key-1key-1", false],
  ])("%j: %s", (got, ok) => {
    expect(oneOf(got, expected)).toBe(ok);
  });
  it("accepts nothing when nothing is configured", () => {
    expect(oneOf("anything", [])).toBe(false);
  });
});

describe("the accepted tokens", () => {
  it("are the configured ones, or the development token", () => {
    expect(acceptedTokens(["a", "b="], "--token")).toEqual(["a", "b="]);
    expect(acceptedTokens([], "--token")).toEqual([DEV_TOKEN]);
    expect(acceptedTokens(undefined, "tokens")).toEqual([DEV_TOKEN]);
  });

  it.each([[""], ["two words"], ["=start"], ["caf\u00e9"]])("refuse %j, naming the option", (token) => {
    let error: unknown;
    try {
      acceptedTokens([token], "tokens");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KitError);
    expect((error as KitError).code).toBe("PS_USAGE");
    expect((error as KitError).message).toContain("tokens must be non-empty");
  });
});
