import { randomBytes } from "node:crypto";
import { loadContract, type Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import { DEFAULT_SPEC, shortPath } from "../paths.js";
import { createCaseRunner, guarded, type CaseRunner } from "./case-runner.js";
import { computeCoverage } from "./coverage.js";
import { checkRunCredentials, chooseAlternative, secretsToMask } from "./credentials.js";
import { Random, randomSeed } from "./fresh.js";
import { runGenerated } from "./generate/index.js";
import { runStatefulCases } from "./stateful/index.js";
import type { Fixture } from "./case-types.js";
import { createHttpClient, type HttpClient } from "./http-client.js";
import { levelsToRun, type Level } from "./levels.js";
import { RUN_DEFAULTS, type RunOptions } from "./options.js";
import { preflight } from "./preflight.js";
import { createRedactor, type Redactor } from "./redact.js";
import type { CaseResult, RunEvent, RunSummary } from "./results.js";
import { runOrdered } from "./schedule.js";
import { planCases, type CasePlan } from "./selection.js";
import { TargetWatch } from "./target-watch.js";
import { checkToken, displayUrl, parseTarget } from "./target.js";
import { classifier, summarize } from "./verdict.js";

/**
 * Replays fixtures against a target and judges each answer by the spec. Everything the target does
 * is a result; a run that cannot judge it (bad spec, bad fixture, bad option value, unreachable
 * target, missing token) resolves too, with exit code 2, its reason in `runError` and its code in
 * `errorCode`. Only a caller's mistake (an option of the wrong type) throws, a TypeError. Events come
 * in a stable order (fixture file order), whatever the concurrency.
 */
export async function runConformance(
  options: RunOptions,
  onEvent: (event: RunEvent) => void = () => undefined,
): Promise<{ summary: RunSummary; results: CaseResult[] }> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  checkOptionTypes(options);
  try {
    return await runOrThrow(options, onEvent);
  } catch (error) {
    // A run that could not judge is a verdict too (exit 2, its code said): only a bug of the caller
    // (an option of the wrong type) or of the kit throws.
    if (!(error instanceof KitError)) throw error;
    return { summary: unjudged(options, error, { startedAt, durationMs: performance.now() - started }), results: [] };
  }
}

/** A caller's mistake is thrown, in the library's words: an option of the wrong type. */
function checkOptionTypes(options: RunOptions): void {
  const o = options as unknown as Record<string, unknown>;
  if (typeof o !== "object" || o === null) throw new TypeError("runConformance: options must be an object");
  const wrong = (name: string, want: string): never => {
    throw new TypeError(`runConformance: options.${name} must be ${want}, not ${typeof o[name]}`);
  };
  if (typeof o.target !== "string") wrong("target", "a string (the target's URL)");
  for (const name of ["token", "spec", "caFile"])
    if (o[name] !== undefined && o[name] !== null && typeof o[name] !== "string") wrong(name, "a string");
  for (const name of ["concurrency", "timeoutMs", "maxResponseBytes", "minCoverage"])
    if (o[name] !== undefined && typeof o[name] !== "number") wrong(name, "a number");
  if (o.seed !== undefined && typeof o.seed !== "bigint") wrong("seed", "a bigint");
  if (o.contract !== undefined && (typeof o.contract !== "object" || o.contract === null))
    wrong("contract", "a Contract (loadContract)");
}

/** The summary of a run that could not judge the target: nothing run, exit 2, the reason and its code. */
function unjudged(
  options: RunOptions,
  error: KitError,
  run: { readonly startedAt: string; readonly durationMs: number },
): RunSummary {
  let target = "";
  try {
    target = displayUrl(parseTarget(options.target));
  } catch {
    // the target itself was the problem: its text is not shown (it may carry credentials)
  }
  const none = { total: 0, exercised: 0, notExercised: [] };
  return {
    startedAt: run.startedAt,
    target,
    spec: options.contract?.source ?? options.spec ?? DEFAULT_SPEC,
    seed: options.seed?.toString() ?? "",
    total: 0,
    passed: 0,
    failed: 0,
    known: 0,
    errors: 0,
    failures: 0,
    warnings: 0,
    notes: 0,
    staleBaseline: [],
    levels: [],
    durationMs: run.durationMs,
    // The target as given is never echoed: a URL that would not parse may still carry a password.
    runError: `${typeof options.target === "string" && options.target !== "" ? error.message.replaceAll(options.target, "(the target given)") : error.message} [${error.code}]`,
    errorCode: error.code,
    coverage: { operations: none, statuses: none, parameters: none },
    minCoverage: options.minCoverage,
    coverageShortfall: undefined,
    exitCode: 2,
  };
}

