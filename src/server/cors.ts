import { KitError } from "../errors.js";

/** Which browser origins may call the server (`*` for any, or an exact list) and with which headers. */
export interface CorsPolicy {
  readonly origins: readonly string[];
  /**
   * Request headers a preflight may allow beyond the ones the contract needs. Undefined: any header
   * the browser asks for, as Prism allows (tracing headers such as `traceparent` are common).
   */
  readonly headers?: readonly string[];
}

/** What every preflight allows: the contract's own headers (`Prefer` for errors on demand). */
const BASE_HEADERS = ["authorization", "content-type", "prefer"] as const;
/** A header field name is an RFC 9110 token (section 5.1). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The CORS headers for a response to `origin`; undefined when none apply. */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined): Record<string, string> | undefined {
  if (origin === undefined || policy.origins.length === 0) return undefined;
  if (policy.origins.includes("*")) {
    return { "access-control-allow-origin": "*", "access-control-expose-headers": "www-authenticate, allow" };
  }
  // The answer depends on the origin, so caches must key on it even when the origin is refused.
  if (!policy.origins.includes(origin)) return { vary: "Origin" };
  return {
    "access-control-allow-origin": origin,
    vary: "Origin",
    "access-control-expose-headers": "www-authenticate, allow",
  };
}

/** A CORS preflight: OPTIONS with Origin and Access-Control-Request-Method (Fetch standard 3.2.2). */
export function isPreflight(method: string, origin: string | undefined, requestMethod: string | undefined): boolean {
  return method === "OPTIONS" && origin !== undefined && requestMethod !== undefined;
}

/**
 * The `Access-Control-Allow-Headers` of a preflight: the contract's headers, plus each header the
 * browser asks for (Access-Control-Request-Headers) that is a valid field name and, when the policy
 * lists headers, is on that list. A header left out makes the browser refuse the request.
 */
export function allowedRequestHeaders(policy: CorsPolicy, requested: string | undefined): string {
  const allowed = new Set<string>(BASE_HEADERS);
  const listed = policy.headers?.map((h) => h.toLowerCase());
  for (const raw of (requested ?? "").split(",")) {
    const name = raw.trim().toLowerCase();
    if (TOKEN.test(name) && (listed === undefined || listed.includes(name))) allowed.add(name);
  }
  return [...allowed].join(", ");
}

/** The headers of a `--cors-headers`-style option, each proved a header field name (KitError PS_USAGE). */
export function checkedCorsHeaders(
  headers: readonly string[] | undefined,
  option: string,
): readonly string[] | undefined {
  const bad = headers?.find((h) => !TOKEN.test(h));
  if (bad !== undefined)
    throw new KitError("PS_USAGE", `${option}: ${JSON.stringify(bad)} is not a header name (RFC 9110 token)`);
  return headers;
}
