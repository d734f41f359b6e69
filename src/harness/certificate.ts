import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { loadContract, parseJsonExact, unescapePointer, type Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { KIT_ROOT } from "../paths.js";
import type { Redactor } from "./redact.js";
import { fixtureFiles } from "./fixtures.js";
import { writeFileAtomic } from "./reporters/files.js";
import type { RunSummary } from "./results.js";

// A conformance certificate: what a run was (kit, Node, contract, fixtures, baseline, seed, target,
// time) and what it found (levels and verdicts, counts, coverage, exit code), as one JSON document
// with tamper evidence over its canonical form: a plain sha256 digest, an HMAC-SHA256 with a shared
// key, or an Ed25519 signature. Inputs are identified by the sha256 of their canonical JSON, so a
// spec re-formatted, re-ordered or converted between YAML and JSON keeps its hash.

export const CERTIFICATE_MARK = "plantstore-kit conformance certificate";
export const CERTIFICATE_FORMAT = 1;

export type SignatureAlg = "sha256" | "hmac-sha256" | "ed25519";

/** The tamper evidence: a digest (no key), an HMAC (shared key) or an Ed25519 signature (private key). */
export interface CertificateSignature {
  readonly alg: SignatureAlg;
  /** Which key signed: 16 hex digits of a sha256 of the key (of the public key for Ed25519); never the key. */
  readonly keyId?: string;
  /** Hex for sha256 and hmac-sha256, base64 for ed25519. */
  readonly value: string;
}

export interface ContractStatement {
  /** The spec's path relative to the working folder (`/`-separated), or its URL. */
  readonly path: string;
  readonly title: string;
  readonly version: string;
  readonly openapi: string;
  /** sha256 of the canonical JSON of the document as loaded (split specs bundled). */
  readonly sha256: string;
}

export interface FixturesStatement {
  readonly path: string;
  /** The `*.json` files of the folder (every fixture loaded, whether --only/--skip ran it or not). */
  readonly count: number;
  /** sha256 of the canonical JSON of {fixture id: the file's JSON} over every file of the folder. */
  readonly sha256: string;
}

export interface BaselineStatement {
  readonly path: string;
  /** Known deviations listed. */
  readonly count: number;
  readonly sha256: string;
}

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

/** A key to sign with: an HMAC shared secret, or an Ed25519 private key. */
export type SigningKey =
  { readonly kind: "hmac"; readonly secret: string } | { readonly kind: "ed25519"; readonly privateKey: KeyObject };

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

// ---------------------------------------------------------------------------------------------
// Canonical JSON

/** A number a double cannot hold faithfully, kept as its exact decimal (mantissa `e` exponent). */
export class ExactDecimal {
  constructor(readonly text: string) {}
}

/**
 * Canonical JSON text, in the manner of RFC 8785 (JCS): object keys sorted by UTF-16 code units, no
 * white space, strings as JSON.stringify writes them, numbers as ECMAScript writes a double (the
 * shortest text that reads back to it; -0 as 0). Beyond RFC 8785, which knows only doubles: a
 * bigint is written as its exact integer digits, and an ExactDecimal as its text, so an integer
 * beyond 2^53 keeps every digit. Throws a TypeError, with the JSON pointer, for values JSON does not
 * have (NaN, Infinity, functions, class instances other than ExactDecimal).
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  // Iterative, so that a deeply nested document cannot overflow the stack.
  const work: ({ kind: "value"; value: unknown; pointer: string } | { kind: "text"; text: string })[] = [
    { kind: "value", value, pointer: "" },
  ];
  while (work.length > 0) {
    const item = work.pop()!;
    if (item.kind === "text") {
      parts.push(item.text);
      continue;
    }
    const { value: v, pointer } = item;
    if (v === null || typeof v === "boolean") parts.push(String(v));
    else if (typeof v === "string") parts.push(JSON.stringify(v));
    else if (typeof v === "bigint") parts.push(v.toString());
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new TypeError(`${pointer || "/"}: ${v} is not a JSON number`);
      parts.push(JSON.stringify(v));
    } else if (v instanceof ExactDecimal) parts.push(v.text);
    else if (Array.isArray(v)) {
      const next: typeof work = [{ kind: "text", text: "[" }];
      v.forEach((e, i) => {
        if (i > 0) next.push({ kind: "text", text: "," });
        // As JSON.stringify: a hole or undefined in an array is null.
        next.push({ kind: "value", value: e === undefined ? null : e, pointer: `${pointer}/${i}` });
      });
      next.push({ kind: "text", text: "]" });
      work.push(...next.reverse());
    } else if (
      typeof v === "object" &&
      (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
    ) {
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort();
      const next: typeof work = [{ kind: "text", text: "{" }];
      keys.forEach((k, i) => {
        next.push({ kind: "text", text: `${i > 0 ? "," : ""}${JSON.stringify(k)}:` });
        next.push({
          kind: "value",
          value: record[k],
          pointer: `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`,
        });
      });
      next.push({ kind: "text", text: "}" });
      work.push(...next.reverse());
    } else
      throw new TypeError(`${pointer || "/"}: a ${typeof v === "object" ? "non-plain object" : typeof v} is not JSON`);
  }
  return parts.join("");
}

/**
 * Parses a JSON text with every number as the kit reads it: integers exactly (bigints beyond 2^53),
 * other numbers as their double unless the double changes what they are (1.00000000000000001 is
 * not the integer 1: kept as an ExactDecimal).
 */
export function parseCanonicalInput(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const parsed = parseJsonExact(text);
  if (!parsed.ok) return parsed;
  let value = parsed.value;
  for (const pointer of parsed.exact.pointers()) {
    const exact = parsed.exact.get(pointer)!;
    const replacement = exact.integer ?? new ExactDecimal(exactDecimalText(exact.literal));
    if (pointer === "") {
      value = replacement;
      continue;
    }
    const keys = pointer.split("/").slice(1).map(unescapePointer);
    let container = value as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) container = container[key] as Record<string, unknown>;
    // An own data property: assignment could reach a __proto__ setter.
    Object.defineProperty(container, keys.at(-1)!, {
      value: replacement,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { ok: true, value };
}

/** A JSON number literal's exact value as `[-]DIGITSeEXPONENT`, digits without leading or trailing zeros. */
export function exactDecimalText(literal: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (m === null) throw new TypeError(`not a JSON number: ${literal}`);
  const fraction = m[3] ?? "";
  let digits = (m[2]! + fraction).replace(/^0+/, "");
  let exponent = BigInt(m[4] ?? "0") - BigInt(fraction.length);
  if (digits === "") return "0";
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  exponent += BigInt(digits.length - end);
  digits = digits.slice(0, end);
  return `${m[1]}${digits}e${exponent}`;
}

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

// ---------------------------------------------------------------------------------------------
// Statements of the inputs

/** A path as a certificate shows it: relative to `cwd`, `/`-separated; a URL without its user info. */
export function certificatePath(path: string, cwd = process.cwd()): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try {
      const url = new URL(path);
      url.username = "";
      url.password = "";
      return url.toString();
    } catch {
      return path;
    }
  }
  const rel = relative(cwd, isAbsolute(path) ? path : resolve(cwd, path));
  return rel === "" ? "." : rel.split(sep).join("/");
}

/** The contract as loaded: where, which, and the sha256 of its canonical JSON. */
export function describeContract(
  contract: Pick<Contract, "source" | "title" | "version" | "openapi" | "document">,
  cwd?: string,
): ContractStatement {
  let text: string;
  try {
    text = canonicalJson(contract.document);
  } catch (error) {
    throw new KitError(
      "PS_SPEC_INVALID",
      `${contract.source}: cannot be hashed for a certificate: ${(error as Error).message}`,
    );
  }
  return {
    path: certificatePath(contract.source, cwd),
    title: contract.title,
    version: contract.version,
    openapi: contract.openapi,
    sha256: sha256(text),
  };
}

/** The fixture set of a folder: every `*.json` file, by fixture id (the file name without .json). */
export function describeFixtures(dir: string, cwd?: string): FixturesStatement {
  const files = fixtureFiles(dir);
  const set: Record<string, unknown> = Object.create(null);
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(dir, file), "utf8");
    } catch (error) {
      throw new KitError("PS_FILE_UNREADABLE", `${join(dir, file)}: ${(error as Error).message}`);
    }
    const parsed = parseCanonicalInput(text);
    if (!parsed.ok) throw new KitError("PS_FIXTURE_INVALID", `${join(dir, file)}: not valid JSON: ${parsed.message}`);
    set[file.slice(0, -".json".length)] = parsed.value;
  }
  return { path: certificatePath(dir, cwd), count: files.length, sha256: sha256(canonicalJson(set)) };
}

