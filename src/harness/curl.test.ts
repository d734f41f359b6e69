import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { escapeRegExp } from "../regexp.js";
import { curlFor, maskCommand } from "./curl.js";
import type { PreparedRequest } from "./case-types.js";
import { createRedactor } from "./redact.js";

/** The words the shell hands to curl, with curl replaced by a function that prints them. */
async function wordsOf(command: string, token: string): Promise<string[]> {
  const script = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n${command}`;
  const { stdout } = await promisify(execFile)("sh", ["-c", script], {
    env: { PATH: process.env.PATH, PLANTSTORE_TOKEN: token, HOME: "/should-not-appear" },
  });
  return stdout.split("\0").slice(0, -1);
}

const base = new URL("http://127.0.0.1:9/api");

describe("curlFor: a command the shell turns back into the same request, the token never printed", () => {
  it.each([
    ["a short token that also occurs in other headers", "x", { "content-type": "text/plain" }],
    ["a token next to letters and digits", "tok", { "x-note": "tokens tok1 atok" }],
    ["shell characters around the token", "s3cr3t", { "x-note": '$HOME "quoted" `cmd` \\ s3cr3t $(id)' }],
    ["a token with shell characters of its own", 'a$b`c"d', { "x-note": 'pre a$b`c"d post' }],
  ])("%s", async (_name, token, extra) => {
    const inQuery = /^[\w.-]+$/.test(token) ? `api_key=${token}&` : "";
    const request: Pick<PreparedRequest, "method" | "path" | "headers" | "body"> = {
      method: "POST",
      path: `/plants?${inQuery}q=$HOME`,
      headers: { authorization: `Bearer ${token}`, ...extra },
      body: Buffer.from('{"name":"$HOME `x`"}'),
    };
    const command = curlFor(base, request, token);
    // Shorter than 8 characters: taken from the environment where it stands as a whole token, and
    // left alone inside other words (`tokens`, `text/plain`); the body is literal.
    const whole = new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(token)}(?![A-Za-z0-9])`);
    expect(command.slice(0, command.indexOf(" --data-binary"))).not.toMatch(whole);
    const words = await wordsOf(command, token);
    expect(words.slice(0, 4)).toEqual(["-sS", "-i", "-X", "POST"]);
    expect(words[4]).toBe(`http://127.0.0.1:9/api${request.path}`);
    const headers = words.flatMap((w, i) => (words[i - 1] === "-H" ? [w] : []));
    expect(headers).toEqual(Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`));
    expect(words.at(-1)).toBe('{"name":"$HOME `x`"}');
  });

  it("leaves a query token the shell cannot form-encode to the caller's mask, never to a raw expansion", () => {
    const token = "a b&c";
    const path = `/plants?${new URLSearchParams({ api_key: token }).toString()}`;
    const command = curlFor(base, { method: "GET", path, headers: {}, body: undefined }, token);
    expect(command).not.toContain("PLANTSTORE_TOKEN");
    expect(command).toContain("a+b%26c"); // what the caller's redactor masks (URL- and form-encoded forms)
  });

  it("rebuilds a Basic credential from the token through base64", async () => {
    const token = "user:pa$$";
    const encoded = Buffer.from(token).toString("base64");
    const command = curlFor(
      base,
      { method: "GET", path: "/plants", headers: { authorization: `Basic ${encoded}` }, body: undefined },
      token,
    );
    expect(command).not.toContain(encoded);
    expect(await wordsOf(command, token)).toContain(`authorization: Basic ${encoded}`);
  });

  it("keeps a short token's letters inside other words, and masks literal parts, never the variable", async () => {
    const token = "plant";
    const request = {
      method: "POST",
      path: "/plants?api_key=plant",
      headers: { authorization: "Bearer plant", "x-echo": "PLANT planter" },
      body: Buffer.from('{"token":"plant","kind":"plants"}'),
    };
    const redact = createRedactor([token]);
    const command = curlFor(base, request, token, redact);
    expect(command).toBe(
      `curl -sS -i -X POST "http://127.0.0.1:9/api/plants?api_key=\${PLANTSTORE_TOKEN}" ` +
        `-H "authorization: Bearer \${PLANTSTORE_TOKEN}" -H 'x-echo: [REDACTED] planter' ` +
        `--data-binary '{"token":"[REDACTED]","kind":"plants"}'`,
    );
    // A second pass with more secrets masks the literal parts again and leaves the variable whole.
    expect(maskCommand(command, redact, ["PLANTSTORE_TOKEN"])).toBe(command);
    expect(maskCommand(command, createRedactor(["planter"]), ["PLANTSTORE_TOKEN"])).toContain(
      "'x-echo: [REDACTED] [REDACTED]'",
    );
    const words = await wordsOf(command, token);
    expect(words[4]).toBe("http://127.0.0.1:9/api/plants?api_key=plant");
  });

  it("keeps the path's words the operation's template writes literally, even when they are a short token", async () => {
    const request = { method: "GET", path: "/x/items/x?api_key=x&x=1", headers: {}, body: undefined };
    const redact = createRedactor(["x"]);
    // The second x is a value (an id): where it stands as the token, the shell rebuilds it from the variable.
    expect(curlFor(base, request, "x", redact, "/x/items/{id}")).toBe(
      'curl -sS -i -X GET "http://127.0.0.1:9/api/x/items/${PLANTSTORE_TOKEN}?api_key=${PLANTSTORE_TOKEN}&x=1"',
    );
    const words = await wordsOf(curlFor(base, request, "x", redact, "/x/items/{id}"), "x");
    expect(words[4]).toBe("http://127.0.0.1:9/api/x/items/x?api_key=x&x=1");
  });
});
