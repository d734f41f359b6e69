// The mock engine's answers: a documented response filled with a stored item, an example or a plain
// value, and every answer judged by the contract (checkResponse) before it is sent. An error answer
// is the kit's error (status, message, code) written in the shape the contract documents for that
// status: Plant Store's `{error, message}`, RFC 9457 problem details, or any object schema.

import type { CompiledOperation, CompiledResponse, Contract, MediaTypeEntry, Resolve } from "../contract/portable.js";
import {
  checkResponse,
  checkResponseValue,
  documentResolver,
  followRefs,
  locateRef,
  propertiesOf,
  unsatisfiable,
  withAllOfParts,
} from "../contract/portable.js";
import {
  ERROR_ANSWERS,
  errorAnswer,
  REASON_HEADER,
  reasonValue,
  type ErrorAnswerCode,
  type ErrorExtras,
  type WireResponse,
} from "./error-answers.js";
import { ExactLiteral, plainValue, readsBackAsItself, writeJson, type PlainOptions } from "../contract/portable.js";
import { projectorOf, type Projector } from "./engine-values.js";

type Json = Record<string, unknown>;

/** What the answers need of the contract, made once per engine. */
export interface AnswerContext {
  readonly contract: Contract;
  readonly resolve: Resolve;
}

/**
 * What the answers need of the contract: the contract, and its document's one resolver (every `$ref`
 * followed once: the document does not change once loaded).
 */
export function answerContext(contract: Contract): AnswerContext {
  return { contract, resolve: documentResolver(contract.document) };
}

const encoder = new TextEncoder();

/** The success statuses' keys in `responses`, made once rather than on every answer. */
const STATUS_KEYS: Readonly<Record<number, string>> = { 200: "200", 201: "201", 204: "204" };

/** The documented success status for what the operation did: 201 for a create, 204 for a delete, where documented. */
export function successStatus(op: CompiledOperation, preferred: readonly number[] = [200]): number {
  for (const s of preferred) if (op.responses.has(STATUS_KEYS[s] ?? String(s))) return s;
  const codes = [...op.responses.keys()]
    .filter((k) => /^[23]\d\d$/.test(k))
    .map(Number)
    .sort((a, b) => a - b);
  if (codes.length > 0) return codes[0]!;
  if (op.responses.has("2XX")) return preferred[0] ?? 200;
  return preferred[0] ?? 200;
}

/** The JSON entry of a response (application/json first), else its first entry; undefined without content. */
function entryOf(response: CompiledResponse): MediaTypeEntry | undefined {
  const entries = [...response.content.values()];
  return (
    entries.find((e) => e.mediaType.toLowerCase() === "application/json") ??
    entries.find((e) => /json/i.test(e.mediaType)) ??
    entries[0]
  );
}

/** Each media type's own example, found once (the example of a name is sought each time). */
const examples = new WeakMap<MediaTypeEntry, { value: unknown } | undefined>();

/** The example a media type documents: `example`, else the first of `examples`, else the schema's. */
function exampleOf(ctx: AnswerContext, entry: MediaTypeEntry, name?: string): { value: unknown } | undefined {
  if (name !== undefined) return findExample(ctx, entry, name);
  if (!examples.has(entry)) examples.set(entry, findExample(ctx, entry));
  return examples.get(entry);
}

function findExample(ctx: AnswerContext, entry: MediaTypeEntry, name?: string): { value: unknown } | undefined {
  const media = (locateRef(ctx.contract.document, entry.pointer)?.value ?? {}) as Json;
  const named = name === undefined ? undefined : ((media.examples ?? {}) as Json)[name];
  if (named !== undefined) {
    const ex = (followRefs(named, ctx.resolve) ?? {}) as Json;
    if (ex.value !== undefined) return { value: ex.value };
  }
  if (media.example !== undefined) return { value: media.example };
  for (const raw of Object.values((media.examples ?? {}) as Json)) {
    const ex = (followRefs(raw, ctx.resolve) ?? {}) as Json;
    if (ex.value !== undefined) return { value: ex.value };
  }
  const schema = followRefs(media.schema, ctx.resolve) as Json | undefined;
  if (schema?.example !== undefined) return { value: schema.example };
  return undefined;
}

