import type { CheckId } from "../src/harness/checks.js";
import type { Level } from "../src/harness/levels.js";
import type { CoreRequest, WireResponse } from "../src/server/index.js";
import { TOKEN } from "./helpers.js";
import { json, type Override } from "./variant-server.js";

/**
 * Deliberately faulty servers, each breaking one rule of the contract, with the fixture and check
 * that must catch it; and servers that choose differently where the contract is silent, which must
 * pass. Each is the reference core with one change. Used by catalogue.test.ts; the README reports
 * the catch rate and false alarms from it.
 */
type Variant = (
  request: CoreRequest,
  body: any,
  reference: () => WireResponse,
  as: (r: CoreRequest) => WireResponse,
) => Override | undefined;

export interface CatalogueEntry {
  readonly name: string;
  /** For faulty entries: the fixture and check that must report it. */
  readonly caughtBy?: { readonly fixture: string; readonly check: CheckId };
  /**
   * For faulty entries: the level whose rule it breaks (default contract). A server that refuses a
   * value where the contract shows no constraint breaks accepts-all-valid; one that breaks an RFC
   * rule, http-rfc. The default run passes it with a warning; a run of that level fails it.
   */
  readonly level?: Level;
  /**
   * For legitimate entries: the levels beyond the contract its choice does break (accepting a JSON
   * body sent as text/plain passes the contract and fails rejects-all-invalid).
   */
  readonly beyond?: readonly Level[];
  readonly variant: Variant;
  /** For variants with state of their own: makes a fresh one for each server. */
  readonly stateful?: () => Variant;
}

const error400 = (message = "bad request"): WireResponse => json(400, { error: 400, message });
const authorised = (r: CoreRequest): CoreRequest => ({
  ...r,
  headers: { ...r.headers, authorization: `Bearer ${TOKEN}` },
});
/** The token of `Authorization: Bearer <token>`, undefined for any other scheme. */
const bearerOf = (r: CoreRequest): string | undefined =>
  /^Bearer (.*)$/.exec(String(r.headers.authorization ?? ""))?.[1];
const text = (r: CoreRequest): string => Buffer.from(r.body).toString("utf8");
const isPlantLike = (b: any): boolean => typeof b === "object" && b !== null && !Array.isArray(b);
/** Accept instead of the reference's 400, when a predicate says a careless server would. */
const acceptIf =
  (predicate: (body: any, r: CoreRequest) => boolean): CatalogueEntry["variant"] =>
  (r, body, reference) => {
    const ref = reference();
    return ref.status === 400 && predicate(body, r)
      ? json(200, { name: typeof body?.name === "string" ? body.name : "accepted" })
      : ref;
  };
/** Refuse with a 400 Error what a picky server invents a rule against. */
const refuseIf =
  (predicate: (body: any, r: CoreRequest) => boolean): CatalogueEntry["variant"] =>
  (r, body, reference) =>
    isPlantLike(body) && predicate(body, r) ? error400("refused by an invented rule") : reference();
const mapSuccess =
  (f: (ref: WireResponse, body: any) => Override): CatalogueEntry["variant"] =>
  (_r, body, reference) => {
    const ref = reference();
    return ref.status === 200 ? f(ref, body) : ref;
  };
const mapStatus =
  (status: number, f: (ref: WireResponse, body: any, r: CoreRequest) => Override): CatalogueEntry["variant"] =>
  (r, body, reference) => {
    const ref = reference();
    return ref.status === status ? f(ref, body, r) : ref;
  };

