import { randomBytes } from "node:crypto";
import fc from "fast-check";
import {
  producerFor,
  resourceModel,
  schemaHints,
  type CompiledOperation,
  type Contract,
  type Producer,
} from "../../contract/index.js";
import type { Expectation, Fixture } from "../case-types.js";
import { freshValue, Random } from "../fresh.js";
import {
  authFixture,
  chainFixture,
  minimalRequest,
  negativeRequests,
  positiveRequests,
  requestFixture,
  type GeneratedRequest,
} from "./requests.js";
import type { GeneratorOptions } from "./bodies.js";
import type { GenerateOptions } from "../options.js";
import { NOT_RUN_ERROR, NOT_SENT_ERROR, type CaseResult, type StepResult } from "../results.js";
import type { GeneratedCase } from "./cases.js";

/**
 * Budgets by count, never by time, so a seed gives the same requests and the same verdict on a fast
 * machine and a busy one: candidates a case may skip for each one it judges (a candidate the contract
 * disagrees with is never sent), and requests a failing case may send while shrinking.
 */
export const GENERATION_BUDGET = { skipsPerJudged: 20, shrinkSends: 100 } as const;

/** What the generated part of a run gives back: a result per case, and whether the time limit stopped it. */
export interface GeneratedRun {
  readonly results: CaseResult[];
  /** The cases the time limit left unjudged (their results say so); 0 when the run was not stopped. */
  readonly notRun: number;
  /** Whether the time limit (--max-time) stopped the run, in a case or before one. */
  readonly stopped: boolean;
}

type RunCase = (fixture: Fixture, stream: Random) => Promise<CaseResult>;

/** What every generated case of a run shares. */
interface Ctx {
  readonly contract: Contract;
  readonly options: GenerateOptions;
  readonly seed: bigint;
  readonly runCase: RunCase;
  /** Values of the case's own requests: drawn from the seed. */
  readonly generator: GeneratorOptions;
  /** Where the generator's fresh values are now; calling the result goes back there. */
  readonly freshCheckpoint: () => () => void;
  /** Values of the plainest requests and their producers, judged strictly: never repeated across runs. */
  readonly probe: GeneratorOptions;
  readonly random: Random;
  /** The outer guard (--max-time), as a Date.now() instant: only a hang ever reaches it. */
  readonly deadline: number;
  /** How many of a case's generated requests may be in flight at once (--concurrency). */
  readonly concurrency: number;
}

/**
 * Runs generated cases with fast-check: each generated request is judged like a fixture; the first
 * failing one is shrunk (fast-check re-sends smaller ones, at most GENERATION_BUDGET.shrinkSends) and
 * reported as the case of its operation and polarity, with its reason and a curl command. Before
 * them, the plainest valid request must get the documented success. The same seed gives the same
 * requests, judged in the same order: cases run one at a time, and within a case up to `concurrency`
 * requests are in flight (sent ahead of the one judged; a slow target costs its latency once per
 * `concurrency` requests), the first failing one in the seed's order shrunk. `deadline` is an
 * outer guard: reaching it stops the run, and every case not judged then says so. Each case is given
 * to `onCase` as it finishes.
 */