/** A media type's schema, where it has one. */
function schemaOf(ctx: AnswerContext, entry: MediaTypeEntry): unknown {
  return entry.hasSchema ? locateRef(ctx.contract.document, `${entry.pointer}/schema`)?.value : undefined;
}

/**
 * A value (or each item of a list) with the required properties it lacks filled, nested objects too: from the example at the
 * same place where it has one (the document's own words), else with a plain value. Each schema's
 * completion is made once (per resolver), then applied by value on every answer.
 */
export function complete(value: unknown, schema: unknown, resolve: Resolve, example?: unknown, depth = 0): unknown {
  return completerOf(schema, resolve)(value, example, depth);
}

/** A schema's completion, applied to a value with the example at its place, at a depth (see complete). */
type Completer = (value: unknown, example: unknown, depth: number) => unknown;

const leaveAsIs: Completer = (value) => value;
const completers = new WeakMap<Resolve, WeakMap<object, Completer>>();

/** The completion of a schema, made when first asked for (a schema may name itself: made lazily inside). */
function completerOf(schema: unknown, resolve: Resolve): Completer {
  // A schema that is no object (`true`, none) declares no properties and no items: nothing to fill.
  if (typeof schema !== "object" || schema === null) return leaveAsIs;
  let bySchema = completers.get(resolve);
  if (bySchema === undefined) completers.set(resolve, (bySchema = new WeakMap()));
  let made = bySchema.get(schema);
  if (made === undefined) bySchema.set(schema, (made = madeCompleter(schema, resolve)));
  return made;
}

/** A property a completion looks at: declared, with its schema; whether it is required. */
interface CompletedField {
  readonly name: string;
  readonly schema: unknown;
  readonly required: boolean;
  complete?: Completer;
}

/** An example that shows nothing (none, or not an object). */
const NO_EXAMPLE: Readonly<Json> = Object.freeze(Object.create(null) as Json);

function madeCompleter(schema: object, resolve: Resolve): Completer {
  const s = followRefs(schema, resolve) as Json | undefined;
  let items: Completer | undefined;
  let fields: CompletedField[] | undefined;
  return (value, example, depth) => {
    if (typeof value !== "object" || value === null || value instanceof ExactLiteral || depth > 12) return value;
    // A list's items each completed by the items' schema (and the example's first item).
    if (Array.isArray(value)) {
      if (s?.items === undefined) return value;
      const each = (items ??= completerOf(s.items, resolve));
      const shown = Array.isArray(example) ? (example[0] as unknown) : undefined;
      return value.map((v) => each(v, shown, depth + 1));
    }
    fields ??= completedFields(s, resolve);
    const shown =
      typeof example === "object" && example !== null && !Array.isArray(example) ? (example as Json) : NO_EXAMPLE;
    // Copied only where something is filled: an item that lacks nothing is answered as it is.
    let out: Json | undefined;
    for (const f of fields)
      if (Object.hasOwn(value, f.name)) {
        const v = (value as Json)[f.name];
        // Only an object or a list has anything to fill.
        if (typeof v !== "object" || v === null) continue;
        const here = Object.hasOwn(shown, f.name) ? shown[f.name] : undefined;
        const filled = (f.complete ??= completerOf(f.schema, resolve))(v, here, depth + 1);
        if (filled !== v) (out ??= { ...(value as Json) })[f.name] = filled;
      } else if (f.required) {
        out ??= { ...(value as Json) };
        const filled = Object.hasOwn(shown, f.name) ? shown[f.name] : plainValue(f.schema, resolve);
        // A member named `__proto__` is defined, so that it is a member and not the copy's prototype.
        if (f.name === "__proto__") ownMember(out, f.name, filled);
        else out[f.name] = filled;
      }
    return out ?? value;
  };
}

