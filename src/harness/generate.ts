import fc from "fast-check";
import type { CompiledOperation, Contract } from "../contract/index.js";
import {
  checkRequest,
  escapePointer,
  parseJsonExact,
  parseMediaType,
  resolvePointer,
  serializeQuery,
  stringifyExact,
} from "../contract/index.js";
import { INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN } from "../contract/index.js";
import type { CheckedRequest } from "../contract/index.js";
import { typesOf, view } from "./generate-schema-view.js";
import { formatArb, patternArb } from "./generate-strings.js";
import { JSON_REQUEST, leftOut, valuesOf, type ValueContext } from "./generate-values.js";

/**
 * Requests generated from an operation's request schema: positive bodies the schema accepts, biased
 * to the edges it allows, and negative bodies that break it for exactly one named reason. Every
 * generated body is checked against the compiled validator before it is used, so the generator can
 * never make the harness accuse a server of refusing a valid body or accepting an invalid one.
 */

type Schema = Record<string, unknown>;

export interface GeneratedBody {
  /** The body as exact JSON text (integers beyond 2^53 written exactly). */
  readonly text: string;
  /** For negatives: the one rule the body breaks, such as `body/id: type integer`. */
  readonly reason?: string;
}

/** An object schema with its $refs followed and allOf merged in (properties and required lists united, bounds tightened). */
export function flatten(doc: unknown, schema: unknown): Schema {
  return view(doc, schema);
}

const typeOf = (s: Schema): string | undefined => typesOf(s)?.find((t) => t !== "null");

export { formatArb, patternArb };

/**
 * Positive values of a schema, built to satisfy it (generate-values.ts). The context says which
 * message they go in (a request: no readOnly properties) and which characters its strings may hold.
 */
export function valueArb(
  doc: unknown,
  schema: unknown,
  depth = 0,
  context: ValueContext = JSON_REQUEST,
): fc.Arbitrary<unknown> {
  return valuesOf(doc, schema, context, depth);
}

/**
 * Values of the wrong JSON type for a schema's types, each with the reason it breaks the rule. A
 * schema without `type` takes every type, so nothing breaks it (JSON Schema 2020-12 section 6.1.1).
 */
function wrongTypes(doc: unknown, s: Schema): { value: unknown; reason: string }[] {
  const types = typesOf(s) ?? unionTypes(doc, s);
  if (types === undefined || s.const !== undefined) return [];
  const all: [string, unknown][] = [
    ["string", "7"],
    ["integer", 7],
    ["number", 1.5],
    ["boolean", true],
    ["null", null],
    ["array", []],
    ["object", {}],
  ];
  const named = types.filter((t) => t !== "null").join(" or ") || "null";
  return all
    .filter(([t]) => !types.includes(t) && !(types.includes("number") && t === "integer"))
    .map(([t, value]) => ({ value, reason: `type ${named} (sent ${t})` }));
}

/**
 * The types a oneOf/anyOf without its own `type` allows: every branch's, when each branch has one
 * (a union of objects is still an object: a string breaks every branch). Undefined otherwise.
 */
function unionTypes(doc: unknown, s: Schema): string[] | undefined {
  const branches = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined) as
    unknown[] | undefined;
  if (branches === undefined || branches.length === 0) return undefined;
  const all = new Set<string>();
  for (const b of branches) {
    const types = typesOf(flatten(doc, b));
    if (types === undefined) return undefined;
    for (const t of types) all.add(t);
  }
  return [...all];
}

/** A single-rule mutation: the body, why it breaks, and where in the body the refusal must be. */
interface Mutation {
  readonly body: unknown;
  readonly reason: string;
  /** The violation location the contract must refuse it at (`body/id`, `body`). */
  readonly at: string;
  /** The keyword of the rule broken (`required`, `type`, `format`), which the refusal must name. */
  readonly keyword: string;
}

/**
 * Every single-rule mutation of a valid body: one required property removed, one value of a wrong
 * type or out of range. readOnly properties are neither removed nor changed: a server may ignore
 * them in a request (OAS 3.0.3 section 4.7.24: they SHOULD NOT be sent, not MUST be refused).
 */
