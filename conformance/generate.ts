import fc from "fast-check";
import type { CompiledOperation, Contract } from "../src/contract/index.js";
import {
  checkRequest,
  escapePointer,
  parseJsonExact,
  resolvePointer,
  serializeQuery,
  stringifyExact,
} from "../src/contract/index.js";
import { INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, TWO_53 } from "../src/contract/index.js";

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

/** Follows local $refs into the bundled document the contract was compiled from. */
function deref(doc: unknown, schema: unknown): Schema {
  let s = schema as Schema;
  for (let i = 0; i < 32 && typeof s?.$ref === "string" && (s.$ref as string).startsWith("#"); i++) {
    s = resolvePointer(doc, decodeURIComponent((s.$ref as string).slice(1))) as Schema;
  }
  return s ?? {};
}

/** An object schema with allOf merged in (properties and required lists united). */
export function flatten(doc: unknown, schema: unknown): Schema {
  const s = deref(doc, schema);
  if (!Array.isArray(s.allOf)) return s;
  const merged: Schema = {
    ...s,
    allOf: undefined,
    properties: { ...((s.properties as Schema) ?? {}) },
    required: [...((s.required as string[]) ?? [])],
  };
  for (const part of s.allOf) {
    const p = flatten(doc, part);
    if (p.type !== undefined) merged.type = p.type;
    Object.assign(merged.properties as Schema, (p.properties as Schema) ?? {});
    (merged.required as string[]).push(...((p.required as string[]) ?? []));
    if (p.additionalProperties === false) merged.additionalProperties = false;
  }
  return merged;
}

const typeOf = (s: Schema): string | undefined =>
  Array.isArray(s.type) ? (s.type[0] as string) : (s.type as string | undefined);

/** Integers biased to the edges: the format's bounds and their neighbours, 2^53 +/- 1, 0. */
function integerArb(s: Schema): fc.Arbitrary<bigint> {
  const [lo, hi] = s.format === "int32" ? [INT32_MIN, INT32_MAX] : [INT64_MIN, INT64_MAX];
  const min = typeof s.minimum === "number" ? BigInt(Math.ceil(s.minimum)) : lo;
  const max = typeof s.maximum === "number" ? BigInt(Math.floor(s.maximum)) : hi;
  const edges = [min, min + 1n, max, max - 1n, 0n, 1n, -1n, TWO_53 - 1n, TWO_53, TWO_53 + 1n, -TWO_53 - 1n].filter(
    (v) => v >= min && v <= max,
  );
  return fc.oneof(
    { arbitrary: fc.constantFrom(...edges), weight: 2 },
    { arbitrary: fc.bigInt({ min, max }), weight: 3 },
  );
}

const DAY = fc.date({
  min: new Date("1900-01-01T00:00:00Z"),
  max: new Date("2999-12-31T23:59:59Z"),
  noInvalidDate: true,
});

/** Strings of the formats JSON Schema names (ajv-formats checks them), or undefined for others. */
export function formatArb(format: unknown): fc.Arbitrary<string> | undefined {
  switch (format) {
    case "uuid":
      return fc.uuid();
    case "date":
      return DAY.map((d) => d.toISOString().slice(0, 10));
    case "date-time":
      return DAY.map((d) => d.toISOString());
    case "email":
      return fc.emailAddress();
    case "uri":
    case "url":
      return fc.webUrl();
    case "ipv4":
      return fc.ipV4();
    case "ipv6":
      return fc.ipV6();
    case "hostname":
      return fc.domain();
    default:
      return undefined;
  }
}

/** Strings matching a schema's `pattern` (ECMA-262, with the u flag as Ajv reads it), or undefined. */
export function patternArb(pattern: unknown): fc.Arbitrary<string> | undefined {
  if (typeof pattern !== "string") return undefined;
  try {
    return fc.stringMatching(new RegExp(pattern, "u"));
  } catch {
    return undefined; // a pattern fast-check cannot generate from: candidates are checked anyway
  }
}

