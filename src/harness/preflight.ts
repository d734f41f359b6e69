import { randomBytes } from "node:crypto";
import type { CompiledOperation, Contract } from "../contract/index.js";
import { KitError } from "../errors.js";
import type { Fixture } from "./case-types.js";
import { freshValue, Random } from "./fresh.js";
import { minimalRequest, requestFixture } from "./generate/index.js";
import type { CaseResult, PreflightProbe } from "./results.js";

/** At most this many operations are probed: enough to tell a wrong base path from one missing operation. */
const MAX_PROBES = 3;
const SAFE = new Set(["get", "head"]);

/**
 * Before any case is judged: the plainest valid request to operations that will run and need no
 * existing resource (no path parameter; reads first, as they change nothing), each with valid
 * credentials when it requires them. Probing stops at the first answer that is neither 404 nor a
 * refusal of the credentials. The run stops with exit 2 when every probe got 404 (nothing of the
 * contract under the target: a wrong base path, another API), or when every probe that carried
 * valid credentials got 401 or 403 (the credentials are wrong for this target). What a probe's
 * answer says of the contract is judged by the cases, not here.
 */
export async function preflight(
  contract: Contract,
  operations: readonly CompiledOperation[],
  runCase: (fixture: Fixture, stream: Random) => Promise<CaseResult>,
  options: { readonly unique: readonly string[]; readonly canAuthorise: (op: CompiledOperation) => boolean },
): Promise<PreflightProbe[]> {
  // Unique values drawn outside the seed: a probe must never repeat an id of an earlier run.
  const random = new Random(BigInt(`0x${randomBytes(8).toString("hex")}`));
  const fresh = new Map(
    options.unique.map(
      (name) =>
        [name, (type: "integer" | "string") => freshValue(type === "string" ? "string" : "int64", random)] as const,
    ),
  );
  const candidates = [...new Set(operations)]
    .filter((op) => !op.parameters.some((p) => p.in === "path"))
    .filter((op) => !op.authRequired || options.canAuthorise(op))
    .sort((a, b) => Number(SAFE.has(b.method)) - Number(SAFE.has(a.method)));
  const probes: PreflightProbe[] = [];
  for (const op of candidates) {
    if (probes.length >= MAX_PROBES) break;
    const request = minimalRequest(contract, op, { fresh });
    if (request === undefined) continue;
    const fixture = requestFixture(op, `preflight-${op.operationId}`, "pre-flight", request, { kind: "valid" });
    const step = (await runCase(fixture, random)).steps[0];
    if (step === undefined) continue;
    const probe = {
      operation: op.operationId,
      method: step.request.method,
      url: step.request.url,
      status: step.response?.status,
      withCredentials: step.request.credentials === "valid",
    };
    probes.push(probe);
    // No answer at all says nothing of the setup, and the cases will meet the same silence: stop.
    if (probe.status === undefined || (probe.status !== 404 && !refused(probe))) break;
  }
  const problem = setupProblem(probes);
  if (problem !== undefined) throw problem;
  return probes;
}

const refused = (p: PreflightProbe): boolean => p.withCredentials && (p.status === 401 || p.status === 403);

/** The setup mistake the probes show, as the error that stops the run; undefined when there is none. */
export function setupProblem(probes: readonly PreflightProbe[]): KitError | undefined {
  const answered = probes.filter((p) => p.status !== undefined);
  if (answered.length === 0) return undefined;
  const list = answered.map((p) => `${p.method} ${p.url} got ${p.status}`).join("; ");
  if (answered.every((p) => p.status === 404)) {
    return new KitError("PS_PATHS_NOT_FOUND", `pre-flight: ${list}; is the base path of --target right?`);
  }
  const authorised = answered.filter((p) => p.withCredentials);
  if (authorised.length > 0 && authorised.every(refused)) {
    return new KitError(
      "PS_CREDENTIALS_REFUSED",
      `pre-flight with valid credentials: ${authorised
        .map((p) => `${p.method} ${p.url} got ${p.status}`)
        .join("; ")}; is --token (or --credential) right for this target?`,
    );
  }
  return undefined;
}
