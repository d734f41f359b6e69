// Whether a request or an answer is acceptable by the contract, decided in one place. The server's
// core, the fixture honesty check, the generator, seed loading and the harness's response checks all
// ask here, so they cannot drift apart. Results are data; nothing throws for "invalid". No Node
// built-ins: the fetch handler's browser bundle includes this file.
import type {
  FormFields,
  CompiledHeader,
  CompiledOperation,
  CompiledParameter,
  CompiledResponse,
  MediaTypeEntry,
} from "./contract.js";
import { parseCookie, parseHeader, parsePath, parseQuery, splitQuery, type QueryPairs } from "./parameter-parse.js";
import type { ParsedParameter } from "./parameter-read.js";
import { styleOfCompiled, type ParameterStyle } from "./parameter-style.js";
import { NO_EXACT, parseJsonExact, type ExactNumbers } from "./exact-json.js";
import { readsBackAsItself, writeJson } from "./exact-tree.js";
import { mediaTypeLookup, parseMediaType } from "./media-type.js";
import { describeViolation, type Violation } from "./violations.js";

/** Header fields by lower-case name; of a repeated field the first value counts, as node:http keeps it. */
export type HeaderFields = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A request as the contract judges it. */
export interface RequestMessage {
  readonly headers: HeaderFields;
  /** The body as received; undefined or empty: no body. */
  readonly body?: Uint8Array | undefined;
  /**
   * The request target's path as sent (percent-encoded, without the query) and its query (without
   * `?`). When either is given, the operation's parameters are judged too (path, query, header and
   * cookie, by their style); without both, only the body is.
   */
  readonly path?: string;
  readonly query?: string;
}

/** An answer as the contract judges it. */
export interface ResponseMessage {
  readonly status: number;
  readonly headers: HeaderFields;
  readonly body: Uint8Array;
}

/** An answer whose body is a value to be written as JSON (exact-tree's writeJson), not yet written. */
export interface ResponseValue {
  readonly status: number;
  readonly headers: HeaderFields;
  readonly value: unknown;
  /** `readsBackAsItself(value)`, where the caller found it already (it writes the value too). */
  readonly readsBack?: boolean;
}

/** A request body already parsed (seed data): judged by its media type's schema, as a parsed body is. */
export interface RequestValue {
  /** The media type the value stands for, as a Content-Type header would name it. */
  readonly contentType: string;
  readonly value: unknown;
  readonly exact?: ExactNumbers;
}

/** An acceptable request: the media type entry it matched and the JSON value read from it. */
export interface AcceptedRequest {
  readonly ok: true;
  /** The spec's media type entry; undefined when there was no body to match (none sent, none documented). */
  readonly entry: MediaTypeEntry | undefined;
  /** The parsed JSON body; undefined when no JSON was read (no body, or a media type that is not JSON). */
  readonly value: unknown;
  /** Exact values of the numbers a double cannot hold, by JSON pointer into `value`. */
  readonly exact: ExactNumbers;
}

/** An acceptable answer: as a request, plus the response the spec documents for its status. */
export interface AcceptedResponse extends AcceptedRequest {
  readonly response: CompiledResponse;
}

/** A refusal: why (a reason callers map to their own answers), and a sentence for people. */
export interface Refusal<Reason extends string> {
  readonly ok: false;
  readonly reason: Reason;
  readonly detail: string;
}

/** Why a body of a documented media type is refused, with the evidence a caller may need. */
export type BodyRefusal =
  | (Refusal<"utf-8"> & { readonly entry: MediaTypeEntry })
  | (Refusal<"json"> & { readonly entry: MediaTypeEntry; readonly syntax: string })
  | (Refusal<"schema"> & {
      readonly entry: MediaTypeEntry;
      readonly value: unknown;
      readonly exact: ExactNumbers;
      readonly violations: readonly Violation[];
    });

/** Why a parameter is refused: missing when required, unreadable in its style, or against its schema. */
export type ParameterRefusal = Refusal<"parameter"> & {
  readonly parameter: CompiledParameter;
  readonly violations: readonly Violation[];
};

