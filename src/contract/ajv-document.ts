import type { SchemaDialect } from "./ajv.js";
import { escapePointer, resolvePointer, safeDecode } from "./json-pointer.js";

// The one place that prepares a document's schemas for Ajv. Validators are compiled from `{$ref}`
// stubs into a copy of the document made here, so what Ajv cannot take as written is rewritten in the
// copy, never in `Contract.document` (which generators and reports read as the user wrote it). The
// copy keeps every pointer of the document, with one exception (nullable, below) that is mapped back.

type Json = Record<string, unknown>;

/** Something the kit read differently from a plain JSON Schema compile, at a pointer of the document. */
export interface ContractNote {
  /** JSON pointer of the schema (or keyword) in `Contract.document`. */
  readonly pointer: string;
  readonly message: string;
}

/** The Ajv copies of a document, one per direction (the same object when readOnly/writeOnly change nothing). */
export interface AjvDocuments {
  /** For requests: readOnly properties are not required. */
  readonly request: Json;
  /** For responses: writeOnly properties are not required. */
  readonly response: Json;
  readonly notes: ContractNote[];
  /** A pointer of the document as it is in the copies. */
  toCopy(pointer: string): string;
  /** A pointer of the copies as it is in the document. */
  toDocument(pointer: string): string;
}

