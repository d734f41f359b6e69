// The mock engine's credentials: each operation's security requirement checked scheme by scheme, as
// its document declares them. Bearer (and OAuth 2 / OpenID Connect, which send a bearer token) and
// API keys take the configured tokens; basic takes `user:password` pairs. Plain code, browser-safe.

import type { CompiledOperation, SecurityScheme } from "../contract/portable.js";
import { acceptedTokens, createBearerCheck, oneOf, type AuthFailure } from "./auth.js";
import { KitError } from "../errors.js";
import { DEV_TOKEN } from "./defaults.js";

/** What the engine accepts: bearer tokens and API keys, and basic `user:password` pairs. */
export interface EngineCredentials {
  readonly tokens: readonly string[];
  readonly basic: readonly string[];
}

/**
 * The credentials a mock accepts: the tokens given (checked as RFC 6750 b64tokens; `option` names
 * them in an error) else the development token, and the basic pairs given else `plantstore:` and it.
 */
export function engineCredentials(
  tokens: readonly string[] | undefined,
  basic: readonly string[] | undefined,
  option: string,
): EngineCredentials {
  for (const pair of basic ?? [])
    // RFC 7617 section 2: the user-id holds no colon, and neither holds a control character.
    if (typeof pair !== "string" || pair.indexOf(":") < 1 || /[\u0000-\u001f\u007f]/.test(pair))
      throw new KitError(
        "PS_USAGE",
        // The value is not shown: it holds a password.
        `${basicName(option)} must be USER:PASSWORD (a user without a colon, then a colon, no control character)`,
      );
  return {
    tokens: acceptedTokens(tokens, option),
    basic: basic !== undefined && basic.length > 0 ? basic : [`plantstore:${DEV_TOKEN}`],
  };
}

/** How the basic pairs are called where the tokens are called `option`: `--basic` beside `--token`. */
const basicName = (option: string): string => (option.startsWith("--") ? "--basic" : "basic");

export interface CredentialRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw query string, without `?`. */
  readonly query: string;
}

/** Why a request is not let through, and the challenge to answer with. */
export interface CredentialFailure {
  readonly detail: string;
  readonly challenge: string | undefined;
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * Checks a request against an operation's security: any one alternative suffices, and each scheme
 * of it must hold. Undefined when the request may pass. A scheme the engine cannot check (mutualTLS)
 * holds: the engine does not see the TLS layer.
 */
export function createCredentialCheck(
  credentials: EngineCredentials,
): (op: CompiledOperation, request: CredentialRequest) => CredentialFailure | undefined {
  const bearer = createBearerCheck(credentials.tokens);
  const holds = (scheme: SecurityScheme, request: CredentialRequest): string | undefined => {
    const authorization = first(request.headers.authorization);
    switch (scheme.type) {
      case "http":
        if (scheme.scheme === "basic") {
          const m = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "");
          return m !== null && oneOf(decodeBase64(m[1]!), credentials.basic)
            ? undefined
            : `the header "Authorization: Basic <base64 of user:password>" (${scheme.name})`;
        }
        return bearer(authorization) === undefined
          ? undefined
          : `the header "Authorization: Bearer <token>" (${scheme.name})`;
      case "oauth2":
      case "openIdConnect":
        return bearer(authorization) === undefined
          ? undefined
          : `the header "Authorization: Bearer <token>" (${scheme.name})`;
      case "apiKey": {
        const name = scheme.paramName ?? "";
        const value =
          scheme.in === "header"
            ? first(request.headers[name.toLowerCase()])
            : scheme.in === "query"
              ? new URLSearchParams(request.query).get(name)
              : cookie(first(request.headers.cookie), name);
        return value !== undefined && value !== null && oneOf(value, credentials.tokens)
          ? undefined
          : scheme.in === "header"
            ? `the header "${name}: <API key>" (${scheme.name})`
            : scheme.in === "query"
              ? `the query parameter "${name}=<API key>" (${scheme.name})`
              : `the cookie "${name}=<API key>" (${scheme.name})`;
      }
      default:
        return undefined;
    }
  };
  return (op, request) => {
    if (!op.authRequired) return undefined;
    if (op.security.every((alternative) => alternative.length === 1 && sendsBearer(alternative[0]!)))
      return bearerFailure(bearer(first(request.headers.authorization)));
    const missing: string[] = [];
    for (const alternative of op.security) {
      const failed = alternative.map((s) => holds(s, request)).filter((f): f is string => f !== undefined);
      if (failed.length === 0) return undefined;
      missing.push(failed.join(" and "));
    }
    const schemes = op.security.flat();
    const challenge = schemes.some((s) => s.type === "http" && s.scheme === "basic")
      ? 'Basic realm="plantstore"'
      : schemes.some((s) => s.type !== "apiKey")
        ? 'Bearer realm="plantstore"'
        : undefined;
    return { detail: `send ${[...new Set(missing)].join(", or ")}`, challenge };
  };
}

/** A scheme whose credential is a bearer token (as `holds` checks it). */
const sendsBearer = (s: SecurityScheme): boolean =>
  s.type === "oauth2" || s.type === "openIdConnect" || (s.type === "http" && s.scheme !== "basic");

/**
 * Why a bearer token is refused, as RFC 6750 section 3 answers it: a challenge, with
 * `error="invalid_token"` when a credential was sent and is not a valid token.
 */
function bearerFailure(failure: AuthFailure | undefined): CredentialFailure | undefined {
  if (failure === undefined) return undefined;
  return failure === "missing"
    ? { detail: "the Authorization header is missing", challenge: 'Bearer realm="plantstore"' }
    : {
        detail: "the Authorization header is not Bearer with a valid token",
        challenge: 'Bearer realm="plantstore", error="invalid_token"',
      };
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function decodeBase64(text: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
  } catch {
    return "";
  }
}
