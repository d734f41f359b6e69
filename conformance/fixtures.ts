import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { CompiledOperation, Contract } from "../src/contract/index.js";
import { checkRequest, describeViolation, parseJsonExact, stringifyExact } from "../src/contract/index.js";
import { KitError } from "../src/errors.js";
import { KIT_ROOT } from "../src/paths.js";
import { credentialsFor, type CredentialKind, type RunCredentials } from "./credentials.js";
import { FRESH_KINDS, freshValue, Random, type FreshKind } from "./fresh.js";

/** What a fixture step sends for credentials (conformance/credentials.ts). */
export type Credentials = CredentialKind;
export type ExpectKind = "valid" | "invalid" | "unauthorised" | "duplicate";

export interface FixtureRequest {
  readonly credentials?: Credentials;
  readonly headers?: Readonly<Record<string, string>>;
  readonly pathParams?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly rawBodyBase64?: string;
}

export interface Expectation {
  readonly kind: ExpectKind;
  readonly status?: number;
  readonly severity?: "failure" | "warning";
  readonly refusable?: boolean;
  readonly existingAnswerFrom?: number;
}

export interface FixtureStep {
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
}

/** A request ready to send: everything resolved but the target's base URL. */
export interface PreparedRequest {
  readonly method: string;
  /** Path and query, relative to the target's base URL. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
  /** The credentials the request carries by the fixture; undefined when the operation requires none. */
  readonly credentials?: Credentials;
  /** The security schemes whose credentials the request carries (the alternative used); empty when none. */
  readonly schemes?: readonly string[];
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

/**
 * Loads every `*.json` file of a folder as a fixture, in file-name order. Each is checked by the
 * fixture format's JSON Schema, against the spec (its operation exists), and for honesty: a step
 * that says `valid` must send a request the contract accepts, one that says `invalid` one it rejects.
 * Any problem is a PS_FIXTURE_* error naming the file and the field; nothing is skipped silently.
 */
export function loadFixtures(dir: string, contract: Contract): Fixture[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `fixtures folder ${dir}: ${(error as Error).message}`);
  }
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
  const fixture: Fixture = {
    id: data.id,
    description: data.description,
    operationId: data.operation,
    steps: data.steps,
    file,
    operation,
  };
  checkHonesty(fixture, fail);
  return fixture;
}

/** Refuses fixtures whose declared expectation does not follow from the spec. */
function checkHonesty(fixture: Fixture, fail: (detail: string) => never): void {
  const sample = new Random(0n);
  const fresh = new Map<string, bigint | string>();
  const secrets: Secrets = { token: "sample-token", wrongToken: "sample-wrong" };
  fixture.steps.forEach((step, i) => {
    const at = `field /steps/${i}`;
    const from = step.expect.existingAnswerFrom;
    if (from !== undefined && (from >= i || step.expect.kind !== "valid"))
      fail(`${at}/expect/existingAnswerFrom: must name an earlier step, on a valid step`);
    if (step.expect.refusable === true && step.expect.kind !== "valid")
      fail(`${at}/expect/refusable: applies to valid steps only`);
    let prepared: PreparedRequest;
    try {
      prepared = prepareRequest(fixture, i, fresh, sample, secrets);
    } catch (error) {
      return fail(`${at}/request: ${(error as Error).message}`);
    }
    const credentials = step.request.credentials ?? "valid";
    const problems = requestProblems(fixture.operation, prepared);
    const authorised = credentials === "valid" || credentials === "lowercase-scheme" || !fixture.operation.authRequired;
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
  const checked = checkRequest(operation, { headers: request.headers, body: request.body });
  if (checked.ok) return [];
  return checked.reason === "schema" ? checked.violations.map(describeViolation) : [checked.detail];
}

/**
 * Resolves one step's request: fresh values (kept per case in `fresh`, so steps share them),
 * credentials, path parameters, query, body and its default Content-Type.
 */
export function prepareRequest(
  fixture: Fixture,
  stepIndex: number,
  fresh: Map<string, bigint | string>,
  random: Random,
  secrets: Secrets,
): PreparedRequest {
  const step = fixture.steps[stepIndex] as FixtureStep;
  const r = step.request;
  const op = fixture.operation;
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

  let body: Buffer | undefined;
  if (r.body !== undefined) body = Buffer.from(stringifyExact(substituteFresh(r.body, freshOf)), "utf8");
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
  const query = new URLSearchParams(r.query ?? {});
  const credentials = r.credentials ?? "valid";
  const applied = credentialsFor(op, credentials, secrets);
  Object.assign(headers, applied.headers);
  for (const [name, value] of applied.query) query.set(name, value);
  if (applied.cookies.length > 0) {
    const pairs = applied.cookies.map(([name, value]) => `${name}=${value}`).join("; ");
    headers.cookie = headers.cookie === undefined ? pairs : `${headers.cookie}; ${pairs}`;
  }

  const path = op.pathTemplate.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = r.pathParams?.[name];
    if (v === undefined) throw new Error(`pathParams.${name} is required by ${op.pathTemplate}`);
    return encodeURIComponent(v);
  });
  const qs = query.toString();
  return {
    method: op.method.toUpperCase(),
    path: qs === "" ? path : `${path}?${qs}`,
    headers,
    body,
    credentials: op.authRequired ? credentials : undefined,
    schemes: applied.schemes,
  };
}

function substituteFresh(value: unknown, freshOf: (name: string, kind: string) => bigint | string): unknown {
  if (Array.isArray(value)) return value.map((v) => substituteFresh(v, freshOf));
  if (typeof value !== "object" || value === null) return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$fresh === "string" && Object.keys(o).every((k) => k === "$fresh" || k === "kind")) {
    return freshOf(o.$fresh, typeof o.kind === "string" ? o.kind : "int64");
  }
  // defineProperty, so that a "__proto__" key in a fixture stays plain data.
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o))
    Object.defineProperty(out, k, {
      value: substituteFresh(v, freshOf),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}
