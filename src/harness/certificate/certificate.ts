// A conformance certificate: what a run was (kit, Node, contract, fixtures, baseline, seed, target,
// time) and what it found (levels and verdicts, counts, coverage, exit code), as one JSON document
// with tamper evidence over its canonical form (signature.ts). This file is its shape and
// its building from a finished run; inputs.ts states the inputs, verify.ts
// checks a certificate, lines.ts tells a person what one says.
import type { Redactor } from "../redact.js";
import { writeFileAtomic } from "../write-file.js";
import type { RunSummary } from "../results.js";
import { kitIdentity, type BaselineStatement, type ContractStatement, type FixturesStatement } from "./inputs.js";
import type { SigningKey } from "./keys.js";
import { signCertificate, type CertificateSignature } from "./signature.js";

export const CERTIFICATE_MARK = "plantstore-kit conformance certificate";
export const CERTIFICATE_FORMAT = 1;

/** What counts of a coverage: exercised of total. */
export interface CoverageCount {
  readonly exercised: number;
  readonly total: number;
}

export interface Certificate {
  readonly certificate: typeof CERTIFICATE_MARK;
  readonly format: typeof CERTIFICATE_FORMAT;
  readonly kit: { readonly name: string; readonly version: string };
  readonly node: string;
  readonly contract: ContractStatement;
  /** null: the run used generated cases only. */
  readonly fixtures: FixturesStatement | null;
  readonly baseline: BaselineStatement | null;
  /** --only and --skip as given: a run of part of the fixtures says so. */
  readonly selection: { readonly only: readonly string[]; readonly skip: readonly string[] };
  /** Generated bodies per operation and polarity, or null when none were generated. */
  readonly generate: number | null;
  readonly seed: string;
  /** The target as reports show it (credentials masked). */
  readonly target: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly levels: readonly {
    readonly level: string;
    readonly verdict: "pass" | "fail" | "error";
    readonly failedCases: number;
  }[];
  readonly cases: {
    readonly total: number;
    readonly passed: number;
    readonly failed: number;
    readonly known: number;
    readonly errors: number;
  };
  readonly coverage: {
    readonly operations: CoverageCount;
    readonly statuses: CoverageCount;
    readonly parameters: CoverageCount;
  };
  readonly minCoverage: number | null;
  readonly exitCode: 0 | 1 | 2;
  readonly runError: string | null;
  readonly signature: CertificateSignature;
}

export interface CertificateInput {
  readonly summary: RunSummary;
  readonly contract: ContractStatement;
  readonly fixtures: FixturesStatement | null;
  readonly baseline: BaselineStatement | null;
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
  readonly generate?: number;
  /** No key: a plain digest. */
  readonly key?: SigningKey;
  /** Applied to every string of the certificate before it is signed (secrets masked). */
  readonly redact?: Redactor;
  /** The kit and Node versions (default: this kit's package.json and process.version). */
  readonly kit?: { readonly name: string; readonly version: string };
  readonly node?: string;
}

/** The certificate of a finished run, signed (or digested) over its canonical JSON. */
export function buildCertificate(input: CertificateInput): Certificate {
  const { summary } = input;
  const body: Omit<Certificate, "signature"> = {
    certificate: CERTIFICATE_MARK,
    format: CERTIFICATE_FORMAT,
    kit: input.kit ?? kitIdentity(),
    node: input.node ?? process.version,
    contract: input.contract,
    fixtures: input.fixtures,
    baseline: input.baseline,
    selection: { only: [...(input.only ?? [])], skip: [...(input.skip ?? [])] },
    generate: input.generate ?? null,
    seed: summary.seed,
    target: summary.target,
    startedAt: summary.startedAt,
    durationMs: Math.round(summary.durationMs),
    levels: summary.levels.map((l) => ({
      level: l.level,
      verdict: l.verdict,
      failedCases: l.failedCases.length,
    })),
    cases: {
      total: summary.total,
      passed: summary.passed,
      failed: summary.failed,
      known: summary.known,
      errors: summary.errors,
    },
    coverage: {
      operations: count(summary.coverage.operations),
      statuses: count(summary.coverage.statuses),
      parameters: count(summary.coverage.parameters),
    },
    minCoverage: summary.minCoverage ?? null,
    exitCode: summary.exitCode,
    runError: summary.runError ?? null,
  };
  const masked = input.redact === undefined ? body : (mapStrings(body, input.redact.prose) as typeof body);
  return { ...masked, signature: signCertificate(masked, input.key) };
}

const count = (c: { exercised: number; total: number }): CoverageCount => ({ exercised: c.exercised, total: c.total });

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  }
  return value;
}

/** The certificate as a file: two-space JSON (the signature covers the canonical form, not the layout). */
export function certificateText(certificate: Certificate): string {
  return JSON.stringify(certificate, null, 2) + "\n";
}

/** Writes a certificate whole or not at all. */
export function writeCertificate(file: string, certificate: Certificate): void {
  writeFileAtomic(file, certificateText(certificate));
}
