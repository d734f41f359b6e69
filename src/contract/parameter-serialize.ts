// Writing an OpenAPI parameter (the client side): a value into a path, a query string, a header or a
// Cookie header, by its style. Pure and browser-safe: no Node built-ins, no I/O.
//
// Decisions where the specification leaves room:
// - The OAS 3.1.1 style table (section 4.8.12.4) is followed; its `undefined` column is what null, "",
//   [] and {} serialise to (`;color`, `.`, empty, `color=`). A JS `undefined` is an absent parameter:
//   nothing in a query, header or cookie. An exploded empty object in a query or cookie is absent too
//   (RFC 6570 section 2.3: an empty associative array is undefined).
// - Percent-encoding as percent-encoding.ts says, in paths, queries and `form` cookies.
// - Headers are not percent-encoded (OAS 3.2 Parameter Object: "URI percent-encoding MUST NOT be
//   applied" to headers; common practice under 3.0/3.1 too), so a header value is the plain text.
// - Cookies: `form` percent-encodes like a query; exploded values are separate cookie pairs joined by
//   "; " (OAS 3.1.1 Appendix D: `&` is always wrong for cookies; OAS 3.2's `cookie` style), and the
//   OAS 3.2 `cookie` style (no percent-encoding) is understood as well.
// - Nested arrays and objects inside an array or object parameter (undefined by OAS) are written as
//   JSON text (parameter-coerce.ts reads them back as JSON where the schema expects an array or object).
import { stringifyExact } from "./exact-json.js";
import { LABEL_ITEM, RESERVED_KEPT, UNRESERVED, encodeComponent, percentEncode } from "./percent-encoding.js";
import { cookieName, isJsonMediaType, type ParameterStyle } from "./parameter-style.js";
import { isRecord } from "./parameter-shape.js";

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
/** A content-typed parameter's text: JSON for JSON media types (bigints exact), the string itself otherwise. */
function contentText(contentType: string, value: unknown): string {
  if (isJsonMediaType(contentType)) return stringifyExact(value === undefined ? null : value);
  return scalarText(value);
}

function flatten(entries: readonly (readonly [string, string])[]): string[] {
  return entries.flatMap(([k, v]) => [k, v]);
}

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
/** True when a text can be an HTTP field value as written: visible ASCII, spaces and tabs inside (RFC 9110 section 5.5). */
export function isFieldValue(text: string): boolean {
  return /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/.test(text);
}
