import { accessSync, constants } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  consoleReporter,
  createRedactor,
  jsonReport,
  junitReport,
  loadBaseline,
  RUN_DEFAULTS,
  runConformance,
  type RunEvent,
  type RunSummary,
} from "../../conformance/index.js";
import { savedRequest } from "../../conformance/generate.js";
import { writeFileAtomic } from "../../conformance/reporters/files.js";
import { KitError } from "../errors.js";
import { DEFAULT_FIXTURES, DEFAULT_SPEC } from "../paths.js";
import { envList, integerFlag, parseFlags } from "./args.js";
import type { Io } from "./io.js";

export const CONFORMANCE_HELP = `Usage: plantstore conformance --target URL [--token TOKEN] [options]

Replays the fixtures against a running server and judges every answer by the spec.

Target and credentials:
  --target URL              base URL of the server under test, http or https, may carry a base path
                            (env PLANTSTORE_TARGET)
  --token TOKEN             the bearer token to send (env PLANTSTORE_TOKEN, preferred: a flag is
                            visible in the process list). Never printed: output shows [REDACTED],
                            curl commands use $PLANTSTORE_TOKEN.
  --ca FILE                 trust this CA (PEM) for an https target
  --insecure                accept any certificate (private test servers only)

What to run:
  --spec FILE               OpenAPI 3.0/3.1 document (default: the kit's spec/openapi.yaml)
  --fixtures DIR            folder of fixture files (default: the kit's fixtures/)
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
  --max-time MS             time the generated part may take, shrinking included (default 60000)
  --save-failures DIR       write each failing generated case as a fixture file into DIR

Verdict and reports:
  --strict                  warnings count as failures
  --baseline FILE           known deviations: reported, but not counted in the exit code
  --write-baseline FILE     write this run's counted and known findings as a baseline
  --report FORMAT=FILE      write a report: json=FILE or junit=FILE; repeatable
  --verbose                 show notes and evidence of passing cases too

Limits:
  --timeout MS              time for one exchange, connect to last byte, 100 or more (default ${RUN_DEFAULTS.timeoutMs})
  --concurrency N           cases in parallel, 1 to 64; results stay in fixture order (default ${RUN_DEFAULTS.concurrency})
  --max-response-bytes N    read at most this much of a body, 64 KiB to 64 MiB; more is a failure
                            (default ${RUN_DEFAULTS.maxResponseBytes})

Exit codes: 0 no violations; 1 violations found; 2 could not run (bad flag, spec, fixture or
baseline; target unreachable; a case that could not be judged).`;