export const FAULTY: readonly CatalogueEntry[] = [
  {
    name: "answers 500 to a valid create",
    caughtBy: { fixture: "valid-basic", check: "status.no-5xx" },
    variant: mapSuccess(() => json(500, { error: 500, message: "boom" })),
  },
  {
    name: "answers 201 instead of the documented 200",
    caughtBy: { fixture: "valid-basic", check: "valid.accepted" },
    variant: mapSuccess((ref) => ({ ...ref, status: 201 })),
  },
  {
    name: "success body without name",
    caughtBy: { fixture: "valid-basic", check: "response.schema" },
    variant: mapSuccess((_ref, b) => json(200, { title: b.name })),
  },
  {
    name: "success body with a numeric tag",
    caughtBy: { fixture: "valid-basic", check: "response.schema" },
    variant: mapSuccess((_ref, b) => json(200, { name: b.name, tag: 5 })),
  },
  {
    name: "success body sent as text/plain",
    caughtBy: { fixture: "valid-basic", check: "response.media-type" },
    variant: mapSuccess((ref) => ({ ...ref, headers: { "content-type": "text/plain" } })),
  },
  {
    name: "success body that is not JSON",
    caughtBy: { fixture: "valid-basic", check: "response.json" },
    variant: mapSuccess(() => json(200, '{"name": "unterminated')),
  },
  {
    name: "success body without Content-Type",
    caughtBy: { fixture: "valid-basic", check: "response.media-type" },
    variant: mapSuccess((ref) => ({ ...ref, headers: {} })),
  },
  {
    name: "a Content-Length longer than the body",
    caughtBy: { fixture: "valid-basic", check: "response.received" },
    variant: mapSuccess((ref) => ({ wire: "short-body", answer: ref })),
  },
  {
    name: "resets the connection on a valid create",
    caughtBy: { fixture: "valid-basic", check: "response.received" },
    variant: mapSuccess(() => ({ wire: "reset" })),
  },
  {
    name: "answers with malformed HTTP",
    caughtBy: { fixture: "valid-basic", check: "response.received" },
    variant: mapSuccess(() => ({ wire: "raw", bytes: "HTTP/1.1 200 OK\r\nContent-Length: twelve\r\n\r\n{}" })),
  },
  {
    name: "400 body that is not an Error",
    caughtBy: { fixture: "invalid-missing-id", check: "response.schema" },
    variant: mapStatus(400, () => json(400, { problem: "bad" })),
  },
  {
    name: "400 Error whose error is a string",
    caughtBy: { fixture: "invalid-missing-id", check: "response.schema" },
    variant: mapStatus(400, () => json(400, { error: "bad_request", message: "bad" })),
  },
  {
    name: "400 Error whose error is beyond int32",
    caughtBy: { fixture: "invalid-missing-id", check: "response.schema" },
    variant: mapStatus(400, () => json(400, { error: 4294967296, message: "bad" })),
  },
  {
    name: "400 Error without message",
    caughtBy: { fixture: "invalid-missing-id", check: "response.schema" },
    variant: mapStatus(400, () => json(400, { error: 400 })),
  },
  {
    name: "400 Error sent as text/html",
    caughtBy: { fixture: "invalid-missing-id", check: "response.media-type" },
    variant: mapStatus(400, (ref) => ({ ...ref, headers: { "content-type": "text/html" } })),
  },
  {
    name: "accepts a body without name",
    caughtBy: { fixture: "invalid-missing-name", check: "invalid.rejected" },
    variant: acceptIf((b) => isPlantLike(b) && b.name === undefined && Number.isInteger(b.id)),
  },
  {
    name: "accepts a body without id",
    caughtBy: { fixture: "invalid-missing-id", check: "invalid.rejected" },
    variant: acceptIf((b) => isPlantLike(b) && b.id === undefined && typeof b.name === "string"),
  },
  {
    name: "no integer check on id (accepts 1.5)",
    caughtBy: { fixture: "invalid-id-fraction", check: "invalid.rejected" },
    variant: acceptIf((b) => typeof b?.id === "number" && typeof b.name === "string"),
  },
  {
    name: "accepts ids given as strings",
    caughtBy: { fixture: "invalid-id-string", check: "invalid.rejected" },
    variant: acceptIf((b) => typeof b?.id === "string" && typeof b.name === "string"),
  },
  {
    name: "accepts a null id",
    caughtBy: { fixture: "invalid-id-null", check: "invalid.rejected" },
    variant: acceptIf((b) => isPlantLike(b) && b.id === null),
  },
  {
    name: "checks the int64 range on doubles (accepts 2^63)",
    caughtBy: { fixture: "invalid-id-above-int64", check: "invalid.rejected" },
    variant: acceptIf(
      (b) => Number.isInteger(b?.id) && b.id >= -(2 ** 63) && b.id <= 9223372036854775807 && typeof b.name === "string",
    ),
  },
  {
    name: "accepts a null tag",
    caughtBy: { fixture: "invalid-tag-null", check: "invalid.rejected" },
    variant: acceptIf((b) => isPlantLike(b) && b.tag === null),
  },
  {
    name: "accepts a numeric name",
    caughtBy: { fixture: "invalid-name-number", check: "invalid.rejected" },
    variant: acceptIf((b) => typeof b?.name === "number"),
  },
  {
    name: "accepts a body that is an array",
    caughtBy: { fixture: "invalid-body-array", check: "invalid.rejected" },
    variant: acceptIf((b) => Array.isArray(b)),
  },
  {
    name: "accepts malformed JSON",
    caughtBy: { fixture: "invalid-malformed-json", check: "invalid.rejected" },
    variant: acceptIf((b, r) => b === undefined && r.body.length > 0),
  },
  {
    name: "accepts an empty body",
    caughtBy: { fixture: "invalid-empty-body", check: "invalid.rejected" },
    variant: acceptIf((_b, r) => r.body.length === 0),
  },
  {
    name: "answers 500 to a wrong Content-Type",
    caughtBy: { fixture: "invalid-content-type-text", check: "status.no-5xx" },
    variant: (r, _b, reference) =>
      r.headers["content-type"] === "text/plain" ? json(500, { error: 500, message: "boom" }) : reference(),
  },
  {
    name: "rejects ids beyond 2^53",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-id-beyond-2-53", check: "valid.accepted" },
    variant: refuseIf((b) => Math.abs(b.id) > 2 ** 53),
  },
  {
    name: "rejects ids below -2^53",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-id-below-minus-2-53", check: "valid.accepted" },
    variant: refuseIf((b) => b.id < -(2 ** 53)),
  },
  {
    name: "rejects int64 max (a double range check)",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-id-int64-max", check: "valid.accepted" },
    variant: refuseIf((b) => b.id >= 2 ** 63),
  },
  {
    name: "rejects int64 min (an exclusive bound)",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-id-int64-min", check: "valid.accepted" },
    variant: refuseIf((b) => b.id <= -(2 ** 63)),
  },
  {
    name: "rejects 2^53 + 1 (a safe-integer check)",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-id-2-53-plus-1", check: "valid.accepted" },
    variant: refuseIf((b) => typeof b.id === "number" && !Number.isSafeInteger(b.id)),
  },
  {
    name: "rejects negative ids",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-id-negative", check: "valid.accepted" },
    variant: refuseIf((b) => b.id < 0),
  },
  {
    name: "rejects the id 0",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-id-zero", check: "valid.accepted" },
    variant: refuseIf((b) => b.id === 0),
  },
  {
    name: "rejects ids written 123.0",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-id-written-with-fraction", check: "valid.accepted" },
    variant: refuseIf((_b, r) => /"id":\s*-?\d+\.0/.test(text(r))),
  },
  {
    name: "rejects empty names",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-name-empty", check: "valid.accepted" },
    variant: refuseIf((b) => b.name === ""),
  },
  {
    name: "rejects names over 1,000 characters",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-name-long", check: "valid.accepted" },
    variant: refuseIf((b) => typeof b.name === "string" && b.name.length > 1000),
  },
  {
    name: "rejects non-ASCII names",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-name-unicode", check: "valid.accepted" },
    variant: refuseIf((b) => /[^\x00-\x7f]/.test(String(b.name))),
  },
  {
    name: "rejects empty tags",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-tag-empty", check: "valid.accepted" },
    variant: refuseIf((b) => b.tag === ""),
  },
  {
    name: "requires tag",
    caughtBy: { fixture: "valid-without-tag", check: "valid.accepted" },
    variant: refuseIf((b) => b.tag === undefined),
  },
  {
    name: "rejects unknown properties",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-extra-properties", check: "valid.accepted" },
    variant: refuseIf((b) => Object.keys(b).some((k) => !["id", "name", "tag"].includes(k))),
  },
  {
    name: "rejects a charset parameter",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-content-type-charset", check: "valid.accepted" },
    variant: refuseIf((_b, r) => r.headers["content-type"] !== "application/json"),
  },
  {
    name: "makes names unique",
    level: "accepts-all-valid",
    caughtBy: { fixture: "valid-same-name-twice", check: "valid.accepted" },
    variant: () => undefined,
    stateful: () => {
      const names = new Set<string>();
      return mapSuccess((ref, b) => (names.has(b.name) ? error400("name taken") : (names.add(b.name), ref)));
    },
  },
  {
    name: "no authentication at all",
    caughtBy: { fixture: "auth-missing", check: "auth.rejected" },
    variant: (r, _b, reference, as) => (r.headers.authorization === undefined ? as(authorised(r)) : reference()),
  },
  {
    name: "accepts any token",
    caughtBy: { fixture: "auth-wrong-token", check: "auth.rejected" },
    variant: (r, _b, reference, as) =>
      /^Bearer \S+/.test(String(r.headers.authorization)) ? as(authorised(r)) : reference(),
  },
  {
    name: "accepts the token under any scheme",
    caughtBy: { fixture: "auth-other-scheme", check: "auth.rejected" },
    variant: (r, _b, reference, as) =>
      String(r.headers.authorization).endsWith(TOKEN) ? as(authorised(r)) : reference(),
  },
  {
    name: "accepts an empty bearer",
    caughtBy: { fixture: "auth-empty-bearer", check: "auth.rejected" },
    variant: (r, _b, reference, as) =>
      String(r.headers.authorization).trim() === "Bearer" ? as(authorised(r)) : reference(),
  },
  {
    name: "accepts any token that starts with the real one (a prefix comparison)",
    caughtBy: { fixture: "auth-near-miss-appended", check: "auth.rejected" },
    variant: (r, _b, reference, as) => (bearerOf(r)?.startsWith(TOKEN) === true ? as(authorised(r)) : reference()),
  },
  {
    name: "compares the token without case",
    caughtBy: { fixture: "auth-near-miss-case", check: "auth.rejected" },
    variant: (r, _b, reference, as) =>
      bearerOf(r)?.toLowerCase() === TOKEN.toLowerCase() ? as(authorised(r)) : reference(),
  },
  {
    name: "compares only the first 8 characters of the token",
    caughtBy: { fixture: "auth-near-miss-changed", check: "auth.rejected" },
    variant: (r, _b, reference, as) =>
      bearerOf(r)?.slice(0, 8) === TOKEN.slice(0, 8) ? as(authorised(r)) : reference(),
  },
  {
    name: "accepts any non-empty part of the token from its start (compares only what was sent)",
    caughtBy: { fixture: "auth-near-miss-truncated", check: "auth.rejected" },
    variant: (r, _b, reference, as) => {
      const sent = bearerOf(r);
      return sent !== undefined && sent !== "" && TOKEN.startsWith(sent) ? as(authorised(r)) : reference();
    },
  },
  {
    name: "answers 500 to a repeated id",
    caughtBy: { fixture: "duplicate-id", check: "status.no-5xx" },
    variant: mapStatus(409, () => json(500, { error: 500, message: "duplicate key" })),
  },
  {
    name: "answers a repeated id with a 400 that is not an Error",
    caughtBy: { fixture: "duplicate-id", check: "response.schema" },
    variant: mapStatus(409, () => json(400, { duplicate: true })),
  },
  {
    name: "401 without WWW-Authenticate (an RFC rule)",
    level: "http-rfc",
    caughtBy: { fixture: "auth-missing", check: "auth.challenge" },
    variant: mapStatus(401, (ref) => ({ ...ref, headers: { "content-type": "application/json" } })),
  },
  {
    name: "rejects a lower-case bearer scheme (an RFC rule)",
    level: "http-rfc",
    caughtBy: { fixture: "valid-auth-scheme-lowercase", check: "valid.accepted" },
    variant: (r, _b, reference) =>
      String(r.headers.authorization).startsWith("bearer ")
        ? json(401, { error: 401, message: "no" }, { "www-authenticate": "Bearer" })
        : reference(),
  },
  {
    name: "accepts a body that is not UTF-8 (read with replacement characters)",
    level: "rejects-all-invalid",
    caughtBy: { fixture: "invalid-utf8", check: "invalid.rejected" },
    variant: (r, _b, _reference, as) => as({ ...r, body: new Uint8Array(Buffer.from(text(r), "utf8")) }),
  },
];

