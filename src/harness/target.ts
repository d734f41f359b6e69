import { KitError } from "../errors.js";

/** Checks --target: an http(s) URL without user:password; query and fragment dropped. */
export function parseTarget(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    const example = "for example http://127.0.0.1:4010";
    throw new KitError("PS_USAGE", `--target ${JSON.stringify(target)} is not a URL (${example})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new KitError("PS_USAGE", `--target must be http or https, got ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new KitError(
      "PS_USAGE",
      "--target must not carry user:password (it would be printed in reproductions and reports)",
    );
  }
  url.search = "";
  url.hash = "";
  return url;
}

/**
 * Checks --token when one is given (an empty one is none): a string without control characters. Where it goes
 * decides the rest (visible ASCII in a header; user:password for Basic): checkRunCredentials. Plain
 * JavaScript callers passing `token: undefined` (or null) give no token, never the text "undefined".
 */
export function checkToken(token: unknown): void {
  if (token === undefined || token === null || token === "") return;
  if (typeof token !== "string") throw new KitError("PS_USAGE", "--token must be a string");
  if (/[\x00-\x1f\x7f]/.test(token)) {
    throw new KitError("PS_USAGE", "--token must be visible ASCII characters without spaces");
  }
}

/** The target as shown in reports: without any user:password part. */
export function displayUrl(url: URL): string {
  const u = new URL(url.href);
  u.username = "";
  u.password = "";
  return u.href.replace(/\/$/, "");
}
