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
  runConformance,
  savedFixtures,
  secretsToMask,
  writeBaseline,
  writeCertificate,
  writeErrorReports,
  writeReports,
  writeSavedFixture,
  type ReportFile,
  type RunOptions,
} from "../harness/index.js";
import { loadContract, type Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_FIXTURES, DEFAULT_SPEC, shortPath } from "../paths.js";
import { envList, integerFlag, parseFlags, parseReportFlag } from "./args.js";
import {
  certificateInputs,
  certificateKey,
  keySecrets,
  removeStaleCertificate,
  type CertificateInputs,
} from "./certificate.js";
import type { Io } from "./io.js";

export const CONFORMANCE_HELP = `Usage: plantstore conformance --target URL [--token TOKEN] [--credential NAME=VALUE] [options]

Replays the fixtures against a running server and judges every answer by the spec.

Target and credentials:
  --target URL              base URL of the server under test, http or https, may carry a base path
                            (env PLANTSTORE_TARGET)
  --token TOKEN             the credential for every security scheme of the spec (env
                            PLANTSTORE_TOKEN, preferred: a flag is visible in the process list): a
                            bearer token (http bearer, oauth2, openIdConnect), an apiKey's key,
                            USER:PASSWORD for http basic. Needed only when an operation that runs
                            requires credentials. Never printed: output shows [REDACTED], curl
                            commands use \${PLANTSTORE_TOKEN}.
  --credential NAME=VALUE   the credential for the spec's security scheme NAME (a securitySchemes
                            key), before --token; repeatable (env PLANTSTORE_CREDENTIAL_<NAME>:
                            NAME upper-cased, characters other than A-Z and 0-9 as _). An
                            operation uses the first of its alternatives with a credential for
                            each of its schemes. Never printed, as --token.
  --ca FILE                 trust this CA (PEM) for an https target
  --insecure                accept any certificate (private test servers only)

What to run:
  --spec FILE               OpenAPI 3.0/3.1 document (default: the kit's spec/openapi.yaml)
  --fixtures DIR            folder of fixture files (default: the kit's fixtures/, for the kit's spec;
                            with another --spec and no --fixtures, generated cases only, --generate 100)
  --only ID[,ID...]         run only these fixture ids or check ids (* is a wildcard); repeatable
  --skip ID[,ID...]         leave out these fixture ids or check ids; repeatable
  --seed N                  replay the fresh values and generated cases of an earlier run (its seed
                            is printed)
  --generate [N]            also generate N (default 100) bodies per operation and polarity from the request
                            schema: positive ones (edges of the schema) must get the documented
                            success, negative ones (one broken rule each) a 4xx; a failure is shrunk
                            to a smallest failing body
  --no-fixtures             run generated cases only
  --unique PROP             a body property that must be unique on a stateful server; made fresh
                            for each run (default: id); repeatable
  --max-time MS             outer guard of the generated part: generation and shrinking are budgeted
                            by counts, so only a hang reaches it; a run it stops exits 2 and says
                            how many cases were judged (default: ${RUN_DEFAULTS.maxTimePerOperationMs} for each
                            operation with generated cases)
  --save-failures DIR       write each failing generated case as a fixture file into DIR

Verdict and reports:
  --level NAME[,NAME...]     also judge the rules of a level beyond the contract (the contract always
                            runs); each level gets its own verdict, a failing one exits 1; repeatable:
${levelHelp()}
  --strict                  every level (the union of all of them)
  --baseline FILE|NAME      known deviations: reported, but not counted in the exit code; NAME is a
                            shipped one: prism (the Plant Store suite against a Prism mock) or
                            prism-mock (what a Prism mock of any contract does)
  --write-baseline FILE     write this run's counted and known findings as a baseline
  --report FORMAT=FILE      write a report: json=FILE, junit=FILE, markdown=FILE (for
                            $GITHUB_STEP_SUMMARY) or html=FILE (one self-contained page for people:
                            no script, no network, opens offline); repeatable
  --certificate FILE        write a certificate of the run: kit and Node versions, the sha256 of the
                            contract, fixtures and baseline, seed, target, time, the verdict of each
                            level, counts and coverage; signed with --signing-key (Ed25519) or with
                            the shared key in PLANTSTORE_CERTIFICATE_KEY (HMAC-SHA256, never
                            printed), else a plain sha256 digest. Check it with "plantstore
                            certificate verify FILE". A run that cannot start writes none.
  --signing-key FILE        an Ed25519 private key (PEM, PKCS#8) to sign the certificate with
  --min-coverage PCT        exit 1 when less than PCT percent (0 to 100) of the contract's operations
                            got an answer (default: no minimum; the verdict line says what was left)
  --evidence all            keep the headers and bodies of every step in the JSON report (default:
                            only of steps with a finding; every step keeps its URL and status)
  --verbose                 show notes and evidence of passing cases too

Limits:
  --timeout MS              time for one exchange, connect to last byte, 100 or more (default ${RUN_DEFAULTS.timeoutMs})
  --concurrency N           cases in parallel, 1 to 64; results stay in fixture order (default ${RUN_DEFAULTS.concurrency})
  --max-response-bytes N    read at most this much of a body, 64 KiB to 64 MiB; more is a failure
                            (default ${RUN_DEFAULTS.maxResponseBytes})

Exit codes: 0 no violations; 1 violations found; 2 could not run (bad flag, spec, fixture or
baseline; target unreachable; a case that could not be judged).`;

