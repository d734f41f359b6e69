import fc from "fast-check";
import { TWO_53 } from "../../contract/index.js";
import {
  allowedName,
  integerBounds,
  jsonKey,
  merge,
  NOTHING,
  typesOf,
  view,
  type Schema,
} from "../../contract/index.js";
import { patternArb, stringArb, type Charset } from "./strings.js";
import { unsatisfiableSchema } from "../../contract/index.js";

/**
 * Values of a JSON schema, built to satisfy it: every bound, length, count and required property is
 * met by construction, never by filtering (a fast-check filter that keeps failing loops forever).
 * What construction cannot promise (a pattern and lengths fast-check cannot narrow, the exclusivity
 * of `oneOf`, `not`, `if`) is left to the contract: the caller checks every candidate and skips one
 * it refuses, bounded by the run's skip budget.
 */

export interface ValueContext {
  /**
   * Which message the value goes in: a request never carries readOnly properties and an answer never
   * writeOnly ones (OAS 3.0.3 section 4.7.24, "readOnly": such a property SHOULD NOT be sent in the
   * request; a required one is required in responses only).
   */
  readonly direction: "request" | "response";
  /** Which characters strings may hold (see Charset). */
  readonly charset: Charset;
}

export const JSON_REQUEST: ValueContext = { direction: "request", charset: "json" };

interface Walk extends ValueContext {
  /** Inside a `oneOf` branch: no unknown extra properties, which could make the value match two branches. */
  readonly inUnion: boolean;
}

/** Past this depth objects carry only required properties and arrays their minimum items. */
const SHALLOW = 3;
/** Past this depth (a self-referencing schema) nothing more is built. */
const DEEPEST = 8;

/** Positive values of a schema (its $refs followed into `doc`). */
export function valuesOf(
  doc: unknown,
  schema: unknown,
  context: ValueContext = JSON_REQUEST,
  depth = 0,
): fc.Arbitrary<unknown> {
  return arb(doc, view(doc, schema), { ...context, inUnion: false }, depth);
}

function arb(doc: unknown, s: Schema, w: Walk, depth: number): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return s.enum.length === 0 ? fc.constant(null) : fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) return unionArb(doc, s, w, depth);
  if (depth > DEEPEST) return fc.constant(null);
  const types = typesOf(s) ?? inferred(s);
  if (types === undefined) return fc.jsonValue({ maxDepth: 2 });
  const choices = types.map((t) => ({ arbitrary: typedArb(doc, s, t, w, depth), weight: t === "null" ? 1 : 4 }));
  return choices.length === 0 ? fc.constant(null) : fc.oneof(...choices);
}

