import fc from "fast-check";
import type { CheckedRequest, CompiledOperation } from "../../contract/index.js";
import { INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN } from "../../contract/index.js";
import { bodyContext, bodyKind, bodyMediaType, encodeBody, judge, schemaOf, verdict } from "./encoding.js";
import { typeOf, typesOf, view, type Schema } from "../../contract/index.js";
import { leftOut, valuesOf } from "./values.js";

/**
 * The negative generator's single-rule mutations of a valid body (a required property left out, a
 * value of a wrong type or out of its format's range), whether an operation's body has a rule they can
 * break at all, and whether the contract refuses a mutated body for exactly the rule broken.
 */

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
    const types = typesOf(view(doc, b));
    if (types === undefined) return undefined;
    for (const t of types) all.add(t);
  }
  return [...all];
}

/** A single-rule mutation: the body, why it breaks, and where in the body the refusal must be. */
export interface Mutation {
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
export function mutations(doc: unknown, schema: unknown, body: Record<string, unknown>): Mutation[] {
  const s = view(doc, schema);
  const out: Mutation[] = [];
  const props = (s.properties as Schema) ?? {};
  const readOnly = (k: string): boolean => k in props && leftOut(view(doc, props[k]), "request");
  for (const r of (s.required as string[]) ?? []) {
    if (readOnly(r) || !(r in body)) continue;
    const { [r]: _dropped, ...rest } = body;
    out.push({ body: rest, reason: `body/${r}: required`, at: `body/${r}`, keyword: "required" });
  }
  for (const [k, raw] of Object.entries(props)) {
    if (readOnly(k)) continue;
    const p = view(doc, raw);
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
  const s = view(doc, schema);
  const skeleton = Object.fromEntries(((s.required as string[] | undefined) ?? []).map((r) => [r, null]));
  const all = mutations(doc, schema, skeleton);
  if (kind === "json") return all.length > 0;
  if (all.some((m) => m.keyword === "required")) return true;
  if (all.length === 0) return false;
  // Budgeted by count, like the run: the first accepted body is the base, and at most FORM_PROBES of
  // its mutations are judged (a form of hundreds of text fields, Twilio's, otherwise cost minutes).
  for (const v of fc.sample(valuesOf(doc, schema, bodyContext(op), 0), { numRuns: 10, seed: 1 })) {
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
