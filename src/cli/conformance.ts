import { join, resolve } from "node:path";
import {
  baselineFromResults,
  baselineFile as shippedOrFile,
  buildCertificate,
  checkWritable,
  consoleReporter,
  createRedactor,
  credentialVariable,
  declaredSchemes,
  LEVEL_SUMMARIES,
  LEVELS,
  loadBaseline,
  RUN_DEFAULTS,
  runOrThrow,
  savedFixtures,
  secretsToMask,
  writeBaseline,
  writeCertificate,
  writeErrorReports,
  writeReports,
  writeSavedFixture,
  type CaseResult,
  type Redactor,
  type ReportFile,
  type RunOptions,
  type RunSummary,
  type SigningKey,
} from "../harness/index.js";
import { loadContract, type Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_FIXTURES, DEFAULT_SPEC, shortPath } from "../paths.js";
import { commandValues, parseReportFlag } from "./args.js";
import {
  CERTIFICATE_KEY_VARIABLE,
  certificateInputs,
  certificateKey,
  keySecrets,
  removeStaleCertificate,
  type CertificateInputs,
} from "./certificate.js";
import { type CommandFlags, type FlagValues } from "./flags.js";
import type { Io } from "./io.js";

/** What `--generate` alone means, and what a run of another spec without fixtures generates. */
export const GENERATE_COUNT = 100;

const run = "RunOptions";