function mutations(doc: unknown, schema: unknown, body: Record<string, unknown>): Mutation[] {
  const s = flatten(doc, schema);
  const out: Mutation[] = [];
  const props = (s.properties as Schema) ?? {};
  const readOnly = (k: string): boolean => k in props && leftOut(flatten(doc, props[k]), "request");
  for (const r of (s.required as string[]) ?? []) {
    if (readOnly(r) || !(r in body)) continue;
    const { [r]: _dropped, ...rest } = body;
    out.push({ body: rest, reason: `body/${r}: required`, at: `body/${r}`, keyword: "required" });
  }
  for (const [k, raw] of Object.entries(props)) {
    if (readOnly(k)) continue;
    const p = flatten(doc, raw);
    const at = `body/${k}`;
    for (const w of wrongTypes(doc, p))
      out.push({ body: { ...body, [k]: w.value }, reason: `${at}: ${w.reason}`, at, keyword: "type" });
    if (typeOf(p) === "integer" && typesOf(p)?.length === 1) {
      const [lo, hi] =
        p.format === "int32"
          ? [INT32_MIN, INT32_MAX]
          : p.format === "int64"
            ? [INT64_MIN, INT64_MAX]
            : [undefined, undefined];
      if (hi !== undefined && lo !== undefined) {
        out.push({
          body: { ...body, [k]: hi + 1n },
          reason: `${at}: format ${p.format} (above the range)`,
          at,
          keyword: "format",
        });
        out.push({
          body: { ...body, [k]: lo - 1n },
          reason: `${at}: format ${p.format} (below the range)`,
          at,
          keyword: "format",
        });
      }
      out.push({ body: { ...body, [k]: 0.5 }, reason: `${at}: type integer (sent 0.5)`, at, keyword: "type" });
    }
  }
  for (const w of wrongTypes(doc, s))
    out.push({ body: w.value, reason: `body: ${w.reason}`, at: "body", keyword: "type" });
  return out;
}

/** Mutations of a form body judged to learn whether any rule of it can be broken. */
const FORM_PROBES = 50;

/**
 * Whether a body of the operation has a rule the negative generator can break (see mutations): a
 * required property to leave out, a property or body of a type to get wrong. A form carries text and
 * is always an object, so whether a wrong type reaches the server as one depends on the field (any
 * text is a string): for a form, the first acceptable of a few bodies drawn from a fixed seed is
 * mutated and judged, and the answer is the contract's. Bounded by count (the first FORM_PROBES
 * mutations); a form with no acceptable body among them counts as breakable, for the run to say
 * what it could build.
 */
export function bodyRulesBreakable(op: CompiledOperation, doc: unknown): boolean {
  const kind = bodyKind(op);
  // A body under a media range or of plain text is not read by the contract: no rule of it to break.
  if (kind === undefined || kind === "text" || !/json|form/i.test(bodyMediaType(op)!)) return false;
  const schema = schemaOf(op, doc);
  const s = flatten(doc, schema);
  const skeleton = Object.fromEntries(((s.required as string[] | undefined) ?? []).map((r) => [r, null]));
  const all = mutations(doc, schema, skeleton);
  if (kind === "json") return all.length > 0;
  if (all.some((m) => m.keyword === "required")) return true;
  if (all.length === 0) return false;
  // Budgeted by count, like the run: the first accepted body is the base, and at most FORM_PROBES of
  // its mutations are judged (a form of hundreds of text fields, Twilio's, otherwise cost minutes).
  for (const v of fc.sample(valueArb(doc, schema, 0, bodyContext(op)), { numRuns: 10, seed: 1 })) {
    if (typeof v !== "object" || v === null || Array.isArray(v) || !verdict(op, encodeBody(op, v))) continue;
    // In the order the negative generator meets them: ordering the breakable ones first here would
    // plan a case that generator, drawing mutations evenly, may not build within its budget.
    for (const m of mutations(doc, schema, v as Record<string, unknown>).slice(0, FORM_PROBES)) {
      const encoded = encodeBody(op, m.body);
      if (encoded !== undefined && refusedAt(judge(op, encoded), m.at, m.keyword)) return true;
    }
    return false;
  }
  return true; // no accepted base to learn from: the case is planned, and says so if none is built
}

/** A form field that cannot be read as its schema's type (acceptability.ts says `style` or `json`): a type refusal. */
const unread = (v: { keyword: string }): boolean => v.keyword === "style" || v.keyword === "json";

/**
 * Whether the contract refuses a mutated body for the rule the mutation broke: a schema refusal
 * naming that rule's keyword, every violation at the mutated place (or inside it). A refusal for
 * another rule would make the case's reason a lie, and a server that accepts it no failure of that
 * rule. A form whose fields cannot be read as their schema says is refused before the schema.
 */