export async function runGenerated(
  contract: Contract,
  cases: readonly GeneratedCase[],
  options: GenerateOptions,
  seed: bigint,
  runCase: RunCase,
  deadline: number,
  onCase: (result: CaseResult) => void = () => {},
  concurrency = 1,
  gone: () => boolean = () => false,
): Promise<GeneratedRun> {
  const random = new Random(seed ^ 0x9e3779b97f4a7c15n);
  // The generator's fresh values from a stream of their own: drawing them never depends on what the
  // cases' runs consume, so the requests drawn ahead (sentAhead) are the ones fast-check draws.
  const fresh = freshMakers(new Random(seed ^ 0x2545f4914f6cdd1dn), options, contract);
  const ctx: Ctx = {
    contract,
    options,
    seed,
    runCase,
    random,
    deadline,
    concurrency: Math.max(1, concurrency),
    ...fresh,
  };
  const results: CaseResult[] = [];
  const finished = (result: CaseResult): void => {
    results.push(result);
    onCase(result);
  };
  let stopped = false;
  // Creates first, then reads, updates and deletes: a list or a read then sees resources, as a user's would.
  const rank = (op: CompiledOperation): number =>
    ["post", "get", "head", "put", "patch", "delete"].indexOf(op.method) >>> 0;
  const operations = [...new Set(cases.map((c) => c.operation))].sort((a, b) => rank(a) - rank(b));
  let notRun = 0;
  for (const op of operations) {
    const setup = operationSetup(ctx, op);
    for (const c of cases.filter((x) => x.operation === op)) {
      if (gone()) {
        finished(notSentResult(c));
        continue;
      }
      if (stopped || Date.now() >= deadline) {
        stopped = true;
        notRun++;
        finished(notRunResult(c));
        continue;
      }
      const r = c.kind === "auth" ? await authCase(ctx, c, setup.minimal) : await polarityCase(ctx, c, setup);
      finished(r.result);
      if (r.interrupted) stopped = true;
    }
  }
  return { results, notRun, stopped };
}

/** Run-fresh values for unique properties: the case's from the seed, the plainest requests' from outside it. */
function freshMakers(
  random: Random,
  options: GenerateOptions,
  contract: Contract,
): { generator: GeneratorOptions; probe: GeneratorOptions; freshCheckpoint: () => () => void } {
  const intKinds = ["int64", "int64-big", "int64-negative", "int64-big-negative"] as const;
  let k = 0;
  const freshCheckpoint = (): (() => void) => {
    const [restore, kept] = [random.checkpoint(), k];
    return () => {
      restore();
      k = kept;
    };
  };
  // Unique properties get run-fresh values (the four int64 kinds in turn), as fixtures' $fresh do.
  const make = (type: "integer" | "string") =>
    type === "string"
      ? freshValue("string", random)
      : freshValue(intKinds[k++ % intKinds.length] as (typeof intKinds)[number], random);
  // By default `id`, and every id a client chooses by the contract's resource model (Gitea's `username`).
  const chosen = resourceModel(contract).resources.flatMap((r) =>
    r.id === undefined || r.id.chosenBy === "server" ? [] : [r.id.name],
  );
  const names = options.unique ?? [...new Set(["id", ...chosen])];
  // The plainest request's unique values are drawn outside the seed: it is judged strictly (no refusal
  // allowed), so it must never repeat an id of an earlier run with the same seed on the same server.
  const probeRandom = new Random(BigInt(`0x${randomBytes(8).toString("hex")}`));
  const probeMake = (type: "integer" | "string") => freshValue(type === "string" ? "string" : "int64", probeRandom);
  return {
    generator: { fresh: new Map(names.map((name) => [name, make] as const)) },
    probe: { fresh: new Map(names.map((name) => [name, probeMake] as const)) },
    freshCheckpoint,
  };
}

/** What an operation's cases share: where an existing resource comes from, and its plainest request. */
interface Setup {
  readonly producer: Producer | undefined;
  /** Path parameters with no producer: ids are made up, and 404 is then the expected answer. */
  readonly unknownIds: boolean;
  readonly minimal: GeneratedRequest | undefined;
}

function operationSetup(ctx: Ctx, op: CompiledOperation): Setup {
  // A producer counts only when a chain can be built from it (its plainest request exists).
  const found = producerFor(ctx.contract, op);
  const producer =
    found !== undefined && chainFixture(ctx.contract, op, found, ctx.probe, "probe") !== undefined ? found : undefined;
  return {
    producer,
    unknownIds: producer === undefined && op.parameters.some((p) => p.in === "path"),
    minimal: minimalRequest(ctx.contract, op, ctx.probe),
  };
}

function notRunResult(c: GeneratedCase): CaseResult {
  const description = `${c.kind} requests for ${c.operation.operationId}`;
  return { ...errorResult(c, description, NOT_RUN_ERROR), timeLimit: "before-case" };
}