/** A baseline file: its known deviations and the sha256 of its canonical JSON. */
export function describeBaseline(file: string, cwd?: string): BaselineStatement {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--baseline ${file}: ${(error as Error).message}`);
  }
  const parsed = parseCanonicalInput(text);
  if (!parsed.ok) throw new KitError("PS_BASELINE_INVALID", `${file}: not JSON: ${parsed.message}`);
  const deviations = (parsed.value as { deviations?: unknown } | null)?.deviations;
  return {
    path: certificatePath(file, cwd),
    count: Array.isArray(deviations) ? deviations.length : 0,
    sha256: sha256(canonicalJson(parsed.value)),
  };
}

/** The kit's name and version, from its package.json. */
export function kitIdentity(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(KIT_ROOT, "package.json"), "utf8")) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

// ---------------------------------------------------------------------------------------------
// Keys

/** An Ed25519 private key from PEM (PKCS#8); a PS_USAGE error that never quotes the key otherwise. */
export function signingKeyFromPem(pem: string, where: string): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new KitError("PS_USAGE", `${where}: not a PEM private key (an unencrypted PKCS#8 "PRIVATE KEY")`);
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new KitError(
      "PS_USAGE",
      `${where}: a ${key.asymmetricKeyType ?? "unknown"} key; certificates are signed with Ed25519`,
    );
  }
  return { kind: "ed25519", privateKey: key };
}