/** Why a request is refused, with the evidence a caller needs to say so in its own words. */
export type RequestRefusal =
  | ParameterRefusal
  | Refusal<"missing">
  | (Refusal<"media-type"> & { readonly contentType: string | undefined })
  | (Refusal<"charset"> & { readonly entry: MediaTypeEntry; readonly charset: string })
  | BodyRefusal;

/** Why an answer breaks the contract: an undocumented status, an undocumented media type, or its body. */
export type ResponseRefusal =
  | Refusal<"status">
  | (Refusal<"media-type"> & { readonly response: CompiledResponse; readonly contentType: string | undefined })
  | (BodyRefusal & { readonly response: CompiledResponse });

export type CheckedRequest = AcceptedRequest | RequestRefusal;
export type CheckedResponse = AcceptedResponse | ResponseRefusal;
/** `parameter`, `missing`, `media-type`, `charset`, `utf-8`, `json` or `schema`. */
export type RequestReason = RequestRefusal["reason"];
/** `status`, `media-type`, `utf-8`, `json` or `schema`. */
export type ResponseReason = ResponseRefusal["reason"];

const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();
const NO_BODY = Object.freeze<AcceptedRequest>({ ok: true, entry: undefined, value: undefined, exact: NO_EXACT });

/**
 * Judges a request by the operation: its parameters (when the path or query is given), then its
 * body: presence, media type, charset, UTF-8, JSON, schema, in that order. The first problem is the
 * verdict.
 */
export function checkRequest(operation: CompiledOperation, request: RequestMessage): CheckedRequest {
  if (request.path !== undefined || request.query !== undefined) {
    const refused = checkParameters(operation, request);
    if (refused !== undefined) return refused;
  }
  const body = operation.requestBody;
  // Without a requestBody the contract says nothing about one, so whatever is sent is not judged.
  if (body === undefined) return NO_BODY;
  if (request.body === undefined || request.body.length === 0) {
    return body.required ? { ok: false, reason: "missing", detail: "the body is required" } : NO_BODY;
  }
  const contentType = first(request.headers["content-type"]);
  const entry = operation.requestMediaType(contentType);
  if (entry === undefined) {
    const documented = [...body.content.keys()].join(", ");
    const detail = `Content-Type ${JSON.stringify(contentType ?? null)} is not one of ${documented}`;
    return { ok: false, reason: "media-type", detail, contentType };
  }
  if (entry.form !== undefined && entry.hasSchema) return checkFormBody(entry, entry.form, contentType, request.body);
  const reading = readingOf(entry, contentType);
  if (reading === undefined) return { ok: true, entry, value: undefined, exact: NO_EXACT };
  if (reading === "text") return checkTextBody(entry, contentType, request.body);
  // JSON exchanged between systems is UTF-8 (RFC 8259 section 8.1): a charset naming anything else is
  // refused. The header equal to the spec's key has no parameters, the common case, not parsed again.
  const charset = contentType === entry.mediaType ? undefined : charsetOf(contentType);
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    return { ok: false, reason: "charset", detail: `charset ${JSON.stringify(charset)} is not UTF-8`, entry, charset };
  }
  return checkJsonBody(entry, request.body);
}

/**
 * Judges a request body given as a value rather than bytes (seed data): its media type, then its
 * schema, exactly as checkRequest judges a body once parsed. The value is taken as present.
 */
export function checkRequestValue(operation: CompiledOperation, request: RequestValue): CheckedRequest {
  const entry = operation.requestMediaType(request.contentType);
  if (entry === undefined) {
    const documented = [...(operation.requestBody?.content.keys() ?? [])].join(", ") || "(no request body)";
    const detail = `Content-Type ${JSON.stringify(request.contentType)} is not one of ${documented}`;
    return { ok: false, reason: "media-type", detail, contentType: request.contentType };
  }
  return checkValue(entry, request.value, request.exact ?? NO_EXACT);
}

