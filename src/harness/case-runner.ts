import type { CompiledOperation } from "../contract/index.js";
import { judge, preview, type CheckId, type Finding } from "./checks.js";
import { curlSecrets, type CurlSecret } from "./credentials.js";
import { curlFor } from "./curl.js";
import { prepareRequest } from "./prepare-request.js";
import { stepOperation, type EarlierExchange, type Fixture, type PreparedRequest, type Secrets } from "./case-types.js";
import type { Random } from "./fresh.js";
import { joinUrl, type ExchangeResult, type HttpClient } from "./http-client.js";
import { maskRequestTarget, type Redactor } from "./redact.js";
import type { CaseResult, ReportedFinding, StepResult } from "./results.js";
import { caseOutcome } from "./outcome.js";
import { checkPrepared } from "./request-honesty.js";
import type { TargetWatch } from "./target-watch.js";
import type { Classify } from "./verdict.js";

/** Answers that say "no room now" (RFC 6585 section 4, RFC 9110 section 15.6.4, RFC 4918 section 11.5). */
const CAPACITY = new Set([429, 503, 507]);

/** Methods whose request may be repeated with the effect of one (RFC 9110 section 9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);
/** Methods that change nothing (RFC 9110 section 9.2.1): a second one's answer is judged as the first's. */
const SAFE = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

/** What every case of a run shares. */
export interface CaseContext {
  readonly client: HttpClient;
  readonly base: URL;
  /** The spec's location as rules cite it. */
  readonly specSource: string;
  readonly secrets: Secrets;
  readonly redact: Redactor;
  /** Shared by every case: once the target has stopped answering, no case sends anything more. */
  readonly watch: TargetWatch;
  readonly classify: Classify;
  readonly checkFilter: ((id: CheckId) => boolean) | undefined;
  /** Steps whose headers and bodies the results keep (see RunOptions.evidence). */
  readonly evidence: "findings" | "all";
}

/** One step's exchange as sent and answered, for a caller that compares it with other steps' (StepHooks). */
export interface ObservedStep {
  readonly index: number;
  readonly operation: CompiledOperation;
  readonly prepared: PreparedRequest;
  readonly result: ExchangeResult;
}

/** What a caller that drives a sequence of cases asks of each step (the stateful phase). */
export interface StepHooks {
  /** Findings of the caller's own on a step's exchange, judged, masked and classified with the step's. */
  readonly judgeStep?: (step: ObservedStep) => readonly Finding[];
  /** Keep every step's headers, bodies and curl command, not only those of steps with a finding. */
  readonly keepAll?: boolean;
}

/** Runs one case; its fresh values come from its own stream. */
export type CaseRunner = (fixture: Fixture, stream: Random, hooks?: StepHooks) => Promise<CaseResult>;

/**
 * The case runner: each step is prepared, sent unless the target has stopped, judged by the checks and
 * classified by the verdict, with every piece of evidence redacted. A step without an answer ends the
 * case, since later steps build on it.
 */
