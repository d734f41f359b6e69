import fc from "fast-check";
import type { CompiledOperation, Contract } from "../../contract/index.js";
import { locateRef } from "../../contract/index.js";
import { bodyContext, encodeBody, judge, schemaOf, verdict } from "./encoding.js";
import { mutations, refusedAt } from "./mutations.js";
import { typeOf, view } from "../../contract/index.js";
import { JSON_REQUEST, leftOut, valuesOf, type ValueContext } from "./values.js";

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

/**
 * Positive values of a schema, built to satisfy it (values.ts). The context says which
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
  const typed = jsonApiTyped(op, doc);
  return valueArb(doc, schema, 0, bodyContext(op)).map((v) => {
    const text = encodeBody(op, typed(freshen(doc, schema, v, options)));
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
  const typed = jsonApiTyped(op, doc);
  return fc.tuple(valueArb(doc, schema, 0, bodyContext(op)), fc.nat()).map(([v, pick]) => {
    const valid = typed(freshen(doc, schema, v, options));
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
  const text = encodeBody(op, jsonApiTyped(op, doc)(freshen(doc, schema, plain(schema, 0), options)));
  return verdict(op, text) ? { text } : undefined;
}

/**
 * JSON:API's resource objects name their collection's type (1.1, Creating Resources: another type
 * is 409 Conflict), which a request schema may leave a free string: a valid request sends the type
 * the operation's answers name (an enum or const of `data.type`). Other bodies pass unchanged.
 */
function jsonApiTyped(op: CompiledOperation, doc: unknown): (body: unknown) => unknown {
  if (![...(op.requestBody?.content.keys() ?? [])].some((t) => /vnd\.api\+json/i.test(t))) return (b) => b;
  const answer = [...op.responses.values()]
    .filter((r) => /^2/.test(r.status))
    .flatMap((r) => [...r.content.values()])
    .find((e) => e.hasSchema);
  const data = answer === undefined ? undefined : flatten(doc, locateRef(doc, `${answer.pointer}/schema`)?.value);
  const item = flatten(doc, (data?.properties as Schema | undefined)?.data);
  const type = flatten(doc, (item.properties as Schema | undefined)?.type);
  const named = type.const ?? (Array.isArray(type.enum) ? type.enum[0] : undefined);
  if (typeof named !== "string") return (b) => b;
  return (body) => {
    const inner = (body as { data?: unknown } | undefined)?.data;
    if (typeof inner !== "object" || inner === null || Array.isArray(inner)) return body;
    return { ...(body as object), data: { ...inner, type: named } };
  };
}
