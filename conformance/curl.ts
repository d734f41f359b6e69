import { shellQuote } from "../src/shell.js";
import type { PreparedRequest } from "./fixtures.js";
import { joinUrl } from "./http-client.js";

/**
 * A curl command that sends the same request. The run's token appears as "$PLANTSTORE_TOKEN", so the
 * command can be pasted after exporting it, and the token itself is never printed.
 */
export function curlFor(base: URL, request: PreparedRequest, token: string): string {
  const url = joinUrl(base, request.path);
  // An apiKey in the query is form-encoded there; the command takes it from the environment instead.
  const inQuery = token === "" ? "" : new URLSearchParams({ k: token }).toString().slice(2);
  const target =
    inQuery !== "" && url.includes(inQuery)
      ? `"${url
          .replace(/(["\\`$])/g, "\\$1")
          .split(inQuery)
          .join("$PLANTSTORE_TOKEN")}"`
      : shellQuote(url);
  const parts = ["curl", "-sS", "-i", "-X", request.method, target];
  for (const [name, value] of Object.entries(request.headers)) {
    const header = `${name}: ${value}`;
    if (token !== "" && value.includes(token))
      parts.push(
        "-H",
        `"${header
          .split(token)
          .join("$PLANTSTORE_TOKEN")
          .replace(/(["\\`])/g, "\\$1")}"`,
      );
    else if (token !== "" && value.includes(Buffer.from(token).toString("base64"))) {
      const encoded = Buffer.from(token).toString("base64");
      parts.push(
        "-H",
        `"${header.split(encoded).join('$(printf %s "$PLANTSTORE_TOKEN" | base64)').replace(/`/g, "\\`")}"`,
      );
    } else parts.push("-H", shellQuote(header));
  }
  if (request.body === undefined) return parts.join(" ");
  const text = request.body.toString("utf8");
  if (Buffer.from(text, "utf8").equals(request.body)) return [...parts, "--data-binary", shellQuote(text)].join(" ");
  // Not UTF-8: send the exact bytes through base64.
  return `printf %s ${request.body.toString("base64")} | base64 -d | ${[...parts, "--data-binary", "@-"].join(" ")}`;
}