/** Defines a member of an object as an assignment would, `__proto__` included. */
function ownMember(target: Json, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

function completedFields(schema: unknown, resolve: Resolve): CompletedField[] {
  const { properties, required } = propertiesOf(schema, resolve);
  return [...properties].map(([name, sub]) => ({ name, schema: sub, required: required.has(name) }));
}

/** The documented headers of a response, each required one given a plain value by its schema. */
function requiredHeaders(ctx: AnswerContext, response: CompiledResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, h] of response.headers) {
    if (!h.required || name === "content-type") continue;
    const v = plainValue(h.schema, ctx.resolve);
    out[name] = typeof v === "string" ? v : writeJson(v);
  }
  return out;
}

/** An answer written as text, judged by the contract as the text it is. */
function judged(op: CompiledOperation, answer: WireResponse): boolean {
  return checkResponse(op, { status: answer.status, headers: answer.headers, body: encoder.encode(answer.body) }).ok;
}

/**
 * An answer whose body is `value` written as JSON, judged by the contract as that text would be,
 * by value where writing and reading it back could not change it (checkResponseValue).
 */
function judgedValue(
  op: CompiledOperation,
  status: number,
  headers: Readonly<Record<string, string>>,
  value: unknown,
): boolean {
  return checkResponseValue(op, { status, headers, value }).ok;
}

/**
 * No answer its contract accepts can be made for an operation's status (its schema cannot be
 * satisfied). Thrown by documentedAnswer, as Prism throws its generator's typed errors; the engine's
 * `handle` answers it 500 PS_MOCK_UNANSWERABLE (engine.ts `failureAnswer`), the start-up report reads it.
 */
export class Unanswerable extends Error {
  constructor(
    readonly operationId: string,
    readonly status: number,
    readonly why: string,
  ) {
    super(`${operationId} ${status}: ${why}`);
    this.name = "Unanswerable";
  }
}

/**
 * A documented answer of an operation: `value` (a stored item, already placed where the answer keeps
 * it) projected onto the schema, what it lacks from the example, else plainly. Judged by the
 * contract; where the item cannot be whole, the example (the one named, if it is one), else a plain
 * value, with as much of the item laid over it as the contract accepts. Where nothing is accepted,
 * throws Unanswerable.
 */
export function documentedAnswer(
  ctx: AnswerContext,
  op: CompiledOperation,
  status: number,
  value: unknown,
  headers: Readonly<Record<string, string>> = NO_HEADERS,
  exampleName?: string,
): WireResponse {
  const response = op.responseFor(status);
  const plan = response === undefined ? NO_PLAN : planOf(ctx, response);
  const more = hasAny(headers);
  // 204 and 304 carry no content, whatever the document says (RFC 9110 sections 15.3.5, 15.4.5).
  if (plan.entry === undefined || status === 204 || status === 304)
    return { status, headers: more ? { ...plan.documented, ...headers } : plan.documented, body: "" };
  const { entry, schema, json } = plan;
  const answerHeaders = more ? joined(plan.documented, headers, plan.contentType) : plan.headers;
  const example = exampleOf(ctx, entry, exampleName);
  if (value !== undefined) {
    // The item whole, what it lacks from the example, then plainly: the example may break its schema.
    // (Without closures, the schema's projection and completion kept by the plan: every answer of
    // the mock comes through here.)
    const stored = (plan.project ??= projectorOf(schema, ctx.resolve))(value, 0);
    const completed = (plan.complete ??= completerOf(schema, ctx.resolve));
    if (example !== undefined) {
      const answer = acceptedAnswer(op, status, answerHeaders, json, completed(stored, example.value, 0));
      if (answer !== undefined) return answer;
    }
    const answer = acceptedAnswer(op, status, answerHeaders, json, completed(stored, undefined, 0));
    if (answer !== undefined) return answer;
    return laidAnswer(ctx, op, status, answerHeaders, plan, example, stored);
  }
  return laidAnswer(ctx, op, status, answerHeaders, plan, example, undefined);
}