export function createCaseRunner(ctx: CaseContext): CaseRunner {
  const reproduce = curlSecrets(ctx.secrets);
  return async (fixture, stream, hooks) => {
    const started = performance.now();
    const fresh = new Map<string, bigint | string>();
    const steps: StepResult[] = [];
    const statuses: (number | undefined)[] = [];
    let error: string | undefined;
    let held: CaseResult["held"];
    const earlier: EarlierExchange[] = [];
    for (let s = 0; s < fixture.steps.length; s++) {
      const operation = stepOperation(fixture, s);
      let prepared: PreparedRequest;
      try {
        prepared = prepareRequest(fixture, s, fresh, stream, ctx.secrets, earlier);
      } catch (e) {
        // A value from an earlier answer that did not come. When that answer broke the contract, the
        // failure is the verdict; otherwise the case cannot be judged further.
        const broken = steps.some((st) => st.findings.some((f) => f.counts));
        // The message names the fixture's own expressions, never a credential: only the net for long secrets.
        if (!broken) error = ctx.redact.prose(`step ${s + 1} could not be prepared: ${(e as Error).message}`);
        break;
      }
      const label = fixture.steps.length > 1 ? `${fixture.id} (step ${s + 1})` : fixture.id;
      const result = await ctx.watch.send(label, () => ctx.client.exchange(ctx.base, prepared));
      if ("held" in result) {
        // Not judged: nothing was sent, or the target stopped under it: no evidence for or against it.
        if (result.result !== undefined)
          steps.push(stepResult(ctx, operation, s, prepared, result.result, [], reproduce));
        error = s === 0 ? result.message : `step ${s + 1} ${result.message}`;
        if (result.held === "cut-off" || (s === 0 && result.held === "not-sent")) held = result.held;
        break;
      }
      if (result.ok && CAPACITY.has(result.response.status)) {
        // Limits and quotas are not shown by the contract: a refusal for capacity is not judged.
        steps.push(stepResult(ctx, operation, s, prepared, result, [], reproduce));
        const advice = "lower --concurrency, or give the target room";
        error = `the target refused for capacity (${result.response.status}); the case could not be judged: ${advice}`;
        break;
      }
      if (result.repeated === true && hooks?.judgeStep !== undefined) {
        // A sequence's state cannot be told when one of its requests may have been applied twice.
        steps.push(stepResult(ctx, operation, s, prepared, result, [], reproduce, true));
        error = `step ${s + 1} was sent twice (the target dropped its connection with others'): the sequence cannot be judged`;
        break;
      }
      const expect = repeatedExpectation(stepExpectation(fixture, s, operation, prepared), prepared, result.repeated);
      const own = hooks?.judgeStep?.({ index: s, operation, prepared, result }) ?? [];
      const context = {
        operation,
        specSource: ctx.specSource,
        expect,
        result,
        redact: ctx.redact,
        earlierStatuses: statuses,
      };
      const findings = [
        ...judge(context, ctx.checkFilter),
        ...own.filter((f) => ctx.checkFilter === undefined || ctx.checkFilter(f.check)),
      ].map((f) => ctx.classify(fixture.id, redactFinding(f, ctx.redact)));
      statuses.push(result.ok ? result.response.status : undefined);
      earlier.push({ request: prepared, response: result.ok ? result.response : undefined });
      steps.push(stepResult(ctx, operation, s, prepared, result, findings, reproduce, hooks?.keepAll === true));
      if (!result.ok) {
        // The harness could not reach the target; any other transport failure is the target's (response.received).
        const harnessSide = result.failure.kind === "unreachable" || result.failure.kind === "tls";
        if (harnessSide) error = ctx.redact.prose(result.failure.message); // its detail was masked by the client
        break; // later steps build on this one
      }
    }
    return {
      fixture: fixture.id,
      description: fixture.description,
      file: fixture.file,
      operation: fixture.operationId,
      outcome: caseOutcome(
        error,
        steps.flatMap((st) => st.findings),
      ),
      steps,
      error,
      ...(held === undefined ? {} : { held }),
      durationMs: performance.now() - started,
    };
  };
}

/** What a step is judged against: the fixture's expectation, eased where a value from an earlier answer decided it. */
function stepExpectation(
  fixture: Fixture,
  s: number,
  operation: CompiledOperation,
  prepared: PreparedRequest,
): Fixture["steps"][number]["expect"] {
  // A value from an earlier answer that held nothing went as the fixture's `otherwise`: the
  // resource it names may not exist, so 404 or 410 is an expected answer.
  const written = fixture.steps[s]!.expect;
  const fellBack = (prepared.fallbacks?.length ?? 0) > 0 && written.kind === "valid";
  // A value taken from an earlier answer can make a step the contract refuses (Prism's made-up
  // sid where the next path wants `^MG...`): it is no valid request, so it is not judged as one.
  // Where that answer broke the contract, its findings are the verdict; else either answer goes.
  const madeInvalid = written.kind === "valid" && s > 0 && !checkPrepared(operation, prepared).ok;
  return fellBack || madeInvalid
    ? { ...written, missingOk: true, ...(madeInvalid ? { refusable: true } : {}) }
    : written;
}

/**
 * A valid request sent a second time after the target had read the first (see TargetWatch): the
 * first may have been applied, so a create's answer is judged as a duplicate's (2xx or 4xx, never
 * 5xx), and a PUT's or DELETE's may say the item is gone (404, 410).
 */
