import { randomBytes } from "node:crypto";
import fc from "fast-check";
import type { CompiledOperation, Contract } from "../src/contract/index.js";
import type { Expectation, Fixture } from "./fixtures.js";
import { freshValue, Random } from "./fresh.js";
import {
  authFixture,
  chainFixture,
  minimalRequest,
  negativeRequests,
  negativesPossible,
  positiveRequests,
  producerFor,
  requestFixture,
  type GeneratedRequest,
} from "./generate-request.js";
import type { GenerateOptions } from "./options.js";
import type { CaseResult, StepResult } from "./results.js";

const POLARITIES = ["positive", "negative"] as const;

/**
 * Runs generated cases with fast-check: each generated body is one case judged like a fixture; the
 * first failing body is shrunk to a smallest failing one (fast-check re-sends smaller bodies) and
 * reported as the case of its operation and polarity, with its reason and a curl command. Before
 * them, the plainest valid body must get the documented success (a server that refuses everything
 * cannot pass on warnings). The same seed gives the same bodies in the same order; cases run one at
 * a time, whatever --concurrency says. Each operation and polarity gets an equal share of
 * --max-time; one that judged no body at all is an error, never a pass.
 */
export async function runGenerated(
  contract: Contract,
  operations: readonly CompiledOperation[],
  options: GenerateOptions,
  seed: bigint,
  runCase: (fixture: Fixture, stream: Random) => Promise<CaseResult>,
): Promise<CaseResult[]> {
  const random = new Random(seed ^ 0x9e3779b97f4a7c15n);
  const intKinds = ["int64", "int64-big", "int64-negative", "int64-big-negative"] as const;
  let k = 0;
  // Unique properties get run-fresh values (the four int64 kinds in turn), as fixtures' $fresh do.
  const make = (type: "integer" | "string") =>
    type === "string"
      ? freshValue("string", random)
      : freshValue(intKinds[k++ % intKinds.length] as (typeof intKinds)[number], random);
  const fresh = new Map((options.unique ?? ["id"]).map((name) => [name, make] as const));
  const budget = options.maxTimeMs ?? 60_000;
  const deadline = Date.now() + budget;
  const results: CaseResult[] = [];
  let slicesLeft = operations.reduce((n, op) => n + (negativesPossible(op) ? 2 : 1), 0);

  // The plainest body's unique values are drawn outside the seed: it is judged strictly (no refusal
  // allowed), so it must never repeat an id of an earlier run with the same seed on the same server.
  const probeRandom = new Random(BigInt(`0x${randomBytes(8).toString("hex")}`));
  const probeFresh = new Map(
    [...fresh.keys()].map(
      (name) =>
        [
          name,
          (type: "integer" | "string") => freshValue(type === "string" ? "string" : "int64", probeRandom),
        ] as const,
    ),
  );
  // Creates first, then reads, updates and deletes: a list or a read then sees resources, as a user's would.
  const rank = (op: CompiledOperation): number =>
    ["post", "get", "head", "put", "patch", "delete"].indexOf(op.method) >>> 0;
  for (const op of [...operations].sort((a, b) => rank(a) - rank(b))) {
    const probeOptions = { fresh: probeFresh };
    // A producer counts only when a chain can be built from it (its plainest request exists).
    const found = producerFor(contract, op);
    const producer =
      found !== undefined && chainFixture(contract, op, found, probeOptions, "probe") !== undefined ? found : undefined;
    // With a path parameter and no way to know an existing resource, ids are made up: 404 is then
    // the expected answer, not a failure, and the case says so.
    const unknownIds = producer === undefined && op.parameters.some((p) => p.in === "path");
    const minimal = minimalRequest(contract, op, probeOptions);
    for (const polarity of POLARITIES) {
      if (polarity === "negative" && !negativesPossible(op)) continue; // nothing to break: no case, said in the plan
      const id = `generated-${polarity}-${op.operationId}`;
      const sliceEnd = Date.now() + Math.max(1, (deadline - Date.now()) / slicesLeft--);
      const sliceStarted = performance.now();
      const kind = polarity === "positive" ? "valid" : "invalid";
      // Every answer this operation and polarity got, for the coverage (a generated case stands for many).
      const answers = new Map<string, { operation: string; status: number; parameters: Set<string> }>();
      const heard = (r: CaseResult): CaseResult => {
        for (const st of r.steps) {
          if (st.response === undefined) continue;
          const k = `${st.operation} ${st.response.status}`;
          let a = answers.get(k);
          if (a === undefined)
            answers.set(k, (a = { operation: st.operation, status: st.response.status, parameters: new Set() }));
          for (const p of st.request.parameters ?? []) a.parameters.add(p);
        }
        return r;
      };
      const push = (r: CaseResult): void =>
        void results.push({
          ...r,
          answers: [...answers.values()].map((a) => ({ ...a, parameters: [...a.parameters] })),
          // The case stands for every request of its operation and polarity: its time is theirs.
          durationMs: performance.now() - sliceStarted,
        });
      // Every request of the case is judged under the case's id, so a baseline entry names it.
      const judge = (request: GeneratedRequest, strict = false): Promise<CaseResult> => {
        const expect: Expectation =
          kind === "invalid"
            ? { kind }
            : {
                kind,
                // A refusal of a positive request is a warning: the contract shows no constraints beyond the schema.
                ...(strict ? {} : { refusable: true }),
                ...(unknownIds || (!strict && producer !== undefined) ? { missingOk: true } : {}),
              };
        const description =
          kind === "valid"
            ? "a generated request the contract accepts"
            : `a generated request that breaks one rule: ${request.reason}`;
        // A negative on an id made up would get 404 from any server, hiding whether it checks the
        // broken rule: with a producer, it is sent on a resource the case makes first.
        const onMadeResource =
          kind === "invalid" &&
          producer !== undefined &&
          request.reason?.startsWith(`path parameter ${producer.parameter.name}:`) !== true;
        const made = onMadeResource
          ? chainFixture(contract, op, producer, probeOptions, id, { request, expect, description })
          : undefined;
        return runCase(made ?? requestFixture(op, id, description, request, expect), random).then(heard);
      };
      // The plainest valid request first: it must get the documented success, refusal included. With a
      // producer, it is called on a resource the case makes first.
      if (polarity === "positive") {
        const chain = producer === undefined ? undefined : chainFixture(contract, op, producer, probeOptions, id);
        const probe =
          chain !== undefined
            ? heard(await runCase(chain, random))
            : minimal !== undefined
              ? await judge(minimal, true)
              : undefined;
        if (probe !== undefined && probe.outcome !== "pass") {
          const what =
            chain !== undefined
              ? chain.description
              : `the plainest valid request for ${op.operationId} (required values, ordinary ones)`;
          push({
            ...probe,
            fixture: id,
            description: `${what}: not accepted`,
            generated: { polarity, body: minimal?.body?.text ?? "", reason: undefined },
          });
          continue;
        }
      }
      let harnessError: CaseResult | undefined;
      // The last failing call is fast-check's counterexample (the smallest failing body found); it is
      // reported as judged then, not sent again: a stateful target may answer differently now.
      let lastFailure: { request: GeneratedRequest; result: CaseResult } | undefined;
      // Warnings of every judged body, one example step per check, so none is lost behind a pass.
      const warnings = new Map<string, StepResult>();
      let judged = 0;
      const arb =
        polarity === "positive" ? positiveRequests(contract, op, { fresh }) : negativeRequests(contract, op, { fresh });
      const details = await fc.check(
        fc.asyncProperty(arb, async (request) => {
          fc.pre(request !== null); // a candidate the contract disagrees with is skipped, never sent
          const result = await judge(request as GeneratedRequest);
          judged++;
          if (result.outcome === "error") harnessError ??= result;
          for (const step of result.steps)
            for (const f of step.findings)
              if (f.severity === "warning" && !warnings.has(f.check)) warnings.set(f.check, step);
          if (result.outcome === "fail") lastFailure = { request: request as GeneratedRequest, result };
          return result.outcome !== "fail";
        }),
        {
          seed: Number(BigInt.asUintN(31, seed)),
          numRuns: options.count,
          interruptAfterTimeLimit: Math.max(1, sliceEnd - Date.now()),
          markInterruptAsFailure: false,
          maxSkipsPerRun: 20,
        },
      );
      const ids = unknownIds ? " (with ids the harness could not know: 404 accepted)" : "";
      const summary = `${judged} generated ${polarity} requests for ${op.operationId}${ids}`;
      if (lastFailure !== undefined) {
        const { request, result } = lastFailure;
        push({
          ...result,
          fixture: id,
          description: `${summary}; the smallest failing one (after ${details.numShrinks} shrinking steps)${request.reason === undefined ? "" : ` breaks ${request.reason}`}`,
          generated: {
            polarity,
            body: request.body?.text ?? "",
            parameters: jsonParameters(request.parameters),
            reason: request.reason,
          },
        });
      } else if (harnessError !== undefined) {
        push({ ...harnessError, fixture: id, description: summary });
      } else if (judged === 0) {
        push({
          fixture: id,
          description: summary,
          file: "(generated)",
          operation: op.operationId,
          outcome: "error",
          steps: [],
          error: details.interrupted
            ? "no generated body was judged within its share of --max-time; give it more time"
            : "cannot generate requests for this operation: every candidate was refused by the contract",
          durationMs: 0,
        });
      } else {
        push({
          fixture: id,
          description: `${summary}: all judged${details.interrupted ? ` (stopped at its share of --max-time, after ${judged} of ${options.count})` : ""}`,
          file: "(generated)",
          operation: op.operationId,
          outcome: "pass",
          steps: [...warnings.values()],
          error: undefined,
          durationMs: 0,
        });
      }
    }
    // Every operation that requires credentials is tried without them, with wrong ones and near misses.
    if (op.authRequired) {
      const id = `generated-auth-${op.operationId}`;
      if (minimal === undefined)
        results.push({
          fixture: id,
          description: `the credentials of ${op.operationId}`,
          file: "(generated)",
          operation: op.operationId,
          outcome: "error",
          steps: [],
          error: "no plain request of this operation could be made to send with wrong credentials",
          durationMs: 0,
        });
      else {
        const result = await runCase(authFixture(op, minimal, id), random);
        results.push(result);
      }
    }
  }
  return results;
}

/** Parameter values as JSON can hold them: integers beyond 2^53 as their digits (serialised the same). */
function jsonParameters(parameters: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(parameters, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
  ) as Record<string, unknown>;
}