/** An answer whose body is `v`, written as JSON where the answer is JSON (or `v` is no text). */
function writtenAnswer(
  status: number,
  headers: Readonly<Record<string, string>>,
  json: boolean,
  v: unknown,
): WireResponse {
  return { status, headers, body: json || typeof v !== "string" ? writeJson(v) : v };
}

/**
 * The answer of `v` where the contract accepts it, else undefined. A JSON one is judged by value and
 * written once, the one sent; whether it reads back as itself is found once, for both.
 */
function acceptedAnswer(
  op: CompiledOperation,
  status: number,
  headers: Readonly<Record<string, string>>,
  json: boolean,
  v: unknown,
): WireResponse | undefined {
  if (!json) {
    const answer = writtenAnswer(status, headers, json, v);
    return judged(op, answer) ? answer : undefined;
  }
  const readsBack = readsBackAsItself(v);
  if (!checkResponseValue(op, { status, headers, value: v, readsBack }).ok) return undefined;
  return { status, headers, body: writeJson(v, readsBack) };
}

/** Whether the contract accepts an answer of `v`: a JSON one by value before it is written (once, the one sent); another as its text. */
function accepted(
  op: CompiledOperation,
  status: number,
  headers: Readonly<Record<string, string>>,
  json: boolean,
  v: unknown,
): boolean {
  return json ? judgedValue(op, status, headers, v) : judged(op, writtenAnswer(status, headers, json, v));
}

/**
 * Where the item cannot be answered whole: an answer the contract accepts (the example, else a plain
 * value), with as much of the item laid over it as keeps it accepted: the item's id and values
 * wherever the schema takes them. Throws Unanswerable where nothing is accepted.
 */
function laidAnswer(
  ctx: AnswerContext,
  op: CompiledOperation,
  status: number,
  answerHeaders: Readonly<Record<string, string>>,
  plan: AnswerPlan,
  example: { value: unknown } | undefined,
  stored: unknown,
): WireResponse {
  const { entry, schema, json } = plan;
  const accepts = (v: unknown): boolean => accepted(op, status, answerHeaders, json, v);
  const bases: (() => unknown)[] = example === undefined ? [] : [() => example.value];
  // Plain values of the schema, then of each branch of a top oneOf/anyOf: the first branch's value
  // may match a later branch too (one extends another), which a oneOf refuses.
  const top = followRefs(schema, ctx.resolve) as Json | undefined;
  for (const shape of [schema, ...[...asArray(top?.oneOf), ...asArray(top?.anyOf)]])
    for (const mode of PLAIN_MODES) bases.push(() => plainValue(shape, ctx.resolve, mode));
  for (const make of bases) {
    const base = make();
    if (accepts(base))
      return writtenAnswer(
        status,
        answerHeaders,
        json,
        stored === undefined ? base : laidOver(base, stored, accepts, schema, ctx.resolve),
      );
  }
  throw new Unanswerable(op.operationId, status, unmade(ctx, `${entry!.pointer}/schema`));
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Documented headers, then the answer's own, then its Content-Type, as one object: copied member by
 * member (on Node 20 a spread of a header object costs more than the rest of an answer).
 */
function joined(
  documented: Readonly<Record<string, string>>,
  own: Readonly<Record<string, string>>,
  contentType: string,
): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const k in documented) out[k] = documented[k] as string;
  for (const k in own) out[k] = own[k] as string;
  out["content-type"] = contentType;
  return out;
}

