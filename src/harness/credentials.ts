import type { CompiledOperation, Contract, SecurityScheme } from "../contract/index.js";
import { KitError } from "../errors.js";

// Credentials for every kind of security scheme a contract can declare: which of an operation's
// alternatives is used, what each scheme of it gets (the run's credential, or a deliberately wrong
// one), and where that goes (a header, the query, a cookie).

/** What a fixture step sends; see conformance/fixture.schema.json. */
export const CREDENTIAL_KINDS = [
  "valid",
  "none",
  "wrong",
  "other-scheme",
  "empty-bearer",
  "lowercase-scheme",
  "near-miss-appended",
  "near-miss-changed",
  "near-miss-truncated",
  "near-miss-case",
] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** Wrong credentials one edit away from the valid one. */
export const NEAR_MISS_KINDS = [
  "near-miss-appended",
  "near-miss-changed",
  "near-miss-truncated",
  "near-miss-case",
] as const;
export type NearMissKind = (typeof NEAR_MISS_KINDS)[number];

/** The credentials of a run. */
export interface RunCredentials {
  /** The credential of every scheme `credentials` does not name (--token). */
  readonly token?: string;
  /** Credentials by securitySchemes name (--credential NAME=VALUE). For http basic: `user:password`. */
  readonly credentials?: Readonly<Record<string, string>>;
  /** A credential no server issued, for `wrong`. */
  readonly wrongToken: string;
}

/** What one request carries for its credentials. */
export interface AppliedCredentials {
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly query: readonly (readonly [string, string])[];
  readonly cookies: readonly (readonly [string, string])[];
  /** The securitySchemes names of the alternative used; empty when nothing was sent for one. */
  readonly schemes: readonly string[];
}

/** Where a scheme's credential goes; undefined when the harness cannot send it (mutualTLS, unknown types). */
type Placement =
  | { readonly kind: "authorization"; readonly scheme: string; readonly basic: boolean }
  | { readonly kind: "apiKey"; readonly in: "header" | "query" | "cookie"; readonly name: string }
  | undefined;

