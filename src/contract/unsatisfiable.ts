import { regExpVerdict } from "./ajv-document.js";
import { escapePointer, resolvePointer } from "./json-pointer.js";
import { integerBounds, typesOf, view, type Schema } from "./schema-view.js";

/**
 * Schemas no value can satisfy, said with the JSON pointer of the rule: minLength above maxLength,
 * minimum above maximum, an empty enum, `not: {}`, `false`, a required property whose schema is one
 * of these, ... A generator cannot make a request such a schema accepts; the operation is left out
 * with this reason rather than tried and skipped until the run's budget runs out.
 */

export interface Unsatisfiable {
  /** Where the rule that cannot be met sits in the document. */
  readonly pointer: string;
  readonly reason: string;
}

/** Why the schema at `pointer` of `doc` accepts no value, in the given direction; undefined when some value may do. */
export function unsatisfiable(
  doc: unknown,
  pointer: string,
  direction: "request" | "response" = "request",
): Unsatisfiable | undefined {
  return check(doc, resolvePointer(doc, pointer), pointer, direction, new Set());
}

/** As unsatisfiable, for a schema value (already merged, say); the pointer is then `#`-relative. */
export function unsatisfiableSchema(doc: unknown, schema: unknown): Unsatisfiable | undefined {
  return check(doc, schema, "", "request", new Set());
}

const DEEPEST = 16;

function check(
  doc: unknown,
  raw: unknown,
  pointer: string,
  direction: "request" | "response",
  seen: Set<string>,
): Unsatisfiable | undefined {
  if (raw === false) return { pointer, reason: "the schema is false: no value is valid" };
  if (typeof raw !== "object" || raw === null) return undefined;
  const followed = followRefs(doc, raw as Schema, pointer);
  if ("reason" in followed) return followed;
  const { here, node } = followed;
  if (seen.has(here) || seen.size > DEEPEST * 8) return undefined;
  const nextSeen = new Set(seen).add(here);
  // The parts of an allOf each must be satisfiable, and so must their merge.
  if (Array.isArray(node.allOf))
    for (const [i, part] of node.allOf.entries()) {
      const found = check(doc, part, `${here}/allOf/${i}`, direction, nextSeen);
      if (found !== undefined) return found;
    }
  const s = view(doc, node);
  const local = contradiction(s);
  if (local !== undefined) return { pointer: here, reason: local };
  const branches = unmetBranches(doc, node, here, direction, nextSeen);
  if (branches !== undefined) return branches;
  const types = typesOf(s);
  if (mayBe(types, "object") && (types === undefined || !types.includes("null"))) {
    const required = unmetRequired(doc, node, s, here, types, direction, nextSeen);
    if (required !== undefined) return required;
  }
  if (types !== undefined && types.length > 0 && types.every((t) => t === "object")) {
    const closed = closedAgainst(doc, node, here, s, direction);
    if (closed !== undefined) return closed;
  }
  return unmetItems(doc, s, here, types, direction, nextSeen);
}

/**
 * Follows $refs so the pointer names where the rule really lives: the schema reached and its pointer,
 * or why it accepts nothing (a `false` it names).
 */
function followRefs(doc: unknown, raw: Schema, pointer: string): { here: string; node: Schema } | Unsatisfiable {
  let here = pointer;
  let node = raw;
  // A schema met again is not re-checked (recursion): the caller keeps the pointers it has seen.
  for (let hops = 0; typeof node.$ref === "string" && node.$ref.startsWith("#") && hops < 32; hops++) {
    if (Object.keys(node).length > 1) break; // siblings: judged merged, at the referring place
    here = decode(node.$ref.slice(1));
    node = (resolvePointer(doc, here) ?? {}) as Schema;
    if (node === (false as unknown)) return { pointer: here, reason: "the schema is false: no value is valid" };
  }
  return { here, node };
}

/** Whether a value of type `t` may pass the types a schema declares (none declared: any). */
function mayBe(types: readonly string[] | undefined, t: string): boolean {
  return types === undefined || types.includes(t) || (t === "number" && types.includes("integer"));
}