/** `plantstore conformance`: its flags, its --help and its rows of docs/flags.md. */
export const CONFORMANCE = {
  command: "conformance",
  usage: "conformance --target URL [--token TOKEN] [--credential NAME=VALUE] [options]",
  description: "Replays the fixtures against a running server and judges every answer by the spec.",
  flags: {
    target: {
      type: "string",
      value: "URL",
      help: "base URL of the server under test, http or https, may carry a base path",
      env: "PLANTSTORE_TARGET",
      option: `${run}.target`,
      section: "Target and credentials",
    },
    token: {
      type: "string",
      value: "TOKEN",
      help: "the credential for every security scheme of the spec; prefer the variable: a flag shows in the process list",
      more:
        "A bearer token (http bearer, oauth2, openIdConnect), an apiKey's key, USER:PASSWORD for http basic. " +
        "Needed only when an operation that runs requires credentials. Never printed: output shows [REDACTED], " +
        "curl commands use ${PLANTSTORE_TOKEN}.",
      env: "PLANTSTORE_TOKEN",
      option: `${run}.token`,
      section: "Target and credentials",
    },
    credential: {
      type: "string",
      multiple: true,
      value: "NAME=VALUE",
      help: "the credential for the spec's security scheme NAME (a securitySchemes key), before --token",
      more:
        "Or the variable PLANTSTORE_CREDENTIAL_<NAME>: NAME upper-cased, characters other than A-Z and 0-9 as _. " +
        "An operation uses the first of its alternatives with a credential for each of its schemes. Never printed, as --token.",
      option: `${run}.credentials`,
      section: "Target and credentials",
    },
    "ca-file": {
      type: "string",
      aliases: ["ca"],
      value: "FILE",
      help: "trust this CA (PEM) for an https target",
      option: `${run}.caFile`,
      section: "Target and credentials",
    },
    insecure: {
      type: "boolean",
      help: "accept any certificate (private test servers only)",
      option: `${run}.insecure`,
      section: "Target and credentials",
    },
    spec: {
      type: "string",
      value: "FILE",
      help: "OpenAPI 3.0/3.1 document",
      defaultText: "the kit's spec/openapi.yaml",
      option: `${run}.spec`,
      section: "What to run",
    },
    fixtures: {
      type: "string",
      value: "DIR",
      help: "folder of fixture files",
      defaultText: `the kit's fixtures/, for the kit's spec; with another --spec, generated cases only, --generate ${GENERATE_COUNT}`,
      option: `${run}.fixtures`,
      section: "What to run",
    },
    only: {
      type: "list",
      multiple: true,
      value: "ID[,ID...]",
      help: "run only these fixture ids or check ids (* is a wildcard)",
      option: `${run}.only`,
      section: "What to run",
    },
    skip: {
      type: "list",
      multiple: true,
      value: "ID[,ID...]",
      help: "leave out these fixture ids or check ids",
      option: `${run}.skip`,
      section: "What to run",
    },
    seed: {
      type: "string",
      value: "N",
      help: "replay the fresh values and generated cases of an earlier run (its seed is printed)",
      option: `${run}.seed`,
      section: "What to run",
    },
    generate: {
      type: "integer",
      value: "N",
      bare: GENERATE_COUNT,
      min: 1,
      max: 100_000,
      help: `also generate N (${GENERATE_COUNT} if not given) bodies per operation and polarity from the request schema`,
      more:
        "Positive ones (edges of the schema) must get the documented success, negative ones (one broken rule each) " +
        "a 4xx; a failure is shrunk to a smallest failing body. Then the stateful phase: a sequence per resource of " +
        "the contract (create, read, replace, patch, list, delete) and each chain of its OpenAPI links, answers " +
        "compared across steps (level stateful, counted: --skip 'stateful.*' leaves it out).",
      option: `${run}.generate.count`,
      section: "What to run",
    },
    "no-fixtures": {
      type: "boolean",
      help: "run generated cases only",
      option: `${run}.noFixtures`,
      section: "What to run",
    },
    unique: {
      type: "string",
      multiple: true,
      value: "PROP",
      help: "a body property that must be unique on a stateful server; made fresh for each run",
      defaultText: "id, and the ids clients choose by the contract's resource model",
      option: `${run}.generate.unique`,
      section: "What to run",
    },
    "max-time": {
      type: "integer",
      value: "MS",
      min: 1_000,
      max: 86_400_000,
      help: "outer guard of the generated part",
      more:
        "Generation and shrinking are budgeted by counts, so only a hang reaches it; a run it stops exits 2 " +
        "and says how many cases were judged.",
      defaultText: `${RUN_DEFAULTS.maxTimePerOperationMs} for each operation with generated cases or in a stateful sequence`,
      option: `${run}.generate.maxTimeMs`,
      section: "What to run",
    },
    "save-failures": {
      type: "string",
      value: "DIR",
      help: "write each failing generated case as a fixture file into DIR",
      option: null,
      section: "What to run",
    },
    level: {
      type: "list",
      multiple: true,
      value: "NAME[,NAME...]",
      help: "also judge the rules of a level beyond the contract (the contract always runs); each level gets its own verdict, a failing one exits 1",
      more: LEVELS.filter((l) => l !== "contract").map((l) => `${l}: ${LEVEL_SUMMARIES[l]}`),
      option: `${run}.levels`,
      section: "Verdict and reports",
    },
    strict: {
      type: "boolean",
      help: "every level (the union of all of them)",
      option: `${run}.strict`,
      section: "Verdict and reports",
    },
    baseline: {
      type: "string",
      value: "FILE|NAME",
      help: "known deviations: reported, but not counted in the exit code",
      more:
        "NAME is a shipped one: prism (the Plant Store suite against a Prism mock) or prism-mock " +
        "(what a Prism mock of any contract does).",
      option: `${run}.baseline`,
      section: "Verdict and reports",
    },
    "write-baseline": {
      type: "string",
      value: "FILE",
      help: "write this run's counted and known findings as a baseline",
      option: null,
      section: "Verdict and reports",
    },
    report: {
      type: "string",
      multiple: true,
      value: "FORMAT=FILE",
      help: "write a report: json=FILE, junit=FILE, markdown=FILE (for $GITHUB_STEP_SUMMARY) or html=FILE",
      more: "html: one self-contained page for people (no script, no network, opens offline).",
      option: null,
      section: "Verdict and reports",
    },
    certificate: {
      type: "string",
      value: "FILE",
      help: "write a certificate of the run",
      more:
        "It states the kit and Node versions, the sha256 of the contract, fixtures and baseline, seed, target, " +
        "time, the verdict of each level, counts and coverage; signed with --signing-key (Ed25519) or with the " +
        `shared key in ${CERTIFICATE_KEY_VARIABLE} (HMAC-SHA256, never printed), else a plain sha256 digest. ` +
        'Check it with "plantstore certificate verify FILE". A run that cannot start writes none.',
      option: null,
      section: "Verdict and reports",
    },
    "signing-key": {
      type: "string",
      value: "FILE",
      help: "an Ed25519 private key (PEM, PKCS#8) to sign the certificate with",
      option: "CertificateInput.key",
      section: "Verdict and reports",
    },
    "min-coverage": {
      type: "integer",
      value: "PCT",
      min: 0,
      max: 100,
      help: "exit 1 when less than PCT percent of the contract's operations got an answer",
      defaultText: "no minimum; the verdict line says what was left",
      option: `${run}.minCoverage`,
      section: "Verdict and reports",
    },
    evidence: {
      type: "string",
      value: "all",
      help: "keep the headers and bodies of every step in the JSON report",
      defaultText: "findings: only of steps with a finding; every step keeps its URL and status",
      option: `${run}.evidence`,
      section: "Verdict and reports",
    },
    verbose: {
      type: "boolean",
      help: "show notes and evidence of passing cases too",
      option: "ConsoleOptions.verbose",
      section: "Verdict and reports",
    },
    timeout: {
      type: "integer",
      value: "MS",
      min: 100,
      max: 600_000,
      help: "time for one exchange, connect to last byte",
      default: RUN_DEFAULTS.timeoutMs,
      option: `${run}.timeoutMs`,
      section: "Limits",
    },
    concurrency: {
      type: "integer",
      value: "N",
      min: 1,
      max: 64,
      help: "cases in parallel, and requests in flight within a generated case; results stay in order",
      default: RUN_DEFAULTS.concurrency,
      option: `${run}.concurrency`,
      section: "Limits",
    },
    "max-response-bytes": {
      type: "integer",
      value: "N",
      min: 65_536,
      max: 64 * 1024 * 1024,
      help: "read at most this much of a body; more is a failure",
      default: RUN_DEFAULTS.maxResponseBytes,
      option: `${run}.maxResponseBytes`,
      section: "Limits",
    },
    help: { type: "boolean", short: "h", help: "show this help", option: null },
  },
  footer: `Exit codes: 0 no violations; 1 violations found; 2 could not run (bad flag, spec, fixture or
baseline; target unreachable; a case that could not be judged).`,
} as const satisfies CommandFlags;

