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
  return (authorization) => {
    if (authorization === undefined || authorization.trim() === "") return "missing";
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/.exec(authorization.trim());
    if (m === null || (m[1] as string).toLowerCase() !== "bearer") return "invalid";
    const token = (m[2] ?? "").trim();
    if (token === "") return "invalid";
    const got = digest(token);
    let ok = false;
    for (const e of expected) ok = timingSafeEqual(got, e) || ok;
    return ok ? undefined : "invalid";
  };
}
