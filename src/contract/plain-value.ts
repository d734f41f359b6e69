// The one plain-value maker of the kit: a value a schema accepts, plain and the same every time. The
// engine answers with it where it has no stored value; the generator sends it as the plainest request.
import fc from "fast-check";
import { followRefs, propertiesOf, withAllOfParts, type Resolve } from "./schema-properties.js";

type Json = Record<string, unknown>;

const MAX_DEPTH = 12;

const FORMATS: Readonly<Record<string, string>> = {
  "date-time": "2026-01-01T00:00:00Z",
  date: "2026-01-01",
  time: "00:00:00Z",
  duration: "P1D",
  uuid: "00000000-0000-4000-8000-000000000000",
  email: "user@example.com",
  "idn-email": "user@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  "uri-reference": "/",
  iri: "https://example.com/",
  "iri-reference": "/",
  "uri-template": "/",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  byte: "AAAA",
  binary: "",
  "json-pointer": "",
  regex: ".*",
};

/** How full a plain value is: 0 as little as the schema needs, 1 arrays with an item, 2 optional properties too. */
export type Fill = 0 | 1 | 2;

/** Where a plain value may come from and how full it is. */
export interface PlainOptions {
  /** The schema's `example` or first of `examples` (true by default): a document's example may break its own schema. */
  readonly examples?: boolean;
  /** The schema's `default` (as `examples` by default). */
  readonly defaults?: boolean;
  /** 0 (default) as little as the schema needs, 1 arrays with an item, 2 optional properties too. */
  readonly fill?: Fill;
  /** A schema with no type and no keyword that tells one: an object (default) or, for a URL or header, a string. */
  readonly untyped?: "object" | "string";
}

/**
 * A value a schema accepts, plain and the same every time: `const`, the first of `enum`, the
 * schema's example or default, else one built from its type and bounds (a format's usual value, a
 * pattern's first match from a fixed seed, the least number in range, the required properties).
 * With `fill` 1, arrays hold at least one item, with 2 the first levels' objects their optional
 * properties too (an empty array or object may match every branch of a `oneOf`, which the oneOf
 * refuses). Not a promise: the caller judges what it sends or answers by the contract.
 */
export function plainValue(schema: unknown, resolve: Resolve, options: PlainOptions = {}, depth = 0): unknown {
  const found = followRefs(schema, resolve) as Json | undefined;
  if (found === undefined || typeof found !== "object" || found === null) return null;
  const s = withAllOfParts(found, resolve);
  const examples = options.examples ?? true;
  const fill = options.fill ?? 0;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (examples && s.example !== undefined) return s.example;
  if (examples && Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ((options.defaults ?? examples) && s.default !== undefined) return s.default;
  if (depth > MAX_DEPTH) return null;
  for (const key of ["oneOf", "anyOf"] as const)
    if (Array.isArray(s[key]) && (s[key] as unknown[]).length > 0)
      return plainValue((s[key] as unknown[])[0], resolve, options, depth + 1);
  const type = typeOf(s, resolve) ?? options.untyped ?? "object";
  switch (type) {
    case "string":
      return plainString(s);
    case "integer":
    case "number":
      return plainNumber(s, type);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const least = typeof s.minItems === "number" ? s.minItems : 0;
      const n = fill > 0 && (typeof s.maxItems !== "number" || s.maxItems > 0) ? Math.max(least, 1) : least;
      return Array.from({ length: n }, () => plainValue(s.items, resolve, options, depth + 1));
    }
    default: {
      const { properties, required } = propertiesOf(found, resolve);
      const out: Json = {};
      for (const name of required) put(out, name, plainValue(properties.get(name), resolve, options, depth + 1));
      // Fuller, the first levels' optional properties too: an `enum` or `type` that tells one
      // branch of a oneOf from another is often optional.
      if (fill > 1 && depth < 2)
        for (const [name, sub] of properties)
          if (!Object.hasOwn(out, name)) put(out, name, plainValue(sub, resolve, options, depth + 1));
      return out;
    }
  }
}

/** Sets a member, one named `__proto__` as a member. */
function put(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The schema's type, the first that is not null; from `allOf` parts or the keywords when it has none;
 * undefined when nothing tells it.
 */
function typeOf(s: Json, resolve: Resolve): string | undefined {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  if (typeof t === "string") return t;
  for (const part of Array.isArray(s.allOf) ? s.allOf : []) {
    const p = followRefs(part, resolve) as Json | undefined;
    if (p !== undefined && typeof p === "object") {
      const inner = typeOf(p, resolve);
      if (inner !== undefined && (inner !== "object" || p.type === "object")) return inner;
    }
  }
  if (s.items !== undefined) return "array";
  if (typeof s.minLength === "number" || typeof s.pattern === "string" || typeof s.format === "string") return "string";
  if (s.properties !== undefined || s.required !== undefined || s.additionalProperties !== undefined) return "object";
  return undefined;
}

/** A pattern's first match from the fixed seed, made once (making it costs far more than using it). */
const matches = new Map<string, string | undefined>();

function firstMatch(pattern: string): string | undefined {
  if (matches.has(pattern)) return matches.get(pattern);
  let found: string | undefined;
  try {
    found = fc.sample(fc.stringMatching(new RegExp(pattern, "u")), { numRuns: 1, seed: 42 })[0];
  } catch {
    // a pattern fast-check cannot read: the answer is judged anyway
  }
  if (matches.size >= 4_096) matches.clear();
  matches.set(pattern, found);
  return found;
}

function plainString(s: Json): string {
  let text = typeof s.format === "string" && s.format in FORMATS ? FORMATS[s.format]! : "string";
  if (typeof s.pattern === "string") {
    try {
      if (!new RegExp(s.pattern, "u").test(text)) text = firstMatch(s.pattern) ?? text;
    } catch {
      // a pattern no RegExp reads: the answer is judged anyway
    }
  }
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : Infinity;
  if ([...text].length < min) text = text.padEnd(min, "x");
  if ([...text].length > max) text = [...text].slice(0, max).join("");
  return text;
}

function plainNumber(s: Json, type: "integer" | "number"): number {
  const lo =
    typeof s.minimum === "number"
      ? s.minimum
      : typeof s.exclusiveMinimum === "number"
        ? s.exclusiveMinimum + (type === "integer" ? 1 : 0.5)
        : undefined;
  const hi =
    typeof s.maximum === "number"
      ? s.maximum
      : typeof s.exclusiveMaximum === "number"
        ? s.exclusiveMaximum - 1
        : undefined;
  let n = lo ?? (hi !== undefined && hi < 1 ? hi : 1);
  if (type === "integer") n = Math.ceil(n);
  const step = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : undefined;
  if (step !== undefined) n = Math.ceil(n / step) * step;
  return n;
}
