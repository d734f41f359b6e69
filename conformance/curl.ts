import { shellQuote } from "../src/shell.js";
import type { PreparedRequest } from "./fixtures.js";
import { joinUrl } from "./http-client.js";

/**
 * A curl command that sends the same request. The run's token appears as "${PLANTSTORE_TOKEN}", so the
 * command can be pasted after exporting it, and the token itself is never printed.
 */
export function curlFor(base: URL, request: PreparedRequest, token: string): string {
  const url = joinUrl(base, request.path);
  // An apiKey in the query: the command takes it from the environment instead, when its form-encoded
  // spelling is the token itself. Otherwise the shell cannot encode it, and the caller's mask hides it.
  const inQuery = token === "" ? "" : new URLSearchParams({ k: token }).toString().slice(2);
  const target = inQuery === token && url.includes(inQuery) ? withSecret(url, inQuery, TOKEN_VAR) : shellQuote(url);
  const parts = ["curl", "-sS", "-i", "-X", request.method, target];
  const encoded = token === "" ? "" : Buffer.from(token).toString("base64");
  for (const [name, value] of Object.entries(request.headers)) {
    const header = `${name}: ${value}`;
    if (token !== "" && value.includes(token)) parts.push("-H", withSecret(header, token, TOKEN_VAR));
    else if (token !== "" && value.includes(encoded))
      parts.push("-H", withSecret(header, encoded, '$(printf %s "$PLANTSTORE_TOKEN" | base64)'));
    else parts.push("-H", shellQuote(header));
  }
  if (request.body === undefined) return parts.join(" ");
  const text = request.body.toString("utf8");
  if (Buffer.from(text, "utf8").equals(request.body)) return [...parts, "--data-binary", shellQuote(text)].join(" ");
  // Not UTF-8: send the exact bytes through base64.
  return `printf %s ${request.body.toString("base64")} | base64 -d | ${[...parts, "--data-binary", "@-"].join(" ")}`;
}

/** Braced, so a letter after it cannot extend the variable's name (`${X}t`, not `$Xt`). */
const TOKEN_VAR = "${PLANTSTORE_TOKEN}";

/**
 * One double-quoted shell word: `text` with every `secret` replaced by `expansion`, and everything
 * else literal (`"`, `\`, `` ` `` and `$` escaped), so the shell rebuilds exactly the original text.
 */
function withSecret(text: string, secret: string, expansion: string): string {
  const literal = (t: string): string => t.replace(/(["\\`$])/g, "\\$1");
  return `"${text.split(secret).map(literal).join(expansion)}"`;
}