function notSentResult(c: GeneratedCase): CaseResult {
  const description = `${c.kind} requests for ${c.operation.operationId}`;
  return { ...errorResult(c, description, NOT_SENT_ERROR), held: "not-sent" };
}

function errorResult(c: GeneratedCase, description: string, error: string): CaseResult {
  return {
    fixture: c.id,
    description,
    file: "(generated)",
    operation: c.operation.operationId,
    outcome: "error",
    steps: [],
    error,
    durationMs: 0,
  };
}

/** Every operation that requires credentials is tried without them, with wrong ones and with near misses. */
async function authCase(
  ctx: Ctx,
  c: GeneratedCase,
  minimal: GeneratedRequest | undefined,
): Promise<{ result: CaseResult; interrupted: boolean }> {
  if (minimal === undefined) {
    const why = "no plain request of this operation could be made to send with wrong credentials";
    return { result: errorResult(c, `the credentials of ${c.operation.operationId}`, why), interrupted: false };
  }
  return { result: await ctx.runCase(authFixture(c.operation, minimal, c.id), ctx.random), interrupted: false };
}

/** The answers a generated case heard, for the coverage: it stands for every request it sent. */
class Heard {
  readonly #answers = new Map<string, { operation: string; status: number; parameters: Set<string> }>();

  add(r: CaseResult): CaseResult {
    for (const st of r.steps) {
      if (st.response === undefined) continue;
      const k = `${st.operation} ${st.response.status}`;
      let a = this.#answers.get(k);
      if (a === undefined)
        this.#answers.set(k, (a = { operation: st.operation, status: st.response.status, parameters: new Set() }));
      for (const p of st.request.parameters ?? []) a.parameters.add(p);
    }
    return r;
  }

