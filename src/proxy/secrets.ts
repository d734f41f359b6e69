import type { Contract } from "../contract/index.js";
import { createRedactor, NO_REDACTION, type Redactor } from "../harness/redact.js";

/** Where the contract's apiKey schemes carry a key: header names (lower case), query and cookie names. */
export interface CredentialPlaces {
  readonly headers: ReadonlySet<string>;
  readonly query: ReadonlySet<string>;
  readonly cookies: ReadonlySet<string>;
}

/** The places every apiKey scheme of the contract names, whether an operation uses it or not. */
export function credentialPlaces(contract: Contract): CredentialPlaces {
  const headers = new Set<string>();
  const query = new Set<string>();
  const cookies = new Set<string>();
  const add = (type: unknown, where: unknown, name: unknown): void => {
    if (type !== "apiKey" || typeof name !== "string" || name === "") return;
    if (where === "query") query.add(name);
    else if (where === "cookie") cookies.add(name);
    else if (where === "header") headers.add(name.toLowerCase());
  };
  for (const op of contract.operations)
    for (const alt of op.security) for (const s of alt) add(s.type, s.in, s.paramName);
  const declared =
    (contract.document as { components?: { securitySchemes?: Record<string, unknown> } }).components?.securitySchemes ??
    {};
  for (const s of Object.values(declared)) {
    if (typeof s === "object" && s !== null)
      add((s as Record<string, unknown>).type, (s as Record<string, unknown>).in, (s as Record<string, unknown>).name);
  }
  return { headers, query, cookies };
}

/** The secrets one request carries: what the masks must hide, and the token a curl command names. */
export interface RequestSecrets {
  readonly all: readonly string[];
  /** The Authorization header's credentials (curl shows them as $PLANTSTORE_TOKEN); "" when none. */
  readonly primary: string;
}

/**
 * The secrets of a request: the credentials of Authorization and Proxy-Authorization (RFC 9110
 * section 11.6.2 and 11.7.2; for Basic also the decoded user:password and password), and the value
 * of every apiKey header, query parameter and cookie the contract's security schemes name.
 */
export function secretsOf(
  places: CredentialPlaces,
  headers: Readonly<Record<string, string>>,
  target: string,
): RequestSecrets {
  const all = new Set<string>();
  let primary = "";
  for (const name of ["authorization", "proxy-authorization"]) {
    const value = headers[name];
    if (value === undefined) continue;
    for (const field of value.split(/,\s*(?=[A-Za-z][\w!#$%&'*+.^`|~-]*\s)/)) {
      const m = /^\s*(\S+)(?:\s+(.*\S))?\s*$/.exec(field);
      if (m === null) continue;
      // A value without a scheme is masked whole: it can only be a credential.
      const credentials = m[2] ?? m[1]!;
      all.add(credentials);
      if (name === "authorization" && primary === "") primary = credentials;
      if (m[2] !== undefined && m[1]!.toLowerCase() === "basic") {
        const decoded = Buffer.from(credentials, "base64").toString("utf8");
        all.add(decoded);
        const colon = decoded.indexOf(":");
        if (colon >= 0) all.add(decoded.slice(colon + 1));
      }
    }
  }
  for (const name of places.headers) {
    const value = headers[name];
    if (value !== undefined) for (const v of value.split(/,\s*/)) all.add(v.trim());
  }
  const q = target.indexOf("?");
  if (q >= 0 && places.query.size > 0) {
    const params = new URLSearchParams(target.slice(q + 1));
    for (const name of places.query) for (const v of params.getAll(name)) all.add(v);
  }
  if (places.cookies.size > 0 && headers.cookie !== undefined) {
    for (const pair of headers.cookie.split(/;\s*/)) {
      const eq = pair.indexOf("=");
      if (eq > 0 && places.cookies.has(pair.slice(0, eq).trim())) all.add(pair.slice(eq + 1).trim());
    }
  }
  all.delete("");
  return { all: [...all], primary };
}

/** A request's secrets and the redactor that masks them. */
export interface RequestScope {
  readonly secrets: RequestSecrets;
  readonly redact: Redactor;
}

/**
 * One value of a key, its length first: no run of values can spell another's, whatever bytes a
 * header holds (with --insecure-http-parser a value may hold NUL).
 */
const keyPart = (value: string | undefined): string => (value === undefined ? "-" : `${value.length}:${value}`);

/** The values of a request that secretsOf reads, as one key. */
function credentialKey(places: CredentialPlaces, headers: Readonly<Record<string, string>>, target: string): string {
  const proxyAuthorization = headers["proxy-authorization"];
  // Most often the one place: Authorization.
  if (proxyAuthorization === undefined && places.headers.size + places.query.size + places.cookies.size === 0)
    return keyPart(headers.authorization);
  let key = keyPart(headers.authorization) + keyPart(proxyAuthorization);
  for (const name of places.headers) key += keyPart(headers[name]);
  if (places.query.size > 0) key += keyPart(target);
  if (places.cookies.size > 0) key += keyPart(headers.cookie);
  return key;
}

/** Every secret the proxy has seen, for a last masking pass over the evidence of the run's findings. */
export class SecretBook {
  private readonly secrets = new Set<string>();
  private cached: Redactor | undefined;

  /**
   * Secrets beyond this many are left to each exchange's own masking (every record is masked with
   * its own request's secrets): one pattern of thousands of secrets would cost more than it saves.
   */
  constructor(private readonly maxSecrets = 256) {}

  add(secrets: readonly string[]): void {
    for (const s of secrets) {
      if (this.secrets.has(s) || this.secrets.size >= this.maxSecrets) continue;
      this.secrets.add(s);
      this.cached = undefined;
    }
  }

  private readonly perRequest = new Map<string, RequestScope>();
  /** The last request's key and scope: a client sends its credentials again and again. */
  private lastKey: string | undefined;
  private lastScope: RequestScope | undefined;

  /**
   * The secrets of one request (secretsOf), recorded in the book, and a redactor for them. An e2e
   * suite sends the same few credentials again and again, and finding them and compiling a redactor
   * cost more than judging the exchange, so the recent ones are kept, found by the values that carry
   * credentials (nothing else of a request can change its secrets).
   */
  forRequest(places: CredentialPlaces, headers: Readonly<Record<string, string>>, target: string): RequestScope {
    const key = credentialKey(places, headers, target);
    if (key === this.lastKey) return this.lastScope!;
    let scope = this.perRequest.get(key);
    if (scope === undefined) {
      const secrets = secretsOf(places, headers, target);
      this.add(secrets.all);
      if (this.perRequest.size >= 64) this.perRequest.delete(this.perRequest.keys().next().value as string);
      scope = { secrets, redact: secrets.all.length === 0 ? NO_REDACTION : createRedactor(secrets.all) };
      this.perRequest.set(key, scope);
    }
    this.lastKey = key;
    this.lastScope = scope;
    return scope;
  }

  /** A redactor for every secret recorded so far. */
  redactor(): Redactor {
    this.cached ??= createRedactor([...this.secrets]);
    return this.cached;
  }
}
