// Reading an OpenAPI parameter (the server and proxy side): from a path segment, a query string, a
// header or a Cookie header back into a JSON value that the contract's schema validators judge, by its
// style and its schema's shape. Pure and browser-safe: no Node built-ins, no I/O.
import { NO_EXACT } from "./exact-json.js";
import type { ValueShape } from "./parameter-shape.js";
import { cookieName, type ParameterStyle } from "./parameter-style.js";
import {
  ABSENT,
  decodeForm,
  decodeNone,
  decodeUri,
  decoded,
  fail,
  guarded,
  quote,
  readContent,
  readDelimited,
  readEntries,
  readItems,
  type Decode,
  type ParsedParameter,
} from "./parameter-read.js";

/** A query string split into pairs: names percent-decoded, values still as sent (split before decoding). */
export type QueryPairs = readonly (readonly [name: string, rawValue: string])[];

/** The pairs of a Cookie header, names and values as sent (whitespace around them trimmed). */
export type CookiePairs = readonly (readonly [name: string, rawValue: string])[];

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