export function refusedAt(checked: CheckedRequest, at: string, keyword: string): boolean {
  if (checked.ok || checked.reason !== "schema") return false;
  // Inside a oneOf/anyOf the refusal names the union, and every other branch says why it does not
  // match either: the body was accepted before this one change, so the union refuses because of it.
  const withinUnion = checked.violations.some(
    (v) => (v.keyword === "oneOf" || v.keyword === "anyOf") && (at === v.location || at.startsWith(`${v.location}/`)),
  );
  if (withinUnion) return true;
  return (
    checked.violations.some((v) => v.location === at && (v.keyword === keyword || (keyword === "type" && unread(v)))) &&
    checked.violations.every((v) => v.location === at || v.location.startsWith(`${at}/`))
  );
}

export interface GeneratorOptions {
  /** Properties whose value the run makes fresh (unique ids for a stateful server), by the property's type. */
  readonly fresh: ReadonlyMap<string, (type: "integer" | "string") => bigint | string>;
}

/**
 * Puts run-fresh values into the unique properties of an object body, where the property's schema
 * takes them: an int64 (or unformatted) integer, or a string. Others are left as generated.
 */
function freshen(doc: unknown, schema: unknown, body: unknown, options: GeneratorOptions): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const props = (flatten(doc, schema).properties as Schema) ?? {};
  const out = { ...(body as Record<string, unknown>) };
  for (const [k, make] of options.fresh) {
    if (!(k in out) || props[k] === undefined) continue;
    const p = flatten(doc, props[k]);
    const t = typeOf(p);
    if (
      t === "integer" &&
      (p.format === undefined || p.format === "int64") &&
      p.minimum === undefined &&
      p.maximum === undefined &&
      p.exclusiveMinimum === undefined &&
      p.exclusiveMaximum === undefined &&
      p.multipleOf === undefined &&
      p.enum === undefined &&
      p.const === undefined
    )
      out[k] = make("integer");
    else if (
      t === "string" &&
      p.format === undefined &&
      p.pattern === undefined &&
      p.maxLength === undefined &&
      p.enum === undefined &&
      p.const === undefined
    ) {
      // A fresh string shorter than the minLength would break the schema: the drawn value stays.
      const fresh = make("string");
      if (typeof p.minLength !== "number" || String(fresh).length >= p.minLength) out[k] = fresh;
    }
  }
  return out;
}