  list(): CaseResult["answers"] {
    return [...this.#answers.values()].map((a) => ({ ...a, parameters: [...a.parameters] }));
  }
}

/** One generated request as the case it is judged in; a negative goes on a resource the case makes first. */
function judgeRequest(ctx: Ctx, c: GeneratedCase, setup: Setup, heard: Heard) {
  const op = c.operation;
  const kind = c.kind === "positive" ? "valid" : "invalid";
  const judge = (request: GeneratedRequest, strict = false, hear = true): Promise<CaseResult> => {
    const expect: Expectation =
      kind === "invalid"
        ? { kind }
        : {
            kind,
            // A refusal of a positive request is a warning: the contract shows no constraints beyond the schema.
            ...(strict ? {} : { refusable: true }),
            ...(setup.unknownIds || (!strict && setup.producer !== undefined) ? { missingOk: true } : {}),
          };
    const description =
      kind === "valid"
        ? "a generated request the contract accepts"
        : `a generated request that breaks one rule: ${request.reason}`;
    // A negative on an id made up would get 404 from any server, hiding whether it checks the broken
    // rule: with a producer, it is sent on a resource the case makes first.
    const producer = setup.producer;
    const onMadeResource =
      kind === "invalid" &&
      producer !== undefined &&
      !(request.brokenParameter?.in === "path" && request.brokenParameter.name === producer.parameter.name);
    const made = onMadeResource
      ? chainFixture(ctx.contract, op, producer, ctx.probe, c.id, { request, expect, description })
      : undefined;
    const sent = ctx.runCase(made ?? requestFixture(op, c.id, description, request, expect), ctx.random);
    return hear ? sent.then((r) => heard.add(r)) : sent;
  };
  // A request sent ahead is heard (its answers counted in the coverage) only once it is judged.
  return Object.assign(judge, { hear: (r: CaseResult): CaseResult => heard.add(r) });
}

/**
 * The plainest valid request, judged strictly: a server that refuses everything cannot pass on
 * warnings. One drawn from generated values (ordinary ones did not do) is judged as any positive.
 */
async function plainestFirst(
  ctx: Ctx,
  c: GeneratedCase,
  setup: Setup,
  heard: Heard,
  judge: ReturnType<typeof judgeRequest>,
): Promise<CaseResult | undefined> {
  const op = c.operation;
  // With a producer, the plainest request is called on a resource the case makes first.
  const chain =
    setup.producer === undefined ? undefined : chainFixture(ctx.contract, op, setup.producer, ctx.probe, c.id);
  const probe =
    chain !== undefined
      ? heard.add(await ctx.runCase(chain, ctx.random))
      : setup.minimal !== undefined
        ? await judge(setup.minimal, setup.minimal.drawn !== true)
        : undefined;
  if (probe === undefined || probe.outcome === "pass") return undefined;
  const what =
    chain !== undefined
      ? chain.description
      : `the plainest valid request for ${op.operationId} (required values, ordinary ones)`;
  return {
    ...probe,
    fixture: c.id,
    description: `${what}: not accepted`,
    generated: { polarity: "positive", body: setup.minimal?.body?.text ?? "", reason: undefined },
  };
}

/** A positive or negative case: count-budgeted generation and shrinking, the outer guard aside. */
async function polarityCase(
  ctx: Ctx,
  c: GeneratedCase,
  setup: Setup,
): Promise<{ result: CaseResult; interrupted: boolean }> {
  const polarity = c.kind as "positive" | "negative";
  const started = performance.now();
  const heard = new Heard();
  const finish = (r: CaseResult): CaseResult => ({
    ...r,
    answers: heard.list(),
    // The case stands for every request of its operation and polarity: its time is theirs.
    durationMs: performance.now() - started,
  });
  const judge = judgeRequest(ctx, c, setup, heard);
  if (polarity === "positive") {
    const refused = await plainestFirst(ctx, c, setup, heard, judge);
    if (refused !== undefined) return { result: finish(refused), interrupted: false };
  }
  const search = await searchRequests(ctx, c.operation, polarity, judge);
  return { result: finish(searchResult(ctx, c, setup, polarity, search)), interrupted: search.interrupted };
}

/** What the generated requests of a case came to. */
interface Search {
  /** The first judged request the harness could not judge. */
  readonly harnessError: CaseResult | undefined;
  /** Requests judged before the one the harness could not judge. */
  readonly judgedBeforeError: number;
  /**
   * The last failing call is fast-check's counterexample (the smallest failing request found); it is
   * reported as judged then, not sent again: a stateful target may answer differently now.
   */
  readonly lastFailure: { readonly request: GeneratedRequest; readonly result: CaseResult } | undefined;
  /** Warnings of every judged request, one example step per check, so none is lost behind a pass. */
  readonly warnings: ReadonlyMap<string, StepResult>;
  readonly judged: number;
  readonly shrinkSends: number;
  /** fast-check's shrinking steps. */
  readonly numShrinks: number;
  /** Whether the outer guard (--max-time) stopped it. */
  readonly interrupted: boolean;
}

/** Generates requests of one polarity with fast-check and judges each; the first failing one is shrunk. */
async function searchRequests(
  ctx: Ctx,
  op: CompiledOperation,
  polarity: "positive" | "negative",
  judge: ReturnType<typeof judgeRequest>,
): Promise<Search> {
  let harnessError: CaseResult | undefined;
  let judgedBeforeError = 0;
  let lastFailure: Search["lastFailure"];
  const warnings = new Map<string, StepResult>();
  let judged = 0;
  let shrinkSends = 0;
  const arb =
    polarity === "positive"
      ? positiveRequests(ctx.contract, op, ctx.generator)
      : negativeRequests(ctx.contract, op, ctx.generator);
  const seed = Number(BigInt.asUintN(31, ctx.seed));
  const ahead = sentAhead(ctx, arb, seed, judge);
  let drawn = 0;
  const details = await fc.check(
    fc.asyncProperty(arb, async (request) => {
      const index = drawn++;
      fc.pre(request !== null); // a candidate the contract disagrees with is skipped, never sent
      // Shrinking is budgeted by sends: past the budget a candidate is taken as passing, unsent. A
      // failure without an answer (a timeout, a reset) is not shrunk at all: each smaller request
      // would cost a whole --timeout, and a few in a row would take the target for stopped.
      if (lastFailure !== undefined && lastFailure.result.steps.some((st) => st.transportFailure !== undefined))
        return true;
      if (lastFailure !== undefined && ++shrinkSends > GENERATION_BUDGET.shrinkSends) return true;
      // Before the first failure, fast-check draws what fc.sample draws with the seed: sent ahead.
      const early = lastFailure === undefined ? ahead.take(index, request as GeneratedRequest) : undefined;
      if (lastFailure === undefined) ahead.fill(index + 1);
      const result = await (early?.then(judge.hear) ?? judge(request as GeneratedRequest));
      judged++;
      if (result.outcome === "error" && harnessError === undefined) {
        harnessError = result;
        judgedBeforeError = judged - 1;
      }
      for (const step of result.steps)
        for (const f of step.findings)
          if (f.severity === "warning" && !warnings.has(f.check)) warnings.set(f.check, step);
      if (result.outcome === "fail") {
        lastFailure = { request: request as GeneratedRequest, result };
        // Shrinking starts from a target no request sent ahead is still reaching.
        await ahead.settle();
      }
      return result.outcome !== "fail";
    }),
    {
      seed,
      numRuns: ctx.options.count,
      // The outer guard only: a run that reaches it is reported as stopped, never as judged.
      interruptAfterTimeLimit: Math.max(1, ctx.deadline - Date.now()),
      markInterruptAsFailure: false,
      maxSkipsPerRun: GENERATION_BUDGET.skipsPerJudged,
    },
  );
  await ahead.settle();
  return {
    harnessError,
    judgedBeforeError,
    lastFailure,
    warnings,
    judged,
    shrinkSends,
    numShrinks: details.numShrinks,
    interrupted: details.interrupted,
  };
}

/**
 * The requests of a case sent ahead of the one fast-check judges, `concurrency - 1` at most in flight
 * besides it: fast-check draws, before its first failure, exactly what fc.sample draws with the same
 * seed, so the candidates are known in order. `take` gives the judgement of the candidate at an index
 * when it is the one drawn (the same request), `fill` starts the next ones. Each result is judged in
 * the seed's order whatever order the answers came in: the verdict is the same on a fast target and a
 * slow one; only requests after a failure may have been sent for nothing.
 */
function sentAhead(
  ctx: Ctx,
  arb: fc.Arbitrary<GeneratedRequest | null>,
  seed: number,
  judge: (request: GeneratedRequest, strict: boolean, hear: boolean) => Promise<CaseResult>,
): {
  take(index: number, request: GeneratedRequest): Promise<CaseResult> | undefined;
  fill(from: number): void;
  settle(): Promise<void>;
} {
  const started = new Map<number, Promise<CaseResult>>();
  if (ctx.concurrency <= 1) return { take: () => undefined, fill: () => {}, settle: async () => {} };
  // Drawn as fast-check will draw them: from the same seed and the same fresh values (put back after).
  const restore = ctx.freshCheckpoint();
  const planned = fc.sample(arb, { seed, numRuns: ctx.options.count * 2 });
  restore();
  // No further than the count-th request: a passing case sends no more than fast-check judges.
  let last = -1;
  for (let i = 0, n = 0; i < planned.length && n < ctx.options.count; i++)
    if (planned[i] !== null) [last, n] = [i, n + 1];
  const key = (r: GeneratedRequest | null): string =>
    JSON.stringify(r, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));
  return {
    take(index, request) {
      const early = started.get(index);
      started.delete(index);
      return early !== undefined && key(planned[index] ?? null) === key(request) ? early : undefined;
    },
    fill(from) {
      let inFlight = started.size;
      for (let i = from; i <= last && inFlight < ctx.concurrency - 1; i++) {
        const candidate = planned[i];
        if (candidate === null || candidate === undefined) continue;
        if (!started.has(i)) {
          const sent = judge(candidate, false, false);
          // One never taken (a failure came first) is not awaited: its rejection must not go unheard.
          sent.catch(() => {});
          started.set(i, sent);
        }
        inFlight = [...started.keys()].filter((k) => k >= from).length;
      }
    },
    // Waits for every request sent ahead that no one took: none reaches the target after it.
    async settle() {
      await Promise.allSettled([...started.values()]);
      started.clear();
    },
  };
}