/** An HMAC shared secret; at least 16 characters, so that it cannot be guessed from a signature. */
export function hmacKey(secret: string, where: string): SigningKey {
  if (secret.length < 16) {
    throw new KitError(
      "PS_USAGE",
      `${where}: the shared key must have at least 16 characters (32 random bytes in hex is best)`,
    );
  }
  return { kind: "hmac", secret };
}

/** An Ed25519 public key from PEM (SPKI; a private key's PEM gives its public key too). */
export function publicKeyFromPem(pem: string, where: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new KitError("PS_USAGE", `${where}: not a PEM public key`);
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new KitError(
      "PS_USAGE",
      `${where}: a ${key.asymmetricKeyType ?? "unknown"} key; certificates are signed with Ed25519`,
    );
  }
  return key;
}

/** 16 hex digits naming a key: of the public key's SPKI bytes, or of the shared secret (in a domain of its own). */
export function keyId(key: SigningKey | KeyObject | string): string {
  if (typeof key === "string") return sha256(`plantstore-kit certificate hmac key\n${key}`).slice(0, 16);
  if ("kind" in key) return key.kind === "hmac" ? keyId(key.secret) : keyId(createPublicKey(key.privateKey));
  return createHash("sha256")
    .update(key.export({ type: "spki", format: "der" }))
    .digest("hex")
    .slice(0, 16);
}

// ---------------------------------------------------------------------------------------------
// Building and signing

/**
 * What is signed: the canonical JSON of the certificate with `signature.value` left out. The
 * algorithm and the key id are covered, so neither can be swapped without breaking the value.
 */