/** A oneOf or anyOf none of whose branches can be met (or that has none). */
function unmetBranches(
  doc: unknown,
  node: Schema,
  here: string,
  direction: "request" | "response",
  seen: Set<string>,
): Unsatisfiable | undefined {
  for (const key of ["oneOf", "anyOf"] as const) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    const reasons = branches.map((b, i) => check(doc, b, `${here}/${key}/${i}`, direction, seen));
    if (branches.length === 0) return { pointer: here, reason: `${key} is empty` };
    if (reasons.every((r) => r !== undefined))
      return {
        pointer: here,
        reason: `no branch of ${key} can be met (${reasons[0]!.reason} at ${reasons[0]!.pointer})`,
      };
    // oneOf wants exactly one: two branches that every value meets leave none that meets one alone.
    // With a discriminator the validator reads oneOf as anyOf (ajv-document.ts): several may match.
    const merged = view(doc, node);
    if (key === "oneOf" && (node.discriminator !== undefined || merged.discriminator !== undefined)) continue;
    const within = typesOf(merged);
    const open = branches.flatMap((b, i) => (reasons[i] === undefined && acceptsAll(doc, b, within) ? [i] : []));
    if (key === "oneOf" && open.length >= 2)
      return {
        pointer: here,
        reason: `branches ${open.join(" and ")} of oneOf accept every value, so every value meets more than one`,
      };
  }
  return undefined;
}

/** Keywords that never refuse a value. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "example",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "externalDocs",
  "xml",
  "discriminator",
]);

/**
 * A schema that refuses no value of the types `within` (any value, when undefined): only annotations
 * (an `x-` extension counts as one), a `type` covering `within`, properties that refuse nothing, no
 * required one; local $refs followed.
 */
function acceptsAll(doc: unknown, raw: unknown, within: readonly string[] | undefined, depth = 0): boolean {
  if (raw === true) return true;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || depth > 8) return false;
  const all = (v: unknown): boolean => acceptsAll(doc, v, undefined, depth + 1);
  return Object.entries(raw as Schema).every(([k, v]) => {
    if (ANNOTATIONS.has(k) || k.startsWith("x-")) return true;
    if (k === "$ref")
      return (
        typeof v === "string" &&
        v.startsWith("#") &&
        acceptsAll(doc, resolvePointer(doc, decode(v.slice(1))), within, depth + 1)
      );
    if (k === "allOf") return Array.isArray(v) && v.every((part) => acceptsAll(doc, part, within, depth + 1));
    if (k === "type") {
      const own = typeof v === "string" ? [v] : Array.isArray(v) ? (v as string[]) : [];
      return (
        within !== undefined && within.every((t) => own.includes(t) || (t === "integer" && own.includes("number")))
      );
    }
    if (k === "properties") return typeof v === "object" && v !== null && Object.values(v).every(all);
    if (k === "required") return Array.isArray(v) && v.length === 0;
    return false;
  });
}

/**
 * A required property must be sent, so its schema must be satisfiable; one left out in this direction
 * is not sent. A required property no schema declares cannot be sent past `additionalProperties: false`.
 */
function unmetRequired(
  doc: unknown,
  node: Schema,
  s: Schema,
  here: string,
  types: readonly string[] | undefined,
  direction: "request" | "response",
  seen: Set<string>,
): Unsatisfiable | undefined {
  const props = (s.properties ?? {}) as Schema;
  const patterns = Object.keys((s.patternProperties ?? {}) as Schema);
  for (const r of (s.required as string[] | undefined) ?? []) {
    const where = ownerOf(node, r);
    const at = where === undefined ? `${here}/required` : `${here}${where}/properties/${escapePointer(r)}`;
    if (r in props) {
      const p = view(doc, props[r]);
      if (direction === "request" ? p.readOnly === true : p.writeOnly === true) continue;
      const found = check(doc, props[r], where === undefined ? at : at, direction, seen);
      if (found !== undefined && types !== undefined && types.length === 1)
        return { pointer: found.pointer, reason: `required property ${r}: ${found.reason}` };
    } else if (
      s.additionalProperties === false &&
      !patterns.some((p) => {
        try {
          return new RegExp(p, "u").test(r);
        } catch {
          return false;
        }
      })
    )
      return {
        pointer: at,
        reason: `property ${r} is required but additionalProperties is false and no schema declares it`,
      };
  }
  return undefined;
}