function placementOf(s: SecurityScheme): Placement {
  switch (s.type) {
    case "http": {
      const scheme = s.scheme ?? "bearer";
      if (scheme === "basic") return { kind: "authorization", scheme: "Basic", basic: true };
      if (scheme === "bearer" || scheme === "") return { kind: "authorization", scheme: "Bearer", basic: false };
      // Scheme names compare without case (RFC 9110 section 11.1); the spec's is kept in lower case.
      return { kind: "authorization", scheme: scheme[0]!.toUpperCase() + scheme.slice(1), basic: false };
    }
    case "oauth2":
    case "openIdConnect":
      return { kind: "authorization", scheme: "Bearer", basic: false };
    case "apiKey":
      if (s.paramName === undefined || s.paramName === "") return undefined;
      return { kind: "apiKey", in: s.in === "query" || s.in === "cookie" ? s.in : "header", name: s.paramName };
    default:
      return undefined;
  }
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** The run's credential for a scheme: its own (--credential) or the token; undefined when none was given. */
export function credentialOf(scheme: SecurityScheme, run: Omit<RunCredentials, "wrongToken">): string | undefined {
  const named = run.credentials;
  if (named !== undefined && own(named, scheme.name)) return named[scheme.name];
  return run.token;
}

/** Where a placement puts its credential: two schemes of one requirement may not share it. */
const slotOf = (p: NonNullable<Placement>): string =>
  p.kind === "authorization" ? "header authorization" : `${p.in} ${p.in === "header" ? p.name.toLowerCase() : p.name}`;

/**
 * Why the harness cannot present a security requirement (an alternative: every scheme of it at
 * once), or undefined when it can: a scheme it cannot send (mutualTLS, an undeclared one), or two
 * schemes that need the same header, query parameter or cookie (two http schemes both in
 * Authorization, say): one request cannot carry both, so no answer to it could be judged.
 */
export function unpresentable(alternative: readonly SecurityScheme[]): string | undefined {
  const slots = new Map<string, string>();
  for (const s of alternative) {
    const place = placementOf(s);
    if (place === undefined) return describeScheme(s);
    const slot = slotOf(place);
    const other = slots.get(slot);
    if (other !== undefined) return `${other} and ${s.name} both need the ${slot}; one request cannot carry both`;
    slots.set(slot, s.name);
  }
  return undefined;
}

const usable = (alternative: readonly SecurityScheme[]): boolean =>
  alternative.length > 0 && unpresentable(alternative) === undefined;

/**
 * Why the harness cannot call an operation with valid credentials: it requires credentials and no
 * alternative of its security can be presented (each alternative's reason). Undefined when it can.
 */
export function unpresentableSecurity(op: CompiledOperation): string | undefined {
  if (!op.authRequired) return undefined;
  const reasons = op.security.map(unpresentable);
  if (reasons.some((r) => r === undefined)) return undefined;
  return `its security cannot be presented by the harness: ${[...new Set(reasons)].join("; or ")}`;
}

/**
 * The alternative of an operation's security the run uses: the first one whose every scheme the
 * harness can send and the user gave a credential for. Undefined when there is none (an operation
 * without security, or with `{}` among its alternatives and no credential given, is then called
 * without credentials).
 */
export function chooseAlternative(
  op: CompiledOperation,
  run: Omit<RunCredentials, "wrongToken">,
): readonly SecurityScheme[] | undefined {
  return op.security.find((alt) => usable(alt) && alt.every((s) => credentialOf(s, run) !== undefined));
}

const chars = (v: string): string[] => Array.from(v);
/** The last character replaced by one that differs from it in any case. */
const changeLast = (v: string): string => {
  const c = chars(v);
  const last = c.pop();
  return c.join("") + (last?.toLowerCase() === "x" ? "y" : "x");
};
/** Upper case, or lower case when that changes nothing; the value itself when it has no case. */
const otherCase = (v: string): string => (v.toUpperCase() !== v ? v.toUpperCase() : v.toLowerCase());

/**
 * A wrong credential one edit away from `value`: a character added at the end, the last one
 * changed, the last one removed, or the letters in the other case (upper case, or lower case when
 * already upper). For http basic (`user:password`) the case change is the password's, since user
 * names are often compared without case; a credential (or password) without letters gets its last
 * character changed instead, so every near miss is a credential no server issued.
 */
export function nearMiss(value: string, kind: NearMissKind, basic = false): string {
  switch (kind) {
    case "near-miss-appended":
      return `${value}x`;
    case "near-miss-changed":
      return changeLast(value);
    case "near-miss-truncated":
      return chars(value).slice(0, -1).join("");
    case "near-miss-case": {
      const colon = value.indexOf(":");
      if (basic && colon >= 0) {
        const password = value.slice(colon + 1);
        const cased = otherCase(password);
        return cased !== password ? `${value.slice(0, colon + 1)}${cased}` : changeLast(value);
      }
      const cased = otherCase(value);
      return cased !== value ? cased : changeLast(value);
    }
  }
}

/** The wrong credential for a scheme: for http basic the user kept and the password wrong. */
function wrongFor(secret: string | undefined, wrongToken: string, basic: boolean): string {
  const colon = secret?.indexOf(":") ?? -1;
  return basic && secret !== undefined && colon >= 0 ? `${secret.slice(0, colon + 1)}${wrongToken}` : wrongToken;
}

const NEEDS_SECRET = new Set<CredentialKind>(["valid", "other-scheme", "lowercase-scheme", ...NEAR_MISS_KINDS]);

/**
 * The credentials one request carries for a fixture step's kind. The alternative is the one
 * chooseAlternative picks (for kinds that need no real credential, without one given: the first
 * the harness can send); every scheme of it (an AND group) gets its credential:
 * - valid: each scheme's own; lowercase-scheme: the same with the http scheme name in lower case;
 * - wrong: a made-up credential (for basic: the user with a made-up password); empty-bearer: an
 *   empty one; none: nothing;
 * - other-scheme: the valid credential where the scheme does not take it (an http bearer's under
 *   Basic, a basic one's under Bearer, an apiKey as a bearer token);
 * - near-miss-*: the first scheme of the group one edit away from its valid credential (see
 *   nearMiss), the others valid, so only that scheme's check can refuse the request.
 * http bearer, oauth2 and openIdConnect send `Authorization: Bearer <credential>`; http basic
 * `Basic base64(user:password)`; other http schemes `<Scheme> <credential>`; apiKey its header,
 * query parameter or cookie. An operation that works without credentials (`{}` among its
 * alternatives) and has none given is called without any for valid and lowercase-scheme.
 * Throws when a kind needs a credential the run lacks.
 */
export function credentialsFor(op: CompiledOperation, kind: CredentialKind, run: RunCredentials): AppliedCredentials {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  const cookies: [string, string][] = [];
  const nothing: AppliedCredentials = { headers, query, cookies, schemes: [] };
  if (kind === "none") return nothing;
  let alternative = chooseAlternative(op, run);
  if (alternative === undefined) {
    if (!op.authRequired && (kind === "valid" || kind === "lowercase-scheme")) return nothing;
    alternative = op.security.find(usable);
    if (alternative === undefined) return nothing;
    if (NEEDS_SECRET.has(kind)) {
      const lacking = alternative.filter((s) => credentialOf(s, run) === undefined).map((s) => s.name);
      throw new Error(
        `credentials "${kind}" need a credential for ${lacking.join(" and ")}: give --token, or --credential ${lacking[0]}=VALUE`,
      );
    }
  }
  alternative.forEach((scheme, i) => {
    const place = placementOf(scheme)!;
    const secret = credentialOf(scheme, run);
    const basic = place.kind === "authorization" && place.basic;
    let value = secret ?? "";
    if (kind === "wrong") value = wrongFor(secret, run.wrongToken, basic);
    else if (kind === "empty-bearer") value = "";
    else if ((NEAR_MISS_KINDS as readonly string[]).includes(kind) && i === 0)
      value = nearMiss(value, kind as NearMissKind, basic);
    if (place.kind === "apiKey") {
      if (kind === "other-scheme") {
        headers.authorization = `Bearer ${value}`;
        return;
      }
      if (place.in === "query") query.push([place.name, value]);
      else if (place.in === "cookie") cookies.push([place.name, value]);
      else headers[place.name.toLowerCase()] = value;
      return;
    }
    const encoded = basic ? Buffer.from(value, "utf8").toString("base64") : value;
    switch (kind) {
      case "other-scheme":
        headers.authorization = `${basic ? "Bearer" : "Basic"} ${value}`;
        break;
      case "empty-bearer":
        headers.authorization = `${place.scheme} `;
        break;
      case "lowercase-scheme":
        headers.authorization = `${place.scheme.toLowerCase()} ${encoded}`;
        break;
      default:
        headers.authorization = `${place.scheme} ${encoded}`;
    }
  });
  return { headers, query, cookies, schemes: alternative.map((s) => s.name) };
}

/** How a scheme reads in messages: `bearerAuth (http bearer)`. */
function describeScheme(s: SecurityScheme): string {
  const how =
    s.type === "http"
      ? `http ${s.scheme ?? ""}`.trim()
      : s.type === "apiKey"
        ? `apiKey in ${s.in ?? "header"} ${s.paramName ?? ""}`.trim()
        : s.type === ""
          ? "not declared in components.securitySchemes"
          : s.type === "mutualTLS"
            ? "mutualTLS, which the harness cannot present"
            : s.type;
  return `${s.name} (${how})`;
}

/** The names of the security schemes a contract declares or its operations use. */
export function declaredSchemes(contract: Contract): string[] {
  const names = new Set<string>();
  const declared = (contract.document as { components?: { securitySchemes?: unknown } } | undefined)?.components
    ?.securitySchemes;
  if (typeof declared === "object" && declared !== null) for (const n of Object.keys(declared)) names.add(n);
  for (const op of contract.operations) for (const alt of op.security) for (const s of alt) names.add(s.name);
  return [...names];
}

/** The environment variable a curl reproduction (and the CLI) reads a scheme's credential from. */
export function credentialVariable(schemeName: string): string {
  return `PLANTSTORE_CREDENTIAL_${schemeName.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

const MAX_LISTED = 10;

/**
 * Checks the run's credentials before anything is sent: `credentials` names only schemes the spec
 * has; every operation that will run and requires auth has an alternative the run has credentials
 * for (else a PS_USAGE error naming the operations and the schemes they need); and every credential
 * an operation will use can be sent where its scheme puts it. A run whose operations need no
 * credentials needs none.
 */
export function checkRunCredentials(
  contract: Contract,
  operations: readonly CompiledOperation[],
  run: Omit<RunCredentials, "wrongToken">,
): void {
  if (run.token !== undefined && (typeof run.token !== "string" || run.token === ""))
    throw new KitError("PS_USAGE", "--token must be a non-empty string");
  const named = run.credentials;
  if (named !== undefined) {
    if (typeof named !== "object" || named === null || Array.isArray(named))
      throw new KitError("PS_USAGE", "credentials must map security scheme names to strings");
    const known = declaredSchemes(contract);
    for (const [name, value] of Object.entries(named)) {
      if (!known.includes(name)) {
        const list = known.length === 0 ? "the spec declares none" : `the spec's: ${known.join(", ")}`;
        throw new KitError("PS_USAGE", `--credential ${name}: no security scheme of that name (${list})`);
      }
      if (typeof value !== "string" || value === "")
        throw new KitError("PS_USAGE", `--credential ${name}: the credential must be a non-empty string`);
    }
  }
  const unique = [...new Set(operations)];
  const missing: string[] = [];
  for (const op of unique) {
    const alternative = chooseAlternative(op, run);
    if (alternative === undefined) {
      if (!op.authRequired) continue;
      const needs = op.security.map((alt) => alt.map(describeScheme).join(" and ")).join(", or ");
      missing.push(`${op.operationId} (${op.method.toUpperCase()} ${op.pathTemplate}) requires ${needs}`);
      continue;
    }
    for (const scheme of alternative) checkValue(scheme, credentialOf(scheme, run)!, own(named ?? {}, scheme.name));
  }
  if (missing.length === 0) return;
  const listed =
    missing.length > MAX_LISTED
      ? `${missing.slice(0, MAX_LISTED).join("; ")}; and ${missing.length - MAX_LISTED} more`
      : missing.join("; ");
  const ask =
    run.token === undefined
      ? "--token is required (or set PLANTSTORE_TOKEN; --credential NAME=VALUE gives a scheme a credential of its own)"
      : "no credential the harness can send for every operation that will run";
  throw new KitError("PS_USAGE", `${ask}: ${listed}`);
}

