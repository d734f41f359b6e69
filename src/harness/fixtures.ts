import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { CheckedRequest, CompiledOperation, Contract } from "../contract/index.js";
import {
  buildQueryString,
  checkRequest,
  describeViolation,
  parseJsonExact,
  resolvePointer,
  serializeCookie,
  serializeHeader,
  serializePath,
  serializeQuery,
  stringifyExact,
  styleOfCompiled,
} from "../contract/index.js";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import { credentialsFor, type CredentialKind, type RunCredentials } from "./credentials.js";
import { FRESH_KINDS, freshValue, Random, type FreshKind } from "./fresh.js";
import { LEVELS, type Level } from "./levels.js";

/** What a fixture step sends for credentials (src/harness/credentials.ts). */
export type Credentials = CredentialKind;
export type ExpectKind = "valid" | "invalid" | "unauthorised" | "duplicate";

export interface FixtureRequest {
  readonly credentials?: Credentials;
  readonly headers?: Readonly<Record<string, string>>;
  readonly pathParams?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /**
   * Values of the operation's parameters by name (or `in:name` where two share a name), serialised by
   * each parameter's style. A value may be `{"$fresh": NAME}` or `{"$from": EXPRESSION, "step": N}`, an
   * OpenAPI runtime expression (`$request.body#/id`, `$request.path.id`, `$response.body#/id`,
   * `$response.header.Location`, `$statusCode`) read from step N of the case (default: the step before).
   * With `"otherwise": VALUE`, an answer that holds nothing there gives VALUE instead, and the step
   * then accepts 404 or 410 (the resource it names may not exist).
   */
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly rawBodyBase64?: string;
}

export interface Expectation {
  readonly kind: ExpectKind;
  readonly status?: number;
  /** The level whose rule the expectation tests (default contract); a breach of another level is a warning. */
  readonly level?: Level;
  readonly refusable?: boolean;
  /** A valid request on a resource the harness could not know exists: 404 or 410 is an expected answer. */
  readonly missingOk?: boolean;
  readonly existingAnswerFrom?: number;
}

export interface FixtureStep {
  /** The operationId this step calls, when not the fixture's. */
  readonly operation?: string;
  readonly request: FixtureRequest;
  readonly expect: Expectation;
}

/** A fixture as loaded: the file's data, its file, and the operation it targets. */
export interface Fixture {
  readonly id: string;
  readonly description: string;
  readonly operationId: string;
  readonly steps: readonly FixtureStep[];
  readonly file: string;
  readonly operation: CompiledOperation;
  /** The operation of each step, when steps call other operations than the fixture's. */
  readonly stepOperations?: readonly CompiledOperation[];
}

/** The operation a step calls. */
export const stepOperation = (fixture: Fixture, step: number): CompiledOperation =>
  fixture.stepOperations?.[step] ?? fixture.operation;

/** What an earlier step of the case sent and got, for `$from` values. */
export interface EarlierExchange {
  readonly request: PreparedRequest;
  readonly response:
    | { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: Uint8Array }
    | undefined;
}

/** A request ready to send: everything resolved but the target's base URL. */
export interface PreparedRequest {
  readonly method: string;
  /** Path and query, relative to the target's base URL. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
  /** The parameter values sent, by `in:name` (for `$request.path.id` of a later step, and coverage). */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** The request's path as sent, without the query (percent-encoded). */
  readonly pathOnly: string;
  /** The operation's parameters the request carries, by `in:name` (however the fixture wrote them), for the coverage. */
  readonly present?: readonly string[];
  /** The credentials the request carries by the fixture; undefined when the operation requires none. */
  readonly credentials?: Credentials;
  /** The security schemes whose credentials the request carries (the alternative used); empty when none. */
  readonly schemes?: readonly string[];
  /** `$from` expressions whose earlier answer held nothing, so their `otherwise` value was sent. */
  readonly fallbacks?: readonly string[];
}

/** The run's credentials: the token, credentials by scheme name, and a made-up one for `wrong`. */
export type Secrets = RunCredentials;

const FIXTURE_SCHEMA_FILE = join(KIT_ROOT, "conformance", "fixture.schema.json");
let validateFixture: ReturnType<Ajv2020["compile"]> | undefined;

