import type { CheckedRequest, CompiledOperation } from "../../contract/index.js";
import { checkRequest, parseMediaType, resolvePointer, serializeQuery, stringifyExact } from "../../contract/index.js";
import type { ValueContext } from "./values.js";

/**
 * How a generated body is sent: the media type the generator chooses for an operation's body, the
 * Content-Type it goes with, the body's text (exact JSON, a urlencoded or multipart form, plain text),
 * the schema its values are drawn from, and the contract's verdict on it as sent.
 */

/** The JSON media type the generator sends an operation's body as: application/json, else the first +json one. */
export function jsonMediaType(op: CompiledOperation): string | undefined {
  const types = [...(op.requestBody?.content.keys() ?? [])];
  return types.find((t) => t.toLowerCase() === "application/json") ?? types.find((t) => /json/i.test(t));
}

const FORM = "application/x-www-form-urlencoded";
const MULTIPART = "multipart/form-data";
/** Media ranges a JSON body falls under: the generator sends JSON for them, as `application/json`. */
const JSON_RANGES: ReadonlySet<string> = new Set(["*/*", "application/*"]);
/** The boundary of generated multipart bodies; a body whose text holds it is never made. */
export const BOUNDARY = "plantstore-kit-boundary-5d1f0a";

/** How a generated body is written: exact JSON, a form (urlencoded or multipart), or plain text. */
export type BodyKind = "json" | "form" | "multipart" | "text";

const essenceOf = (key: string): string => parseMediaType(key)?.essence ?? key.toLowerCase();

/**
 * The media type the generator sends an operation's body as: JSON first, else a form with a schema,
 * else a media range that covers JSON (the bare wildcard or `application/*`: sent as JSON), else a text body the contract
 * reads whole (`text/plain` with a string schema, `text/*`). Undefined when it makes none of them.
 */
export function bodyMediaType(op: CompiledOperation): string | undefined {
  const json = jsonMediaType(op);
  if (json !== undefined) return json;
  const content = op.requestBody?.content;
  const keys = [...(content?.keys() ?? [])];
  for (const type of [FORM, MULTIPART]) {
    const key = keys.find((k) => essenceOf(k) === type);
    if (key !== undefined && content?.get(key)?.form !== undefined) return key;
  }
  const range = keys.find((k) => JSON_RANGES.has(essenceOf(k)));
  if (range !== undefined) return range;
  return keys.find((k) => content?.get(k)?.plainText === true && (!k.includes("*") || essenceOf(k) === "text/*"));
}

/** How the generator writes the operation's body; undefined when it makes none. */
export function bodyKind(op: CompiledOperation): BodyKind | undefined {
  const key = bodyMediaType(op);
  if (key === undefined) return undefined;
  const essence = essenceOf(key);
  if (essence === FORM) return "form";
  if (essence === MULTIPART) return "multipart";
  return /json/i.test(key) || JSON_RANGES.has(essence) ? "json" : "text";
}

/** The Content-Type header a generated body goes with (a multipart one names its boundary; a range, a type in it). */
export function bodyContentType(op: CompiledOperation): string {
  const type = bodyMediaType(op) ?? "application/json";
  const essence = essenceOf(type);
  if (essence === MULTIPART) return `${type}; boundary=${BOUNDARY}`;
  if (JSON_RANGES.has(essence)) return "application/json";
  return essence === "text/*" ? "text/plain" : type;
}

/**
 * A generated value as the body's text: exact JSON, or a form, each field written as its `encoding`
 * says (urlencoded pairs; multipart parts, objects as JSON). Undefined when a form cannot carry it.
 */
export function encodeBody(op: CompiledOperation, value: unknown): string | undefined {
  try {
    return encodeBodyText(op, value);
  } catch (e) {
    // A form field cannot carry a lone surrogate (encodeURIComponent: URI malformed): never sent.
    if (e instanceof URIError) return undefined;
    throw e;
  }
}