/** The case's result: its smallest failing request, a request it could not judge, the guard's stop, or a pass. */
function searchResult(
  ctx: Ctx,
  c: GeneratedCase,
  setup: Setup,
  polarity: "positive" | "negative",
  search: Search,
): CaseResult {
  const op = c.operation;
  const { judged, lastFailure, harnessError } = search;
  const ids = setup.unknownIds ? " (with ids the harness could not know: 404 accepted)" : "";
  const summary = `${judged} generated ${polarity} requests for ${op.operationId}${ids}`;
  const base = { fixture: c.id, file: "(generated)", operation: op.operationId, durationMs: 0 };
  if (lastFailure !== undefined) {
    const { request, result: failed } = lastFailure;
    const shrunk = Math.min(search.shrinkSends, GENERATION_BUDGET.shrinkSends);
    return {
      ...failed,
      fixture: c.id,
      description: `${summary}; the smallest failing one (after ${search.numShrinks} shrinking steps, ${shrunk} requests sent)${request.reason === undefined ? "" : ` breaks ${request.reason}`}`,
      generated: {
        polarity,
        body: request.body?.text ?? "",
        parameters: jsonParameters(request.parameters),
        reason: request.reason,
      },
    };
  }
  if (harnessError !== undefined) {
    // A case partly judged before the target stopped is not one "not sent".
    const { held, ...error } = harnessError;
    const whole = held !== undefined && search.judgedBeforeError === 0 ? { held } : {};
    return { ...error, ...whole, fixture: c.id, description: summary };
  }
  if (search.interrupted) {
    const error = `stopped at the time limit (--max-time) after judging ${judged} of ${ctx.options.count} requests`;
    return { ...base, description: summary, outcome: "error", steps: [], error, timeLimit: "during-case" };
  }
  if (judged === 0)
    return { ...base, description: summary, outcome: "error", steps: [], error: unbuilt(ctx, op, polarity) };
  return {
    ...base,
    description: `${summary}: all judged`,
    outcome: "pass",
    steps: [...search.warnings.values()],
    error: undefined,
  };
}