/**
 * Judges an answer by the operation: a documented status, one of its documented media types, and a
 * body that is UTF-8 JSON and valid by the schema. Only what the spec documents is judged: a status
 * without content, or a media type without a schema or neither JSON nor plain text, puts no rule
 * on the body.
 * The charset parameter is not judged here; the body's bytes are, as UTF-8.
 */
export function checkResponse(operation: CompiledOperation, answer: ResponseMessage): CheckedResponse {
  const found = responseReading(operation, answer);
  if (!("reading" in found)) return found;
  const { response, entry, reading, contentType } = found;
  if (reading === "text") return withResponse(checkTextBody(entry, contentType, answer.body), response);
  return withResponse(checkJsonBody(entry, answer.body), response);
}

/**
 * A body's verdict with the response it was judged under. An acceptance is built member by member:
 * V8 copies a spread of it ten times slower than the whole judgement of a small answer takes.
 */
function withResponse(checked: AcceptedRequest | BodyRefusal, response: CompiledResponse): CheckedResponse {
  if (checked.ok) return { ok: true, entry: checked.entry, value: checked.value, exact: checked.exact, response };
  return { ...checked, response };
}

/**
 * Judges an answer whose body is a value the caller writes as JSON (exact-tree's writeJson): the
 * same verdict as checkResponse on the text it writes, found without writing it where reading that
 * text back gives the value itself (no exact number, no member left out: `readsBackAsItself`), as the
 * mock engine's every answer is. A value that would not read back as itself is written and judged.
 * The value is JSON data, as the engine's are: every member enumerable (writeJson skips the others).
 */
export function checkResponseValue(operation: CompiledOperation, answer: ResponseValue): CheckedResponse {
  const found = responseReading(operation, answer);
  if (!("reading" in found)) return found;
  const { response, entry, reading } = found;
  if (reading === "json" && (answer.readsBack ?? readsBackAsItself(answer.value)))
    return withResponse(checkValue(entry, answer.value, NO_EXACT), response);
  const body = utf8Encoder.encode(writeJson(answer.value));
  return checkResponse(operation, { status: answer.status, headers: answer.headers, body });
}

/**
 * What an answer's body is judged by: its documented response and media type, and how its body is
 * read; or the verdict where nothing of the body is to be read (an undocumented status or media
 * type refused, no content documented, no schema).
 */
function responseReading(
  operation: CompiledOperation,
  answer: { readonly status: number; readonly headers: HeaderFields },
):
  | CheckedResponse
  | {
      readonly response: CompiledResponse;
      readonly entry: MediaTypeEntry;
      readonly reading: "json" | "text";
      readonly contentType: string | undefined;
    } {
  const response = operation.responseFor(answer.status);
  if (response === undefined) {
    return { ok: false, reason: "status", detail: `${answer.status} is not documented for this operation` };
  }
  if (response.content.size === 0) return { ok: true, response, entry: undefined, value: undefined, exact: NO_EXACT };
  // 204 and 304 have no content whatever the document says (RFC 9110 sections 15.3.5, 15.4.5).
  if (answer.status === 204 || answer.status === 304)
    return { ok: true, response, entry: undefined, value: undefined, exact: NO_EXACT };
  const contentType = first(answer.headers["content-type"]);
  const entry = responseMediaType(response, contentType);
  if (entry === undefined) {
    const detail = responseMediaTypeDetail(answer.status, response, contentType);
    return { ok: false, reason: "media-type", detail, response, contentType };
  }
  const reading = entry.hasSchema ? readingOf(entry, contentType) : undefined;
  if (reading === undefined) return { ok: true, response, entry, value: undefined, exact: NO_EXACT };
  return { response, entry, reading, contentType };
}

/**
 * Why an answer's media type is refused, in words; `received` as the caller may show it (masked, for
 * the harness's evidence). One sentence for the contract's refusal and the check that reports it.
 */