function encodeBodyText(op: CompiledOperation, value: unknown): string | undefined {
  const kind = bodyKind(op) ?? "json";
  if (kind === "json") return stringifyExact(value);
  // Plain text is the string itself, as UTF-8: a lone surrogate has no UTF-8 form.
  if (kind === "text") return typeof value === "string" && !LONE_SURROGATE.test(value) ? value : undefined;
  // A form is UTF-8 text: a lone surrogate would be sent as U+FFFD, another value than the one judged.
  if (holdsLoneSurrogate(value)) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const fields = op.requestBody?.content.get(bodyMediaType(op)!)?.form;
  const text = (v: unknown): string => (typeof v === "string" ? v : stringifyExact(v));
  if (kind === "form") {
    const pieces: string[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const field = fields?.get(k);
      if (field !== undefined) pieces.push(...serializeQuery(field.style, v));
      else pieces.push(`${encodeURIComponent(k)}=${encodeURIComponent(text(v))}`);
    }
    return pieces.join("&");
  }
  // A part's name escapes '"', CR and LF as %22, %0D and %0A (WHATWG's multipart/form-data encoding),
  // so a receiver may percent-decode names: an undocumented name with '%' or those characters is
  // ambiguous, and never made up (Prism, for one, dies on a name such as "%%").
  const names = Object.keys(value);
  if (names.some((k) => fields?.get(k) === undefined && /[%"\r\n]/.test(k))) return undefined;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const values = Array.isArray(v) && (fields?.get(k)?.shape.kind === "array" || fields === undefined) ? v : [v];
    for (const item of values) {
      const asJson = typeof item === "object" && item !== null;
      const head = `Content-Disposition: form-data; name="${k.replace(/"/g, "%22")}"${asJson ? "\r\nContent-Type: application/json" : ""}`;
      parts.push(`--${BOUNDARY}\r\n${head}\r\n\r\n${text(item)}\r\n`);
    }
  }
  const body = `${parts.join("")}--${BOUNDARY}--\r\n`;
  return parts.some((p) => p.slice(BOUNDARY.length + 2).includes(BOUNDARY)) ||
    /[\r\n]/.test(Object.keys(value).join(""))
    ? undefined
    : body;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") return LONE_SURROGATE.test(value);
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || holdsLoneSurrogate(v));
}

const encoder = new TextEncoder();

/** The contract's verdict on a generated text sent as the operation's body media type (acceptability.ts decides). */
export function judge(op: CompiledOperation, text: string): CheckedRequest {
  return checkRequest(op, { headers: { "content-type": bodyContentType(op) }, body: encoder.encode(text) });
}

/** Whether the contract accepts a generated text sent as the operation's body media type. */
export function verdict(op: CompiledOperation, text: string | undefined): text is string {
  if (text === undefined) return false;
  const checked = judge(op, text);
  return checked.ok && checked.entry !== undefined;
}

/**
 * How values for an operation's body are drawn: a request's, with strings a form can carry (a form
 * field is UTF-8 text: no lone surrogates, RFC 3986 section 2.5) or any a JSON text can (\u escapes).
 */
export function bodyContext(op: CompiledOperation): ValueContext {
  return { direction: "request", charset: (bodyKind(op) ?? "json") === "json" ? "json" : "text" };
}

/** The schema of the body the generator sends: the chosen media type's, as a string schema for a text body. */
export function schemaOf(op: CompiledOperation, doc: unknown): unknown {
  const type = bodyMediaType(op);
  const pointer = type === undefined ? undefined : op.requestBody?.content.get(type)?.pointer;
  const schema = pointer === undefined ? {} : (resolvePointer(doc, `${pointer}/schema`) ?? {});
  // A text body is a string: its schema (if any) takes strings, and other values have no text form.
  return bodyKind(op) === "text" ? { allOf: [schema], type: "string" } : schema;
}