function fixtureValidator(): ReturnType<Ajv2020["compile"]> {
  if (validateFixture === undefined) {
    // The format's own schema is checked against the meta-schema by fixtures.test.ts, not on every run.
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
    validateFixture = ajv.compile(JSON.parse(readFileSync(FIXTURE_SCHEMA_FILE, "utf8")));
  }
  return validateFixture;
}

/** The names of a fixture folder's `*.json` files, in file-name order; an unreadable folder is PS_FILE_UNREADABLE. */
export function fixtureFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `fixtures folder ${dir}: ${(error as Error).message}`);
  }
}

/**
 * Loads every `*.json` file of a folder as a fixture, in file-name order. Each is checked by the
 * fixture format's JSON Schema, against the spec (its operation exists), and for honesty: a step
 * that says `valid` must send a request the contract accepts, one that says `invalid` one it rejects.
 * Any problem is a PS_FIXTURE_* error naming the file and the field; nothing is skipped silently.
 */
export function loadFixtures(dir: string, contract: Contract): Fixture[] {
  const files = fixtureFiles(dir);
  if (files.length === 0) throw new KitError("PS_FIXTURE_INVALID", `${dir}: no .json fixture files`);
  return files.map((f) => loadFixture(join(dir, f), contract));
}

export function loadFixture(file: string, contract: Contract): Fixture {
  const fail = (detail: string): never => {
    throw new KitError("PS_FIXTURE_INVALID", `${file}: ${detail}`);
  };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `${file}: ${(error as Error).message}`);
  }
  const parsed = parseJsonExact(text);
  if (!parsed.ok) return fail(`not valid JSON: ${parsed.message}`);
  const steps = (parsed.value as { steps?: unknown }).steps;
  (Array.isArray(steps) ? steps : []).forEach((step: { expect?: { severity?: unknown } } | null, i) => {
    if (step?.expect?.severity !== undefined) {
      fail(
        `field /steps/${i}/expect/severity: replaced by "level" (a warning is a rule of a level beyond the contract: ${LEVELS.slice(1).join(", ")})`,
      );
    }
  });
  const validate = fixtureValidator();
  if (!validate(parsed.value)) {
    const e = validate.errors?.[0];
    const missing =
      e?.keyword === "required" ? `/${String((e.params as { missingProperty: string }).missingProperty)}` : "";
    const where = e === undefined ? "/" : `${e.instancePath}${missing}` || "/";
    return fail(`field ${where}: ${e?.keyword === "required" ? "is required" : (e?.message ?? "is invalid")}`);
  }
  for (const pointer of parsed.exact.pointers()) {
    if (/^\/steps\/\d+\/request\/body(\/|$)/.test(pointer)) {
      fail(`field ${pointer}: a number a double cannot hold exactly; write it in rawBody, or use {"$fresh": ...}`);
    }
  }
  const data = parsed.value as { id: string; description: string; operation: string; steps: FixtureStep[] };
  if (data.id !== basename(file, ".json")) fail(`field /id: "${data.id}" must equal the file name without .json`);
  const operation = contract.operation(data.operation);
  if (operation === undefined) {
    throw new KitError(
      "PS_FIXTURE_UNKNOWN_OPERATION",
      `${file}: field /operation: "${data.operation}" is not an operationId of ${contract.source}`,
    );
  }
  const stepOperations = data.steps.map((step, i) => {
    if (step.operation === undefined) return operation;
    const other = contract.operation(step.operation);
    if (other === undefined)
      throw new KitError(
        "PS_FIXTURE_UNKNOWN_OPERATION",
        `${file}: field /steps/${i}/operation: "${step.operation}" is not an operationId of ${contract.source}`,
      );
    return other;
  });
  const fixture: Fixture = {
    id: data.id,
    description: data.description,
    operationId: data.operation,
    steps: data.steps,
    file,
    operation,
    ...(data.steps.some((st) => st.operation !== undefined) ? { stepOperations } : {}),
  };
  checkHonesty(fixture, fail);
  return fixture;
}

