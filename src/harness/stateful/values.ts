// The values of a sequence's requests: bodies drawn from the generator (or its plainest ones), ids
// the client chooses made fresh for each run (beyond 2^53 and just below it where the schema takes
// any int64), a fresh text in the property the list filters by, and parameters at their plainest.
// Every body is checked by the contract before it is sent; one the contract refuses is never sent.
import fc from "fast-check";
import type { CompiledOperation, Contract } from "../../contract/index.js";
import { INT64_MAX, readExactJson, resourceModel, stringifyExact, TWO_53 } from "../../contract/index.js";
import { freshValue, type Random } from "../fresh.js";
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
export function baseBody(contract: Contract, op: CompiledOperation, drawn: boolean, seed: number): unknown {
  if (op.requestBody === undefined) return undefined;
  const doc = contract.document;
  const text = drawn
    ? fc
        .sample(positiveBodies(contract, op, doc, NO_FRESH), { numRuns: 20, seed })
        .find((b) => b !== null && b.text.startsWith("{"))?.text
    : undefined;
  const chosen = text ?? minimalBody(op, doc, NO_FRESH)?.text;
  const value = chosen === undefined ? undefined : readExactJson(chosen)?.value;
  return text === undefined ? withPlainOptionals(doc, op, value) : value;
}

/** An object body with each optional property it lacks set to its plainest value, where the contract takes it. */
function withPlainOptionals(doc: unknown, op: CompiledOperation, body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  let out = body as Json;
  const schema = view(doc, schemaOf(op, doc));
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) {
    const p = view(doc, property);
    if (name in out || p.readOnly === true) continue;
    const next = { ...out, [name]: plainRequestValue(property, doc) };
    if (verdict(op, stringifyExact(next))) out = next;
  }
  return out;
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
 * The body's text with the given properties set (those its schema has), when the contract accepts
 * it; else with each property left as drawn in turn; undefined when none is accepted.
 */
export function bodyWith(
  contract: Contract,
  op: CompiledOperation,
  base: unknown,
  set: Readonly<Record<string, unknown>>,
): string | undefined {
  if (op.requestBody === undefined) return undefined;
  const object = typeof base === "object" && base !== null && !Array.isArray(base) ? (base as Json) : undefined;
  if (object === undefined) return base === undefined ? undefined : stringifyExact(base);
  const props = (view(contract.document, schemaOf(op, contract.document)).properties ?? {}) as Json;
  const names = Object.keys(set).filter((n) => props[n] !== undefined);
  const attempt = (keep: readonly string[]): string | undefined => {
    const text = stringifyExact({ ...object, ...Object.fromEntries(keep.map((n) => [n, set[n]])) });
    return verdict(op, text) ? text : undefined;
  };
  return attempt(names) ?? names.map((n) => attempt(names.filter((m) => m !== n))).find((t) => t !== undefined);
}

/**
 * A patch body: only the properties given (a new filter value), else one property of the drawn body,
 * so that the others can be seen kept; the whole body when the contract wants more.
 */
export function patchBody(
  contract: Contract,
  op: CompiledOperation,
  base: unknown,
  set: Readonly<Record<string, unknown>>,
  idName: string,
): string | undefined {
  if (typeof base !== "object" || base === null || Array.isArray(base)) return bodyWith(contract, op, base, set);
  const props = (view(contract.document, schemaOf(op, contract.document)).properties ?? {}) as Json;
  const given = Object.keys(set).filter((k) => k !== idName && props[k] !== undefined);
  const other = Object.keys(base).find((k) => !(k in set) && k !== idName);
  const small = given.length > 0 ? {} : Object.fromEntries(Object.entries(base as Json).filter(([k]) => k === other));
  return bodyWith(contract, op, small, set) ?? bodyWith(contract, op, base, set);
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
const REFERENCE = /(^|[_-])id$|[a-z0-9]Id$|(^|[_-])(key|ref|slug|uuid)$/i;

/** The longest text a sequence writes in a free-text property: long enough that a store cutting text shows it. */
const LONG_TEXT = 300;

/**
 * Long, non-ASCII texts for the body's free-text properties (no format, pattern or enum), each as long
 * as its schema allows up to LONG_TEXT code points: a store that cuts text short, or mangles
 * characters beyond ASCII, shows it on the next read. `skip` names properties set otherwise.
 */
export function longTexts(
  doc: unknown,
  op: CompiledOperation,
  random: Random,
  skip: ReadonlySet<string>,
): Record<string, string> {
  const props = (view(doc, schemaOf(op, doc)).properties ?? {}) as Json;
  const out: Record<string, string> = {};
  for (const name of Object.keys(props)) {
    // An id of something else (`productId`, `owner_id`) is a reference, not free text.
    if (skip.has(name) || REFERENCE.test(name) || freshKind(doc, op, name) !== "string") continue;
    const p = view(doc, props[name]);
    const max = typeof p.maxLength === "number" ? Math.min(p.maxLength, LONG_TEXT) : LONG_TEXT;
    const min = typeof p.minLength === "number" ? p.minLength : 0;
    if (max < Math.max(min, 24)) continue;
    const head = [...`Grüße ünd 🌱 ${random.hex(6)} `];
    out[name] = [...head, ...Array.from({ length: max - head.length }, (_, i) => "abcdéfgh"[i % 8]!)].join("");
  }
  return out;
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