/** Whether an object has a member of its own. */
function hasAny(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

/**
 * How a documented response is answered, found once: its entry (JSON first) and schema, the
 * Content-Type written, whether the body is written as JSON, its required headers with their plain
 * values, and those with the Content-Type. The header objects are shared by every answer: frozen.
 */
interface AnswerPlan {
  readonly entry: MediaTypeEntry | undefined;
  readonly schema: unknown;
  readonly contentType: string;
  readonly json: boolean;
  readonly documented: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  /** The schema's projection and completion, made when first used. */
  project: Projector | undefined;
  complete: Completer | undefined;
}

const NO_PLAN: AnswerPlan = {
  entry: undefined,
  schema: undefined,
  contentType: "application/json",
  json: true,
  documented: NO_HEADERS,
  headers: NO_HEADERS,
  project: undefined,
  complete: undefined,
};
const plans = new WeakMap<CompiledResponse, AnswerPlan>();

function planOf(ctx: AnswerContext, response: CompiledResponse): AnswerPlan {
  let plan = plans.get(response);
  if (plan === undefined) {
    const entry = entryOf(response);
    const documented = Object.freeze(requiredHeaders(ctx, response));
    const contentType = entry === undefined || entry.mediaType.includes("*") ? "application/json" : entry.mediaType;
    plan = {
      entry,
      schema: entry === undefined ? undefined : schemaOf(ctx, entry),
      contentType,
      json: /json/i.test(contentType),
      documented,
      headers: Object.freeze({ ...documented, "content-type": contentType }),
      project: undefined,
      complete: undefined,
    };
    plans.set(response, plan);
  }
  return plan;
}

/** Why no value was made for a schema: the rule no value can keep where the contract finds one, else that none was found. */
function unmade(ctx: AnswerContext, pointer: string): string {
  const fault = unsatisfiable(ctx.contract.document, pointer, "response");
  return fault === undefined
    ? `no value the schema at ${pointer} accepts could be made`
    : `the schema at ${pointer} accepts no value: ${fault.reason} (${fault.pointer})`;
}

/** Plain values tried in turn: with examples or without, then fuller. */
const PLAIN_MODES: readonly PlainOptions[] = [
  { examples: true, fill: 0 },
  { examples: false, fill: 0 },
  { examples: true, fill: 1 },
  { examples: false, fill: 1 },
  { examples: true, fill: 2 },
  { examples: false, fill: 2 },
];

/** Names an error body gives its parts, compared without case. */
const STATUS_NAMES = new Set(["status", "statuscode", "error", "errorcode", "httpstatus", "code"]);
const MESSAGE_NAMES = new Set(["message", "detail", "details", "errormessage", "description", "errordescription"]);
const TITLE_NAMES = new Set(["title", "error", "reason", "statustext"]);

const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
};

/** What an error answer carries besides its code and detail. */
/**
 * Statuses that say what a table status says, for an operation that documents one and not the
 * table's: an invalid body or parameter is 422 where only 422 is documented (RFC 9110 15.5.21, as
 * GitHub and Laravel answer), a duplicate 422 where no 409 is (GitHub's `already_exists`), an item
 * gone 410 where no 404 is (15.5.11), missing credentials 403 where no 401 is.
 */
const SAME_MEANING: Partial<Record<ErrorAnswerCode, readonly number[]>> = {
  PS_BODY_INVALID: [422],
  PS_BODY_TOO_DEEP: [422],
  PS_PARAMETER_INVALID: [422],
  PS_BODY_MISSING: [422],
  PS_DUPLICATE_ID: [422],
  PS_PATCH_CONFLICT: [422, 400],
  PS_ITEM_NOT_FOUND: [410],
  PS_UNAUTHORIZED: [403],
};

/** The status of a refusal: the table's where the operation documents it (or documents nothing that means it), else its documented equivalent. */
function documentedStatus(op: CompiledOperation | undefined, code: ErrorAnswerCode): number {
  const status = ERROR_ANSWERS[code].status;
  if (op === undefined || op.responses.has(String(status))) return status;
  return SAME_MEANING[code]?.find((s) => op.responses.has(String(s))) ?? status;
}

/**
 * The kit's error for a request the engine refuses (a code of the wire-error table and what exactly
 * was wrong), in the shape the operation documents for its status: each declared property that
 * names the status, the message, a title or the code gets it, required ones left are filled plainly,
 * and where the schema allows more, `code` and the extras (violations) follow. An undocumented status,
 * or a shape no such body fits, gets the kit's own error body. `status` replaces the table's (415 for
 * a media type, where the operation documents it).
 */