export function responseMediaTypeDetail(
  status: number,
  response: CompiledResponse,
  received: string | undefined,
): string {
  const documented = [...response.content.keys()].join(", ");
  return `status ${status} is documented with ${documented}, but the answer's Content-Type is ${received ?? "missing"}`;
}

/** Each response's media type by Content-Type value, matched once per value (media-type.ts). */
const responseMediaTypes = new WeakMap<CompiledResponse, (header: string | undefined) => MediaTypeEntry | undefined>();

function responseMediaType(response: CompiledResponse, contentType: string | undefined): MediaTypeEntry | undefined {
  let lookup = responseMediaTypes.get(response);
  if (lookup === undefined) responseMediaTypes.set(response, (lookup = mediaTypeLookup(response.content)));
  return lookup(contentType);
}

/**
 * Every parameter of the operation read from where it goes, by its style, and judged by its schema:
 * the first refused one, or undefined when all are acceptable.
 */
export function checkParameters(operation: CompiledOperation, request: RequestMessage): ParameterRefusal | undefined {
  if (operation.parameters.length === 0) return undefined;
  const pathValues = request.path === undefined ? undefined : operation.matchRawPath(request.path);
  const query = request.query ?? "";
  const cookies = request.headers.cookie;
  for (const p of operation.parameters) {
    const style = styleOfCompiled(p);
    const others = siblings(operation, p);
    let parsed: ParsedParameter;
    if (p.in === "path") {
      const raw = pathValues?.[p.name];
      if (raw === undefined) continue; // no path given, or a template that does not name it
      parsed = parsePath(style, raw, p.shape);
    } else if (p.in === "query") parsed = parseQuery(style, query, p.shape, others);
    else if (p.in === "header") parsed = parseHeader(style, request.headers[p.name.toLowerCase()], p.shape);
    else parsed = parseCookie(style, cookies, p.shape, others);
    const where = `${p.in} parameter ${JSON.stringify(p.name)}`;
    // Each refusal lists what was wrong where, as a schema's would: a client reads one list.
    const location = `${p.in}/${p.name}`;
    if (!parsed.ok) {
      const violations = [{ location, keyword: "style", message: parsed.message, schemaPath: "" }];
      return { ok: false, reason: "parameter", detail: parsed.message, parameter: p, violations };
    }
    if (parsed.value === undefined) {
      if (!p.required) continue;
      const violations = [{ location, keyword: "required", message: "is required", schemaPath: "" }];
      return { ok: false, reason: "parameter", detail: `the ${where} is required`, parameter: p, violations };
    }
    const violations = p.validate(parsed.value);
    if (violations.length > 0) {
      const detail = `the ${where}: ${violations.map(describeViolation).join("; ")}`;
      return { ok: false, reason: "parameter", detail, parameter: p, violations };
    }
  }
  return undefined;
}

/** A documented response header the answer lacks or breaks. */
export interface HeaderProblem {
  readonly header: CompiledHeader;
  readonly detail: string;
  readonly received: string | undefined;
}

/** The answer's documented headers: each required one present, each present one valid by its schema. */
export function checkResponseHeaders(response: CompiledResponse, headers: HeaderFields): HeaderProblem[] {
  const problems: HeaderProblem[] = [];
  for (const [lower, h] of response.headers) {
    const raw = headers[lower];
    const received = raw === undefined ? undefined : typeof raw === "string" ? raw : raw.join(", ");
    if (raw === undefined) {
      if (h.required) problems.push({ header: h, detail: `the header ${h.name} is required`, received });
      continue;
    }
    const style: ParameterStyle = {
      name: h.name,
      in: "header",
      style: "simple",
      explode: h.explode,
      ...(h.content === undefined ? {} : { contentType: h.content.mediaType }),
    };
    const parsed = parseHeader(style, raw, h.shape);
    if (!parsed.ok) problems.push({ header: h, detail: parsed.message, received });
    else if (parsed.value !== undefined) {
      const violations = h.validate(parsed.value);
      if (violations.length > 0)
        problems.push({
          header: h,
          detail: `the header ${h.name}: ${violations.map(describeViolation).join("; ")}`,
          received,
        });
    }
  }
  return problems;
}

