// OpenAPI parameter serialisation and parsing (OAS 3.0/3.1 Parameter Object, `style`, `explode`,
// `allowReserved` and `content`): the client side writes a value into a path, a query string, a
// header or a Cookie header; the server and proxy side reads it back into a JSON value that the
// contract's schema validators judge. Pure and browser-safe: no Node built-ins, no I/O.
//
// Decisions where the specification leaves room:
// - The OAS 3.1.1 style table (section 4.8.12.4) is followed; its `undefined` column is what null, "",
//   [] and {} serialise to (`;color`, `.`, empty, `color=`). A JS `undefined` is an absent parameter:
//   nothing in a query, header or cookie. An exploded empty object in a query or cookie is absent too
//   (RFC 6570 section 2.3: an empty associative array is undefined).
// - Values are percent-encoded per RFC 3986 in paths, queries and `form` cookies: everything but the
//   unreserved characters, with `!'()*` encoded too (RFC 6570 expansion; encodeURIComponent leaves them).
//   In the exploded label style `.` is encoded inside values, because it is the delimiter there.
//   `allowReserved` keeps RFC 3986 reserved characters and percent-encoded triples as they are, except
//   `#`, `[`, `]` (not allowed in a query) and `&`, `=`, `+` (form-urlencoded delimiters), as OAS 3.1.1
//   Appendix C asks.
// - Headers are not percent-encoded (OAS 3.2 Parameter Object: "URI percent-encoding MUST NOT be
//   applied" to headers; common practice under 3.0/3.1 too), so a header value is the plain text.
// - Cookies: `form` percent-encodes like a query; exploded values are separate cookie pairs joined by
//   "; " (OAS 3.1.1 Appendix D: `&` is always wrong for cookies; OAS 3.2's `cookie` style), and the
//   OAS 3.2 `cookie` style (no percent-encoding) is understood as well.
// - Nested arrays and objects inside an array or object parameter (undefined by OAS) are written as
//   JSON text and read back as JSON where the schema expects an array or object there.
// - Parsing splits on delimiters before percent-decoding (OAS 3.1.1 Appendix C), decodes `+` as a space
//   in queries (form-urlencoded, as browsers do) and as itself elsewhere, and coerces each scalar by the
//   schema's types: numbers exactly, with integers beyond 2^53 kept as exact-json keeps them in bodies
//   (a stand-in double plus an ExactNumbers entry by JSON pointer), so the same validators judge them.
import {
  NO_EXACT,
  analyseNumber,
  parseJsonExact,
  stringifyExact,
  type ExactNumber,
  type ExactNumbers,
} from "./exact-json.js";
import { escapePointer } from "./json-pointer.js";
import { parseMediaType } from "./media-type.js";

/** Where a parameter goes in a request. */
export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** How a parameter is written: the Parameter Object's fields that decide serialisation, defaults applied. */
export interface ParameterStyle {
  readonly name: string;
  readonly in: ParameterLocation;
  /** simple | label | matrix | form | spaceDelimited | pipeDelimited | deepObject (| cookie, OAS 3.2). */
  readonly style: string;
  readonly explode: boolean;
  readonly allowReserved?: boolean;
  /**
   * A content-typed parameter (OAS `content` instead of `schema`): the value is serialised as that media
   * type (JSON for application/json and +json) and then percent-encoded where it goes.
   */
  readonly contentType?: string;
}

/** The Parameter Object fields parameterStyle reads. */
export interface ParameterObjectLike {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly style?: string;
  readonly explode?: boolean;
  readonly allowReserved?: boolean;
  readonly content?: Readonly<Record<string, unknown>>;
}

/** A JSON Schema type name. */
export type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "array" | "object";

/**
 * What parsing needs to know of a parameter's schema: whether the value is an array, an object or a
 * scalar, and the types a scalar text may be coerced to. An empty type list means "unconstrained": the
 * text stays a string. Derive it once per parameter with shapeOfSchema.
 */
export interface ValueShape {
  readonly kind: "primitive" | "array" | "object";
  /** The types of the value itself (for a primitive). */
  readonly types: readonly JsonType[];
  /** The types of an array's items. */
  readonly items: readonly JsonType[];
  /** The types of an object's named properties. */
  readonly properties: ReadonlyMap<string, readonly JsonType[]>;
  /** The types of other properties; false when the schema allows none (`additionalProperties: false`). */
  readonly additionalProperties: readonly JsonType[] | false;
}

/** A parsed parameter: the value (undefined when the parameter is absent) and its exact numbers, or why not. */
export type ParsedParameter =
  | { readonly ok: true; readonly value: unknown; readonly exact: ExactNumbers }
  | { readonly ok: false; readonly message: string };

/** A query string split into pairs: names percent-decoded, values still as sent (split before decoding). */
export type QueryPairs = readonly (readonly [name: string, rawValue: string])[];

