import type { Contract } from "../contract/portable.js";
import { KitError } from "../errors.js";
import { errorAnswer, REASON_HEADER, type WireResponse } from "./error-answers.js";

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

/** Headers every answer may carry that a page needs to read: the challenge, Allow, why a bodiless refusal was made. */
const KIT_EXPOSED = ["www-authenticate", "allow", REASON_HEADER];

/**
 * The response headers a page may read (Access-Control-Expose-Headers, Fetch standard): `Location`
 * first, then every header the contract documents on any answer, then the kit's own.
 */
export function exposedHeaders(contract: Pick<Contract, "operations">): string {
  const names = new Set<string>(["location"]);
  for (const op of contract.operations)
    for (const response of op.responses.values())
      for (const name of response.headers.keys()) if (TOKEN.test(name)) names.add(name.toLowerCase());
  names.delete("content-type");
  for (const name of KIT_EXPOSED) names.add(name);
  return [...names].join(", ");
}

/** The CORS headers for a response to `origin`; undefined when none apply. `expose` as exposedHeaders says. */
export function corsHeaders(
  policy: CorsPolicy,
  origin: string | undefined,
  expose: string = KIT_EXPOSED.join(", "),
): Record<string, string> | undefined {
  if (origin === undefined || policy.origins.length === 0) return undefined;
  if (policy.origins.includes("*"))
    return { "access-control-allow-origin": "*", "access-control-expose-headers": expose };
  // The answer depends on the origin, so caches must key on it even when the origin is refused.
  if (!policy.origins.includes(origin)) return { vary: "Origin" };
  return { "access-control-allow-origin": origin, vary: "Origin", "access-control-expose-headers": expose };
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

type Headers = Readonly<Record<string, string | string[] | undefined>>;
const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * The answer to a CORS preflight (which needs no credentials: browsers never send them on one), or
 * undefined when the request is no preflight: 404 for a path the contract does not have, else 204
 * with the methods the path takes and the headers the policy allows.
 */
export function preflightAnswer(
  contract: Pick<Contract, "route">,
  policy: CorsPolicy,
  method: string,
  path: string,
  headers: Headers,
): WireResponse | undefined {
  if (method !== "OPTIONS") return undefined;
  const origin = first(headers.origin);
  if (!isPreflight(method, origin, first(headers["access-control-request-method"]))) return undefined;
  const cors = corsHeaders(policy, origin);
  const route = contract.route("options", path);
  if (route.kind === "not-found") {
    const notFound = errorAnswer("PS_NOT_FOUND", path);
    return cors === undefined ? notFound : { ...notFound, headers: { ...notFound.headers, ...cors } };
  }
  if (cors === undefined) return { status: 204, headers: {}, body: "" };
  const allowHeaders = allowedRequestHeaders(policy, first(headers["access-control-request-headers"]));
  // The allowed headers depend on what was asked, so caches key on that too (Fetch standard, CORS protocol).
  const vary =
    cors.vary === undefined ? "Access-Control-Request-Headers" : `${cors.vary}, Access-Control-Request-Headers`;
  const methods =
    route.kind === "found"
      ? [route.operation.method.toUpperCase()]
      : route.kind === "method-not-allowed"
        ? route.allowed
        : [];
  return {
    status: 204,
    headers: {
      ...cors,
      "access-control-allow-methods": [...methods, "OPTIONS"].join(", "),
      // Named, never `*`: a wildcard does not cover Authorization (Fetch standard, CORS protocol).
      "access-control-allow-headers": allowHeaders,
      "access-control-max-age": "600",
      vary,
    },
    body: "",
  };
}