/** The names of the operation's other parameters in the same place, so an exploded object leaves them alone. */
function siblings(operation: CompiledOperation, p: CompiledParameter): ReadonlySet<string> {
  const names = new Set(operation.parameters.filter((o) => o !== p && o.in === p.in).map((o) => o.name));
  // An apiKey of the operation's security in the same place is not part of an exploded object either.
  for (const alternative of operation.security)
    for (const s of alternative)
      if (s.type === "apiKey" && s.in === p.in && s.paramName !== undefined) names.add(s.paramName);
  return names;
}

/**
 * A form body (`application/x-www-form-urlencoded`, or `multipart/form-data` read into the same
 * name/value pairs) read field by field as its schema and `encoding` say, then validated as an object.
 * Fields the schema does not name are kept as text. A field that cannot be read is a schema refusal.
 */
function checkFormBody(
  entry: MediaTypeEntry,
  fields: FormFields,
  contentType: string | undefined,
  bytes: Uint8Array,
): AcceptedRequest | BodyRefusal {
  const multipart = /^multipart\//i.test(entry.mediaType);
  let pairs: QueryPairs;
  const json = new Map<string, string>();
  if (multipart) {
    const parts = multipartParts(bytes, parseMediaType(contentType)?.parameters.boundary);
    if (parts === undefined)
      return schemaRefusal(
        entry,
        "body",
        "multipart",
        "the body is not multipart/form-data with the boundary its Content-Type names",
      );
    pairs = parts.map((p) => [p.name, encodeURIComponent(p.text)] as const);
    for (const p of parts) if (p.contentType !== undefined && /json/i.test(p.contentType)) json.set(p.name, p.text);
  } else {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return { ok: false, reason: "utf-8", detail: "the body is not UTF-8", entry };
    }
    pairs = splitQuery(text);
  }
  const value: Record<string, unknown> = {};
  const names = new Set(fields.keys());
  for (const [name, field] of fields) {
    const asJson =
      json.get(name) ??
      (field.contentType !== undefined && /json/i.test(field.contentType) ? jsonField(pairs, name) : undefined);
    if (asJson !== undefined) {
      const parsed = parseJsonExact(asJson);
      if (!parsed.ok) return schemaRefusal(entry, `body/${name}`, "json", `is not JSON: ${parsed.message}`);
      Object.defineProperty(value, name, { value: parsed.value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const others = new Set([...names].filter((n) => n !== name));
    const parsed = parseQuery(field.style, pairs, field.shape, others);
    if (!parsed.ok) return schemaRefusal(entry, `body/${name}`, "style", parsed.message);
    if (parsed.value !== undefined)
      Object.defineProperty(value, name, { value: parsed.value, enumerable: true, writable: true, configurable: true });
  }
  for (const [name, raw] of pairs) {
    if (names.has(name) || [...names].some((n) => name.startsWith(`${n}[`))) continue;
    const text = formText(raw);
    const before = Object.prototype.hasOwnProperty.call(value, name) ? value[name] : undefined;
    const next = before === undefined ? text : Array.isArray(before) ? [...before, text] : [before, text];
    Object.defineProperty(value, name, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return checkValue(entry, value, NO_EXACT);
}

function jsonField(pairs: QueryPairs, name: string): string | undefined {
  const raw = pairs.find(([n]) => n === name)?.[1];
  return raw === undefined ? undefined : formText(raw);
}

/** A form value as text: `+` is a space, percent-encoding undone (kept as sent when it is not valid). */
function formText(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

function schemaRefusal(entry: MediaTypeEntry, location: string, keyword: string, message: string): BodyRefusal {
  const violations: Violation[] = [{ location, keyword, message, schemaPath: "#" }];
  return {
    ok: false,
    reason: "schema",
    detail: `${location}: ${message}`,
    entry,
    value: undefined,
    exact: NO_EXACT,
    violations,
  };
}

/** The parts of a multipart/form-data body (RFC 7578): name, text and Content-Type; undefined when it is not one. */
function multipartParts(
  bytes: Uint8Array,
  boundary: string | undefined,
): { name: string; text: string; contentType: string | undefined }[] | undefined {
  if (boundary === undefined || boundary === "") return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    // Binary parts: read as latin1, byte for byte, so the structure is still found.
    text = Array.from(bytes, (b) => String.fromCharCode(b)).join("");
  }
  const delimiter = `--${boundary}`;
  const chunks = text.split(delimiter);
  if (chunks.length < 3 || !chunks[chunks.length - 1]!.startsWith("--")) return undefined;
  const parts: { name: string; text: string; contentType: string | undefined }[] = [];
  for (const chunk of chunks.slice(1, -1)) {
    const body = chunk.replace(/^\r\n/, "").replace(/\r\n$/, "");
    const split = body.indexOf("\r\n\r\n");
    if (split < 0) return undefined;
    const head = body.slice(0, split);
    const name = /content-disposition:[^\r\n]*;\s*name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) return undefined;
    const contentType = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim();
    parts.push({ name, text: body.slice(split + 4), contentType });
  }
  return parts;
}

/** Decodes (UTF-8, RFC 8259 section 8.1), parses exactly and validates a body of a JSON media type. */
function checkJsonBody(entry: MediaTypeEntry, bytes: Uint8Array): AcceptedRequest | BodyRefusal {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: "utf-8", detail: "the body is not UTF-8", entry };
  }
  const parsed = parseJsonExact(text);
  if (!parsed.ok) {
    const syntax = parsed.message;
    return { ok: false, reason: "json", detail: `the body is not JSON: ${syntax}`, entry, syntax };
  }
  return checkValue(entry, parsed.value, parsed.exact);
}

function checkValue(entry: MediaTypeEntry, value: unknown, exact: ExactNumbers): AcceptedRequest | BodyRefusal {
  const violations = entry.validate(value);
  if (violations.length === 0) return { ok: true, entry, value, exact };
  const detail = violations.map(describeViolation).join("; ");
  return { ok: false, reason: "schema", detail, entry, value, exact, violations };
}

/**
 * How a body is read to be judged by its media type's schema. As JSON: a key that names JSON
 * (application/json, a +json suffix such as application/problem+json, RFC 6839 section 3.1), or a
 * media range (`application/*`, the bare wildcard) the body's Content-Type fills with a JSON type. As text:
 * a plain-text entry (its schema takes strings) with a schema. Others are not read, so not judged.
 */
function readingOf(entry: MediaTypeEntry, contentType: string | undefined): "json" | "text" | undefined {
  // The common key compared first: no expression run for it.
  if (entry.mediaType === "application/json" || /json/i.test(entry.mediaType)) return "json";
  if (!entry.hasSchema) return undefined;
  if (entry.mediaType.includes("*") && /json/.test(parseMediaType(contentType)?.essence ?? "")) return "json";
  return entry.plainText ? "text" : undefined;
}

/**
 * Judges a plain-text body by its string schema: the text, decoded as UTF-8. A charset that names
 * another encoding, or bytes that are not UTF-8 where none is named, leave it unjudged: the contract
 * does not say how to read them.
 */
function checkTextBody(
  entry: MediaTypeEntry,
  contentType: string | undefined,
  bytes: Uint8Array,
): AcceptedRequest | BodyRefusal {
  const unjudged = { ok: true, entry, value: undefined, exact: NO_EXACT } as const;
  const charset = charsetOf(contentType);
  if (charset !== undefined && !["utf-8", "utf8", "us-ascii"].includes(charset)) return unjudged;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return unjudged;
  }
  const checked = checkValue(entry, text, NO_EXACT);
  return checked.ok ? unjudged : checked;
}

function charsetOf(contentType: string | undefined): string | undefined {
  return parseMediaType(contentType)?.parameters.charset?.toLowerCase();
}

function first(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === "string" || value === undefined ? value : value[0];
}