/** The pairs of a Cookie header, names and values as sent (whitespace around them trimmed). */
export type CookiePairs = readonly (readonly [name: string, rawValue: string])[];

// ---------------------------------------------------------------------------------------------------
// Defaults

/**
 * The style of a Parameter Object with the defaults applied (OAS 3.1 section 4.8.12.2): `form` for query
 * and cookie, `simple` for path and header; `explode` true for `form` (and `cookie`), false otherwise.
 * A `content` parameter takes its media type (the map holds exactly one entry).
 */
/** How a compiled parameter (defaults already applied, contract.ts) is written. */
export function styleOfCompiled(p: {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly style: string;
  readonly explode: boolean;
  readonly allowReserved: boolean;
  readonly content?: { readonly mediaType: string };
}): ParameterStyle {
  return {
    name: p.name,
    in: p.in,
    style: p.style,
    explode: p.explode,
    ...(p.allowReserved ? { allowReserved: true } : {}),
    ...(p.content === undefined ? {} : { contentType: p.content.mediaType }),
  };
}

export function parameterStyle(parameter: ParameterObjectLike): ParameterStyle {
  const style = parameter.style ?? (parameter.in === "query" || parameter.in === "cookie" ? "form" : "simple");
  const explode = parameter.explode ?? (style === "form" || style === "cookie");
  const contentType = parameter.content === undefined ? undefined : Object.keys(parameter.content)[0];
  return {
    name: parameter.name,
    in: parameter.in,
    style,
    explode,
    ...(parameter.allowReserved === true ? { allowReserved: true } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// Percent-encoding

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789ABCDEF";

function charTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

/** RFC 3986 section 2.3 unreserved characters: never encoded. */
const UNRESERVED = charTable(ALNUM + "-._~");
/** Unreserved but `.`, the exploded label style's delimiter. */
const LABEL_ITEM = charTable(ALNUM + "-_~");
/** allowReserved: unreserved and the reserved characters a query can carry without changing its structure. */
const RESERVED_KEPT = charTable(ALNUM + "-._~" + ":/?@!$'()*,;");

const utf8 = new TextEncoder();

function isHexByte(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
}

/**
 * Percent-encodes the UTF-8 bytes of a text, keeping the ASCII characters of a table; with keepTriples,
 * an existing percent-encoded triple passes unchanged (RFC 6570 reserved expansion). A lone surrogate
 * is written as U+FFFD, as TextEncoder writes it.
 */
function percentEncode(text: string, keep: Uint8Array, keepTriples = false): string {
  let plain = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || keep[c] !== 1) {
      plain = false;
      break;
    }
  }
  if (plain) return text;
  const bytes = utf8.encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b < 128 && keep[b] === 1) out += String.fromCharCode(b);
    else if (keepTriples && b === 0x25 && isHexByte(bytes[i + 1]) && isHexByte(bytes[i + 2])) {
      out += "%" + String.fromCharCode(bytes[i + 1] as number, bytes[i + 2] as number);
      i += 2;
    } else out += "%" + HEX[b >> 4] + HEX[b & 15];
  }
  return out;
}

const encodeComponent = (text: string): string => percentEncode(text, UNRESERVED);

/** Percent-decodes (UTF-8); `+` is a space in form-urlencoded text. Undefined when malformed. */
function percentDecode(raw: string, plusIsSpace: boolean): string | undefined {
  const text = plusIsSpace && raw.includes("+") ? raw.replaceAll("+", " ") : raw;
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// Values to texts

type Classified =
  | { readonly kind: "empty" }
  | { readonly kind: "primitive"; readonly text: string }
  | { readonly kind: "array"; readonly items: readonly string[] }
  | { readonly kind: "object"; readonly entries: readonly (readonly [string, string])[] };

/** The text of one scalar: strings as they are, numbers and bigints exactly, nested values as JSON. */
function scalarText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "object") return stringifyExact(value);
  return String(value);
}

/** null, "", [] and {} are the table's `undefined` column; an object's undefined members are left out, as JSON leaves them. */
function classify(value: unknown): Classified {
  if (value === null || value === undefined || value === "") return { kind: "empty" };
  if (Array.isArray(value)) {
    return value.length === 0 ? { kind: "empty" } : { kind: "array", items: value.map(scalarText) };
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, scalarText(v)] as const);
    return entries.length === 0 ? { kind: "empty" } : { kind: "object", entries };
  }
  return { kind: "primitive", text: scalarText(value) };
}

function isJsonMediaType(contentType: string): boolean {
  const essence = parseMediaType(contentType)?.essence ?? contentType.toLowerCase();
  return essence === "application/json" || essence.endsWith("+json");
}

/** A content-typed parameter's text: JSON for JSON media types (bigints exact), the string itself otherwise. */
function contentText(contentType: string, value: unknown): string {
  if (isJsonMediaType(contentType)) return stringifyExact(value === undefined ? null : value);
  return scalarText(value);
}

