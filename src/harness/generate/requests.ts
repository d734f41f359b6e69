import fc from "fast-check";
import type { CheckedRequest, CompiledOperation, CompiledParameter, Contract } from "../../contract/index.js";
import type { PlainOptions, Producer } from "../../contract/index.js";
import { checkedFormats, documentResolver, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN } from "../../contract/index.js";
import { plainValue } from "../../contract/index.js";
import { checkPrepared } from "../request-honesty.js";
import { prepareRequest } from "../prepare-request.js";
import type { Expectation, Fixture, FixtureStep } from "../case-types.js";
import { NEAR_MISS_KINDS, unpresentableSecurity } from "../credentials.js";
import { Random } from "../fresh.js";
import { typesOf, view } from "../../contract/index.js";
import { unsatisfiable, type Unsatisfiable } from "../../contract/index.js";
import { bodyContentType, bodyMediaType } from "./encoding.js";
import { bodyRulesBreakable } from "./mutations.js";
import {
  minimalBody,
  negativeBodies,
  positiveBodies,
  valueArb,
  type GeneratedBody,
  type GeneratorOptions,
} from "./bodies.js";

/**
 * Whole requests generated for any operation: parameter values by their schemas (serialised by their
 * style when the case is prepared) and a JSON body where the operation takes one. Every candidate is
 * prepared exactly as it will be sent and judged by the contract (checkRequest) before it is used: a
 * positive one must be accepted, a negative one refused, so the generator can never make the harness
 * accuse a server wrongly.
 */

type Schema = Record<string, unknown>;

export interface GeneratedRequest {
  /** Parameter values by `in:name`. */
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly body: GeneratedBody | undefined;
  /** For negatives: the one rule the request breaks. */
  readonly reason?: string;
  /** For a negative that breaks a parameter's rule: that parameter. */
  readonly brokenParameter?: CompiledParameter;
  /**
   * For the plainest request: true when ordinary values did not do and it was drawn from generated
   * ones (edges included: an int64 beyond 2^53, a long text), so it is judged as any generated positive.
   */
  readonly drawn?: boolean;
}

/**
 * Whether the generator can make requests for an operation; `why` when it cannot. Given the
 * contract's document, a request body or required parameter whose schema no value satisfies is
 * said too, with the pointer of the rule (see unsatisfiableRequest).
 */
export function generatable(
  op: CompiledOperation,
  doc?: unknown,
  contract?: Pick<Contract, "route">,
): { ok: true } | { ok: false; why: string } {
  const hidden = contract === undefined ? undefined : hiddenByFragment(contract, op);
  if (hidden !== undefined) return { ok: false, why: hidden };
  // Every alternative needs a scheme the harness cannot send, or two in one place (credentials.ts).
  const security = unpresentableSecurity(op);
  if (security !== undefined) return { ok: false, why: security };
  const body = op.requestBody;
  if (body !== undefined && body.required && bodyMediaType(op) === undefined) {
    const types = [...body.content.keys()].join(", ");
    return {
      ok: false,
      why: `its request body is ${types}; the generator makes JSON bodies, form (urlencoded, multipart) bodies with a schema, and text bodies whose schema takes strings`,
    };
  }
  const impossible = doc === undefined ? undefined : unsatisfiableRequest(op, doc);
  if (impossible !== undefined)
    return { ok: false, why: `no request satisfies its schema at ${impossible.pointer}: ${impossible.reason}` };
  return { ok: true };
}

/**
 * Why an operation cannot be reached on the wire: its path key holds a fragment (Box's
 * `/shared_items#folders`), which a URL never sends (RFC 3986 section 3.5), so its requests reach
 * another operation of the document, whose answers would be judged as this one's.
 */
export function hiddenByFragment(contract: Pick<Contract, "route">, op: CompiledOperation): string | undefined {
  const hash = op.pathTemplate.indexOf("#");
  if (hash < 0) return undefined;
  const sent = op.pathTemplate.slice(0, hash).replace(/\{[^{}]*\}/g, "x");
  const reached = contract.route(op.method, sent);
  if (reached.kind !== "found" || reached.operation === op) return undefined;
  return `its path holds a fragment, which is never sent: its requests reach ${op.method.toUpperCase()} ${reached.operation.pathTemplate} (${reached.operation.operationId})`;
}

