import type { Contract } from "../contract/index.js";
import type { Baseline } from "./baseline.js";

// What a run is asked to do. The CLI turns flags into these; the library reads nothing else.

export interface RunOptions {
  readonly target: string;
  /**
   * The credential of every security scheme `credentials` does not name: a bearer token (also for
   * oauth2 and openIdConnect), an apiKey's key, `user:password` for http basic. Needed only when an
   * operation that will run requires credentials.
   */
  readonly token?: string;
  /** Credentials by the spec's securitySchemes name, for contracts with several schemes. */
  readonly credentials?: Readonly<Record<string, string>>;
  /**
   * More secrets the evidence must not show, beyond the credentials and their near misses (always
   * masked): the CLI passes every PLANTSTORE_CREDENTIAL_* value, whether the spec has a scheme for it
   * or not.
   */
  readonly mask?: readonly string[];
  readonly spec?: string;
  readonly fixtures?: string;
  /** A contract already loaded (the spec is then not read again). */
  readonly contract?: Contract;
  readonly timeoutMs?: number;
  readonly concurrency?: number;
  readonly maxResponseBytes?: number;
  /** Fixture or check ids (`*` matches any run of characters) to run alone, or to leave out. */
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
  /** Levels beyond `contract` (which always runs) whose rules count too (see levels.ts). */
  readonly levels?: readonly string[];
  /** Every level runs (the union of them all), as --strict asks. */
  readonly strict?: boolean;
  readonly baseline?: Baseline;
  readonly seed?: bigint;
  readonly caFile?: string;
  readonly insecure?: boolean;
  /** After this many timeouts in a row the target is taken as stopped, and the rest is not sent. */
  readonly timeoutsBeforeGivingUp?: number;
  /** Cases generated from the request schemas, beyond the fixtures. */
  readonly generate?: GenerateOptions;
  /** Run no fixture (with generate: generated cases only). */
  readonly noFixtures?: boolean;
  /**
   * Which steps keep their headers and bodies in the results: those with a finding (default), or all.
   * Every step keeps its method, URL, credentials, status and time.
   */
  readonly evidence?: "findings" | "all";
  /** Percentage (0 to 100) of the contract's operations the run must exercise, or it exits 1. */
  readonly minCoverage?: number;
}

export interface GenerateOptions {
  /** Generated bodies per operation and polarity (positive, negative). */
  readonly count: number;
  /**
   * The outer guard of the generated part, shrinking included: budgets are counts, so only a hang
   * reaches it, and a run stopped by it says so (exit 2) with what was judged.
   */
  readonly maxTimeMs?: number;
  /**
   * Properties whose values must be unique on a stateful server; made fresh for each run. Default:
   * `id` and the ids clients choose by the contract's resource model.
   */
  readonly unique?: readonly string[];
}

/** Limits a run takes when not told otherwise; the CLI's --help prints them. */
export const RUN_DEFAULTS = {
  timeoutMs: 5_000,
  concurrency: 4,
  maxResponseBytes: 4 * 1024 * 1024,
  timeoutsBeforeGivingUp: 3,
  /** The outer guard of a generated run, when not given: this much for each operation it generates for or a stateful sequence calls. */
  maxTimePerOperationMs: 60_000,
} as const;