function flatten(entries: readonly (readonly [string, string])[]): string[] {
  return entries.flatMap(([k, v]) => [k, v]);
}

// ---------------------------------------------------------------------------------------------------
// Serialisation

/**
 * The text that replaces `{name}` in a path template (styles simple, label, matrix; any other style is
 * taken as simple), percent-encoded per RFC 3986. A path parameter cannot be absent: undefined is
 * written as null is, the table's `undefined` column.
 */
export function serializePath(p: ParameterStyle, value: unknown): string {
  if (p.contentType !== undefined) return encodeComponent(contentText(p.contentType, value));
  const v = classify(value);
  const name = encodeComponent(p.name);
  if (p.style === "matrix") {
    // RFC 6570 section 3.2.7: `;name=value`, and `;name` alone for an empty value.
    const pair = (k: string, x: string): string => (x === "" ? `;${k}` : `;${k}=${encodeComponent(x)}`);
    switch (v.kind) {
      case "empty":
        return `;${name}`;
      case "primitive":
        return pair(name, v.text);
      case "array":
        return p.explode
          ? v.items.map((x) => pair(name, x)).join("")
          : `;${name}=${v.items.map(encodeComponent).join(",")}`;
      case "object":
        return p.explode
          ? v.entries.map(([k, x]) => pair(encodeComponent(k), x)).join("")
          : `;${name}=${flatten(v.entries).map(encodeComponent).join(",")}`;
    }
  }
  if (p.style === "label") {
    const item = (x: string): string => percentEncode(x, p.explode ? LABEL_ITEM : UNRESERVED);
    switch (v.kind) {
      case "empty":
        return ".";
      case "primitive":
        return "." + encodeComponent(v.text);
      case "array":
        return "." + v.items.map(item).join(p.explode ? "." : ",");
      case "object":
        return p.explode
          ? "." + v.entries.map(([k, x]) => `${item(k)}=${item(x)}`).join(".")
          : "." + flatten(v.entries).map(item).join(",");
    }
  }
  switch (v.kind) {
    case "empty":
      return "";
    case "primitive":
      return encodeComponent(v.text);
    case "array":
      return v.items.map(encodeComponent).join(",");
    case "object":
      return p.explode
        ? v.entries.map(([k, x]) => `${encodeComponent(k)}=${encodeComponent(x)}`).join(",")
        : flatten(v.entries).map(encodeComponent).join(",");
  }
}

const QUERY_DELIMITERS: Readonly<Record<string, string>> = { spaceDelimited: "%20", pipeDelimited: "%7C" };

/**
 * The encoded `name=value` pieces of a query parameter (styles form, spaceDelimited, pipeDelimited,
 * deepObject; any other style is taken as form), in order; join them with buildQueryString. Undefined,
 * and an exploded empty object, give no piece.
 */
export function serializeQuery(p: ParameterStyle, value: unknown): string[] {
  if (value === undefined) return [];
  const name = encodeComponent(p.name);
  if (p.contentType !== undefined) return [`${name}=${encodeComponent(contentText(p.contentType, value))}`];
  const enc = p.allowReserved === true ? (x: string) => percentEncode(x, RESERVED_KEPT, true) : encodeComponent;
  const v = classify(value);
  const deep = p.style === "deepObject";
  const exploded = p.explode || deep;
  switch (v.kind) {
    case "empty":
      // An exploded empty object has no pair to write (RFC 6570 section 2.3), and deepObject is for objects.
      return deep || (exploded && isRecord(value)) ? [] : [`${name}=`];
    case "primitive":
      return [`${name}=${enc(v.text)}`];
    case "array":
      return exploded ? v.items.map((x) => `${name}=${enc(x)}`) : [`${name}=${v.items.map(enc).join(delimiter(p))}`];
    case "object":
      if (deep) return v.entries.map(([k, x]) => `${name}%5B${enc(k)}%5D=${enc(x)}`);
      return p.explode
        ? v.entries.map(([k, x]) => `${enc(k)}=${enc(x)}`)
        : [`${name}=${flatten(v.entries).map(enc).join(delimiter(p))}`];
  }
}

function delimiter(p: ParameterStyle): string {
  return QUERY_DELIMITERS[p.style] ?? ",";
}

/** A query string from pieces: "" when there are none, else "?" and the pieces joined by "&". */
export function buildQueryString(pieces: readonly string[]): string {
  return pieces.length === 0 ? "" : "?" + pieces.join("&");
}

/**
 * A header's value (style simple), not percent-encoded: the caller supplies text a header can carry
 * (see isFieldValue). Undefined when the value is absent, so no header is sent.
 */
export function serializeHeader(p: ParameterStyle, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (p.contentType !== undefined) return contentText(p.contentType, value);
  const v = classify(value);
  switch (v.kind) {
    case "empty":
      return "";
    case "primitive":
      return v.text;
    case "array":
      return v.items.join(",");
    case "object":
      return p.explode ? v.entries.map(([k, x]) => `${k}=${x}`).join(",") : flatten(v.entries).join(",");
  }
}