/**
 * Why no request of an operation can be generated: the schema of the body it sends or of a required
 * parameter accepts no value. Undefined when each may be satisfied.
 */
export function unsatisfiableRequest(op: CompiledOperation, doc: unknown): Unsatisfiable | undefined {
  for (const p of op.parameters) {
    if (!p.required) continue;
    const pointer = p.content !== undefined ? `${p.content.pointer}/schema` : `${p.pointer}/schema`;
    if (p.content !== undefined && p.content.schema === undefined) continue;
    const found = unsatisfiable(doc, pointer);
    if (found !== undefined) return found;
  }
  const type = bodyMediaType(op);
  const entry = type === undefined ? undefined : op.requestBody?.content.get(type);
  return entry === undefined || !entry.hasSchema ? undefined : unsatisfiable(doc, `${entry.pointer}/schema`);
}

export const key = (p: CompiledParameter): string => `${p.in}:${p.name}`;
const schemaOfParameter = (p: CompiledParameter): unknown => p.schema ?? p.content?.schema ?? {};

/**
 * Values for a parameter, by its schema, with what its place can carry: a URL (path, query) takes
 * any well-formed Unicode (UTF-8, percent-encoded: RFC 3986 section 2.5), no lone surrogate; a
 * header or cookie visible ASCII (RFC 9110 section 5.5). A path segment is never empty, and an array
 * in a query is never empty unless `allowEmptyValue` says so: form style writes `[]` as `name=`,
 * which reads back as one empty value (OAS 3.0.3 section 4.7.12.4). Strings stay short unless the
 * schema asks for long ones: a URL or a header has a practical limit of some 8,000 characters.
 */
function parameterArb(doc: unknown, p: CompiledParameter): fc.Arbitrary<unknown> {
  const s = view(doc, schemaOfParameter(p) ?? {});
  const types = typesOf(s);
  const extra: Schema = {};
  if (types?.includes("string") && s.enum === undefined && s.const === undefined) {
    const min = Math.max(typeof s.minLength === "number" ? s.minLength : 0, p.in === "path" ? 1 : 0);
    extra.minLength = min;
    extra.maxLength = Math.max(min, Math.min(typeof s.maxLength === "number" ? s.maxLength : 40, 40));
  }
  if (types?.includes("array") && !p.allowEmptyValue)
    extra.minItems = Math.max(1, typeof s.minItems === "number" ? s.minItems : 0);
  const charset = p.in === "header" || p.in === "cookie" ? "header" : "text";
  return valueArb(doc, { allOf: [s, extra] }, 0, { direction: "request", charset });
}

/**
 * An ordinary value for a schema, what any server must take (the plainest request): the contract's
 * plain value without the document's examples (one may break its own schema) but with its defaults,
 * an array with one item (an empty one in a query is sent as `?cid=`, which allowEmptyValue, false by
 * default, does not promise to accept), and text where nothing tells the type.
 */
export const plainRequestValue = (schema: unknown, doc: unknown): unknown =>
  plainValue(schema, documentResolver(doc), REQUEST_PLAIN);

const REQUEST_PLAIN: PlainOptions = { examples: false, defaults: true, fill: 1, untyped: "string" };