/**
 * runConformance for the command line: a run that cannot judge throws its KitError (the CLI prints
 * it, writes it into the reports and exits 2) rather than resolving with it.
 */
export async function runOrThrow(
  options: RunOptions,
  onEvent: (event: RunEvent) => void = () => undefined,
): Promise<{ summary: RunSummary; results: CaseResult[] }> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const base = parseTarget(options.target);
  checkToken(options.token);
  const levels = runLevels(options);
  // Plain JavaScript may pass null or undefined: no token, never the text "undefined"; "" is none too.
  const given = { token: options.token || undefined, credentials: options.credentials ?? undefined };
  const contract = options.contract ?? (await loadContract(options.spec ?? DEFAULT_SPEC));
  const plan = planCases(contract, options);
  // Credentials are asked for only when an operation that will run requires them.
  checkRunCredentials(contract, [...plan.fixtures.map((f) => f.operation), ...plan.generatedOperations], given);
  const seed = options.seed ?? randomSeed();
  // Masks evidence (see redact.ts); the harness's own words (ids, paths, rules) are never passed to it.
  const redact = createRedactor([
    ...secretsToMask(given),
    ...(options.mask ?? []).filter((s) => typeof s === "string"),
  ]);
  const target = redact(displayUrl(base));
  const timeoutMs = options.timeoutMs ?? RUN_DEFAULTS.timeoutMs;
  const client = clientFor(options, timeoutMs, redact);
  try {
    const unreachable = await client.probe(base);
    if (unreachable !== undefined) throw new KitError("PS_TARGET_UNREACHABLE", `${target}: ${unreachable.message}`);
    const limit = options.timeoutsBeforeGivingUp ?? RUN_DEFAULTS.timeoutsBeforeGivingUp;
    const watch = new TargetWatch(limit, timeoutMs, () => client.probe(base));
    const runCase = caseRunnerFor(options, { client, base, contract, given, redact, levels, plan, watch });
    // A wrong token or base path stops the run here, as "could not judge", before any case is judged.
    const probes = await preflight(
      contract,
      [...plan.fixtures.map((f) => f.operation), ...plan.generatedOperations],
      runCase,
      {
        unique: options.generate?.unique ?? ["id"],
        canAuthorise: (op) => chooseAlternative(op, given) !== undefined,
      },
    );
    const { total } = plan;
    onEvent({
      type: "run-started",
      target,
      spec: contract.source,
      seed: seed.toString(),
      total,
      preflight: probes,
      notes: contract.notes,
    });

    const caseFinished = (result: CaseResult, index: number): void =>
      onEvent({ type: "case-finished", result, index, total });

    const concurrency = Math.max(1, options.concurrency ?? RUN_DEFAULTS.concurrency);
    const results = await runFixtures(plan.fixtures, seed, concurrency, guarded(runCase, redact), caseFinished);
    const generated = await runGeneratedCases(contract, plan, options, seed, runCase, results, caseFinished, watch);

    const summary = summarize(results, {
      target,
      spec: contract.source,
      seed: seed.toString(),
      levels,
      baseline: options.baseline,
      // Generated cases ran too: a baseline entry may name one (a known departure of a mock, say).
      ran: [...plan.fixtures.map((f) => f.id), ...generated.ids],
      loaded: [...plan.loaded.map((f) => f.id), ...generated.ids],
      durationMs: performance.now() - started,
      startedAt,
      coverage: computeCoverage(contract, results, plan.notPlanned),
      minCoverage: options.minCoverage,
      stopped: generated.stopped,
      targetStopped: watch.stoppedMessage(),
      targetStoppedByTimeouts: watch.stopped?.by === "timeouts",
      contractNotes: contract.notes,
    });
    onEvent({ type: "run-finished", summary, results });
    return { summary, results };
  } finally {
    await client.close();
  }
}

/** The run's HTTP client, bounded as the options say; what it reports is masked. */
function clientFor(options: RunOptions, timeoutMs: number, redact: Redactor): HttpClient {
  return createHttpClient({
    timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? RUN_DEFAULTS.maxResponseBytes,
    caFile: options.caFile,
    insecure: options.insecure,
    mask: redact,
  });
}