/** An array of one type that needs items, whose item schema no value can satisfy. */
function unmetItems(
  doc: unknown,
  s: Schema,
  here: string,
  types: readonly string[] | undefined,
  direction: "request" | "response",
  seen: Set<string>,
): Unsatisfiable | undefined {
  if (mayBe(types, "array") && types?.length === 1 && typeof s.minItems === "number" && s.minItems > 0) {
    const items = Array.isArray(s.prefixItems) ? undefined : s.items;
    if (items !== undefined && !Array.isArray(items)) {
      const found = check(doc, items, `${here}/items`, direction, seen);
      if (found !== undefined) return { pointer: found.pointer, reason: `minItems ${s.minItems}, but ${found.reason}` };
    }
  }
  return undefined;
}

/**
 * A required property that an `additionalProperties: false` forbids: that keyword sees only the
 * properties declared beside it (JSON Schema 2020-12 section 10.3.2.3), not those of the allOf parts
 * around it or within it. `{additionalProperties: false, allOf: [{$ref: address}]}` with a required
 * property of `address` accepts no object.
 */
function closedAgainst(
  doc: unknown,
  node: Schema,
  here: string,
  s: Schema,
  direction: "request" | "response",
): Unsatisfiable | undefined {
  const required = (s.required as string[] | undefined) ?? [];
  if (required.length === 0) return undefined;
  const props = (s.properties ?? {}) as Schema;
  const sent = required.filter((r) => {
    if (!(r in props)) return true;
    const p = view(doc, props[r]);
    return !(direction === "request" ? p.readOnly === true : p.writeOnly === true);
  });
  for (const part of ownParts(doc, node, here, 0)) {
    if (part.schema.additionalProperties !== false) continue;
    const own = (part.schema.properties ?? {}) as Schema;
    const patterns = Object.keys((part.schema.patternProperties ?? {}) as Schema);
    const r = sent.find((name) => !(name in own) && !patterns.some((p) => matches(p, name)));
    if (r !== undefined)
      return {
        pointer: `${part.pointer}/additionalProperties`,
        reason: `property ${r} is required, but additionalProperties false here sees only the properties declared beside it, and they do not include it`,
      };
  }
  return undefined;
}

/** The schema and its allOf parts, each with its own keywords (not merged), local $refs followed. */
function ownParts(doc: unknown, raw: unknown, pointer: string, depth: number): { schema: Schema; pointer: string }[] {
  if (typeof raw !== "object" || raw === null || depth > 8) return [];
  let node = raw as Schema;
  let here = pointer;
  const out: { schema: Schema; pointer: string }[] = [];
  for (let hops = 0; typeof node.$ref === "string" && node.$ref.startsWith("#") && hops < 32; hops++) {
    const { $ref, ...siblings } = node;
    // The siblings of a $ref are a schema of their own beside its target (as Ajv evaluates them).
    if (Object.keys(siblings).length > 0) out.push({ schema: siblings, pointer: here });
    here = decode(($ref as string).slice(1));
    const target = resolvePointer(doc, here);
    if (typeof target !== "object" || target === null) return out;
    node = target as Schema;
  }
  out.push({ schema: node, pointer: here });
  if (Array.isArray(node.allOf))
    for (const [i, part] of node.allOf.entries()) out.push(...ownParts(doc, part, `${here}/allOf/${i}`, depth + 1));
  return out;
}

function matches(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, "u").test(name);
  } catch {
    return false;
  }
}