/** Strings over all of Unicode, empty and very long ones included; of the format, where it names one. */
function stringArb(s: Schema): fc.Arbitrary<string> {
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as string[]));
  const formatted = formatArb(s.format);
  if (formatted !== undefined) return formatted;
  const patterned = patternArb(s.pattern);
  if (patterned !== undefined) return patterned;
  const minLength = typeof s.minLength === "number" ? s.minLength : 0;
  const maxLength = typeof s.maxLength === "number" ? s.maxLength : 2_000;
  const branches: { arbitrary: fc.Arbitrary<string>; weight: number }[] = [
    { arbitrary: fc.string({ unit: "grapheme", minLength, maxLength: Math.min(maxLength, 40) }), weight: 4 },
    { arbitrary: fc.string({ unit: "binary", minLength, maxLength: Math.min(maxLength, 40) }), weight: 2 },
    // Lone surrogates: JSON strings may carry them (as \u escapes), and servers that re-encode text trip on them.
    {
      arbitrary: fc
        .tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }))
        .map(([t, c]) => t + String.fromCharCode(c))
        .filter((t) => t.length >= minLength && t.length <= maxLength),
      weight: 1,
    },
  ];
  // Very long strings, where the schema allows 1,000 characters or more.
  if (maxLength >= 1_000)
    branches.push({
      arbitrary: fc
        .integer({ min: Math.max(minLength, 1_000), max: Math.max(minLength, Math.min(maxLength, 70_000)) })
        .map((n) => "x".repeat(n)),
      weight: 1,
    });
  return fc.oneof(...branches);
}