/** Refuses fixtures whose declared expectation does not follow from the spec. */
function checkHonesty(fixture: Fixture, fail: (detail: string) => never): void {
  const sample = new Random(0n);
  const fresh = new Map<string, bigint | string>();
  const secrets: Secrets = { token: "sample-token", wrongToken: "sample-wrong" };
  const earlier: EarlierExchange[] = [];
  fixture.steps.forEach((step, i) => {
    const at = `field /steps/${i}`;
    const from = step.expect.existingAnswerFrom;
    if (from !== undefined && (from >= i || step.expect.kind !== "valid"))
      fail(`${at}/expect/existingAnswerFrom: must name an earlier step, on a valid step`);
    if (step.expect.refusable === true && step.expect.kind !== "valid")
      fail(`${at}/expect/refusable: applies to valid steps only`);
    if (step.expect.missingOk === true && step.expect.kind !== "valid")
      fail(`${at}/expect/missingOk: applies to valid steps only`);
    let prepared: PreparedRequest;
    try {
      prepared = prepareRequest(fixture, i, fresh, sample, secrets, earlier);
    } catch (error) {
      // A value from an earlier step's answer is only known when the case runs: not judged here.
      if (error instanceof NotYetKnown) return;
      return fail(`${at}/request: ${(error as Error).message}`);
    }
    earlier.push({ request: prepared, response: undefined });
    const credentials = step.request.credentials ?? "valid";
    const problems = requestProblems(stepOperation(fixture, i), prepared);
    const authorised =
      credentials === "valid" || credentials === "lowercase-scheme" || !stepOperation(fixture, i).authRequired;
    switch (step.expect.kind) {
      case "valid":
      case "duplicate":
        if (problems.length > 0)
          fail(`${at}: expects "${step.expect.kind}" but the request breaks the contract: ${problems.join("; ")}`);
        if (!authorised) fail(`${at}: expects "${step.expect.kind}" but sends credentials "${credentials}"`);
        break;
      case "invalid":
        if (problems.length === 0) fail(`${at}: expects "invalid" but the spec accepts the request`);
        if (!authorised)
          fail(
            `${at}: expects "invalid" but sends credentials "${credentials}"; an invalid case needs valid credentials`,
          );
        break;
      case "unauthorised":
        if (authorised) fail(`${at}: expects "unauthorised" but sends valid credentials`);
        break;
    }
  });
}

/**
 * What is wrong with a request's body and media type by the spec; empty when it is valid. The
 * contract decides (contract/acceptability.ts), exactly as for the reference server.
 */
export function requestProblems(operation: CompiledOperation, request: PreparedRequest): string[] {
  const checked = checkPrepared(operation, request);
  if (checked.ok) return [];
  return checked.reason === "schema" ? checked.violations.map(describeViolation) : [checked.detail];
}

/** The contract's verdict on a prepared request: parameters, then body. */
export function checkPrepared(operation: CompiledOperation, request: PreparedRequest): CheckedRequest {
  const q = request.path.indexOf("?");
  return checkRequest(operation, {
    headers: request.headers,
    body: request.body,
    path: request.pathOnly,
    query: q < 0 ? "" : request.path.slice(q + 1),
  });
}

/**
 * Resolves one step's request: fresh values (kept per case in `fresh`, so steps share them), values
 * from earlier steps (`$from`), credentials, parameters by their style, path parameters, query, body
 * and its default Content-Type. Throws NotYetKnown when a value comes from an earlier answer that
 * does not exist yet (the fixture honesty check, before anything is sent).
 */
