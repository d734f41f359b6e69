import { describe, expect, it } from "vitest";
import { createRedactor, MASK } from "./redact.js";

describe("createRedactor", () => {
  const token = 'tok"en&<x>/é';
  const redact = createRedactor([token]);
  it.each([
    ["as written", `Bearer ${token}`],
    ["JSON-escaped", JSON.stringify({ t: token })],
    ["XML-escaped", `<a b="tok&quot;en&amp;&lt;x&gt;/é"/>`],
    ["URL-encoded", `?t=${encodeURIComponent(token)}`],
    ["base64 (Basic)", `Basic ${Buffer.from(token).toString("base64")}`],
  ])("masks the token %s", (_how, text) => {
    const out = redact(text);
    expect(out).toContain(MASK);
    expect(out).not.toContain(token);
  });

  it("leaves text without the token alone and ignores secrets too short to mask safely", () => {
    expect(redact("nothing here")).toBe("nothing here");
    expect(createRedactor(["ab"])("abc")).toBe("abc");
  });
});
