import { existsSync, readFileSync, rmSync } from "node:fs";
import {
  baselineFile,
  certificateLines,
  describeBaseline,
  describeContract,
  describeFixtures,
  hmacKey,
  publicKeyFromPem,
  signatureMeaning,
  signingKeyFromPem,
  verifyCertificate,
  type CertificateInput,
  type RunOptions,
  type SigningKey,
} from "../harness/index.js";
import type { Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_FIXTURES } from "../paths.js";
import { parseFlags } from "./args.js";
import { helpText, type CommandFlags } from "./flags.js";
import type { Io } from "./io.js";

export const CERTIFICATE_KEY_VARIABLE = "PLANTSTORE_CERTIFICATE_KEY";

const verify = "VerifyOptions";

/** \`plantstore certificate verify\`: its flags, its --help and its rows of docs/flags.md. */
export const CERTIFICATE = {
  command: "certificate",
  usage: "certificate verify FILE [--spec FILE] [--fixtures DIR] [--baseline FILE] [--public-key FILE]",
  description: `Checks a certificate written by "plantstore conformance --certificate FILE": that it was not edited
since it was signed, and that the inputs given are the ones it states. Exit 0 says the certificate is
intact and matches; the verdict of the run it certifies is printed ("verdict of the run").`,
  flags: {
    spec: {
      type: "string",
      value: "FILE",
      help: "the contract the run must have used",
      more: "Compared by the sha256 of its canonical JSON: re-formatting, re-ordering or converting YAML to JSON keeps it.",
      option: `${verify}.spec`,
    },
    fixtures: {
      type: "string",
      value: "DIR",
      help: "the fixture folder the run must have used",
      option: `${verify}.fixtures`,
    },
    baseline: {
      type: "string",
      value: "FILE",
      help: "the baseline the run must have used",
      option: `${verify}.baseline`,
    },
    "public-key": {
      type: "string",
      value: "FILE",
      help: "the signer's Ed25519 public key (PEM), for a certificate signed with Ed25519",
      option: `${verify}.publicKey`,
    },
    help: { type: "boolean", short: "h", help: "show this help", option: null },
  },
  footer: `Environment: ${CERTIFICATE_KEY_VARIABLE}, the shared key, for a certificate signed with HMAC-SHA256; never printed.

Exit codes: 0 intact and matching; 1 edited, signed by another key, or an input does not match (each
problem on a line of its own, naming the field); 2 cannot be read (no such file, not JSON, not a
certificate), or signed with a key that was not given.`,
} as const satisfies CommandFlags;

/** `plantstore certificate verify FILE ...`. */
export async function certificate(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    io.out(helpText(CERTIFICATE));
    return sub === undefined ? 2 : 0;
  }
  if (sub !== "verify")
    throw new KitError("PS_USAGE", `unknown subcommand ${JSON.stringify(sub)} (verify; see --help)`);
  const { values, positionals } = parseFlags(rest, CERTIFICATE.flags, { allowPositionals: true });
  if (values.help) {
    io.out(helpText(CERTIFICATE));
    return 0;
  }
  if (positionals.length !== 1) {
    throw new KitError("PS_USAGE", `verify takes one certificate FILE, got ${positionals.length} (see --help)`);
  }
  const file = positionals[0]!;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `certificate ${file}: ${(error as Error).message}`);
  }
  const keyFile = values["public-key"];
  const result = await verifyCertificate(text, {
    spec: values.spec,
    fixtures: values.fixtures,
    baseline: values.baseline === undefined ? undefined : baselineFile(values.baseline),
    hmacKey: io.env[CERTIFICATE_KEY_VARIABLE] || undefined,
    publicKey:
      keyFile === undefined
        ? undefined
        : publicKeyFromPem(readKeyFile(keyFile, "--public-key"), `--public-key ${keyFile}`),
  });
  if (result.status === "unreadable") {
    throw new KitError("PS_FILE_UNREADABLE", `certificate ${file}: ${result.problems.join("; ")}`);
  }
  if (result.status === "key-needed")
    throw new KitError("PS_USAGE", `certificate ${file}: ${result.problems.join("; ")}`);
  if (result.status === "mismatch") {
    io.out(`certificate ${file}: NOT VERIFIED (exit 1)`);
    for (const problem of result.problems) io.out(problem);
    return 1;
  }
  const checked = [
    values.spec === undefined ? undefined : "--spec",
    values.fixtures === undefined ? undefined : "--fixtures",
    values.baseline === undefined ? undefined : "--baseline",
  ].filter((c) => c !== undefined);
  io.out(`certificate ${file}: intact${checked.length === 0 ? "" : `, matches ${checked.join(", ")}`} (exit 0)`);
  io.out(signatureMeaning(result.certificate.signature));
  for (const line of certificateLines(result.certificate)) io.out(line);
  return 0;
}

/** A key file's text; the error names the file and never quotes its content. */
function readKeyFile(file: string, flag: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `${flag} ${file}: ${(error as Error).message}`);
  }
}

/**
 * The key `conformance --certificate` signs with: an Ed25519 private key file (--signing-key), or
 * the shared HMAC key in PLANTSTORE_CERTIFICATE_KEY; neither: a plain digest. Both at once is refused
 * (which one signed would be a guess). Read before the run, so a bad key cannot cost its results.
 */
export function certificateKey(
  keyFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): SigningKey | undefined {
  const shared = env[CERTIFICATE_KEY_VARIABLE] || undefined;
  if (keyFile !== undefined && shared !== undefined) {
    throw new KitError("PS_USAGE", `--signing-key and ${CERTIFICATE_KEY_VARIABLE} are both set: sign with one of them`);
  }
  if (keyFile !== undefined)
    return signingKeyFromPem(readKeyFile(keyFile, "--signing-key"), `--signing-key ${keyFile}`);
  return shared === undefined ? undefined : hmacKey(shared, CERTIFICATE_KEY_VARIABLE);
}

/** The secrets of a signing key, for the redactor: the shared key, or the private key's PEM body. */
export function keySecrets(key: SigningKey | undefined): string[] {
  if (key === undefined) return [];
  if (key.kind === "hmac") return [key.secret];
  const pem = key.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return [pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "")];
}

/**
 * After a run that could not start: no certificate (there is no verdict to certify), and none left
 * from an earlier run at the same path, which CI could take for this run's.
 */
export function removeStaleCertificate(file: string, io: Io): void {
  let removed = false;
  if (existsSync(file)) {
    try {
      rmSync(file);
      removed = true;
    } catch {
      // A folder, or not ours to remove: left as it is.
    }
  }
  io.err(
    `plantstore conformance: no certificate written: the run could not start${removed ? ` (removed ${file}, from an earlier run)` : ""}`,
  );
}

/** What a certificate states of a run's inputs. */
export type CertificateInputs = Pick<CertificateInput, "contract" | "fixtures" | "baseline">;

/** The contract, the fixture set (none for generated cases only) and the baseline file of a run. */
export function certificateInputs(contract: Contract, options: RunOptions, baselineFile?: string): CertificateInputs {
  return {
    contract: describeContract(contract),
    fixtures: options.noFixtures === true ? null : describeFixtures(options.fixtures ?? DEFAULT_FIXTURES),
    baseline: baselineFile === undefined ? null : describeBaseline(baselineFile),
  };
}
