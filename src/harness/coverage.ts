import type { CompiledOperation, Contract } from "../contract/index.js";
import type { CaseResult, Coverage, NotExercised } from "./results.js";

/**
 * What a run exercised of the contract, so a run never passes in silence over what it did not send:
 * - an operation is exercised when a request to it got an HTTP answer;
 * - a documented status (an exact code, a `2XX`-style range, `default`) when an answer of that
 *   operation was matched to it, the way the checks match answers (exact, then range, then default);
 * - a parameter when a request carrying it got an answer;
 * - an operation not exercised is listed with why (`why`: the planner's reasons, by operationId).
 */
export function computeCoverage(
  contract: Contract,
  results: readonly CaseResult[],
  why: ReadonlyMap<string, string>,
): Coverage {
  const answered = new Map<string, Set<string>>();
  const sent = new Set<string>();
  const carried = new Set<string>();
  const heard = (op: string, status: number | undefined, parameters: readonly string[] = []): void => {
    sent.add(op);
    if (status === undefined) return;
    for (const p of parameters) carried.add(`${op} ${p}`);
    const documented = contract.operation(op)?.responseFor(status);
    let statuses = answered.get(op);
    if (statuses === undefined) answered.set(op, (statuses = new Set()));
    if (documented !== undefined) statuses.add(documented.status.toUpperCase());
  };
  // The first case that targets each operation: it may have stopped before reaching it.
  const named = new Map<string, CaseResult>();
  for (const r of results) {
    if (!named.has(r.operation)) named.set(r.operation, r);
    for (const st of r.steps) heard(st.operation ?? r.operation, st.response?.status, st.request.parameters);
    for (const a of r.answers ?? []) heard(a.operation, a.status, a.parameters);
  }

  const notExercised: NotExercised[] = [];
  const statusesLeft: { operation: string; status: string }[] = [];
  let statusTotal = 0;
  for (const op of contract.operations) {
    const got = answered.get(op.operationId);
    const documented = [...op.responses.values()].map((r) => r.status);
    statusTotal += documented.length;
    for (const status of documented)
      if (got?.has(status.toUpperCase()) !== true) statusesLeft.push({ operation: op.operationId, status });
    if (got !== undefined) continue;
    const reason = sent.has(op.operationId)
      ? "no request to it got an HTTP answer"
      : (why.get(op.operationId) ?? unreached(named.get(op.operationId)));
    notExercised.push({ ...describe(op), reason });
  }
  const parametersLeft: { operation: string; in: string; name: string }[] = [];
  let parameterTotal = 0;
  for (const op of contract.operations)
    for (const p of op.parameters) {
      parameterTotal++;
      if (!carried.has(`${op.operationId} ${p.in}:${p.name}`))
        parametersLeft.push({ operation: op.operationId, in: p.in, name: p.name });
    }
  const total = contract.operations.length;
  return {
    operations: { total, exercised: total - notExercised.length, notExercised },
    statuses: { total: statusTotal, exercised: statusTotal - statusesLeft.length, notExercised: statusesLeft },
    parameters: {
      total: parameterTotal,
      exercised: parameterTotal - parametersLeft.length,
      notExercised: parametersLeft,
    },
  };
}

/** Why a case that targets an operation sent it nothing: an earlier step (a producer) or the case itself failed. */
function unreached(r: CaseResult | undefined): string {
  if (r === undefined) return "no case of this run names it";
  const earlier = r.steps.find((st) => st.operation !== r.operation);
  const status = earlier?.response?.status;
  const what =
    earlier !== undefined
      ? `its step to ${earlier.operation} got ${status ?? `no answer (${earlier.transportFailure ?? "not sent"})`}, so it never reached this one`
      : (r.error ?? `it ended before sending (${r.outcome})`);
  return `case ${r.fixture} sent it nothing: ${what}`;
}

const describe = (op: CompiledOperation): Pick<NotExercised, "operation" | "method" | "path"> => ({
  operation: op.operationId,
  method: op.method.toUpperCase(),
  path: op.pathTemplate,
});

/** Operations exercised, in percent (100 for a contract without operations). */
export function operationCoveragePercent(c: Coverage): number {
  return c.operations.total === 0 ? 100 : (100 * c.operations.exercised) / c.operations.total;
}

/** The coverage line of the console and the Markdown-ish summaries. */
export function coverageLine(c: Coverage): string {
  return (
    `coverage: ${c.operations.exercised} of ${c.operations.total} operations, ` +
    `${c.statuses.exercised} of ${c.statuses.total} documented statuses` +
    (c.parameters.total === 0 ? "" : `, ${c.parameters.exercised} of ${c.parameters.total} parameters`)
  );
}