/**
 * The cookie pairs of a parameter for a Cookie header (`name=value`, several joined by "; "): style form
 * percent-encodes as a query does, style cookie (OAS 3.2) writes values as they are. Undefined when
 * there is nothing to send (an absent value, an exploded empty object).
 */
export function serializeCookie(p: ParameterStyle, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (p.contentType !== undefined) return `${cookieName(p)}=${encodeComponent(contentText(p.contentType, value))}`;
  const enc = p.style === "cookie" ? (x: string) => x : encodeComponent;
  const name = cookieName(p);
  const v = classify(value);
  switch (v.kind) {
    case "empty":
      return p.explode && isRecord(value) ? undefined : `${name}=`;
    case "primitive":
      return `${name}=${enc(v.text)}`;
    case "array":
      return p.explode ? v.items.map((x) => `${name}=${enc(x)}`).join("; ") : `${name}=${v.items.map(enc).join(",")}`;
    case "object":
      return p.explode
        ? v.entries.map(([k, x]) => `${enc(k)}=${enc(x)}`).join("; ")
        : `${name}=${flatten(v.entries).map(enc).join(",")}`;
  }
}

function cookieName(p: ParameterStyle): string {
  return p.style === "cookie" && p.contentType === undefined ? p.name : encodeComponent(p.name);
}

/** True when a text can be an HTTP field value as written: visible ASCII, spaces and tabs inside (RFC 9110 section 5.5). */
export function isFieldValue(text: string): boolean {
  return /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/.test(text);
}

// ---------------------------------------------------------------------------------------------------
// Schemas to shapes

type Types = ReadonlySet<JsonType> | "any";
const JSON_TYPES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "null", "array", "object"]);
const MAX_DEPTH = 32;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOfValue(value: unknown): JsonType[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  switch (typeof value) {
    case "string":
      return ["string"];
    case "boolean":
      return ["boolean"];
    case "number":
    case "bigint":
      return ["number", "integer"];
    case "object":
      return ["object"];
    default:
      return [];
  }
}

function intersect(a: Types, b: Types): Types {
  if (a === "any") return b;
  if (b === "any") return a;
  const out = new Set<JsonType>();
  for (const t of a) {
    if (b.has(t)) out.add(t);
    else if (t === "integer" && b.has("number")) out.add("integer");
    else if (t === "number" && b.has("integer")) out.add("integer");
  }
  return out;
}

function union(list: readonly Types[]): Types {
  const out = new Set<JsonType>();
  for (const t of list) {
    if (t === "any") return "any";
    for (const x of t) out.add(x);
  }
  return out;
}

type Resolve = (ref: string) => unknown;

/** The JSON types a schema allows, through $ref, allOf, anyOf and oneOf; "any" when it does not say. */
function typesOf(schema: unknown, resolve: Resolve | undefined, depth: number): Types {
  if (!isRecord(schema) || depth > MAX_DEPTH) return "any";
  let result: Types = "any";
  const type = schema.type;
  if (typeof type === "string" || Array.isArray(type)) {
    const names = (Array.isArray(type) ? type : [type]).filter((t): t is JsonType => JSON_TYPES.has(String(t)));
    const set = new Set<JsonType>(names);
    if (schema.nullable === true) set.add("null"); // OAS 3.0
    result = set;
  } else if (Array.isArray(schema.enum)) {
    result = new Set(schema.enum.flatMap(typeOfValue));
  } else if ("const" in schema) {
    result = new Set(typeOfValue(schema.const));
  }
  if (typeof schema.$ref === "string" && resolve !== undefined) {
    result = intersect(result, typesOf(resolve(schema.$ref), resolve, depth + 1));
  }
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) result = intersect(result, typesOf(member, resolve, depth + 1));
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      result = intersect(result, union(branches.map((b) => typesOf(b, resolve, depth + 1))));
    }
  }
  return result;
}

interface Collected {
  readonly items: unknown[];
  readonly properties: Map<string, unknown[]>;
  readonly additional: unknown[];
  closed: boolean;
}

/** Gathers the item, property and additional-property schemas of a schema and its subschemas. */
function collect(schema: unknown, resolve: Resolve | undefined, depth: number, conjunctive: boolean, out: Collected) {
  if (!isRecord(schema) || depth > MAX_DEPTH) return;
  if (isRecord(schema.items) || typeof schema.items === "boolean") out.items.push(schema.items);
  if (Array.isArray(schema.prefixItems)) out.items.push(...schema.prefixItems);
  if (isRecord(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      const list = out.properties.get(name);
      if (list === undefined) out.properties.set(name, [sub]);
      else list.push(sub);
    }
  }
  if (isRecord(schema.additionalProperties)) out.additional.push(schema.additionalProperties);
  if (conjunctive && (schema.additionalProperties === false || schema.unevaluatedProperties === false)) {
    out.closed = true;
  }
  if (typeof schema.$ref === "string" && resolve !== undefined) {
    collect(resolve(schema.$ref), resolve, depth + 1, conjunctive, out);
  }
  if (Array.isArray(schema.allOf)) for (const m of schema.allOf) collect(m, resolve, depth + 1, conjunctive, out);
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const b of branches) collect(b, resolve, depth + 1, false, out);
  }
}