/** The type a schema without `type` implies by its keywords (`properties`: an object, `minLength`: a string, ...). */
function inferred(s: Schema): string[] | undefined {
  const has = (...keys: string[]): boolean => keys.some((k) => s[k] !== undefined);
  if (has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties"))
    return ["object"];
  if (has("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains")) return ["array"];
  if (has("minLength", "maxLength", "pattern")) return ["string"];
  if (has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")) return ["number"];
  return undefined;
}

function typedArb(doc: unknown, s: Schema, type: string, w: Walk, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "integer":
      return integerArb(s);
    case "number":
      return numberArb(s);
    case "string":
      return stringArb(s, w.charset);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayArb(doc, s, w, depth);
    case "object":
      return objectArb(doc, s, w, depth);
    default:
      return fc.constant(null);
  }
}

/**
 * One branch of a union at a time, the rest of the schema merged into it (a typed `oneOf` is the
 * common form). With a `discriminator`, the branch's name goes in its property: the `mapping` key
 * whose target is that branch, else the branch's component name (OAS 3.1 section 4.8.25).
 */
function unionArb(doc: unknown, s: Schema, w: Walk, depth: number): fc.Arbitrary<unknown> {
  const key = Array.isArray(s.oneOf) ? "oneOf" : "anyOf";
  const { [key]: raw, discriminator, ...rest } = s;
  const all: Schema[] = [];
  for (const branch of raw as unknown[]) {
    let merged = view(doc, { allOf: [rest, branch] });
    const name = discriminatorValue(discriminator, branch);
    if (name !== undefined && typeof (discriminator as Schema).propertyName === "string") {
      const property = (discriminator as Schema).propertyName as string;
      merged = merge({ properties: { [property]: { const: name } }, required: [property] }, merged);
    }
    // The branch as written too: a closed schema's rule on its allOf parts is lost once they are merged.
    if (merged === NOTHING || unsatisfiableSchema(doc, merged) !== undefined) continue;
    if (unsatisfiableSchema(doc, branch) !== undefined) continue;
    all.push(merged);
  }
  const distinct = key === "oneOf" && discriminator === undefined ? all.map((b) => distinguished(doc, b, all, w)) : all;
  const branches = distinct.map((b) => valuesAt(doc, b, { ...w, inUnion: w.inUnion || key === "oneOf" }, depth + 1));
  return branches.length === 0 ? fc.constant(null) : fc.oneof(...branches);
}

/**
 * A oneOf branch without a discriminator, made to carry what sets it apart: for each other branch
 * closed by `additionalProperties: false`, a property this branch declares and that one does not
 * allow becomes required, so a value of this branch never matches that one too (an object of
 * optional properties only is otherwise often `{}`, which every such branch accepts). What is not
 * set apart this way is left to the contract, which refuses a value two branches match.
 */
function distinguished(doc: unknown, branch: Schema, all: readonly Schema[], w: Walk): Schema {
  const types = typesOf(branch);
  if (types !== undefined && !types.includes("object")) return branch;
  const props = (branch.properties ?? {}) as Schema;
  const required = new Set((branch.required as string[] | undefined) ?? []);
  const usable = Object.keys(props).filter(
    (k) =>
      allowedName(branch, k) &&
      !leftOut(view(doc, props[k]), w.direction) &&
      unsatisfiableSchema(doc, props[k]) === undefined,
  );
  const added: string[] = [];
  for (const other of all) {
    if (other === branch) continue;
    const otherTypes = typesOf(other);
    if (otherTypes !== undefined && !otherTypes.includes("object")) continue;
    // Already set apart: a property this branch requires that the other does not allow.
    if ([...required, ...added].some((k) => !allowedName(other, k))) continue;
    const apart = usable.find((k) => !allowedName(other, k));
    if (apart !== undefined) added.push(apart);
  }
  return added.length === 0 ? branch : merge({ required: added }, branch);
}

/** The discriminator value naming a branch: a `mapping` key whose target is its $ref, else its component name. */
export function discriminatorValue(discriminator: unknown, branch: unknown): string | undefined {
  if (typeof discriminator !== "object" || discriminator === null) return undefined;
  const ref = (branch as Schema | undefined)?.$ref;
  if (typeof ref !== "string") return undefined;
  const name = decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1));
  const mapping = ((discriminator as Schema).mapping ?? {}) as Record<string, unknown>;
  for (const [k, target] of Object.entries(mapping)) if (target === ref || target === name) return k;
  // Only a component has a name to give; a branch elsewhere (a bundled document's `#/paths/...`,
  // whose mapping named files no longer there) keeps its property's own schema (an enum, say).
  return ref.startsWith("#/components/schemas/") ? name : undefined;
}

/**
 * The integer step a multipleOf allows: the multipleOf itself when whole, else the least whole
 * number it divides (x / 0.5 is whole for every integer x). Ajv checks `x / multipleOf` is whole.
 */
function integerStep(m: unknown): bigint {
  if (typeof m !== "number" || !(m > 0)) return 1n;
  if (Number.isInteger(m)) return BigInt(m);
  for (let n = 1; n <= 1_000; n++) if (Number.isInteger(n / m)) return BigInt(n);
  return BigInt(Math.max(1, Math.round(m)));
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? (a + b - 1n) / b : -(-a / b));
const floorDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** Integers biased to the edges: the bounds and their neighbours, 2^53 +/- 1, 0; multiples of multipleOf only. */
function integerArb(s: Schema): fc.Arbitrary<bigint> {
  let [lo, hi] = integerBounds(s);
  const step = integerStep(s.multipleOf);
  // The validator divides doubles (x / multipleOf): beyond 2^53 a multiple may not be one to it, so
  // multiples stay within the integers a double holds exactly, where the bounds allow.
  if (step > 1n && lo <= TWO_53 - 1n && hi >= 1n - TWO_53) {
    if (lo < 1n - TWO_53) lo = 1n - TWO_53;
    if (hi > TWO_53 - 1n) hi = TWO_53 - 1n;
  }
  const kLo = ceilDiv(lo, step);
  const kHi = floorDiv(hi, step);
  if (kLo > kHi) return fc.constant(lo);
  const edges = [
    kLo,
    kLo + 1n,
    kHi,
    kHi - 1n,
    0n,
    1n,
    -1n,
    ...[TWO_53 - 1n, TWO_53, TWO_53 + 1n, -TWO_53 - 1n].map((v) => v / step),
  ]
    .filter((k) => k >= kLo && k <= kHi)
    .map((k) => k * step);
  return fc.oneof(
    { arbitrary: fc.constantFrom(...edges), weight: 2 },
    { arbitrary: fc.bigInt({ min: kLo, max: kHi }).map((k) => k * step), weight: 3 },
  );
}