/** Values of the wrong kind for a parameter, each with the rule it breaks; checked by the contract later. */
function parameterMutations(p: CompiledParameter): { value: unknown; reason: string }[] {
  const s = (schemaOfParameter(p) ?? {}) as Schema;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  const at = `${p.in} parameter ${p.name}`;
  const out: { value: unknown; reason: string }[] = [];
  if (p.required && p.in !== "path") out.push({ value: undefined, reason: `${at}: required` });
  if (type === "integer" || type === "number" || type === "boolean")
    out.push({ value: "not-a-number", reason: `${at}: type ${type}` });
  if (type === "integer") {
    out.push({ value: "0.5", reason: `${at}: type integer (sent 0.5)` });
    const [lo, hi] = s.format === "int32" ? [INT32_MIN, INT32_MAX] : [INT64_MIN, INT64_MAX];
    const max = typeof s.maximum === "number" ? BigInt(Math.floor(s.maximum)) : hi;
    const min = typeof s.minimum === "number" ? BigInt(Math.ceil(s.minimum)) : lo;
    out.push({ value: max + 1n, reason: `${at}: above its maximum` });
    out.push({ value: min - 1n, reason: `${at}: below its minimum` });
  }
  if (Array.isArray(s.enum)) out.push({ value: "not-in-the-enum", reason: `${at}: enum` });
  // Only a format the contract checks can be broken: another (Airflow's "path") is an annotation.
  if (type === "string" && typeof s.format === "string" && checkedFormats().has(s.format))
    out.push({ value: "@not a value@", reason: `${at}: format ${s.format}` });
  // A length past what a URL or header carries is no test of the rule (maxLength: 2147483647 exists).
  if (type === "string" && typeof s.maxLength === "number" && s.maxLength < 4_096)
    out.push({ value: "x".repeat(s.maxLength + 1), reason: `${at}: maxLength` });
  return out;
}

/**
 * Whether any request can break a rule of the operation that the generator knows how to break: a body
 * with a required property or a type to break (see bodyRulesBreakable; without the document, any
 * body counts), or a parameter with a type, format, range, enum, length or presence to break. An
 * operation with none (its parameters and form fields take any string) gets no negative case, not
 * one that can never be built.
 */
export function negativesPossible(op: CompiledOperation, doc?: unknown): boolean {
  const body = doc === undefined ? bodyMediaType(op) !== undefined : bodyRulesBreakable(op, doc);
  return body || op.parameters.some((p) => parameterMutations(p).length > 0);
}

const SAMPLE_SECRETS = { token: "sample-token", wrongToken: "sample-wrong" };

/** The generated request as the one-step fixture the run judges; `expect` is its expectation. */
export function requestFixture(
  op: CompiledOperation,
  id: string,
  description: string,
  request: GeneratedRequest,
  expect: Expectation,
): Fixture {
  const type = bodyContentType(op);
  return {
    id,
    description,
    operationId: op.operationId,
    file: "(generated)",
    operation: op,
    steps: [{ request: stepRequest(request, type), expect }],
  };
}

/** A generated request as a fixture step's request. Bodies go as bytes: nothing in them is taken for a placeholder. */
function stepRequest(request: GeneratedRequest, type: string): FixtureStep["request"] {
  const parameters = Object.fromEntries(Object.entries(request.parameters).filter(([, v]) => v !== undefined));
  return {
    parameters,
    ...(request.body === undefined
      ? {}
      : {
          rawBodyBase64: Buffer.from(request.body.text, "utf8").toString("base64"),
          headers: { "content-type": type },
        }),
  };
}

/** What the contract says of a generated request, prepared exactly as the run will send it. */
function problemsOf(op: CompiledOperation, request: GeneratedRequest): string[] | undefined {
  const checked = verdictOf(op, request);
  if (checked === undefined) return undefined;
  return checked.ok ? [] : [checked.detail];
}

/**
 * The contract's verdict on a generated request, prepared exactly as it will be sent; undefined when
 * the wire cannot carry it as the contract means it (a header that is not a field value, a path over
 * 8,000 characters, or a path whose segments a URL parser would rewrite or that no longer matches
 * the operation's template: an empty segment, `.` or `..`).
 */
function verdictOf(op: CompiledOperation, request: GeneratedRequest): CheckedRequest | undefined {
  const fixture = requestFixture(op, "candidate", "", request, { kind: "valid" });
  try {
    const prepared = prepareRequest(fixture, 0, new Map(), new Random(0n), SAMPLE_SECRETS);
    if (prepared.path.length > 8_000) return undefined;
    const segments = prepared.pathOnly.split("/").slice(1);
    const templateSegments = op.pathTemplate.split("/").slice(1);
    if (segments.length !== templateSegments.length) return undefined;
    if (segments.some((s, i) => (s === "" && templateSegments[i] !== "") || s === "." || s === "..")) return undefined;
    if (op.matchPath(prepared.pathOnly) === undefined) return undefined;
    return checkPrepared(op, prepared);
  } catch {
    return undefined; // a value the wire cannot carry: never sent
  }
}

