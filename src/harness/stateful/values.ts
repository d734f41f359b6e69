// The values of a sequence's requests: bodies drawn from the generator (or its plainest ones), ids
// the client chooses made fresh for each run (beyond 2^53 and just below it where the schema takes
// any int64), a fresh text in the property the list filters by, and parameters at their plainest.
// Every body is checked by the contract before it is sent; one the contract refuses is never sent.
import fc from "fast-check";
import type { CompiledOperation, Contract } from "../../contract/index.js";
import { INT64_MAX, readExactJson, resourceModel, stringifyExact, TWO_53 } from "../../contract/index.js";
import {
  documentResolver,
  escapePointer,
  propertiesOf,
  propertySchemaAt,
  unescapePointer,
} from "../../contract/index.js";
import { plainValue, type PlainOptions } from "../../contract/index.js";
import { freshValue, type Random } from "../fresh.js";
import { at as atPointer } from "./compare.js";
import { minimalBody, positiveBodies, type GeneratorOptions } from "../generate/index.js";
import { schemaOf, verdict } from "../generate/index.js";
import { minimalRequest, plainRequestValue } from "../generate/index.js";
import { typeOf, view } from "../../contract/index.js";

/** How an id the client chooses is drawn: beyond 2^53 (no double holds it), just below it, or ordinary. */
export type IdKind = "big" | "near" | "ordinary";

/** The values of one sequence: drawn or plainest bodies, and the kind of each item's id. */
export interface SequenceValues {
  readonly drawn: boolean;
  readonly ids: { readonly A: IdKind; readonly B: IdKind };
  /** The seed of the drawn bodies. */
  readonly seed: number;
}

const NO_FRESH: GeneratorOptions = { fresh: new Map() };

type Json = Record<string, unknown>;

/**
 * A body for an operation as an exact value: drawn from the generator with `seed`, else the plainest
 * one with every optional property the contract takes at its plainest too (so that a property a later
 * step does not send is there to be kept, or lost).
 */
export function baseBody(contract: Contract, op: CompiledOperation, drawn: boolean, seed: number, at = ""): unknown {
  if (op.requestBody === undefined) return undefined;
  const doc = contract.document;
  const text = drawn
    ? fc
        .sample(positiveBodies(contract, op, doc, NO_FRESH), { numRuns: 20, seed })
        .find((b) => b !== null && b.text.startsWith("{"))?.text
    : undefined;
  const chosen = text ?? minimalBody(op, doc, NO_FRESH)?.text;
  const value = chosen === undefined ? undefined : readExactJson(chosen)?.value;
  return text === undefined ? withPlainOptionals(contract, op, value, at) : value;
}

/** A request's plain value with the optional properties of its first levels. */
const FULLER: PlainOptions = { examples: false, defaults: true, fill: 2, untyped: "string" };

/**
 * An object body whose item (at `at`: the body, or inside its envelope) has each optional property it
 * lacks set to its plainest value, where the contract takes it.
 */
function withPlainOptionals(contract: Contract, op: CompiledOperation, body: unknown, at: string): unknown {
  const doc = contract.document;
  const item = atPointer(body, at);
  if (typeof item !== "object" || item === null || Array.isArray(item)) return body;
  let out = item as Json;
  for (const [name, property] of propertiesAt(contract, op, at)) {
    const p = view(doc, property);
    if (name in out || p.readOnly === true) continue;
    // Fuller first (an object's optional properties too: JSON:API's `attributes`), then plainest.
    for (const value of [plainValue(property, documentResolver(doc), FULLER), plainRequestValue(property, doc)]) {
      const next = { ...out, [name]: value };
      if (!verdict(op, stringifyExact(withValueAt(body, at, next)))) continue;
      out = next;
      break;
    }
  }
  return withValueAt(body, at, out);
}

/** The kind of fresh value a property of a request body takes: an integer, a text, or none. */
export function freshKind(doc: unknown, op: CompiledOperation, property: string): "integer" | "string" | undefined {
  const props = (view(doc, schemaOf(op, doc)).properties ?? {}) as Json;
  if (props[property] === undefined) return undefined;
  const p = view(doc, props[property]);
  const open = p.enum === undefined && p.const === undefined && p.multipleOf === undefined;
  if (typeOf(p) === "integer" && open && (p.format === undefined || p.format === "int64")) return "integer";
  if (typeOf(p) === "string" && open && p.pattern === undefined && p.format === undefined) return "string";
  return undefined;
}