/** Numbers within the bounds (exclusive ones excluded), integers among them; multiples of multipleOf only. */
function numberArb(s: Schema): fc.Arbitrary<unknown> {
  const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const lo = [num(s.minimum), num(s.exclusiveMinimum)].reduce<number | undefined>(
    (a, b) => (b === undefined ? a : a === undefined ? b : Math.max(a, b)),
    undefined,
  );
  const hi = [num(s.maximum), num(s.exclusiveMaximum)].reduce<number | undefined>(
    (a, b) => (b === undefined ? a : a === undefined ? b : Math.min(a, b)),
    undefined,
  );
  const loExcluded = lo !== undefined && lo === num(s.exclusiveMinimum);
  const hiExcluded = hi !== undefined && hi === num(s.exclusiveMaximum);
  if (lo !== undefined && hi !== undefined && (lo > hi || (lo === hi && (loExcluded || hiExcluded))))
    return fc.constant(lo); // unsatisfiable: said by unsatisfiable(), refused by the contract
  const m = num(s.multipleOf);
  if (m !== undefined && m > 0) {
    const kLo = lo === undefined ? -1e6 : Math.ceil(lo / m) + (loExcluded && Number.isInteger(lo / m) ? 1 : 0);
    const kHi = hi === undefined ? 1e6 : Math.floor(hi / m) - (hiExcluded && Number.isInteger(hi / m) ? 1 : 0);
    if (kLo > kHi) return fc.constant(lo ?? 0);
    const inside = (v: number): boolean =>
      (lo === undefined || (loExcluded ? v > lo : v >= lo)) && (hi === undefined || (hiExcluded ? v < hi : v <= hi));
    // k * m is not always a multiple as Ajv computes it (0.3 / 0.1 is 2.9999999999999996): a few
    // neighbours are tried, and the rare miss is left to the contract.
    // k counted from the lower end (or about 0 when unbounded), so any range fits fast-check's 32-bit integers.
    const base = lo === undefined ? (hi === undefined ? 0 : Math.min(0, kHi)) : kLo;
    const span = Math.min(kHi - base, 2 ** 31 - 1);
    const below = Math.min(base - kLo, 2 ** 31 - 1);
    return fc.integer({ min: -below, max: span }).map((offset) => {
      const k = base + offset;
      for (let d = 0; d < 4; d++) {
        const v = Number(((k + d) * m).toPrecision(15));
        if (Number.isInteger(v / m) && inside(v)) return v;
      }
      return k * m;
    });
  }
  const doubles = fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    ...(lo === undefined ? {} : { min: lo, minExcluded: loExcluded }),
    ...(hi === undefined ? {} : { max: hi, maxExcluded: hiExcluded }),
  });
  const [ilo, ihi] = integerBounds({ ...s, format: "int32" });
  return ilo > ihi ? doubles : fc.oneof(doubles, integerArb({ ...s, format: "int32" }).map(Number));
}

/** Arrays of minItems to maxItems items; prefixItems, contains and uniqueItems (by exact-JSON equality) built in. */
function arrayArb(doc: unknown, s: Schema, w: Walk, depth: number): fc.Arbitrary<unknown[]> {
  // 2020-12 prefixItems + items; draft-07 (OpenAPI 3.0) tuple items + additionalItems.
  const prefix = (Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []) as unknown[];
  const rest = Array.isArray(s.prefixItems) || !Array.isArray(s.items) ? s.items : s.additionalItems;
  const min = typeof s.minItems === "number" ? s.minItems : 0;
  let max = typeof s.maxItems === "number" ? s.maxItems : Infinity;
  if (rest === false) max = Math.min(max, prefix.length);
  max = Math.min(max, depth > SHALLOW ? min : Math.max(min, 4));
  if (min > max) return fc.constant([]); // unsatisfiable: said by unsatisfiable(), refused by the contract
  // Items no value satisfies (a closed schema whose required property only an allOf part declares):
  // as few as the array allows, none where it may be empty.
  if (prefix.length === 0 && min === 0 && rest !== undefined && unsatisfiableSchema(doc, rest) !== undefined)
    return fc.constant([]);
  const item = (i: number): fc.Arbitrary<unknown> => valuesAt(doc, i < prefix.length ? prefix[i] : rest, w, depth + 1);
  const contains = s.contains === undefined ? undefined : valuesAt(doc, s.contains, w, depth + 1);
  if (s.uniqueItems === true && prefix.length === 0) {
    const one = view(doc, rest);
    const domain = finiteDomain(one);
    if (domain !== undefined)
      return fc.shuffledSubarray(domain, {
        minLength: Math.min(min, domain.length),
        maxLength: Math.min(max, domain.length),
      });
    // Twice the items needed, duplicates dropped: bounded, and a rare short array is left to the contract.
    return fc
      .array(item(0), { minLength: Math.min(2 * min, min + 16), maxLength: Math.max(2 * min, max) })
      .map((all) => {
        const seen = new Set<string>();
        const out = all.filter((v) => !seen.has(jsonKey(v)) && (seen.add(jsonKey(v)), true));
        return out.slice(0, Math.max(min, Math.min(max, out.length)));
      });
  }
  return fc.integer({ min, max }).chain((n) => {
    const length = contains !== undefined && n === 0 ? Math.min(1, max) : n;
    const items = Array.from({ length }, (_, i) => (i === 0 && contains !== undefined ? contains : item(i)));
    return fc.tuple(...items);
  });
}