/** Parameter values of a positive request: every required one, optional ones now and then. */
function parametersArb(doc: unknown, op: CompiledOperation): fc.Arbitrary<Record<string, unknown>> {
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.parameters)
    record[key(p)] = p.required ? parameterArb(doc, p) : fc.option(parameterArb(doc, p), { nil: undefined });
  return fc.record(record);
}

/** Positive requests; a candidate the contract refuses comes out as null and is never sent. */
export function positiveRequests(
  contract: Contract,
  op: CompiledOperation,
  options: GeneratorOptions,
): fc.Arbitrary<GeneratedRequest | null> {
  const doc = contract.document;
  const bodies = bodyMediaType(op) === undefined ? fc.constant(undefined) : positiveBodies(contract, op, doc, options);
  if (op.parameters.length === 0)
    // No parameters: the body's own sequence, so a body-only contract generates as it always did.
    return bodies.map((body) => (body === null ? null : { parameters: {}, body }));
  return fc.tuple(parametersArb(doc, op), bodies).map(([parameters, body]) => {
    if (body === null) return null;
    const request = { parameters, body };
    return problemsOf(op, request)?.length === 0 ? request : null;
  });
}

/** Negative requests, each breaking exactly one rule (a parameter or the body); a candidate the contract accepts is null. */
export function negativeRequests(
  contract: Contract,
  op: CompiledOperation,
  options: GeneratorOptions,
): fc.Arbitrary<GeneratedRequest | null> {
  const doc = contract.document;
  const hasBody = bodyMediaType(op) !== undefined;
  const validBody = hasBody ? positiveBodies(contract, op, doc, options) : fc.constant(undefined);
  const bodyNegatives = hasBody
    ? fc
        .tuple(parametersArb(doc, op), negativeBodies(contract, op, doc, options))
        .map(([parameters, body]) => (body === null ? null : { parameters, body, reason: body.reason }))
    : undefined;
  if (op.parameters.length === 0) {
    if (bodyNegatives === undefined) return fc.constant(null);
    return negativeBodies(contract, op, doc, options).map((body) =>
      body === null ? null : { parameters: {}, body, reason: body.reason },
    );
  }
  const parameterNegatives = fc.tuple(parametersArb(doc, op), validBody, fc.nat()).map(([parameters, body, pick]) => {
    if (body === null) return null;
    // From an accepted request, one parameter broken: the refusal must be that parameter's, so the
    // request stays refused whatever else is swapped in (a real id from a create, say).
    if (problemsOf(op, { parameters, body })?.length !== 0) return null;
    const all = op.parameters.flatMap((p) => parameterMutations(p).map((m) => ({ p, ...m })));
    if (all.length === 0) return null;
    const m = all[pick % all.length]!;
    const request = {
      parameters: { ...parameters, [key(m.p)]: m.value },
      body,
      reason: m.reason,
      brokenParameter: m.p,
    };
    const checked = verdictOf(op, request);
    return checked !== undefined && !checked.ok && checked.reason === "parameter" && checked.parameter === m.p
      ? request
      : null;
  });
  const checkedBodyNegatives = bodyNegatives?.map((r) => {
    if (r === null) return null;
    // Parameters are judged first: a refusal for a body reason means they were all acceptable.
    const checked = verdictOf(op, r);
    return checked !== undefined && !checked.ok && checked.reason !== "parameter" ? r : null;
  });
  return checkedBodyNegatives === undefined ? parameterNegatives : fc.oneof(parameterNegatives, checkedBodyNegatives);
}