/** A fresh id of a kind: an integer no double holds (beyond 2^53), one just below 2^53, or an ordinary one. */
export function freshId(kind: IdKind, type: "integer" | "string", random: Random): bigint | string {
  if (type === "string") return freshValue("string", random);
  if (kind === "ordinary") return freshValue("int64", random);
  if (kind === "near") return random.between(TWO_53 - 2n ** 32n, TWO_53 - 1n);
  const big = random.between(TWO_53 + 1n, INT64_MAX);
  // An odd number beyond 2^53 has no double: a server that keeps it as one changes it.
  return big % 2n === 0n ? big - 1n : big;
}

/**
 * The body's text with the given properties set on the item (those its schema has), where the
 * request keeps it (`at`: the body, or `/data` of an envelope), when the contract accepts it; else
 * with each property left as drawn in turn; undefined when none is accepted.
 */
export function bodyWith(
  contract: Contract,
  op: CompiledOperation,
  base: unknown,
  set: Readonly<Record<string, unknown>>,
  at = "",
): string | undefined {
  if (op.requestBody === undefined) return undefined;
  const item = atPointer(base, at);
  const object = typeof item === "object" && item !== null && !Array.isArray(item) ? (item as Json) : undefined;
  if (object === undefined) return base === undefined ? undefined : stringifyExact(base);
  const props = propertiesAt(contract, op, at);
  const names = Object.keys(set).filter((n) => props.has(n));
  const attempt = (keep: readonly string[]): string | undefined => {
    const text = stringifyExact(
      withValueAt(base, at, { ...object, ...Object.fromEntries(keep.map((n) => [n, set[n]])) }),
    );
    return verdict(op, text) ? text : undefined;
  };
  return attempt(names) ?? names.map((n) => attempt(names.filter((m) => m !== n))).find((t) => t !== undefined);
}

/**
 * A patch body: only the properties given (a new filter value), else one property of the drawn item,
 * so that the others can be seen kept; the whole body when the contract wants more.
 */
export function patchBody(
  contract: Contract,
  op: CompiledOperation,
  base: unknown,
  set: Readonly<Record<string, unknown>>,
  idName: string,
  at = "",
): string | undefined {
  const item = atPointer(base, at);
  if (typeof item !== "object" || item === null || Array.isArray(item)) return bodyWith(contract, op, base, set, at);
  const props = propertiesAt(contract, op, at);
  const given = Object.keys(set).filter((k) => k !== idName && props.has(k));
  // A property that carries values, not a discriminator (JSON:API's `type`) or a reference.
  const candidates = Object.keys(item).filter((k) => !(k in set) && k !== idName);
  const other = candidates.find((k) => !REFERENCE.test(k)) ?? candidates[0];
  const kept = Object.fromEntries(Object.entries(item as Json).filter(([k]) => k === other));
  const small = withValueAt(base, at, given.length > 0 ? {} : kept);
  return bodyWith(contract, op, small, set, at) ?? bodyWith(contract, op, base, set, at);
}

/** The properties of the item's schema where a request keeps it. */
function propertiesAt(contract: Contract, op: CompiledOperation, at: string): ReadonlyMap<string, unknown> {
  const resolve = documentResolver(contract.document);
  return propertiesOf(propertySchemaAt(schemaOf(op, contract.document), at, resolve), resolve).properties;
}

/** A copy of `value` with `inner` at the pointer (the objects on the way copied). */
function withValueAt(value: unknown, pointer: string, inner: unknown): unknown {
  const tokens = pointer.split("/").slice(1).map(unescapePointer);
  if (tokens.length === 0) return inner;
  const [first, ...rest] = tokens as [string, ...string[]];
  const object = typeof value === "object" && value !== null ? (value as Json) : {};
  const restPointer = rest.map((t) => `/${escapePointer(t)}`).join("");
  return { ...object, [first]: withValueAt(object[first], restPointer, inner) };
}