/**
 * Why no request of a case could be built: for a negative, whether the generator found no valid
 * request to break (as for the positive case) or broke rules only in ways the contract did not
 * refuse for that rule alone. Said plainly: the case could not be judged, and nobody is to blame.
 */
function unbuilt(ctx: Ctx, op: CompiledOperation, polarity: "positive" | "negative"): string {
  const every = "cannot generate requests for this operation: every candidate was refused by the contract";
  if (polarity === "positive") return `${every} (the generator built no value its schemas accept)${hintsOf(ctx, op)}`;
  // The valid requests the negative ones start from, drawn as many as one judged request may skip.
  const bases = fc.sample(positiveRequests(ctx.contract, op, ctx.generator), {
    numRuns: GENERATION_BUDGET.skipsPerJudged,
    seed: Number(BigInt.asUintN(31, ctx.seed)),
  });
  return bases.every((b) => b === null)
    ? `${every} (no valid request could be built to break a rule of)`
    : `${every} (each rule the generator broke was still accepted, or refused along with another rule)`;
}

/** What in the operation's request schemas may be why no valid value was found, as a linter says it. */
function hintsOf(ctx: Ctx, op: CompiledOperation): string {
  const doc = ctx.contract.document;
  const pointers = [
    ...op.parameters.filter((p) => p.required).map((p) => `${p.content?.pointer ?? p.pointer}/schema`),
    ...[...(op.requestBody?.content.values() ?? [])].filter((e) => e.hasSchema).map((e) => `${e.pointer}/schema`),
  ];
  const hints = pointers.flatMap((pointer) => schemaHints(doc, pointer)).slice(0, 3);
  return hints.map((h) => `; the document may be why: ${h.message} (${h.pointer})`).join("");
}

/** Parameter values as JSON can hold them: integers beyond 2^53 as their digits (serialised the same). */
function jsonParameters(parameters: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(parameters, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
  ) as Record<string, unknown>;
}