/** `plantstore conformance`: a thin shell over runConformance and the reporters. */
export async function conformance(argv: string[], io: Io): Promise<number> {
  // Integers are read where the run's errors are caught, so a bad value is written into the reports too.
  const values = commandValues(argv, CONFORMANCE, io, { lazyIntegers: true });
  if (values === undefined) return 0;
  const target = values.target;
  if (target === undefined || target === "")
    throw new KitError("PS_USAGE", "--target URL is required (or set PLANTSTORE_TARGET)");
  // An empty token is none: a run needs one only when an operation it runs requires credentials.
  const token = values.token || undefined;
  const flagged = credentialFlags(values.credential ?? []);
  // Every PLANTSTORE_CREDENTIAL_* value is masked in the run's evidence, whether the spec has a scheme for it or not.
  const fromEnv = Object.entries(io.env).filter(
    (e): e is [string, string] => e[0].startsWith("PLANTSTORE_CREDENTIAL_") && typeof e[1] === "string" && e[1] !== "",
  );
  const files = runFiles(values);
  const { reports, certificateFile, baselinePath } = files;
  // The signing key is read before the run too; it is a secret, masked like the credentials.
  const signingKey = certificateFile === undefined ? undefined : certificateKey(values["signing-key"], io.env);
  if (values.seed !== undefined && !/^\d+$/.test(values.seed)) {
    throw new KitError("PS_USAGE", `--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}`);
  }
  const spec = values.spec === undefined ? DEFAULT_SPEC : resolve(values.spec);
  // The kit's fixtures are the Plant Store's: with another spec and no fixtures of its own, a run
  // generates cases for every operation instead (a run of the kit's fixtures there could only fail).
  const foreign = spec !== DEFAULT_SPEC && values.fixtures === undefined;
  // Credentials from the environment name their scheme in upper case: the spec says which it is.
  // A certificate states the contract as loaded: it is loaded once, here, for the run and the certificate.
  const contract =
    fromEnv.length === 0 && certificateFile === undefined ? undefined : await loadContract(spec).catch(() => undefined);
  const credentials = { ...(contract === undefined ? {} : envCredentials(contract, fromEnv)), ...flagged };

  // The run masks its evidence where it is made; lines are printed as they are, so a short token
  // cannot mask fixture ids, check ids, paths or variable names (see src/harness/redact.ts).
  const out = (line: string): void => io.out(line);
  // A net for the certificate's own strings (the target, a run error): long secrets and the key.
  const redact = createRedactor([
    ...secretsToMask({ token, credentials }),
    ...fromEnv.map((e) => e[1]),
    ...keySecrets(signingKey),
  ]);
  const color = io.isTty && io.env.NO_COLOR === undefined;
  let run: Awaited<ReturnType<typeof runOrThrow>>;
  let runOptions: RunOptions;
  let stated: CertificateInputs | undefined;
  try {
    // Built inside the run's try: a bad flag value still gets its error written into the reports.
    runOptions = runOptionsOf(
      values,
      { target, token, credentials, contract, spec, foreign, baselinePath, fromEnv },
      io,
    );
    // The inputs a certificate states are read as the run starts (a failure there is a run that could not start).
    if (certificateFile !== undefined && contract !== undefined)
      stated = certificateInputs(contract, runOptions, baselinePath);
    run = await runOrThrow(runOptions, consoleReporter(out, { color, verbose: values.verbose }));
  } catch (error) {
    // Reports still say why the run could not be judged, so CI shows the reason where it looks.
    if (error instanceof KitError) writeErrorReports(reports, error);
    if (certificateFile !== undefined) removeStaleCertificate(certificateFile, io);
    throw error;
  }
  const { summary, results } = run;
  writeReports(reports, summary, results);
  if (certificateFile !== undefined) {
    const inputs = stated ?? certificateInputs(await loadContract(spec), runOptions, baselinePath);
    writeRunCertificate(certificateFile, values.certificate, summary, inputs, runOptions, signingKey, redact, out);
  }
  writeFailuresAndBaseline(files, summary, results, values.unique ?? ["id"], out);
  return summary.exitCode;
}