/** A credential must be sendable where its scheme puts it. */
function checkValue(scheme: SecurityScheme, value: string, named: boolean): void {
  const where = named ? `--credential ${scheme.name}` : "--token";
  const place = placementOf(scheme);
  if (place?.kind === "authorization" && place.basic) {
    // Sent base64-encoded: any text, but a user and a password (RFC 7617 section 2).
    if (!value.includes(":") || /[\x00-\x1f\x7f]/.test(value))
      throw new KitError(
        "PS_USAGE",
        `${where}: ${describeScheme(scheme)} takes USER:PASSWORD, without control characters`,
      );
    return;
  }
  // A header value carries visible ASCII only (RFC 9110 section 5.5).
  if (!/^[\x21-\x7e]+$/.test(value))
    throw new KitError("PS_USAGE", `${where} must be visible ASCII characters without spaces`);
  if (place?.kind === "apiKey" && place.in === "cookie" && /[",;\\]/.test(value))
    throw new KitError("PS_USAGE", `${where}: a cookie value cannot hold " , ; or \\ (RFC 6265 section 4.1.1)`);
}

/** The credentials of a run as strings: the token and each named one. */
function givenSecrets(run: Omit<RunCredentials, "wrongToken">): string[] {
  return [run.token, ...Object.values(run.credentials ?? {})].filter(
    (v): v is string => typeof v === "string" && v !== "",
  );
}

/**
 * Every secret the outputs must mask: each given credential; for `user:password`, the password;
 * and each near miss of them (a near miss shows all but one character of the credential). The
 * redactor masks each in its encodings too (base64 of `user:password` included); one shorter than
 * 8 characters only where it stands as a whole token.
 */
export function secretsToMask(run: Omit<RunCredentials, "wrongToken">): string[] {
  const out = new Set<string>();
  for (const secret of givenSecrets(run)) {
    out.add(secret);
    const colon = secret.indexOf(":");
    if (colon >= 0 && colon < secret.length - 1) out.add(secret.slice(colon + 1));
    // A near miss is a credential the harness sends: masked at any length (a short one as a whole token).
    for (const kind of NEAR_MISS_KINDS)
      for (const basic of [false, true]) {
        const near = nearMiss(secret, kind, basic);
        if (near !== "") out.add(near);
      }
  }
  return [...out];
}

/** A secret a curl command takes from the environment: its value and the shell text that rebuilds it. */
export interface CurlSecret {
  readonly value: string;
  /** Shell text, valid inside double quotes, that expands to `value`. */
  readonly expansion: string;
}

/**
 * The secrets of a run as curl commands name them: the token as ${PLANTSTORE_TOKEN}, a named
 * credential as ${PLANTSTORE_CREDENTIAL_<NAME>}, and their near misses rebuilt from those (`${V%?}`
 * for the last character removed, and so on).
 */
export function curlSecrets(run: Omit<RunCredentials, "wrongToken">): CurlSecret[] {
  const out: CurlSecret[] = [];
  const add = (value: string | undefined, variable: string): void => {
    if (typeof value !== "string" || value === "") return;
    const v = `\${${variable}}`;
    out.push({ value, expansion: v });
    // Derived forms only for ASCII values: the shell's ${V%?} and tr work on bytes.
    if (!/^[\x20-\x7e]+$/.test(value)) return;
    const derived: CurlSecret[] = [
      { value: `${value}x`, expansion: `${v}x` },
      { value: nearMiss(value, "near-miss-truncated"), expansion: `\${${variable}%?}` },
      { value: changeLast(value), expansion: `\${${variable}%?}${changeLast(value).slice(-1)}` },
      value.toUpperCase() !== value
        ? { value: value.toUpperCase(), expansion: `$(printf %s "${v}" | tr a-z A-Z)` }
        : { value: value.toLowerCase(), expansion: `$(printf %s "${v}" | tr A-Z a-z)` },
    ];
    for (const d of derived) if (d.value !== "" && d.value !== value) out.push(d);
  };
  add(run.token, "PLANTSTORE_TOKEN");
  for (const [name, value] of Object.entries(run.credentials ?? {})) add(value, credentialVariable(name));
  return out;
}