/** Every value of a schema with few of them (an enum, a boolean), or undefined. */
function finiteDomain(s: Schema): unknown[] | undefined {
  if (s.const !== undefined) return [s.const];
  if (Array.isArray(s.enum)) return [...new Map((s.enum as unknown[]).map((v) => [jsonKey(v), v])).values()];
  const types = typesOf(s);
  if (types !== undefined && types.every((t) => t === "boolean" || t === "null"))
    return types.flatMap((t) => (t === "boolean" ? [true, false] : [null]));
  return undefined;
}

/**
 * A child's values, built the first time one is drawn: a large document's schemas are only walked
 * as deep as the values drawn from them go, not through every branch of every union up front.
 */
function valuesAt(doc: unknown, schema: unknown, w: Walk, depth: number): fc.Arbitrary<unknown> {
  let built: fc.Arbitrary<unknown> | undefined;
  return fc.constant(null).chain(() => (built ??= arb(doc, view(doc, schema), w, depth)));
}

/** What an optional property no value satisfies draws: the property is then left out. */
const OMITTED: unique symbol = Symbol("omitted");

/**
 * An optional property's values, as valuesAt builds them; when first drawn, a schema no value
 * satisfies (said by unsatisfiableSchema) draws OMITTED instead, and the object leaves it out.
 */
function optionalAt(doc: unknown, schema: unknown, w: Walk, depth: number): fc.Arbitrary<unknown> {
  let built: fc.Arbitrary<unknown> | undefined;
  return fc
    .constant(null)
    .chain(
      () =>
        (built ??=
          unsatisfiableSchema(doc, schema) !== undefined
            ? fc.constant(OMITTED)
            : arb(doc, view(doc, schema), w, depth)),
    );
}

/** Whether a property is left out in this direction (readOnly in requests, writeOnly in answers). */
export function leftOut(s: Schema, direction: ValueContext["direction"]): boolean {
  return direction === "request" ? s.readOnly === true : s.writeOnly === true;
}

/** Names for extra properties, none of them declared or matching a patternProperties pattern. */
function extraNames(declared: Schema, patterns: RegExp[], count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count && i < count + 32; i++) {
    for (const candidate of [`extra${i}`, `x_${i}`, `_${i}`, `${i}`, `Z${i}`]) {
      if (candidate in declared || patterns.some((p) => p.test(candidate))) continue;
      out.push(candidate);
      break;
    }
  }
  return out;
}

function regexps(patternProperties: Schema): RegExp[] {
  return Object.keys(patternProperties).flatMap((p) => {
    try {
      return [new RegExp(p, "u")];
    } catch {
      return [];
    }
  });
}

/**
 * Objects with every required property, optional ones now and then, and extra ones where the schema
 * allows them (from `additionalProperties` or `patternProperties` schemas), as many as
 * min/maxProperties ask; `dependentRequired` (and draft-07 `dependencies` lists) followed.
 */