type ConformanceValues = FlagValues<typeof CONFORMANCE.flags>;

/** The files a run reads and writes besides the spec and the fixtures. */
interface RunFiles {
  readonly reports: ReportFile[];
  /** --save-failures */
  readonly saveDir: string | undefined;
  /** --write-baseline */
  readonly baselineFile: string | undefined;
  /** --baseline, a shipped one's file or the file given */
  readonly baselinePath: string | undefined;
  readonly certificateFile: string | undefined;
}

/** The files the flags name, read and checked in the order the run needs them. */
function runFiles(values: ConformanceValues): RunFiles {
  const reports = (values.report ?? []).map((r) => parseReportFlag(r, ["json", "junit", "markdown", "html"] as const));
  const saveDir = values["save-failures"];
  const baselineFile = values["write-baseline"];
  // A shipped baseline's name (prism-mock) or a file.
  const baselinePath = values.baseline === undefined ? undefined : shippedOrFile(values.baseline);
  const certificateFile = values.certificate === undefined ? undefined : resolve(values.certificate);
  if (certificateFile === undefined && values["signing-key"] !== undefined)
    throw new KitError("PS_USAGE", "--signing-key signs a certificate: give --certificate FILE too");
  // Output paths are checked before the run, so a typo cannot cost a whole run's results.
  checkWritable([
    ...reports.map((r) => r.file),
    ...(baselineFile === undefined ? [] : [resolve(baselineFile)]),
    ...(certificateFile === undefined ? [] : [certificateFile]),
    ...(saveDir === undefined ? [] : [join(resolve(saveDir), "fixture.json")]),
  ]);
  return { reports, saveDir, baselineFile, baselinePath, certificateFile };
}

