import { INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN } from "./integer-bounds.js";
import { resolvePointer, safeDecode } from "./json-pointer.js";

/**
 * One view of a schema for the generators: local `$ref`s followed (their siblings applied, as Ajv
 * applies them), `allOf` merged into one schema (types intersected, bounds tightened, properties and
 * required lists united), and OpenAPI 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` turned into
 * the number form of JSON Schema 2020-12 (as the contract compiles 3.0 documents). Unions (`oneOf`,
 * `anyOf`) are kept for the caller, which merges the rest of the schema into the branch it picks.
 */

export type Schema = Record<string, unknown>;

/** Schemas that no value satisfies (JSON Schema `false`), after merging; said by the unsatisfiable check. */
export const NOTHING: Schema = Object.freeze({ not: {} });

const MAX_HOPS = 32;

/** Follows local $refs; the siblings of a `$ref` are merged into its target (Ajv evaluates both). */
export function deref(doc: unknown, schema: unknown): Schema {
  let s = schema;
  let siblings: Schema = {};
  for (let i = 0; i < MAX_HOPS; i++) {
    if (s === true || s === undefined || s === null) return merge(siblings, {});
    if (s === false) return NOTHING;
    if (typeof s !== "object") return {};
    const o = s as Schema;
    if (typeof o.$ref !== "string" || !o.$ref.startsWith("#"))
      return Object.keys(siblings).length ? merge(siblings, o) : o;
    const { $ref, ...rest } = o;
    siblings = merge(siblings, withoutAnnotations(rest));
    s = resolvePointer(doc, safeDecode(($ref as string).slice(1)));
  }
  return {};
}

function withoutAnnotations(s: Schema): Schema {
  const { description: _d, summary: _s, title: _t, example: _e, examples: _x, ...rest } = s;
  return rest;
}

/** The schema with $refs followed, allOf merged and 3.0 exclusive bounds in number form. */
export function view(doc: unknown, schema: unknown, depth = 0): Schema {
  const s = normaliseBounds(deref(doc, schema));
  if (!Array.isArray(s.allOf) || depth > MAX_HOPS) return s;
  const { allOf, ...rest } = s;
  let merged: Schema = rest;
  for (const part of allOf as unknown[]) merged = merge(merged, view(doc, part, depth + 1));
  return merged;
}

/** OpenAPI 3.0 (JSON Schema draft-04 style) boolean exclusive bounds, in the number form. */
function normaliseBounds(s: Schema): Schema {
  if (typeof s.exclusiveMinimum !== "boolean" && typeof s.exclusiveMaximum !== "boolean") return s;
  const out: Schema = { ...s };
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof out[flag] !== "boolean") continue;
    if (out[flag] === true && typeof out[bound] === "number") {
      out[flag] = out[bound];
      delete out[bound];
    } else delete out[flag];
  }
  return out;
}

/** The JSON types a schema allows, `integer` counted as its own; undefined when it says none. */
export function typesOf(s: Schema): string[] | undefined {
  const declared = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === "string" ? [s.type] : undefined;
  if (declared === undefined) return undefined;
  // OpenAPI 3.0 `nullable: true` adds null to the declared type (OAS 3.0.3 section 4.7.24).
  return s.nullable === true && !declared.includes("null") ? [...declared, "null"] : declared;
}

/** The first type other than null a schema declares; undefined when it declares none. */
export const typeOf = (s: Schema): string | undefined => typesOf(s)?.find((t) => t !== "null");

function intersectTypes(a: string[], b: string[]): string[] {
  const out = new Set<string>();
  for (const t of a) {
    if (b.includes(t)) out.add(t);
    else if (t === "integer" && b.includes("number")) out.add("integer");
    else if (t === "number" && b.includes("integer")) out.add("integer");
  }
  return [...out];
}

const canonical = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (typeof v === "object" && v !== null)
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Schema)[k])}`)
      .join(",")}}`;
  // Integers beyond 2^53 are compared as the doubles the validator holds them as (2^53 and 2^53 + 1 alike).
  if (typeof v === "bigint") return JSON.stringify(Number(v));
  return JSON.stringify(v);
};

/** JSON Schema equality's key (2020-12 section 4.2.2): objects compared without their key order, 1 and 1.0 alike. */
export const jsonKey = canonical;

const LOWER = ["minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum", "minContains"];
const UPPER = ["maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum", "maxContains"];

/** The names one `additionalProperties: false` allows: the properties declared beside it, and its patterns'. */
interface Closed {
  readonly names: readonly string[];
  readonly patterns: readonly string[];
}

/**
 * The `additionalProperties: false` keywords a merged schema holds, each with the names it allows: such
 * a keyword sees only the properties beside it (JSON Schema 2020-12 section 10.3.2.3), not those an
 * allOf merged in, so merging must not widen what it allows.
 */
const CLOSED: unique symbol = Symbol("closed by additionalProperties: false");

function closedOf(s: Schema): readonly Closed[] {
  const carried = (s as { [CLOSED]?: readonly Closed[] })[CLOSED];
  if (carried !== undefined) return carried;
  if (s.additionalProperties !== false) return [];
  return [
    {
      names: Object.keys((s.properties ?? {}) as Schema),
      patterns: Object.keys((s.patternProperties ?? {}) as Schema),
    },
  ];
}

