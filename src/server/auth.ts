import { KitError } from "../errors.js";
import { DEV_TOKEN } from "./defaults.js";

/** Why a request is not authenticated, for the WWW-Authenticate error code (RFC 6750 section 3.1). */
export type AuthFailure = "missing" | "invalid";

/**
 * The tokens to accept: the configured ones, or the development token when there are none. A token
 * a client could never send as sent (RFC 6750 b64token) would make every request a 401: refused.
 */
export function acceptedTokens(tokens: readonly string[] | undefined, option: string): readonly string[] {
  const accepted = tokens !== undefined && tokens.length > 0 ? tokens : [DEV_TOKEN];
  if (accepted.some((t) => !/^[A-Za-z0-9\-._~+/]+=*$/.test(t))) {
    throw new KitError(
      "PS_USAGE",
      `${option} must be non-empty and made of letters, digits and -._~+/ (RFC 6750 b64token), optionally ending in =`,
    );
  }
  return accepted;
}

/**
 * Checks `Authorization: Bearer <token>` against the configured tokens. The scheme compares
 * case-insensitively (RFC 9110 section 11.1); the token in constant time (see sameToken), against
 * every configured token, so timing tells nothing about any of them. Plain code, no node:crypto:
 * the same check runs in browsers and service workers (the fetch handler).
 */
export function createBearerCheck(
  tokens: readonly string[],
): (authorization: string | undefined) => AuthFailure | undefined {
  const expected = [...tokens];
  // Header values already proved valid skip the comparison. Only successes are kept (so the set stays
  // as small as the ways clients spell valid credentials), and a hit tells a client nothing it was
  // not told by the first answer to that same header.
  const proven = new Set<string>();
  // The last one proven, compared first: a set's lookup hashes each request's new header text.
  let last: string | undefined;
  return (authorization) => {
    if (authorization !== undefined && (authorization === last || proven.has(authorization))) {
      last = authorization;
      return undefined;
    }
    const verdict = check(authorization);
    if (verdict === undefined && authorization !== undefined) {
      last = authorization;
      if (proven.size < 256) proven.add(authorization);
    }
    return verdict;
  };
  function check(authorization: string | undefined): AuthFailure | undefined {
    if (authorization === undefined || authorization.trim() === "") return "missing";
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/.exec(authorization.trim());
    if (m === null || (m[1] as string).toLowerCase() !== "bearer") return "invalid";
    const token = (m[2] ?? "").trim();
    if (token === "") return "invalid";
    let ok = 0;
    for (const e of expected) ok |= sameToken(token, e);
    return ok === 1 ? undefined : "invalid";
  }
}

/**
 * Whether `got` is one of `expected`, compared with every one of them in constant time (sameToken):
 * API keys and basic credentials are checked as bearer tokens are.
 */
export function oneOf(got: string, expected: readonly string[]): boolean {
  let ok = 0;
  for (const e of expected) ok |= sameToken(got, e);
  return ok === 1;
}

/**
 * 1 when `got` equals `want`, else 0, in a time that depends on `want`'s length only: every code unit
 * of `want` is compared, with no early exit, `got` is read in bounds only (index modulo its length,
 * so a short `got` takes the same path as a long one), and a length mismatch is folded into the
 * result rather than returned early. A client varying what it sends learns nothing from the timing.
 */
function sameToken(got: string, want: string): number {
  const n = got.length;
  let diff = n ^ want.length;
  for (let i = 0; i < want.length; i++) diff |= got.charCodeAt(i % n) ^ want.charCodeAt(i);
  return diff === 0 ? 1 : 0;
}