const encoder = new TextEncoder();

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
type BodyKind = "json" | "form" | "multipart" | "text";

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
function bodyKind(op: CompiledOperation): BodyKind | undefined {
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

/** The contract's verdict on a generated text sent as the operation's body media type (acceptability.ts decides). */
function judge(op: CompiledOperation, text: string): CheckedRequest {
  return checkRequest(op, { headers: { "content-type": bodyContentType(op) }, body: encoder.encode(text) });
}

/** Whether the contract accepts a generated text sent as the operation's body media type. */
function verdict(op: CompiledOperation, text: string | undefined): text is string {
  if (text === undefined) return false;
  const checked = judge(op, text);
  return checked.ok && checked.entry !== undefined;
}

/**
 * How values for an operation's body are drawn: a request's, with strings a form can carry (a form
 * field is UTF-8 text: no lone surrogates, RFC 3986 section 2.5) or any a JSON text can (\u escapes).
 */
function bodyContext(op: CompiledOperation): ValueContext {
  return { direction: "request", charset: (bodyKind(op) ?? "json") === "json" ? "json" : "text" };
}

/**
 * Positive bodies for an operation's JSON request schema. A candidate the compiled validator refuses
 * comes out as null, and the caller skips it (never sends it); fast-check's own filter would loop
 * forever on a schema the generator cannot satisfy.
 */
export function positiveBodies(
  contract: Contract,
  op: CompiledOperation,
  doc: unknown,
  options: GeneratorOptions,
): fc.Arbitrary<GeneratedBody | null> {
  const schema = schemaOf(op, doc);
  return valueArb(doc, schema, 0, bodyContext(op)).map((v) => {
    const text = encodeBody(op, freshen(doc, schema, v, options));
    return verdict(op, text) ? { text } : null;
  });
}

/** Negative bodies, each breaking exactly one rule; a candidate the validator accepts comes out as null. */
export function negativeBodies(
  contract: Contract,
  op: CompiledOperation,
  doc: unknown,
  options: GeneratorOptions,
): fc.Arbitrary<GeneratedBody | null> {
  const schema = schemaOf(op, doc);
  return fc.tuple(valueArb(doc, schema, 0, bodyContext(op)), fc.nat()).map(([v, pick]) => {
    const valid = freshen(doc, schema, v, options);
    if (!verdict(op, encodeBody(op, valid))) return null;
    const base = (typeof valid === "object" && valid !== null && !Array.isArray(valid) ? valid : {}) as Record<
      string,
      unknown
    >;
    const all = mutations(doc, schema, base);
    if (all.length === 0) return null;
    const m = all[pick % all.length]!;
    const text = encodeBody(op, m.body);
    return text !== undefined && refusedAt(judge(op, text), m.at, m.keyword) ? { text, reason: m.reason } : null;
  });
}

/**
 * The plainest valid body: required properties only, with ordinary values (a fresh id, "Generated",
 * true, ...). Every server must accept it; undefined when the schema needs more than that.
 */
export function minimalBody(op: CompiledOperation, doc: unknown, options: GeneratorOptions): GeneratedBody | undefined {
  const schema = schemaOf(op, doc);
  const plain = (raw: unknown, depth: number): unknown => {
    const p = flatten(doc, raw);
    if (p.const !== undefined) return p.const;
    if (Array.isArray(p.enum) && p.enum.length > 0) return p.enum[0];
    switch (typeOf(p)) {
      case "integer":
      case "number":
        return typeof p.minimum === "number" ? p.minimum : 1;
      case "string": {
        const min = typeof p.minLength === "number" ? p.minLength : 0;
        const max = typeof p.maxLength === "number" ? p.maxLength : Infinity;
        return "Generated".padEnd(min, "x").slice(0, Math.max(min, Math.min(max, 9)));
      }
      case "boolean":
        return true;
      case "array":
        return [];
      case "null":
        return null;
      default: {
        if (depth > 4) return {};
        const out: Record<string, unknown> = {};
        const props = (p.properties as Schema) ?? {};
        for (const r of (p.required as string[]) ?? [])
          if (!leftOut(flatten(doc, props[r]), "request")) out[r] = plain(props[r] ?? {}, depth + 1);
        return out;
      }
    }
  };
  const text = encodeBody(op, freshen(doc, schema, plain(schema, 0), options));
  return verdict(op, text) ? { text } : undefined;
}

function schemaOf(op: CompiledOperation, doc: unknown): unknown {
  const type = bodyMediaType(op);
  const pointer = type === undefined ? undefined : op.requestBody?.content.get(type)?.pointer;
  const schema = pointer === undefined ? {} : (resolvePointer(doc, `${pointer}/schema`) ?? {});
  // A text body is a string: its schema (if any) takes strings, and other values have no text form.
  return bodyKind(op) === "text" ? { allOf: [schema], type: "string" } : schema;
}

/**
 * The request of a saved generated case: the body exactly, with each unique property turned back into
 * a run-fresh placeholder, so the saved fixture can run again and again against a stateful server.
 * A body that holds placeholder-like text of its own is kept as exact bytes (its ids fixed).
 */
export function savedRequest(
  text: string,
  unique: readonly string[],
): { rawBody: string } | { rawBodyBase64: string; headers: Record<string, string> } {
  const exactBytes = {
    rawBodyBase64: Buffer.from(text, "utf8").toString("base64"),
    headers: { "content-type": "application/json" },
  };
  const parsed = parseJsonExact(text);
  if (
    text.includes("{{fresh:") ||
    !parsed.ok ||
    typeof parsed.value !== "object" ||
    parsed.value === null ||
    Array.isArray(parsed.value)
  )
    return exactBytes;
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parsed.value as Record<string, unknown>)) {
    const exact = parsed.exact.get(`/${escapePointer(k)}`);
    // Only top-level values are restored exactly; a nested big number keeps the body as bytes.
    if (exact !== undefined) body[k] = exact.integer ?? v;
    else body[k] = v;
  }
  if (parsed.exact.size > Object.keys(body).filter((k) => typeof body[k] === "bigint").length) return exactBytes;
  const marker = (name: string): string => `@@fresh-${name}@@`;
  for (const name of unique) {
    if (typeof body[name] === "bigint" || typeof body[name] === "number") body[name] = marker(`${name}:int64`);
    else if (typeof body[name] === "string") body[name] = marker(`${name}:string`);
  }
  let out = stringifyExact(body);
  for (const name of unique) {
    out = out
      .replace(`"${marker(`${name}:int64`)}"`, `{{fresh:${name}:int64}}`)
      .replace(`"${marker(`${name}:string`)}"`, `"{{fresh:${name}:string}}"`);
  }
  return { rawBody: out };
}