function typeList(types: Types): JsonType[] {
  return types === "any" ? [] : [...types];
}

/**
 * The shape of a parameter's schema (OAS 3.0 or 3.1: `type` as a string or a list with "null",
 * `nullable`, `enum`, `const`, `items`, `prefixItems`, `properties`, `additionalProperties`, and
 * `$ref`, `allOf`, `anyOf`, `oneOf` through them). `resolve` looks up a `$ref`; without it a reference
 * says nothing, and the texts behind it stay strings.
 */
export function shapeOfSchema(schema: unknown, resolve?: Resolve): ValueShape {
  const top = typesOf(schema, resolve, 0);
  const found: Collected = { items: [], properties: new Map(), additional: [], closed: false };
  collect(schema, resolve, 0, true, found);
  let kind: ValueShape["kind"];
  if (top !== "any") kind = top.has("array") ? "array" : top.has("object") ? "object" : "primitive";
  else if (found.items.length > 0) kind = "array";
  else if (found.properties.size > 0 || found.additional.length > 0 || found.closed) kind = "object";
  else kind = "primitive";
  const properties = new Map<string, readonly JsonType[]>();
  for (const [name, subs] of found.properties) {
    properties.set(name, typeList(union(subs.map((s) => typesOf(s, resolve, 1)))));
  }
  return {
    kind,
    types: typeList(top),
    items: found.items.length === 0 ? [] : typeList(union(found.items.map((s) => typesOf(s, resolve, 1)))),
    properties,
    additionalProperties: found.closed
      ? false
      : found.additional.length === 0
        ? []
        : typeList(union(found.additional.map((s) => typesOf(s, resolve, 1)))),
  };
}

// ---------------------------------------------------------------------------------------------------
// Coercion

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Collects exact numbers by JSON pointer while a value is read. */
class ExactCollector {
  private readonly map = new Map<string, ExactNumber>();
  set(pointer: string, exact: ExactNumber): void {
    this.map.set(pointer, exact);
  }
  merge(prefix: string, exact: ExactNumbers): void {
    for (const pointer of exact.pointers()) {
      const e = exact.get(pointer);
      if (e !== undefined) this.map.set(prefix + pointer, e);
    }
  }
  done(): ExactNumbers {
    if (this.map.size === 0) return NO_EXACT;
    const map = this.map;
    return { get: (pointer) => map.get(pointer), size: map.size, pointers: () => [...map.keys()] };
  }
}

/**
 * A scalar text as the schema's types read it: null (from an empty text, when null is allowed and a
 * string is not), a boolean ("true", "false"), a number (JSON number syntax, exact), a nested array or
 * object (JSON text), else the string itself. A number is preferred over a string only when it fits
 * the numeric type (an integer for `integer`), so `type: [integer, string]` keeps "1.5" a string.
 */
function coerce(text: string, types: readonly JsonType[], pointer: string, exact: ExactCollector): unknown {
  if (types.length === 0) return text;
  const string = types.includes("string");
  if (text === "") return types.includes("null") && !string ? null : text;
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  const number = types.includes("number");
  if ((number || types.includes("integer")) && JSON_NUMBER.test(text)) {
    const analysed = analyseNumber(text);
    const isInteger = analysed !== undefined ? analysed.exact.isInteger : Number.isInteger(Number(text));
    if (!string || number || isInteger) {
      if (analysed === undefined) return Number(text);
      exact.set(pointer, analysed.exact);
      return analysed.standIn;
    }
  }
  const first = text.charCodeAt(0);
  if ((types.includes("array") && first === 0x5b) || (types.includes("object") && first === 0x7b)) {
    const parsed = parseJsonExact(text);
    if (parsed.ok) {
      exact.merge(pointer, parsed.exact);
      return parsed.value;
    }
  }
  return text;
}

/** Sets an own property, so that a key such as `__proto__` is data, as JSON.parse makes it. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type Decode = (raw: string) => string | undefined;
const decodeUri: Decode = (raw) => percentDecode(raw, false);
const decodeForm: Decode = (raw) => percentDecode(raw, true);
const decodeNone: Decode = (raw) => raw;

function where(p: ParameterStyle): string {
  return `${p.in} parameter "${p.name}"`;
}

/** A text from a request for a message: quoted, escaped and cut short. */
function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? text.slice(0, 77) + "..." : text);
}

