import fc from "fast-check";
import type { CompiledOperation, Contract } from "../src/contract/index.js";
import type { Fixture } from "./fixtures.js";
import { freshValue, Random } from "./fresh.js";
import { generatedFixture, negativeBodies, positiveBodies, type GeneratedBody } from "./generate.js";
import type { CaseResult, GenerateOptions } from "./run.js";

/**
 * Runs generated cases with fast-check: each generated body is one case judged like a fixture; the
 * first failing body is shrunk to a smallest failing one (fast-check re-sends smaller bodies), and
 * reported as the case of its operation and polarity, with its reason and a curl command. The same
 * seed gives the same bodies in the same order; cases run one at a time, whatever --concurrency says.
 */
export async function runGenerated(
  contract: Contract,
  operations: readonly CompiledOperation[],
  options: GenerateOptions,
  seed: bigint,
  runCase: (fixture: Fixture, stream: Random) => Promise<CaseResult>,
): Promise<CaseResult[]> {
  const random = new Random(seed ^ 0x9e3779b97f4a7c15n);
  const unique = options.unique ?? ["id"];
  const kinds = ["int64", "int64-big", "int64-negative", "int64-big-negative"] as const;
  let k = 0;
  // Unique properties get run-fresh values (all four int64 kinds in turn), as fixtures' $fresh do.
  const fresh = new Map(unique.map((name) => [name, () => freshValue(kinds[k++ % kinds.length] as (typeof kinds)[number], random)] as const));
  const deadline = Date.now() + (options.maxTimeMs ?? 60_000);
  const results: CaseResult[] = [];
  for (const op of operations) {
    for (const polarity of ["positive", "negative"] as const) {
      const id = `generated-${polarity}-${op.operationId}`;
      const arb = polarity === "positive" ? positiveBodies(contract, op, contract.document, { fresh }) : negativeBodies(contract, op, contract.document, { fresh });
      let n = 0;
      let last: CaseResult | undefined;
      let harnessError: CaseResult | undefined;
      // The last failing call is fast-check's counterexample (the smallest failing body found);
      // it is reported as judged then, not sent again: a stateful target may answer differently now.
      let lastFailure: { body: GeneratedBody; result: CaseResult } | undefined;
      const judge = async (body: GeneratedBody): Promise<CaseResult> =>
        runCase(generatedFixture(op, `${id}-${++n}`, body, polarity === "positive" ? "valid" : "invalid"), random);
      const details = await fc.check(
        fc.asyncProperty(arb, async (body) => {
          last = await judge(body);
          if (last.outcome === "error") harnessError ??= last;
          if (last.outcome === "fail") lastFailure = { body, result: last };
          return last.outcome !== "fail";
        }),
        { seed: Number(BigInt.asUintN(31, seed)), numRuns: options.count, interruptAfterTimeLimit: Math.max(1, deadline - Date.now()), markInterruptAsFailure: false },
      );
      const summary = `${details.numRuns} generated ${polarity} bodies for ${op.operationId}`;
      if (details.failed && lastFailure !== undefined) {
        const { body: shrunk, result } = lastFailure;
        results.push({
          ...result,
          fixture: id,
          description: `${summary}; the smallest failing one (after ${details.numShrinks} shrinking steps)${shrunk.reason === undefined ? "" : ` breaks ${shrunk.reason}`}`,
          generated: { polarity, body: shrunk.text, reason: shrunk.reason },
        });
      } else if (harnessError !== undefined) {
        results.push({ ...(harnessError as CaseResult), fixture: id, description: summary });
      } else {
        results.push({
          fixture: id,
          description: `${summary}: all judged${details.interrupted ? " (stopped at --max-time)" : ""}`,
          file: "(generated)",
          operation: op.operationId,
          outcome: "pass",
          steps: (last as CaseResult | undefined)?.steps.filter((s) => s.findings.some((f) => f.severity !== "note")) ?? [],
          error: undefined,
          durationMs: 0,
        });
      }
    }
  }
  return results;
}
