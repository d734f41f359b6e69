// Verifying a certificate: that it is one this kit reads, that its tamper evidence holds with the keys
// given, and that the inputs given are the ones it states.
import type { KeyObject } from "node:crypto";
import { loadContract } from "../../contract/index.js";
import { duplicateKeys, parseCanonicalInput } from "./canonical-json.js";
import { CERTIFICATE_FORMAT, CERTIFICATE_MARK, type Certificate } from "./certificate.js";
import { describeBaseline, describeContract, describeFixtures } from "./inputs.js";
import { publicKeyFromPem } from "./keys.js";
import { checkSignature } from "./signature.js";

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
  const publicKey =
    options.publicKey === undefined
      ? undefined
      : typeof options.publicKey === "string"
        ? publicKeyFromPem(options.publicKey, "public key")
        : options.publicKey;
  const checked = checkSignature(data, { hmac: options.hmacKey || undefined, publicKey });
  if ("keyNeeded" in checked) return { status: "key-needed", ok: false, certificate, problems: [checked.keyNeeded] };
  problems.push(...checked.problems);
  problems.push(...(await inputProblems(certificate, options)));
  return problems.length === 0
    ? { status: "intact", ok: true, problems: [], certificate }
    : { status: "mismatch", ok: false, problems, certificate };
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