function fail(p: ParameterStyle, message: string): ParsedParameter {
  return { ok: false, message: `${where(p)}: ${message}` };
}

const ABSENT: ParsedParameter = Object.freeze({ ok: true, value: undefined, exact: NO_EXACT });

class Malformed extends Error {}

function decoded(decode: Decode, raw: string): string {
  const text = decode(raw);
  if (text === undefined) throw new Malformed(`${quote(raw)} is not valid percent-encoded UTF-8`);
  return text;
}

function propertyTypes(shape: ValueShape, key: string): readonly JsonType[] {
  return shape.properties.get(key) ?? (shape.additionalProperties === false ? [] : shape.additionalProperties);
}

/** Reads one whole scalar (primitive shape). */
function readPrimitive(raw: string, decode: Decode, shape: ValueShape): ParsedParameter {
  const exact = new ExactCollector();
  const value = coerce(decoded(decode, raw), shape.types, "", exact);
  return { ok: true, value, exact: exact.done() };
}

/** Reads array items (already split, still encoded); a lone empty item is the empty array. */
function readItems(raws: readonly string[], decode: Decode, shape: ValueShape): ParsedParameter {
  if (raws.length === 1 && raws[0] === "") return { ok: true, value: [], exact: NO_EXACT };
  const exact = new ExactCollector();
  const value = raws.map((raw, i) => coerce(decoded(decode, raw), shape.items, `/${i}`, exact));
  return { ok: true, value, exact: exact.done() };
}

/** Reads object members from raw key/value pairs; a repeated key is an error. */
function readEntries(
  p: ParameterStyle,
  pairs: readonly (readonly [string, string])[],
  decode: Decode,
  shape: ValueShape,
  decodeKeys = true,
): ParsedParameter {
  const exact = new ExactCollector();
  const value: Record<string, unknown> = {};
  for (const [rawKey, rawValue] of pairs) {
    const key = decodeKeys ? decoded(decode, rawKey) : rawKey;
    if (Object.hasOwn(value, key)) return fail(p, `property ${quote(key)} is given more than once`);
    setOwn(value, key, coerce(decoded(decode, rawValue), propertyTypes(shape, key), "/" + escapePointer(key), exact));
  }
  return { ok: true, value, exact: exact.done() };
}

/** An exploded-false object: keys and values alternate (`R,100,G,200`); "" is the empty object. */
function readAlternating(
  p: ParameterStyle,
  raws: readonly string[],
  decode: Decode,
  shape: ValueShape,
): ParsedParameter {
  if (raws.length === 1 && raws[0] === "") return { ok: true, value: {}, exact: NO_EXACT };
  if (raws.length % 2 !== 0) return fail(p, `an object needs key,value pairs, and ${raws.length} items are odd`);
  const pairs: [string, string][] = [];
  for (let i = 0; i < raws.length; i += 2) pairs.push([raws[i] as string, raws[i + 1] as string]);
  return readEntries(p, pairs, decode, shape);
}

/** An exploded object: `key=value` items (`R=100,G=200`); "" is the empty object. */
function readKeyValues(p: ParameterStyle, raws: readonly string[], decode: Decode, shape: ValueShape): ParsedParameter {
  if (raws.length === 1 && raws[0] === "") return { ok: true, value: {}, exact: NO_EXACT };
  const pairs: [string, string][] = [];
  for (const raw of raws) {
    const eq = raw.indexOf("=");
    if (eq < 0) return fail(p, `${quote(raw)} is not a key=value pair`);
    pairs.push([raw.slice(0, eq), raw.slice(eq + 1)]);
  }
  return readEntries(p, pairs, decode, shape);
}

/** Reads a delimited text by the shape: whole for a primitive, split for an array or an object. */
function readDelimited(
  p: ParameterStyle,
  raw: string,
  separator: string | RegExp,
  explodedPairs: boolean,
  decode: Decode,
  shape: ValueShape,
): ParsedParameter {
  if (shape.kind === "primitive") return readPrimitive(raw, decode, shape);
  const raws = raw.split(separator);
  if (shape.kind === "array") return readItems(raws, decode, shape);
  return explodedPairs ? readKeyValues(p, raws, decode, shape) : readAlternating(p, raws, decode, shape);
}

function guarded(p: ParameterStyle, read: () => ParsedParameter): ParsedParameter {
  try {
    return read();
  } catch (error) {
    if (error instanceof Malformed) return fail(p, error.message);
    throw error;
  }
}

/** A content-typed parameter's text: JSON read exactly for JSON media types, the string otherwise. */
function readContent(p: ParameterStyle, contentType: string, text: string): ParsedParameter {
  if (!isJsonMediaType(contentType)) return { ok: true, value: text, exact: NO_EXACT };
  const parsed = parseJsonExact(text);
  if (!parsed.ok) return fail(p, `the ${contentType} value is not JSON: ${parsed.message}`);
  return { ok: true, value: parsed.value, exact: parsed.exact };
}

