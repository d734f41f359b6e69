import { randomBytes } from "node:crypto";
import { isAbsolute, relative } from "node:path";
import { loadContract } from "../src/contract/index.js";
import { KitError } from "../src/errors.js";
import { DEFAULT_FIXTURES, DEFAULT_SPEC } from "../src/paths.js";
import { baselineKey } from "./baseline.js";
import { CHECK_IDS, judge, preview, type CheckId, type Finding } from "./checks.js";
import { curlFor } from "./curl.js";
import { loadFixtures, prepareRequest, type Fixture, type PreparedRequest } from "./fixtures.js";
import { Random, randomSeed } from "./fresh.js";
import { createHttpClient, joinUrl, type ExchangeResult } from "./http-client.js";
import { runGenerated } from "./generated-run.js";
import { RUN_DEFAULTS, type RunOptions } from "./options.js";
import { createRedactor, MASK, type Redactor } from "./redact.js";
import type { CaseResult, Outcome, ReportedFinding, RunEvent, RunSummary, StepResult } from "./results.js";

/** Answers that say "no room now" (RFC 6585 section 4, RFC 9110 section 15.6.4, RFC 4918 section 11.5). */
const CAPACITY = new Set([429, 503, 507]);

/**
 * Replays fixtures against a target and judges each answer by the spec. Problems that stop the run
 * from starting (bad spec, bad fixture, bad flag, unreachable target) throw a KitError; everything
 * the target does is a result. Events come in a stable order (fixture file order), whatever the
 * concurrency.
 */