/** Whether every `additionalProperties: false` of a (merged) schema allows a property of this name. */
export function allowedName(s: Schema, name: string): boolean {
  return closedOf(s).every(
    (c) =>
      c.names.includes(name) ||
      c.patterns.some((p) => {
        try {
          return new RegExp(p, "u").test(name);
        } catch {
          return false;
        }
      }),
  );
}

/** Both schemas at once (allOf of two), as one schema; constraints it cannot combine are kept from `a`. */
export function merge(a: Schema, b: Schema): Schema {
  if (a === NOTHING || b === NOTHING) return NOTHING;
  const out: Schema = { ...b, ...a };
  const closed = [...closedOf(a), ...closedOf(b)];
  if (closed.length > 0) (out as { [CLOSED]?: readonly Closed[] })[CLOSED] = closed;
  const ta = typesOf(a);
  const tb = typesOf(b);
  if (ta !== undefined && tb !== undefined) {
    out.type = intersectTypes(ta, tb);
    delete out.nullable;
  } else if (ta !== undefined || tb !== undefined) {
    out.type = ta ?? tb;
    delete out.nullable;
  }
  for (const k of LOWER)
    if (typeof a[k] === "number" && typeof b[k] === "number") out[k] = Math.max(a[k] as number, b[k] as number);
  for (const k of UPPER)
    if (typeof a[k] === "number" && typeof b[k] === "number") out[k] = Math.min(a[k] as number, b[k] as number);
  if (Array.isArray(a.enum) && Array.isArray(b.enum)) {
    const keys = new Set((b.enum as unknown[]).map(canonical));
    out.enum = (a.enum as unknown[]).filter((v) => keys.has(canonical(v)));
  }
  if (a.const !== undefined && b.const !== undefined && canonical(a.const) !== canonical(b.const)) out.enum = [];
  if (a.properties !== undefined || b.properties !== undefined) {
    const pa = (a.properties ?? {}) as Schema;
    const pb = (b.properties ?? {}) as Schema;
    const props: Schema = { ...pb, ...pa };
    for (const k of Object.keys(pa)) if (k in pb) props[k] = { allOf: [pa[k], pb[k]] };
    out.properties = props;
  }
  if (Array.isArray(a.required) || Array.isArray(b.required))
    out.required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])];
  if (a.patternProperties !== undefined || b.patternProperties !== undefined)
    out.patternProperties = { ...(b.patternProperties as Schema), ...(a.patternProperties as Schema) };
  if (a.additionalProperties === false || b.additionalProperties === false) out.additionalProperties = false;
  else if (isObject(a.additionalProperties) && isObject(b.additionalProperties))
    out.additionalProperties = { allOf: [a.additionalProperties, b.additionalProperties] };
  if (a.items !== undefined && b.items !== undefined && !Array.isArray(a.items) && !Array.isArray(b.items))
    out.items = { allOf: [a.items, b.items] };
  if (a.readOnly === true || b.readOnly === true) out.readOnly = true;
  if (a.writeOnly === true || b.writeOnly === true) out.writeOnly = true;
  if (a.uniqueItems === true || b.uniqueItems === true) out.uniqueItems = true;
  if (Array.isArray(a.oneOf) && Array.isArray(b.oneOf)) out.allOf = [{ oneOf: b.oneOf }];
  if (Array.isArray(a.anyOf) && Array.isArray(b.anyOf))
    out.allOf = [...((out.allOf as unknown[]) ?? []), { anyOf: b.anyOf }];
  if (typeof a.multipleOf === "number" && typeof b.multipleOf === "number") {
    const [x, y] = [a.multipleOf, b.multipleOf];
    out.multipleOf = Number.isInteger(x) && Number.isInteger(y) ? (x * y) / gcd(x, y) : Math.max(x, y);
  }
  if (typeof a.pattern === "string" && typeof b.pattern === "string" && a.pattern !== b.pattern)
    // Both patterns must match; a lookahead says so in one regular expression (ECMA-262).
    out.pattern = `^(?=[\\s\\S]*?(?:${b.pattern}))(?:[\\s\\S]*?(?:${a.pattern}))`;
  return out;
}

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

function gcd(a: number, b: number): number {
  return b === 0 ? Math.abs(a) : gcd(b, a % b);
}

/** The integer bounds of a schema, its format's range and exclusive bounds applied. */
export function integerBounds(s: Schema): [bigint, bigint] {
  const [flo, fhi] = s.format === "int32" ? [INT32_MIN, INT32_MAX] : [INT64_MIN, INT64_MAX];
  let lo = flo;
  let hi = fhi;
  const atLeast = (v: bigint): void => void (v > lo && (lo = v));
  const atMost = (v: bigint): void => void (v < hi && (hi = v));
  if (typeof s.minimum === "number" && Number.isFinite(s.minimum)) atLeast(BigInt(Math.ceil(s.minimum)));
  if (typeof s.maximum === "number" && Number.isFinite(s.maximum)) atMost(BigInt(Math.floor(s.maximum)));
  if (typeof s.exclusiveMinimum === "number" && Number.isFinite(s.exclusiveMinimum))
    atLeast(BigInt(Math.floor(s.exclusiveMinimum)) + 1n);
  if (typeof s.exclusiveMaximum === "number" && Number.isFinite(s.exclusiveMaximum))
    atMost(BigInt(Math.ceil(s.exclusiveMaximum)) - 1n);
  return [lo, hi];
}