// ---------------------------------------------------------------------------------------------------
// Parsing

/**
 * Reads a path parameter from the text that matched `{name}` in the path template, still
 * percent-encoded (split before decoding, so an encoded delimiter stays part of a value).
 */
export function parsePath(p: ParameterStyle, raw: string, shape: ValueShape): ParsedParameter {
  return guarded(p, () => {
    if (p.contentType !== undefined) return readContent(p, p.contentType, decoded(decodeUri, raw));
    if (p.style === "matrix") return parseMatrix(p, raw, shape);
    if (p.style === "label") {
      if (!raw.startsWith(".")) return fail(p, `a label-style value starts with ".", and ${quote(raw)} does not`);
      return readDelimited(p, raw.slice(1), p.explode ? "." : ",", p.explode, decodeUri, shape);
    }
    return readDelimited(p, raw, ",", p.explode, decodeUri, shape);
  });
}

function parseMatrix(p: ParameterStyle, raw: string, shape: ValueShape): ParsedParameter {
  if (!raw.startsWith(";")) return fail(p, `a matrix-style value starts with ";${p.name}", and ${quote(raw)} does not`);
  const segments = raw
    .slice(1)
    .split(";")
    .map((segment) => {
      const eq = segment.indexOf("=");
      return eq < 0
        ? { key: segment, value: "", bare: true }
        : { key: segment.slice(0, eq), value: segment.slice(eq + 1), bare: false };
    });
  const isName = (key: string): boolean => decodeUri(key) === p.name;
  const first = segments[0] as { key: string; value: string; bare: boolean };
  if (!p.explode || shape.kind === "primitive") {
    if (segments.length !== 1 || !isName(first.key)) {
      return fail(p, `a matrix-style value is ";${p.name}=..." once, and ${quote(raw)} is not`);
    }
    return readDelimited(p, first.value, ",", false, decodeUri, shape);
  }
  if (shape.kind === "array") {
    const stray = segments.find((s) => !isName(s.key));
    if (stray !== undefined) return fail(p, `${quote(";" + stray.key)} is not ";${p.name}=..." in ${quote(raw)}`);
    return readItems(
      segments.map((s) => s.value),
      decodeUri,
      shape,
    );
  }
  if (segments.length === 1 && first.bare && isName(first.key)) return { ok: true, value: {}, exact: NO_EXACT };
  return readEntries(
    p,
    segments.map((s) => [s.key, s.value]),
    decodeUri,
    shape,
  );
}

/** Splits a query string (with or without its "?") into pairs; names are decoded (`+` a space), values not. */
export function splitQuery(query: string): QueryPairs {
  const text = query.startsWith("?") ? query.slice(1) : query;
  const pairs: [string, string][] = [];
  if (text === "") return pairs;
  for (const piece of text.split("&")) {
    if (piece === "") continue;
    const eq = piece.indexOf("=");
    const rawName = eq < 0 ? piece : piece.slice(0, eq);
    pairs.push([decodeForm(rawName) ?? rawName, eq < 0 ? "" : piece.slice(eq + 1)]);
  }
  return pairs;
}

const QUERY_SPLIT: Readonly<Record<string, RegExp>> = {
  spaceDelimited: /%20|\+| /i,
  pipeDelimited: /%7C|\|/i,
};

/**
 * Reads a query parameter from a query string (or its pairs from splitQuery). Undefined when absent. An
 * exploded object takes the pairs named by the schema's properties, and, unless `additionalProperties`
 * is false, every other pair whose name is not in otherNames (the operation's other query parameters).
 * A parameter that is not an exploded array given more than once is an error.
 */
export function parseQuery(
  p: ParameterStyle,
  query: string | QueryPairs,
  shape: ValueShape,
  otherNames: ReadonlySet<string> = new Set(),
): ParsedParameter {
  const pairs = typeof query === "string" ? splitQuery(query) : query;
  return guarded(p, () => {
    if (p.contentType !== undefined) {
      const raw = single(p, pairs);
      return typeof raw !== "string" ? raw : readContent(p, p.contentType, decoded(decodeForm, raw));
    }
    if (shape.kind === "object" && (p.style === "deepObject" || p.explode)) {
      return p.style === "deepObject"
        ? parseDeepObject(p, pairs, shape)
        : readExplodedObject(p, pairs, shape, otherNames, decodeForm);
    }
    if (shape.kind === "array" && (p.explode || p.style === "deepObject")) {
      const raws = pairs.filter(([name]) => name === p.name).map(([, raw]) => raw);
      return raws.length === 0 ? ABSENT : readItems(raws, decodeForm, shape);
    }
    const raw = single(p, pairs);
    if (typeof raw !== "string") return raw;
    return readDelimited(p, raw, QUERY_SPLIT[p.style] ?? ",", false, decodeForm, shape);
  });
}