export async function runConformance(options: RunOptions, onEvent: (event: RunEvent) => void = () => undefined): Promise<{ summary: RunSummary; results: CaseResult[] }> {
  const started = performance.now();
  const base = parseTarget(options.target);
  // A header value carries visible ASCII only (RFC 9110 section 5.5); anything else could not be sent.
  if (!/^[\x21-\x7e]+$/.test(options.token)) throw new KitError("PS_USAGE", "--token must be visible ASCII characters without spaces");
  const contract = options.contract ?? (await loadContract(options.spec ?? DEFAULT_SPEC));
  const all = options.noFixtures === true ? [] : loadFixtures(options.fixtures ?? DEFAULT_FIXTURES, contract);
  const { fixtures, checkFilter } = options.noFixtures === true ? { fixtures: [] as Fixture[], checkFilter: undefined } : select(all, options.only ?? [], options.skip ?? []);
  const generatedOps = options.generate === undefined ? [] : contract.operations.filter((op) => op.requestBody?.content.has("application/json") === true);
  if (fixtures.length === 0 && generatedOps.length === 0) {
    throw new KitError("PS_USAGE", options.generate === undefined ? "nothing to run: no fixtures" : "nothing to run: no fixtures, and no operation of the spec takes an application/json body to generate");
  }
  const total = fixtures.length + generatedOps.length * 2;
  const seed = options.seed ?? randomSeed();
  const redact = createRedactor([options.token]);
  const specSource = shortPath(contract.source);
  const targetShown = redact(displayUrl(base));
  const timeoutMs = options.timeoutMs ?? RUN_DEFAULTS.timeoutMs;
  const client = createHttpClient({ timeoutMs, maxResponseBytes: options.maxResponseBytes ?? RUN_DEFAULTS.maxResponseBytes, caFile: options.caFile, insecure: options.insecure });
  try {
    const unreachable = await client.probe(base);
    if (unreachable !== undefined) throw new KitError("PS_TARGET_UNREACHABLE", `${targetShown}: ${unreachable.message}`);
    onEvent({ type: "run-started", target: targetShown, spec: contract.source, seed: seed.toString(), total });

    const random = new Random(seed);
    // Each case draws from its own stream, so its values do not depend on the order cases finish in.
    const streams = fixtures.map(() => new Random(random.next64()));
    const secrets = { token: options.token, wrongToken: `wrong-${randomBytes(12).toString("hex")}` };
    const known = new Set((options.baseline?.deviations ?? []).map((d) => baselineKey(d.fixture, d.check)));
    const strict = options.strict === true;
    const giveUpAfter = options.timeoutsBeforeGivingUp ?? RUN_DEFAULTS.timeoutsBeforeGivingUp;
    let timeoutsInARow = 0;

    const runCase = async (fixture: Fixture, stream: Random): Promise<CaseResult> => {
      const caseStarted = performance.now();
      const fresh = new Map<string, bigint | string>();
      const steps: StepResult[] = [];
      const statuses: (number | undefined)[] = [];
      let error: string | undefined;
      for (let s = 0; s < fixture.steps.length; s++) {
        const step = fixture.steps[s]!;
        const prepared = prepareRequest(fixture, s, fresh, stream, secrets);
        let result: ExchangeResult;
        const notSent = timeoutsInARow >= giveUpAfter;
        if (notSent) {
          result = { ok: false, failure: { kind: "timeout", message: `not sent: the target answered none of the last ${timeoutsInARow} requests within ${timeoutMs} ms` }, durationMs: 0 };
        } else {
          result = await client.exchange(base, prepared);
          if (!result.ok && result.failure.kind === "timeout") timeoutsInARow++;
          else timeoutsInARow = 0;
        }
        if (notSent) {
          // Not judged: nothing was sent, so there is no evidence for or against the target.
          steps.push(stepResult(s, base, prepared, result, [], options.token, redact));
          error = result.ok ? undefined : result.failure.message;
          break;
        }
        if (result.ok && CAPACITY.has(result.response.status)) {
          // Limits and quotas are not shown by the contract: a refusal for capacity is not judged.
          statuses.push(result.response.status);
          steps.push(stepResult(s, base, prepared, result, [], options.token, redact));
          error = `the target refused for capacity (${result.response.status}); the case could not be judged: lower --concurrency, or give the target room`;
          break;
        }
        const findings = judge({ operation: fixture.operation, specSource, expect: step.expect, result, earlierStatuses: statuses, redact }, checkFilter).map(
          (f): ReportedFinding => {
            const isKnown = known.has(baselineKey(fixture.id, f.check));
            return { ...redactFinding(f, redact), known: isKnown, counts: !isKnown && (f.severity === "failure" || (strict && f.severity === "warning")) };
          },
        );
        statuses.push(result.ok ? result.response.status : undefined);
        steps.push(stepResult(s, base, prepared, result, findings, options.token, redact));
        if (!result.ok) {
          if (result.failure.kind === "unreachable" || result.failure.kind === "tls" || notSent) error = redact(result.failure.message);
          break; // later steps build on this one
        }
      }
      const findings = steps.flatMap((st) => st.findings);
      const outcome: Outcome =
        error !== undefined ? "error" : findings.some((f) => f.counts) ? "fail" : findings.some((f) => f.known && (f.severity === "failure" || f.severity === "warning")) ? "known" : "pass";
      return { fixture: fixture.id, description: fixture.description, file: fixture.file, operation: fixture.operationId, outcome, steps, error, durationMs: performance.now() - caseStarted };
    };

    // A bug of the harness in one case makes that case an error, never a crash of the run.
    const guardedCase = (fixture: Fixture, i: number): Promise<CaseResult> =>
      runCase(fixture, streams[i]!).catch((error: unknown) => ({
        fixture: fixture.id,
        description: fixture.description,
        file: fixture.file,
        operation: fixture.operationId,
        outcome: "error" as const,
        steps: [],
        error: redact(`the harness failed on this case: ${error instanceof Error ? error.message : String(error)}`),
        durationMs: 0,
      }));
    const results = await runOrdered(fixtures, Math.max(1, options.concurrency ?? RUN_DEFAULTS.concurrency), guardedCase, (result, index) =>
      onEvent({ type: "case-finished", result, index, total }),
    );
    if (options.generate !== undefined) {
      const generated = await runGenerated(contract, generatedOps, options.generate, seed, (f, r) => runCase(f, r));
      generated.forEach((result, i) => {
        results.push(result);
        onEvent({ type: "case-finished", result, index: fixtures.length + i, total });
      });
    }

    const ran = new Set(fixtures.map((f) => f.id));
    const seen = new Set(results.flatMap((r) => r.steps.flatMap((s) => s.findings.filter((f) => f.known).map((f) => baselineKey(r.fixture, f.check)))));
    // An entry naming a fixture that ran but did not deviate, or a fixture that does not exist (a typo,
    // a renamed file), is stale; entries for fixtures left out by --only/--skip are not judged.
    const loaded = new Set(all.map((f) => f.id));
    const staleBaseline = (options.baseline?.deviations ?? [])
      .filter((d) => (ran.has(d.fixture) && !seen.has(baselineKey(d.fixture, d.check))) || !loaded.has(d.fixture))
      .map(({ fixture, check }) => ({ fixture, check }));
    const findings = results.flatMap((r) => r.steps.flatMap((s) => s.findings));
    const count = (o: Outcome): number => results.filter((r) => r.outcome === o).length;
    const allSteps = results.flatMap((r) => r.steps);
    const answered = allSteps.filter((st) => st.response !== undefined);
    const hints: string[] = [];
    // Nothing came back as HTTP (a TLS port spoken to in plain HTTP, a server that resets everything):
    // there is nothing to judge, and the run says so instead of listing every case as a failure.
    const runError =
      allSteps.length > 0 && answered.length === 0 ? `the target gave no HTTP answer to any request (first failure: ${allSteps[0]?.transportFailure ?? "unknown"})` : undefined;
    const withToken = allSteps.filter((st) => st.request.headers.authorization?.includes(MASK) === true && st.response !== undefined);
    if (withToken.length > 0 && withToken.every((st) => st.response!.status === 401 || st.response!.status === 403)) {
      hints.push(`every request carrying the token got ${withToken[0]!.response!.status}: is --token right for this target?`);
    }
    const summary: RunSummary = {
      target: targetShown,
      spec: contract.source,
      seed: seed.toString(),
      total: results.length,
      passed: count("pass"),
      failed: count("fail"),
      known: count("known"),
      errors: count("error"),
      failures: findings.filter((f) => f.severity === "failure").length,
      warnings: findings.filter((f) => f.severity === "warning").length,
      notes: findings.filter((f) => f.severity === "note").length,
      staleBaseline,
      strict,
      durationMs: performance.now() - started,
      runError,
      hints,
      exitCode: runError !== undefined || count("error") > 0 ? 2 : count("fail") > 0 ? 1 : 0,
    };
    onEvent({ type: "run-finished", summary, results });
    return { summary, results };
  } finally {
    await client.close();
  }
}