function repeatedExpectation(
  written: Fixture["steps"][number]["expect"],
  prepared: PreparedRequest,
  repeated: true | undefined,
): Fixture["steps"][number]["expect"] {
  if (repeated !== true || written.kind !== "valid") return written;
  const method = prepared.method.toUpperCase();
  if (SAFE.has(method)) return written;
  // Idempotent is the same effect, not the same answer (RFC 9110 section 9.2.2): a second DELETE may
  // find nothing left, a second PUT an item that now exists.
  if (IDEMPOTENT.has(method)) return { ...written, missingOk: true };
  return { ...written, kind: "duplicate" };
}

/** A bug of the harness in one case makes that case an error, never a crash of the run. */
export function guarded(runCase: CaseRunner, redact: Redactor): CaseRunner {
  return (fixture, stream, hooks) =>
    runCase(fixture, stream, hooks).catch((error: unknown) => ({
      fixture: fixture.id,
      description: fixture.description,
      file: fixture.file,
      operation: fixture.operationId,
      outcome: "error" as const,
      steps: [],
      error: `the harness failed on this case: ${redact(error instanceof Error ? error.message : String(error))}`,
      durationMs: 0,
    }));
}

/** The target's base URL as reports show it (masked), made once per run. */
const shownBases = new WeakMap<CaseContext, string>();
function shownBase(ctx: CaseContext): string {
  let shown = shownBases.get(ctx);
  if (shown === undefined) shownBases.set(ctx, (shown = ctx.redact(joinUrl(ctx.base, ""))));
  return shown;
}

function stepResult(
  ctx: CaseContext,
  operation: CompiledOperation,
  index: number,
  prepared: PreparedRequest,
  result: ExchangeResult,
  findings: ReportedFinding[],
  reproduce: readonly CurlSecret[],
  keepAll = false,
): StepResult {
  const { redact } = ctx;
  // The target as the run shows it, then the path and query: the contract's own words stay whole.
  const url = shownBase(ctx) + maskRequestTarget(prepared.path, redact, operation.pathTemplate);
  const failed = !result.ok || findings.length > 0;
  // Masking and previewing every passing step's headers and bodies was a third of the harness's own
  // time per exchange; they are evidence, so they are made where there is something to show.
  const evidence = failed || keepAll || ctx.evidence === "all";
  // Built member by member, in the order reports show them: on Node 20 a spread costs more than this.
  const request: { -readonly [K in keyof StepResult["request"]]: StepResult["request"][K] } = {
    method: prepared.method,
    url,
  };
  if (prepared.credentials !== undefined) request.credentials = prepared.credentials;
  if (prepared.present !== undefined && prepared.present.length > 0) request.parameters = prepared.present;
  if (evidence) {
    request.headers = maskHeaders(prepared.headers, redact);
    request.body = preview(prepared.body, 500, redact);
  }
  return {
    index,
    operation: operation.operationId,
    request,
    response: !result.ok
      ? undefined
      : evidence
        ? {
            status: result.response.status,
            headers: maskHeaders(result.response.headers, redact),
            body: preview(result.response.body, 500, redact),
          }
        : { status: result.response.status },
    // The client masked the failure's detail (the network's words); the net catches a long secret.
    transportFailure: result.ok ? undefined : redact.prose(result.failure.message),
    durationMs: result.durationMs,
    findings,
    // Reproductions are written for steps that have something to reproduce.
    curl:
      keepAll || findings.some((f) => f.severity !== "note")
        ? curlFor(ctx.base, prepared, reproduce, redact, operation.pathTemplate)
        : undefined,
  };
}

function maskHeaders(h: Readonly<Record<string, string>>, redact: Redactor): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in h) out[redact(k)] = redact(h[k]!);
  return out;
}

/**
 * The checks masked what they quote of the exchange (ctx.redact); their own words, and the check id
 * and rule, stay whole. The net masks a long secret again wherever it is.
 */
function redactFinding(f: Finding, redact: Redactor): Finding {
  return {
    ...f,
    message: redact.prose(f.message),
    expected: redact.prose(f.expected),
    received: redact.prose(f.received),
  };
}