/** The run's options from the flags (integers read here, inside the run's try); says when a foreign spec gets generated cases. */
function runOptionsOf(
  values: ConformanceValues,
  read: {
    readonly target: string;
    readonly token: string | undefined;
    readonly credentials: Record<string, string>;
    readonly contract: Contract | undefined;
    readonly spec: string;
    readonly foreign: boolean;
    readonly baselinePath: string | undefined;
    readonly fromEnv: readonly [string, string][];
  },
  io: Io,
): RunOptions {
  const { target, token, credentials, contract, spec, foreign, baselinePath, fromEnv } = read;
  const generateCount = values.generate ?? (foreign ? GENERATE_COUNT : undefined);
  if (foreign && !values["no-fixtures"])
    io.out(
      `${shortPath(spec)} is not the kit's spec and no --fixtures were given: running generated cases for every ` +
        `operation (--generate ${generateCount}) and no fixture`,
    );
  return {
    target,
    token,
    credentials,
    contract,
    spec,
    fixtures: values.fixtures === undefined ? DEFAULT_FIXTURES : resolve(values.fixtures),
    only: values.only ?? [],
    skip: values.skip ?? [],
    seed: values.seed === undefined ? undefined : BigInt(values.seed),
    generate:
      generateCount === undefined
        ? undefined
        : {
            count: generateCount,
            maxTimeMs: values["max-time"],
            unique: values.unique,
          },
    noFixtures: values["no-fixtures"] || foreign,
    levels: values.level ?? [],
    strict: values.strict,
    evidence: evidenceFlag(values.evidence),
    minCoverage: values["min-coverage"],
    baseline: baselinePath === undefined ? undefined : loadBaseline(baselinePath),
    // Floors and caps keep a run meaningful and its memory bounded (concurrency x read cap).
    timeoutMs: values.timeout,
    concurrency: values.concurrency,
    maxResponseBytes: values["max-response-bytes"],
    caFile: values["ca-file"],
    insecure: values.insecure,
    mask: fromEnv.map((e) => e[1]),
  };
}

/** Builds the run's certificate from the inputs it states, signs it (with the key, if any) and writes it. */
function writeRunCertificate(
  file: string,
  shown: string | undefined,
  summary: RunSummary,
  inputs: CertificateInputs,
  runOptions: RunOptions,
  key: SigningKey | undefined,
  redact: Redactor,
  out: (line: string) => void,
): void {
  const certificate = buildCertificate({
    summary,
    ...inputs,
    only: runOptions.only,
    skip: runOptions.skip,
    generate: runOptions.generate?.count,
    key,
    redact,
  });
  writeCertificate(file, certificate);
  const { alg, keyId } = certificate.signature;
  out(`certificate written to ${shown} (${alg}${keyId === undefined ? "" : `, key id ${keyId}`})`);
}

/** --save-failures and --write-baseline, after the run. */
function writeFailuresAndBaseline(
  files: RunFiles,
  summary: RunSummary,
  results: readonly CaseResult[],
  unique: readonly string[],
  out: (line: string) => void,
): void {
  if (files.saveDir !== undefined) {
    for (const fixture of savedFixtures(results, summary.seed, unique)) {
      out(`saved ${writeSavedFixture(files.saveDir, fixture)}`);
    }
  }
  if (files.baselineFile !== undefined) {
    const baseline = baselineFromResults(results, summary.target);
    writeBaseline(files.baselineFile, baseline);
    out(`baseline with ${baseline.deviations.length} deviations written to ${files.baselineFile}`);
  }
}

/** `--credential NAME=VALUE` flags, each NAME once. */
function credentialFlags(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    const name = eq < 0 ? "" : flag.slice(0, eq);
    // The value is never echoed: it is a secret.
    if (name === "" || eq === flag.length - 1)
      throw new KitError("PS_USAGE", `--credential must be NAME=VALUE, with a scheme name and a credential`);
    if (name in out) throw new KitError("PS_USAGE", `--credential ${name} is given twice`);
    out[name] = flag.slice(eq + 1);
  }
  return { ...out };
}

/** The PLANTSTORE_CREDENTIAL_<NAME> variables set for the spec's schemes. */
function envCredentials(contract: Contract, set: readonly [string, string][]): Record<string, string> {
  const env = new Map(set);
  const out: Record<string, string> = {};
  for (const name of declaredSchemes(contract)) {
    const value = env.get(credentialVariable(name));
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function evidenceFlag(value: string | undefined): "findings" | "all" {
  if (value === undefined || value === "findings" || value === "all") return value ?? "findings";
  throw new KitError("PS_USAGE", `--evidence: expected "all" or "findings", got ${JSON.stringify(value)}`);
}
