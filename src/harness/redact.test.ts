import { describe, expect, it } from "vitest";
import { createRedactor, MASK, maskRequestTarget, NO_REDACTION } from "./redact.js";

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

  it("masks a secret of 8 characters or more inside other words too", () => {
    expect(createRedactor(["plantsto"])("PLANTSTORE_TOKEN xplantstox")).toBe(`${MASK}RE_TOKEN x${MASK}x`);
  });
});

describe("a secret shorter than 8 characters is masked where it stands as a whole token", () => {
  const redact = createRedactor(["valid", "u:pw", "pw"]);
  const b64 = (s: string): string => Buffer.from(s).toString("base64");
  it.each([
    ["the credential after the scheme", "Bearer valid", `Bearer ${MASK}`],
    ["a JSON string value", '{"token":"valid","n":1}', `{"token":"${MASK}","n":1}`],
    ["a header value and a header name", "x-echo-valid: VALID", `x-echo-${MASK}: ${MASK}`],
    ["a query value", "/plants?api_key=valid&b=2", `/plants?api_key=${MASK}&b=2`],
    ["a cookie value", "theme=dark; session=valid", `theme=dark; session=${MASK}`],
    ["base64 of user:password, as Basic sends it", `Basic ${b64("u:pw")}`, `Basic ${MASK}`],
    ["base64 of user:password echoed in JSON", `{"auth":"${b64("u:pw")}"}`, `{"auth":"${MASK}"}`],
    ["base64 of the token", `"${b64("valid")}"`, `"${MASK}"`],
    ["hex of the token", `0x ${Buffer.from("valid").toString("hex")}`, `0x ${MASK}`],
    ["the password of user:password", "password pw given", `password ${MASK} given`],
  ])("%s", (_how, text, masked) => {
    expect(redact(text)).toBe(masked);
  });

  it.each(["invalid", "validate the name", "valid1", "2valid", "pwd", `Basic ${b64("u:pwx")}`, '{"name":"Monstera"}'])(
    "not inside another word: %s",
    (text) => {
      expect(redact(text)).toBe(text);
    },
  );

  it("keeps the harness's vocabulary whole for `plant` (upper case included) when it is a part of a word", () => {
    const plant = createRedactor(["plant"]);
    for (const text of ["PLANTSTORE_TOKEN", "PLANTSTORE_CREDENTIAL_API_KEY", "/plants", "#/components/schemas/Plants"])
      expect(plant(text)).toBe(text);
    expect(plant("plant Plant PLANT")).toBe(`${MASK} Plant ${MASK}`);
  });

  it("prose masks only the long secrets: the harness's own sentences keep a short token's words", () => {
    const both = createRedactor(["valid", "Zx9-secret-TOKEN-4711"]);
    const sentence = "a valid request got 500: echoed Zx9-secret-TOKEN-4711";
    expect(both.prose(sentence)).toBe(`a valid request got 500: echoed ${MASK}`);
    expect(both(sentence)).toBe(`a ${MASK} request got 500: echoed ${MASK}`);
    expect(createRedactor(["valid"]).prose(sentence)).toBe(sentence);
  });

  it("a redactor of no secrets changes nothing", () => {
    expect(createRedactor([])("Bearer x")).toBe("Bearer x");
    expect(createRedactor([""]).prose("Bearer x")).toBe("Bearer x");
    expect(NO_REDACTION("x")).toBe("x");
    expect(NO_REDACTION.prose("x")).toBe("x");
  });
});

describe("maskRequestTarget", () => {
  it("keeps the template's own segments and the query's names, and masks values and other segments", () => {
    const redact = createRedactor(["plants", "k3y-Long-Secret"]);
    expect(maskRequestTarget("/plants/plants?plants=plants&api_key=k3y-Long-Secret", redact, "/plants/{id}")).toBe(
      `/plants/${MASK}?plants=${MASK}&api_key=${MASK}`,
    );
    // Without a template (or a path of another shape), every segment is evidence.
    expect(maskRequestTarget("/plants", redact)).toBe(`/${MASK}`);
    expect(maskRequestTarget("/plants/1/x", redact, "/plants/{id}")).toBe(`/${MASK}/1/x`);
    // A long secret is masked in a parameter's name too; a value without a name is a value.
    expect(maskRequestTarget("/p?k3y-Long-Secret=1&plants", redact)).toBe(`/p?${MASK}=1&${MASK}`);
  });
});
