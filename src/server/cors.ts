/** Which browser origins may call the server: `*` for any, or an exact list. */
export interface CorsPolicy {
  readonly origins: readonly string[];
}

/** The CORS headers for a response to `origin`; undefined when none apply. */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined): Record<string, string> | undefined {
  if (origin === undefined || policy.origins.length === 0) return undefined;
  if (policy.origins.includes("*")) {
    return { "access-control-allow-origin": "*", "access-control-expose-headers": "www-authenticate, allow" };
  }
  // The answer depends on the origin, so caches must key on it even when the origin is refused.
  if (!policy.origins.includes(origin)) return { vary: "Origin" };
  return { "access-control-allow-origin": origin, vary: "Origin", "access-control-expose-headers": "www-authenticate, allow" };
}

/** A CORS preflight: OPTIONS with Origin and Access-Control-Request-Method (Fetch standard 3.2.2). */
export function isPreflight(method: string, origin: string | undefined, requestMethod: string | undefined): boolean {
  return method === "OPTIONS" && origin !== undefined && requestMethod !== undefined;
}