/** Where (relative to the node) the declaration of a required property sits: the node itself or an allOf part. */
function ownerOf(node: Schema, name: string): string | undefined {
  if (typeof node.properties === "object" && node.properties !== null && name in node.properties) return "";
  if (Array.isArray(node.allOf))
    for (const [i, part] of node.allOf.entries()) {
      const p = part as Schema;
      if (typeof p?.properties === "object" && p.properties !== null && name in p.properties) return `/allOf/${i}`;
    }
  return undefined;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A contradiction among one (merged) schema's own keywords, said in words; undefined when none. */
function contradiction(s: Schema): string | undefined {
  const num = (k: string): number | undefined => (typeof s[k] === "number" ? (s[k] as number) : undefined);
  const types = typesOf(s);
  if (types !== undefined && types.length === 0) return "its types exclude each other (type is empty)";
  if (isEmptySchema(s.not)) return "not: {} excludes every value";
  if (Array.isArray(s.enum) && s.enum.length === 0) return "enum is empty";
  const pairs: [string, string][] = [
    ["minLength", "maxLength"],
    ["minItems", "maxItems"],
    ["minProperties", "maxProperties"],
    ["minContains", "maxContains"],
  ];
  for (const [lo, hi] of pairs) {
    const a = num(lo);
    const b = num(hi);
    if (a !== undefined && b !== undefined && a > b) return `${lo} ${a} is above ${hi} ${b}`;
  }
  const only = (t: string): boolean =>
    types !== undefined && types.every((x) => x === t || (t === "number" && x === "integer"));
  const lo = [num("minimum"), num("exclusiveMinimum")];
  const hi = [num("maximum"), num("exclusiveMaximum")];
  const low = Math.max(...lo.map((v) => v ?? -Infinity));
  const high = Math.min(...hi.map((v) => v ?? Infinity));
  const strict =
    (low === num("exclusiveMinimum") && low !== -Infinity) || (high === num("exclusiveMaximum") && high !== Infinity);
  if ((only("number") || only("integer")) && (low > high || (low === high && strict)))
    return `no number is within its bounds (from ${low} to ${high}${strict ? ", exclusive" : ""})`;
  if (only("integer")) {
    const [a, b] = integerBounds(s);
    if (a > b) return `no integer is within its bounds (from ${low} to ${high})`;
  }
  if (types !== undefined && Array.isArray(s.enum) && !s.enum.some((v) => types.some((t) => isOfType(v, t))))
    return `no value of its enum is of its type ${types.join(" or ")}`;
  if (only("string") && typeof s.pattern === "string") {
    const delimited = slashDelimited(s.pattern);
    // Only a pattern the validator compiles (an invalid one is left out, so anything passes), and
    // no alternation: "/^a|b/" matches "b/".
    const compiled = regExpVerdict(s.pattern) !== "invalid";
    if (delimited !== undefined && compiled && !delimited.includes("|") && /^\^|[^\\]\$$/.test(delimited))
      return (
        `pattern ${JSON.stringify(s.pattern)} is written with /.../ delimiters, which a JSON Schema pattern does ` +
        `not take (ECMA-262 source): its anchor sits beside a slash and no string matches; write ${JSON.stringify(delimited)}`
      );
  }
  const required = new Set((s.required as string[] | undefined) ?? []);
  const maxP = num("maxProperties");
  if (only("object") && maxP !== undefined && required.size > maxP)
    return `${required.size} properties are required, but maxProperties is ${maxP}`;
  if (only("array") && s.uniqueItems === true && typeof s.minItems === "number") {
    const items = s.items as Schema | undefined;
    const domain = Array.isArray(items?.enum)
      ? items.enum.length
      : items?.type === "boolean"
        ? 2
        : items?.type === "null"
          ? 1
          : undefined;
    if (domain !== undefined && domain < s.minItems)
      return `minItems ${s.minItems} unique items, but the items have only ${domain} values`;
  }
  return undefined;
}

/** Whether a JSON value is of a JSON Schema type. */
function isOfType(v: unknown, t: string): boolean {
  if (t === "null") return v === null;
  if (t === "array") return Array.isArray(v);
  if (t === "object") return typeof v === "object" && v !== null && !Array.isArray(v);
  if (t === "integer") return typeof v === "number" && Number.isInteger(v);
  return typeof v === t;
}

/** The inside of a pattern written as a /.../ literal (with flags, perhaps): undefined when it is not one. */
export function slashDelimited(pattern: string): string | undefined {
  const m = /^\/(.+)\/[dgimsuvy]*$/s.exec(pattern);
  return m === null ? undefined : m[1];
}

/** `{}` or `true`: the schema every value satisfies (so `not` of it, none). */
function isEmptySchema(v: unknown): boolean {
  return v === true || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
}