/** The plainest request: required parameters with ordinary values, the plainest body; undefined when not acceptable. */
export function minimalRequest(
  contract: Contract,
  op: CompiledOperation,
  options: GeneratorOptions,
): GeneratedRequest | undefined {
  const doc = contract.document;
  // The plainest body, else the first acceptable of a few generated ones (an enum of marks, say).
  const plainBody = bodyMediaType(op) === undefined ? undefined : minimalBody(op, doc, options);
  const body =
    bodyMediaType(op) === undefined
      ? undefined
      : (plainBody ??
        fc
          .sample(positiveBodies(contract, op, doc, options), { numRuns: 50, seed: 7 })
          .find((b): b is GeneratedBody => b !== null));
  if (bodyMediaType(op) !== undefined && body === undefined && op.requestBody?.required === true) return undefined;
  const drawnBody = body !== undefined && body !== plainBody;
  const parameters: Record<string, unknown> = {};
  for (const p of op.parameters) if (p.required) parameters[key(p)] = plainRequestValue(schemaOfParameter(p), doc);
  const request = { parameters, body, ...(drawnBody ? { drawn: true } : {}) };
  if (problemsOf(op, request)?.length === 0) return request;
  // Ordinary values did not do: the first acceptable of a few generated ones, drawn from a fixed seed.
  const candidates = fc.sample(parametersArb(doc, op), { numRuns: 50, seed: 7 });
  for (const c of candidates) {
    const r = { parameters: Object.fromEntries(Object.entries(c).filter(([k]) => k in parameters)), body, drawn: true };
    if (problemsOf(op, r)?.length === 0) return r;
  }
  return undefined;
}

/**
 * A two-step case: the producer makes a resource with its plainest request, then the operation is
 * called with that resource's id (`$from`) and its own plainest other values. Both must succeed.
 */
export function chainFixture(
  contract: Contract,
  op: CompiledOperation,
  producer: Producer,
  options: GeneratorOptions,
  id: string,
  second?: { readonly request: GeneratedRequest; readonly expect: Expectation; readonly description: string },
): Fixture | undefined {
  const first = minimalRequest(contract, producer.operation, options);
  const then = second?.request ?? minimalRequest(contract, op, options);
  if (first === undefined || then === undefined) return undefined;
  // An answer without the id (one the contract does not require) leaves the made-up one in place.
  const madeUp =
    then.parameters[key(producer.parameter)] ??
    plainRequestValue(schemaOfParameter(producer.parameter), contract.document);
  const from = { $from: producer.expression, step: 0, otherwise: madeUp };
  const type = (o: CompiledOperation) => bodyContentType(o);
  return {
    id,
    description:
      second?.description ??
      `${producer.operation.operationId} makes a resource, then ${op.operationId} is called with its ${producer.parameter.name} (${producer.expression}; a made-up one, 404 accepted, when its answer holds none)`,
    operationId: op.operationId,
    file: "(generated)",
    operation: op,
    stepOperations: [producer.operation, op],
    steps: [
      {
        operation: producer.operation.operationId,
        request: stepRequest(first, type(producer.operation)),
        // Under a parent the harness made up (`/products/{productId}/configs`), 404 or 410 is an
        // answer the server may give: that parent may not exist.
        expect: producer.operation.parameters.some((p) => p.in === "path")
          ? { kind: "valid", missingOk: true }
          : { kind: "valid" },
      },
      {
        request: stepRequest(
          { ...then, parameters: { ...then.parameters, [key(producer.parameter)]: from } },
          type(op),
        ),
        expect: second?.expect ?? { kind: "valid" },
      },
    ],
  };
}

/** The credentials an auth case sends, one step each: none, a made-up one, and near misses of the valid one. */
export const AUTH_CASE_CREDENTIALS = ["none", "wrong", ...NEAR_MISS_KINDS] as const;

/**
 * For an operation that requires credentials: its plainest request sent without credentials, with
 * wrong ones and with near misses of the valid ones (a character added, changed or removed, the case
 * changed). No step may succeed: servers that compare tokens by prefix, without case or in part exist.
 */
export function authFixture(op: CompiledOperation, request: GeneratedRequest, id: string): Fixture {
  const type = bodyContentType(op);
  return {
    id,
    description: `${op.operationId} without credentials, with wrong ones and with near misses of the valid ones: none may succeed`,
    operationId: op.operationId,
    file: "(generated)",
    operation: op,
    steps: AUTH_CASE_CREDENTIALS.map((credentials) => ({
      request: { ...stepRequest(request, type), credentials },
      expect: { kind: "unauthorised" as const },
    })),
  };
}
