// Whether a fixture's requests are what its expectations say: a step that says `valid` must send a
// request the contract accepts, one that says `invalid` one it rejects, `unauthorised` one without valid
// credentials. The contract decides (contract/acceptability.ts), exactly as for the reference server.
import type { CheckedRequest, CompiledOperation } from "../contract/index.js";
import { checkRequest, describeViolation } from "../contract/index.js";
import { Random } from "./fresh.js";
import { stepOperation, type EarlierExchange, type Fixture, type PreparedRequest, type Secrets } from "./case-types.js";
import { NotYetKnown } from "./step-values.js";
import { prepareRequest } from "./prepare-request.js";

/** Refuses fixtures whose declared expectation does not follow from the spec. */
export function checkHonesty(fixture: Fixture, fail: (detail: string) => never): void {
  const sample = new Random(0n);
  const fresh = new Map<string, bigint | string>();
  const secrets: Secrets = { token: "sample-token", wrongToken: "sample-wrong" };
  const earlier: EarlierExchange[] = [];
  fixture.steps.forEach((step, i) => {
    const at = `field /steps/${i}`;
    const from = step.expect.existingAnswerFrom;
    if (from !== undefined && (from >= i || step.expect.kind !== "valid"))
      fail(`${at}/expect/existingAnswerFrom: must name an earlier step, on a valid step`);
    if (step.expect.refusable === true && step.expect.kind !== "valid")
      fail(`${at}/expect/refusable: applies to valid steps only`);
    if (step.expect.missingOk === true && step.expect.kind !== "valid")
      fail(`${at}/expect/missingOk: applies to valid steps only`);
    let prepared: PreparedRequest;
    try {
      prepared = prepareRequest(fixture, i, fresh, sample, secrets, earlier);
    } catch (error) {
      // A value from an earlier step's answer is only known when the case runs: not judged here.
      if (error instanceof NotYetKnown) return;
      return fail(`${at}/request: ${(error as Error).message}`);
    }
    earlier.push({ request: prepared, response: undefined });
    const credentials = step.request.credentials ?? "valid";
    const problems = requestProblems(stepOperation(fixture, i), prepared);
    const authorised =
      credentials === "valid" || credentials === "lowercase-scheme" || !stepOperation(fixture, i).authRequired;
    switch (step.expect.kind) {
      case "valid":
      case "duplicate":
        if (problems.length > 0)
          fail(`${at}: expects "${step.expect.kind}" but the request breaks the contract: ${problems.join("; ")}`);
        if (!authorised) fail(`${at}: expects "${step.expect.kind}" but sends credentials "${credentials}"`);
        break;
      case "invalid":
        if (problems.length === 0) fail(`${at}: expects "invalid" but the spec accepts the request`);
        if (!authorised)
          fail(
            `${at}: expects "invalid" but sends credentials "${credentials}"; an invalid case needs valid credentials`,
          );
        break;
      case "unauthorised":
        if (authorised) fail(`${at}: expects "unauthorised" but sends valid credentials`);
        break;
    }
  });
}

/**
 * What is wrong with a request's body and media type by the spec; empty when it is valid. The
 * contract decides (contract/acceptability.ts), exactly as for the reference server.
 */
export function requestProblems(operation: CompiledOperation, request: PreparedRequest): string[] {
  const checked = checkPrepared(operation, request);
  if (checked.ok) return [];
  return checked.reason === "schema" ? checked.violations.map(describeViolation) : [checked.detail];
}

/** The contract's verdict on a prepared request: parameters, then body. */
export function checkPrepared(operation: CompiledOperation, request: PreparedRequest): CheckedRequest {
  const q = request.path.indexOf("?");
  return checkRequest(operation, {
    headers: request.headers,
    body: request.body,
    path: request.pathOnly,
    query: q < 0 ? "" : request.path.slice(q + 1),
  });
}