function objectArb(doc: unknown, s: Schema, w: Walk, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = (s.properties ?? {}) as Schema;
  const patternProperties = (s.patternProperties ?? {}) as Schema;
  const patterns = regexps(patternProperties);
  const schemaOf = (k: string): unknown => {
    if (k in props) return props[k];
    const i = patterns.findIndex((p) => p.test(k));
    if (i >= 0) return Object.values(patternProperties)[i];
    return isSchema(s.additionalProperties) ? s.additionalProperties : {};
  };
  const omitted = (k: string): boolean => leftOut(view(doc, schemaOf(k)), w.direction);
  const required = [...new Set((s.required as string[] | undefined) ?? [])].filter((k) => !omitted(k));
  // An optional property an `additionalProperties: false` does not see (declared in an allOf part
  // beside it) is never sent.
  const optional =
    depth > SHALLOW ? [] : Object.keys(props).filter((k) => !required.includes(k) && !omitted(k) && allowedName(s, k));
  const closed = s.additionalProperties === false || s.unevaluatedProperties === false;
  const minP = typeof s.minProperties === "number" ? s.minProperties : 0;
  const maxP = typeof s.maxProperties === "number" ? s.maxProperties : Infinity;
  const lo = Math.max(minP, required.length);
  // Extras: as many as min/maxProperties need beyond the declared ones, else a couple where allowed.
  const needed = Math.max(0, lo - required.length - optional.length);
  const freeExtras = (closed && patterns.length === 0) || w.inUnion || depth > 2 ? 0 : 2;
  const extraCount = needed + freeExtras;
  // Below the top, a few optional properties at most: wide schemas nested a few levels deep would
  // otherwise make bodies of tens of thousands of values (and as long to build and judge).
  const optionalRoom = depth === 0 ? optional.length : Math.min(optional.length, 4);
  const hi = Math.max(lo, Math.min(maxP, required.length + optionalRoom + extraCount));
  const values: Record<string, fc.Arbitrary<unknown>> = {};
  for (const k of required) values[k] = valuesAt(doc, props[k] ?? schemaOf(k), w, depth + 1);
  for (const k of optional) values[k] = optionalAt(doc, props[k], w, depth + 1);
  const extras = extraArb(doc, s, w, depth, props, patterns, patternProperties, closed, extraCount);
  const dependent = dependencies(s);
  // Which properties first (names only), then values for those alone: a wide schema's unused
  // optional properties are never drawn.
  return fc
    .tuple(
      fc.shuffledSubarray(optional, { minLength: optional.length, maxLength: optional.length }),
      fc.integer({ min: lo, max: hi }),
    )
    .chain(([order, n]) => {
      const keys = new Set([...required, ...order.slice(0, Math.max(0, n - required.length))]);
      // dependentRequired: a present property brings the ones it depends on (2020-12 section 6.5.4).
      for (let changed = true; changed;) {
        changed = false;
        for (const [k, needs] of dependent)
          if (keys.has(k))
            for (const d of needs)
              if (!keys.has(d) && d in values) {
                keys.add(d);
                changed = true;
              }
      }
      const chosen = Object.fromEntries([...keys].map((k) => [k, values[k]!]));
      return fc.tuple(fc.record(chosen), extras).map(([vals, extra]) => {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(vals)) if (v !== OMITTED) out[k] = v;
        for (const [k, v] of extra) if (Object.keys(out).length < n && !(k in out)) out[k] = v;
        return out;
      });
    });
}

const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

function dependencies(s: Schema): [string, string[]][] {
  const out: [string, string[]][] = [];
  for (const source of [s.dependentRequired, s.dependencies])
    if (isSchema(source))
      for (const [k, v] of Object.entries(source)) if (Array.isArray(v)) out.push([k, v as string[]]);
  return out;
}

/** Extra properties: names from patternProperties patterns, or made-up names with additionalProperties values. */
function extraArb(
  doc: unknown,
  s: Schema,
  w: Walk,
  depth: number,
  props: Schema,
  patterns: RegExp[],
  patternProperties: Schema,
  closed: boolean,
  count: number,
): fc.Arbitrary<[string, unknown][]> {
  if (count === 0) return fc.constant([]);
  const patterned: fc.Arbitrary<[string, unknown]>[] = [];
  Object.entries(patternProperties).forEach(([pattern, schema]) => {
    const names = patternArb(pattern);
    if (names !== undefined) patterned.push(fc.tuple(names, valuesAt(doc, schema, w, depth + 1)));
  });
  // Unknown properties with any JSON value where nothing constrains them; their schema's values where one does.
  const extra = s.additionalProperties;
  const names = closed ? [] : extraNames(props, patterns, count);
  const value = isSchema(extra) ? valuesAt(doc, extra, w, depth + 1) : fc.jsonValue({ maxDepth: 2 });
  return fc
    .tuple(
      patterned.length === 0
        ? fc.constant([])
        : fc.array(fc.oneof(...patterned), { minLength: count, maxLength: count }),
      fc.array(value, { minLength: names.length, maxLength: names.length }),
    )
    .map(([fromPatterns, values]) =>
      // Patterned names first (a declared name among them is dropped), then made-up distinct ones.
      [...fromPatterns, ...values.map((v, i): [string, unknown] => [names[i]!, v])].filter(
        ([k]) => !(k in props) && allowedName(s, k),
      ),
    );
}
