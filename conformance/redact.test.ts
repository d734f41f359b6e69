import { describe, expect, it } from "vitest";
import { createRedactor, MASK } from "./redact.js";

describe("createRedactor", () => {
  const token = 'tok"en&<x>/é~!+';
  const redact = createRedactor([token]);
  it.each([
    ["as written", `Bearer ${token}`],
    ["lower-cased", `x-echo-${token.toLowerCase()}: 1`],
    ["upper-cased", token.toUpperCase()],
    ["JSON-escaped", JSON.stringify({ t: token })],
    ["XML-escaped", `<a b="tok&quot;en&amp;&lt;x&gt;/é~!+"/>`],
    ["URL-encoded", `?t=${encodeURIComponent(token)}`],
    ["form-encoded", `?${new URLSearchParams({ t: token }).toString()}`],
    ["hex", Buffer.from(token).toString("hex")],
    ["base64 (Basic)", `Basic ${Buffer.from(token).toString("base64")}`],
    ["base64 of 'Bearer ' + token", Buffer.from(`Bearer ${token}`).toString("base64")],
    ["base64 of 'x:' + token", Buffer.from(`x:${token}`).toString("base64")],
    ["base64url of 'ab' + token", Buffer.from(`ab${token}`).toString("base64url")],
  ])("masks the token %s", (_how, text) => {
    const out = redact(text);
    expect(out).toContain(MASK);
    expect(out).not.toContain(token);
    // No run of 6 characters of any encoded form survives.
    for (const form of [token, Buffer.from(token).toString("hex"), Buffer.from(token).toString("base64")]) {
      for (let i = 0; i + 6 <= form.length; i += 3) expect(out).not.toContain(form.slice(i, i + 6));
    }
  });

  it("masks a short token too, and leaves text without it alone", () => {
    expect(createRedactor(["k9Z"])("Bearer k9Z")).toBe(`Bearer ${MASK}`);
    expect(redact("nothing here")).toBe("nothing here");
  });
});