// Keywords whose values are schemas: a map of them, one, or a list (`items` is one or a list).
const SCHEMA_MAPS = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"];
const SCHEMA_ONE = [
  "items",
  "additionalItems",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/** The keywords of a schema that can refuse null (besides type, enum and const, which nullable leaves as they are). */
const NULL_REFUSING = ["$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else"];
const MAX_DEPTH = 16;

/** Every keyword-held subschema of a schema: keyword path (relative, escaped) and the subschema. */
export function subschemas(schema: Json): [string, Json][] {
  const out: [string, Json][] = [];
  const push = (path: string, v: unknown): void => {
    if (typeof v === "object" && v !== null && !Array.isArray(v)) out.push([path, v as Json]);
  };
  for (const k of SCHEMA_MAPS) {
    const map = schema[k];
    if (typeof map !== "object" || map === null || Array.isArray(map)) continue;
    for (const [name, v] of Object.entries(map)) push(`/${k}/${escapePointer(name)}`, v);
  }
  for (const k of SCHEMA_ONE) push(`/${k}`, schema[k]);
  for (const k of SCHEMA_LISTS) {
    const list = schema[k];
    if (Array.isArray(list)) list.forEach((v, i) => push(`/${k}/${i}`, v));
  }
  return out;
}

/**
 * Examples are data, not schemas, and Ajv never needs them; yet it collects every `$id` of the
 * document it is given, so example data that holds an `$id` (Box's API has objects with one in each
 * example) would make it refuse the document as naming one schema twice. The copy keeps none.
 */
function stripExamples(node: Json): void {
  delete node.example;
  if (node.examples !== null && typeof node.examples === "object") delete node.examples;
}

/**
 * Makes the Ajv copies of a validated, bundled document. In each schema (reached through `schema`
 * fields and `components/schemas`, then through the schema keywords):
 * - OpenAPI 3.0 `nullable` without `type` (Ajv refuses it): alone it says nothing (the schema accepts
 *   null anyway) and is dropped; beside `$ref`, `allOf`, `oneOf`, `anyOf` or `not` it is read as it is
 *   meant (OAS 3.0.3 section 4.7.24.1: "A true value adds null to the allowed values"), so null is
 *   accepted there: the lenient reading, under which a server sending null is never blamed. The same
 *   with `type`, where Ajv's own `nullable` lets null past `type` but not past those keywords. Those
 *   keywords move under `else` of `if: {type: "null"}`, a move whose pointers toCopy/toDocument map.
 *   OpenAPI 3.1 has no `nullable`, but 3.1 documents carried over from 3.0 keep it and Ajv reads it
 *   in both dialects: it is read the same way there.
 * - `enum: []` (JSON Schema: the array SHOULD have at least one element; Ajv refuses it) matches nothing.
 * - A `pattern` (or `patternProperties` name) valid ECMA-262 only without the `u` flag is compiled
 *   without it (see lenientRegExp in ajv.ts); one invalid either way is left out. Each gets a note.
 * - A `required` property that is readOnly is not required in requests, one that is writeOnly not in
 *   responses (OAS 3.0.3 section 4.7.24.1, fixed fields readOnly and writeOnly; the same annotations
 *   in OAS 3.1), each direction in its own copy.
 */
export function prepareAjvDocuments(document: Json, dialect: SchemaDialect): AjvDocuments {
  const copy = structuredClone(document);
  const walk: Walk = {
    document,
    notes: [],
    seenNotes: new Set(),
    moves: new Map(),
    refHolders: [],
    required: [],
    visited: new WeakSet(),
    walked: new WeakSet(),
  };
  walkDocument(walk, copy, "");
  const toCopy = (pointer: string): string => mapPrefix(walk.moves, pointer);
  walkRefTargets(walk, copy, toCopy);

  const back = new Map([...walk.moves].map(([from, to]) => [to, from]));
  const toDocument = (pointer: string): string => mapPrefix(back, pointer);
  if (walk.moves.size > 0) retargetRefs(walk.refHolders, toCopy);

  const { request, response } = directionCopies(copy, walk.required);
  return { request, response, notes: walk.notes, toCopy, toDocument };
}

/** A `required` list that names readOnly or writeOnly properties, at the copy's pointer of its schema. */
interface FlaggedRequired {
  readonly pointer: string;
  readonly readOnly: string[];
  readonly writeOnly: string[];
}

/** What one preparation keeps while it walks the copy. */
interface Walk {
  /** The document as written (what `required` names and allOf composes are looked up in). */
  readonly document: Json;
  readonly notes: ContractNote[];
  readonly seenNotes: Set<string>;
  /** Where nullable moved keywords: the document's pointer of a keyword, and the copy's. */
  readonly moves: Map<string, string>;
  readonly refHolders: Json[];
  readonly required: FlaggedRequired[];
  /**
   * Schemas walked, and the other objects of the document walked (a schema kept outside schema places
   * is walked as an object first, then as a schema when a $ref names it).
   */
  readonly visited: WeakSet<object>;
  readonly walked: WeakSet<object>;
}

/** Records a note, once for each pointer and message. */
function note(walk: Walk, pointer: string, message: string): void {
  const key = `${pointer}\u0000${message}`;
  if (walk.seenNotes.has(key)) return;
  walk.seenNotes.add(key);
  walk.notes.push({ pointer, message });
}

/** Rewrites one schema of the copy (see prepareAjvDocuments), then walks its subschemas. */
function walkSchema(walk: Walk, s: Json, at: string, origin: string, composedBy: readonly Json[]): void {
  if (walk.visited.has(s)) return;
  walk.visited.add(s);
  // The schema as written (for what `required` names and allOf composes), looked up only when needed.
  const needsOriginal = Array.isArray(s.required) || Array.isArray(s.allOf);
  const original = needsOriginal ? resolvePointer(walk.document, origin) : undefined;
  if (typeof s.$ref === "string") walk.refHolders.push(s);
  stripExamples(s);
  const renamedOneOf = oneOfAsAnyOf(walk, s, at, origin);
  emptyEnumAsNot(walk, s, origin);
  lenientPatterns(walk, s, origin);
  if (Array.isArray(s.required) && typeof original === "object" && original !== null)
    recordFlaggedRequired(walk, s, at, original as Json, composedBy);
  const moved = moveNullRefusing(walk, s, at, origin);
  const children = subschemas(s).filter(([path]) => moved === undefined || !/^\/(if|then|else)$/.test(path));
  // Composition is looked up in the document as written (the copy's keywords may have moved).
  const self = (typeof original === "object" && original !== null ? original : {}) as Json;
  for (const [path, child] of children) {
    const written = renamedOneOf && path.startsWith("/anyOf/") ? `/oneOf/${path.slice(7)}` : path;
    walkSchema(walk, child, at + path, origin + written, composed(self, written, composedBy));
  }
  if (moved !== undefined) {
    for (const [path, child] of subschemas(moved))
      walkSchema(walk, child, `${at}/else${path}`, origin + path, composed(self, path, composedBy));
  }
}

/**
 * With a discriminator the property names the branch (OAS 3.0.3 section 4.7.25), so a value that
 * also fits another branch is no violation: oneOf's exclusivity is read as anyOf, never blaming a
 * server for a body the discriminator makes unambiguous. Whether oneOf was renamed.
 */
function oneOfAsAnyOf(walk: Walk, s: Json, at: string, origin: string): boolean {
  const renamedOneOf = s.discriminator !== undefined && Array.isArray(s.oneOf) && s.anyOf === undefined;
  if (renamedOneOf) {
    s.anyOf = s.oneOf;
    delete s.oneOf;
    walk.moves.set(`${origin}/oneOf`, `${at}/anyOf`);
  }
  return renamedOneOf;
}

/** `enum: []` matches nothing. */
function emptyEnumAsNot(walk: Walk, s: Json, origin: string): void {
  if (Array.isArray(s.enum) && s.enum.length === 0) {
    delete s.enum;
    // `not: {}` refuses every value; beside an existing `not`, the same as one more allOf member.
    if (s.not === undefined) s.not = {};
    else s.allOf = [...(Array.isArray(s.allOf) ? s.allOf : []), { not: {} }];
    note(walk, `${origin}/enum`, "enum is empty: no value matches");
  }
}

/** A `pattern` or `patternProperties` name valid only without the u flag is noted; one invalid either way is left out. */
function lenientPatterns(walk: Walk, s: Json, origin: string): void {
  if (typeof s.pattern === "string") {
    const verdict = regExpVerdict(s.pattern);
    if (verdict === "without-u") note(walk, `${origin}/pattern`, WITHOUT_U);
    if (verdict === "invalid") {
      delete s.pattern;
      note(walk, `${origin}/pattern`, "pattern is not a valid ECMA-262 regular expression: its check is left out");
    }
  }
  if (typeof s.patternProperties === "object" && s.patternProperties !== null) {
    const map = s.patternProperties as Json;
    for (const name of Object.keys(map)) {
      const verdict = regExpVerdict(name);
      const where = `${origin}/patternProperties/${escapePointer(name)}`;
      if (verdict === "without-u") note(walk, where, WITHOUT_U);
      if (verdict === "invalid") {
        delete map[name];
        note(walk, where, "the name is not a valid ECMA-262 regular expression: this property schema is left out");
      }
    }
  }
}

/** Records the readOnly and writeOnly properties a schema's `required` names, for the direction copies. */
function recordFlaggedRequired(walk: Walk, s: Json, at: string, original: Json, composedBy: readonly Json[]): void {
  const flagged = (flag: string): string[] =>
    (s.required as unknown[]).filter(
      (name): name is string =>
        typeof name === "string" &&
        isFlagged(walk.document, propertyOf(walk.document, original, name, composedBy), flag),
    );
  const readOnly = flagged("readOnly");
  const writeOnly = flagged("writeOnly");
  if (readOnly.length > 0 || writeOnly.length > 0) walk.required.push({ pointer: at, readOnly, writeOnly });
}

/**
 * OpenAPI 3.0 `nullable` (see prepareAjvDocuments): dropped without `type`; when true, the keywords
 * that can refuse null move under `else` of `if: {type: "null"}`. The moved keywords, if any.
 */
function moveNullRefusing(walk: Walk, s: Json, at: string, origin: string): Json | undefined {
  let moved: Json | undefined;
  // 3.1 has no nullable, yet documents written for 3.0 keep it, and Ajv reads it in both dialects:
  // the same reading there, so a 3.1 document is never refused (or a server blamed) for it.
  if (s.nullable !== undefined) {
    const nullable = s.nullable === true;
    if (s.type === undefined) delete s.nullable;
    const refusing = NULL_REFUSING.filter((k) => s[k] !== undefined);
    if (nullable && refusing.length > 0) {
      moved = {};
      for (const k of refusing) {
        moved[k] = s[k];
        delete s[k];
        walk.moves.set(`${origin}/${k}`, `${at}/else/${k}`);
      }
      Object.assign(s, { if: { type: "null" }, then: true, else: moved });
      if (typeof moved.$ref === "string") walk.refHolders.push(moved);
    }
  }
  return moved;
}

/** The document outside schemas: every `schema` field and components/schemas start a schema walk. */
function walkDocument(walk: Walk, node: unknown, at: string): void {
  if (typeof node !== "object" || node === null || walk.walked.has(node)) return;
  walk.walked.add(node);
  stripExamples(node as Json);
  for (const [key, value] of Object.entries(node)) {
    if (typeof value !== "object" || value === null) continue;
    const here = `${at}/${escapePointer(key)}`;
    if (key === "schema" && !Array.isArray(value)) walkSchema(walk, value as Json, here, here, []);
    else if (at === "/components" && key === "schemas") {
      for (const [name, schema] of Object.entries(value)) {
        const p = `${here}/${escapePointer(name)}`;
        if (typeof schema === "object" && schema !== null) walkSchema(walk, schema as Json, p, p, []);
      }
    } else walkDocument(walk, value, here);
  }
}

/** A $ref may name a schema kept outside schema places (under an x- field, say): it is one all the same. */
function walkRefTargets(walk: Walk, copy: Json, toCopy: (pointer: string) => string): void {
  // The list grows as the walks below meet more $refs: each is taken in turn.
  for (let i = 0; i < walk.refHolders.length; i++) {
    const ref = walk.refHolders[i]!.$ref;
    if (typeof ref !== "string" || !ref.startsWith("#/")) continue;
    const target = safeDecode(ref.slice(1));
    const node = resolvePointer(copy, toCopy(target));
    if (typeof node === "object" && node !== null && !Array.isArray(node) && !walk.visited.has(node))
      walkSchema(walk, node as Json, toCopy(target), target, []);
  }
}

/** Points every $ref whose target moved at the target's place in the copy. */
function retargetRefs(refHolders: readonly Json[], toCopy: (pointer: string) => string): void {
  for (const holder of refHolders) {
    const ref = holder.$ref;
    if (typeof ref !== "string" || !ref.startsWith("#/")) continue;
    const target = safeDecode(ref.slice(1));
    const mapped = toCopy(target);
    if (mapped !== target) holder.$ref = `#${encodeURI(mapped).replace(/#/g, "%23")}`;
  }
}

/** The request and response copies: readOnly properties not required in the one, writeOnly in the other. */
function directionCopies(copy: Json, required: readonly FlaggedRequired[]): { request: Json; response: Json } {
  const anyRead = required.some((r) => r.readOnly.length > 0);
  const anyWrite = required.some((r) => r.writeOnly.length > 0);
  // One copy more only when a direction needs its own; the other takes the copy made above.
  const request = anyRead ? structuredClone(copy) : copy;
  const response = anyRead || !anyWrite ? copy : structuredClone(copy);
  for (const r of required) {
    if (r.readOnly.length > 0) dropRequired(resolvePointer(request, r.pointer), r.readOnly);
    if (r.writeOnly.length > 0) dropRequired(resolvePointer(response, r.pointer), r.writeOnly);
  }
  return { request, response };
}

const WITHOUT_U =
  "pattern is valid ECMA-262 only without the u flag (unicode): it is compiled without it, so \\u{...} escapes and \\p{...} classes are not read as such";

/** How a pattern compiles as ECMA-262: with the u flag, only without it, or not at all (then left out). */
export function regExpVerdict(pattern: string): "ok" | "without-u" | "invalid" {
  try {
    new RegExp(pattern, "u");
    return "ok";
  } catch {
    try {
      new RegExp(pattern);
      return "without-u";
    } catch {
      return "invalid";
    }
  }
}

/** The schemas whose properties an allOf member's `required` may name: the schema composing it, and its own composers. */
function composed(parent: Json, path: string, composedBy: readonly Json[]): readonly Json[] {
  return path.startsWith("/allOf/") ? [parent, ...composedBy] : [];
}

function dropRequired(schema: unknown, names: readonly string[]): void {
  if (typeof schema !== "object" || schema === null || !Array.isArray((schema as Json).required)) return;
  const s = schema as Json;
  const kept = (s.required as unknown[]).filter((n) => !names.includes(n as string));
  if (kept.length > 0) s.required = kept;
  else delete s.required;
}

/**
 * The schema of property `name` as a schema with `required` sees it: its own `properties`, those of
 * what it `$ref`s and of its `allOf` members, then those of the schemas composing it by `allOf`.
 */
function propertyOf(doc: Json, schema: Json, name: string, composedBy: readonly Json[]): unknown {
  const find = (s: unknown, depth: number): unknown => {
    if (typeof s !== "object" || s === null || depth > MAX_DEPTH) return undefined;
    const o = s as Json;
    const properties = o.properties;
    if (typeof properties === "object" && properties !== null && Object.hasOwn(properties, name))
      return (properties as Json)[name];
    if (typeof o.$ref === "string") {
      const found = find(refTarget(doc, o.$ref), depth + 1);
      if (found !== undefined) return found;
    }
    for (const member of Array.isArray(o.allOf) ? o.allOf : []) {
      const found = find(member, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  for (const s of [schema, ...composedBy]) {
    const found = find(s, 0);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether a property schema is marked readOnly (or writeOnly): itself, what it `$ref`s, or an allOf member. */
function isFlagged(doc: Json, schema: unknown, flag: string, depth = 0): boolean {
  if (typeof schema !== "object" || schema === null || depth > MAX_DEPTH) return false;
  const s = schema as Json;
  if (s[flag] === true) return true;
  if (typeof s.$ref === "string" && isFlagged(doc, refTarget(doc, s.$ref), flag, depth + 1)) return true;
  return Array.isArray(s.allOf) && s.allOf.some((m) => isFlagged(doc, m, flag, depth + 1));
}

function refTarget(doc: Json, ref: string): unknown {
  return ref.startsWith("#") ? resolvePointer(doc, safeDecode(ref.slice(1))) : undefined;
}

/** The pointer with its longest mapped prefix (whole segments) replaced. */
function mapPrefix(map: ReadonlyMap<string, string>, pointer: string): string {
  if (map.size === 0) return pointer;
  let prefix = pointer;
  for (;;) {
    const to = map.get(prefix);
    if (to !== undefined) return to + pointer.slice(prefix.length);
    const cut = prefix.lastIndexOf("/");
    if (cut <= 0) return pointer;
    prefix = prefix.slice(0, cut);
  }
}