/** The levels beyond the contract for --help: each name, then its rule wrapped under it. */
export function levelHelp(indent = 30, width = 100): string {
  const lines: string[] = [];
  for (const level of LEVELS.filter((l) => l !== "contract")) {
    lines.push(`${" ".repeat(indent)}${level}:`);
    let line = " ".repeat(indent + 2);
    for (const word of LEVEL_SUMMARIES[level].split(" ")) {
      if (line.trim() !== "" && line.length + word.length + 1 > width) {
        lines.push(line);
        line = " ".repeat(indent + 2);
      }
      line += line.trim() === "" ? word : ` ${word}`;
    }
    lines.push(line);
  }
  return lines.join("\n");
}

/** `plantstore conformance`: a thin shell over runConformance and the reporters. */
export async function conformance(argv: string[], io: Io): Promise<number> {
  // --generate takes an optional count: alone (or before another flag) it means the default, 100.
  argv = argv.flatMap((a, i) => (a === "--generate" && !/^\d+$/.test(argv[i + 1] ?? "") ? [a, "100"] : [a]));
  const { values } = parseFlags(argv, {
    target: { type: "string" },
    token: { type: "string" },
    credential: { type: "string", multiple: true },
    spec: { type: "string" },
    fixtures: { type: "string" },
    only: { type: "string", multiple: true },
    skip: { type: "string", multiple: true },
    seed: { type: "string" },
    generate: { type: "string" },
    "no-fixtures": { type: "boolean" },
    unique: { type: "string", multiple: true },
    "max-time": { type: "string" },
    "save-failures": { type: "string" },
    level: { type: "string", multiple: true },
    strict: { type: "boolean" },
    baseline: { type: "string" },
    "write-baseline": { type: "string" },
    report: { type: "string", multiple: true },
    certificate: { type: "string" },
    "signing-key": { type: "string" },
    verbose: { type: "boolean" },
    evidence: { type: "string" },
    "min-coverage": { type: "string" },
    timeout: { type: "string" },
    concurrency: { type: "string" },
    "max-response-bytes": { type: "string" },
    ca: { type: "string" },
    insecure: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.out(CONFORMANCE_HELP);
    return 0;
  }
  const target = values.target ?? io.env.PLANTSTORE_TARGET;
  if (target === undefined || target === "")
    throw new KitError("PS_USAGE", "--target URL is required (or set PLANTSTORE_TARGET)");
  // An empty token is none: a run needs one only when an operation it runs requires credentials.
  const token = (values.token ?? io.env.PLANTSTORE_TOKEN) || undefined;
  const flagged = credentialFlags(values.credential ?? []);
  // Every PLANTSTORE_CREDENTIAL_* value is masked in the run's evidence, whether the spec has a scheme for it or not.
  const fromEnv = Object.entries(io.env).filter(
    (e): e is [string, string] => e[0].startsWith("PLANTSTORE_CREDENTIAL_") && typeof e[1] === "string" && e[1] !== "",
  );
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
  // The signing key is read before the run too; it is a secret, masked like the credentials.
  const signingKey = certificateFile === undefined ? undefined : certificateKey(values["signing-key"], io.env);
  if (values.seed !== undefined && !/^\d+$/.test(values.seed)) {
    throw new KitError("PS_USAGE", `--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}`);
  }
  const unique = values.unique ?? ["id"];
  const spec = values.spec === undefined ? DEFAULT_SPEC : resolve(values.spec);
  // The kit's fixtures are the Plant Store's: with another spec and no fixtures of its own, a run
  // generates cases for every operation instead (a run of the kit's fixtures there could only fail).
  const foreign = spec !== DEFAULT_SPEC && values.fixtures === undefined;
  const generateFlag = values.generate ?? (foreign ? "100" : undefined);
  if (foreign && values["no-fixtures"] !== true)
    io.out(
      `${shortPath(spec)} is not the kit's spec and no --fixtures were given: running generated cases for every ` +
        `operation (--generate ${generateFlag}) and no fixture`,
    );
  // Credentials from the environment name their scheme in upper case: the spec says which it is.
  // A certificate states the contract as loaded: it is loaded once, here, for the run and the certificate.
  const contract =
    fromEnv.length === 0 && certificateFile === undefined ? undefined : await loadContract(spec).catch(() => undefined);
  const credentials = { ...(contract === undefined ? {} : envCredentials(contract, fromEnv)), ...flagged };
  // Built inside the run's try below: a bad flag value still gets its error written into the reports.
  const options = (): RunOptions => ({
    target,
    token,
    credentials,
    contract,
    spec,
    fixtures: values.fixtures === undefined ? DEFAULT_FIXTURES : resolve(values.fixtures),
    only: (values.only ?? []).flatMap((v) => envList(v)),
    skip: (values.skip ?? []).flatMap((v) => envList(v)),
    seed: values.seed === undefined ? undefined : BigInt(values.seed),
    generate:
      generateFlag === undefined
        ? undefined
        : {
            count: integerFlag("generate", generateFlag, 100, 1, 100_000),
            maxTimeMs:
              values["max-time"] === undefined
                ? undefined
                : integerFlag("max-time", values["max-time"], 0, 1_000, 86_400_000),
            unique,
          },
    noFixtures: values["no-fixtures"] === true || foreign,
    levels: (values.level ?? []).flatMap((v) => envList(v)),
    strict: values.strict === true,
    evidence: evidenceFlag(values.evidence),
    minCoverage:
      values["min-coverage"] === undefined
        ? undefined
        : integerFlag("min-coverage", values["min-coverage"], 100, 0, 100),
    baseline: baselinePath === undefined ? undefined : loadBaseline(baselinePath),
    // Floors and caps keep a run meaningful and its memory bounded (concurrency x read cap).
    timeoutMs: integerFlag("timeout", values.timeout, RUN_DEFAULTS.timeoutMs, 100, 600_000),
    concurrency: integerFlag("concurrency", values.concurrency, RUN_DEFAULTS.concurrency, 1, 64),
    maxResponseBytes: integerFlag(
      "max-response-bytes",
      values["max-response-bytes"],
      RUN_DEFAULTS.maxResponseBytes,
      65_536,
      64 * 1024 * 1024,
    ),
    caFile: values.ca,
    insecure: values.insecure === true,
    mask: fromEnv.map((e) => e[1]),
  });

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
  let run: Awaited<ReturnType<typeof runConformance>>;
  let runOptions: RunOptions;
  let stated: CertificateInputs | undefined;
  try {
    runOptions = options();
    // The inputs a certificate states are read as the run starts (a failure there is a run that could not start).
    if (certificateFile !== undefined && contract !== undefined)
      stated = certificateInputs(contract, runOptions, baselinePath);
    run = await runConformance(runOptions, consoleReporter(out, { color, verbose: values.verbose === true }));
  } catch (error) {
    // Reports still say why the run could not be judged, so CI shows the reason where it looks.
    if (error instanceof KitError) writeErrorReports(reports, error);
    if (certificateFile !== undefined) removeStaleCertificate(certificateFile, io);
    throw error;
  }
  const { summary, results } = run;
  writeReports(reports, summary, results);
  if (certificateFile !== undefined) {
    const certificate = buildCertificate({
      summary,
      ...(stated ?? certificateInputs(await loadContract(spec), runOptions, baselinePath)),
      only: runOptions.only,
      skip: runOptions.skip,
      generate: runOptions.generate?.count,
      key: signingKey,
      redact,
    });
    writeCertificate(certificateFile, certificate);
    const { alg, keyId } = certificate.signature;
    out(`certificate written to ${values.certificate} (${alg}${keyId === undefined ? "" : `, key id ${keyId}`})`);
  }
  if (saveDir !== undefined) {
    for (const fixture of savedFixtures(results, summary.seed, unique)) {
      out(`saved ${writeSavedFixture(saveDir, fixture)}`);
    }
  }
  if (baselineFile !== undefined) {
    const baseline = baselineFromResults(results, summary.target);
    writeBaseline(baselineFile, baseline);
    out(`baseline with ${baseline.deviations.length} deviations written to ${baselineFile}`);
  }
  return summary.exitCode;
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