/** The one raw value of a name; absent when there is none, an error when there are several. */
function single(p: ParameterStyle, pairs: QueryPairs): string | ParsedParameter {
  let found: string | undefined;
  let count = 0;
  for (const [name, raw] of pairs) {
    if (name !== p.name) continue;
    count++;
    found ??= raw;
  }
  if (count > 1) return fail(p, `given ${count} times, and it is not an exploded array`);
  return found ?? ABSENT;
}

function belongsTo(shape: ValueShape, otherNames: ReadonlySet<string>, name: string): boolean {
  return shape.properties.has(name) || (shape.additionalProperties !== false && !otherNames.has(name));
}

function readExplodedObject(
  p: ParameterStyle,
  pairs: QueryPairs | CookiePairs,
  shape: ValueShape,
  otherNames: ReadonlySet<string>,
  decode: Decode,
  namesDecoded = true,
): ParsedParameter {
  const mine = pairs.filter(([name]) => belongsTo(shape, otherNames, namesDecoded ? name : (decode(name) ?? name)));
  if (mine.length === 0) return ABSENT;
  if (namesDecoded) return readEntries(p, mine, decode, shape, false);
  return readEntries(p, mine, decode, shape);
}

function parseDeepObject(p: ParameterStyle, pairs: QueryPairs, shape: ValueShape): ParsedParameter {
  const prefix = p.name + "[";
  const mine: [string, string][] = [];
  for (const [name, raw] of pairs) {
    if (name === p.name) return fail(p, `a deepObject value is written ${p.name}[key]=value, not ${p.name}=...`);
    if (!name.startsWith(prefix)) continue;
    if (!name.endsWith("]")) {
      return fail(p, `${quote(name)} is not ${p.name}[key] (a deepObject key)`);
    }
    mine.push([name.slice(prefix.length, -1), raw]);
  }
  if (mine.length === 0) return ABSENT;
  return readEntries(p, mine, decodeForm, shape, false);
}

/**
 * Reads a header parameter (style simple) from its field value; several field lines are joined by ", "
 * (RFC 9110 section 5.3). Not percent-decoded; whitespace around the value and around list items is
 * dropped, as HTTP list syntax allows it there. Undefined when absent.
 */
export function parseHeader(
  p: ParameterStyle,
  raw: string | readonly string[] | undefined,
  shape: ValueShape,
): ParsedParameter {
  if (raw === undefined) return ABSENT;
  const text = (typeof raw === "string" ? raw : raw.join(", ")).trim();
  return guarded(p, () => {
    if (p.contentType !== undefined) return readContent(p, p.contentType, text);
    return readDelimited(p, text, /[ \t]*,[ \t]*/, p.explode, decodeNone, shape);
  });
}

/** Splits a Cookie header (or several) into name/value pairs, as sent: `a=1; b=2` (RFC 6265 section 4.2.1). */
export function splitCookies(header: string | readonly string[]): CookiePairs {
  const pairs: [string, string][] = [];
  for (const line of typeof header === "string" ? [header] : header) {
    for (const piece of line.split(";")) {
      const eq = piece.indexOf("=");
      const name = (eq < 0 ? piece : piece.slice(0, eq)).trim();
      if (name === "" && eq < 0) continue;
      pairs.push([name, eq < 0 ? "" : piece.slice(eq + 1).trim()]);
    }
  }
  return pairs;
}

/**
 * Reads a cookie parameter from the Cookie header (or its pairs from splitCookies): style form
 * percent-decodes (`+` is itself), style cookie (OAS 3.2) takes values as they are. Of a repeated cookie
 * that is not an exploded array the first counts (RFC 6265 section 5.4 orders the more specific first).
 * Exploded objects take pairs as parseQuery does. Undefined when absent.
 */
export function parseCookie(
  p: ParameterStyle,
  header: string | readonly string[] | CookiePairs | undefined,
  shape: ValueShape,
  otherNames: ReadonlySet<string> = new Set(),
): ParsedParameter {
  if (header === undefined) return ABSENT;
  const pairs: CookiePairs =
    typeof header === "string" || header.every((h) => typeof h === "string")
      ? splitCookies(header as string | readonly string[])
      : (header as CookiePairs);
  const raw = p.style === "cookie" && p.contentType === undefined;
  const decode = raw ? decodeNone : decodeUri;
  const name = cookieName(p);
  return guarded(p, () => {
    if (shape.kind === "object" && p.explode && p.contentType === undefined) {
      return readExplodedObject(p, pairs, shape, otherNames, decode, false);
    }
    const values = pairs.filter(([n]) => n === name).map(([, v]) => v);
    if (values.length === 0) return ABSENT;
    if (p.contentType !== undefined) return readContent(p, p.contentType, decoded(decodeUri, values[0] as string));
    if (shape.kind === "array" && p.explode) return readItems(values, decode, shape);
    return readDelimited(p, values[0] as string, ",", false, decode, shape);
  });
}