export function errorFor(
  ctx: AnswerContext,
  op: CompiledOperation | undefined,
  code: ErrorAnswerCode,
  detail?: string,
  more: ErrorExtras = {},
): WireResponse {
  const { headers = {}, extra = {} } = more;
  // The kit's own error body, built with its status (never a table's body patched as text): the
  // table's, or the documented status that means the same where the operation documents only that.
  const status = more.status ?? documentedStatus(op, code);
  const kit = errorAnswer(code, detail, { headers: more.headers, extra: more.extra, message: more.message, status });
  const response = op?.responseFor(kit.status);
  if (op === undefined || response === undefined) return kit;
  // The documented error answer's entry, schema, Content-Type and headers, found once (planOf).
  const plan = planOf(ctx, response);
  const { entry } = plan;
  const message = more.message ?? ERROR_ANSWERS[code].message;
  const text = detail === undefined ? message : `${message}: ${detail}`;
  // A refusal documented without a body still says why: in a header, and so in the server's log line.
  if (entry === undefined)
    return { status: kit.status, headers: { ...headers, [REASON_HEADER]: reasonValue(text) }, body: "" };
  const schema = followRefs(plan.schema, ctx.resolve) as Json | undefined;
  const answerHeaders = hasAny(headers) ? joined(plan.documented, headers, plan.contentType) : plan.headers;
  // The schema itself, then each branch of a oneOf/anyOf of error shapes, until one is accepted.
  const shapes = [
    schema,
    ...[...asArray(schema?.oneOf), ...asArray(schema?.anyOf)].map((b) => followRefs(b, ctx.resolve)),
  ];
  for (const shape of shapes) {
    const body = errorBody(ctx, shape, { status: kit.status, code, text }, extra);
    if (judgedValue(op, kit.status, answerHeaders, body))
      return { status: kit.status, headers: answerHeaders, body: writeJson(body) };
  }
  const example = exampleOf(ctx, entry);
  if (example !== undefined && judgedValue(op, kit.status, answerHeaders, example.value))
    return { status: kit.status, headers: answerHeaders, body: writeJson(example.value) };
  // No documented shape could be made: under a status chosen for its documented meaning, the table's
  // own status and body instead (an undocumented status is judged by no schema).
  return more.status === undefined && kit.status !== ERROR_ANSWERS[code].status ? errorAnswer(code, detail, more) : kit;
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The kit's error written in one error shape: the declared properties it can name, then `code` and extras where allowed. */
function errorBody(
  ctx: AnswerContext,
  schema: unknown,
  kit: { readonly status: number; readonly code: string; readonly text: string },
  extra: Readonly<Record<string, unknown>>,
): unknown {
  const { properties, closed } = propertiesOf(schema, ctx.resolve);
  const fields = fieldErrors(ctx, schema, properties.size, kit.text, extra);
  if (fields !== undefined) return fields;
  const body: Json = {};
  for (const [name, sub] of properties) {
    const n = name.toLowerCase().replace(/[_-]/g, "");
    const found = followRefs(sub, ctx.resolve) as Json | undefined;
    const property = typeof found === "object" && found !== null ? withAllOfParts(found, ctx.resolve) : undefined;
    // A property with its own values (an enum of the API's codes) gets one of them, from complete():
    // the one that says failure where it names one (Kubernetes' Status `status: Failure`).
    if (property?.enum !== undefined || property?.const !== undefined) {
      const failure = Array.isArray(property.enum)
        ? property.enum.find((v) => /fail|error/i.test(String(v)))
        : undefined;
      if (failure !== undefined) body[name] = failure;
      continue;
    }
    const type = property?.type;
    const numeric = type === "integer" || type === "number";
    // An envelope of the error (OData's and AIP's `{"error": {code, message}}`, JSON:API's `errors[]`).
    if (n === "error" && type === "object") body[name] = errorBody(ctx, found, kit, {});
    else if (n === "errors" && type === "array") body[name] = [errorBody(ctx, property?.items, kit, {})];
    else if (numeric && STATUS_NAMES.has(n)) body[name] = kit.status;
    else if (textual(type) && n === "code") body[name] = kit.code;
    else if (textual(type) && MESSAGE_NAMES.has(n)) body[name] = kit.text;
    else if (textual(type) && TITLE_NAMES.has(n)) body[name] = REASONS[kit.status] ?? "Error";
  }
  const open = !closed;
  if (open && !properties.has("code")) body.code = kit.code;
  if (open) for (const [k, v] of Object.entries(extra)) if (!properties.has(k)) body[k] = v;
  return complete(body, schema, ctx.resolve);
}

/**
 * An error shape that is a map of field to messages and nothing else (Django REST Framework's
 * `{"title": ["This field is required."]}`): each violation's field with its message, or
 * `non_field_errors` where the refusal names no field. Undefined for any other shape.
 */
function fieldErrors(
  ctx: AnswerContext,
  schema: unknown,
  declared: number,
  text: string,
  extra: Readonly<Record<string, unknown>>,
): Json | undefined {
  const more = followRefs((schema as Json | undefined)?.additionalProperties, ctx.resolve) as Json | undefined;
  const items = followRefs(more?.items, ctx.resolve) as Json | undefined;
  if (declared > 0 || more?.type !== "array" || items?.type !== "string") return undefined;
  // No prototype: a field may be called `__proto__` or `constructor` (a client names it).
  const body: Json = Object.create(null) as Json;
  const violations = Array.isArray(extra.violations)
    ? (extra.violations as { location?: unknown; message?: unknown }[])
    : [];
  for (const v of violations) {
    const field = typeof v.location === "string" ? v.location.split("/").slice(1).join(".") : "";
    const key = field === "" ? "non_field_errors" : field;
    body[key] = [...(Object.hasOwn(body, key) ? (body[key] as string[]) : []), String(v.message)];
  }
  return Object.keys(body).length > 0 ? body : { non_field_errors: [text] };
}

/** A property whose schema takes a string (or says no type): one the kit's words may fill. */
const textual = (type: unknown): boolean =>
  type === undefined || type === "string" || (Array.isArray(type) && type.includes("string"));

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof ExactLiteral);

