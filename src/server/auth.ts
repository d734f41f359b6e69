import { createHash, timingSafeEqual } from "node:crypto";

/** Why a request is not authenticated, for the WWW-Authenticate error code (RFC 6750 section 3.1). */
export type AuthFailure = "missing" | "invalid";

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

/**
 * Checks `Authorization: Bearer <token>` against the configured tokens. The scheme compares
 * case-insensitively (RFC 9110 section 11.1); the token in constant time: both sides are hashed to
 * equal length and every configured token is compared, so timing tells nothing about any of them.
 */
export function createBearerCheck(tokens: readonly string[]): (authorization: string | undefined) => AuthFailure | undefined {
  const expected = tokens.map(digest);
  // Header values already proved valid skip the hashing. Only successes are kept (so the set stays
  // as small as the ways clients spell valid credentials), and a hit tells a client nothing it was
  // not told by the first answer to that same header.
  const proven = new Set<string>();
  return (authorization) => {
    if (authorization !== undefined && proven.has(authorization)) return undefined;
    const verdict = check(authorization);
    if (verdict === undefined && authorization !== undefined && proven.size < 256) proven.add(authorization);
    return verdict;
  };
  function check(authorization: string | undefined): AuthFailure | undefined {
    if (authorization === undefined || authorization.trim() === "") return "missing";
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/.exec(authorization.trim());
    if (m === null || (m[1] as string).toLowerCase() !== "bearer") return "invalid";
    const token = (m[2] ?? "").trim();
    if (token === "") return "invalid";
    const got = digest(token);
    let ok = false;
    for (const e of expected) ok = timingSafeEqual(got, e) || ok;
    return ok ? undefined : "invalid";
  }
}