export function signedText(certificate: Record<string, unknown>): string {
  const signature = certificate.signature as Record<string, unknown> | undefined;
  const header =
    signature !== null && typeof signature === "object"
      ? Object.fromEntries(Object.entries(signature).filter(([k]) => k !== "value"))
      : signature;
  return canonicalJson({ ...certificate, signature: header });
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
    levels: summary.levels.map((l) => ({ level: l.level, verdict: l.verdict, failedCases: l.failedCases.length })),
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

/** The tamper evidence of a certificate's body (everything but the signature). */
export function signCertificate(body: object, key: SigningKey | undefined): CertificateSignature {
  const header =
    key === undefined
      ? { alg: "sha256" as const }
      : { alg: key.kind === "hmac" ? ("hmac-sha256" as const) : ("ed25519" as const), keyId: keyId(key) };
  const text = signedText({ ...body, signature: header });
  if (key === undefined) return { ...header, value: sha256(text) };
  if (key.kind === "hmac")
    return { ...header, value: createHmac("sha256", key.secret).update(text, "utf8").digest("hex") };
  return { ...header, value: sign(null, Buffer.from(text, "utf8"), key.privateKey).toString("base64") };
}

/** The certificate as a file: two-space JSON (the signature covers the canonical form, not the layout). */
export function certificateText(certificate: Certificate): string {
  return JSON.stringify(certificate, null, 2) + "\n";
}

/** Writes a certificate whole or not at all. */
export function writeCertificate(file: string, certificate: Certificate): void {
  writeFileAtomic(file, certificateText(certificate));
}

// ---------------------------------------------------------------------------------------------
// Verifying

export interface VerifyOptions {
  /** A spec to compare with the certificate's contract (path or URL). */
  readonly spec?: string;
  /** A fixtures folder to compare with the certificate's fixture set. */
  readonly fixtures?: string;
  /** A baseline file to compare with the certificate's baseline. */
  readonly baseline?: string;
  /** The shared key of an hmac-sha256 certificate. */
  readonly hmacKey?: string;
  /** The public key of an ed25519 certificate (a KeyObject, or PEM text). */
  readonly publicKey?: KeyObject | string;
}

/**
 * intact: the signature holds and every input given matches. mismatch: edited, or an input does not
 * match (problems say which field). unreadable: not JSON, or not a certificate this kit reads.
 * key-needed: signed with a key the verifier did not give; nothing can be proved without it.
 */
export type VerifyResult =
  | { readonly status: "intact"; readonly ok: true; readonly problems: readonly []; readonly certificate: Certificate }
  | {
      readonly status: "mismatch";
      readonly ok: false;
      readonly problems: readonly string[];
      readonly certificate: Certificate;
    }
  | {
      readonly status: "key-needed";
      readonly ok: false;
      readonly problems: readonly string[];
      readonly certificate: Certificate;
    }
  | { readonly status: "unreadable"; readonly ok: false; readonly problems: readonly string[] };

const ALGS: readonly string[] = ["sha256", "hmac-sha256", "ed25519"];

/** Checks a certificate's text: its tamper evidence, then each input given against what it states. */
export async function verifyCertificate(text: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const unreadable = (why: string): VerifyResult => ({ status: "unreadable", ok: false, problems: [why] });
  const parsed = parseCanonicalInput(text);
  if (!parsed.ok) return unreadable(`not JSON: ${parsed.message}`);
  const data = parsed.value as Record<string, unknown> | null;
  if (data === null || typeof data !== "object" || Array.isArray(data) || data.certificate !== CERTIFICATE_MARK) {
    return unreadable(`not a ${CERTIFICATE_MARK} (no "certificate": "${CERTIFICATE_MARK}")`);
  }
  if (data.format !== CERTIFICATE_FORMAT) {
    return unreadable(
      `format ${JSON.stringify(data.format)}: this kit reads format ${CERTIFICATE_FORMAT} (a newer kit may read it)`,
    );
  }
  const certificate = data as unknown as Certificate;
  const problems: string[] = duplicateKeys(text).map(
    (p) => `${p}: given twice; readers disagree on which counts (the kit writes each field once)`,
  );
  const signature = data.signature as Record<string, unknown> | null | undefined;
  const publicKey =
    options.publicKey === undefined
      ? undefined
      : typeof options.publicKey === "string"
        ? publicKeyFromPem(options.publicKey, "public key")
        : options.publicKey;
  const hmac = options.hmacKey || undefined;
  if (
    signature === null ||
    typeof signature !== "object" ||
    typeof signature.alg !== "string" ||
    !ALGS.includes(signature.alg) ||
    typeof signature.value !== "string"
  ) {
    problems.push(`signature: missing or not as the kit writes it (alg one of ${ALGS.join(", ")}, and a value)`);
  } else {
    const signed = signedText(data);
    const value = signature.value;
    const id = typeof signature.keyId === "string" ? ` (key id ${signature.keyId})` : "";
    if (signature.alg === "sha256") {
      if (!sameText(value, sha256(signed)))
        problems.push(`signature: the digest does not match the content: the certificate was edited`);
      if (hmac !== undefined || publicKey !== undefined) {
        problems.push(
          `signature: a plain sha256 digest, but a key was given: anyone can recompute a digest, so nothing shows who wrote this certificate (was its signature replaced?)`,
        );
      }
    } else if (signature.alg === "hmac-sha256") {
      if (hmac === undefined) {
        const why =
          publicKey !== undefined
            ? `signature: signed with hmac-sha256${id}, but a public key was given: the certificate is not signed by that key's holder`
            : undefined;
        if (why !== undefined) problems.push(why);
        else {
          return {
            status: "key-needed",
            ok: false,
            certificate,
            problems: [
              `signature: signed with hmac-sha256${id}; set PLANTSTORE_CERTIFICATE_KEY to the shared key to verify it`,
            ],
          };
        }
      } else if (!sameText(value, createHmac("sha256", hmac).update(signed, "utf8").digest("hex"))) {
        problems.push(
          signature.keyId === keyId(hmac)
            ? `signature: the HMAC does not match the content: the certificate was edited`
            : `signature: the HMAC does not match: signed with another key${id} than the one given (key id ${keyId(hmac)}), or edited`,
        );
      }
    } else {
      if (publicKey === undefined) {
        if (hmac !== undefined) {
          problems.push(
            `signature: signed with ed25519${id}, but a shared HMAC key was given: the certificate is not signed with that key`,
          );
        } else {
          return {
            status: "key-needed",
            ok: false,
            certificate,
            problems: [
              `signature: signed with ed25519${id}; give the signer's public key (--public-key FILE) to verify it`,
            ],
          };
        }
      } else if (!verify(null, Buffer.from(signed, "utf8"), publicKey, Buffer.from(value, "base64"))) {
        problems.push(
          signature.keyId === keyId(publicKey)
            ? `signature: the Ed25519 signature does not match the content: the certificate was edited`
            : `signature: the Ed25519 signature does not match: signed by another key${id} than the one given (key id ${keyId(publicKey)}), or edited`,
        );
      }
    }
  }
  problems.push(...(await inputProblems(certificate, options)));
  return problems.length === 0
    ? { status: "intact", ok: true, problems: [], certificate }
    : { status: "mismatch", ok: false, problems, certificate };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The inputs given that differ from what the certificate states. */
async function inputProblems(certificate: Certificate, options: VerifyOptions): Promise<string[]> {
  const problems: string[] = [];
  const stated = certificate as unknown as Record<string, Record<string, unknown> | null | undefined>;
  if (options.spec !== undefined) {
    const given = describeContract(await loadContract(options.spec));
    const claimed = stated.contract?.sha256;
    if (claimed !== given.sha256) {
      problems.push(
        `contract.sha256: the certificate's contract (${String(claimed)}) is not ${options.spec} ` +
          `(${given.title} ${given.version}, ${given.sha256})`,
      );
    }
  }
  if (options.fixtures !== undefined) {
    const given = describeFixtures(options.fixtures);
    const claimed = stated.fixtures;
    if (claimed === null || claimed === undefined) {
      problems.push(
        `fixtures: the certificate's run used no fixtures (generated cases only), but --fixtures was given`,
      );
    } else if (claimed.sha256 !== given.sha256) {
      problems.push(
        `fixtures.sha256: the certificate's fixture set (${String(claimed.count)} files, ${String(claimed.sha256)}) is not ` +
          `${options.fixtures} (${given.count} files, ${given.sha256})`,
      );
    }
  }
  if (options.baseline !== undefined) {
    const given = describeBaseline(options.baseline);
    const claimed = stated.baseline;
    if (claimed === null || claimed === undefined) {
      problems.push(`baseline: the certificate's run used no baseline, but --baseline was given`);
    } else if (claimed.sha256 !== given.sha256) {
      problems.push(
        `baseline.sha256: the certificate's baseline (${String(claimed.count)} deviations, ${String(claimed.sha256)}) ` +
          `is not ${options.baseline} (${given.count} deviations, ${given.sha256})`,
      );
    }
  }
  return problems;
}

/**
 * The JSON pointers of object members a valid JSON text gives twice. JSON.parse keeps the last, other
 * readers the first: a certificate with a duplicate could show one verdict and be verified by another.
 */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  // Per open container: its keys (null for an array), its pointer, and the key being read.
  const stack: { keys: Set<string> | null; pointer: string; index: number; key: string }[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "{" || c === "[") {
      const parent = stack.at(-1);
      const pointer =
        parent === undefined ? "" : `${parent.pointer}/${parent.keys === null ? parent.index : escape(parent.key)}`;
      stack.push({ keys: c === "{" ? new Set() : null, pointer, index: 0, key: "" });
      i++;
    } else if (c === "}" || c === "]") {
      stack.pop();
      i++;
    } else if (c === ",") {
      const top = stack.at(-1);
      if (top !== undefined && top.keys === null) top.index++;
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = stack.at(-1);
      let k = j + 1;
      while (k < n && " \t\r\n".includes(text[k]!)) k++;
      if (top?.keys != null && text[k] === ":") {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) found.push(`${top.pointer}/${escape(key)}`);
        top.keys.add(key);
        top.key = key;
      }
      i = j + 1;
    } else i++;
  }
  return found;
}