export function prepareRequest(
  fixture: Fixture,
  stepIndex: number,
  fresh: Map<string, bigint | string>,
  random: Random,
  secrets: Secrets,
  earlier: readonly EarlierExchange[] = [],
): PreparedRequest {
  const step = fixture.steps[stepIndex] as FixtureStep;
  const r = step.request;
  const op = stepOperation(fixture, stepIndex);
  const freshOf = (name: string, kind: string): bigint | string => {
    if (!(FRESH_KINDS as readonly string[]).includes(kind))
      throw new Error(`unknown fresh kind "${kind}" (kinds: ${FRESH_KINDS.join(", ")})`);
    let v = fresh.get(name);
    if (v === undefined) {
      v = freshValue(kind as FreshKind, random);
      fresh.set(name, v);
    }
    return v;
  };
  const fallbacks: string[] = [];
  const values: ValueSources = {
    freshOf,
    fromOf: (expression, from, otherwise) => {
      try {
        return valueFrom(earlier, stepIndex, expression, from);
      } catch (error) {
        if (otherwise === undefined || !(error instanceof NothingThere)) throw error;
        fallbacks.push(expression);
        return otherwise;
      }
    },
  };

  let body: Buffer | undefined;
  if (r.body !== undefined) body = Buffer.from(stringifyExact(substituteValues(r.body, values)), "utf8");
  else if (r.rawBody !== undefined) {
    body = Buffer.from(
      r.rawBody.replace(/\{\{fresh:([A-Za-z0-9_-]+)(?::([a-z0-9-]+))?\}\}/g, (_m, name: string, kind?: string) =>
        String(freshOf(name, kind ?? "int64")),
      ),
      "utf8",
    );
  } else if (r.rawBodyBase64 !== undefined) body = Buffer.from(r.rawBodyBase64, "base64");

  // identity: the harness judges the bytes the server means, without asking for a compression.
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  const firstMediaType = op.requestBody === undefined ? undefined : [...op.requestBody.content.keys()][0];
  if (body !== undefined && firstMediaType !== undefined) headers["content-type"] = firstMediaType;
  for (const [k, v] of Object.entries(r.headers ?? {})) headers[k.toLowerCase()] = v;
  const queryPieces = new URLSearchParams(r.query ?? {}).toString();
  const pieces: string[] = queryPieces === "" ? [] : queryPieces.split("&");
  const cookies: string[] = [];

  // Parameters by their style: a value given by name (or `in:name`), resolved first.
  const sent: Record<string, unknown> = {};
  const pathValues: Record<string, string> = {};
  for (const p of op.parameters) {
    const given = r.parameters?.[`${p.in}:${p.name}`] ?? r.parameters?.[p.name];
    if (given === undefined) continue;
    const value = substituteValues(given, values);
    sent[`${p.in}:${p.name}`] = value;
    const style = styleOfCompiled(p);
    if (p.in === "path") pathValues[p.name] = serializePath(style, value);
    else if (p.in === "query") pieces.push(...serializeQuery(style, value));
    else if (p.in === "header") {
      const text = serializeHeader(style, value);
      if (text !== undefined) headers[p.name.toLowerCase()] = text;
    } else {
      const text = serializeCookie(style, value);
      if (text !== undefined) cookies.push(text);
    }
  }
  if (cookies.length > 0)
    headers.cookie = [headers.cookie, ...cookies].filter((c) => c !== undefined && c !== "").join("; ");

  const credentials = r.credentials ?? "valid";
  const applied = credentialsFor(op, credentials, secrets);
  Object.assign(headers, applied.headers);
  for (const [name, value] of applied.query) pieces.push(new URLSearchParams({ [name]: value }).toString());
  if (applied.cookies.length > 0) {
    const pairs = applied.cookies.map(([name, value]) => `${name}=${value}`).join("; ");
    headers.cookie = headers.cookie === undefined ? pairs : `${headers.cookie}; ${pairs}`;
  }

  const path = op.pathTemplate.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const serialised = pathValues[name];
    if (serialised !== undefined) return serialised;
    const v = r.pathParams?.[name];
    if (v === undefined)
      throw new Error(`the path parameter ${name} of ${op.pathTemplate} needs a value (parameters or pathParams)`);
    sent[`path:${name}`] ??= v;
    return encodeURIComponent(v);
  });
  // undici refuses to send a header with characters a field value cannot hold (control characters,
  // anything past latin1; RFC 9110 section 5.5): the fixture's mistake, not the target's.
  for (const [name, value] of Object.entries(headers))
    if (/[^\t\x20-\x7e\x80-\xff]/.test(value))
      throw new Error(
        `the header ${name} cannot be sent: ${JSON.stringify(value)} holds a character HTTP does not carry`,
      );
  return {
    method: op.method.toUpperCase(),
    path: path + buildQueryString(pieces),
    pathOnly: path,
    present: presentParameters(op, pieces, headers),
    headers,
    body,
    parameters: sent,
    credentials: op.authRequired ? credentials : undefined,
    schemes: applied.schemes,
    ...(fallbacks.length > 0 ? { fallbacks } : {}),
  };
}