/** The runner of one case against the target, with the run's client, secrets, baseline and levels. */
function caseRunnerFor(
  options: RunOptions,
  run: {
    readonly client: HttpClient;
    readonly base: URL;
    readonly contract: Contract;
    readonly given: { readonly token: string | undefined; readonly credentials: RunOptions["credentials"] };
    readonly redact: Redactor;
    readonly levels: readonly Level[];
    readonly plan: CasePlan;
    readonly watch: TargetWatch;
  },
): CaseRunner {
  return createCaseRunner({
    client: run.client,
    base: run.base,
    specSource: shortPath(run.contract.source),
    secrets: { ...run.given, wrongToken: `wrong-${randomBytes(12).toString("hex")}` },
    redact: run.redact,
    watch: run.watch,
    classify: classifier(options.baseline, run.levels),
    checkFilter: run.plan.checkFilter,
    evidence: options.evidence ?? "findings",
  });
}

/** The fixtures, `concurrency` at a time; results and events in fixture order. */
function runFixtures(
  fixtures: readonly Fixture[],
  seed: bigint,
  concurrency: number,
  fixtureCase: CaseRunner,
  caseFinished: (result: CaseResult, index: number) => void,
): Promise<CaseResult[]> {
  const random = new Random(seed);
  // Each case draws from its own stream, so its values do not depend on the order cases finish in.
  const streams = fixtures.map(() => new Random(random.next64()));
  return runOrdered(fixtures, concurrency, (f, i) => fixtureCase(f, streams[i]!), caseFinished);
}

/**
 * The generated cases, after the fixtures: their results appended to `results` and announced as each
 * finishes, their
 * ids, and why the time limit stopped them when it did.
 */
async function runGeneratedCases(
  contract: Contract,
  plan: CasePlan,
  options: RunOptions,
  seed: bigint,
  runCase: CaseRunner,
  results: CaseResult[],
  caseFinished: (result: CaseResult, index: number) => void,
  watch: TargetWatch,
): Promise<{ ids: string[]; stopped: string | undefined }> {
  if (options.generate === undefined || plan.generated.length + plan.stateful.length + plan.links.length === 0)
    return { ids: [], stopped: undefined };
  // An outer guard only (budgets are counts): by default it grows with the work planned, the
  // operations with generated cases and those the stateful sequences call.
  const sequenced = [...plan.stateful.flatMap((t) => Object.values(t.ops)), ...plan.links.map((l) => l.start)];
  const work = Math.max(1, new Set([...plan.generatedOperations, ...sequenced]).size);
  const maxTimeMs = options.generate.maxTimeMs ?? RUN_DEFAULTS.maxTimePerOperationMs * work;
  const deadline = Date.now() + maxTimeMs;
  // Each case is announced as it finishes, so the console is never silent for the whole phase.
  const announce = (result: CaseResult): void => {
    results.push(result);
    caseFinished(result, results.length - 1);
  };
  const concurrency = Math.max(1, options.concurrency ?? RUN_DEFAULTS.concurrency);
  const generated = await runGenerated(
    contract,
    plan.generated,
    options.generate,
    seed,
    runCase,
    deadline,
    announce,
    concurrency,
    () => watch.open,
  );
  const specSource = shortPath(contract.source);
  const env = { contract, specSource, runCase, seed, deadline, gone: () => watch.open };
  const stateful = await runStatefulCases(env, plan.stateful, plan.links, announce);
  const all = [...generated.results, ...stateful.results];
  const notRun = all.filter((r) => r.timeLimit === "before-case").length;
  const stopped =
    generated.stopped || stateful.stopped
      ? `stopped at the time limit (--max-time ${maxTimeMs / 1000} s) after ${plan.total - notRun} of ${plan.total} cases; ` +
        "what was judged is reported, the rest was not run"
      : undefined;
  return { ids: all.map((r) => r.fixture), stopped };
}

/** The levels the options ask for; a name that is none is a usage error naming it. */
function runLevels(options: RunOptions): Level[] {
  try {
    // A generated run's stateful phase counts by default: what HTTP's methods promise across a
    // sequence is part of the verdict (`--skip 'stateful.*'` leaves its checks out).
    const asked = options.generate === undefined ? options.levels : [...(options.levels ?? []), "stateful"];
    return levelsToRun(asked, options.strict === true);
  } catch (error) {
    throw new KitError("PS_USAGE", `--level: ${(error as Error).message}`);
  }
}