const escape = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

// ---------------------------------------------------------------------------------------------
// Reading

/** What a certificate states, in a few lines for a person (robust to a certificate of any shape). */
export function certificateLines(certificate: Certificate): string[] {
  const at = (...keys: (string | number)[]): unknown =>
    keys.reduce<unknown>(
      (v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined),
      certificate,
    );
  const s = (...keys: (string | number)[]): string => {
    const v = at(...keys);
    return typeof v === "string" || typeof v === "number" ? String(v) : (JSON.stringify(v) ?? "?");
  };
  const ratio = (what: string): string => `${s("coverage", what, "exercised")} of ${s("coverage", what, "total")}`;
  const levelList = at("levels");
  const levels = Array.isArray(levelList)
    ? levelList
        .map((_, i) => {
          const failing = at("levels", i, "failedCases");
          const cases = typeof failing === "number" && failing > 0 ? ` (${failing} failing cases)` : "";
          return `${s("levels", i, "level")} ${s("levels", i, "verdict").toUpperCase()}${cases}`;
        })
        .join(", ")
    : s("levels");
  const fixtures =
    at("fixtures") === null
      ? "none (generated cases only)"
      : `${s("fixtures", "path")} (${s("fixtures", "count")} files, sha256 ${s("fixtures", "sha256")})`;
  const baseline =
    at("baseline") === null
      ? "none"
      : `${s("baseline", "path")} (${s("baseline", "count")} deviations, sha256 ${s("baseline", "sha256")})`;
  const list = (flag: string, v: unknown): string =>
    Array.isArray(v) && v.length > 0 ? `; --${flag} ${v.map(String).join(",")}` : "";
  const generated = at("generate") === null ? "" : `; generated: ${s("generate")} per operation and polarity`;
  const minimum = at("minCoverage") === null ? "" : ` (--min-coverage ${s("minCoverage")})`;
  const exit = at("exitCode");
  const lines = [
    `kit: ${s("kit", "name")} ${s("kit", "version")} on Node ${s("node")}`,
    `contract: ${s("contract", "path")} (${s("contract", "title")} ${s("contract", "version")}, OpenAPI ` +
      `${s("contract", "openapi")}), sha256 ${s("contract", "sha256")}`,
    `fixtures: ${fixtures}${generated}${list("only", at("selection", "only"))}${list("skip", at("selection", "skip"))}`,
    `baseline: ${baseline}`,
    `run: ${s("startedAt")} against ${s("target")}, seed ${s("seed")}, ${s("durationMs")} ms`,
    `cases: ${s("cases", "total")}: ${s("cases", "passed")} passed, ${s("cases", "failed")} failed, ` +
      `${s("cases", "known")} known deviations, ${s("cases", "errors")} errors`,
    `levels: ${levels}`,
    `coverage: ${ratio("operations")} operations, ${ratio("statuses")} documented statuses, ` +
      `${ratio("parameters")} parameters${minimum}`,
  ];
  if (at("runError") !== null) lines.push(`run error: ${s("runError")}`);
  const verdict = exit === 0 ? "PASS" : exit === 1 ? "FAIL" : "COULD NOT JUDGE";
  lines.push(`verdict of the run: ${verdict} (exit ${s("exitCode")})`);
  return lines;
}

/** What the tamper evidence of a certificate proves, in one line. */
export function signatureMeaning(signature: CertificateSignature): string {
  if (signature.alg === "sha256") {
    return "sha256 digest only: shows the certificate was not changed by accident; anyone can recompute a digest, so it does not show who made it";
  }
  if (signature.alg === "hmac-sha256") {
    return `HMAC-SHA256 with key ${signature.keyId ?? "?"}: made by a holder of the shared key, and not changed since`;
  }
  return `Ed25519 signature by key ${signature.keyId ?? "?"}: made by the holder of the private key, and not changed since`;
}