/** The operation's parameters a request carries: every path one, and the query, header and cookie ones it names. */
function presentParameters(
  op: CompiledOperation,
  pieces: readonly string[],
  headers: Record<string, string>,
): string[] {
  if (op.parameters.length === 0) return []; // the common case on the per-exchange path: nothing to look for
  const queryNames = new Set(
    pieces.map((p) => {
      const name = p.split("=")[0] ?? "";
      try {
        return decodeURIComponent(name).replace(/\[.*$/, "");
      } catch {
        return name;
      }
    }),
  );
  const cookieNames = new Set((headers.cookie ?? "").split(/;\s*/).map((c) => c.split("=")[0]?.trim() ?? ""));
  return op.parameters
    .filter((p) =>
      p.in === "path"
        ? true
        : p.in === "query"
          ? queryNames.has(p.name) ||
            (p.style === "form" && p.explode && pieces.length > 0 && p.shape.kind === "object")
          : p.in === "header"
            ? headers[p.name.toLowerCase()] !== undefined
            : cookieNames.has(p.name),
    )
    .map((p) => `${p.in}:${p.name}`);
}

/** Thrown while a value from an earlier step's answer is asked for before that answer exists. */
export class NotYetKnown extends Error {}

/** Thrown when an earlier answer exists but holds nothing where a `$from` expression points. */
class NothingThere extends Error {}

/**
 * The value an OpenAPI runtime expression names in an earlier step (default: the one before):
 * `$request.body#/p`, `$request.path.n`, `$request.query.n`, `$request.header.n`,
 * `$response.body#/p`, `$response.header.n`, `$statusCode`. Integers beyond 2^53 come exactly (bigint).
 */
function valueFrom(
  earlier: readonly EarlierExchange[],
  stepIndex: number,
  expression: string,
  from: number | undefined,
): unknown {
  const n = from ?? stepIndex - 1;
  if (!Number.isInteger(n) || n < 0 || n >= stepIndex)
    throw new Error(`$from ${JSON.stringify(expression)}: step ${n} is not an earlier step`);
  const exchange = earlier[n];
  if (exchange === undefined) throw new NotYetKnown(expression);
  const fromJson = (bytes: Uint8Array | undefined, pointer: string): unknown => {
    const parsed = parseJsonExact(Buffer.from(bytes ?? new Uint8Array()).toString("utf8"));
    if (!parsed.ok) throw new NothingThere(`${expression}: the body of step ${n} is not JSON`);
    const exact = parsed.exact.get(pointer);
    const value = exact?.integer ?? resolvePointer(parsed.value, pointer);
    if (value === undefined) throw new NothingThere(`${expression}: step ${n}'s body has nothing at ${pointer}`);
    return value;
  };
  const m = /^\$(request|response)\.(body|path|query|header)(?:#(.*)|\.(.+))?$/.exec(expression);
  if (expression === "$statusCode") {
    if (exchange.response === undefined) throw new NotYetKnown(expression);
    return exchange.response.status;
  }
  if (m === null) throw new Error(`$from ${JSON.stringify(expression)} is not a runtime expression this kit reads`);
  const [, side, part, pointer, name] = m;
  if (side === "response" && exchange.response === undefined) throw new NotYetKnown(expression);
  if (part === "body")
    return fromJson(side === "request" ? exchange.request.body : exchange.response!.body, pointer ?? "");
  if (name === undefined) throw new Error(`$from ${JSON.stringify(expression)} names no field`);
  const found =
    part === "header"
      ? (side === "request" ? exchange.request.headers : exchange.response!.headers)[name.toLowerCase()]
      : side === "request"
        ? exchange.request.parameters[`${part}:${name}`]
        : undefined;
  if (found === undefined) throw new NothingThere(`${expression}: step ${n} has no ${part} ${name}`);
  return found;
}

interface ValueSources {
  readonly freshOf: (name: string, kind: string) => bigint | string;
  readonly fromOf: (expression: string, from: number | undefined, otherwise: unknown) => unknown;
}

function substituteValues(value: unknown, sources: ValueSources): unknown {
  if (Array.isArray(value)) return value.map((v) => substituteValues(v, sources));
  if (typeof value !== "object" || value === null) return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$fresh === "string" && Object.keys(o).every((k) => k === "$fresh" || k === "kind")) {
    return sources.freshOf(o.$fresh, typeof o.kind === "string" ? o.kind : "int64");
  }
  if (typeof o.$from === "string" && Object.keys(o).every((k) => ["$from", "step", "otherwise"].includes(k))) {
    return sources.fromOf(o.$from, typeof o.step === "number" ? o.step : undefined, o.otherwise);
  }
  // defineProperty, so that a "__proto__" key in a fixture stays plain data.
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o))
    Object.defineProperty(out, k, {
      value: substituteValues(v, sources),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}