/** `plantstore conformance`: a thin shell over runConformance and the reporters. */
export async function conformance(argv: string[], io: Io): Promise<number> {
  // --generate takes an optional count: alone (or before another flag) it means the default, 100.
  argv = argv.flatMap((a, i) => (a === "--generate" && !/^\d+$/.test(argv[i + 1] ?? "") ? [a, "100"] : [a]));
  const { values } = parseFlags(argv, {
    target: { type: "string" },
    token: { type: "string" },
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
    strict: { type: "boolean" },
    baseline: { type: "string" },
    "write-baseline": { type: "string" },
    report: { type: "string", multiple: true },
    verbose: { type: "boolean" },
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
  if (target === undefined || target === "") throw new KitError("PS_USAGE", "--target URL is required (or set PLANTSTORE_TARGET)");
  const token = values.token ?? io.env.PLANTSTORE_TOKEN;
  if (token === undefined || token === "") throw new KitError("PS_USAGE", "--token is required (or set PLANTSTORE_TOKEN)");
  const reports = (values.report ?? []).map(parseReportFlag);
  // Output paths are checked before the run, so a typo cannot cost a whole run's results.
  const outputs = [...reports.map((r) => r.file), ...(values["write-baseline"] === undefined ? [] : [resolve(values["write-baseline"])])];
  if (values["save-failures"] !== undefined) outputs.push(join(resolve(values["save-failures"]), "fixture.json"));
  for (const file of outputs) {
    try {
      accessSync(dirname(file), constants.W_OK);
    } catch {
      throw new KitError("PS_REPORT_UNWRITABLE", `${file}: the folder ${dirname(file)} does not exist or is not writable`);
    }
  }
  if (values.seed !== undefined && !/^\d+$/.test(values.seed)) throw new KitError("PS_USAGE", `--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}`);

  const redact = createRedactor([token]);
  const out = (line: string): void => io.out(redact(line));
  const color = io.isTty && io.env.NO_COLOR === undefined;
  const onConsole = consoleReporter(out, { color, verbose: values.verbose === true });
  let finished: { summary: RunSummary; results: Parameters<typeof jsonReport>[1] } | undefined;
  const onEvent = (event: RunEvent): void => {
    onConsole(event);
    if (event.type === "run-finished") finished = { summary: event.summary, results: event.results };
  };

  try {
    await runConformance(
      {
        target,
        token,
        spec: values.spec === undefined ? DEFAULT_SPEC : resolve(values.spec),
        fixtures: values.fixtures === undefined ? DEFAULT_FIXTURES : resolve(values.fixtures),
        only: (values.only ?? []).flatMap((v) => envList(v)),
        skip: (values.skip ?? []).flatMap((v) => envList(v)),
        seed: values.seed === undefined ? undefined : BigInt(values.seed),
        generate:
          values.generate === undefined
            ? undefined
            : {
                count: integerFlag("generate", values.generate, 100, 1, 100_000),
                maxTimeMs: integerFlag("max-time", values["max-time"], 60_000, 1_000, 3_600_000),
                unique: values.unique ?? ["id"],
              },
        noFixtures: values["no-fixtures"] === true,
        strict: values.strict === true,
        baseline: values.baseline === undefined ? undefined : loadBaseline(values.baseline),
        // Floors and caps keep a run meaningful and its memory bounded (concurrency x read cap).
        timeoutMs: integerFlag("timeout", values.timeout, RUN_DEFAULTS.timeoutMs, 100, 600_000),
        concurrency: integerFlag("concurrency", values.concurrency, RUN_DEFAULTS.concurrency, 1, 64),
        maxResponseBytes: integerFlag("max-response-bytes", values["max-response-bytes"], RUN_DEFAULTS.maxResponseBytes, 65_536, 64 * 1024 * 1024),
        caFile: values.ca,
        insecure: values.insecure === true,
      },
      onEvent,
    );
  } catch (error) {
    // Reports still say why the run could not be judged, so CI shows the reason where it looks.
    if (error instanceof KitError) for (const r of reports) writeFileAtomic(r.file, redact(errorReport(r.format, error)));
    throw error;
  }
  const { summary, results } = finished as NonNullable<typeof finished>;
  for (const r of reports) writeFileAtomic(r.file, redact(r.format === "json" ? jsonReport(summary, results) : junitReport(summary, results)));
  if (values["save-failures"] !== undefined) {
    for (const r of results) {
      if (r.generated === undefined || r.outcome !== "fail") continue;
      // Fixture ids are lower-case (fixture.schema.json); operationIds need not be.
      const id = `${r.fixture}-${summary.seed}`.toLowerCase().replace(/[^a-z0-9.-]/g, "-");
      const fixture = {
        id,
        description: `Saved from a generated run (seed ${summary.seed}): ${r.description}`,
        operation: r.operation,
        steps: [{ request: savedRequest(r.generated.body, values.unique ?? ["id"]), expect: r.generated.polarity === "positive" ? { kind: "valid", refusable: true } : { kind: "invalid" } }],
      };
      const file = join(resolve(values["save-failures"]), `${id}.json`);
      writeFileAtomic(file, JSON.stringify(fixture, null, 2) + "\n");
      out(`saved ${file}`);
    }
  }
  if (values["write-baseline"] !== undefined) {
    const deviations = results.flatMap((r) =>
      [...new Map(r.steps.flatMap((s) => s.findings.filter((f) => f.counts || f.known).map((f) => [f.check, { fixture: r.fixture, check: f.check, reason: f.message }] as const))).values()],
    );
    writeFileAtomic(values["write-baseline"], redact(JSON.stringify({ description: `known deviations of ${summary.target}`, deviations }, null, 2) + "\n"));
    out(`baseline with ${deviations.length} deviations written to ${values["write-baseline"]}`);
  }
  return summary.exitCode;
}

function parseReportFlag(value: string): { format: "json" | "junit"; file: string } {
  const m = /^(json|junit)=(.+)$/.exec(value);
  if (m === null) throw new KitError("PS_USAGE", `--report ${JSON.stringify(value)} must be json=FILE or junit=FILE`);
  return { format: m[1] as "json" | "junit", file: resolve(m[2] as string) };
}

function errorReport(format: "json" | "junit", error: KitError): string {
  if (format === "json") return JSON.stringify({ tool: "plantstore-kit conformance", format: 1, error: { code: error.code, message: error.message } }, null, 2) + "\n";
  const msg = `${error.code}: ${error.message}`.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="plantstore conformance" tests="1" failures="0" errors="1">\n  <testsuite name="conformance" tests="1" failures="0" errors="1">\n    <testcase classname="conformance" name="run"><error message="${msg}" type="${error.code}"/></testcase>\n  </testsuite>\n</testsuites>\n`;
}
