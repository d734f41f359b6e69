// The data of a fixture case: the file's format as written (conformance/fixture.schema.json checks it
// at load), the fixture as loaded (with the operations its steps call), and a step's request as
// prepared, with what an earlier step sent and got.
import type { CompiledOperation } from "../contract/index.js";
import type { CredentialKind, RunCredentials } from "./credentials.js";
import type { Level } from "./levels.js";

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