/**
 * `over` laid on `base`, an answer the contract accepts, one property at a time, each kept only if
 * the answer stays accepted (`accepts` judges the whole answer with the value in place): objects
 * both hold are laid property by property, an array of `over`'s item by item on `base`'s first item.
 * So a stored item's id and values stand wherever its schema takes them, the rest is `base`'s.
 */
function laidOver(
  base: unknown,
  over: unknown,
  accepts: (v: unknown) => boolean,
  schema: unknown,
  resolve: Resolve,
  depth = 0,
): unknown {
  if (!isObject(base) || !isObject(over) || depth > 4) return base;
  const { properties } = propertiesOf(followRefs(schema, resolve), resolve);
  let out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const here = (x: unknown): boolean => accepts({ ...out, [k]: x });
    const current = out[k];
    const sub = properties.get(k);
    let next: unknown = v;
    if (isObject(current) && isObject(v)) next = laidOver(current, v, here, sub, resolve, depth + 1);
    else if (Array.isArray(current) && Array.isArray(v) && isObject(current[0])) {
      const itemSchema = ((followRefs(sub, resolve) ?? {}) as Json).items;
      const items: unknown[] = [];
      for (const item of v) {
        const withItem = (x: unknown): boolean => here([...items, x]);
        const laid = laidOver(current[0], item, withItem, itemSchema, resolve, depth + 1);
        if (withItem(laid)) items.push(laid);
      }
      next = items;
    } else if (current === undefined && isObject(v)) next = complete(v, sub, resolve);
    if (here(next)) out = { ...out, [k]: next };
  }
  return out;
}