export const LEGITIMATE: readonly CatalogueEntry[] = [
  {
    name: "403 for every credential problem",
    variant: mapStatus(401, () => json(403, { error: 403, message: "forbidden" })),
  },
  {
    name: "400 Error for every credential problem",
    variant: mapStatus(401, () => json(400, { error: 400, message: "bad credentials" })),
  },
  {
    name: "validates the body before the credentials",
    variant: (r, _b, reference, as) => {
      const ref = reference();
      if (ref.status !== 401) return ref;
      const validated = as(authorised(r));
      return validated.status === 400 ? validated : ref;
    },
  },
  { name: "repeated id: 200, the plant replaced", variant: mapStatus(409, (_ref, b) => json(200, { name: b.name })) },
  {
    name: "repeated id: 400 with an Error",
    variant: mapStatus(409, () => json(400, { error: 17, message: "id exists" })),
  },
  { name: "repeated id: 422 with a body of its own", variant: mapStatus(409, () => json(422, { detail: "exists" })) },
  {
    name: "invalid bodies: 422 with a body of its own",
    variant: mapStatus(400, () => json(422, { detail: [{ loc: ["body"], msg: "invalid" }] })),
  },
  {
    name: "wrong Content-Type: 415",
    variant: (r, _b, reference) =>
      r.headers["content-type"] === "text/plain" ? json(415, { error: 415, message: "unsupported" }) : reference(),
  },
  {
    name: "Error with its own codes and extra fields",
    variant: mapStatus(400, () =>
      json(400, { error: 1001, message: "invalid", details: [{ field: "id" }], traceId: "abc" }),
    ),
  },
  {
    name: "success with charset, the id and extra fields",
    variant: mapSuccess((_ref, b) =>
      json(
        200,
        { name: b.name, tag: b.tag, id: 1, createdAt: "2026-01-01T00:00:00Z" },
        { "content-type": "application/json; charset=utf-8" },
      ),
    ),
  },
  {
    name: "success naming a different plant (the contract does not say it echoes)",
    variant: mapSuccess(() => json(200, { name: "Some other plant" })),
  },
  { name: "stateless: every valid create gets 200", variant: mapStatus(409, (_ref, b) => json(200, { name: b.name })) },
  {
    name: "lenient media type: text/plain parsed as JSON",
    beyond: ["rejects-all-invalid"],
    variant: (r, _b, _reference, as) =>
      as(
        r.headers["content-type"] === "text/plain"
          ? { ...r, headers: { ...r.headers, "content-type": "application/json" } }
          : r,
      ),
  },
  {
    name: "a 302 to a login page for bad credentials",
    beyond: ["documented-statuses"],
    variant: mapStatus(401, () => ({ status: 302, headers: { location: "/login" }, body: "" })),
  },
];