/** Runs tasks with bounded concurrency and hands results on in input order. */
async function runOrdered<T, R>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<R>, onResult: (r: R, index: number) => void): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const done: boolean[] = new Array(items.length).fill(false);
  let nextToStart = 0;
  let nextToEmit = 0;
  const worker = async (): Promise<void> => {
    while (nextToStart < items.length) {
      const i = nextToStart++;
      results[i] = await task(items[i] as T, i);
      done[i] = true;
      while (nextToEmit < items.length && done[nextToEmit]) {
        onResult(results[nextToEmit] as R, nextToEmit);
        nextToEmit++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

function stepResult(index: number, base: URL, prepared: PreparedRequest, result: ExchangeResult, findings: ReportedFinding[], token: string, redact: Redactor): StepResult {
  const maskHeaders = (h: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(h).map(([k, v]) => [redact(k), redact(v)]));
  return {
    index,
    request: { method: prepared.method, url: redact(joinUrl(base, prepared.path)), headers: maskHeaders(prepared.headers), body: preview(prepared.body, 500, redact) },
    response: result.ok ? { status: result.response.status, headers: maskHeaders(result.response.headers), body: preview(result.response.body, 500, redact) } : undefined,
    transportFailure: result.ok ? undefined : redact(result.failure.message),
    durationMs: result.durationMs,
    findings,
    // Reproductions are written for steps that have something to reproduce.
    curl: findings.some((f) => f.severity !== "note") ? redact(curlFor(base, prepared, token)) : undefined,
  };
}

function redactFinding(f: Finding, redact: Redactor): Finding {
  return { ...f, message: redact(f.message), expected: redact(f.expected), received: redact(f.received) };
}

/** A file path relative to the working folder when that is shorter, for readable rules. */
function shortPath(source: string): string {
  if (!isAbsolute(source)) return source;
  const rel = relative(process.cwd(), source);
  return rel.length < source.length ? rel : source;
}

function parseTarget(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new KitError("PS_USAGE", `--target ${JSON.stringify(target)} is not a URL (for example http://127.0.0.1:4010)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new KitError("PS_USAGE", `--target must be http or https, got ${url.protocol}`);
  if (url.username !== "" || url.password !== "") throw new KitError("PS_USAGE", "--target must not carry user:password (it would be printed in reproductions); pass credentials with --token");
  url.search = "";
  url.hash = "";
  return url;
}

/** The target as shown in reports: without any user:password part. */
function displayUrl(url: URL): string {
  const u = new URL(url.href);
  u.username = "";
  u.password = "";
  return u.href.replace(/\/$/, "");
}

const toRegex = (pattern: string): RegExp => new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);

/**
 * Applies --only/--skip. A pattern that matches a fixture id selects fixtures; only a pattern that
 * matches no fixture but a check id selects checks; one that matches neither is a usage error.
 * response.received is never filtered out: a step without an answer can never pass.
 */
function select(all: Fixture[], only: readonly string[], skip: readonly string[]): { fixtures: Fixture[]; checkFilter: ((id: CheckId) => boolean) | undefined } {
  const classify = (flag: string, patterns: readonly string[]) => {
    const fixtureRes: RegExp[] = [];
    const checkRes: RegExp[] = [];
    for (const p of patterns) {
      const re = toRegex(p);
      if (all.some((x) => re.test(x.id))) fixtureRes.push(re);
      else if (CHECK_IDS.some((id) => re.test(id))) checkRes.push(re);
      else throw new KitError("PS_USAGE", `--${flag} ${JSON.stringify(p)} matches no fixture id and no check id`);
    }
    return { fixtureRes, checkRes };
  };
  const o = classify("only", only);
  const s = classify("skip", skip);
  const fixtures = all.filter((f) => (o.fixtureRes.length === 0 || o.fixtureRes.some((re) => re.test(f.id))) && !s.fixtureRes.some((re) => re.test(f.id)));
  if (fixtures.length === 0) throw new KitError("PS_USAGE", "--only/--skip leave no fixture to run");
  const checkFilter =
    o.checkRes.length === 0 && s.checkRes.length === 0
      ? undefined
      : (id: CheckId) => id === "response.received" || ((o.checkRes.length === 0 || o.checkRes.some((re) => re.test(id))) && !s.checkRes.some((re) => re.test(id)));
  return { fixtures, checkFilter };
}