/** Positive values of a schema; `fresh` names object properties whose values come from the caller. */
export function valueArb(doc: unknown, schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const s = flatten(doc, schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  // One branch of a union at a time; candidates the validator refuses are skipped by the caller.
  const union = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined) as
    unknown[] | undefined;
  if (union !== undefined && union.length > 0 && s.type === undefined)
    return fc.oneof(...union.map((branch) => valueArb(doc, branch, depth + 1)));
  // Self-referencing schemas: past a few levels only what is required, and past more nothing at all.
  if (depth > 8) return fc.constant(null);
  switch (typeOf(s)) {
    case "integer":
      return integerArb(s);
    case "number":
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), integerArb({ format: "int32" }));
    case "string":
      return stringArb(s);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return depth > 3 ? fc.constant([]) : fc.array(valueArb(doc, s.items ?? {}, depth + 1), { maxLength: 4 });
    case "object":
    case undefined: {
      const props = (s.properties as Schema) ?? {};
      const required = new Set((s.required as string[]) ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props))
        if (depth <= 3 || required.has(k)) record[k] = valueArb(doc, v, depth + 1);
      const known = fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
      // Unknown extra properties with arbitrary JSON values, where the schema allows them.
      const extras =
        s.additionalProperties === false || depth > 2
          ? fc.constant({})
          : fc.dictionary(
              fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !(k in props)),
              fc.jsonValue({ maxDepth: 2 }),
              { maxKeys: 2 },
            );
      return fc.tuple(known, extras).map(([a, b]) => ({ ...b, ...a }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values of the wrong JSON type for a schema type, each with the reason it breaks the rule. */
function wrongTypes(type: string | undefined): { value: unknown; reason: string }[] {
  const all: [string, unknown][] = [
    ["string", "7"],
    ["integer", 7],
    ["number", 1.5],
    ["boolean", true],
    ["null", null],
    ["array", []],
    ["object", {}],
  ];
  return all
    .filter(([t]) => t !== type && !(type === "number" && t === "integer"))
    .map(([t, value]) => ({ value, reason: `type ${type ?? "any"} (sent ${t})` }));
}

/** Every single-rule mutation of a valid body: one required property removed, one value of a wrong type or out of range. */
function mutations(doc: unknown, schema: unknown, body: Record<string, unknown>): { body: unknown; reason: string }[] {
  const s = flatten(doc, schema);
  const out: { body: unknown; reason: string }[] = [];
  for (const r of (s.required as string[]) ?? []) {
    const { [r]: _dropped, ...rest } = body;
    out.push({ body: rest, reason: `body/${r}: required` });
  }
  for (const [k, raw] of Object.entries((s.properties as Schema) ?? {})) {
    const p = flatten(doc, raw);
    for (const w of wrongTypes(typeOf(p)))
      out.push({ body: { ...body, [k]: w.value }, reason: `body/${k}: ${w.reason}` });
    if (typeOf(p) === "integer") {
      const [lo, hi] =
        p.format === "int32"
          ? [INT32_MIN, INT32_MAX]
          : p.format === "int64"
            ? [INT64_MIN, INT64_MAX]
            : [undefined, undefined];
      if (hi !== undefined && lo !== undefined) {
        out.push({ body: { ...body, [k]: hi + 1n }, reason: `body/${k}: format ${p.format} (above the range)` });
        out.push({ body: { ...body, [k]: lo - 1n }, reason: `body/${k}: format ${p.format} (below the range)` });
      }
      out.push({ body: { ...body, [k]: 0.5 }, reason: `body/${k}: type integer (sent 0.5)` });
    }
  }
  for (const w of wrongTypes(typeOf(s))) out.push({ body: w.value, reason: `body: ${w.reason}` });
  return out;
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
      p.maximum === undefined
    )
      out[k] = make("integer");
    else if (t === "string" && p.format === undefined && p.pattern === undefined && p.maxLength === undefined)
      out[k] = make("string");
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
/** The boundary of generated multipart bodies; a body whose text holds it is never made. */
export const BOUNDARY = "plantstore-kit-boundary-5d1f0a";

/** The media type the generator sends an operation's body as: JSON first, else a form with a schema. */
export function bodyMediaType(op: CompiledOperation): string | undefined {
  const json = jsonMediaType(op);
  if (json !== undefined) return json;
  const content = op.requestBody?.content;
  for (const type of [FORM, MULTIPART]) {
    const key = [...(content?.keys() ?? [])].find((k) => k.toLowerCase() === type);
    if (key !== undefined && content?.get(key)?.form !== undefined) return key;
  }
  return undefined;
}

/** The Content-Type header a generated body goes with (a multipart one names its boundary). */
export function bodyContentType(op: CompiledOperation): string {
  const type = bodyMediaType(op) ?? "application/json";
  return type.toLowerCase() === MULTIPART ? `${type}; boundary=${BOUNDARY}` : type;
}

/**
 * A generated value as the body's text: exact JSON, or a form, each field written as its `encoding`
 * says (urlencoded pairs; multipart parts, objects as JSON). Undefined when a form cannot carry it.
 */
export function encodeBody(op: CompiledOperation, value: unknown): string | undefined {
  const type = (bodyMediaType(op) ?? "application/json").toLowerCase();
  if (type !== FORM && type !== MULTIPART) return stringifyExact(value);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const fields = op.requestBody?.content.get(bodyMediaType(op)!)?.form;
  const text = (v: unknown): string => (typeof v === "string" ? v : stringifyExact(v));
  if (type === FORM) {
    const pieces: string[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const field = fields?.get(k);
      if (field !== undefined) pieces.push(...serializeQuery(field.style, v));
      else pieces.push(`${encodeURIComponent(k)}=${encodeURIComponent(text(v))}`);
    }
    return pieces.join("&");
  }
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

/** Whether the contract accepts a generated text sent as the operation's body media type (acceptability.ts decides). */
function verdict(op: CompiledOperation, text: string | undefined): text is string {
  if (text === undefined) return false;
  const checked = checkRequest(op, {
    headers: { "content-type": bodyContentType(op) },
    body: encoder.encode(text),
  });
  return checked.ok && checked.entry !== undefined;
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
  return valueArb(doc, schema).map((v) => {
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
  return fc.tuple(valueArb(doc, schema), fc.nat()).map(([v, pick]) => {
    const valid = freshen(doc, schema, v, options);
    if (!verdict(op, encodeBody(op, valid))) return null;
    const base = (typeof valid === "object" && valid !== null && !Array.isArray(valid) ? valid : {}) as Record<
      string,
      unknown
    >;
    const all = mutations(doc, schema, base);
    const m = all[pick % all.length] as { body: unknown; reason: string };
    const text = encodeBody(op, m.body);
    return text === undefined || verdict(op, text) ? null : { text, reason: m.reason };
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
    switch (typeOf(p)) {
      case "integer":
      case "number":
        return typeof p.minimum === "number" ? p.minimum : 1;
      case "string":
        return "Generated";
      case "boolean":
        return true;
      case "array":
        return [];
      case "null":
        return null;
      default: {
        if (depth > 4) return {};
        const out: Record<string, unknown> = {};
        for (const r of (p.required as string[]) ?? [])
          out[r] = plain(((p.properties as Schema) ?? {})[r] ?? {}, depth + 1);
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
  return pointer === undefined ? {} : (resolvePointer(doc, `${pointer}/schema`) ?? {});
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