/**
 * The plainest body of an operation (optional properties included), with a fresh value in the id
 * property the resource model names for it (or `id`), where its schema takes one; undefined when none.
 */
export function plainBody(contract: Contract, op: CompiledOperation, random: Random): string | undefined {
  const base = baseBody(contract, op, false, 0);
  const name = resourceModel(contract).roleOf(op)?.resource.id?.name ?? "id";
  const kind = freshKind(contract.document, op, name);
  return bodyWith(contract, op, base, kind === undefined ? {} : { [name]: freshId("ordinary", kind, random) });
}

/** The plainest values of an operation's required parameters, by `in:name` (path ones are filled in later). */
export function plainParameters(contract: Contract, op: CompiledOperation): Record<string, unknown> {
  return { ...(minimalRequest(contract, op, NO_FRESH)?.parameters ?? {}) };
}

/** A property that names another item by its id. */
const REFERENCE = /(^|[_-])id$|[a-z0-9]Id$|(^|[_-])(key|ref|slug|uuid)$|^(type|kind|object|@type)$/i;

/** The longest text a sequence writes in a free-text property: long enough that a store cutting text shows it. */
const LONG_TEXT = 300;

/**
 * The body with each free-text string it holds (its schema has no format, pattern or enum; the
 * property is no reference such as `productId`), at any depth to 4 (JSON:API's `data.attributes`),
 * replaced by a long text beyond ASCII, as long as its `maxLength` allows up to LONG_TEXT code points:
 * a store that cuts text short or mangles it shows it on the next read. `skip` names top-level
 * properties set otherwise. The body as given where the contract refuses the change.
 */
export function withLongTexts(
  doc: unknown,
  op: CompiledOperation,
  body: unknown,
  random: Random,
  skip: ReadonlySet<string>,
): unknown {
  const long = (schema: unknown, value: unknown, depth: number, top: boolean): unknown => {
    if (typeof value !== "object" || value === null || Array.isArray(value) || depth > 4) return value;
    const props = (view(doc, schema).properties ?? {}) as Json;
    const out: Json = { ...(value as Json) };
    for (const [name, v] of Object.entries(out)) {
      if (props[name] === undefined || (top && skip.has(name)) || REFERENCE.test(name)) continue;
      const p = view(doc, props[name]);
      if (typeof v === "string") {
        const text = longText(p, random);
        if (text !== undefined) out[name] = text;
      } else out[name] = long(props[name], v, depth + 1, false);
    }
    return out;
  };
  const changed = long(schemaOf(op, doc), body, 0, true);
  return verdict(op, stringifyExact(changed)) ? changed : body;
}

/** A long text a free-text schema takes, up to LONG_TEXT code points; undefined for any other schema. */
function longText(p: Json, random: Random): string | undefined {
  const free = typeOf(p) === "string" && p.enum === undefined && p.const === undefined;
  if (!free || p.pattern !== undefined || p.format !== undefined) return undefined;
  const max = typeof p.maxLength === "number" ? Math.min(p.maxLength, LONG_TEXT) : LONG_TEXT;
  const min = typeof p.minLength === "number" ? p.minLength : 0;
  if (max < Math.max(min, 24)) return undefined;
  const head = [...`Grüße ünd 🌱 ${random.hex(6)} `];
  return [...head, ...Array.from({ length: max - head.length }, (_, i) => "abcdéfgh"[i % 8]!)].join("");
}

/**
 * A body for a replace: the given one without its optional properties (id and `keep` stay), so that a
 * replace that keeps what it was not sent shows it (RFC 9110 section 9.3.4); as given where the
 * contract wants them.
 */
export function withoutOptionals(
  contract: Contract,
  op: CompiledOperation,
  base: unknown,
  keep: ReadonlySet<string>,
): unknown {
  if (typeof base !== "object" || base === null || Array.isArray(base)) return base;
  const schema = view(contract.document, schemaOf(op, contract.document));
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const kept = Object.fromEntries(Object.entries(base as Json).filter(([k]) => required.has(k) || keep.has(k)));
  return verdict(op, stringifyExact(kept)) ? kept : base;
}
