// The readers the parameter parsers share: a text already split at its delimiters (and still
// percent-encoded) read into a primitive, an array or an object by the parameter's shape, with
// failures as messages that name the parameter. Parsing splits on delimiters before percent-decoding
// (OAS 3.1.1 Appendix C). Pure and browser-safe: no Node built-ins, no I/O.
import { NO_EXACT, parseJsonExact, type ExactNumbers } from "./exact-json.js";
import { escapePointer } from "./json-pointer.js";
import { ExactCollector, coerce } from "./parameter-coerce.js";
import type { JsonType, ValueShape } from "./parameter-shape.js";
import { isJsonMediaType, type ParameterStyle } from "./parameter-style.js";
import { percentDecode } from "./percent-encoding.js";

/** A parsed parameter: the value (undefined when the parameter is absent) and its exact numbers, or why not. */
export type ParsedParameter =
  | { readonly ok: true; readonly value: unknown; readonly exact: ExactNumbers }
  | { readonly ok: false; readonly message: string };

/** Sets an own property, so that a key such as `__proto__` is data, as JSON.parse makes it. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Percent-decoding as a location needs it: URI (paths, cookies), form (queries, `+` a space), none (headers). */
export type Decode = (raw: string) => string | undefined;
export const decodeUri: Decode = (raw) => percentDecode(raw, false);
export const decodeForm: Decode = (raw) => percentDecode(raw, true);
export const decodeNone: Decode = (raw) => raw;

function where(p: ParameterStyle): string {
  return `${p.in} parameter "${p.name}"`;
}

/** A text from a request for a message: quoted, escaped and cut short. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? text.slice(0, 77) + "..." : text);
}

/** A failure naming the parameter. */
export function fail(p: ParameterStyle, message: string): ParsedParameter {
  return { ok: false, message: `${where(p)}: ${message}` };
}

export const ABSENT: ParsedParameter = Object.freeze({ ok: true, value: undefined, exact: NO_EXACT });

class Malformed extends Error {}

export function decoded(decode: Decode, raw: string): string {
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
export function readItems(raws: readonly string[], decode: Decode, shape: ValueShape): ParsedParameter {
  if (raws.length === 1 && raws[0] === "") return { ok: true, value: [], exact: NO_EXACT };
  const exact = new ExactCollector();
  const value = raws.map((raw, i) => coerce(decoded(decode, raw), shape.items, `/${i}`, exact));
  return { ok: true, value, exact: exact.done() };
}

/** Reads object members from raw key/value pairs; a repeated key is an error. */
export function readEntries(
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
export function readDelimited(
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

export function guarded(p: ParameterStyle, read: () => ParsedParameter): ParsedParameter {
  try {
    return read();
  } catch (error) {
    if (error instanceof Malformed) return fail(p, error.message);
    throw error;
  }
}

/** A content-typed parameter's text: JSON read exactly for JSON media types, the string otherwise. */
export function readContent(p: ParameterStyle, contentType: string, text: string): ParsedParameter {
  if (!isJsonMediaType(contentType)) return { ok: true, value: text, exact: NO_EXACT };
  const parsed = parseJsonExact(text);
  if (!parsed.ok) return fail(p, `the ${contentType} value is not JSON: ${parsed.message}`);
  return { ok: true, value: parsed.value, exact: parsed.exact };
}
